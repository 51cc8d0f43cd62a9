"""`wtc report` and `wtc land` read the run's change once a call.

A report took `changes(pin, tip)` three times (the looks for uses left behind, declarations twice
and files that no longer parse) and read each changed file's versions in each look; `land` made its
report, then every look again for its own checks: about a second of a large run's land. Now one
call takes the change once, its looks share each version read, and land takes the looks of the
manifest it made for the approval while integration's tip is still the one that manifest read.
The answers are the same: land with the manifest refuses and lands as land without one does, and a
manifest of a tip that moved since is looked at anew.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc_in_process
from worktree_coord.gitrepo.repository import GitRepo

FILES = 24


def _module(i: int) -> str:
    nxt = (i + 1) % FILES
    used = f"g{nxt}" if i == 0 else f"f{nxt}"   # nothing at the pin calls f1
    return f"from pkg.m{nxt} import {used}\n\n\ndef f{i}(x):\n    return x + 1\n\n\ndef g{i}(x):\n    return {used}(x)\n"


def _task(repo: Path, name: str, files: dict[str, str], own: list[str]) -> None:
    code, started = wtc_in_process(repo, "task", "start", name, "--run", "r", *[a for g in own for a in ("--own", g)])
    assert code == 0, started
    write(Path(started["worktree"]), files)
    code, finished = wtc_in_process(repo, "task", "finish", name, "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished


def _run(tmp_path: Path) -> Path:
    """A run that changed every module: a task renamed f1, which nothing called, and left a stray
    line in m2.py; then a commit made by hand on the integration branch (a hand resolution) called
    f1 in pkg/user.py: a use the landed tree keeps of a name the run removed."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": ""} | {f"pkg/m{i}.py": _module(i) for i in range(FILES)})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    edits = {f"pkg/m{i}.py": _module(i).replace("x + 1", "x + 2") for i in range(FILES)}
    edits["pkg/m1.py"] = edits["pkg/m1.py"].replace("def f1(", "def first(")
    edits["pkg/m2.py"] += "\nthis line is not python\n"
    _task(repo, "edit", edits, ["pkg/m*.py"])
    by_hand = tmp_path / "by-hand"
    git(repo, "worktree", "add", "-q", str(by_hand), "wtc/r/integration")
    write(by_hand, {"pkg/user.py": "from pkg.m1 import f1\n\nf1(1)\n"})
    git(by_hand, "add", "-A")
    git(by_hand, "commit", "-q", "-m", "a use of f1, by hand")
    git(repo, "worktree", "remove", str(by_hand))
    return repo


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every blob read through GitRepo.read_blob, by id."""
    counted: Counter[str] = Counter()
    read = GitRepo.read_blob

    def counting(self: GitRepo, oid: str) -> bytes:
        counted[oid] += 1
        return read(self, oid)

    monkeypatch.setattr(GitRepo, "read_blob", counting)
    return counted


def _changed_versions(repo: Path) -> set[str]:
    """The blob ids of each changed file's two versions, pin and tip."""
    pin, tip = git(repo, "rev-parse", "main"), git(repo, "rev-parse", "wtc/r/integration")
    versions = set()
    for line in git(repo, "diff", "--raw", "--no-abbrev", pin, tip).splitlines():
        old, new = line.split()[2:4]
        versions |= {old, new} - {"0" * 40}
    return versions


def test_land_reads_each_changed_files_two_versions_once(tmp_path, reads):
    repo = _run(tmp_path)
    versions = _changed_versions(repo)
    assert len(versions) == 2 * FILES + 1
    reads.clear()
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes", "--allow-unparsed", "pkg/m2.py",
                                "--allow-left-behind", "f1")
    assert code == 0, body
    assert [(row["name"], row["use_path"]) for row in body["left_behind"]] == [("f1", "pkg/user.py")]
    assert [row["path"] for row in body["unparsed"]] == ["pkg/m2.py"]
    assert body["manifest"]["left_behind"] == body["left_behind"] and body["manifest"]["unparsed"] == body["unparsed"]
    twice = {oid: n for oid, n in reads.items() if oid in versions and n > 1}
    assert not twice, f"read more than once: {twice}"
    assert versions <= set(reads)


def test_the_report_reads_each_changed_files_two_versions_once(tmp_path, reads):
    repo = _run(tmp_path)
    versions = _changed_versions(repo)
    reads.clear()
    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert code == 0, report
    assert [row["path"] for row in report["unparsed"]] == ["pkg/m2.py"] and report["left_behind"]
    assert not {oid: n for oid, n in reads.items() if oid in versions and n > 1}


def test_land_with_the_manifest_refuses_and_lands_as_land_without_it(tmp_path):
    from worktree_coord.coordinator import Coordinator

    repo = _run(tmp_path)
    git(repo, "branch", "other", "main")
    with Coordinator(repo) as coordinator:
        manifest = coordinator.report("r", onto="main")
        refusals = []
        for given in (manifest, None):
            try:
                coordinator.land("r", "main", approved=True, allow_unparsed=["pkg/m2.py"], manifest=given)
            except Exception as refused:   # noqa: BLE001 - the two refusals are compared whole
                refusals.append((type(refused).__name__, str(refused), refused.fix))
        assert len(refusals) == 2 and refusals[0] == refusals[1], refusals
        assert refusals[0][0] == "ActionRequired" and "f1" in refusals[0][1]
        landed = [coordinator.land("r", onto, approved=True, allow_unparsed=["pkg/m2.py"], allow_left_behind=["f1"],
                                   manifest=given).to_json()
                  for onto, given in (("main", manifest), ("other", None))]
    assert [row["name"] for row in landed[0]["left_behind"]] == ["f1"]
    assert (landed[0]["left_behind"], landed[0]["unparsed"]) == (landed[1]["left_behind"], landed[1]["unparsed"])


def test_a_manifest_of_a_tip_that_moved_since_is_looked_at_anew(tmp_path):
    from worktree_coord.coordinator import Coordinator

    repo = _run(tmp_path)
    with Coordinator(repo) as coordinator:
        manifest = coordinator.report("r", onto="main")
    _task(repo, "late", {"pkg/late.py": "def late(:\n"}, ["pkg/late.py"])   # integration moved: a new stray file
    with Coordinator(repo) as coordinator:
        with pytest.raises(Exception) as refused:
            coordinator.land("r", "main", approved=True, allow_unparsed=["pkg/m2.py"], allow_left_behind=["f1"],
                              manifest=manifest)
    assert type(refused.value).__name__ == "ActionRequired" and "pkg/late.py:1:" in str(refused.value)
