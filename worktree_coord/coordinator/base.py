"""What every part of the Coordinator shares: the repository, the store, the configuration, and
the few helpers each concern uses (looking up runs and tasks, worktree paths, the heavy-work queue,
snapshots of uncommitted work).

The Coordinator is split by concern into mixins over this base (runs, tasks, merging,
consolidating, landing, cleanup); each module holds one concern's operations and its invariants.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ContextManager, Iterable, Iterator, Self, TypeVar

import contextlib
import functools
import os
import shlex
import time
from pathlib import Path

from ..store import admission, heartbeat, leases
from ..config import CONFIG_FILES, Config, load_config, load_run_rules
from ..errors import NotFoundError, StateError, UsageError
from ..events import Fanout, NullReporter, Reporter, stage
from .. import telemetry
from ..gitrepo import GitRepo, delete_tombstones_of
from ..model import RunRecord, TaskRecord, validate_name
from ..store import Store
from ..store.address import open_store, resolve
from .worktree_marks import MANIFEST_PATH, half_made

PIN_CONFIG_CACHE = "pin-config-v1"   # <wtc dir>/cache/pin-config-v1-<pin>.json: _pin_config_files


def may_remove_names(changes: "Iterable[Change]") -> bool:
    """Whether a change touches a file that existed before and that a language profile reads: the
    cheap superset of check/left_behind.readable_changes (only the profiles' heads are read, no
    rules), so a task that touched no such file never loads the semantic check (tree-sitter)."""
    from ..merge.languages.profile_index import profile_name_for_path

    return any(c.old_oid is not None and profile_name_for_path(c.path) is not None for c in changes)

EXIT_BOUNDARY = 3

F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    from ..isolation import Spawn
    from ..gitrepo.repository import Change
    from ..gitrepo.remote import RefView, Remote
    from ..integrate import Integrator
    from ..merge.result import SemanticMode
    from ..integrate.engine import Publisher


def staged(name: str) -> Callable[[F], F]:
    """Run an operation of the API as the stage `name` (events.stage): its run (`run_id`) and task
    (`task_id`, when it has one) open the stage, its result's outcome (`outcome_of`) closes it."""
    def wrap(method: F) -> F:
        read = _passed(method)
        code = method.__code__
        has_task = "task_id" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]

        @functools.wraps(method)
        def run(self: "CoordinatorBase", *args: Any, **kwargs: Any) -> Any:
            bound = read(self, args, kwargs)
            data = {"run": bound.get("run_id")} | ({"task": bound.get("task_id")} if has_task else {})
            with self._stage(name, **data) as out:
                result = method(self, *args, **kwargs)
                out.update(outcome_of(result))
                return result
        return run  # type: ignore[return-value]
    return wrap


def _passed(method: Callable[..., Any]) -> Callable[[Any, tuple[Any, ...], dict[str, Any]], dict[str, Any]]:
    """`read(self, args, kwargs)`: the arguments a call of `method` passed, by name, as
    `inspect.signature(method).bind_partial(self, *args, **kwargs).arguments` gives them, read from
    its code object: inspect (with ast, dis and tokenize: ~4 ms of each write's start-up) loads only
    for a call that does not fit the plain shape (a method with `/`, `*args`, `**kwargs` or a wrapper
    of another function, too many arguments, an unknown or a repeated name), where bind_partial
    gives the answer or raises its TypeError as before."""
    code = method.__code__
    plain = not (code.co_posonlyargcount or code.co_flags & 0x0C or hasattr(method, "__wrapped__"))  # 0x0C: *args, **kwargs
    positional = code.co_varnames[:code.co_argcount]
    names = frozenset(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])

    def read(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        given = positional[:1 + len(args)]
        if plain and 1 + len(args) <= len(positional) and kwargs.keys() <= names and kwargs.keys().isdisjoint(given):
            return dict(zip(given, (self, *args))) | kwargs
        import inspect

        return dict(inspect.signature(method).bind_partial(self, *args, **kwargs).arguments)
    return read


class CoordinatorBase:
    """State and helpers shared by the Coordinator's concerns."""

    def __init__(self, repo: str | os.PathLike[str] = ".", *, store: Store | None = None,
                 config: Config | None = None, reporter: Reporter | None = None):
        self.git = GitRepo(repo)
        self.config = config or load_config(self.git.toplevel, self._read_head_file)
        self.git.lock_timeout = self.config.lock_timeout
        # Off unless the environment (OTEL_*, WTC_TRACE_FILE) or the host configured it; a bad
        # WTC_TRACE_FILE is a ConfigError here, before anything is opened.
        tracing = telemetry.current()
        # WTC_STORE, else `store` in the configuration, else SQLite in the git common dir; opened
        # (and the repository set up) on first use: see `store`.
        self._store_address = None if store is not None else resolve(self.config.store, self.config.source,
                                                                      self.git.wtc_dir / "state.sqlite3")
        self._store: Store | None = store
        self._set_up = False
        if store is not None:
            heartbeat.configure(store, ttl=self.config.lease_ttl)
        self.reporter: Reporter = reporter or NullReporter()
        if tracing is not None:
            # The caller's reporter first (its progress), then the spans and metrics.
            self.reporter = Fanout(self.reporter, tracing.reporter(self._run_trace))
        self._integrator_instance: Integrator | None = None
        self._rules_by_pin: dict[str, Config] = {}

    @property
    def store(self) -> Store:
        """The coordination store, opened on first use, after the repository's one-time setup
        (GitRepo.ensure_setup: per-worktree config, the excludes, the wtc folder). Not before: a call
        that ends without a run to act on (`_run` of a repository with no store yet) or that is
        refused for its input leaves the repository as it found it."""
        if not self._set_up:
            self.git.ensure_setup()
            if self._store is None:
                assert self._store_address is not None
                self._store = open_store(self._store_address)
                heartbeat.configure(self._store, ttl=self.config.lease_ttl)
            self._set_up = True
        assert self._store is not None
        return self._store

    def _has_store(self) -> bool:
        """Does a store exist to read (one given or opened, a server's, or the SQLite file)? False
        for a repository no run was ever started in: there is nothing to find there."""
        address = self._store_address
        return address is None or self._store is not None or address.kind != "sqlite" \
            or Path(address.target).exists()

    def close(self) -> None:
        if self._integrator_instance is not None:
            self._integrator_instance.close()
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, run_id: str) -> RunRecord:
        validate_name("run", run_id)
        run = self.store.get_run(run_id) if self._has_store() else None
        if run is None:
            raise NotFoundError(f"no run {run_id!r} in {self.git.common_dir}",
                                fix="start it first: wtc run start --run " + run_id)
        return run

    def _moves_taken_in(self, run: RunRecord, since: str) -> Callable[[], dict[str, str]] | None:
        """The files the run moved that a task took in with `task update` (old path -> new, from
        the pin to `since`), for its boundary to follow (boundary.check_changes_following_moves);
        None when it took nothing in."""
        return None if since == run.base else lambda: self.git.renames(run.base, since)

    def _landing(self, run_id: str) -> dict[str, Any] | None:
        """The run's last land (its `run.landed` event's data: `onto`, `new`), None when it never
        landed. Read only for a run whose state is landed: the run's events are read whole."""
        landed = [e["data"] for e in self.store.events(run_id) if e["task_id"] is None and e["kind"] == "run.landed"]
        return landed[-1] if landed else None

    def _landed_run_takes_no_task(self, run: RunRecord, task_id: str) -> StateError:
        """The refusal of a new task in a landed run: what landed where, and the way on (a new run
        pinned at what landed). Tasks the run already has (left out of a partial land) go on."""
        landed = self._landing(run.run_id) or {}
        onto, commit = landed.get("onto") or "its target", str(landed.get("new") or "")
        base = landed.get("onto") or (commit or "HEAD")
        return StateError(
            f"run {run.run_id!r} has landed" + (f" on {onto} at {commit[:12]}" if commit else "")
            + f"; a landed run takes no new tasks (task {task_id!r} is not one of its tasks)",
            fix=f"start a new run from what landed: wtc run start --run NEW --base {base}, then "
                f"wtc task start {task_id} --run NEW",
            details={"run": run.run_id, "state": run.state.value, "onto": landed.get("onto"),
                     "landed": commit or None, "task": task_id})

    def _after_landing_note(self, run: RunRecord, merged: bool) -> str:
        """Where the work of a task of a landed run goes (a task a partial land left out): onto the
        integration branch, and to the land's target only with another land."""
        landed = self._landing(run.run_id) or {}
        onto, commit = landed.get("onto") or "ONTO", str(landed.get("new") or "")
        where = f"on {onto} at {commit[:12]}" if commit else f"on {onto}"
        return (f"run {run.run_id} has landed {where} without this task: its work "
                + ("merged into" if merged else "goes, once it merges, to")
                + f" the integration branch {run.integration_ref}, and reaches {onto} only with another land "
                  f"(wtc report --run {run.run_id} --onto {onto}, then wtc land --run {run.run_id} --onto {onto} --yes)")

    def _task(self, run_id: str, task_id: str) -> TaskRecord:
        validate_name("task", task_id)
        task = self.store.get_task(run_id, task_id)
        if task is None:
            raise NotFoundError(f"no task {task_id!r} in run {run_id!r}",
                                fix=f"start it first: wtc task start {task_id} --run {run_id} --own GLOB")
        return task

    @staticmethod
    def _fence(run_id: str, task_id: str) -> tuple[str, str]:
        """`holder=` for a task's state changes: written only while this process holds the task's
        lease, so a process whose heartbeat lapsed (and whose lease another took) writes nothing."""
        return leases.fence(leases.task_lease(run_id, task_id))

    def worktree_root(self) -> Path:
        """Where task worktrees live: `worktree-root` from the configuration, relative to the main
        checkout (excluded from its `git status`); inside the git dir for a bare repository."""
        root = Path(self.config.worktree_root)
        if root.is_absolute():
            return root
        return self.git.toplevel / root if self.git.toplevel else self.git.wtc_dir / "worktrees"

    def worktree_path(self, run_id: str, task_id: str) -> Path:
        return self.worktree_root() / run_id / task_id

    @contextlib.contextmanager
    def _heavy(self, what: str) -> Iterator[None]:
        """A place in the machine-wide queue for heavy work (merges, verification, relocks); the
        wait is reported (`admission.admitted`: the queue-wait attribute and histogram)."""
        asked = time.monotonic()
        with admission.admitted(self.store, "heavy", limit=self.config.max_parallel or admission.default_limit(),
                                timeout=self.config.wait_timeout):
            self.reporter.event("admission.admitted", work=what, wait_s=round(time.monotonic() - asked, 6))
            yield

    def _stage(self, name: str, **data: Any) -> ContextManager[dict[str, Any]]:
        """A unit of work bracketed by events (events.stage): a span when telemetry is on."""
        return stage(self.reporter, name, **data)

    def _run_trace(self, run_id: str) -> telemetry.RunTrace | None:
        """The run's trace ids as stored; a run recorded before they were kept gets them now."""
        run = self.store.get_run(run_id)
        if run is None:
            return None
        if run.trace_id is None or run.root_span_id is None:
            fresh = telemetry.RunTrace.new()
            run = self.store.set_run_trace(run_id, fresh.trace_hex, fresh.root_hex) or run
            if run.trace_id is None or run.root_span_id is None:
                return None
        return telemetry.RunTrace.from_hex(run.trace_id, run.root_span_id)

    def _semantic_mode(self, run: RunRecord) -> SemanticMode:
        """The run's `--semantic`, else `semantic-check` as committed at the run's pin (default block)."""
        from ..merge.result import SemanticMode   # here: a task start loads none of the merge engine's words

        return SemanticMode.parse(run.options.get("semantic") or self._run_rules(run).semantic_check)

    def _left_behind_mode(self, run: RunRecord) -> SemanticMode:
        """The run's `--left-behind`, else `left-behind` as committed at the run's pin (default
        block): what a use the landed tree keeps of a name the run removed does to a merge and to landing."""
        from ..merge.result import SemanticMode

        return SemanticMode.parse(run.options.get("left_behind") or self._run_rules(run).left_behind)

    def _disjoint_member_ranges(self, run: RunRecord, task_id: str, owned: list, derived: list,
                                integration_tip: str) -> list[dict[str, str]]:
        """The task's member-manifest ranges no version can meet with another member's under the same
        lock, at the integration tip (check/workspace_ranges.py): what `task finish` refuses, and what
        `task check` reports first, so the relock does not find it."""
        if not any(i.op.value == "relock" for i in derived):
            return []
        from ..check.workspace_ranges import disjoint_member_ranges

        def changed_by(manifest: str) -> list[str]:
            return [row["task_id"] for row in self.store.list_intents(run.run_id)
                    if (row["data"] or {}).get("manifest") == manifest]

        return disjoint_member_ranges(
            owned, derived, task=task_id, run=run.run_id, read_blob=self.git.read_blob,
            tip=lambda name: self.git.file_at(integration_tip, name),
            tip_folders=lambda folder: self.git.folders_at(integration_tip, folder),
            pinned=lambda name: self.git.file_at(run.base, name), changed_by=changed_by)

    def _run_rules(self, run: RunRecord) -> Config:
        """The configuration that decides what a run enforces (`left-behind`, `semantic-check`, the
        reserved files a task's boundary records at its start, `verify`, `max-file-size`,
        `default-boundary`; docs/configuration.md lists the split): the one committed at its pinned
        commit, which `wtc check --run --task` reads too. Not the main checkout's working file (a
        dirty checkout would relax the run) and not the integration tip (a task owning `.wtc.toml`
        could merge a relaxation for every task after it): a run's rules are fixed when it starts,
        like its options. Read once per pin and Coordinator; the machine's own settings (paths,
        timeouts, the store) stay `self.config`."""
        rules = self._rules_by_pin.get(run.base)
        if rules is None:
            rules = load_run_rules(self._pin_config_files(run).get, run.run_id, run.base)
            self._rules_by_pin[run.base] = rules
        return rules

    def _pin_config_files(self, run: RunRecord) -> dict[str, bytes | None]:
        """The configuration files (config.CONFIG_FILES) as committed at the run's pin, None for one
        the pin does not hold. Git data that never changes, so it is kept beside the store, one file
        per pin (written by rename: whole or absent), and every later call of every process reads it
        without libgit2, whose import costs a task start more than its own work."""
        import json

        kept = self.git.wtc_dir / "cache" / f"{PIN_CONFIG_CACHE}-{run.base}.json"
        try:
            raw = json.loads(kept.read_text(encoding="utf-8"))
            return {name: None if raw[name] is None else raw[name].encode("latin-1") for name in CONFIG_FILES}
        except (OSError, ValueError, TypeError, KeyError, AttributeError, UnicodeEncodeError):
            pass   # none yet (or not one this version wrote): read the pin
        self._fetch_pin(run)   # a remote run's pin this clone has not fetched yet
        files = {name: self.git.file_at(run.base, name) for name in CONFIG_FILES}
        kept.parent.mkdir(parents=True, exist_ok=True)
        temporary = kept.with_name(f"{kept.name}.{os.getpid()}.tmp")
        # latin-1 maps every byte to one character and back: the files' bytes exactly, in JSON.
        temporary.write_text(json.dumps({name: None if data is None else data.decode("latin-1")
                                         for name, data in files.items()}), encoding="utf-8")
        temporary.replace(kept)
        return files

    def _spawn(self, run: RunRecord) -> Spawn:
        """How the commands of `run` start (isolation.py): its recorded `network`, else the
        configuration's `network` (default isolated), as this machine can give it."""
        from ..isolation import spawn_for

        return spawn_for(run.options.get("network") or self.config.network)

    def command_spawn(self, run_id: str) -> Spawn:
        """How a command wtc starts for a task of `run_id` starts (its network): what fanout's agents
        and `wtc task exec` hand to `subprocess`, as the verification gate and worktree setup do."""
        return self._spawn(self._run(run_id))

    def _integrator(self) -> Integrator:
        if self._integrator_instance is None:
            from ..integrate import Integrator   # here: only a merge needs the engine

            self._integrator_instance = Integrator(self.git.repo)
        return self._integrator_instance

    # ---- remote runs (docs/multi-machine.md): the integration branch lives on a git remote --------

    def _remote(self, run: RunRecord) -> "Remote | None":
        """The run's git remote as this clone names it, or None for a run kept in this repository."""
        if not run.remote:
            return None
        from ..gitrepo.remote import Remote

        return Remote(self.git, run.remote)

    def _sync_integration(self, run: RunRecord) -> None:
        """Bring this clone's mirror of the integration branch to what the remote holds (the truth)."""
        remote = self._remote(run)
        if remote is not None:
            ref = f"refs/heads/{run.integration_ref}"
            remote.fetch([f"+{ref}:{ref}"], what=f"fetching {run.integration_ref}")

    def _view_integration(self, run: RunRecord) -> "RefView | None":
        """For read-only views (status, watch, report): a remote run's integration tip refreshed
        from the remote (one ref, one short try), or the last fetched one marked stale when the
        remote does not answer; never raises for the network. None for a run kept in this repository."""
        if not run.remote:
            return None
        from ..gitrepo.remote import refresh_ref

        return refresh_ref(self.git.common_dir, run.remote, f"refs/heads/{run.integration_ref}")

    def _publisher(self, run: RunRecord) -> "Publisher | None":
        """How a merge moves the integration ref: None (the local compare-and-swap) for a local run;
        for a remote run a push with a lease from the tip the merge was built on, the local mirror
        fetched again when the lease is refused (the merge is then built again on the new tip)."""
        remote = self._remote(run)
        if remote is None:
            return None
        import pygit2

        from ..gitrepo.refs import StaleRef
        from ..gitrepo.remote import RemoteStale

        def publish(ref: str, new: Any, old: Any) -> None:
            try:
                remote.push_with_lease(ref, str(new), str(old), what=f"moving {ref} on {remote.name}")
            except RemoteStale:
                remote.fetch([f"+{ref}:{ref}"], what=f"fetching {ref} after a lost push race")
                raise StaleRef(ref, old, None) from None
            try:
                self.git.set_ref(ref, str(new), "worktree_coord: pushed to " + remote.name)
            except (pygit2.GitError, OSError):
                pass   # the local mirror is a hint (another process of this clone holds its lock): the next fetch sets it
        return publish

    @staticmethod
    def _mergeable_ref(run_id: str, task_id: str) -> str:
        """Where a remote run keeps a task's mergeable commit (its tip without reserved-file edits)."""
        return f"refs/wtc/{run_id}/mergeable/{task_id}"

    def _fetch_pin(self, run: RunRecord) -> None:
        """A remote run's pinned commit, fetched alone when this clone lacks it (in a partial clone,
        its commits and trees: blobs come with the checkout, for the task's sparse cone only)."""
        remote = self._remote(run)
        if remote is not None and not self.git.has_commit(run.base):
            remote.fetch([f"+{run.base}:refs/wtc/{run.run_id}/pin"], what=f"fetching the pin {run.base[:12]}")

    def _pin_gone(self, run: RunRecord) -> NotFoundError | None:
        """The error that says the run's pinned commit is no longer here (a history rewritten or
        force-pushed, the integration branch deleted, then `git gc`), or None while it is. Asked when
        a git read of the pin failed: a task's start, which every later step needs the pin for."""
        if self.git.has_commit(run.base):
            return None
        return NotFoundError(
            f"run {run.run_id}'s pinned commit {run.base[:12]} is no longer in this repository (its history "
            "was rewritten or garbage-collected), so no task of the run can start from it",
            fix=f"fetch it back from a clone that still has it (`git fetch <remote> {run.base}`), or start a new run "
                f"from the commit you want (`wtc run start --run NEW --base REV`) and start the task there",
            details={"run": run.run_id, "commit": run.base})

    def _fetch_task(self, run: RunRecord, task: TaskRecord) -> bool:
        """A remote run's task branch (and mergeable commit) as another machine pushed them, into
        this clone's refs; False when the remote has no branch for the task."""
        remote = self._remote(run)
        if remote is None:
            return False
        refs = [f"refs/heads/{task.branch}", self._mergeable_ref(run.run_id, task.task_id)]
        there = remote.remote_refs(refs)
        if refs[0] not in there:
            return False
        if self.git.worktree_on_branch(refs[0]) is not None:
            return True   # its worktree is here: the local branch is the newer one
        remote.fetch([f"+{ref}:{ref}" for ref in refs if ref in there], what=f"fetching task {task.task_id}")
        return True

    def _publish_task(self, run: RunRecord, task_id: str, branch: str, tip: str, mergeable: str) -> None:
        """Push a finished task's branch (and its mergeable commit) so any machine can merge it."""
        remote = self._remote(run)
        if remote is None:
            return
        refs = {f"refs/heads/{branch}": tip}
        if mergeable and mergeable != tip:
            refs[self._mergeable_ref(run.run_id, task_id)] = mergeable
        remote.push_refs(refs, what=f"pushing task {task_id}")

    def _is_ours(self, path: Path) -> bool:
        """Is the folder at `path` a worktree of this clone? A remote run's task may have been started
        by another clone whose folder this machine can see (a shared disk): never touch that one."""
        dot_git = path / ".git"
        text = dot_git.read_text(errors="replace").strip() if dot_git.is_file() else ""
        if not text.startswith("gitdir:"):
            return True   # not a linked worktree at all (a half-made or half-removed folder): ours to clean
        admin = Path(text[len("gitdir:"):].strip())
        admin = (admin if admin.is_absolute() else path / admin).resolve()
        if admin.parent == (self.git.common_dir / "worktrees").resolve():
            return True
        # Registered in another repository's admin folder (another clone): not ours. Anything else
        # is a .git file someone rewrote here, which the task's own checks report (git_dir).
        other = admin.parent.parent
        return not (admin.parent.name == "worktrees" and (other / "objects").is_dir() and (other / "HEAD").is_file())

    def _drop_worktree(self, task: TaskRecord, *, ended: bool = True) -> None:
        """Remove the task's worktree; `ended`: the task will not come back (merged, empty, abandoned),
        so its ports go back to the machine too. A finished task waiting for its merge (`ended`
        False) keeps them: the merge may conflict and bring it back to its agent, whose servers may
        still bind them (`TaskState.holds_ports`)."""
        if task.worktree and Path(task.worktree).exists() and self._is_ours(Path(task.worktree)):
            self.git.remove_worktree(Path(task.worktree))
        if task.worktree:
            # A removal of this worktree killed after its rename left a tombstone: this task's (the
            # name is its own), so deleted now rather than left for `wtc gc` inside the checkout.
            delete_tombstones_of(Path(task.worktree))
        if ended:
            # Before the record: a kill in between leaves a lease reclaimed when met. Also without a
            # worktree: a task whose finish dropped it and whose merge conflicted kept its ports.
            self._release_ports(task.run_id, task.task_id)
        if task.worktree:
            self.store.update_task(task.run_id, task.task_id, worktree=None)

    def _port_store(self) -> str:
        """The store as the machine's port registry names it (a SQLite file's real path)."""
        return self.store.location if "://" in self.store.location else os.path.realpath(self.store.location)

    def _release_ports(self, run_id: str, *task_ids: str) -> None:
        """Give the tasks' ranges back to the machine's port registry (each task ended, or its start
        rolled back), under one taking of the registry's lock (a drain's merged tasks). A task's
        range: as prepared, else the block the store recorded."""
        if not task_ids:
            return
        wanted = set(task_ids)
        rows = self.store.task_contexts(run_id, task_ids[0] if len(task_ids) == 1 else None)
        blocks: list[tuple[str, str, int, int]] = []
        for row in rows:
            if row["task_id"] not in wanted:
                continue
            ports = row["data"].get("prepared", {}).get("ports")
            if ports:
                first, last = int(ports["base"]), int(ports["last"])
            else:
                setup = self.config.worktree_setup
                if row.get("port_block") is None or setup is None or not setup.ports:
                    continue
                first = setup.port_base + int(row["port_block"]) * setup.ports
                last = first + setup.ports - 1
            blocks.append((run_id, row["task_id"], first, last))
        if not blocks:
            return
        from ..store.port_registry import release_many

        release_many(self._port_store(), blocks, timeout=self.config.lock_timeout)

    def _worktree_problems(self, task: TaskRecord, path: Path) -> list[dict[str, str]]:
        """Tampering that makes committing in the worktree unsafe: a rewritten .git file, a switched branch."""
        problems = []
        dot_git = path / ".git"
        text = dot_git.read_text(errors="replace").strip() if dot_git.is_file() else ""
        admin = Path(text[len("gitdir:"):].strip()) if text.startswith("gitdir:") else None
        if admin is None or not admin.is_absolute():
            admin = (path / admin) if admin is not None else None
        worktrees_dir = (self.git.common_dir / "worktrees").resolve()
        if admin is None or admin.resolve().parent != worktrees_dir or not (admin / "gitdir").is_file():
            problems.append({"path": ".git", "rule": "git_dir",
                             "detail": "the worktree's .git file was changed or removed; restore it with `git worktree repair`"})
            return problems
        head, symbolic = self.git.worktree_head(path)
        if symbolic != f"refs/heads/{task.branch}":
            problems.append({"path": "", "rule": "branch_switched",
                             "detail": self._switched_detail(task, path, head, symbolic)})
        return problems

    def _switched_detail(self, task: TaskRecord, path: Path, head: str | None, symbolic: str | None) -> str:
        """What to do about a worktree switched off its task branch. Agents switch to a branch of
        their own (`git checkout -b fix`) and commit there: those commits are the work, so the way
        back must carry them onto the task branch, not leave them behind on the other branch."""
        where = symbolic.removeprefix("refs/heads/") if symbolic else "a detached HEAD"
        tip = self.git.ref_target(f"refs/heads/{task.branch}")
        text = f"the worktree is on {where}, not {task.branch}, so nothing was committed; "
        quoted = shlex.quote(str(path))
        if head is None or head == tip:
            return text + f"switch back with `git -C {quoted} switch {task.branch}`"
        if tip is not None and self.git.is_ancestor(tip, head):
            # The task branch is behind what the agent committed: move it there and switch back;
            # uncommitted edits come along (same commit), nothing is rewritten.
            return text + (f"its commits are ahead of the task branch: keep them with `git -C {quoted} branch -f "
                           f"{task.branch} HEAD && git -C {quoted} switch {task.branch}`, then finish again")
        return text + (f"the task branch does not hold what it committed: `git -C {quoted} switch {task.branch} && "
                       f"git -C {quoted} merge {shlex.quote(symbolic.removeprefix('refs/heads/') if symbolic else head)}`"
                       f" (commit or stash uncommitted edits first), then finish again")

    def _snapshot(self, task: TaskRecord, message: str) -> tuple[str | None, list[str]]:
        """Commit what the agent left uncommitted in the task's worktree onto its branch, so that
        dropping the worktree loses nothing. Returns the commit (or None) and the files missing from
        disk that were not recorded as deletions.

        The caller holds the task's lease and passes the task as read after taking it. Only a live
        task's worktree holds an agent's work: once a finish or an abandon is recorded, its own
        commit holds the work and the folder is a leftover that may be half removed, so it is never
        committed. A file missing from disk is not taken for a deletion (see
        `GitRepo.commit_snapshot`): a worktree some old removal left half deleted must not become a
        commit deleting the tree."""
        if not task.state.live or not task.worktree or not Path(task.worktree).exists():
            return None, []
        path = Path(task.worktree)
        if half_made(path):
            return None, []  # no agent work in it
        if self._worktree_problems(task, path):
            return None, []  # never commit through a tampered .git file or onto another branch
        name, email = _split_author(task.author)
        return self.git.commit_snapshot(path, message, name, email,
                                        leave_out=self._generated_paths(path))

    def _generated(self, path: Path) -> list[tuple[str, str]]:
        """Untracked folders in the worktree that tools generated (boundary/generated.py): never committed."""
        from ..boundary.generated import generated_folders

        return generated_folders(path, self.git.untracked_entries(path))

    def _generated_paths(self, path: Path) -> list[str]:
        """Just the folders of `_generated`: what a commit of the worktree leaves out."""
        return [folder for folder, _ in self._generated(path)]

    def _read_head_file(self, name: str) -> bytes | None:
        repo = self.git.repo
        if repo.head_is_unborn:
            return None
        tree = repo.head.peel().tree
        if name not in tree:
            return None
        return repo[tree[name].id].read_raw()


def outcome_of(result: Any) -> dict[str, Any]:
    """What a stage's end says about an operation's result: state, exit code, replay, and how many
    files, conflicts, violations and intents it holds."""
    out: dict[str, Any] = {"exit_code": getattr(result, "exit_code", None),
                           "replayed": getattr(result, "replayed", None)}
    if isinstance(getattr(result, "state", None), str):
        out["state"] = result.state
    for field, name in (("changed", "files"), ("conflicts", "conflicts"), ("violations", "violations"),
                        ("intents", "intents")):
        value = getattr(result, field, None)
        if isinstance(value, list):
            out[name] = value
    return out


def _split_author(author: str) -> tuple[str, str]:
    if "<" in author and author.rstrip().endswith(">"):
        name, _, rest = author.partition("<")
        return name.strip(), rest.rstrip().rstrip(">").strip()
    return author.strip(), ""


def _parse_author(author: str | None, run_id: str, task_id: str) -> tuple[str, str]:
    if not author:
        return f"wtc task {task_id}", f"{task_id}@{run_id}.wtc.invalid"
    name, email = _split_author(author)
    if not name or not email:
        raise UsageError(f"invalid --author {author!r}", fix='use the form "Name <email@example.com>"')
    return name, email

