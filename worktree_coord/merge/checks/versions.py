"""The versions of one file a post-merge check reads: its path and four versions (base, left,
right, merged; None where the file is absent), shared by the checks of semantic.py, duplicates.py
and import_paths.py, and the size past which a version is not read at all."""

from __future__ import annotations

from typing import Protocol

from ...frozen import value_class

MAX_BYTES = 1_000_000   # a version bigger than this gives no removals, no uses and no declarations


class Versions(Protocol):
    """What the check reads of one file: its path and four versions (None: the file is absent)."""

    path: str

    @property
    def base(self) -> bytes | None: ...

    @property
    def merged(self) -> bytes | None: ...

    def version(self, which: str) -> bytes | None: ...

    def exists(self, which: str) -> bool: ...

    def same(self, one: str, other: str) -> bool: ...


@value_class
class FileVersions:
    """One file of a merge: its four versions, None where the file does not exist."""

    path: str
    base: bytes | None
    left: bytes | None
    right: bytes | None
    merged: bytes | None

    def version(self, which: str) -> bytes | None:
        return getattr(self, which)

    def exists(self, which: str) -> bool:
        return self.version(which) is not None

    def same(self, one: str, other: str) -> bool:
        return self.version(one) == self.version(other)
