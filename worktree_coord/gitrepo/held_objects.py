"""A drain's new objects held in memory, then written to disk as one pack before anyone else needs them.

Stage: the git layer's object database, seen by the merge engine's `Drain` (integrate/engine.py).
Why: libgit2 writes each new object as a loose file (two trees and a commit a merge), and each
costs 0.33-0.6 ms of system CPU on a 2-core VM (a lookup that misses and rescans objects/pack,
a temporary file, a write, a rename, a mkdir when the folder is new): about half of a drain's
cost over the git loop it is measured against (docs/architecture.md "Cost of a merge").

`HeldObjects` is an object backend put in front of a repository's own (priority 1000: every
write reaches it first, every read asks it first). While it holds (`hold()`, the drain's
thread only), what that thread writes stays in a dict; `release()` writes the dict as one pack
and writes through to disk from then on. The pack is written here (`write_pack`), not by
pygit2's PackBuilder, which took 80-126 ms for a 200-merge drain's 598 objects on the 2-core VM:
its delta search, zlib at the default level over trees that are mostly 20-byte ids, and its
indexer reading the pack back to hash and index what the caller already knows. Trees are
stored without compression (zlib level 0: they shrink by a quarter at best), other objects at
level 1, as libgit2 writes loose objects; no deltas (`git repack` makes them when it combines
packs). The pack and then its index are written under temporary names and renamed, as git
does, so git finds a whole pack or none. Any git
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
from pathlib import Path
import struct
import tempfile
import threading
import zlib

import pygit2

from . import held
from .locate import common_dir_of


def objects_folder(repo: pygit2.Repository) -> str:
    """The repository's objects folder (a linked worktree's repository keeps it in the common dir)."""
    return str(common_dir_of(Path(repo.path)) / "objects")


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
        objects = list(self._objects.items())
        if len(objects[0][0].raw) == 20:
            write_pack(os.path.join(self._objects_folder, "pack"), [(o.raw, k, d) for o, (k, d) in objects])
        else:   # a SHA-256 repository: libgit2's own pack writer
            pack = pygit2.PackBuilder(self._repo)
            pack.set_threads(1)
            for oid, _ in objects:
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
        if len(prefix) == 40:   # libgit2 asks a whole id this way too (a lookup by hex): no scan
            oid = pygit2.Oid(hex=prefix)
            if oid in self._objects:
                return oid
            raise KeyError(prefix)
        found = [oid for oid in list(self._objects) if str(oid).startswith(prefix)]
        if len(found) != 1:
            raise KeyError(prefix)
        return found[0]


_STORED_KINDS = frozenset({2})   # trees: mostly 20-byte ids, which zlib cannot shrink (level 0)


def write_pack(folder: str, objects: list[tuple[bytes, int, bytes]]) -> str:
    """Write (raw SHA-1 id, kind, data) objects as a version 2 pack and its version 2 index into
    `folder`, under temporary names renamed into place (the pack, then its index: git finds a pack
    by its index). Returns the pack's path. No deltas; kinds are git's (1 commit ... 4 tag)."""
    ordered = sorted(objects, key=lambda item: item[0])
    if len({raw for raw, _, _ in ordered}) != len(ordered):
        raise ValueError("write_pack: an object id given twice (the pack's header counts each once)")
    import hashlib   # here: a pack is written by a drain; a finish that imports this writes none

    body = hashlib.sha1()
    crcs: dict[bytes, int] = {}
    offsets: dict[bytes, int] = {}
    fd, pack_tmp = tempfile.mkstemp(prefix="tmp_pack_", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            header = b"PACK" + struct.pack(">II", 2, len(ordered))
            out.write(header)
            body.update(header)
            offset = len(header)
            for raw, kind, data in ordered:
                size = len(data)
                head = bytearray([(kind << 4) | (size & 0x0F)])
                size >>= 4
                while size:
                    head[-1] |= 0x80
                    head.append(size & 0x7F)
                    size >>= 7
                entry = bytes(head) + zlib.compress(data, 0 if kind in _STORED_KINDS else 1)
                out.write(entry)
                body.update(entry)
                offsets[raw], crcs[raw] = offset, zlib.crc32(entry)
                offset += len(entry)
            checksum = body.digest()
            out.write(checksum)
        index = _index([raw for raw, _, _ in ordered], crcs, offsets, checksum)
        fd, idx_tmp = tempfile.mkstemp(prefix="tmp_idx_", dir=folder)
        with os.fdopen(fd, "wb") as out:
            out.write(index)
    except BaseException:
        os.unlink(pack_tmp)
        raise
    name = os.path.join(folder, f"pack-{checksum.hex()}")
    for tmp in (pack_tmp, idx_tmp):
        os.chmod(tmp, 0o444)
    os.replace(pack_tmp, name + ".pack")
    os.replace(idx_tmp, name + ".idx")
    return name + ".pack"


def _index(ids: list[bytes], crcs: dict[bytes, int], offsets: dict[bytes, int], checksum: bytes) -> bytes:
    """A version 2 pack index: fan-out, sorted ids, CRC32s, offsets (large ones in 8 bytes)."""
    fanout = [0] * 256
    for raw in ids:
        fanout[raw[0]] += 1
    total = 0
    for i in range(256):
        total += fanout[i]
        fanout[i] = total
    small: list[int] = []
    large: list[int] = []
    for raw in ids:
        if offsets[raw] < 0x80000000:
            small.append(offsets[raw])
        else:
            small.append(0x80000000 | len(large))
            large.append(offsets[raw])
    index = b"".join([
        b"\xfftOc", struct.pack(">I", 2), struct.pack(">256I", *fanout), *ids,
        struct.pack(f">{len(ids)}I", *(crcs[raw] for raw in ids)),
        struct.pack(f">{len(ids)}I", *small), struct.pack(f">{len(large)}Q", *large), checksum,
    ])
    import hashlib

    return index + hashlib.sha1(index).digest()
