"""The few ways the two databases spell the same statement, as a table.

The store's statements (`core.py`) and schema (`schema.py`) are written once, in PostgreSQL's
spelling, with named parameters (`:key`), tables named `wtc_*`, and `:now` for the clock that decides
liveness. A `Dialect` turns such a text into what one database runs:

- SQLite keeps `:name` parameters, names its tables without the prefix (the file is the store's
  own), has no row locks (its write transactions take the whole file at once: `BEGIN IMMEDIATE`),
  spells `IS NOT DISTINCT FROM` as `IS`, and fills `:now` from this process's clock;
- PostgreSQL takes `%(name)s` parameters and replaces `:now` by the server's clock, so machines
  whose clocks disagree still agree on who expired.

Nothing here runs a statement; the translation of a text is computed once per process.
"""

from __future__ import annotations

import re
from dataclasses import field

from ..frozen import value_class

_PARAMETER = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")   # `:name`, never the `::` of a cast
_PREFIX = re.compile(r"\bwtc_")


@value_class
class Dialect:
    """What differs between the databases in the text of a statement."""

    name: str
    prefix: str                           # the tables' prefix, in place of `wtc_`
    server_now: str | None                # SQL of the server's clock; None: `:now` is the client's time.time()
    pyformat: bool                        # parameters as %(name)s (psycopg) rather than :name (sqlite3)
    returning: bool                       # INSERT/UPDATE ... RETURNING is used (else: the row is read back)
    replace: tuple[tuple[str, str], ...]  # spellings swapped, in order: (canonical, this database's)
    # canonical text -> (this database's text, whether it needs the client's clock); a statement is
    # translated once per process (the texts are the core's own, a few dozen).
    _prepared: dict[str, tuple[str, bool]] = field(default_factory=dict, compare=False, repr=False)

    def prepare(self, text: str) -> tuple[str, bool]:
        """`text` (canonical spelling) as this database runs it, and whether running it needs a
        `now` parameter from this process's clock."""
        prepared = self._prepared.get(text)
        if prepared is None:
            prepared = self._prepared[text] = (_translate(self, text), self.server_now is None and _uses_now(text))
        return prepared

    def sql(self, text: str) -> str:
        """`text` (canonical spelling) as this database runs it."""
        return self.prepare(text)[0]


def _translate(dialect: Dialect, text: str) -> str:
    for canonical, spelled in dialect.replace:
        text = text.replace(canonical, spelled)
    if dialect.prefix != "wtc_":
        text = _PREFIX.sub(dialect.prefix, text)
    server_now = dialect.server_now
    if server_now is not None:
        text = _PARAMETER.sub(lambda m: server_now if m.group(1) == "now" else m.group(0), text)
    if dialect.pyformat:
        assert "%" not in text, "a literal % in a statement would be read as a parameter by psycopg"
        text = _PARAMETER.sub(r"%(\1)s", text)
    return text


def _uses_now(text: str) -> bool:
    return any(m.group(1) == "now" for m in _PARAMETER.finditer(text))


SQLITE = Dialect(
    name="sqlite", prefix="", server_now=None, pyformat=False, returning=False,  # RETURNING needs SQLite 3.35
    replace=(
        (" FOR UPDATE", ""), (" FOR SHARE", ""),            # the write transaction holds the whole file
        ("IS NOT DISTINCT FROM", "IS"),
        ("BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT"),
        ("BIGSERIAL PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT"),
        ("DOUBLE PRECISION", "REAL"),
    ),
)

POSTGRESQL = Dialect(
    name="postgresql", prefix="wtc_", pyformat=True, returning=True, replace=(),
    server_now="extract(epoch from clock_timestamp())::float8",   # in seconds, like time.time()
)
