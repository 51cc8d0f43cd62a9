"""Which shipped language profile a path belongs to, found without validating any profile.

Stage: the first question every merge and check asks of a path (`profile_for_path`, the semantic
check's `semantic_profile`). Input: a path (and, for a profile that `claims` files of another's
extension, the file's contents). Output: the name of the profile's TOML file in
`worktree_coord.grammars`, or None. Reads each profile's head (its file names and extensions) with
tomllib; loads neither tree-sitter nor a grammar nor profiles.py's rules, so a call that asks only
"does any profile read this file?" (a `task check` of a text file) pays no more (issue 36).
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import Any

from ...errors import ConfigError


def _toml(text: str, source: str) -> dict[str, Any]:
    import tomllib   # here, as in every reader below: importing this module reads no profile yet

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"language profile {source} is not valid TOML: {error}") from error


PARSED_CACHE = "profile-toml-v1"   # folder under the user's state folder (kept_on_disk.py)


def shipped_toml(name: str, text: str) -> dict[str, Any]:
    """`_toml(text, name)` of a shipped profile, kept on disk as JSON for the next process
    (kept_on_disk.kept_json): tomllib's import (its regular expressions) and the parse cost a `wtc
    merge-file` ~3-4 ms quiet of its own language's profile, every call. Kept under the text, this
    module's code and the interpreter's version (tomllib's)."""
    from ...kept_on_disk import kept_json, source_of

    code = source_of(__file__)
    if code is None:
        return _toml(text, name)
    return kept_json(PARSED_CACHE, [code, sys.version.encode(), name.encode(),
                                    text.encode("utf-8", "surrogateescape")], lambda: _toml(text, name))
    if json.loads(canonical) == parsed:
        keep(path, json.dumps({"digest": sha256(canonical.encode()).hexdigest(), "toml": parsed}))
    return parsed



@functools.lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[str, str], ...]:
    """(file name, TOML text) of every profile shipped in `worktree_coord.grammars`, by file name.
    Read from the package's folder with plain file reads when it is one (an install, a checkout):
    importlib.resources' traversal cost ~4 ms of every process reading them, ten times the reads."""
    import worktree_coord.grammars as grammars

    folders = list(getattr(grammars, "__path__", []))
    if len(folders) == 1 and os.path.isdir(folders[0]):
        names = sorted(name for name in os.listdir(folders[0]) if name.endswith(".toml"))
        found = []
        for name in names:
            with open(os.path.join(folders[0], name), encoding="utf-8") as file:
                found.append((name, file.read()))
        return tuple(found)
    import importlib.resources   # a zipped or multi-folder package

    root = importlib.resources.files("worktree_coord.grammars")
    return tuple((entry.name, entry.read_text(encoding="utf-8"))
                 for entry in sorted(root.iterdir(), key=lambda item: item.name) if entry.name.endswith(".toml"))


def _claims(raw: dict[str, Any], source: str) -> tuple[tuple[str, ...], re.Pattern[bytes]] | None:
    """The profile's `claims` (extensions, compiled marker), checked, or None."""
    claims = raw.get("claims")
    if claims is None:
        return None
    extensions = claims.get("extensions") if isinstance(claims, dict) else None
    if not isinstance(claims, dict) or set(claims) != {"extensions", "marker"} or not isinstance(extensions, list) \
            or not all(isinstance(item, str) for item in extensions) or not isinstance(claims["marker"], str):
        raise ConfigError(f"language profile {source}: claims takes `extensions` (a list) and `marker` (a regex)",
                          fix='claims = { extensions = ["h"], marker = "^namespace " }')
    try:
        return tuple(extensions), re.compile(claims["marker"].encode(), re.MULTILINE)
    except re.error as exc:
        raise ConfigError(f"language profile {source}: claims.marker is not a regex: {exc}") from None


@functools.lru_cache(maxsize=1)
def _shipped_index() -> tuple[tuple[str, tuple[str, ...], tuple[str, ...],
                                    tuple[tuple[str, ...], re.Pattern[bytes]] | None], ...]:
    """(file name, filenames, extensions, claims) of every shipped profile: what
    `profile_for_path` matches on, read without validating the profile, since validating loads the
    language's grammar. The heads' parse (27 TOML heads, ~4.5 ms of every process asking a path's
    profile: each CLI finish) is kept on disk, keyed by the profiles' texts and this module's code
    (`INDEX_CACHE`); a file that does not read back as such an index is ignored and written again."""
    shipped = _shipped()
    path = _kept_index_path(shipped)
    kept = _read_kept_index(path)
    if kept is not None and [row[0] for row in kept] == [name for name, _ in shipped]:
        try:
            return tuple((name, tuple(filenames), tuple(extensions),
                          None if claims is None else (tuple(claims[0]), re.compile(claims[1].encode(), re.MULTILINE)))
                         for name, filenames, extensions, claims in kept)
        except re.error:
            pass   # not what this code wrote: parsed again below
    index = []
    for name, text in shipped:
        raw = _head(text, name)
        index.append((name, tuple(raw.get("filenames", [])), tuple(raw.get("extensions", [])), _claims(raw, name)))
    import json

    from ...kept_on_disk import keep

    keep(path, json.dumps([[name, list(filenames), list(extensions),
                            None if claims is None else [list(claims[0]), claims[1].pattern.decode()]]
                           for name, filenames, extensions, claims in index]))
    return tuple(index)


INDEX_CACHE = "profile-index-v1"   # folder under the user's state folder (kept_on_disk.py)


def _kept_index_path(shipped: tuple[tuple[str, str], ...]) -> Any:
    """Where the index of these profile texts is kept (None when this module's code is unreadable)."""
    from ...kept_on_disk import kept_path, source_of

    code = source_of(__file__)
    if code is None:
        return None
    return kept_path(INDEX_CACHE, [code] + [part for name, text in shipped
                                            for part in (name.encode(), text.encode("utf-8", "surrogateescape"))],
                     ".json")


def _read_kept_index(path: Any) -> list[list[Any]] | None:
    import json

    from ...kept_on_disk import read_kept

    try:
        rows = json.loads(read_kept(path) or "null")
    except ValueError:
        return None

    def words(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)

    if not isinstance(rows, list) or not all(
            isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and words(row[1]) and words(row[2])
            and (row[3] is None or (isinstance(row[3], list) and len(row[3]) == 2 and words(row[3][0])
                                    and isinstance(row[3][1], str)))
            for row in rows):
        return None
    return rows


_BODY_START = re.compile(r"^(\[|\w+\s*=\s*(\'\'\'|\"\"\"))", re.MULTILINE)


def _head(text: str, source: str) -> dict[str, Any]:
    """The profile's top-level keys before its first table or multi-line string (where every
    shipped profile names its files), read without parsing the queries and tables below them:
    with two dozen profiles, parsing them whole would grow every `wtc merge-file`'s start-up.
    Falls back to the whole file when the head does not parse or names no files."""
    import tomllib

    found = _BODY_START.search(text)
    if found is not None:
        try:
            head = tomllib.loads(text[:found.start()])
        except tomllib.TOMLDecodeError:
            head = {}
        if "extensions" in head or "filenames" in head:
            return head
    return _toml(text, source)


def profile_name_for_path(path: str, *contents: bytes) -> str | None:
    """The file name of the profile that handles `path` (by file name first, then by extension), or
    None. With the file's `contents` (each version of a merge), a profile whose `claims` marker
    matches any of them takes the file from the one its extension names (all versions merge with
    one grammar)."""
    base = os.path.basename(path)
    index = _shipped_index()
    by_name, by_extension = _path_tables(index)
    name = by_name.get(base)
    if name is not None:
        return name
    lowered = base.lower()
    if contents:
        for name, _, _, claims in index:
            if claims is not None and any(lowered.endswith("." + extension) for extension in claims[0]) \
                    and any(claims[1].search(content) for content in contents):
                return name
    # The first profile (in the index's order) with an extension the name ends in, after a dot:
    # each ending after a dot looked up, not every extension of every profile tried.
    best: tuple[int, str] | None = None
    at = lowered.find(".")
    while at != -1:
        found = by_extension.get(lowered[at + 1:])
        if found is not None and (best is None or found[0] < best[0]):
            best = found
        at = lowered.find(".", at + 1)
    return best[1] if best is not None else None


def load_index() -> None:
    """Read every shipped profile's head and build the lookup tables now (`wtc serve`, before it
    forks its calls: each call otherwise parsed the 27 heads again, ~5 ms of a finish)."""
    _path_tables(_shipped_index())


_PATH_TABLES: list[Any] = [None, None]   # [the index they were made from, (by file name, by extension)]


def _path_tables(index: tuple) -> tuple[dict[str, str], dict[str, tuple[int, str]]]:
    """file name -> the first profile (in `index`'s order) naming it, and extension -> (place,
    profile) of the first profile having it: what `profile_for_path` asks of every path, looked
    up (a merge asks it of every new path; the scan cost 40 `endswith` calls a path)."""
    if _PATH_TABLES[0] is not index:
        by_name: dict[str, str] = {}
        by_extension: dict[str, tuple[int, str]] = {}
        for place, (name, filenames, extensions, _) in enumerate(index):
            for filename in filenames:
                by_name.setdefault(filename, name)
            for extension in extensions:
                by_extension.setdefault(extension, (place, name))
        _PATH_TABLES[1] = (by_name, by_extension)
        _PATH_TABLES[0] = index
    return _PATH_TABLES[1]


def names_unread_language(path: str) -> str | None:
    """The name of `path`'s language when it is code whose names no semantic check reads (a
    profile with no `[semantic]` table and not `code = false`: Swift, Ruby, PHP, Scala, Lua today),
    else None (no profile, a document or data, or a language the check reads). Read from the
    profile's TOML, without validating it: a task of C files loads no grammar to be told its names
    were not looked for."""
    name = profile_name_for_path(path)
    return str(_profile_toml(name).get("name", name)) if name is not None and names_unread(name) else None


def names_unread(name: str) -> bool:
    """Whether the shipped profile of file `name` (`kotlin.toml`) is code whose names no semantic
    check reads."""
    raw = _profile_toml(name)
    return "semantic" not in raw and raw.get("code", True) is not False


@functools.lru_cache(maxsize=None)
def _profile_toml(name: str) -> dict[str, Any]:
    return shipped_toml(name, dict(_shipped())[name])
