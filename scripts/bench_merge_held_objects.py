#!/usr/bin/env python3
"""Measurement prototype, not the product: bench_merge.py with a drain's objects held in memory.

What a merge of a drain costs when the objects it writes (two trees and a commit a merge, libgit2
loose objects: 0.33-0.6 ms of system CPU each on a 2-core VM, docs/architecture.md "Cost of a
merge") are kept in memory and written as one pack when the drain publishes, before the ref moves.
The Integrator's repository gets an object backend in front of its own (priority 1000, so every
write lands there and every read asks it first); `Drain.publish` writes the held objects with
pygit2's PackBuilder into `objects/pack`, then moves the ref as before. The pack's cost is in the
drain's total.

Why it is not the product yet: a git process reading a commit of the drain before `publish`
(the merge-tree fallback, a remote run's push, the left-behind check's grep, another process)
would not find it; each such path needs the held objects written first, and the crash points
their tests. libgit2 cannot take a backend off a repository, so the backend stays (empty) on that
repository object after the drain.

Usage (same arguments as bench_merge.py; all methods must still end on the same tree):
  python scripts/bench_merge_held_objects.py --tasks 200 --sizes 100 --methods engine-sem,baseline --repeat 3
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_merge  # noqa: E402
from worktree_coord.integrate import engine  # noqa: E402


class HeldObjects(pygit2.OdbBackend):
    """Objects written through the repository, kept in memory until `write_pack`."""

    def __init__(self) -> None:
        super().__init__()
        self.objects: dict[pygit2.Oid, tuple[int, bytes]] = {}

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.objects[oid]

    def read_prefix_cb(self, oid: pygit2.Oid) -> tuple[int, bytes, pygit2.Oid]:
        kind, data = self.objects[oid]
        return kind, data, oid

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self.objects[oid]
        return kind, len(data)

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return oid in self.objects

    def exists_prefix_cb(self, oid: pygit2.Oid) -> pygit2.Oid:
        raise KeyError(oid)   # abbreviated ids are not asked during a drain

    def refresh_cb(self) -> None:
        pass

    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        self.objects[oid] = (kind, data)

    def write_pack(self, repo: pygit2.Repository) -> None:
        if not self.objects:
            return
        pack = pygit2.PackBuilder(repo)
        pack.set_threads(1)
        for oid in self.objects:
            pack.add(oid)
        pack.write(os.path.join(repo.path, "objects", "pack"))
        self.objects.clear()   # on disk now: read from the pack


_HELD: dict[int, HeldObjects] = {}
_init = engine.Integrator.__init__
_publish = engine.Drain.publish


def _held_init(self: engine.Integrator, repo, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    _init(self, repo, *args, **kwargs)
    held = HeldObjects()
    self.repo.odb.add_backend(held, 1000)
    _HELD[id(self.repo)] = held


def _held_publish(self: engine.Drain) -> pygit2.Oid:
    held = _HELD.get(id(self._integrator.repo))
    if held is not None:
        held.write_pack(self._integrator.repo)
    return _publish(self)


engine.Integrator.__init__ = _held_init  # type: ignore[method-assign]
engine.Drain.publish = _held_publish      # type: ignore[method-assign]

if __name__ == "__main__":
    # Only a drain publishes (writes the pack): a method moving the ref per merge would point it
    # at objects held in memory only.
    if "--methods" in sys.argv:
        methods = sys.argv[sys.argv.index("--methods") + 1].split(",")
        if set(methods) - {"engine", "engine-sem", "baseline"}:
            raise SystemExit("--methods: engine, engine-sem and baseline only (the drains, which publish "
                             "through Drain.publish, and the git loop)")
    else:
        sys.argv += ["--methods", "engine,engine-sem,baseline"]
    sys.exit(bench_merge.main())
