"""`wtc check` without --target checks against the branch a user means: the branch's upstream when it
tracks another branch, else the default branch, with the local one taken when origin's is behind the
branch's base (commits on local main not pushed yet, which the branch started from); the output
says which target was picked and why. Before, origin/main was taken whatever: the branch then read
as carrying every unpushed commit of main as its own. Real repositories, the real `wtc`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import commit, git, make_repo, wtc

OWN = ("--own", "**")     # the boundary: everything (the target is what these tests are about)


def _clone_with_unpushed_main(tmp_path: Path) -> Path:
    made = make_repo(tmp_path / "made", {"app.py": "a = 1\n", "lib.py": "b = 1\n"})
    git(tmp_path, "clone", "-q", "--bare", str(made), str(tmp_path / "origin.git"))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(clone))
    git(clone, "config", "user.name", "t")
    git(clone, "config", "user.email", "t@example.com")
    commit(clone, {"lib.py": "b = 2\n"}, "main moves, not pushed yet")
    git(clone, "checkout", "-q", "-b", "feature", "main")
    commit(clone, {"app.py": "a = 2\n"}, "the branch's own change")
    return clone


def _text(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=cwd, env=dict(os.environ),
                          capture_output=True, text=True, timeout=300)


def test_origin_behind_the_branchs_base_picks_the_local_default_branch_and_says_so(tmp_path: Path) -> None:
    clone = _clone_with_unpushed_main(tmp_path)
    code, body = wtc(clone, "check", *OWN)
    assert code == 0, body
    assert body["merge"]["target"] == "main", body["merge"]
    assert [c["path"] for c in body["changed"]] == ["app.py"], "only the branch's own change, not main's unpushed one"
    assert "origin/main" in body["merge"]["target_picked"], body["merge"]
    done = _text(clone, "check", *OWN)
    assert done.returncode == 0, done
    assert "target main:" in done.stdout and "origin/main" in done.stdout and "--target" in done.stdout, done.stdout
    assert "1 changed file," in done.stdout, done.stdout
    # Asked for by name, origin/main is what is checked, as given.
    code, body = wtc(clone, "check", *OWN, "--target", "origin/main")
    assert body["merge"]["target"] == "origin/main" and "target_picked" not in body["merge"]
    assert sorted(c["path"] for c in body["changed"]) == ["app.py", "lib.py"]


def test_a_branch_tracking_another_branch_is_checked_against_it(tmp_path: Path) -> None:
    clone = _clone_with_unpushed_main(tmp_path)
    git(clone, "checkout", "-q", "main")
    git(clone, "checkout", "-q", "-b", "develop")
    commit(clone, {"lib.py": "b = 3\n"}, "develop moves")
    git(clone, "checkout", "-q", "--track", "-b", "topic", "develop")
    commit(clone, {"app.py": "a = 3\n"}, "topic's change")
    code, body = wtc(clone, "check", *OWN)
    assert code == 0, body
    assert body["merge"]["target"] == "develop", body["merge"]
    assert "upstream" in body["merge"]["target_picked"], body["merge"]
    assert [c["path"] for c in body["changed"]] == ["app.py"]


def test_the_default_branch_itself_and_an_up_to_date_origin_are_checked_as_before(tmp_path: Path) -> None:
    clone = _clone_with_unpushed_main(tmp_path)
    git(clone, "checkout", "-q", "main")         # main itself: its unpushed commits against origin's
    code, body = wtc(clone, "check", *OWN)
    assert body["merge"]["target"] == "origin/main" and "target_picked" not in body["merge"], body["merge"]
    assert [c["path"] for c in body["changed"]] == ["lib.py"]
    git(clone, "push", "-q", "origin", "main")    # origin up to date: the branch is checked against it
    git(clone, "fetch", "-q", "origin")
    git(clone, "checkout", "-q", "feature")
    code, body = wtc(clone, "check", *OWN)
    assert body["merge"]["target"] == "origin/main" and "target_picked" not in body["merge"], body["merge"]
    assert [c["path"] for c in body["changed"]] == ["app.py"]


def test_a_branch_tracking_origins_default_branch_is_checked_as_before(tmp_path: Path) -> None:
    """`git checkout -b topic origin/main` tracks origin/main: the default target, said as before."""
    clone = _clone_with_unpushed_main(tmp_path)
    git(clone, "checkout", "-q", "-b", "topic", "origin/main")
    commit(clone, {"app.py": "a = 4\n"}, "topic's change")
    done = _text(clone, "check", *OWN)
    assert done.returncode == 0 and "target " not in done.stdout.split("dry-run merge")[0], done.stdout
    assert "dry-run merge into origin/main" in done.stdout, done.stdout
