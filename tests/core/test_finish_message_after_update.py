"""A finish without `-m` after `task update` keeps the task's own words.

Found driving wtc on spf13/cobra: two tasks changed one line of `args.go`; the second finished with
`-m "NoArgs: name the command first"`, conflicted, took integration in with `task update`, resolved
the markers and finished again as the note says (`wtc task finish`, no `-m`). Its resolution was
committed as "wtc: line-b": the history of integration named the task, not what it did. The finish
now takes the newest message the task's own line holds that wtc did not write (the first finish's
`-m`, or the agent's own commit); a task that never gave one keeps `wtc: TASK`.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import git, make_repo, write
from worktree_coord.coordinator import Coordinator

FILES = {"args.go": 'package cobra\n\nfunc NoArgs() string {\n\treturn "unknown command"\n}\n'}


def _resolve(tree: Path, line: str) -> None:
    text = (tree / "args.go").read_text()
    write(tree, {"args.go": re.sub(r"<<<<<<< task \S+\n.*?>>>>>>> integration r\n", line, text, flags=re.S)})


def _conflicting_second(coord: Coordinator, message: str | None, *, own_commit: str | None = None) -> Path:
    coord.start_run("r")
    first = Path(coord.start_task("r", "a", ["/args.go"]).worktree)
    second = Path(coord.start_task("r", "b", ["/args.go"]).worktree)
    write(first, {"args.go": FILES["args.go"].replace("unknown command", "unknown command (no arguments)")})
    write(second, {"args.go": FILES["args.go"].replace("unknown command", "the command takes no arguments")})
    if own_commit:
        git(second, "commit", "-q", "-am", own_commit)
    assert coord.finish_task("r", "a", message="say no arguments are accepted").state == "merged"
    assert coord.finish_task("r", "b", message=message).state == "conflict"
    assert coord.update_task("r", "b").conflicted_paths == ["args.go"]
    _resolve(second, '\treturn "the command takes no arguments (none)"\n')
    return second


def test_a_finish_again_without_a_message_commits_under_the_first_finishs_message(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coord:
        _conflicting_second(coord, "NoArgs: name the command first")
        done = coord.finish_task("r", "b")
    assert done.state == "merged"
    assert git(repo, "log", "-1", "--format=%B", "wtc/r/b").strip() == "NoArgs: name the command first"
    messages = git(repo, "log", "--format=%s", "wtc/r/integration").splitlines()
    assert not any(m == "wtc: b" for m in messages), messages


def test_the_agents_own_commit_message_is_kept_and_a_task_that_never_gave_one_keeps_wtc_task(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coord:
        _conflicting_second(coord, None, own_commit="NoArgs: reword the refusal")
        assert coord.finish_task("r", "b").state == "merged"
        assert git(repo, "log", "-1", "--format=%B", "wtc/r/b").strip() == "NoArgs: reword the refusal"
    plain = make_repo(tmp_path / "plain", FILES)
    with Coordinator(plain) as coord:
        _conflicting_second(coord, None)
        assert coord.finish_task("r", "b").state == "merged"
        assert git(plain, "log", "-1", "--format=%s", "wtc/r/b") == "wtc: b"
