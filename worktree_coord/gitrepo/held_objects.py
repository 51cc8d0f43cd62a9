"""A drain's new objects held in memory, then written to disk as one pack before anyone else needs them.

Stage: the git layer's object database, seen by the merge engine's `Drain` (integrate/engine.py).
Why: libgit2 writes each new object as a loose file (two trees and a commit a merge), and each
costs 0.33-0.6 ms of system CPU on a 2-core VM (a lookup that misses and rescans objects/pack,
a temporary file, a write, a rename, a mkdir when the folder is new): about half of a drain's
cost over the git loop it is measured against (docs/architecture.md "Cost of a merge").

`HeldObjects` is an object backend put in front of a repository's own (priority 1000: every
write reaches it first, every read asks it first). While it holds (`hold()`, the drain's
thread only), what that thread writes stays in a dict; `release()` writes the dict as one pack
(pygit2.PackBuilder: libgit2's indexer writes the pack and its index under temporary names and
renames them, so a pack is whole or absent) and writes through to disk from then on. Any git
process started meanwhile gets the held objects written first (held.py's `write_held()`, called
wherever the git layer starts git); that also ends the holding for the rest of the drain, so a
drain leaves at most one pack.

Writing through: libgit2 cannot take a backend off a repository, so after `release()` the
backend stays and writes each object loose itself, through an object database holding only
libgit2's loose backend on the same folder. Raising from the write callback is not enough:
libgit2 passes a failed `git_odb_write` (trees, commits) on to the next backend, but a blob
goes through `git_odb_open_wstream`, which stops at the first backend that can write and fails
with it (checked with pygit2 1.21 / libgit2 1.9). The loose write costs what libgit2's own does
(the loose backend's freshen is a stat); reads that miss libgit2's cache cost one Python call.
"""

from __future__ import annotations

import os
import threading

import pygit2

from . import held


def objects_folder(repo: pygit2.Repository) -> str:
    """The repository's objects folder (a linked worktree's repository keeps it in the common dir)."""
    git_dir = repo.path
    common = os.path.join(git_dir, "commondir")
    if os.path.isfile(common):
        with open(common, encoding="utf-8", errors="replace") as fh:
            git_dir = os.path.join(git_dir, fh.read().strip())
    return os.path.normpath(os.path.join(git_dir, "objects"))


class HeldObjects(pygit2.OdbBackend):
    """See the module docstring. Add it with `repo.odb.add_backend(backend, HeldObjects.PRIORITY)`."""

    PRIORITY = 1000

    def __init__(self, repo: pygit2.Repository):
        super().__init__()
        self._objects_folder = objects_folder(repo)
        self._objects: dict[pygit2.Oid, tuple[int, bytes]] = {}
        self._lock = threading.RLock()
        self._repo: pygit2.Repository | None = None   # only while holding: the backend lives in its odb
        self._thread: int | None = None                # the thread whose writes are held
        self._loose: pygit2.Odb | None = None
        self.packs_written = 0

    # -- the drain's side ------------------------------------------------------------------------
    @property
    def holding(self) -> bool:
        return self._thread is not None

    @property
    def count(self) -> int:
        """How many objects wait in memory."""
        return len(self._objects)

    def hold(self, repo: pygit2.Repository) -> None:
        """Keep what this thread writes through `repo` (whose odb holds this backend) in memory."""
        with self._lock:
            self._repo = repo
            self._thread = threading.get_ident()
            held.holding(self)

    def release(self) -> None:
        """Write what is held as one pack, then write through to disk (idempotent)."""
        with self._lock:
            try:
                self._write_pack()
            finally:
                self._thread = None
                if not self._objects:
                    self._repo = None
                    held.released(self)

    def write_held(self) -> None:
        """A git process is about to start: what is held goes to disk now, and the rest of this
        drain writes through (one pack a drain, however many git processes it starts)."""
        self.release()

    def _write_pack(self) -> None:
        if not self._objects:
            return
        assert self._repo is not None
        pack = pygit2.PackBuilder(self._repo)
        pack.set_threads(1)   # one core of the machine's few: a drain's pack is small
        for oid in list(self._objects):
            pack.add(oid)
        pack.write(os.path.join(self._objects_folder, "pack"))
        self.packs_written += 1
        # Only now: until the pack is whole, readers in this process find them here.
        self._objects.clear()

    # -- libgit2's side --------------------------------------------------------------------------
    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        if self._thread is not None and threading.get_ident() == self._thread:
            with self._lock:
                if self._thread is not None:
                    self._objects[oid] = (kind, data)
                    return
        if self._loose is None:
            loose = pygit2.Odb()
            loose.add_backend(pygit2.OdbBackendLoose(self._objects_folder, -1, False), 1)
            self._loose = loose
        self._loose.write(kind, data)

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self._objects[oid]   # KeyError: libgit2 asks the next backend

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self._objects[oid]
        return kind, len(data)

    def read_prefix_cb(self, prefix: str) -> tuple[int, bytes, pygit2.Oid]:
        oid = self._unique(prefix)
        kind, data = self._objects[oid]
        return kind, data, oid

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return oid in self._objects

    def exists_prefix_cb(self, prefix: str) -> pygit2.Oid:
        return self._unique(prefix)

    def refresh_cb(self) -> None:
        pass

    def _unique(self, prefix: str) -> pygit2.Oid:
        # An abbreviated id among the held ones; KeyError (not found here) otherwise, also when two
        # match: libgit2 then asks the other backends, which hold none of these.
        if not self._objects:
            raise KeyError(prefix)
        found = [oid for oid in list(self._objects) if str(oid).startswith(prefix)]
        if len(found) != 1:
            raise KeyError(prefix)
        return found[0]
