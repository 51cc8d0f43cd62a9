"""The git layer: a repository opened for coordination (`GitRepo`), the repository-wide lock around
git's racy registration steps (`filelock`), git's tree merge (`mergetree`), its diff3 line merge
(`linemerge`) and compare-and-swap of refs (`refs`). It knows git, not policy: nothing here imports
a capability, the coordinator or a face, and no module outside it runs git (tests/test_layers.py).
The submodules other than `repository` are imported by name where they are needed."""

from __future__ import annotations

# Not `from typing import TYPE_CHECKING`: `gitrepo.locate` is the warm path's first import, before typing.
TYPE_CHECKING = False

# The names below load `repository` (and pygit2) on first use, so a command that only needs
# `gitrepo.locate` (wtc status) does not pay for libgit2.
_FROM_REPOSITORY = ("EXCLUDE_LINE", "GIT_MODE_GITLINK", "GIT_MODE_LINK", "GIT_MODE_TREE", "TOMBSTONE_PREFIX",
                    "WTC_DIR", "Change", "GitRepo", "WorktreeEntry", "bury", "delete_tombstone", "delete_tombstones_of",
                    "is_tombstone")

if TYPE_CHECKING:
    from .repository import (EXCLUDE_LINE, GIT_MODE_GITLINK, GIT_MODE_LINK, GIT_MODE_TREE, TOMBSTONE_PREFIX,
                             WTC_DIR, Change, GitRepo, WorktreeEntry, bury, delete_tombstone, delete_tombstones_of,
                             is_tombstone)


def __getattr__(name: str) -> object:
    if name in _FROM_REPOSITORY:
        from . import repository

        return getattr(repository, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Change", "EXCLUDE_LINE", "GIT_MODE_GITLINK", "GIT_MODE_LINK", "GIT_MODE_TREE", "GitRepo",
           "TOMBSTONE_PREFIX", "WTC_DIR", "WorktreeEntry", "bury", "delete_tombstone", "delete_tombstones_of",
           "is_tombstone"]
