"""Where the coordination store lives: the address a user gives, read, checked, shown without its
password, and opened.

Stage: the start of every command that needs the store. Input: the `WTC_STORE` environment
variable (it wins: a sandbox's environment is where a shared store is wired in), else `store` from
the configuration, else the default. Output: a `StoreAddress`, then an open Store.

Addresses: `sqlite` (the default, `<git common dir>/wtc/state.sqlite3`), `sqlite:/absolute/path`, or
`postgresql://user@host:port/database?...` (`postgres://` too; every libpq parameter works, and the
password comes from the address in WTC_STORE, PGPASSWORD or ~/.pgpass). Anything else is a
StoreError (exit 2) naming the source and the accepted forms.

Invariants: the SQLite default never imports psycopg (a command's start-up pays only for what it
runs); `shown` never holds the password.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit

from ..config import redact_address
from ..errors import StoreError
from ..frozen import value_class
from .base import Store

ENVIRONMENT_VARIABLE = "WTC_STORE"


@value_class
class StoreAddress:
    kind: str          # "sqlite" | "postgresql"
    target: str        # the path, or the full address (may hold a password: never show it)
    shown: str         # what messages and `wtc status` show
    source: str        # "WTC_STORE", the configuration file's name, or "default"


def resolve(configured: str | None, configured_in: str | None, default_path: Path,
            environ: Mapping[str, str] = os.environ) -> StoreAddress:
    """The store address in force (see the module docstring)."""
    value, source = environ.get(ENVIRONMENT_VARIABLE, "").strip(), ENVIRONMENT_VARIABLE
    if not value:
        value, source = (configured or "").strip(), configured_in or "the configuration"
    if not value or value.lower() == "sqlite":
        return StoreAddress("sqlite", str(default_path), str(default_path), source if value else "default")
    scheme, _, rest = value.partition(":")
    scheme = scheme.lower()
    if scheme in ("postgresql", "postgres") and rest.startswith("//") and _readable(value):
        return StoreAddress("postgresql", value, redact_address(value), source)
    if scheme == "sqlite":
        path = Path(rest[2:] if rest.startswith("//") else rest)
        if path.is_absolute():
            return StoreAddress("sqlite", str(path), str(path), source)
    raise StoreError(
        f"the store address in {source} is not one wtc can open: {redact_address(value)!r}",
        fix="use `sqlite` (the default), `sqlite:/absolute/path/state.sqlite3`, or "
            "`postgresql://user@host:5432/database`",
        details={"source": source},
    )


def open_store(address: StoreAddress) -> Store:
    """Open (and migrate) the store at `address`."""
    if address.kind == "sqlite":
        from .sqlite import SQLiteStore

        return SQLiteStore(address.target)
    try:
        from .postgres import PostgresStore
    except ImportError as missing:
        raise StoreError(
            f"the store address in {address.source} is a PostgreSQL one ({address.shown}), and this installation "
            f"cannot talk to PostgreSQL ({missing.name or missing} is not installed)",
            fix="pip install 'worktree-coord[postgres]' (psycopg and its pool), or unset it to use the SQLite store",
            details={"source": address.source},
        ) from None
    return PostgresStore(address.target)


def _readable(address: str) -> bool:
    try:
        urlsplit(address).port  # a broken IPv6 host or a port that is not a number raise here
    except ValueError:
        return False
    return True
