"""A task's state change and the event saying so are one write: a process SIGKILLed right after the
task's record is written (crash point `task.written.<state>`, store/core.py) has written its event
too, exactly once, so the report, the timeline and `wtc status --events` tell what the record holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import commit, write, wtc_in_process
from worktree_coord.coordinator import Coordinator

OWN = "packages/api/**"


def started(repo: Path, task: str = "t", own: str = OWN) -> Path:
    code, out = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", own)
    assert code == 0, out
    return Path(out["worktree"])


def start_task(repo: Path) -> list[str]:
    return ["task", "start", "t", "--run", "r1", "--own", OWN]


def finish_no_merge(repo: Path) -> list[str]:
    write(started(repo), {"packages/api/index.js": "mine\n"})
    return ["task", "finish", "t", "--run", "r1", "--no-merge"]


def finish_empty(repo: Path) -> list[str]:
    started(repo)
    return ["task", "finish", "t", "--run", "r1"]


def finish_outside(repo: Path) -> list[str]:
    write(started(repo), {"packages/web/index.js": "not mine\n"})
    return ["task", "finish", "t", "--run", "r1"]


def merge_in_conflict(repo: Path) -> list[str]:
    write(started(repo, "other"), {"packages/api/index.js": "theirs\n"})
    assert wtc_in_process(repo, "task", "finish", "other", "--run", "r1")[0] == 0
    write(started(repo), {"packages/api/index.js": "mine\n"})
    return ["task", "finish", "t", "--run", "r1"]


def finish_with_markers(repo: Path) -> list[str]:
    merge_in_conflict(repo)
    assert wtc_in_process(repo, "task", "finish", "t", "--run", "r1")[0] == 1
    assert wtc_in_process(repo, "task", "update", "t", "--run", "r1")[0] == 1   # markers left in the worktree
    return ["task", "finish", "t", "--run", "r1"]


def merge_failing_verification(repo: Path) -> list[str]:
    write(started(repo), {"packages/api/index.js": "mine\n"})
    return ["task", "finish", "t", "--run", "r1", "--verify", "exit 3"]


def merge_clean(repo: Path) -> list[str]:
    write(started(repo), {"packages/api/index.js": "mine\n"})
    return ["task", "finish", "t", "--run", "r1"]


def abandon(repo: Path) -> list[str]:
    write(started(repo), {"packages/api/index.js": "mine\n"})
    return ["task", "abandon", "t", "--run", "r1"]


def widen(repo: Path) -> list[str]:
    started(repo)
    return ["task", "widen", "t", "--run", "r1", "--own", "packages/web/**", "--why", "it calls web"]


def update_in_conflict(repo: Path) -> list[str]:
    merge_in_conflict(repo)
    assert wtc_in_process(repo, "task", "finish", "t", "--run", "r1")[0] == 1
    return ["task", "update", "t", "--run", "r1"]


def update_after_failed_verification(repo: Path) -> list[str]:
    merge_failing_verification(repo)
    assert wtc_in_process(repo, "task", "finish", "t", "--run", "r1", "--verify", "exit 3")[0] != 0
    return ["task", "update", "t", "--run", "r1"]


def start_failing_setup(repo: Path) -> list[str]:
    commit(repo, {".wtc.toml": 'worktree-setup = { run = "exit 4" }\n'}, "a setup command that fails")
    return ["task", "start", "t", "--run", "r1", "--own", OWN]


# (the write the process dies right after, the state the task is left in (None: no record), the
# event that write carries, how to get there)
CASES: list[tuple[str, str | None, str, Callable[[Path], list[str]]]] = [
    ("task.written.started", "started", "task.started", start_task),
    ("task.written.finished", "finished", "task.finished", finish_no_merge),
    ("task.written.empty", "empty", "task.empty", finish_empty),
    ("task.written.rejected", "rejected", "task.rejected", finish_outside),
    ("task.written.conflict", "conflict", "task.conflict", merge_in_conflict),
    ("task.written.conflict", "conflict", "task.conflict", finish_with_markers),
    ("task.written.failed", "failed", "task.failed_verification", merge_failing_verification),
    ("task.written.merged", "merged", "task.merged", merge_clean),
    ("task.written.abandoned", "abandoned", "task.abandoned", abandon),
    ("task.written.boundary+result", "started", "task.widened", widen),
    ("task.written.result", "conflict", "task.updated", update_in_conflict),
    ("task.written.conflict", "conflict", "task.conflict", update_after_failed_verification),
    ("task.deleted", None, "task.setup_failed", start_failing_setup),
]


def events_of(repo: Path, kind: str) -> int:
    with Coordinator(repo) as coordinator:
        return sum(1 for e in coordinator.store.events("r1", "t") if e["kind"] == kind)


@pytest.mark.parametrize("point, state, kind, prepare", CASES, ids=[f"{c[2]}-{c[3].__name__}" for c in CASES])
def test_a_process_killed_right_after_a_task_write_has_written_its_event_once(repo, point, state, kind, prepare):
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    args = prepare(repo)
    before = events_of(repo, kind)
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT=point), capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, (killed.stdout, killed.stderr)
    with Coordinator(repo) as coordinator:
        task = coordinator.store.get_task("r1", "t")
    assert (task.state.value if task else None) == state
    assert events_of(repo, kind) == before + 1


def test_a_start_killed_right_after_its_record_still_says_where_its_boundary_came_from(repo):
    """The task's record and the origin of its boundary (shown by `wtc status` and the start's answer)
    are one write: a start killed right after the record, run again, answers with the origin."""
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", *start_task(repo), "--json"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="task.written.started"), capture_output=True,
                            text=True, timeout=120)
    assert killed.returncode == -9, (killed.stdout, killed.stderr)
    code, out = wtc_in_process(repo, *start_task(repo))
    assert code == 0, out
    assert out["boundary_from"] == "--own"
    code, status = wtc_in_process(repo, "status", "--run", "r1")
    assert [t.get("boundary_from") for t in status["tasks"]] == ["--own"], status
