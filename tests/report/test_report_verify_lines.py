"""`wtc report`'s text says the run's verifications once per command, naming the tasks that passed,
and each failure on a line of its own. Found driving `wtc fanout` on psf/black with a `[run] verify`:
the report of 58 merged tasks held 58 `verify` lines, each repeating the 200-character command, the
one failure-free fact buried among them. `--json` keeps a row per task."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, write, wtc_in_process
from worktree_coord.output.render import run_report
from worktree_coord.results import RunReport

CHECK = "test ! -e pkg/BROKEN"


def test_passed_verifications_are_one_line_per_command_and_failures_each_their_own(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/keep.txt": "k\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--verify", CHECK)[0] == 0
    for task in ("alpha", "beta", "gamma", "broken"):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "pkg/**")
        assert code == 0, started
        name = "BROKEN" if task == "broken" else f"{task}.txt"
        write(Path(started["worktree"]), {f"pkg/{name}": f"{task}\n"})
        code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r")
        assert (code, finished["state"]) == ((1, "failed") if task == "broken" else (0, "merged")), finished

    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert {(v["task"], v["ok"]) for v in report["verification"]} == {
        ("alpha", True), ("beta", True), ("gamma", True), ("broken", False)}, report["verification"]
    text = run_report(RunReport.from_json(report))
    verify = [line for line in text.splitlines() if line.startswith("  verify ")]
    assert verify == ["  verify    broken: FAILED `test ! -e pkg/BROKEN`",
                      "  verify    3 tasks ok `test ! -e pkg/BROKEN`: alpha, beta, gamma"], text
