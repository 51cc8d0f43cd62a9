"""One task in full, for the page's detail panel: `GET /api/task/<name>`.

Stage: a read-only view. Input: the store, the repository (its own `GitRepo`, opened per call: a
request thread shares no pygit2 handle with the forecast's thread) and the task. Output: its
record (state, branch, worktree, boundary), the files it changed, its commits (id, summary, author,
time) from the run's pin to its head, its findings (violations, conflicts, semantic findings of its
merge, notes, verification), its intents, its merge commit, its events, and its trace spans when
`WTC_TRACE_FILE` names a file the run's processes wrote (at most MAX_SPANS, newest last).

`task_diff` is the task's changes as a unified diff, for the page's link.

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
MAX_DIFF_BYTES = 2_000_000   # a diff longer than this is cut, and says so


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
        "commits": _commits(repo, run.base, task),
        "spans": _spans(run_id, task_id),
    }
    return detail


def _commit(git: Any, sha: str) -> Any:
    """The pygit2 commit `sha` names (KeyError when the repository lacks it)."""
    import pygit2

    return git.repo[sha].peel(pygit2.Commit)


def _tip_of(git: Any, task: Any) -> str | None:
    """The task's branch as it is now (an abandoned task's snapshot included), else its recorded head."""
    return git.ref_target(f"refs/heads/{task.branch}") or task.head or task.result.get("commit")


def _commits(repo: str, base: str, task: Any) -> list[dict[str, Any]]:
    from ..gitrepo import GitRepo

    try:
        git = GitRepo(repo)
        head = _tip_of(git, task)
        if not head:
            return []
        out = []
        for sha in git.commits_between(base, head)[:MAX_COMMITS]:
            commit = _commit(git, sha)
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


def task_diff(store: Store, repo: str, run_id: str, task_id: str) -> str | None:
    """What the task brings, as a unified diff (`GET /api/task/<name>/diff`): for a merged task its
    merge commit against the integration tip before it, else its head against the merge base of its
    head and the integration tip (the task's own changes). None when the run has no such task; an
    empty text when it has no commit yet."""
    task = store.get_task(run_id, task_id)
    run = store.get_run(run_id)
    if task is None or run is None:
        return None
    from ..gitrepo import GitRepo

    git = GitRepo(repo)
    merge_commit = (task.result.get("merge") or {}).get("merge_commit")
    head = _tip_of(git, task)
    try:
        if merge_commit:
            commit = _commit(git, merge_commit)
            old, new = commit.parents[0].tree, commit.tree
        elif head:
            tip = git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
            old, new = _commit(git, git.merge_base(head, tip)).tree, _commit(git, head).tree
        else:
            return ""
    except (KeyError, ValueError, AttributeError, IndexError):   # commits gone (gc)
        return f"the commits of task {task_id} are no longer in this repository\n"
    text = git.repo.diff(old, new).patch or ""
    if len(text) > MAX_DIFF_BYTES:
        text = text[:MAX_DIFF_BYTES] + f"\n... cut at {MAX_DIFF_BYTES} bytes\n"
    return text
