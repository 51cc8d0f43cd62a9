"""Issue 41 item 3: a task that declared an intent with `intent add` sees it, with its state, in
`task check` (before: not mentioned) and in `task finish --json` (its `intents`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, wtc
from tests.forecast.test_forecast_cli import plain, validate

PYPROJECT = '[project]\nname = "x"\nversion = "0"\ndependencies = ["httpcore>=1.0"]\n'


def test_check_and_finish_list_the_declared_intents_with_their_states(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT, "app/a.py": "a = 1\n"})
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, started = wtc(repo, "task", "start", "t1", "--run", "r1", "--own", "app/**")
    assert code == 0
    code, _ = wtc(repo, "intent", "add", "t1", "--run", "r1", "--manifest", "pyproject.toml", "--op", "set_spec",
                  "--name", "httpcore", "--spec", ">=1.0.9,==1.*")
    assert code == 0
    (Path(started["worktree"]) / "app/a.py").write_text("a = 2\n")
    code, body = wtc(repo, "task", "check", "t1", "--run", "r1")
    assert code == 0, body
    validate(body, "task-check.schema.json")
    assert [(i["op"], i["name"], i["spec"], i["state"]) for i in body["intents"]] == [
        ("set_spec", "httpcore", ">=1.0.9,==1.*", "declared")]
    text = plain(repo, "task", "check", "t1", "--run", "r1").stdout
    assert "intent set_spec httpcore >=1.0.9,==1.* in pyproject.toml: declared (applies at consolidation" in text
    code, done = wtc(repo, "task", "finish", "t1", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done
    assert [(i["name"], i["spec"], i["state"]) for i in done["intents"]] == [("httpcore", ">=1.0.9,==1.*", "declared")]
