"""A worktree's edits as blobs and a tree, and the diff of two trees, answered by git processes:
what a call that has not loaded libgit2 asks instead of paying pygit2's import (`wtc task check`).

Stage: reads for the forecast (`task check`, `forecast`), below the coordinator. Input: a runner of
git in the repository (`GitRepo.git`), a scratch folder under the common dir, the worktree's files.
Output: the same answers libgit2 gives on that path, held to them side by side in
tests/core/test_process_trees.py:
- blobs: one `git hash-object -w --stdin-paths` in the worktree for every edited file, with the
  input filters `git add` applies there (end-of-line conversion, clean filters, by the worktree's
  attributes and the repository's config): the blob a finish (`git add -A`) commits, so a check
  answers about the content that will be committed; a symlink's blob is its target, written to a
  scratch file first and hashed with `--no-filters` (hash-object would follow the link, and git
  filters no link);
- a tree with edits written over a root: a temporary index (`read-tree` of the root, one
  `update-index -z --index-info` for every edit, `write-tree`), which is the root's tree with those
  paths replaced, the same tree `integrate.trees.update_tree` builds (git's index drops emptied
  folders as the tree builder does, and replaces a file by a folder and back);
- a tree diff: `diff-tree -r -z --no-renames --ignore-submodules=none` (every changed file, link and
  gitlink; a file replaced by a folder is the file deleted and the folder's files added), sorted as
  `GitRepo.changes` sorts.
Cost: three to five git processes a state (each ~2-4 ms of CPU on the machine measured in
docs/architecture.md, against 45-80 ms for pygit2's import); so the trees and diffs run only while
libgit2 is not loaded: once it is, its in-process calls are cheaper than a process. The blobs are
git's always (libgit2 applies no clean filter a git config names): one process a worktree read.
Invariants: no ref, worktree file or worktree index is written; the temporary index and link
targets live in a scratch folder the call removes; objects written are unreachable until committed.
A call killed meanwhile leaves its folder; the folder's name says whose it was (a fingerprint of the
process table, the pid and its start time), and `wtc gc` removes it when that process has ended
(`stale_scratch`), or, when the name does not let this host judge the process (another host's, or a
name an older version wrote), once it is an hour old: never a folder a running call uses.
Any git failure returns None: the caller asks libgit2, whose answer (or error) is the reference.
"""

from __future__ import annotations

import os
import shutil
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, TypeVar

from ..digest import sha256
from ..errors import UsageError
from ..process_table import host_identity, pid_running, process_start_time

if TYPE_CHECKING:
    import subprocess

Git = Callable[..., "subprocess.CompletedProcess[bytes]"]   # GitRepo.git
C = TypeVar("C")   # repository.Change, passed in (repository.py imports this module: no import back)


def nest_edits(changes: Mapping[str, object]) -> dict[str, object]:
    """`changes` (path -> edit) as nested folders (name -> edit, or name -> dict of its folder's
    edits), refusing a path that is not relative or goes through a file also being written: the
    shape `integrate.trees.update_tree` writes, and the same refusals (UsageError)."""
    nested: dict[str, object] = {}
    for path, change in changes.items():
        parts = [p for p in path.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            raise UsageError(f"cannot write tree path {path!r}", fix="use a relative path like 'src/a.py'")
        node = nested
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise UsageError(f"tree path {path!r} goes through a file that is also being written")
            node = child
        node[parts[-1]] = change
    return nested


def _quoted(path: bytes) -> bytes:
    """A path as one line of `hash-object --stdin-paths`, which reads a line starting with a
    double quote as a C-quoted path: only such paths and those holding a newline need quoting."""
    if b"\n" not in path and not path.startswith(b'"') and b"\\" not in path:
        return path
    out = bytearray(b'"')
    for byte in path:
        char = bytes([byte])
        if char in b'"\\':
            out += b"\\" + char
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out += char
    return bytes(out + b'"')


def write_blobs(git: Git, scratch: Path, worktree: Path, paths: Sequence[str]
                ) -> dict[str, tuple[str, int] | None] | None:
    """Each of the worktree's files at `paths` (relative to it) as (blob id, mode), the blob `git add`
    in that worktree writes (its input filters applied): a regular file 100644 or 100755 (any
    execute bit), a symlink 120000 holding its target, anything else or a missing file None. None
    when git failed (a file changed type meanwhile): ask `GitRepo._working_blob`."""
    found: dict[str, tuple[str, int] | None] = {}
    files: list[tuple[str, int]] = []
    links: list[tuple[str, bytes]] = []
    for rel in paths:
        file = worktree / rel
        try:
            info = file.lstat()
        except (FileNotFoundError, NotADirectoryError):   # the latter: a file now stands where its folder was
            found[rel] = None
            continue
        if (info.st_mode & 0o170000) == 0o120000:   # S_ISLNK, without loading stat
            target = scratch / f"link.{len(links)}"
            target.write_bytes(os.fsencode(os.readlink(file)))
            links.append((rel, os.fsencode(target)))
        elif (info.st_mode & 0o170000) == 0o100000:   # S_ISREG
            files.append((rel, 0o100755 if info.st_mode & 0o111 else 0o100644))
        else:
            found[rel] = None
    # Run in the worktree with paths relative to it: the attributes that choose a path's filters
    # are the worktree's own (a task may change its .gitattributes), as for its `git add -A`.
    hashed = _hash(git, [os.fsencode(rel) for rel, _ in files], filters=True, cwd=worktree)
    if hashed is None:
        return None
    for (rel, mode), oid in zip(files, hashed):
        found[rel] = (oid, mode)
    hashed = _hash(git, [target for _, target in links], filters=False, cwd=None)
    if hashed is None:
        return None
    for (rel, _), oid in zip(links, hashed):
        found[rel] = (oid, 0o120000)
    return {rel: found[rel] for rel in paths}


def _hash(git: Git, paths: list[bytes], *, filters: bool, cwd: Path | None) -> list[str] | None:
    """One `git hash-object -w --stdin-paths` of `paths` (with `git add`'s input filters, or
    `--no-filters`); their ids in order, None when git failed."""
    if not paths:
        return []
    done = git("hash-object", "-w", *(() if filters else ("--no-filters",)), "--stdin-paths", check=False,
               cwd=cwd, input=b"".join(_quoted(path) + b"\n" for path in paths))
    ids = done.stdout.decode().split()
    return ids if done.returncode == 0 and len(ids) == len(paths) else None


def tree_with_edits(git: Git, scratch: Path, root: str, edits: Mapping[str, tuple[str, int] | None]) -> str | None:
    """The id of `root`'s tree (a commit or a tree) with `edits` written over it (None deletes),
    through a temporary index in `scratch`; None when git failed. Refuses what `update_tree` refuses."""
    nest_edits(edits)
    zero = "0" * len(root) if len(root) in (40, 64) else "0" * 40
    env = {"GIT_INDEX_FILE": str(scratch / "index")}
    if git("read-tree", root, env=env, check=False).returncode != 0:
        return None
    lines = b"".join((f"{edit[1]:06o} {edit[0]}" if edit is not None else f"0 {zero}").encode()
                     + b"\t" + os.fsencode(path) + b"\0" for path, edit in edits.items())
    if git("update-index", "-z", "--index-info", env=env, input=lines, check=False).returncode != 0:
        return None
    done = git("write-tree", env=env, check=False)
    tree = done.stdout.decode().strip()
    return tree if done.returncode == 0 and len(tree) in (40, 64) else None


def diff_trees(git: Git, old: str, new: str, change: Callable[..., C]) -> list[C] | None:
    """Every path that differs between two trees (or commits' trees), as `GitRepo.changes` lists them
    (no renames, a gitlink a leaf, sorted by path); None when git failed."""
    done = git("diff-tree", "-r", "-z", "--no-renames", "--ignore-submodules=none", "--no-ext-diff",
               old, new, check=False)
    if done.returncode != 0:
        return None
    fields = done.stdout.split(b"\0")
    out = []
    for at in range(0, len(fields) - 1, 2):
        info, path = fields[at], fields[at + 1]
        if not info.startswith(b":"):
            return None   # not the raw format this reads (a header, a rename): let libgit2 answer
        old_mode, new_mode, old_id, new_id, _status = info[1:].decode().split(" ")
        out.append(change(path.decode("utf-8", "surrogateescape"),
                          int(old_mode, 8) or None, int(new_mode, 8) or None,
                          old_id if old_id.strip("0") else None, new_id if new_id.strip("0") else None))
    out.sort(key=lambda c: c.path)   # type: ignore[attr-defined]
    return out


SCRATCH_PREFIX = "tmp-trees."
UNJUDGED_AGE = 3600.0   # seconds: a scratch folder whose process this host cannot judge is stale after this


class Scratch:
    """A folder under the common dir's wtc folder for one call's temporary index and link targets,
    removed on exit; named `tmp-trees.<host>.<pid>.<start>.<random>` so that `wtc gc` can tell
    whether the call that made it still runs (a call killed meanwhile leaves it: nothing reads it)."""

    def __init__(self, wtc_dir: Path):
        self.path = wtc_dir / f"{SCRATCH_PREFIX}{_owner_part(os.getpid())}.{os.urandom(4).hex()}"

    def __enter__(self) -> Path:
        self.path.mkdir(parents=True)
        return self.path

    def __exit__(self, *_: object) -> None:
        for child in self.path.iterdir():
            child.unlink()
        self.path.rmdir()



def stale_scratch(wtc_dir: Path, *, dry_run: bool) -> list[str]:
    """The scratch folders (`Scratch`) of calls that no longer run, removed unless `dry_run`: the
    process named in the folder's name ended on this host (or its pid now belongs to another
    process); a folder whose process this host cannot judge (another host's process table, or a
    name without one) once it is older than `UNJUDGED_AGE`. A running call's folder stays."""
    try:
        folders = sorted(p for p in wtc_dir.iterdir() if p.name.startswith(SCRATCH_PREFIX))
    except FileNotFoundError:
        return []
    horizon = time.time() - UNJUDGED_AGE
    found = []
    for folder in folders:
        parts = folder.name[len(SCRATCH_PREFIX):].split(".")
        running = None
        if len(parts) == 4 and parts[0] == _host_tag() and parts[1].isdigit():
            running = pid_running(host_identity(), int(parts[1]), "" if parts[2] == "0" else parts[2])
        if running is None:
            try:
                if folder.stat().st_mtime >= horizon:
                    continue
            except FileNotFoundError:
                continue   # its call just removed it
        elif running:
            continue
        found.append(str(folder))
        if not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
    return found


@lru_cache(maxsize=None)
def _host_tag() -> str:
    """This process table's name in a folder name: no dots, fixed length (host_identity holds the
    hostname, which may have dots)."""
    return sha256(host_identity().encode()).hexdigest()[:12]


@lru_cache(maxsize=None)
def _owner_part(pid: int) -> str:
    """`<host>.<pid>.<start>` of the process `pid` (start "0" when /proc does not say): keyed by
    pid, so a forked child names itself."""
    return f"{_host_tag()}.{pid}.{process_start_time(pid) or '0'}"
