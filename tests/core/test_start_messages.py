"""What `wtc task start`, `task widen` and `plan add` say about the globs they are given (issue 35,
section 2): which task of an exclusive overlap is the exclusive one, a glob that is no glob, and a
glob that matches nothing at the pin."""

from __future__ import annotations

import pytest

from tests.conftest import wtc_in_process


def _run(repo) -> None:
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0


def test_an_exclusive_overlap_says_which_task_is_the_exclusive_one(repo):
    _run(repo)
    assert wtc_in_process(repo, "task", "start", "owner", "--run", "r", "--own", "packages/api/**", "--exclusive")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "guest", "--run", "r", "--own", "packages/api/index.js")
    assert code == 4, body
    message = body["error"]["message"]
    # The refused task asked for nothing exclusive: the existing one holds its globs exclusively.
    assert "task 'guest' would overlap live task(s) owner" in message
    assert "owner holds its globs exclusively (started with --exclusive)" in message
    assert "asks for exclusive" not in message, message
    assert "retry after owner finishes" in body["error"]["fix"]

    assert wtc_in_process(repo, "task", "start", "plain", "--run", "r", "--own", "packages/web/**")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "loner", "--run", "r", "--own", "packages/web/index.js", "--exclusive")
    assert code == 4 and "task 'loner' asks for exclusive ownership (--exclusive)" in body["error"]["message"]
    assert "holds its globs exclusively" not in body["error"]["message"]
    assert "without --exclusive" in body["error"]["fix"]

    code, body = wtc_in_process(repo, "task", "widen", "plain", "--run", "r", "--own", "packages/api/lib.js")
    assert code == 4 and "owner holds its globs exclusively" in body["error"]["message"], body


@pytest.mark.parametrize(("glob", "why"), [
    ("[", "'[' opens a character class that no ']' closes"),
    ("packages/[api", "'[' opens a character class that no ']' closes"),
    ("docs/[z-a].md", "not a glob"),
    ("docs\\", "ends with a lone '\\'"),
    ("#notes.md", "'#' at its start makes it a comment"),
    ("--json", "looks like an option, not a path: was the glob left out before --json?"),
    ("-C", "looks like an option"),
    ("--run=r", "was the glob left out before --run?"),
])
def test_a_malformed_glob_is_refused_at_start_widen_and_plan_add(repo, glob, why):
    _run(repo)
    code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", glob)
    assert code == 2 and f"invalid --own glob {glob!r}" in body["error"]["message"], body
    assert why in body["error"]["message"], body["error"]["message"]
    assert wtc_in_process(repo, "status", "--run", "r")[1]["tasks"] == [], "nothing started"
    assert wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "docs/**")[0] == 0
    code, body = wtc_in_process(repo, "task", "widen", "t", "--run", "r", "--read", glob)
    assert code == 2 and f"invalid --read glob {glob!r}" in body["error"]["message"]
    code, body = wtc_in_process(repo, "plan", "add", "api-*", "--own", glob)
    assert code == 2 and why in body["error"]["message"]


def test_a_glob_that_matches_nothing_at_the_pin_is_accepted_with_a_note(repo):
    _run(repo)
    code, body = wtc_in_process(repo, "task", "start", "typo", "--run", "r", "--own", "pakages/api/**", "--own", "packages/web/**")
    assert code == 0, body
    assert [n for n in body["notes"] if "matches no file" in n] == [
        f"--own 'pakages/api/**' matches no file at the pin ({body['base'][:12]}): fine for files the task "
        "creates; if it was meant to name existing files, check its spelling (wtc task widen adds a glob)"]
    code, body = wtc_in_process(repo, "task", "start", "new", "--run", "r", "--own", "packages/new/**", "--own", "*.md")
    assert code == 0 and [n for n in body["notes"] if "matches no file" in n and "packages/new" in n]
    assert not [n for n in body["notes"] if "'*.md'" in n], "README.md matches *.md"
    code, body = wtc_in_process(repo, "task", "widen", "new", "--run", "r", "--own", "packages/newer/**", "--own", "docs/**")
    assert code == 0 and [n for n in body["notes"] if "matches no file" in n] == [
        f"--own 'packages/newer/**' matches no file at the pin ({body_base(repo)}): fine for files the task "
        "creates; if it was meant to name existing files, check its spelling (wtc task widen adds a glob)"]


def body_base(repo) -> str:
    return wtc_in_process(repo, "status", "--run", "r")[1]["runs"][0]["base"][:12]
