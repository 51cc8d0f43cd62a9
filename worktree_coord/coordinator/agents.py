"""Agents of a harness (Claude Code, an MCP client) as tasks: the policy behind the harness faces.

Stage: a harness asks for a worktree for one of its agents, and later hands the worktree back.
Input: the agent's name as the harness gives it, the harness session, an optional run and base.
Output: `AgentStarted` (the task's worktree) and `AgentFinished` (what finishing did).

- **The run.** An explicit run (`WTC_RUN`) must exist. Otherwise each harness session has its own
  run, started the first time one of its agents asks: pinned at `source_ref` when the harness gives
  one, else at the HEAD of the checkout the session works in. Many agents asking at once start it
  exactly once: the session's row in the store decides the run id and the base (first writer
  wins), and `start_run` is idempotent on that pair. A session whose run has landed gets a new run.
- **The task.** An agent name need not be a valid task name (`a/b`, spaces, 200 characters): the
  task is named after it (invalid characters become `-`), with a stable suffix when the plain name
  is taken; the store reserves the name atomically and records the original. The same agent asking
  again (a retried hook, or a harness re-running it on resume: same session, same name) while its
  task is live gets the same task and worktree (re-created if it went missing, uncommitted work
  kept), with what stopped its last finish; one whose verification failed gets it back through
  `task update`. After its task ended, a new task that continues from it: where the earlier work
  merged (or it changed nothing, or waits to merge), the new worktree takes the integration tip in,
  and one line in `.wtc/task.json` and the notes says so ("this agent ran before in this session
  and its work merged as ..."), so the agent continues instead of redoing it; writing the same work
  again merges as nothing. The boundary comes from the plan (plan.py), decided once, when the name
  is reserved.
- **Handing back.** The worktree's path names the task. Finishing is `finish_task`: commit
  everything, check the boundary, merge. It never deletes uncommitted work: on a violation the
  commit stays on the branch and the worktree stays; on a conflict the branch keeps the work. A
  folder no wtc task owns is left untouched. The exit code says whether the worktree is still there.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Iterator

from ..errors import NotFoundError, StateError, UsageError
from ..model import RunRecord, RunState, TaskRecord, TaskState, validate_name
from ..results import AgentFinished, AgentStarted, TaskFinished

from .tasks import TaskOperations

MAX_AGENT_NAME = 1000


class AgentOperations(TaskOperations):
    """Harness agents as tasks: their runs, their task names, their worktrees."""

    def start_agent(self, agent: str, *, harness: str, session_id: str | None, run_id: str | None = None,
                    source_ref: str | None = None, checkout: str | Path | None = None) -> AgentStarted:
        """The worktree for `agent` of a harness session (see the module docstring)."""
        if not isinstance(agent, str) or not agent.strip() or len(agent) > MAX_AGENT_NAME:
            raise UsageError(f"invalid agent name {agent!r}",
                             fix=f"the harness must name the agent (1-{MAX_AGENT_NAME} characters)")
        notes: list[str] = []
        created = False
        if run_id:
            run = self._run(run_id)
            if run.state is not RunState.OPEN:
                raise StateError(f"run {run_id!r} is {run.state.value}; it takes no new tasks",
                                 fix="unset WTC_RUN (a run per session), or start a new run and point WTC_RUN at it")
            if source_ref and self._commit_or_none(source_ref) != run.base:
                notes.append(f"source_ref {source_ref} is not the run's pinned commit {run.base[:12]}; "
                             "the worktree starts at the pin")
        else:
            if not session_id:
                raise UsageError("the harness named no session, and WTC_RUN is not set",
                                 fix="set WTC_RUN to a run started with `wtc run start --run NAME`")
            run, created, more = self._session_run(harness, session_id, source_ref, checkout)
            notes += more
        session = session_id or ""
        row, claimed, earlier = self._agent_task(run, harness, session, agent)
        boundary = row["boundary"]
        current = self.store.get_task(run.run_id, row["task_id"])
        try:
            if current is not None and current.state is TaskState.FAILED:
                # Its verification failed: update brings its worktree back, onto the integration tip.
                self.update_task(run.run_id, row["task_id"])
            started = self.start_task(run.run_id, row["task_id"], boundary["own"], boundary["read"],
                                      sparse=boundary["sparse"], boundary_from=row["rule"])
            if earlier is not None:
                notes += self._continue_from(run, started.task, earlier)
            else:
                notes += self._continue_unfinished(run, started.task)
        except BaseException:
            if claimed:
                self.store.delete_agent_task(run.run_id, row["task_id"])
            raise
        if row["task_id"] != agent:
            notes.append(f"agent {agent!r} is task {row['task_id']!r}")
        return AgentStarted(
            harness=harness, session=session_id, agent=agent, run=run.run_id, run_created=created,
            task=started.task, worktree=started.worktree, branch=started.branch, base=started.base,
            boundary=started.boundary, boundary_from=started.boundary_from, prepared=started.prepared,
            notes=[*started.notes, *notes], replayed=started.replayed, earlier=earlier.task_id if earlier else None,
        )

    def _continue_from(self, run: RunRecord, task_id: str, earlier: TaskRecord) -> list[str]:
        """A re-run agent (a harness resuming a workflow re-runs agents that had finished) gets the
        work its earlier task did, not a start from the pin beside it: where that work merged, the
        new task takes the integration tip in (`task update`: a merge onto its branch, so its own
        changes are measured from there and writing the same work again merges as nothing); the
        line saying so is in `.wtc/task.json` and the hook's stderr."""
        merge = earlier.result.get("merge") or {}
        files = [c["path"] for c in earlier.result.get("changed", [])]
        shown = ", ".join(files[:10]) + (f" and {len(files) - 10} more" if len(files) > 10 else "")
        if earlier.state is TaskState.MERGED:
            commit = merge.get("merge_commit") or merge.get("new_tip") or earlier.head or ""
            line = (f"this agent ran before in this session (task {earlier.task_id}) and its work merged as "
                    f"{commit[:12]}" + (f": {shown}" if shown else "") + "; this worktree holds it (the "
                    "integration tip): continue from it, do not redo it")
        elif earlier.state is TaskState.EMPTY:
            line = (f"this agent ran before in this session (task {earlier.task_id}) and changed nothing; this "
                    "worktree holds the integration tip")
        elif earlier.state is TaskState.FINISHED:
            line = (f"this agent ran before in this session (task {earlier.task_id}), finished" +
                    (f" ({shown})" if shown else "") + f" and waits to merge (`wtc merge --run {run.run_id}`); "
                    "this worktree holds the integration tip without that work: do not redo it")
        else:   # abandoned: its work stays on its branch, not in integration
            self.store.update_task_context(run.run_id, task_id, {"earlier": (
                f"this agent ran before in this session as task {earlier.task_id}, which was abandoned; its work "
                f"is on the branch {earlier.branch} (git merge {earlier.branch} takes it in)")})
            self._rewrite_manifest(run, task_id)
            return [self.store.task_contexts(run.run_id, task_id)[0]["data"]["earlier"]]
        # Recorded before the update: a start killed before it ends is completed by the retry
        # (`_continue_unfinished`), which finds the task live and no longer knows what it ran before.
        self.store.update_task_context(run.run_id, task_id, {"earlier": line, "takes_integration": True})
        self.update_task(run.run_id, task_id)     # rewrites the manifest, now with the line
        self.store.update_task_context(run.run_id, task_id, {"takes_integration": False})
        return [line]

    def _continue_unfinished(self, run: RunRecord, task_id: str) -> list[str]:
        """The line a re-run agent's task keeps about what it ran before (said again when the hook is
        retried); a start killed before its task took the integration tip in takes it in now (the
        retry finds the task live)."""
        context = self.store.task_contexts(run.run_id, task_id)
        data = context[0]["data"] if context else {}
        if data.get("takes_integration"):
            self.update_task(run.run_id, task_id)
            self.store.update_task_context(run.run_id, task_id, {"takes_integration": False})
        return [data["earlier"]] if data.get("earlier") else []   # said again to a retried hook

    def _rewrite_manifest(self, run: RunRecord, task_id: str) -> None:
        task = self._task(run.run_id, task_id)
        if task.worktree and Path(task.worktree).is_dir():
            self._write_manifest(run, task_id, task.branch, Path(task.worktree), task.boundary,
                                 self._prepared(run.run_id, task_id))

    def _session_run(self, harness: str, session_id: str, source_ref: str | None,
                     checkout: str | Path | None) -> tuple[RunRecord, bool, list[str]]:
        """The open run of a harness session, started now if it has none."""
        notes: list[str] = []
        while True:
            rows = self.store.harness_sessions(harness=harness, session_id=session_id)
            current = rows[-1] if rows else None
            if current is not None:
                run = self.store.get_run(current["run_id"])
                if run is None or run.state is RunState.OPEN:
                    created = False
                    if run is None:  # the first asker recorded the session and died before the run
                        started = self.start_run(current["run_id"], current["base"])
                        created = not started.replayed
                        run = self._run(current["run_id"])
                    if source_ref and self._commit_or_none(source_ref) != run.base:
                        notes.append(f"source_ref {source_ref} is not the session run's pinned commit "
                                     f"{run.base[:12]}; the worktree starts at the pin")
                    return run, created, notes
            seq = current["seq"] + 1 if current else 1
            base = self._session_base(source_ref, checkout, notes)
            run_id = _session_run_name(harness, session_id, seq)
            if self.store.add_harness_session(harness, session_id, seq, run_id, base):
                started = self.start_run(run_id, base)
                self.store.log_event(run_id, None, "session.started", {"harness": harness, "session": session_id})
                return self._run(run_id), not started.replayed, notes
            # Another agent of the session recorded it first: take its run (next turn of the loop).

    def _session_base(self, source_ref: str | None, checkout: str | Path | None, notes: list[str]) -> str:
        if source_ref:
            sha = self._commit_or_none(source_ref)
            if sha is not None:
                return sha
            # Claude Code's own fallback when its default base (origin/HEAD) is missing: local HEAD.
            notes.append(f"source_ref {source_ref!r} names no commit here; the run is pinned at HEAD")
        where = Path(checkout) if checkout else (self.git.toplevel or self.git.common_dir)
        head = self.git.checkout_head(where)
        if head is None:
            raise NotFoundError(f"the checkout at {where} has no commits yet",
                                fix="make a first commit (git commit --allow-empty -m init), then start the agent")
        return head

    def _commit_or_none(self, rev: str) -> str | None:
        try:
            return self.git.resolve_commit(rev)
        except NotFoundError:
            return None

    def _agent_task(self, run: RunRecord, harness: str, session: str,
                    agent: str) -> tuple[dict[str, Any], bool, TaskRecord | None]:
        """The agent's task row: its live (or still being made) task, or one whose verification
        failed (it comes back to be fixed), else a newly reserved name. Returns the row, whether this
        call reserved it, and for a new one the agent's earlier task in this session that ended
        (merged, empty, finished or abandoned), whose work the new one continues from."""
        mine = {"harness": harness, "session_id": session, "agent": agent}

        def reusable(row: dict[str, Any]) -> bool:
            task = self.store.get_task(run.run_id, row["task_id"])
            return task is None or task.state.live or task.state is TaskState.FAILED

        rows = self.store.agent_tasks(run.run_id, harness=harness, session_id=session, agent=agent)
        for row in reversed(rows):
            if reusable(row):
                return row, False, None
        ended = [task for row in rows if (task := self.store.get_task(run.run_id, row["task_id"])) is not None]
        earlier = max(ended, key=lambda t: (t.created_at, t.task_id)) if ended else None
        boundary, rule = self.boundary_for(run.run_id, agent, task_name_from(agent))
        for name in _task_names(agent, harness, session):
            for attempt in range(2):
                holders = self.store.agent_tasks(run.run_id, task_id=name)
                if holders:
                    holder = holders[0]
                    if {k: holder[k] for k in mine} == mine and reusable(holder):
                        return holder, False, None  # the same agent, asking twice at once
                    break
                if self.store.get_task(run.run_id, name) is not None:
                    break  # a task started by hand has that name
                if self.store.claim_agent_task(run.run_id, name, boundary=boundary, rule=rule, **mine):
                    return self.store.agent_tasks(run.run_id, task_id=name)[0], True, earlier
                # Lost the race for the name: look at who won (second turn).
        raise UsageError(f"no free task name for agent {agent!r} in run {run.run_id!r}")  # pragma: no cover

    def finish_agent_worktree(self, worktree: str | Path, *, message: str | None = None) -> AgentFinished:
        """Hand back an agent's worktree: finish its task (see the module docstring)."""
        path = Path(worktree).expanduser()
        path = path.resolve() if path.exists() else Path(path.absolute())
        task = self._task_at(path)
        if task is None:
            return self._not_ours(path)
        agent = self._agent_of(task)
        if task.state.live or task.state is TaskState.FINISHED:
            finished = self.finish_task(task.run_id, task.task_id, message=message)
            return self._handed_back(task, agent, finished)
        # Ended before: a repeat of the hook, or the lead finished it by hand. A folder still there
        # is left to `wtc gc`, which commits what is uncommitted in it before removing it.
        kept = path.exists()
        return AgentFinished(
            worktree=str(path), action="ended", run=task.run_id, task=task.task_id, agent=agent,
            state=task.state.value, kept=kept, branch=task.branch,
            message=f"task {task.task_id} of run {task.run_id} had already ended ({task.state.value})"
                    + ("; its leftover folder is for `wtc gc`" if kept else ""),
            next=["wtc gc"] if kept else [f"wtc status --run {task.run_id}"],
        )

    def _not_ours(self, path: Path) -> AgentFinished:
        """A path no wtc task has: left untouched (exit 0: the harness forgets it), except the
        repository itself, which no harness may hand back as an agent's worktree (exit 2: Claude Code
        keeps its record). Git's own removal is advised only for a folder that is a git worktree."""
        main = self.git.toplevel
        if path in {main, self.git.common_dir}:
            what = "main checkout" if path == main else "git directory"
            raise UsageError(
                f"{path} is the repository's {what}, not an agent's worktree: handing it back would remove "
                "the repository's own working tree, so it is left as it is",
                fix="the hook payload's worktree_path (or, without one, its cwd) must name the worktree the "
                    "WorktreeCreate hook printed; nothing of the main checkout is removed")
        linked = path.exists() and any(Path(entry.path).resolve() == path for entry in self.git.list_worktrees()[1:])
        return AgentFinished(worktree=str(path), action="not_ours", kept=path.exists(),
                             message=f"{path} is not a worktree of a wtc task" + ("" if linked or not path.exists()
                                                                                 else " (nor a git worktree)")
                                     + "; left untouched",
                             next=[f"git worktree remove {path}"] if linked else [])

    def _handed_back(self, task: TaskRecord, agent: str | None, finished: TaskFinished) -> AgentFinished:
        run, name, branch = task.run_id, task.task_id, task.branch
        path = Path(task.worktree) if task.worktree else None
        markers = any(c.get("kind") == "unresolved_markers" for c in finished.conflicts)
        kept = path is not None and path.exists() and (finished.state == TaskState.REJECTED.value or markers)
        state = finished.state
        steps: list[str] = []
        if markers:
            paths = ", ".join(sorted({c["path"] for c in finished.conflicts}))
            message = (f"task {name} still holds the conflict markers `wtc task update` left in {paths}; its work "
                       f"is committed on {branch} and the worktree {task.worktree} stays")
            steps = [f"resolve the markers in {task.worktree}, then: wtc task finish {name} --run {run}"]
        elif state == TaskState.MERGED.value:
            tip = (finished.merge or {}).get("new_tip") or ""
            message = f"task {name} merged into {self._run(run).integration_ref} at {tip[:12]}; worktree removed"
        elif state == TaskState.EMPTY.value:
            message = f"task {name} changed nothing; worktree removed"
        elif state == TaskState.CONFLICT.value:
            paths = ", ".join(sorted({c["path"] for c in finished.conflicts})) or "its files"
            message = (f"task {name} conflicts with the integration branch in {paths}; its work is kept on "
                       f"{branch}, the worktree is removed")
            steps = [f"wtc task update {name} --run {run}", f"wtc task finish {name} --run {run}"]
        elif state == TaskState.REJECTED.value:
            broken = "; ".join(f"{v['path'] or '-'}: {v['rule']}" for v in finished.violations[:5])
            message = (f"task {name} broke its boundary ({broken}); its work is committed on {branch} and "
                       f"the worktree {task.worktree} stays")
            steps = [f"fix the files in {task.worktree}, then: wtc task finish {name} --run {run}",
                     f"or give it up (the branch stays): wtc task abandon {name} --run {run}"]
        else:
            message = f"task {name} is {state}; its work is on {branch}"
            steps = [f"wtc status --run {run}"]
        waiting = _intents_waiting(finished)
        if waiting and state in (TaskState.MERGED.value, TaskState.EMPTY.value):
            # A reserved file's edit did not merge: it lands only when the lead consolidates.
            message += f"; its edits of reserved files wait for consolidation as intents ({waiting})"
            steps.append(f"wtc consolidate --run {run}")
        return AgentFinished(
            exit_code=finished.exit_code if kept else 0, worktree=str(path) if path else "", action="finished",
            run=run, task=name, agent=agent, state=state, kept=kept, branch=branch, message=message,
            next=steps, finish=finished.to_json(), replayed=finished.replayed,
        )

    def _task_at(self, path: Path) -> TaskRecord | None:
        """The task whose worktree is (or was) at `path`: `<worktree root>/<run>/<task>`."""
        root = self.worktree_root()
        root = root.resolve() if root.exists() else root
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            return None
        if len(parts) != 2:
            return None
        try:
            validate_name("run", parts[0])
            validate_name("task", parts[1])
        except UsageError:
            return None
        return self.store.get_task(parts[0], parts[1])

    def _agent_of(self, task: TaskRecord) -> str | None:
        rows = self.store.agent_tasks(task.run_id, task_id=task.task_id)
        return rows[0]["agent"] if rows else None


def _intents_waiting(finished: TaskFinished, limit: int = 6) -> str:
    """The intents a finish declared, by manifest: `package.json: add left-pad ^1.3.0`."""
    by_manifest: dict[str, list[str]] = {}
    for intent in finished.intents:
        words = [intent.get("op") or "change"] + ([] if intent.get("op") == "relock" else
                                                   [str(intent.get(key)) for key in ("name", "spec") if intent.get(key)])
        by_manifest.setdefault(str(intent.get("manifest") or "?"), []).append(" ".join(words))
    parts = [f"{manifest}: {', '.join(ops[:limit])}" + (f" and {len(ops) - limit} more" if len(ops) > limit else "")
             for manifest, ops in by_manifest.items()]
    return "; ".join(parts)


_INVALID = re.compile(r"[^A-Za-z0-9._-]+")


def task_name_from(text: str, *, limit: int = 64) -> str:
    """A valid task or run name made from any text: other characters become `-`, then what git or
    our names refuse (leading `.`/`-`, `..`, a `.lock` or `.` ending, `integration`) is trimmed."""
    name = _INVALID.sub("-", text)
    name = re.sub(r"\.{2,}", ".", name)
    name = re.sub(r"-{2,}", "-", name).lstrip(".-")[:limit]
    while name.endswith((".lock", ".", "-")):
        name = name.removesuffix(".lock").rstrip(".-")
    name = name or "agent"
    return "integration-agent" if name == "integration" else name


def _task_names(agent: str, harness: str, session: str) -> Iterator[str]:
    """Candidate task names for an agent, best first: its own (cleaned), then with a suffix derived
    from the agent's identity, then numbered."""
    plain = task_name_from(agent)
    digest = hashlib.sha256(f"{harness}\0{session}\0{agent}".encode()).hexdigest()[:6]
    yield plain
    yield f"{task_name_from(plain, limit=57)}-{digest}"
    for number in range(2, 1000):
        yield f"{task_name_from(plain, limit=50)}-{digest}-{number}"


def _session_run_name(harness: str, session_id: str, seq: int) -> str:
    name = task_name_from(f"{harness}-{session_id}")
    if len(name) > 52 or name != f"{harness}-{session_id}":
        digest = hashlib.sha256(session_id.encode()).hexdigest()[:8]
        name = f"{task_name_from(name, limit=43)}-{digest}"
    return name if seq == 1 else f"{name}-{seq}"
