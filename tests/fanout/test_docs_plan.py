"""docs/fanout.md's plans: the plain-script plan runs as written (the page says it was checked here),
and every other plan on the page is one `wtc fanout` accepts (keys, placeholders)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import git, make_repo
from tests.fanout.helpers import fanout
from worktree_coord.fanout.plan import load

PAGE = Path(__file__).resolve().parents[2] / "docs" / "fanout.md"


def toml_blocks() -> list[tuple[str, str]]:
    """Each ```toml block of the page with the paragraph before it."""
    text = PAGE.read_text()
    return [(text[:match.start()].rstrip().rsplit("\n\n", 1)[-1], match.group(1))
            for match in re.finditer(r"```toml\n(.*?)```", text, re.S)]


def test_the_plain_script_plan_runs_as_the_page_writes_it(tmp_path):
    [plan_text] = [block for before, block in toml_blocks() if before.startswith("**A plain script**")]
    assert "checked here" in next(before for before, block in toml_blocks() if block == plan_text)
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    plan = tmp_path / "plan.toml"
    plan.write_text(plan_text)
    code, _, summary = fanout(repo, plan, "docs", log=tmp_path / "log")
    assert code == 0, summary
    assert {t["task"]: t["outcome"] for t in summary["tasks"]} == {"note-a": "merged", "note-b": "merged"}
    assert git(repo, "show", "wtc/docs/integration:notes/note-a/prompt.md") == "Write down note a."
    assert git(repo, "show", "wtc/docs/integration:notes/note-b/prompt.md") == "Write down note b, after a."


def test_every_plan_on_the_page_is_one_fanout_accepts(tmp_path):
    blocks = toml_blocks()
    assert len(blocks) >= 6
    for index, (_, block) in enumerate(blocks):
        text = block if "[[task]]" in block else block + '\n[[task]]\nname = "t"\nprompt = "p"\n'
        path = tmp_path / f"plan{index}.toml"
        path.write_text(text)
        plan = load(path)                       # raises, naming the key, if the page were wrong
        assert plan.tasks and all(plan.command_of(t) for t in plan.tasks)
    agents = {load_first_program(block) for _, block in blocks}
    assert {"codex", "gemini", "aider", "claude", "sh"} <= agents


def load_first_program(block: str) -> str:
    match = re.search(r'command = \["([^"]+)"', block)
    return match.group(1) if match else ""
