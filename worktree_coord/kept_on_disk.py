"""Small facts one process derives from the package's own files, kept for the next process in the
user's state folder (config.user_state_dir).

Who keeps what: merge/checks/symbols.py the bounds of each profile's query patterns
(`query-patterns-v1`) and the words a query's matches need (`query-words-v1`), merge/languages/profile_index.py the
shipped profiles' index (`profile-index-v1`) and what each shipped profile's TOML parses to (`profile-toml-v1`),
merge/languages/profiles.py the `binds` queries found valid for a grammar (`valid-binds-v1`),
merge/appended/appendable.py what the appended files' kinds parse to (`append-kinds-v1`). Each fact is kept under a digest of everything its answer depends on (the texts
it was derived from, the code that derives it, the versions of the libraries it used), so a kept
file is never stale, only unused. Files are written whole by rename (a reader sees an old file or
a new one); a file that does not read back as its writer wrote it is the caller's to ignore and
write again. A home folder that cannot be found, read or written only costs the next process the
computation again: never an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable


def kept_path(folder: str, parts: Iterable[bytes], suffix: str = "") -> Path | None:
    """Where the fact keyed by `parts` is kept in `folder` (under the user's state folder); None
    when no home folder can be found."""
    from .config import user_state_dir
    from .digest import sha256   # not hashlib's: its OpenSSL costs a short call 3-6 ms to load

    digest = sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)   # length first: ("ab", "c") is not ("a", "bc")
    try:
        return user_state_dir() / folder / f"{digest.hexdigest()}{suffix}"
    except (RuntimeError, KeyError):   # Path.home() with no HOME and no passwd entry
        return None


def read_kept(path: Path | None) -> str | None:
    """The kept text at `path`, or None (not kept yet, unreadable, or no place to keep it)."""
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def keep(path: Path | None, text: str) -> None:
    """Write `text` at `path` whole (by rename); a folder that cannot be written is left as it is."""
    if path is None:
        return
    import os

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass   # a read-only home: the next process computes it again


def source_of(module_file: str) -> bytes | None:
    """The bytes of a module's source file: the deriving code's part of a key (None: unreadable,
    then the caller keeps nothing)."""
    try:
        with open(module_file, "rb") as file:
            return file.read()
    except OSError:
        return None


def kept_json(folder: str, parts: Iterable[bytes], compute: Callable[[], Any]) -> Any:
    """`compute()`, kept in `folder` under `parts` as JSON beside a digest of it (SHA-256 of its
    canonical text), so a file that does not read back as written is computed and written again.
    An answer JSON would not give back alike (a date, a float that is not finite, a tuple) is
    returned and not kept. What the shipped TOML files parse to (profiles, the appended files'
    kinds): tomllib's import and parse, ~3-4 ms of each `wtc merge-file`, are one JSON read."""
    import json

    from .digest import sha256

    path = kept_path(folder, parts, ".json")
    try:
        kept = json.loads(read_kept(path) or "null")
        if isinstance(kept, dict) and "value" in kept and kept.get("digest") == \
                sha256(json.dumps(kept["value"], sort_keys=True).encode()).hexdigest():
            return kept["value"]
    except ValueError:
        pass   # not what this code wrote: computed and written again
    value = compute()
    try:
        canonical = json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return value
    if json.loads(canonical) == value:
        keep(path, json.dumps({"digest": sha256(canonical.encode()).hexdigest(), "value": value}))
    return value
