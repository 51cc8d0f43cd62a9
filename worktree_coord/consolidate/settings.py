"""Keys of a root manifest outside the dependency model (lints, scripts, tool tables), as intents.

Stage: finish-time derivation and consolidation's plan and edit. Input: a root manifest's bytes at
the task's base and in its result (package.json, Cargo.toml, pyproject.toml, and pnpm-workspace.yaml
by whole top-level keys: `onlyBuiltDependencies`, `ignoredBuiltDependencies`). Output: one
`SettingChange` per key the task set or removed, named by its key path, for the `set_key` and
`remove_key` intents; and the value a key holds in a manifest now (for the plan's stale-base and
already-applied checks).

Why: a root manifest is reserved because many tasks edit it at once, and consolidation applies its
edits one by one. Dependencies, members, versions, overrides and runtimes have their own intents;
every other key (`[workspace.lints]`, `scripts.test`, `[tool.ruff]`) used to be refused at finish
(`reserved_unexpressible`), which left an agent with no way to make an ordinary edit. Carried as a
key-level setting, two tasks setting different keys both land, and two setting one key differently
(or one key and a key inside it) are a conflict naming both.

Invariants:
- a key path is written the way TOML writes dotted keys (`workspace.lints.clippy.large_futures`,
  `exports."./package.json"`), so it reads naturally and parses back exactly (`parse_key`);
- a change is taken key by key inside every table both versions hold and every new table written
  with a header (every new JSON object), so two tasks adding different keys to one table never
  collide; an inline table, an array or a removed table is one change with the whole value;
- values are carried as canonical JSON (`encode`); a value JSON cannot carry exactly (a TOML date)
  is reported as not expressible rather than changed on the way.
"""

from __future__ import annotations

import copy

import datetime
import json
import re
from typing import Any

from ..frozen import value_class

SETTINGS_GROUP = "settings"
FORMATS = frozenset({"package.json", "cargo", "pyproject", "pnpm-workspace", "pixi", "pom", "gradle-catalog"})
TOP_LEVEL_ONLY = frozenset({"pnpm-workspace"})   # edited as whole top-level blocks (line edits, not a YAML round trip)

_BARE = re.compile(r"[A-Za-z0-9_-]+")

# Keys no lockfile records and no resolver reads, per manifest format: a consolidation whose
# changes of a root are all among these commits the manifest without running the relock (a lint
# or a script must not wait for the network). Anything not listed is taken to matter (a relock
# runs), so the list only ever saves work, never skips a needed relock. Kept narrow on purpose:
# npm's lock records the root's name, version, license, bin, engines, funding and install scripts;
# pnpm's lock records the `pnpm` settings; Cargo's `resolver` changes the resolution. The same list
# decides whether a member manifest's edit needs its root relocked at all (derive.py).
LOCK_NEUTRAL: dict[str, tuple[tuple[str, ...], ...]] = {
    "cargo": (("lints",), ("workspace", "lints"), ("profile",), ("workspace", "metadata"), ("package", "metadata"),
              ("features",),   # Cargo.lock records every optional dependency, never a feature (measured, cargo 1.9x)
              ("badges",), *((*table, key) for table in (("package",), ("workspace", "package")) for key in (
                  "description", "documentation", "homepage", "repository", "readme", "keywords", "categories",
                  "authors", "edition", "exclude", "include", "publish", "license-file"))),
    "package.json": (("description",), ("keywords",), ("author",), ("contributors",), ("repository",),
                     ("homepage",), ("bugs",), ("files",), ("directories",), ("main",), ("module",), ("types",),
                     ("typings",), ("exports",), ("browser",), ("sideEffects",), ("type",), ("prettier",),
                     ("eslintConfig",), ("stylelint",), ("jest",), ("babel",), ("browserslist",),
                     ("lint-staged",), ("commitlint",), ("c8",), ("nyc",), ("ava",), ("mocha",),
                     ("scripts",)),   # but the install scripts: LOCK_RECORDED
    "pyproject": (*(("tool", t) for t in ("ruff", "black", "isort", "mypy", "pytest", "coverage", "pyright",
                                          "pylint", "codespell", "towncrier", "bandit", "pydocstyle", "tox",
                                          "bumpversion", "commitizen", "cibuildwheel", "docformatter", "flake8")),
                  *(("project", k) for k in ("description", "readme", "urls", "classifiers", "keywords",
                                             "authors", "maintainers", "scripts", "gui-scripts", "entry-points"))),
    # pixi.lock records each environment's packages, not its tasks, activation or descriptions
    "pixi": (("tasks",), ("feature", "*", "tasks"), ("target", "*", "tasks"), ("feature", "*", "target", "*", "tasks"),
             ("activation",), ("feature", "*", "activation"), ("target", "*", "activation"),
             *(("workspace", k) for k in ("description", "authors", "homepage", "repository", "documentation",
                                          "readme", "license", "license-file"))),
}


# Keys under a LOCK_NEUTRAL prefix that a lockfile does record. npm marks a package, the root
# or a workspace member, `hasInstallScript` when it has one of these three (measured, npm 10: a
# `prepare`, `prepack` or any other script leaves package-lock.json as it is).
LOCK_RECORDED: dict[str, tuple[tuple[str, ...], ...]] = {
    "package.json": (("scripts", "preinstall"), ("scripts", "install"), ("scripts", "postinstall")),
}


def lock_recorded(fmt: str, doc: dict) -> dict:
    """What a lockfile can see of a manifest `doc` of format `fmt`: the document without its
    LOCK_NEUTRAL keys, the LOCK_RECORDED ones among them kept (a member's `postinstall` script still
    counts). Two versions of a manifest that read the same here relock to the same lockfile."""
    kept = {prefix: _get(doc, prefix) for prefix in LOCK_RECORDED.get(fmt, ())}
    out = copy.deepcopy(doc)
    for prefix in LOCK_NEUTRAL.get(fmt, ()):
        drop_path(out, prefix)
    return {"doc": out, "recorded": kept}


def _get(doc: object, path: tuple[str, ...]) -> object:
    for part in path:
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


def drop_path(doc: object, path: tuple[str, ...]) -> None:
    """Remove `path` from `doc` ("*" matches every key), and the tables it leaves empty."""
    if not isinstance(doc, dict) or not path:
        return
    head, rest = path[0], path[1:]
    for key in list(doc) if head == "*" else [head] if head in doc else []:
        if rest:
            drop_path(doc[key], rest)
            if isinstance(doc[key], dict) and not doc[key]:
                del doc[key]
        else:
            del doc[key]


def lock_neutral(fmt: str, key: str) -> bool:
    """Whether a setting of `key` in a root manifest of format `fmt` leaves its lockfile as it is."""
    parts = parse_key(key)
    def under(prefixes: tuple[tuple[str, ...], ...]) -> bool:   # "*" in a prefix matches any one key
        return any(len(parts) >= len(prefix) and all(p in ("*", q) for p, q in zip(prefix, parts))
                   for prefix in prefixes)
    # A key holding a recorded one (the whole `scripts` table) may set it too.
    holds = any(prefix[:len(parts)] == parts for prefix in LOCK_RECORDED.get(fmt, ()))
    return under(LOCK_NEUTRAL.get(fmt, ())) and not under(LOCK_RECORDED.get(fmt, ())) and not holds


class Unexpressible(ValueError):
    """A value a setting intent cannot carry unchanged."""


def key_text(parts: tuple[str, ...]) -> str:
    """`("exports", "./x")` -> `exports."./x"` (TOML's dotted-key spelling)."""
    return ".".join(p if _BARE.fullmatch(p) else json.dumps(p, ensure_ascii=False) for p in parts)


def parse_key(text: str) -> tuple[str, ...]:
    """The inverse of `key_text`; a ValueError names what is wrong with a hand-typed key."""
    parts: list[str] = []
    pos = 0
    while True:
        if text.startswith('"', pos):
            decoder = json.JSONDecoder()
            try:
                part, pos = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                raise ValueError(f"key {text!r}: unterminated quoted part at {pos}") from exc
        else:
            match = _BARE.match(text, pos)
            if match is None:
                raise ValueError(f"key {text!r}: expected a bare name or a quoted part at {pos} "
                                 "(write parts with other characters in double quotes: exports.\"./x\")")
            part, pos = match.group(), match.end()
        parts.append(part)
        if pos == len(text):
            return tuple(parts)
        if text[pos] != ".":
            raise ValueError(f"key {text!r}: expected '.' at {pos}")
        pos += 1


def encode(value: Any) -> str:
    """Canonical JSON of a manifest value (the form intents carry and the plan compares)."""
    def refuse(item: Any) -> Any:
        raise Unexpressible(f"a {type(item).__name__} value ({item!r})")

    if isinstance(value, (datetime.date, datetime.time)):
        refuse(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=refuse)


def decode(spec: str | None) -> Any:
    return None if spec is None else json.loads(spec)


def value_at(document: Any, parts: tuple[str, ...]) -> str | None:
    """The encoded value at `parts` in a plain document (None: absent)."""
    node = document
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    try:
        return encode(node)
    except Unexpressible:
        return repr(node)   # compares unequal to any intent's value: a stale base, never a silent overwrite


@value_class
class SettingChange:
    """One key a task set (after = its encoded value) or removed (after = None)."""

    parts: tuple[str, ...]
    before: str | None
    after: str | None
    form: str = ""           # TOML: "table" when the task wrote a new table with a header, else inline
    follows: str = ""        # a new key: the key before it in the task's file (where it goes)
    precedes: str = ""       # a new first key: the key after it
    text: str = ""           # TOML: the value as the task wrote it (an array's comments and layout)

    @property
    def name(self) -> str:
        return key_text(self.parts)


def changes(base: dict, new: dict, *, new_forms: dict[tuple[str, ...], str] | None = None,
            new_texts: dict[tuple[str, ...], str] | None = None,
            prefix: tuple[str, ...] = ()) -> list[SettingChange]:
    """Key-level differences of two plain documents (modeled sections already stripped).

    `new_forms` (TOML) says which of the new document's tables have headers; None (JSON) means
    every object does. A table both versions hold, or a new table with a header, is compared key
    by key (two tasks adding keys to a new `[profile.release]` or `scripts` do not collide); an
    inline table, an array, a scalar and a removed table are one change each. Raises
    `Unexpressible` naming the key whose value cannot be carried."""
    out: list[SettingChange] = []
    for key in sorted(set(base) | set(new), key=str):
        parts = (*prefix, str(key))
        old, cur = base.get(key, _ABSENT), new.get(key, _ABSENT)
        if old == cur:
            continue
        headed = new_forms is None or new_forms.get(parts) == "table"
        if isinstance(cur, dict) and cur and (isinstance(old, dict) or (old is _ABSENT and headed)):
            out += changes(old if isinstance(old, dict) else {}, cur, new_forms=new_forms, new_texts=new_texts,
                           prefix=parts)
            continue
        try:
            before = None if old is _ABSENT else encode(old)
            after = None if cur is _ABSENT else encode(cur)
        except Unexpressible as exc:
            raise Unexpressible(f"{key_text(parts)}: {exc}") from None
        follows = precedes = ""
        if old is _ABSENT and cur is not _ABSENT:
            keys = list(new)
            at = keys.index(key)
            follows = str(keys[at - 1]) if at > 0 else ""
            precedes = str(keys[at + 1]) if at == 0 and len(keys) > 1 else ""
        form = "table" if isinstance(cur, (dict, list)) and new_forms is not None and headed else ""
        out.append(SettingChange(parts, before, after, form, follows, precedes, (new_texts or {}).get(parts, "")))
    return out


_ABSENT = object()


def _spelled_own_way(item: Any) -> bool:
    """Whether tomlkit would write this value differently from how the file does (comments, one
    item per line, a literal string): only then is its text worth carrying."""
    import tomlkit

    try:
        return item.as_string() != tomlkit.item(item.unwrap()).as_string()
    except Exception:   # a value tomlkit cannot rebuild by itself: carry the text
        return True


def toml_forms(document: Any, prefix: tuple[str, ...] = ()) -> tuple[dict[tuple[str, ...], str], dict[tuple[str, ...], str]]:
    """Which keys of a tomlkit document are tables or arrays of tables written with headers, and
    the text of every other value (what a setting writes back, comments and layout kept)."""
    import tomlkit.items as items
    from tomlkit.container import OutOfOrderTableProxy

    forms: dict[tuple[str, ...], str] = {}
    texts: dict[tuple[str, ...], str] = {}
    for key, value in document.items():
        parts = (*prefix, str(key))
        # A table whose sub-tables are not contiguous (`[tool.uv]`, then `[tool.ruff]` further on)
        # comes as a proxy over its pieces, not as a Table.
        if isinstance(value, (items.Table, items.AoT, OutOfOrderTableProxy)):
            forms[parts] = "table"
        elif isinstance(value, items.Item) and _spelled_own_way(value):
            texts[parts] = value.as_string()
        if isinstance(value, (items.Table, items.InlineTable, OutOfOrderTableProxy)):
            inner_forms, inner_texts = toml_forms(value, parts)
            forms.update(inner_forms)
            texts.update(inner_texts)
    return forms, texts


def merge_lists(base: str | None, left: str | None, right: str | None) -> str | None:
    """Two tasks' edits of one array of plain values (ruff's `select`, package.json's `files`), merged
    as a set edit: the base's items either side removed go, each side's new items are appended in
    its order (left's first); None (a conflict) unless all three are such arrays, free of repeats,
    and neither side reordered the items it kept."""
    values = [decode(v) if v is not None else None for v in (base, left, right)]
    if not all(isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v) for v in values):
        return None
    old, mine, theirs = values
    if any(len(v) != len({json.dumps(x) for x in v}) for v in values):
        return None
    key = json.dumps
    kept = {key(x) for x in mine} & {key(x) for x in theirs}
    for side in (mine, theirs):
        if [x for x in side if key(x) in {key(y) for y in old}] != [x for x in old if key(x) in {key(y) for y in side}]:
            return None   # the side reordered what it kept: order may matter here
    merged = [x for x in old if key(x) in kept]
    for side in (mine, theirs):
        merged += [x for x in side if key(x) not in {key(y) for y in old} and key(x) not in {key(y) for y in merged}]
    return encode(merged)
