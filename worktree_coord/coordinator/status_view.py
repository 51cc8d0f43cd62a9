"""The run at a glance, read from the store alone: what `Coordinator.status` and `wtc status` show.

Stage: a read-only view. Input: a store (and a run id, or none). Output: a `RunStatus` (the runs,
one run's tasks with their states, boundaries, agents, ports and setup logs, counts of intents by
state, and the forecast column: each task's last forecast, read from forecast_column.py's file). It
takes no lease and writes nothing to the store. For one run kept on a git remote, it also shows the
integration tip the remote holds (one ref fetched into this clone's mirror, one short try; on a
network failure the last fetched tip, said to be stale). Importing this module loads neither pygit2 nor the
merge engine: `open_for_status` finds a plain repository's store from a few files
(gitrepo.locate), so `wtc status` starts at the cost of Python, the store and the command line
(scripts/bench_startup.py); anything unusual (a bare repository, a separate git dir) returns None
and the caller opens a full Coordinator.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..config import load_config
from ..errors import NotFoundError
from ..gitrepo.locate import locate_plain
from ..model import TaskState, validate_name
from ..results import RunStatus
from ..store.address import open_store, resolve
from ..store.base import Store
from .forecast_column import read_latest
from .worktree_marks import half_made

STORE_FILE = "state.sqlite3"   # under <common dir>/wtc, as GitRepo.wtc_dir and base.py place it


def open_for_status(repo: str | Path) -> tuple[Store | None, Path] | None:
    """(the store, or None when this repository has none yet; the git common dir) for a plain
    repository, or None when the caller must open a Coordinator. Creates nothing: a repository
    wtc never touched has no store, and `status` of it shows no runs."""
    located = locate_plain(repo)
    if located is None:
        return None
    config = load_config(located.toplevel)
    address = resolve(config.store, config.source, located.common_dir / "wtc" / STORE_FILE)
    if address.kind == "sqlite" and not Path(address.target).exists():
        return None, located.common_dir
    return open_store(address), located.common_dir


def read_status(store: Store | None, run_id: str | None = None, *, where: Path | None = None) -> RunStatus:
    """The runs (all, or one) and their tasks at a glance. Without `run_id`, a repository with
    exactly one run shows that run's tasks; with several, each run with its task counts.
    NotFoundError names the run and how to start it when `run_id` is not in the store."""
    if run_id:
        validate_name("run", run_id)
        run = store.get_run(run_id) if store is not None else None
        if run is None:
            raise NotFoundError(f"no run {run_id!r}" + (f" in {where}" if where else ""),
                                fix="start it first: wtc run start --run " + run_id)
        runs = [run]
    else:
        runs = store.list_runs() if store is not None else []
    if store is None:
        return RunStatus(runs=[], tasks=[], counts={}, intents={})
    if run_id is None and len(runs) == 1:
        run_id = runs[0].run_id
    tasks = store.list_tasks(run_id) if run_id else []
    counts: dict[str, int] = {}
    now = time.time()
    rows = []
    origins = _task_origins(store, run_id) if run_id else {}
    # The forecast column: the run's last forecast (a file beside the store; nothing is computed here).
    forecast = read_latest(where, run_id) if (run_id and where is not None) else None
    # A live task's worktree that a start or update left half made: its missing files are no
    # changes of the task's; the row says so and names the way out instead of counting them.
    unfinished = {t.task_id for t in tasks if t.state.live and t.worktree and half_made(Path(t.worktree))}
    working = _working_counts(runs[0] if run_id else None, [t for t in tasks if t.task_id not in unfinished])
    for task in tasks:
        counts[task.state.value] = counts.get(task.state.value, 0) + 1
        rows.append({
            "task": task.task_id, "state": task.state.value, "branch": task.branch, "worktree": task.worktree,
            "own": list(task.boundary.own),
            # A started task's files are its worktree's (committed or not); an ended task's, what its
            # finish recorded.
            "files": working.get(task.task_id, len(task.result.get("changed", []))),
            "violations": len(task.result.get("violations", [])),
            "conflicts": len(task.result.get("conflicts", [])),
            "age_seconds": round(now - task.created_at, 1),
            # How long it has been in its state: since its start while it works, since its finish after.
            "state_seconds": round(now - (task.finished_at or task.created_at), 1),
            **origins.get(task.task_id, {}),
            **({"half_made": True, "fix": f"wtc task update {task.task_id} --run {task.run_id}"}
               if task.task_id in unfinished else {}),
            # Only a task that can still conflict has a forecast (an ended one's last one is history).
            **({"forecast": forecast["tasks"][task.task_id]}
               if forecast and task.task_id in forecast["tasks"] and _forecast_applies(task.state) else {}),
        })
    intents: dict[str, int] = {}
    if run_id:
        for row in store.list_intents(run_id):
            intents[row["state"]] = intents.get(row["state"], 0) + 1
    run_rows = [r.to_json() for r in runs]
    if run_id and where is not None:
        for record, row in zip(runs, run_rows):
            if record.run_id == run_id and record.remote:
                # A run across machines: the tip the remote holds now (one ref, one short try), or the
                # last one this clone fetched, marked stale: status never fails for the network.
                from ..gitrepo.remote import refresh_ref

                row.update(refresh_ref(where, record.remote, f"refs/heads/{record.integration_ref}").to_json())
    if run_id is None:
        for row in run_rows:
            per_run: dict[str, int] = {}
            for task in store.list_tasks(row["run"]):
                per_run[task.state.value] = per_run.get(task.state.value, 0) + 1
            row["counts"] = per_run
    for row in run_rows:
        sessions = store.harness_sessions(run_id=row["run"])
        if sessions:
            row["session"] = {"harness": sessions[0]["harness"], "id": sessions[0]["session_id"]}
    return RunStatus(runs=run_rows, tasks=rows, counts=counts, intents=intents,
                     forecast_at=float(forecast["at"]) if forecast else None)


def _working_counts(run: Any, tasks: list[Any]) -> dict[str, int]:
    """Each live task's changed files read from its worktree (gitrepo.worktree_files: two git
    processes per task at most, four tasks at a time); a task whose worktree cannot be read is left out."""
    live = [t for t in tasks if t.state.live and t.worktree and Path(t.worktree).is_dir()]
    if run is None or not live:
        return {}
    from ..gitrepo.worktree_files import changed_file_count

    since = f"refs/heads/{run.integration_ref}"
    if len(live) == 1:   # one task: no thread
        counts = [changed_file_count(live[0].worktree, since, run.base)]
    else:
        from .in_threads import map_in_threads   # not concurrent.futures: it loads logging (start-up)

        counts = map_in_threads(lambda t: changed_file_count(t.worktree, since, run.base), live, workers=4)
    return {t.task_id: n for t, n in zip(live, counts) if n is not None}


def _forecast_applies(state: TaskState) -> bool:
    return state.live or state is TaskState.FINISHED


def _task_origins(store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """Per task: the agent it serves (harness tasks), which rule gave its boundary, its ports and
    the log of its worktree setup."""
    found: dict[str, dict[str, Any]] = {}
    for row in store.task_contexts(run_id):
        data = row["data"]
        prepared = data.get("prepared", {})
        entry: dict[str, Any] = {"boundary_from": data.get("boundary_from", "")}
        if prepared.get("ports"):
            entry["ports"] = prepared["ports"]
        if prepared.get("setup"):
            entry["setup_log"] = prepared["setup"]["log"]
        found[row["task_id"]] = entry
    for row in store.agent_tasks(run_id):
        found.setdefault(row["task_id"], {})["agent"] = row["agent"]
    return found
