"""`wtc report` names each intent of the run (task, file, what it changes, its state and why), in
text and in --json: it gave the consolidation's counts by state ({"applied": 2, "conflict": 2}),
which told a reviewer neither which task's change landed nor which one waits, nor why.
A real repository with a requirements.txt kept by hand (edited, never compiled: no network)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, write, wtc_in_process
from worktree_coord.output.render import run_report
from worktree_coord.results import RunReport

REQUIREMENTS = "-e .[cli]\n\n# Tests\npytest==8.3.5\n"


def test_report_lists_each_intent_with_its_state_and_why(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"requirements.txt": REQUIREMENTS, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    for task, text in (("httpx", REQUIREMENTS + "httpx==0.28.1\n"),
                       ("pin-new", REQUIREMENTS.replace("8.3.5", "8.4.1")),
                       ("pin-old", REQUIREMENTS.replace("8.3.5", "8.3.4"))):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "src/**")
        write(Path(started["worktree"]), {"requirements.txt": text})
        assert wtc_in_process(repo, "task", "finish", task, "--run", "r")[1]["state"] == "merged"
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 1, consolidated          # the two pins of pytest conflict; httpx applies

    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert code == 0, report
    rows = {row["task"]: row for row in report["intents"]}
    assert set(rows) == {"httpx", "pin-new", "pin-old"}, report["intents"]
    applied = rows["httpx"]
    assert (applied["state"], applied["manifest"], applied["why"]) == ("applied", "requirements.txt", None)
    assert applied["what"] == "add_dep httpx ==0.28.1" and applied["commit"], applied
    for task, spec in (("pin-new", "==8.4.1"), ("pin-old", "==8.3.4")):
        row = rows[task]
        assert row["state"] == "conflict" and row["what"] == f"set_spec pytest {spec}" and row["commit"] is None, row
        assert row["why"] and "pytest" in row["why"], row

    text = run_report(RunReport.from_json(report))
    assert (f"  intent    applied       add_dep httpx ==0.28.1 in requirements.txt (task httpx) at "
            f"{applied['commit'][:12]}") in text.splitlines(), text
    [pin_new] = [line for line in text.splitlines() if "(task pin-new)" in line]
    assert pin_new.startswith("  intent    conflict      set_spec pytest ==8.4.1 in requirements.txt (task pin-new): "), text
    from worktree_coord.cli.html_report import render_html

    page = render_html(RunReport.from_json(report))
    assert "<li class=ok>applied: add_dep httpx ==0.28.1 in <code>requirements.txt</code> (task httpx) at" in page
    assert "<li class=warn>conflict: set_spec pytest ==8.4.1 in <code>requirements.txt</code> (task pin-new)" in page
