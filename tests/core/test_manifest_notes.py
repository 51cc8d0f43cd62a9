"""A task that leaves a member manifest consolidation cannot read strictly is told so at finish.

An owned member package.json merges as code, and a JSON object with a key twice still parses, so the
task merged without a word; its root's relock then failed at `wtc consolidate` ("has the key
'sideEffects' twice in one object"), after the task was gone (found driving wtc on pinia). A note,
as for a file the grammar cannot parse: the merge goes on, the agent or the lead fixes the file.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, make_repo, wtc_in_process

MEMBER = '{\n  "name": "a",\n  "version": "1.0.0",\n  "sideEffects": false\n}\n'


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}) + "\n",
        "package-lock.json": json.dumps({"name": "root", "lockfileVersion": 3, "requires": True,
                                         "packages": {"": {"name": "root", "workspaces": ["packages/*"]}}}) + "\n",
        "packages/a/package.json": MEMBER,
        "packages/b/package.json": '{"name": "b", "version": "1.0.0"}\n',
        "packages/b/Cargo.toml": '[package]\nname = "b"\n',
    })


def test_a_member_manifest_with_a_key_twice_is_named_at_finish_and_still_merges(tmp_path):
    repo = _repo(tmp_path)
    assert wtc_in_process(repo, "run", "start", "-r", "r1")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/**")
    assert code == 0
    worktree = Path(started["worktree"])
    (worktree / "packages/a/package.json").write_text(MEMBER.replace('"version": "1.0.0",\n',
                                                                     '"version": "1.0.0",\n  "sideEffects": true,\n'))
    (worktree / "packages/b/package.json").write_text('{"name": "b", "version": "1.1.0"}\n')   # reads well
    (worktree / "packages/b/Cargo.toml").write_text('[package]\nname = "b"\nname = "c"\n')
    code, finished = wtc_in_process(repo, "task", "finish", "t1", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    named = [note for note in finished["notes"] if "consolidation reads it strictly" in note]
    assert [note.split(": ", 1)[0] for note in named] == ["packages/a/package.json", "packages/b/Cargo.toml"], named
    assert named[0] == ("packages/a/package.json: packages/a/package.json has the key 'sideEffects' twice in one "
                        "object; refusing to guess which one wins: consolidation reads it strictly and will refuse "
                        "its root as it is: fix it (before this task merges, in its worktree; after, in a task "
                        "that owns the file)")
    assert '"sideEffects": true' in git(repo, "show", "wtc/r1/integration:packages/a/package.json")


def test_a_manifest_that_did_not_read_before_the_task_gets_no_note(tmp_path):
    repo = _repo(tmp_path)
    (repo / "packages/a/package.json").write_text(MEMBER.replace("}\n", '  "sideEffects": true\n}\n')
                                                  .replace("false\n", "false,\n"))
    git(repo, "commit", "-qam", "a key twice already")
    assert wtc_in_process(repo, "run", "start", "-r", "r1")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/**")
    worktree = Path(started["worktree"])
    text = (worktree / "packages/a/package.json").read_text()
    (worktree / "packages/a/package.json").write_text(text.replace('"version": "1.0.0"', '"version": "1.0.1"'))
    code, finished = wtc_in_process(repo, "task", "finish", "t1", "--run", "r1")
    assert code == 0 and not [n for n in finished["notes"] if "consolidation reads it strictly" in n], finished
