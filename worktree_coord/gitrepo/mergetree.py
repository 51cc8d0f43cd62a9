"""Tree-level three-way merges by git's own merge-ort, without a worktree.

Stage: tree merge (the general path). Input: two commit ids (ours = the side merged into, theirs =
the side merged in). Output: a `TreeMergeOutcome` (the tree git wrote, clean or not, and the
conflicted paths with their stages as git records them). Writes tree and blob objects to the
repository; never touches a ref, an index or a worktree. What a conflicted path means for a run
(its kind, a resolver's answer) is the integration engine's business (integrate.ConflictedFile).

`MergeTreeProcess` keeps one `git merge-tree --stdin --write-tree --no-messages` alive and feeds it
"OURS THEIRS" lines: one spawn for the whole run instead of one per merge, and git keeps the parsed
commit graph in memory, so the merge-base walk does not grow with the integration history
(research/git-layer.md §4: 5-8 ms per merge at 50k files against 30-50 ms for spawned git).
git 2.39 does not flush stdout after each merge, so the process runs under `stdbuf -o0` (git writes
through stdio); without `stdbuf` every merge spawns its own `git merge-tree --write-tree -z`.

Merge base: git 2.39 merge-tree has no `--merge-base`; it computes the best common ancestor of the
two commits itself. For the merge queue that is the pinned commit, or something better: a task
branch descends from the pinned commit and the integration branch only gains merge commits whose
second parents are such branches, so every common ancestor is the pinned commit, one of its
ancestors, or a commit both sides share (a task stacked on an already-merged task, or a task brought
up to date with integration) -- and git picks the newest of those, which is the correct base for a
three-way merge (tests/integrate/test_integrate_mergetree.py checks the stacked case).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from ..errors import GitError
from ..frozen import value_class
from .environment import git_environment
from .held import write_held


@value_class
class StageEntry:
    """One side of a conflicted path as git records it: mode (octal int) and blob id (hex)."""

    mode: int
    oid: str

    def to_json(self) -> dict[str, Any]:
        return {"mode": f"{self.mode:06o}", "oid": self.oid}


@value_class
class StagedPath:
    """A path git left conflicted, with its base/ours/theirs index stages (None = absent on that side)."""

    path: str
    base: StageEntry | None
    ours: StageEntry | None
    theirs: StageEntry | None


@value_class
class TreeMergeOutcome:
    """A tree-level merge before any resolver ran: the tree git wrote and the paths it left conflicted."""

    tree: str
    clean: bool
    conflicts: tuple[StagedPath, ...] = ()


def parse_conflict_entries(tokens: list[bytes]) -> tuple[StagedPath, ...]:
    """Group `<mode> <oid> <stage>\\t<path>` entries by path, in git's order."""
    stages: dict[str, dict[int, StageEntry]] = {}
    for token in tokens:
        head, _, raw_path = token.partition(b"\t")
        mode, oid, stage = head.split(b" ")
        path = raw_path.decode("utf-8", "surrogateescape")
        stages.setdefault(path, {})[int(stage)] = StageEntry(int(mode, 8), oid.decode())
    out = []
    for path, by_stage in stages.items():
        out.append(StagedPath(path, by_stage.get(1), by_stage.get(2), by_stage.get(3)))
    return tuple(out)


class MergeTreeProcess:
    """One long-lived `git merge-tree --stdin` for one repository; thread safe (one merge at a time).

    `merge(ours, theirs)` returns a TreeMergeOutcome. If git died (killed, or a fatal error on a bad
    line) the next call starts a fresh process; the call that saw the death raises GitError with
    git's stderr. `close()` ends the process (also on `with` exit and at garbage collection).
    Without `stdbuf` on PATH (or with `persistent=False`) each merge spawns one git process instead.
    """

    def __init__(self, repo_path: str | os.PathLike[str], *, persistent: bool | None = None,
                 renames: bool = True):
        self.repo_path = str(repo_path)
        self._stdbuf = shutil.which("stdbuf")
        self.persistent = bool(self._stdbuf) if persistent is None else (persistent and bool(self._stdbuf))
        self._config = [] if renames else ["-c", "merge.renames=false"]
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: tempfile._TemporaryFileWrapper[bytes] | None = None  # type: ignore[name-defined]
        self._buf = b""
        self.spawns = 0  # how many git processes this object started (the benchmark reports it)

    # -- lifecycle -------------------------------------------------------------------------------
    def _start(self) -> subprocess.Popen[bytes]:
        assert self._stdbuf
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [self._stdbuf, "-o0", "git", *self._config, "-C", self.repo_path,
             "merge-tree", "--stdin", "--write-tree", "--no-messages"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            env=git_environment(), bufsize=0,
        )
        self._buf = b""
        self.spawns += 1
        return self._proc

    def close(self) -> None:
        """End the git process (idempotent)."""
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> "MergeTreeProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:
            pass

    # -- merging ---------------------------------------------------------------------------------
    def merge(self, ours: str, theirs: str) -> TreeMergeOutcome:
        """Three-way merge of two commits (hex ids or ref names); git picks the merge base."""
        if not self.persistent:
            return merge_tree_once(self.repo_path, ours, theirs, config=self._config)
        write_held()   # git reads both commits: a drain's last one may be held in memory (held.py)
        with self._lock:
            proc = self._proc if self._proc is not None and self._proc.poll() is None else None
            if proc is None:
                self._stop()
                proc = self._start()
            try:
                assert proc.stdin is not None
                proc.stdin.write(f"{ours} {theirs}\n".encode())
                status = self._token(proc)
                tree = self._token(proc)
                entries = []
                while True:
                    token = self._token(proc)
                    if not token:
                        break
                    entries.append(token)
            except (OSError, EOFError) as exc:
                message = self._died_message(proc)
                self._stop()
                raise GitError(
                    f"git merge-tree failed merging {theirs} into {ours}: {message or exc}",
                    fix="check that both commits exist and share history; the next merge restarts git",
                ) from None
        if status not in (b"0", b"1"):
            raise GitError(f"git merge-tree printed an unexpected status {status!r} for {ours} {theirs}")
        return TreeMergeOutcome(tree.decode(), status == b"1", parse_conflict_entries(entries))

    def _token(self, proc: subprocess.Popen[bytes]) -> bytes:
        # Records are NUL-separated; read what is there and cut one token off the buffer.
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            cut = self._buf.find(b"\0")
            if cut >= 0:
                token, self._buf = self._buf[:cut], self._buf[cut + 1:]
                return token
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("git merge-tree closed its output")
            self._buf += chunk

    def _died_message(self, proc: subprocess.Popen[bytes]) -> str:
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace").strip()


def merge_tree_once(repo_path: str | os.PathLike[str], ours: str, theirs: str, *,
                    config: list[str] | tuple[str, ...] = ()) -> TreeMergeOutcome:
    """One `git merge-tree --write-tree -z` spawn: the fallback when `stdbuf` is missing."""
    write_held()
    proc = subprocess.run(
        ["git", *config, "-C", str(Path(repo_path)), "merge-tree", "--write-tree", "--no-messages",
         "-z", ours, theirs],
        capture_output=True, env=git_environment(),
    )
    if proc.returncode not in (0, 1):
        raise GitError(
            f"git merge-tree failed merging {theirs} into {ours}: "
            f"{proc.stderr.decode('utf-8', 'replace').strip()}",
            fix="check that both commits exist and share history",
        )
    tokens = proc.stdout.split(b"\0")
    entries = []
    for token in tokens[1:]:
        if not token:
            break
        entries.append(token)
    return TreeMergeOutcome(tokens[0].decode(), proc.returncode == 0, parse_conflict_entries(entries))
