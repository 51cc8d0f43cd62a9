"""Keys a caller chooses and keys wtc derives live apart.

Found driving wtc on a clone of gin-gonic/gin: an agent named its finish `r2-finish-t2-use` (the
documented spelling of the default), the finish ended in a semantic conflict, and the README's next
step, `wtc task finish` again without --key, derived that same key for a request with another message:
exit 2, idempotency_mismatch, and no way forward but to invent a key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, wtc_in_process
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import UsageError


def _conflicting_pair(repo: Path) -> Path:
    """Tasks a and b both rewrite api()'s body; a merges first, so b's finish is a conflict."""
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for task in ("a", "b"):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", "packages/api/**")
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    (worktrees["a"] / "packages/api/index.js").write_text("export function api() {\n  return 10;\n}\n")
    (worktrees["b"] / "packages/api/index.js").write_text("export function api() {\n  return 20;\n}\n")
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1")[0] == 0
    return worktrees["b"]


def test_a_finish_again_without_a_key_never_meets_the_callers_key_spelled_like_a_default(repo):
    worktree = _conflicting_pair(repo)
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1", "-m", "b's change", "--key", "r1-finish-b")
    assert code == 1 and body["state"] == "conflict", body

    code, body = wtc_in_process(repo, "task", "update", "b", "--run", "r1")
    assert code == 1, body
    (worktree / "packages/api/index.js").write_text("export function api() {\n  return 30;\n}\n")
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert code == 0 and body["state"] == "merged", body
    assert "return 30;" in git(repo, "show", "wtc/r1/integration:packages/api/index.js")

    # and the caller's own key still answers for its own request: the conflict it ended in is open,
    # so a repeat runs again and now finds the task merged
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1", "-m", "b's change", "--key", "r1-finish-b")
    assert code == 0 and body["state"] == "merged", body


def test_a_plain_retry_without_a_key_answers_the_same_task(repo):
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    first = wtc_in_process(repo, "task", "start", "t", "--run", "r1", "--own", "packages/web/**")
    again = wtc_in_process(repo, "task", "start", "t", "--run", "r1", "--own", "packages/web/**")
    assert first[0] == again[0] == 0
    # A start answers the task's state now (tests/core/test_start_again.py), never a stored replay.
    assert again[1]["existing"] is True and again[1]["worktree"] == first[1]["worktree"]


def test_a_callers_key_in_the_derived_namespace_is_bad_input_that_names_the_fix(repo):
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r1", "--own", "packages/web/**", "--key", "auto:r1-start-t")
    assert code == 2 and body["error"]["kind"] == "usage", body
    assert "auto:" in body["error"]["message"] and "auto:" in body["error"]["fix"]
    assert not git(repo, "branch", "--list", "wtc/r1/t"), "nothing was started"
    with Coordinator(repo) as coordinator, pytest.raises(UsageError, match="kept for the keys wtc derives"):
        coordinator.start_run("r2", key="auto:r2-run-start")
