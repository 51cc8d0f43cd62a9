"""The only module that touches git: pygit2 for objects, trees and refs; the git CLI where libgit2
has no equivalent (worktree registration with --no-checkout, sparse checkout, staging and commits
inside worktrees, which libgit2 gets wrong in sparse trees).

Facts this module is built on (../shared/research/git-layer.md):
- parallel `git worktree add` races (the `commondir` read, `config.lock`, `packed-refs.lock`), so
  registration, pruning, ref deletion and config writes run under one repository-wide flock, and
  checkout runs outside it;
- after `worktree add --no-checkout` the index is empty: `read-tree -mu HEAD` populates index and
  files (respecting the sparse patterns set just before);
- a failed `worktree add -b` leaves a branch and a half-made folder: both are rolled back;
- deleting a folder takes time and can be killed half-way, leaving what looks like a worktree whose
  agent deleted files; so a worktree is removed by renaming it to a tombstone name beside it first (one
  atomic rename: at its own path it is whole or gone), pruning its admin entry, then deleting the
  tombstone. Tombstones (`.wtc-tombstone@<hex>@<name>`) are never read, only deleted (`wtc gc`);
- tree diffs recurse only into subtrees whose ids differ, so their cost follows the change, not the
  repository.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence

from .. import filelock
from . import git_locks
from ..frozen import value_class
from .environment import git_environment
from .bulk_removal import MANY_ENTRIES, holds_more_than, remove_by_process
from .locate import common_dir_of, locate_plain, ref_from_files, worktree_config_on
from .refs import STALE_REF_LOCK_SECONDS, clear_stale_lock, is_lock_error
from .held import write_held
from .running import run_to_end, start_to_end
from ..crashpoints import crash_point
from ..errors import GitError, GitLocked, NotFoundError, UsageError
from ..member_globs import tree_subfolders

if TYPE_CHECKING:
    import subprocess

    import pygit2

    from .mergetree import TreeMergeOutcome

EXCLUDE_LINE = "/.wtc/"
WTC_DIR = "wtc"          # under the git common dir: store, locks
GIT_MODE_TREE = 0o040000
GIT_MODE_LINK = 0o120000
GIT_MODE_GITLINK = 0o160000
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")   # a detached HEAD (SHA-1 or SHA-256)
TOMBSTONE_PREFIX = ".wtc-tombstone@"   # task and scratch names never start with "." nor hold "@"
PACK_LIMIT = 50   # packs past which combine_packs() combines them: git's own gc.autoPackLimit default


@value_class
class Change:
    """One path that differs between two trees (no rename detection: a rename is delete + add)."""

    path: str
    old_mode: int | None
    new_mode: int | None
    old_oid: str | None
    new_oid: str | None

    @property
    def status(self) -> str:
        if self.old_oid is None:
            return "added"
        if self.new_oid is None:
            return "deleted"
        if self.old_mode != self.new_mode and self.old_oid == self.new_oid:
            return "mode"
        return "modified"


@value_class
class WorktreeEntry:
    path: str
    head: str | None
    branch: str | None
    prunable: bool
    locked: bool


class GitRepo:
    """A repository opened for coordination: its common dir, main worktree and pygit2 handle."""

    def __init__(self, path: str | os.PathLike[str] = ".", *, lock_timeout: float = 120.0):
        start = Path(path).resolve()
        if not start.exists():
            raise NotFoundError(f"no such folder: {start}", fix="pass the path of a git repository (--repo PATH)")
        self.lock_timeout = lock_timeout
        self._threads = threading.local()   # per thread: the lock descriptors its git processes inherit
        self._repo: pygit2.Repository | None = None
        plain = locate_plain(start)
        if plain is not None:
            # The plain layout (a .git folder, or a linked worktree's .git file) is found from a few
            # small files, as libgit2 would find it (tests/core/test_status_view.py): libgit2 loads
            # on the first use of `repo`, so a call the store answers (`wtc merge` with nothing
            # waiting, `wtc report` with nothing merged) never pays pygit2's import (issue 36).
            self.common_dir = plain.common_dir
            self.is_bare = False
            self.toplevel: Path | None = plain.toplevel
        else:
            import pygit2
            found = pygit2.discover_repository(str(start))
            if found is None:
                raise NotFoundError(
                    f"{start} is not inside a git repository",
                    fix="run wtc inside a git repository, or pass --repo PATH",
                )
            common = common_dir_of(Path(found).resolve())
            self.common_dir = common
            self._repo = pygit2.Repository(str(common))
            self.is_bare = self._repo.is_bare
            self.toplevel = None if self.is_bare else Path(self._repo.workdir).resolve()
        self.wtc_dir = self.common_dir / WTC_DIR

    @property
    def libgit2_loaded(self) -> bool:
        """Whether this process has paid pygit2's import: until it has, a few reads (a tree, a tree
        diff, a merge base, a worktree's blobs) are answered by git processes (process_trees.py),
        each cheaper than the import; once it has, libgit2's in-process call is cheaper than a process."""
        return self._repo is not None or "pygit2" in sys.modules

    @property
    def repo(self) -> pygit2.Repository:
        """The pygit2 handle on the common dir, opened (and pygit2 imported) on first use."""
        if self._repo is None:
            import pygit2
            self._repo = pygit2.Repository(str(self.common_dir))
        return self._repo

    # ---- running git --------------------------------------------------------------------------

    def git(self, *args: str, cwd: str | os.PathLike[str] | None = None, check: bool = True,
            env: dict[str, str] | None = None, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run git (C locale, no prompts, no auto-gc) and raise GitError with git's words on failure."""
        full_env = git_environment(env)  # an agent's environment must not redirect our git calls
        where = str(cwd) if cwd is not None else str(self.toplevel or self.common_dir)
        held = self._held_locks()
        # A git holding our lock starts no daemon (fsmonitor's): the daemon would inherit the lock,
        # and hold it for as long as it lives.
        command = ["git", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
                   *(("-c", "core.fsmonitor=false") if held else ()), *args]
        done = run_to_end(command, cwd=where, env=full_env, input=input, pass_fds=held)
        for _ in range(4):   # one stale lock a round: a killed commit or merge leaves two or three
            if done.returncode == 0 or not _cleared_stale_lock(done, where):
                break
            done = run_to_end(command, cwd=where, env=full_env, input=input, pass_fds=held)
        if check and done.returncode != 0:
            raise _failure(args, where, done)
        return done

    def git_started(self, *args: str) -> Callable[[], subprocess.CompletedProcess[bytes]]:
        """`git(*args)` started now, answered when the returned function is called (a read run beside
        the caller's next git process): the same environment, folder and GitError on failure."""
        full_env = git_environment(None)
        where = str(self.toplevel or self.common_dir)
        command = ["git", "-c", "gc.auto=0", "-c", "maintenance.auto=false", *args]
        waiting = start_to_end(command, cwd=where, env=full_env)

        def done() -> subprocess.CompletedProcess[bytes]:
            finished = waiting()
            if finished.returncode != 0:
                raise _failure(args, where, finished)
            return finished
        return done

    @contextlib.contextmanager
    def registration_lock(self, what: str) -> Iterator[None]:
        """The repository-wide lock around worktree registration, pruning, ref deletion, config writes.

        Every git this thread runs while it holds the lock inherits the lock's descriptor, so the
        lock stays held until that git ends even when this process is killed first (`running.py`
        lets such a git run on to its end). Whoever takes the lock next therefore knows that no git
        started under it still runs: a git lock file one of them left (a branch's lock from a
        killed `worktree add -b`, packed-refs.lock from a killed `update-ref -d`) is held by nobody
        (`add_worktree` relies on it)."""
        with filelock.exclusive(self.wtc_dir / "registry.flock", timeout=self.lock_timeout, what=what) as fd:
            held = self._held_locks()
            self._threads.held = held + (fd,)
            try:
                yield
            finally:
                self._threads.held = held

    def _held_locks(self) -> tuple[int, ...]:
        """The descriptors of the locks this thread holds, which every git it runs inherits."""
        return getattr(self._threads, "held", ())

    # ---- one-time setup -----------------------------------------------------------------------

    def ensure_setup(self) -> None:
        """Prepare the repository once (idempotent): per-worktree config, worktrees dir, excludes."""
        exclude = self.common_dir / "info" / "exclude"
        # The repository's own config file answers when it plainly says so (every call after the
        # first): libgit2 is asked only when it does not (it reads every level and the includes).
        needs_config = not (worktree_config_on(self.common_dir)
                            or _config_bool(self.repo.config, "extensions.worktreeConfig"))
        needs_exclude = not exclude.exists() or EXCLUDE_LINE not in exclude.read_text().splitlines()
        needs_dir = not (self.common_dir / "worktrees").is_dir() or not self.wtc_dir.is_dir()
        if not (needs_config or needs_exclude or needs_dir):
            return
        self.wtc_dir.mkdir(parents=True, exist_ok=True)
        with self.registration_lock("setting up the repository"):
            (self.common_dir / "worktrees").mkdir(exist_ok=True)
            if needs_config:
                # What `git sparse-checkout` would do on first use, done once under our lock instead of
                # racing on config.lock from many agents at once.
                self.git("config", "core.repositoryformatversion", "1")
                self.git("config", "extensions.worktreeConfig", "true")
                if self.is_bare and _config_bool(self.repo.config, "core.bare"):
                    # With per-worktree config, a shared core.bare=true would make every linked
                    # worktree bare too; git's documented fix moves it to the main's config.worktree.
                    self.git("config", "--worktree", "core.bare", "true", cwd=self.common_dir)
                    self.git("config", "--unset", "core.bare", cwd=self.common_dir)
            if needs_exclude:
                exclude.parent.mkdir(parents=True, exist_ok=True)
                text = exclude.read_text() if exclude.exists() else ""
                if EXCLUDE_LINE not in text.splitlines():
                    if text and not text.endswith("\n"):
                        text += "\n"
                    text += "# worktree_coord: task worktrees and per-worktree task manifests\n" + EXCLUDE_LINE + "\n"
                    exclude.write_text(text)

    # ---- revisions and refs -------------------------------------------------------------------

    def resolve_commit(self, rev: str) -> str:
        """The full sha of the commit `rev` names; NotFoundError when it names none."""
        import pygit2
        if self.repo.head_is_unborn and rev == "HEAD":
            raise NotFoundError("the repository has no commits yet",
                                fix="make a first commit (git commit --allow-empty -m init), then start the run")
        try:
            obj = self.repo.revparse_single(rev)
            commit = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as error:
            raise NotFoundError(f"no commit named {rev!r} in {self.common_dir}: {error}",
                                fix="pass a branch, tag or commit sha that exists (git log --oneline)") from None
        return str(commit.id)

    def ref_target(self, name: str) -> str | None:
        known, target = ref_from_files(self.common_dir, name)
        if known:
            return target       # what libgit2 answers for a loose, packed or absent ref, without loading it (issue 36)
        ref = self.repo.references.get(name)
        if ref is None:
            return None
        return str(ref.resolve().target)

    def refs_under(self, prefix: str) -> dict[str, str]:
        """Every ref whose name starts with `prefix` (e.g. "refs/remotes/origin/wtc/r1/"), with its target."""
        done = self.git("for-each-ref", "--format=%(objectname) %(refname)", prefix.rstrip("/"), check=False)
        found = {}
        for line in done.stdout.decode().splitlines():
            oid, _, name = line.partition(" ")
            if name.startswith(prefix):
                found[name] = oid
        return found

    def has_commit(self, sha: str) -> bool:
        """Does this repository hold the object `sha` (a commit fetched or made here)?"""
        import pygit2
        return pygit2.Oid(hex=sha) in self.repo

    def set_ref(self, name: str, sha: str, message: str) -> None:
        """Point a private ref (ours alone, e.g. a merge candidate) at `sha`, whatever it held."""
        self._write_ref(name, sha, message, force=True)

    def create_ref(self, name: str, sha: str, message: str) -> bool:
        """Create-only: True when created, False when the ref already exists (whatever it points to)."""
        import pygit2
        try:
            self._write_ref(name, sha, message, force=False)
            return True
        except pygit2.AlreadyExistsError:
            return False
        except ValueError:
            return False

    def _write_ref(self, name: str, sha: str, message: str, *, force: bool) -> None:
        """libgit2's ref write. Its lock, when a writer killed mid-write left one, is waited out and
        then removed (refs.py: STALE_REF_LOCK_SECONDS); a lock still fresh after twice that is busy."""
        import pygit2
        deadline = time.monotonic() + 2 * STALE_REF_LOCK_SECONDS
        while True:
            try:
                self.repo.create_reference(name, pygit2.Oid(hex=sha), force=force, message=message)
                return
            except pygit2.AlreadyExistsError:
                raise
            except (pygit2.GitError, OSError) as error:
                if not is_lock_error(error):
                    raise
                if clear_stale_lock(self.repo, name):
                    continue
                if time.monotonic() >= deadline:
                    raise GitLocked(f"{name} stayed locked ({error})", retry_after=1.0,
                                    fix=f"retry; if no wtc call is running, remove {self.common_dir / name}.lock") from None
                time.sleep(0.05)

    def delete_ref(self, name: str, expected: str | None = None) -> bool:
        """Delete a ref under the registration lock (deletions contend on packed-refs.lock)."""
        with self.registration_lock(f"deleting {name}"):
            args = ["update-ref", "-d", name] + ([expected] if expected else [])
            return self.git(*args, check=False).returncode == 0

    def delete_refs(self, refs: Sequence[tuple[str, str]]) -> list[str]:
        """Delete each (ref, expected value) whose ref still holds that value; returns the names
        deleted. One `git update-ref --stdin` transaction under one registration lock: a gc that
        deletes the branches of 200 merged tasks pays one git process and one wait for the lock, not
        200 of each (under a swarm each took a share of two busy cores and a turn at the lock). The
        transaction is all or nothing, so when a ref moved meanwhile (pushed again) the batch falls
        back to one deletion at a time and the moved ref stays."""
        if not refs:
            return []
        with self.registration_lock(f"deleting {len(refs)} ref(s)"):
            lines = "".join(f"delete {name} {expected}\n" for name, expected in refs).encode()
            if self.git("update-ref", "--stdin", input=lines, check=False).returncode == 0:
                return [name for name, _ in refs]
            return [name for name, expected in refs
                    if self.git("update-ref", "-d", name, expected, check=False).returncode == 0]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if ancestor == descendant:
            return True
        import pygit2
        return self.repo.descendant_of(pygit2.Oid(hex=descendant), pygit2.Oid(hex=ancestor))

    def merge_base(self, a: str, b: str) -> str:
        """The best common ancestor of commits `a` and `b`. NotFoundError when they share no history,
        or when this repository lacks one of them (a clone of a remote run that never fetched a
        commit another clone made): libgit2 would raise its own GitError, which reads as a bug."""
        if a == b:
            return a    # a commit is its own merge base (a finish with nothing merged since the pin)
        if not self.libgit2_loaded:
            # One best common ancestor is the answer libgit2 gives too; several (criss-cross
            # history), none, or a commit missing here: libgit2 answers, as before.
            done = self.git("merge-base", "--all", a, b, check=False)
            bases = done.stdout.decode().split()
            if done.returncode == 0 and len(bases) == 1:
                return bases[0]
        import pygit2
        for sha in (a, b):
            if not self.has_commit(sha):
                raise NotFoundError(f"commit {sha[:12]} is not in this repository (not fetched here)")
        found = self.repo.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
        if found is None:
            raise NotFoundError(f"{a[:12]} and {b[:12]} share no history")
        return str(found)

    def merge_trees(self, ours: str, theirs: str) -> "TreeMergeOutcome":
        """git's merge-ort of two commits without a worktree (one spawn; the merge queue keeps a
        persistent `MergeTreeProcess` instead): the tree git wrote and the paths it left conflicted."""
        from .mergetree import merge_tree_once

        return merge_tree_once(self.toplevel or self.common_dir, ours, theirs)

    def tree_id(self, treeish: str) -> str:
        """The id of the tree of commit (or tree) `treeish`; KeyError when this repository lacks it."""
        if not self.libgit2_loaded:
            done = self.git("rev-parse", "--verify", "-q", f"{treeish}^{{tree}}", check=False)
            found = done.stdout.decode().strip()
            if done.returncode == 0 and len(found) in (40, 64):
                return found
        import pygit2
        return str(self.repo[pygit2.Oid(hex=treeish)].peel(pygit2.Tree).id)

    def tree_with_edits(self, root: str, edits: Mapping[str, tuple[str, int] | None]) -> str | None:
        """`root`'s tree with `edits` (path -> (blob id, mode), or None to delete) written over it, by
        git processes (process_trees.py); None when git could not (the caller asks libgit2 then).
        Refuses what `integrate.trees.update_tree` refuses."""
        from .process_trees import Scratch, tree_with_edits

        with Scratch(self.wtc_dir) as scratch:
            return tree_with_edits(self.git, scratch, root, edits)

    def commit_tree_id(self, sha: str) -> str:
        import pygit2
        return str(self.repo[pygit2.Oid(hex=sha)].peel(pygit2.Commit).tree_id)

    def read_blob(self, oid: str) -> bytes:
        import pygit2
        try:
            return self.repo[pygit2.Oid(hex=oid)].read_raw()
        except KeyError:
            return self._lazy_blob(oid)

    def _lazy_blob(self, oid: str) -> bytes:
        """A blob libgit2 does not have: in a partial clone, git fetches it from the promisor remote
        on demand (libgit2 cannot); elsewhere git fails the same way libgit2 did (KeyError)."""
        done = self.git("cat-file", "blob", oid, check=False)
        if done.returncode != 0:
            raise KeyError(oid)
        return done.stdout

    def merge_blobs(self, ours: str, theirs: str) -> list[str]:
        """The blobs a three-way merge of two commits may read: every changed file of either side,
        at the merge base and at both tips (what a partial clone fetches before a merge)."""
        base = self.merge_base(ours, theirs)
        oids: list[str] = []
        for side in (ours, theirs):
            for change in self.changes(base, side):
                oids += [o for o, m in ((change.old_oid, change.old_mode), (change.new_oid, change.new_mode))
                         if o is not None and m not in (GIT_MODE_TREE, GIT_MODE_GITLINK)]
        return oids

    def missing_blobs(self, oids: Sequence[str]) -> list[str]:
        """The blobs among `oids` this repository does not hold (a partial clone fetches them on demand)."""
        import pygit2
        return [o for o in dict.fromkeys(oids) if pygit2.Oid(hex=o) not in self.repo]

    def tree_paths(self, sha: str, under: str = "", *, pathspecs: Sequence[str] = ()) -> Iterator[str]:
        """Every file path in a commit's tree, or in its folder `under` (that path alone when it is a
        file; nothing when it is absent); used for small checks, not on hot paths.

        One `git ls-tree`, whole (a caller that stops at its first path walks `paths_under` instead).
        Files, symbolic links and submodules are listed, as a walk of the tree lists them; `under` is
        a path, never a pattern. `pathspecs` (literal paths) narrow git's listing beside `under`
        (`paths_under_each`: several folders in one process)."""
        yield from _listed(self.git(*_ls_tree(sha, under, pathspecs)).stdout, under)

    def paths_under(self, treeish: str, folder: str = "") -> Iterator[str]:
        """The file paths of a commit's (or tree's) tree under `folder` (that path alone when it is
        a file; nothing when it is absent, `""` the whole tree), in git's order, as `tree_paths`
        lists them (files, symbolic links, submodules), read in-process and lazily.

        For a caller that stops at its first path (a start's "this glob matches no file" note, once a
        glob). With libgit2 loaded already (a served call: `wtc serve` preloads it), the walk reads
        the few trees down to that path in-process; else one `git ls-tree` (`tree_paths`) answers,
        since loading libgit2 for it costs a start-up more than that process (a CLI start loads none)."""
        if "pygit2" not in sys.modules:
            yield from self.tree_paths(treeish, folder)
            return
        import pygit2
        try:
            tree = self.repo.revparse_single(treeish).peel(pygit2.Tree)
        except (KeyError, ValueError, pygit2.GitError) as error:
            raise GitError(f"git ls-tree {treeish}: not a commit or tree of this repository ({error})",
                           details={"treeish": treeish}) from None
        if folder:
            if "/".join(part for part in folder.split("/") if part) != folder:
                return      # "pkg/", "a//b": no listed path is under it (tree_paths' own answer)
            try:
                entry = tree[folder]
            except KeyError:
                return
            if entry.filemode != GIT_MODE_TREE:
                yield folder
                return
            tree, prefix = self.repo[entry.id], folder + "/"
        else:
            prefix = ""
        yield from self._walk_paths(tree, prefix)

    def paths_under_each(self, treeish: str, folders: Sequence[str], *,
                         now: bool = False) -> Callable[[str], Iterator[str]]:
        """`paths_under` for a caller that asks of several folders in turn (a start's "this glob
        matches no file" note, once a glob): the returned function answers each of `folders` as
        `paths_under` does. With libgit2 loaded it is `paths_under` (in-process walks); else one
        `git ls-tree` lists every folder at once, on the first question, and each answer is that
        list's paths under the folder, in git's order: a start with two --own globs started two.
        `now`: that `git ls-tree` starts at once and runs beside the caller's next work (a new
        task's worktree registration and checkout); the first question waits for it, and raises
        its GitError."""
        if "pygit2" in sys.modules:
            return lambda folder: self.paths_under(treeish, folder)
        listed: list[str] | None = None
        # The whole tree when a folder is "" (no pathspec); else each folder a literal pathspec.
        wanted = [] if "" in folders else list(dict.fromkeys(folders))
        started = self.git_started(*_ls_tree(treeish, "", wanted)) if now and folders else None

        def under(folder: str) -> Iterator[str]:
            nonlocal listed, started
            if folder not in folders:
                yield from self.paths_under(treeish, folder)
                return
            if listed is None:
                if started is not None:
                    waiting, started = started, None
                    listed = list(_listed(waiting().stdout, ""))
                else:
                    listed = list(self.tree_paths(treeish, "", pathspecs=wanted))
            for path in listed:
                if not folder or path == folder or path.startswith(folder + "/"):
                    yield path
        return under

    def _walk_paths(self, tree: pygit2.Tree, prefix: str) -> Iterator[str]:
        for entry in tree:
            # by filemode and id, never by loading the entry: a submodule's commit is not held here
            if entry.filemode == GIT_MODE_TREE:
                yield from self._walk_paths(self.repo[entry.id], prefix + entry.name + "/")
            else:
                yield prefix + entry.name

    def changes(self, old_commit: str, new_commit: str) -> list[Change]:
        """Paths that differ between two commits' trees, recursing only into differing subtrees."""
        if old_commit == new_commit:
            return []   # one commit, one tree: nothing differs (an empty finish loads no libgit2)
        if not self.libgit2_loaded:
            from .process_trees import diff_trees

            found = diff_trees(self.git, old_commit, new_commit, Change)
            if found is not None:
                return found
        import pygit2
        old_tree = self.repo[pygit2.Oid(hex=old_commit)].peel(pygit2.Tree)
        new_tree = self.repo[pygit2.Oid(hex=new_commit)].peel(pygit2.Tree)
        out: list[Change] = []
        self._diff_trees("", old_tree, new_tree, out)
        out.sort(key=lambda c: c.path)
        return out

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Old path -> new path of every file git's rename detection (its similarity rules, as
        merge-ort applies them at merge time) pairs between two commits or trees: a file moved, and
        perhaps edited, is one change, not a deletion and an addition."""
        if old == new:
            return {}
        import pygit2
        repo = self.repo
        diff = repo.diff(repo[pygit2.Oid(hex=old)].peel(pygit2.Tree), repo[pygit2.Oid(hex=new)].peel(pygit2.Tree))
        diff.find_similar()
        return {delta.old_file.path: delta.new_file.path for delta in diff.deltas
                if delta.status == pygit2.GIT_DELTA_RENAMED}

    def _diff_trees(self, prefix: str, old: pygit2.Tree | None, new: pygit2.Tree | None, out: list[Change]) -> None:
        olds = {e.name: e for e in old} if old is not None else {}
        news = {e.name: e for e in new} if new is not None else {}
        for name in olds.keys() | news.keys():
            a, b = olds.get(name), news.get(name)
            # One id is one object: two trees of one id hold the same files (nothing below them
            # differs), and their mode is not read (reading `filemode` builds an enum: most of a
            # walk over a folder of hundreds of unchanged entries otherwise).
            if a is not None and b is not None and a.id == b.id and (a.type_str == "tree" or a.filemode == b.filemode):
                continue
            path = prefix + name
            a_tree = a is not None and a.filemode == GIT_MODE_TREE
            b_tree = b is not None and b.filemode == GIT_MODE_TREE
            if a_tree or b_tree:
                self._diff_trees(path + "/", self.repo[a.id] if a_tree else None,
                                 self.repo[b.id] if b_tree else None, out)
            if (a is not None and not a_tree) or (b is not None and not b_tree):
                old_blob = a if a is not None and not a_tree else None
                new_blob = b if b is not None and not b_tree else None
                out.append(Change(
                    path,
                    old_blob.filemode if old_blob else None, new_blob.filemode if new_blob else None,
                    str(old_blob.id) if old_blob else None, str(new_blob.id) if new_blob else None,
                ))

    # ---- worktrees ----------------------------------------------------------------------------

    def set_sparse(self, path: Path, sparse_dirs: Sequence[str] | None) -> None:
        """The worktree at `path` checks out `sparse_dirs` (cone mode, plus root-level files), or
        everything when None. Files the agent changed stay as they are (git refuses to drop them)."""
        if sparse_dirs is None:
            self.git("sparse-checkout", "disable", cwd=path)
        else:
            self.git("sparse-checkout", "set", "--cone", "--sparse-index", *sparse_dirs, cwd=path)

    def add_worktree(self, path: Path, branch: str, commit: str, *, sparse_dirs: Sequence[str] | None,
                     cleared: list[str] | None = None) -> str:
        """Create a worktree at `path` on `branch` (created at `commit` unless it exists).

        `sparse_dirs` None means a full checkout; a list means a cone sparse checkout of those
        directories plus root-level files, with a sparse index. Returns the worktree's HEAD sha.
        Registration runs under the repository lock; checkout runs outside it. On failure everything
        this call created (branch, folder, admin entry) is rolled back.

        `cleared` given: the caller holds the lease of the task whose branch this is, and the branch's
        lock a killed git left (a `worktree add -b` killed while it created the branch) is removed,
        its note appended to `cleared`; without it, that lock is busy (GitLocked), as any other.
        """
        ref = f"refs/heads/{branch}"
        path.parent.mkdir(parents=True, exist_ok=True)
        created_branch = False
        with self.registration_lock(f"registering worktree {path}"):
            if path.exists():
                if any(path.iterdir()):
                    if cleared is None or not (path / ".git").is_file():
                        raise UsageError(f"{path} exists and is not empty", fix="remove it, or run `wtc gc`")
                    # A worktree registered here since the caller looked: by a `worktree add` a killed
                    # call on this task left running, which held this lock until it ended. The caller
                    # holds the task's lease and was about to build the worktree, so it was never
                    # handed out: rebuilt, as a half-made one is.
                    self._rollback_locked(path, None)
                else:
                    path.rmdir()
            self._clear_stale_registrations()
            existing = self.ref_target(ref)
            for attempt in (1, 2):
                try:
                    if existing is None:
                        self.git("worktree", "add", "--no-checkout", "-b", branch, str(path), commit)
                        created_branch = True
                    else:
                        self.git("worktree", "add", "--no-checkout", str(path), branch)
                    break
                except GitLocked as error:
                    self._rollback_locked(path, ref if self.ref_target(ref) and existing is None else None)
                    note = self._own_branch_lock(ref, error) if cleared is not None and attempt == 1 else None
                    if note is None:
                        raise
                    cleared.append(note)
                except GitError:
                    self._rollback_locked(path, ref if self.ref_target(ref) and existing is None else None)
                    if attempt == 2:
                        raise
                    # A stale admin entry (a killed removal's) holding the branch or the path refuses
                    # the add: the rollback pruned it, try once more. Pruning only then keeps the usual
                    # start at one git process under this lock, which every agent's start and finish takes.
        try:
            if sparse_dirs is not None:
                self.git("sparse-checkout", "set", "--cone", "--sparse-index", *sparse_dirs, cwd=path)
            crash_point("worktree.before_checkout")
            self.git("read-tree", "-mu", "HEAD", cwd=path)
            head = self.worktree_head(path)[0] or self.git("rev-parse", "HEAD", cwd=path).stdout.decode().strip()
        except GitError:
            with self.registration_lock(f"rolling back worktree {path}"):
                self._rollback_locked(path, ref if created_branch else None)
            raise
        return head

    def _own_branch_lock(self, ref: str, error: GitLocked) -> str | None:
        """Remove the lock of `ref` that `error` names, when the caller holds the lease of the task
        whose branch `ref` is and this process holds the registration lock; its note, else None (the
        error names another lock). Nobody can hold it then: every wtc call that writes a task's branch
        holds the task's lease (start, finish, update, abandon; one runs at a time), or runs under
        the registration lock (a `worktree add -b`, a gc's deletion), whose holders' git processes
        inherit it and so have all ended once this process has it; the agent's own git writes the
        branch only from the task's worktree, which this call is making now, so none was handed out."""
        held = error.details.get("lock")
        lock = self.common_dir / f"{ref}.lock"
        if not held or os.path.realpath(held) != os.path.realpath(lock):
            return None
        return git_locks.remove(lock, "the task's lease and the registration lock prove no live process holds it")

    def add_detached_worktree(self, path: Path, commit: str) -> None:
        """A throwaway full worktree at `commit` with no branch (verification, scratch work)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.registration_lock(f"registering scratch worktree {path}"):
            try:
                self.git("worktree", "add", "--no-checkout", "--detach", str(path), commit)
            except GitError:
                self._rollback_locked(path, None)
                raise
        try:
            self.git("read-tree", "-mu", "HEAD", cwd=path)
        except GitError:
            self.remove_worktree(path)
            raise

    def _clear_stale_registrations(self) -> list[str]:
        """Under the registration lock no wtc registration is in flight, so an admin entry still
        marked `locked` with git's "initializing" reason comes from a `git worktree add` that was
        killed: unlock it, so prune (or reuse) can deal with it. Entries locked on purpose (any
        other reason) are left alone."""
        cleared = []
        admin_root = self.common_dir / "worktrees"
        if not admin_root.is_dir():
            return cleared
        for admin in admin_root.iterdir():
            locked = admin / "locked"
            try:
                if locked.is_file() and locked.read_text().strip() == "initializing":
                    locked.unlink()
                    for stale in ("HEAD.lock", "index.lock"):
                        (admin / stale).unlink(missing_ok=True)
                    cleared.append(admin.name)
            except OSError:
                continue
        return cleared

    def stale_ref_locks(self, *, older_than: float, dry_run: bool) -> list[str]:
        """`.lock` files of wtc's own refs, and the repository's packed-refs.lock and config.lock
        (which wtc's ref deletions and setup take), left by a process killed inside an update: the
        update itself takes microseconds, so a lock `older_than` seconds old that no live process
        has open is stale (git_locks.is_stale). Removed unless `dry_run`; their names."""
        found = []
        candidates = [self.common_dir / "packed-refs.lock", self.common_dir / "config.lock"]
        for base in (self.common_dir / "refs" / "heads" / "wtc", self.common_dir / "refs" / "wtc"):
            if base.is_dir():
                candidates += base.rglob("*.lock")
        for lock in candidates:
            if git_locks.is_stale(lock, older_than) and (dry_run or git_locks.remove(lock, "stale") is not None):
                found.append(str(lock.relative_to(self.common_dir)))
        return found

    def stale_scratch_folders(self, *, dry_run: bool) -> list[str]:
        """Scratch folders of the process-run tree reads (`tmp-trees.*` in the wtc folder) whose
        call no longer runs, removed unless `dry_run` (process_trees.stale_scratch)."""
        from .process_trees import stale_scratch

        return stale_scratch(self.wtc_dir, dry_run=dry_run)

    def merge_head(self, path: Path) -> str | None:
        """The commit a merge held open in the worktree at `path` is merging (its MERGE_HEAD: a
        `task update` that left markers), read from the worktree's git dir; None when no merge is open."""
        try:
            text = (path / ".git").read_text().strip()
            if not text.startswith("gitdir:"):
                return None
            git_dir = path / text[len("gitdir:"):].strip()   # an absolute gitdir stays as it is
            found = (git_dir / "MERGE_HEAD").read_text().split()
        except OSError:
            return None
        return found[0] if found and len(found[0]) in (40, 64) else None

    def worktree_locks(self, path: Path, branch: str) -> list[Path]:
        """The lock files a git killed mid-`add`, `commit`, `merge` or `sparse-checkout set` in the
        worktree leaves, those that exist: its index.lock, HEAD.lock, config.worktree.lock and
        info/sparse-checkout.lock (in the worktree's own git folder) and the lock of the branch it
        has checked out (in the common folder; a commit updates the branch through HEAD)."""
        dot_git = path / ".git"
        try:
            text = dot_git.read_text().strip()
        except OSError:
            return []
        if not text.startswith("gitdir:"):
            return []
        own = Path(text[len("gitdir:"):].strip())
        candidates = [own / "index.lock", own / "HEAD.lock", own / "config.worktree.lock",
                      own / "info" / "sparse-checkout.lock", self.common_dir / "refs" / "heads" / f"{branch}.lock"]
        return [lock for lock in candidates if lock.exists()]

    def _rollback_locked(self, path: Path, ref: str | None) -> None:
        tombstone = bury(path)
        self.git("worktree", "prune", check=False)
        if ref is not None:
            self.git("update-ref", "-d", ref, check=False)
        if tombstone is not None:
            delete_tombstone(tombstone)

    def remove_worktree(self, path: Path) -> None:
        """Remove a worktree so that no moment of the removal looks like an agent's work: rename the
        folder to a tombstone beside it (atomic: at `path` the worktree is whole or gone), prune its
        admin entry (under the lock; the entry now points at a missing folder), then delete the
        tombstone (outside the lock: the slow part). Killed at any step, what is left is a whole
        worktree, or a tombstone and an admin entry that the next prune (any add, remove or `wtc gc`)
        drops; neither blocks a new worktree at `path`."""
        admin = self._admin_entry_of(path)
        tombstone = bury(path)
        if tombstone is not None:
            crash_point("remove.after_rename")
        with self.registration_lock(f"pruning worktree {path}"):
            self._clear_stale_registrations()
            if admin is not None and tombstone is not None:
                # What `git worktree prune` does for this one entry, without a git process while
                # every other agent's start and finish waits for this lock.
                _drop_admin_entry(admin)
            else:
                self.git("worktree", "prune", check=False)
        if tombstone is not None:
            delete_tombstone(tombstone)

    def _admin_entry_of(self, path: Path) -> Path | None:
        """The admin folder (`<common dir>/worktrees/<id>`) of the linked worktree at `path`, when it
        is plainly that worktree's: its `.git` file names it, its `gitdir` file names `path/.git`
        back, and it is not locked. None otherwise (git's own prune decides then)."""
        admin = self.worktree_git_dir(path)
        if admin is None or (path / ".git").is_dir():
            return None
        try:
            if os.path.realpath(admin.parent) != os.path.realpath(self.common_dir / "worktrees") or \
                    (admin / "locked").exists():
                return None
            named = (admin / "gitdir").read_text().strip()
        except OSError:
            return None
        return admin if os.path.realpath(named) == os.path.realpath(path / ".git") else None

    def list_worktrees(self) -> list[WorktreeEntry]:
        # Under the registration lock: `git worktree list` dies (exit 128) on the admin entry of a
        # worktree another process is adding ("failed to read .git/worktrees/<name>/commondir: Success":
        # created, not yet written; "failed to read '.../locked'": unlinked as the add ends) or pruning
        # ("Invalid path '.../worktrees'": the last entry's folder removed); every add and prune of ours
        # runs under this lock, so none is half done while we list.
        with self.registration_lock("listing worktrees"):
            out = self.git("worktree", "list", "--porcelain").stdout.decode("utf-8", "surrogateescape")
        entries: list[WorktreeEntry] = []
        for block in out.strip().split("\n\n"):
            fields: dict[str, str] = {}
            for line in block.splitlines():
                key, _, value = line.partition(" ")
                fields[key] = value
            if "worktree" in fields:
                entries.append(WorktreeEntry(
                    path=fields["worktree"], head=fields.get("HEAD"),
                    branch=fields.get("branch"), prunable="prunable" in fields, locked="locked" in fields,
                ))
        return entries

    def combine_packs(self, limit: int | None = None) -> bool:
        """When the repository holds more than `limit` (PACK_LIMIT) packs, combine the small ones
        (`git repack -d -l --geometric=2`: each pack at least twice the size of the ones it
        absorbs; the large ones stay as they are). A drain holding its objects writes one pack,
        and every pack is one more place each object lookup searches; wtc runs git with gc.auto=0,
        so git's own auto gc never does this. Under the registration lock, so two drains do not
        repack at once. True when it repacked; a git without --geometric (before 2.33) leaves the
        packs as they are."""
        folder = self.common_dir / "objects" / "pack"
        try:
            count = sum(1 for name in os.listdir(folder) if name.endswith(".pack"))
        except OSError:
            return False
        if count <= (PACK_LIMIT if limit is None else limit):
            return False
        with self.registration_lock("combining the object packs"):
            done = self.git("repack", "-d", "-l", "-q", "--geometric=2", check=False)
        return done.returncode == 0

    def prune_worktrees(self, *, dry_run: bool = False) -> list[str]:
        """Admin entries whose folders are gone: listed, and removed unless dry_run."""
        with self.registration_lock("pruning worktrees"):
            cleared = [] if dry_run else self._clear_stale_registrations()
            done = self.git("worktree", "prune", "--dry-run", "--verbose")
            # git prints "Removing worktrees/<id>: <why>" on stderr (stdout in no version we know of)
            listed = (done.stdout + done.stderr).decode("utf-8", "replace")
            names = [line for line in listed.splitlines() if line.startswith("Removing ")]
            if names and not dry_run:
                self.git("worktree", "prune")
        return [f"unlocked stale registration {name}" for name in cleared] + names

    # ---- inside a worktree --------------------------------------------------------------------

    def worktree_head(self, path: Path) -> tuple[str | None, str | None]:
        """(HEAD sha, symbolic branch ref or None when detached) of the worktree at `path`.

        Read in-process from the worktree's own HEAD file when it is the usual one (a branch under
        refs/heads, whose ref every worktree shares, or a detached commit id): a finish asks this
        twice, and two git processes cost more than the rest of the question. Anything else (no
        admin folder, a per-worktree ref, a nested symbolic ref) is asked of git as before."""
        read = self._head_file(path)
        if read is not None:
            return read
        head = self.git("rev-parse", "--verify", "-q", "HEAD", cwd=path, check=False).stdout.decode().strip() or None
        branch = self.git("symbolic-ref", "-q", "HEAD", cwd=path, check=False).stdout.decode().strip() or None
        return head, branch

    def worktree_git_dir(self, path: Path) -> Path | None:
        """The git dir of the worktree at `path` (`.git` itself, or the admin folder its `.git` file
        names), or None when `path` holds neither."""
        dot_git = path / ".git"
        try:
            if dot_git.is_dir():
                return dot_git
            text = dot_git.read_text(errors="replace").strip()
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        admin = Path(text[len("gitdir:"):].strip())
        return admin if admin.is_absolute() else path / admin

    def index_entries(self, path: Path) -> int | None:
        """How many entries the index of the worktree at `path` holds, from its header ("DIRC",
        version, count: git's index format); None when there is no readable index."""
        admin = self.worktree_git_dir(path)
        if admin is None:
            return None
        try:
            with open(admin / "index", "rb") as file:
                header = file.read(12)
        except OSError:
            return None
        if len(header) < 12 or header[:4] != b"DIRC":
            return None
        return int.from_bytes(header[8:12], "big")

    def _head_file(self, path: Path) -> tuple[str | None, str | None] | None:
        admin = self.worktree_git_dir(path)
        try:
            text = (admin / "HEAD").read_text().strip() if admin is not None else ""
        except OSError:
            return None
        if text.startswith("ref: refs/heads/"):
            name = text[len("ref: "):]
            known, target = ref_from_files(self.common_dir, name)
            if known:
                return target, name                     # a branch's loose or packed id; None: unborn or deleted
            import pygit2
            try:
                ref = self.repo.references.get(name)
            except (pygit2.GitError, ValueError):
                return None                             # a name libgit2 refuses: git's answer instead
            if ref is None:
                return None, name                       # an unborn or deleted branch
            if ref.type != pygit2.enums.ReferenceType.DIRECT:
                return None                             # a symbolic ref behind HEAD: git knows best
            return str(ref.target), name
        if _OBJECT_ID.fullmatch(text):
            return text, None                           # detached
        return None

    def merge_in_progress(self, path: Path) -> bool:
        """Whether the worktree at `path` has a merge to conclude (its MERGE_HEAD)."""
        admin = self.worktree_git_dir(path)
        if admin is None:
            return self.git("rev-parse", "-q", "--verify", "MERGE_HEAD", cwd=path, check=False).returncode == 0
        return (admin / "MERGE_HEAD").is_file()

    def untracked_entries(self, path: Path) -> list[str]:
        """The worktree's untracked files that .gitignore does not hide; a wholly untracked folder is
        one entry ending in "/"."""
        listed = self.git("ls-files", "--others", "--exclude-standard", "--directory", "-z", cwd=path).stdout
        return [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]

    def commit_all(self, path: Path, message: str, author_name: str, author_email: str, *,
                   leave_out: Sequence[str] = ()) -> str | None:
        """Stage everything (untracked too, .gitignore respected, outside the sparse cone too) but the
        untracked paths in `leave_out`, and commit as the author. Returns the new commit, or None when
        there was nothing to commit."""
        self.git("add", "-A", "--sparse", "--", ":/", *_excluded(leave_out), cwd=path)
        return self._commit_index(path, message, author_name, author_email)

    def commit_snapshot(self, path: Path, message: str, author_name: str, author_email: str, *,
                        leave_out: Sequence[str] = ()) -> tuple[str | None, list[str]]:
        """Commit what was left uncommitted in a worktree without taking a missing file for a
        deletion: new and changed files are staged (untracked too, .gitignore respected, outside the
        sparse cone too) and what is already staged is kept (a `git rm` the agent made), but a
        tracked file missing from disk and still in the index is left as it is. An interrupted
        removal deletes files too, and from the folder alone the two cannot be told apart; recording
        such deletions could commit the removal of the whole tree. Returns the commit (None when
        nothing was staged) and the paths missing from disk that were not recorded."""
        listed = self.git("ls-files", "--deleted", "-z", cwd=path).stdout
        missing = sorted({p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p})
        self.git("add", "--ignore-removal", "--sparse", "--", ":/", *_excluded(leave_out), cwd=path)
        return self._commit_index(path, message, author_name, author_email), missing

    def _commit_index(self, path: Path, message: str, author_name: str, author_email: str) -> str | None:
        # A merge in progress is committed even when its tree is HEAD's: an agent that resolved a
        # `task update`'s markers by keeping its own side whole made that merge (without the commit
        # the branch never holds integration's tip, and every finish conflicts again).
        identity = {
            "GIT_AUTHOR_NAME": author_name, "GIT_AUTHOR_EMAIL": author_email,
            "GIT_COMMITTER_NAME": author_name, "GIT_COMMITTER_EMAIL": author_email,
        }
        # One git process on the usual path (something staged): `git commit` without --allow-empty
        # refuses an empty index itself, and only then is the index compared with HEAD, to tell
        # "nothing to commit" (None) from a failure. The new commit is read from the worktree's HEAD
        # in-process (a finish used to pay four git processes here).
        done = self.git("commit", "-q", "--no-verify", "--allow-empty-message", "-m", message, cwd=path, env=identity,
                        check=False)
        if done.returncode != 0:
            if not self.merge_in_progress(path) and \
                    self.git("diff", "--cached", "--quiet", cwd=path, check=False).returncode == 0:
                return None
            raise _failure(("commit", "-q", "--no-verify"), str(path), done)
        head, _ = self.worktree_head(path)
        return head or self.git("rev-parse", "HEAD", cwd=path).stdout.decode().strip()

    def merge_into_worktree(self, path: Path, commit: str, message: str, author_name: str,
                            author_email: str) -> list[str]:
        """`git merge` COMMIT into the worktree's branch (diff3 markers); returns the conflicted paths
        (empty when it merged cleanly and committed)."""
        identity = {"GIT_AUTHOR_NAME": author_name, "GIT_AUTHOR_EMAIL": author_email,
                    "GIT_COMMITTER_NAME": author_name, "GIT_COMMITTER_EMAIL": author_email}
        done = self.git("-c", "merge.conflictStyle=diff3", "merge", "--no-ff", "--no-edit", "-m", message, commit,
                        cwd=path, env=identity, check=False)
        if done.returncode == 0:
            return []
        paths = self.unmerged_paths(path)
        if not paths:
            raise GitError(f"git merge failed: {done.stderr.decode('utf-8', 'replace').strip()}")
        return paths

    def unmerged_paths(self, path: Path) -> list[str]:
        """Paths the worktree's index holds in conflict (stages 1-3): a merge git stopped in."""
        listed = self.git("diff", "--name-only", "--diff-filter=U", "-z", cwd=path).stdout
        return [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]

    def index_stage(self, path: Path, rel: str, stage: int) -> bytes | None:
        """The content of `rel` at merge stage `stage` (1 base, 2 ours, 3 theirs) in the index of the
        worktree at `path`, during a conflicted merge; None when that side has no such file."""
        done = self.git("show", f":{stage}:{rel}", cwd=path, check=False)
        return done.stdout if done.returncode == 0 else None

    def stage_path(self, path: Path, rel: str) -> None:
        """`git add` one path in the worktree at `path` (outside its sparse cone too)."""
        self.git("add", "--sparse", "--", rel, cwd=path)

    def commits_between(self, old: str, new: str) -> list[str]:
        """Commits reachable from `new` and not from `old`, newest first."""
        import pygit2
        walker = self.repo.walk(pygit2.Oid(hex=new), pygit2.enums.SortMode.TOPOLOGICAL)
        walker.hide(pygit2.Oid(hex=old))
        return [str(c.id) for c in walker]

    def parents(self, commit: str) -> list[str]:
        """A commit's parents, first parent first (a merge's second is what it merged in)."""
        import pygit2
        return [str(p) for p in self.repo[pygit2.Oid(hex=commit)].peel(pygit2.Commit).parent_ids]

    def first_parent_line(self, tip: str, stop: str, *, limit: int | None = None) -> list[tuple[str, str, str]]:
        """(commit, first parent, message) for each commit on `tip`'s first-parent line, newest
        first, down to (not including) `stop` or a root commit, or `limit` entries: a branch's own
        history, one entry per merge or commit made on it."""
        import pygit2
        out: list[tuple[str, str, str]] = []
        commit = self.repo[pygit2.Oid(hex=tip)].peel(pygit2.Commit)
        while str(commit.id) != stop and commit.parent_ids and (limit is None or len(out) < limit):
            out.append((str(commit.id), str(commit.parent_ids[0]), commit.message))
            commit = self.repo[commit.parent_ids[0]].peel(pygit2.Commit)
        return out

    def worktree_on_branch(self, ref: str) -> Path | None:
        """The worktree (main checkout included) that has `ref` checked out, if any."""
        for entry in self.list_worktrees():
            if entry.branch == ref and not entry.prunable:
                return Path(entry.path)
        return None

    def fast_forward_worktree(self, path: Path, commit: str) -> None:
        """`git merge --ff-only` in a worktree: moves its branch and files, refuses a dirty tree."""
        done = self.git("merge", "--ff-only", "-q", commit, cwd=path, check=False)
        if done.returncode != 0:
            if held_lock_file(done.stderr.decode("utf-8", "replace")) is not None:
                # A lock of the checkout (a land killed inside this merge leaves HEAD.lock and the
                # branch's): busy, never "commit or stash", which would commit the landed files on
                # the old tip.
                raise _failure(("merge", "--ff-only", commit), str(path), done)
            raise UsageError(
                f"cannot fast-forward the checkout at {path}: {done.stderr.decode('utf-8', 'replace').strip()}",
                fix=f"commit or stash the changes in {path}, then land again",
            )

    def files_mentioning(self, commit: str, words: list[str]) -> list[str]:
        """The files of `commit` that hold one of `words` as a whole word (`git grep -lwF`)."""
        if not words:
            return []
        # -z: names as they are, NUL-ended (without it git quotes a name with bytes outside ASCII,
        # core.quotePath, and the name would not match the tree's).
        args = ["grep", "-l", "-z", "-w", "-F"]
        for word in words:
            args += ["-e", word]
        done = self.git(*args, commit, "--", check=False)   # exit 1: no file holds one
        prefix = f"{commit}:"
        return [name.removeprefix(prefix) for name in done.stdout.decode("utf-8", "surrogateescape").split("\0")
                if name]

    def file_at(self, commit: str, rel: str) -> bytes | None:
        entry = self._blob_entry(commit, rel)
        if entry is None:
            return None
        try:
            return self.repo[entry.id].read_raw()
        except KeyError:
            return self._lazy_blob(str(entry.id))

    def marked_binary(self, commit: str, rel: str) -> bool:
        """Whether the `.gitattributes` of `commit` mark the file `rel` binary (`binary`, or `-diff`):
        the project says it is not text, whatever its name. Read from the commit's own attributes
        (and the system's and user's), not the working files, which may be of another commit."""
        import pygit2

        flags = pygit2.enums.AttrCheck.INDEX_ONLY | pygit2.enums.AttrCheck.INCLUDE_COMMIT
        try:
            return self.repo.get_attr(rel, "diff", flags, self.repo.revparse_single(commit).peel(pygit2.Commit).id) \
                is False
        except (KeyError, ValueError, pygit2.GitError):
            return False   # not a commit (a tree): no attributes to read

    def file_id_at(self, commit: str, rel: str) -> str | None:
        """The blob id of the file `rel` at `commit` (a commit or a tree; None: no such file)."""
        entry = self._blob_entry(commit, rel)
        return None if entry is None else str(entry.id)

    def _blob_entry(self, commit: str, rel: str) -> pygit2.Object | None:
        """The tree entry of the file `rel` at `commit` (a commit or a tree; None: none, or not a file)."""
        import pygit2
        tree = self.repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree)
        try:
            entry = tree[rel]
        except KeyError:
            return None
        return entry if entry.type_str == "blob" else None

    def folders_at(self, commit: str, rel: str) -> list[str] | None:
        """The names of the subfolders of `rel` ("" the root) at `commit` (None: no such folder)."""
        import pygit2
        return tree_subfolders(self.repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree), rel)

    def stashes_made_on(self, branch: str) -> list[tuple[str, str]]:
        """(stash@{n}, subject) of every stash entry made while `branch` was checked out. refs/stash is
        shared by every worktree of a repository, so an agent's `git stash` lands where any other
        agent's `git stash pop` can take it, and a stash left behind is work no commit holds."""
        if self.ref_target("refs/stash") is None:
            return []
        listed = self.git("log", "-g", "--format=%gd%x00%gs", "refs/stash", check=False).stdout
        found = []
        for line in listed.decode("utf-8", "surrogateescape").splitlines():
            ref, _, subject = line.partition("\0")
            if subject.startswith((f"WIP on {branch}: ", f"On {branch}: ")):
                found.append((ref.replace("refs/stash@", "stash@"), subject))
        return found

    def submodule_paths(self, commit: str) -> frozenset[str]:
        """The paths the .gitmodules of `commit` (or tree) declares submodules at; none without one."""
        if self.file_at(commit, ".gitmodules") is None:
            return frozenset()
        done = self.git("config", f"--blob={commit}:.gitmodules", "--get-regexp", r"^submodule\..*\.path$", check=False)
        return frozenset(line.split(" ", 1)[1].strip().strip("/")
                         for line in done.stdout.decode("utf-8", "surrogateescape").splitlines() if " " in line)

    def path_in_tree(self, commit: str, rel: str) -> bool:
        """Whether `rel` (a file or a folder) exists in the commit's tree."""
        import pygit2
        tree = self.repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree)
        try:
            tree[rel]
        except KeyError:
            return False
        return True

    # ---- git-ignored files of the main checkout (what a new worktree lacks) --------------------

    def untracked_matching(self, patterns_file: Path, skip: Sequence[str] = ()) -> list[str]:
        """Untracked files of the main checkout that match the gitignore-syntax patterns in
        `patterns_file` (git's own matcher: negations, anchors and `**` as git reads them), never
        walking into the folders `skip` names. Those are the worktree folders: each worktree's `.git`
        file makes git read its admin folder, which a worktree being added or removed beside this
        call may hold half made ("fatal: failed to read .../commondir", seen with four agents
        starting at once); pathspec exclusions prune the walk."""
        if self.toplevel is None:
            return []
        out = self.git("ls-files", "-z", "--others", "--ignored", f"--exclude-from={patterns_file}", "--", ".",
                       *[f":(exclude,literal){folder}" for folder in skip], cwd=self.toplevel).stdout
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Those of `paths` (relative to the main checkout) that git ignores there (.gitignore files,
        info/exclude, the user's excludes file)."""
        if self.toplevel is None or not paths:
            return set()
        stdin = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
        done = self.git("check-ignore", "-z", "--stdin", cwd=self.toplevel, input=stdin, check=False)
        if done.returncode not in (0, 1):
            raise GitError(f"git check-ignore failed: {done.stderr.decode('utf-8', 'replace').strip()}")
        return {p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p}

    def ensure_excluded(self, lines: Sequence[str], comment: str) -> list[str]:
        """Add `lines` to the shared info/exclude (read by every worktree) unless already there;
        returns the lines added. Under the registration lock: every worktree start may write it."""
        exclude = self.common_dir / "info" / "exclude"
        current = exclude.read_text().splitlines() if exclude.exists() else []
        if all(line in current for line in lines):
            return []
        with self.registration_lock("writing info/exclude"):
            text = exclude.read_text() if exclude.exists() else ""
            present = set(text.splitlines())
            missing = [line for line in lines if line not in present]
            if missing:
                if text and not text.endswith("\n"):
                    text += "\n"
                text += f"# {comment}\n" + "".join(line + "\n" for line in missing)
                exclude.parent.mkdir(parents=True, exist_ok=True)
                temporary = exclude.with_name("exclude.wtc-tmp")
                temporary.write_text(text)
                temporary.replace(exclude)
            return missing

    # ---- a checkout as its caller sees it (a hook, a CI step) ----------------------------------

    def checkout_head(self, path: str | os.PathLike[str]) -> str | None:
        """The commit HEAD names in the checkout at `path`, None while HEAD is unborn. `self.repo`
        opens the common git dir, whose HEAD is the main checkout's; a linked worktree (a task's)
        has its own. NotFoundError when `path` is in no repository."""
        import pygit2
        found = pygit2.discover_repository(str(path))
        if found is None:
            raise NotFoundError(f"{path} is not inside a git repository", fix="run inside a git repository")
        here = pygit2.Repository(found)
        if here.head_is_unborn:
            return None
        return str(here.head.peel(pygit2.Commit).id)

    def checkout_branch(self, path: str | os.PathLike[str]) -> tuple[str, str | None] | None:
        """The branch checked out in the checkout at `path` and its upstream's short name (`main`
        for a local one, `origin/main` for a remote one; None: it tracks nothing); None when HEAD
        is detached, unborn or `path` is in no repository."""
        import pygit2
        found = pygit2.discover_repository(str(path))
        if found is None:
            return None
        here = pygit2.Repository(found)
        if here.head_is_unborn or here.head_is_detached:
            return None
        name = here.head.shorthand
        branch = here.branches.local.get(name)
        if branch is None:
            return None
        try:
            upstream = branch.upstream
        except (KeyError, ValueError, pygit2.GitError):
            upstream = None        # an upstream configured that names no branch here: none
        return name, upstream.branch_name if upstream is not None else None

    def resolve_commit_in(self, path: str | os.PathLike[str], rev: str) -> str:
        """resolve_commit as the checkout at `path` reads `rev`: inside a linked worktree (a task's)
        `HEAD`, `HEAD~2` and `@` name that worktree's commits, not the main checkout's (the common
        git dir's HEAD, which `self.repo` reads). Other names resolve as resolve_commit does."""
        import pygit2
        found = pygit2.discover_repository(str(path))
        if found is None or Path(found).resolve() == self.common_dir.resolve():
            return self.resolve_commit(rev)
        here = pygit2.Repository(found)
        try:
            return str(here.revparse_single(rev).peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as error:
            raise NotFoundError(f"no commit named {rev!r} in the checkout at {path}: {error}",
                                fix="pass a branch, tag or commit sha that exists (git log --oneline)") from None

    def caller_toplevel(self, path: Path) -> Path:
        """The top folder of the checkout at `path`, as the caller's git sees it."""
        return Path(self._git_as_caller(path, "rev-parse", "--show-toplevel"))

    def caller_index_tree(self, path: Path) -> str:
        """The index of the checkout at `path` written as a tree (its id). It honours the caller's
        GIT_INDEX_FILE: a pre-commit hook runs against a temporary index, and that is the one to read."""
        return self._git_as_caller(path, "write-tree")

    def caller_head(self, path: Path) -> str | None:
        """The commit HEAD names for the caller's git at `path`, None while HEAD is unborn."""
        return self._git_as_caller(path, "rev-parse", "--verify", "-q", "HEAD", check=False) or None

    def empty_tree(self) -> str:
        """The id of the empty tree, written to the object database (a diff base for a first commit)."""
        return str(self.repo.TreeBuilder().write())

    def _git_as_caller(self, path: Path, *args: str, check: bool = True) -> str:
        # Unlike `git()`, this keeps the caller's GIT_* environment (GIT_INDEX_FILE above all): these
        # reads must see exactly what the caller's own git would.
        import subprocess
        write_held()
        done = subprocess.run(["git", *args], cwd=path, capture_output=True, env=dict(os.environ, LC_ALL="C"))
        if check and done.returncode != 0:
            raise GitError(f"git {' '.join(args)} failed in {path}: {done.stderr.decode('utf-8', 'replace').strip()}",
                           details={"args": list(args), "cwd": str(path)})
        return done.stdout.decode("utf-8", "surrogateescape").strip()

    def working_changes(self, path: Path) -> tuple[str | None, list[str]]:
        """(HEAD of the worktree at `path`, None while unborn; the files that differ from it:
        uncommitted, staged, or untracked but not ignored). One `git status` process (porcelain v2
        names HEAD too), run with GIT_OPTIONAL_LOCKS=0 so it never refreshes (writes) the
        worktree's index. Cost: a stat per tracked file. `working_blobs` turns the list into blobs."""
        listed = self.git("status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--no-renames",
                          "--ignore-submodules=all", cwd=path, env={"GIT_OPTIONAL_LOCKS": "0"}).stdout
        head: str | None = None
        paths = []
        for item in listed.split(b"\0"):
            if item.startswith(b"# branch.oid "):
                oid = item[len(b"# branch.oid "):].decode()
                head = oid if oid != "(initial)" else None
            elif item.startswith(b"1 "):
                paths.append(item.split(b" ", 8)[8])
            elif item.startswith(b"u "):
                paths.append(item.split(b" ", 10)[10])
            elif item.startswith(b"? ") and not item.endswith(b"/"):   # "dir/": a nested repository
                paths.append(item[2:])
        return head, [p.decode("utf-8", "surrogateescape") for p in paths]

    def working_blobs(self, path: Path, paths: Sequence[str]) -> dict[str, tuple[str, int] | None]:
        """The worktree's files at `paths` as (blob id, mode), None for a file missing from disk (a
        deletion). The blobs are written to the object database, unreachable until committed.
        A missing file the index marks skip-worktree is no deletion: a sparse worktree's merge (a
        `task update` left open) stages what integration brought outside the cone without writing
        it, and finish commits that index entry, so its staged blob is the file.
        Each blob is the one the worktree's `git add` writes (its end-of-line conversion and clean
        filters applied), what a finish commits: by git (process_trees.write_blobs) even with libgit2
        loaded, whose `create_blob` applies no filter; its raw bytes only where git could not."""
        blobs = self._working_blobs_by_git(path, paths) if paths else None
        if blobs is None:
            blobs = {rel: self._working_blob(path / rel) for rel in paths}
        missing = [rel for rel, blob in blobs.items() if blob is None]
        if missing:
            blobs.update(self._skip_worktree_entries(path, missing))
        return blobs

    def _skip_worktree_entries(self, path: Path, paths: Sequence[str]) -> dict[str, tuple[str, int]]:
        """The staged (blob id, mode) of each of `paths` the worktree's index marks skip-worktree."""
        listed = self.git("ls-files", "-s", "-v", "-z", "--", *[f":(literal){p}" for p in paths], cwd=path,
                          env={"GIT_OPTIONAL_LOCKS": "0"}).stdout
        found = {}
        for item in listed.split(b"\0"):
            # "S <mode> <blob> <stage>\t<path>": S is git's tag for a skip-worktree entry.
            if item.startswith(b"S "):
                info, _, rel = item.partition(b"\t")
                _, mode, blob, stage = info.split(b" ")
                if stage == b"0":
                    found[rel.decode("utf-8", "surrogateescape")] = (blob.decode(), int(mode, 8))
        return found

    def _working_blobs_by_git(self, path: Path, paths: Sequence[str]) -> dict[str, tuple[str, int] | None] | None:
        """`_working_blob` of each path by one git process (process_trees.py); None when git could not."""
        from .process_trees import Scratch, write_blobs

        with Scratch(self.wtc_dir) as scratch:
            return write_blobs(self.git, scratch, path, paths)

    def _working_blob(self, file: Path) -> tuple[str, int] | None:
        try:
            info = file.lstat()
        except (FileNotFoundError, NotADirectoryError):   # the latter: a file now stands where its folder was
            return None
        if stat.S_ISLNK(info.st_mode):
            return str(self.repo.create_blob(os.fsencode(os.readlink(file)))), GIT_MODE_LINK
        if not stat.S_ISREG(info.st_mode):
            return None
        mode = 0o100755 if info.st_mode & 0o111 else 0o100644
        return str(self.repo.create_blob(file.read_bytes())), mode

    def has_uncommitted(self, path: Path) -> bool:
        out = self.git("status", "--porcelain", "--untracked-files=all", cwd=path, check=False)
        return bool(out.stdout.strip()) or out.returncode != 0


def _ls_tree(sha: str, under: str, pathspecs: Sequence[str]) -> list[str]:
    """`tree_paths`' git arguments: every file of `sha`'s tree under `under`, else under `pathspecs`."""
    specs = [under] if under else list(pathspecs)
    return ["--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", "--full-tree", sha,
            *(["--", *specs] if specs else [])]


def _listed(output: bytes, under: str) -> Iterator[str]:
    """The paths of an `_ls_tree` listing, those under `under` (all for "")."""
    for raw in output.split(b"\0"):
        if raw:
            path = raw.decode("utf-8", "surrogateescape")
            if not under or path == under or path.startswith(under + "/"):
                yield path


# git's words when another process holds one of its lock files (index, a ref, HEAD, config).
def _failure(args: Sequence[str], where: str, done: subprocess.CompletedProcess[bytes]) -> GitError:
    """The error of a git command that failed: GitLocked (busy, retry) when git names a lock file
    another process holds, else GitError with git's words."""
    message = done.stderr.decode("utf-8", "replace").strip() or done.stdout.decode("utf-8", "replace").strip()
    held = held_lock_file(message)
    if held is not None:
        said = next(line for line in message.splitlines() if held.removesuffix(".lock") in line)   # not git's progress
        return GitLocked(
            f"git {' '.join(args[:3])} found the repository busy: {said}",
            fix=f"retry in a moment: once the lock {held} is {git_locks.STALE_SHARED_LOCK_SECONDS:.0f} s old and no "
            "process has it open, wtc removes it itself (a killed git left it); to go on sooner, make sure no git "
            "process is running, remove it and retry",
            retry_after=1.0, details={"args": list(args), "cwd": where, "lock": held})
    details: dict[str, object] = {"args": list(args), "cwd": where}
    if done.returncode < 0:   # killed by a signal (a Ctrl-C that reached the caller's process group)
        details["signal"] = -done.returncode
        message = message or f"killed by signal {-done.returncode}"
    return GitError(f"git {' '.join(args[:3])} failed: {message}", details=details)


# git names the lock file itself, or (for a config file) the file it locks: its lock is `<file>.lock`.
_HELD_LOCK = ((re.compile(r"Unable to create '([^']+\.lock)': File exists"), ""),
              (re.compile(r"could not lock config file (\S+): File exists"), ".lock"))


def _cleared_stale_lock(done: subprocess.CompletedProcess[bytes], where: str) -> bool:
    """Whether git refused on a lock file a killed git left (git_locks.is_stale: a minute old, open in
    no live process), now removed with a warning: the command is then run again."""
    held = held_lock_file(done.stderr.decode("utf-8", "replace"))
    return held is not None and git_locks.clear_if_stale(Path(where) / held) is not None


def held_lock_file(message: str) -> str | None:
    """The lock file git names when it refused because the file exists, else None."""
    for pattern, suffix in _HELD_LOCK:
        found = pattern.search(message)
        if found:
            return found.group(1) + suffix
    return None


def _config_bool(config: pygit2.Config, name: str) -> bool:
    import pygit2
    try:
        return config.get_bool(name)
    except (KeyError, pygit2.GitError, ValueError):
        return False


def is_tombstone(path: Path) -> bool:
    """Whether `path` is a folder `bury` renamed for deletion (never read, only deleted)."""
    return path.name.startswith(TOMBSTONE_PREFIX)


def bury(path: Path) -> Path | None:
    """Rename `path` to a fresh tombstone name in the same folder, in one atomic step; None when
    there is nothing at `path`. The tombstone is on the same filesystem, so the rename cannot
    degrade into a copy and delete."""
    tombstone = path.with_name(f"{TOMBSTONE_PREFIX}{os.urandom(4).hex()}@{path.name}")
    try:
        os.rename(path, tombstone)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise GitError(f"cannot rename {path} to remove it: {error}",
                       fix=f"remove {path} by hand (nothing in it is needed), then retry") from None
    return tombstone


def _drop_admin_entry(admin: Path) -> None:
    """Delete a worktree's admin entry whose folder is gone, as `git worktree prune` would: the
    `gitdir` file first (killed after it, the entry is one git prunes: "gitdir file does not
    exist"), then the rest, then `worktrees/` itself when it is left empty (git removes it too)."""
    import shutil
    try:
        (admin / "gitdir").unlink()
    except FileNotFoundError:
        pass
    except OSError:
        return
    shutil.rmtree(admin, ignore_errors=True)
    try:
        admin.parent.rmdir()
    except OSError:
        pass


def delete_tombstones_of(path: Path) -> list[Path]:
    """Delete the tombstones `bury(path)` left beside `path` (`.wtc-tombstone@<hex>@<name>`: removals
    of that worktree a kill interrupted), unread; the ones deleted. The task's own next removal calls
    it: left for `wtc gc`, a whole copy of the repository stayed in the checkout's worktree root,
    where a test runner started in the checkout (`node --test`, jest) ran its tests a second time."""
    suffix = "@" + path.name
    try:
        found = sorted(child for child in path.parent.iterdir()
                       if is_tombstone(child) and child.name.endswith(suffix)
                       and "@" not in child.name[len(TOMBSTONE_PREFIX):-len(suffix)])
    except OSError:
        return []
    for tombstone in found:
        delete_tombstone(tombstone)
    return found


def delete_tombstone(tombstone: Path) -> None:
    """Delete a tombstone without reading anything in it. Safe beside another deletion of the same
    tombstone (a `wtc gc`): what vanishes meanwhile is skipped."""
    if tombstone.is_symlink() or not tombstone.is_dir():
        tombstone.unlink(missing_ok=True)
        return
    try:
        children = sorted(tombstone.iterdir())
    except OSError:
        children = []
    if children and holds_more_than(tombstone, MANY_ENTRIES):
        # A worktree checked out whole: one `rm` process a half, not Python's walk of every entry
        # (bulk_removal.py); what rm leaves (a folder an agent made read-only) goes to `_rmtree`,
        # which makes it writable first.
        remove_by_process(children[:len(children) // 2])
        crash_point("remove.half_deleted")
        if remove_by_process([tombstone]):
            return
        _rmtree(tombstone)
        return
    for index, child in enumerate(children):
        if index == len(children) // 2:
            crash_point("remove.half_deleted")
        if child.is_symlink() or not child.is_dir():
            try:
                child.unlink(missing_ok=True)
            except OSError:
                pass  # a read-only folder: the final pass makes it writable
        else:
            _rmtree(child)
    _rmtree(tombstone)


def _rmtree(path: Path) -> None:
    """Remove a folder even when an agent left read-only files or folders in it."""

    import shutil
    def make_writable_and_retry(function, target, _info):  # type: ignore[no-untyped-def]
        try:
            os.chmod(target, 0o700)
            parent = os.path.dirname(target)
            os.chmod(parent, 0o700)
            function(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=make_writable_and_retry)


def _excluded(paths: Sequence[str]) -> list[str]:
    """Pathspecs that keep `git add` away from `paths` (repository-relative, taken literally)."""
    return [f":(top,exclude,literal){p.rstrip('/')}" for p in paths]
