"""One task in full, for the page's detail panel: `GET /api/task/<name>`.

Stage: a read-only view. Input: the store, the repository (its own `GitRepo`, opened per call: a
request thread shares no pygit2 handle with the forecast's thread) and the task. Output: its
record (state, branch, worktree, boundary), the files it changed, its commits (id, summary, author,
time) from the run's pin to its head, its findings (violations, conflicts, semantic findings of its
merge, notes, verification), its intents, its merge commit, its events, and its trace spans when
`WTC_TRACE_FILE` names a file the run's processes wrote (at most MAX_SPANS, newest last).

Invariants: nothing is written; a commit the repository lacks (a branch deleted by gc) is left out,
never an error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..store.base import Store

MAX_COMMITS = 50
MAX_SPANS = 200


def task_detail(store: Store, repo: str, run_id: str, task_id: str) -> dict[str, Any] | None:
    """The task's detail, or None when the run has no such task."""
    task = store.get_task(run_id, task_id)
    run = store.get_run(run_id)
    if task is None or run is None:
        return None
    result = task.result
    merge = result.get("merge") or {}
    detail: dict[str, Any] = {
        "task": task.task_id, "state": task.state.value, "branch": task.branch, "worktree": task.worktree,
        "head": task.head, "author": task.author, "boundary": task.boundary.to_json(),
        "created_at": task.created_at, "updated_at": task.updated_at, "finished_at": task.finished_at,
        "files": result.get("changed", []), "merge_commit": merge.get("merge_commit"),
        "findings": {"violations": result.get("violations", []), "conflicts": result.get("conflicts", []),
                     "semantic": merge.get("semantic", []), "notes": result.get("notes", []),
                     "verification": merge.get("verification") or result.get("verification")},
        "intents": [{"intent": row["intent_id"], "state": row["state"]} | {
                    k: row["data"].get(k) for k in ("manifest", "op", "name", "spec")}
                    for row in store.list_intents(run_id) if row["task_id"] == task_id],
        "events": [{"at": e["at"], "kind": e["kind"], "data": e["data"]} for e in store.events(run_id, task_id)],
        "commits": _commits(repo, run.base, task.head or result.get("commit")),
        "spans": _spans(run_id, task_id),
    }
    return detail


def _commits(repo: str, base: str, head: str | None) -> list[dict[str, Any]]:
    if not head:
        return []
    from ..gitrepo import GitRepo

    try:
        git = GitRepo(repo)
        out = []
        for sha in git.commits_between(base, head)[:MAX_COMMITS]:
            commit = git.repo.get(sha)
            out.append({"commit": sha, "summary": commit.message.split("\n", 1)[0],
                        "author": commit.author.name, "at": commit.commit_time})
        return out
    except (KeyError, ValueError):   # the branch's commits are gone (gc): the rest of the detail stands
        return []


def _spans(run_id: str, task_id: str) -> list[dict[str, Any]]:
    """The task's spans from WTC_TRACE_FILE (telemetry/jsonlines.py), when one is recorded."""
    path = os.environ.get("WTC_TRACE_FILE", "")
    if not path or not Path(path).is_file():
        return []
    spans = []
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if f'"{task_id}"' not in line:
                continue
            try:
                span = json.loads(line)
            except ValueError:
                continue
            attributes = span.get("attributes", {})
            if attributes.get("wtc.task") == task_id and attributes.get("wtc.run", run_id) == run_id:
                spans.append({"name": span.get("name"), "start": span.get("start_unix_nano", 0) / 1e9,
                              "end": span.get("end_unix_nano", 0) / 1e9,
                              "status": (span.get("status") or {}).get("code")})
    return spans[-MAX_SPANS:]
