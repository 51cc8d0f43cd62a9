"""Issue 41 item 3: a file the project's own tests write into the worktree (a TLS key log named
`test`) was rejected at finish as outside the boundary, with no way out offered. `task check` (before
finish) and the rejected finish now give each such new file its one-line ways out, as commands that
work: delete it, or add it to the repository's exclude list."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import make_repo, wtc_in_process
from tests.forecast.test_forecast_cli import plain, validate


def _run(command: str) -> None:
    subprocess.run(["sh", "-c", command], check=True)


def _fix(command_text: str, which: int) -> str:
    return command_text.split("`")[2 * which + 1]


def test_check_and_finish_offer_to_delete_or_exclude_a_file_the_tests_wrote(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app/a.py": "a = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    for task in ("deletes", "excludes"):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", "app/**")
        assert code == 0, body
        work = Path(body["worktree"])
        (work / "app/a.py").write_text(f"a = '{task}'\n")
        (work / "test").write_text("CLIENT_RANDOM 00 11\n")          # what the suite's TLS key log left
    worktree = {t: Path(wtc_in_process(repo, "task", "start", t, "--run", "r1", "--own", "app/**")[1]["worktree"])
                for t in ("deletes", "excludes")}

    code, check = wtc_in_process(repo, "task", "check", "deletes", "--run", "r1")
    assert code == 3
    validate(check, "task-check.schema.json")
    [row] = check["violations"]
    assert row["path"] == "test" and "delete it: `rm -f -- " in row["fix"] and "info/exclude" in row["fix"]
    assert "way out: test is new and outside the boundary" in plain(repo, "task", "check", "deletes", "--run", "r1").stdout
    _run(_fix(row["fix"], 0))                                         # delete it, as check says
    assert not (worktree["deletes"] / "test").exists()
    code, done = wtc_in_process(repo, "task", "finish", "deletes", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done

    code, rejected = wtc_in_process(repo, "task", "finish", "excludes", "--run", "r1")
    assert code == 3 and rejected["state"] == "rejected"
    [row] = rejected["violations"]
    assert f"git -C {worktree['excludes']} rm -q --cached -- test && printf" in row["fix"], row["fix"]
    text = plain(repo, "task", "finish", "excludes", "--run", "r1").stdout
    assert "way out: test is new and outside the boundary" in text
    _run(_fix(row["fix"], 1))                                         # exclude it, as finish says
    assert (worktree["excludes"] / "test").exists()                  # kept on disk, out of every commit
    assert "/test" in (repo / ".git/info/exclude").read_text().splitlines()
    code, done = wtc_in_process(repo, "task", "finish", "excludes", "--run", "r1")
    assert code in (0, 1) and done["state"] in ("merged", "conflict"), done
    assert "test" not in {c["path"] for c in done["changed"]}


def test_a_file_moved_out_of_the_boundary_is_offered_the_move_back_not_its_deletion(tmp_path: Path) -> None:
    """Found driving wtc on koajs/koa: a task owning lib/only.js moved it to lib/pick.js and changed
    its importer; the rejected finish said to delete lib/pick.js (a stray file "the tests wrote?"),
    which would leave the importer requiring a file that is gone. A move, the same content or one
    edited (git's half-alike rule), is told as the move it is; its way out moves it back."""
    helper = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(8))
    repo = make_repo(tmp_path / "repo", {"app/only.py": helper, "app/edited.py": helper.replace("helper", "tool"),
                                         "app/main.py": "from app.only import helper_1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "mover", "--run", "r1", "--own", "app/**")
    assert code == 0, body
    work = Path(body["worktree"])
    (work / "lib").mkdir(exist_ok=True)
    subprocess.run(["git", "-C", str(work), "mv", "app/only.py", "lib/pick.py"], check=True)
    (work / "lib/tool.py").write_text((work / "app/edited.py").read_text().replace("return x + 3", "return x - 3"))
    (work / "app/edited.py").unlink()
    (work / "app/main.py").write_text("from lib.pick import helper_1\n")

    code, check = wtc_in_process(repo, "task", "check", "mover", "--run", "r1")
    assert code == 3, check
    fixes = {row["path"]: row["fix"] for row in check["violations"]}
    assert "is app/only.py (inside the boundary) moved outside it" in fixes["lib/pick.py"], fixes
    assert "is app/edited.py (inside the boundary) moved outside it" in fixes["lib/tool.py"], fixes
    assert not any("delete it" in fix for fix in fixes.values()), fixes

    code, rejected = wtc_in_process(repo, "task", "finish", "mover", "--run", "r1")
    assert code == 3 and rejected["state"] == "rejected", rejected
    fixes = {row["path"]: row["fix"] for row in rejected["violations"]}
    assert set(fixes) == {"lib/pick.py", "lib/tool.py"}, fixes
    for path in fixes:
        _run(_fix(fixes[path], 0))                                    # move it back, as finish says
    (work / "app/main.py").write_text("from app.only import helper_1\n")   # and the reference with it
    assert (work / "app/only.py").read_text() == helper
    code, done = wtc_in_process(repo, "task", "finish", "mover", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done
    assert {c["path"] for c in done["changed"]} == {"app/edited.py"}   # the edit moved back with its file
