"""The git layer: a repository opened for coordination (`GitRepo`) and the repository-wide lock
around git's racy registration steps (`filelock`). It knows git, not policy: nothing here imports
a capability, the coordinator or a face (tests/test_layers.py)."""

from .repository import (
    EXCLUDE_LINE,
    GIT_MODE_GITLINK,
    GIT_MODE_LINK,
    GIT_MODE_TREE,
    TOMBSTONE_PREFIX,
    WTC_DIR,
    Change,
    GitRepo,
    WorktreeEntry,
    bury,
    delete_tombstone,
    is_tombstone,
)

__all__ = ["Change", "EXCLUDE_LINE", "GIT_MODE_GITLINK", "GIT_MODE_LINK", "GIT_MODE_TREE", "GitRepo",
           "TOMBSTONE_PREFIX", "WTC_DIR", "WorktreeEntry", "bury", "delete_tombstone", "is_tombstone"]
