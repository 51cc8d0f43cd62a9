"""A workflow that resumes re-runs agents: each re-run agent finds its own earlier work (issue 42).

Claude Code's workflows resume in start order: stopping a run while agent B still works re-runs B
and every agent started after it, although they had finished. Each re-run asks for a worktree again
under the same name in the same session. It used to get a new task at the pin, without the work its
first run merged, and redid it beside the first (a conflict, or the same work twice). Now a finished
agent's new worktree holds the integration tip (its own merged work in it) with one line saying so,
and writing the same work again merges as nothing; a live agent gets its own task and worktree
back, uncommitted work included.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, make_repo
from tests.hooks.hook_helpers import create_payload, remove_payload, run_hook

SESSION = "S9"
AGENTS = ["agent-a", "agent-b", "agent-c", "agent-d", "agent-e", "agent-f"]
FILES = {"pkg/base.go": "package pkg\n\nfunc Base() int {\n\treturn 1\n}\n", "README.md": "# r\n"}


def _new_file(agent: str) -> tuple[str, str]:
    name = agent.replace("-", "_")
    return f"pkg/{name}.go", f"package pkg\n\nfunc {name.title().replace('_', '')}() string {{\n\treturn \"{name}\"\n}}\n"


def _create(repo: Path, agent: str):
    return run_hook("WorktreeCreate", create_payload("workflow", agent, session=SESSION, cwd=repo),
                    cwd=repo, project=repo)


def _remove(repo: Path, worktree: Path):
    return run_hook("WorktreeRemove", remove_payload(worktree, session=SESSION), cwd=worktree, project=repo)


def test_a_resumed_session_re_runs_six_agents_and_each_one_s_work_lands_exactly_once(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    first: dict[str, Path] = {}
    for agent in AGENTS:                       # six agents of one session, in start order
        created = _create(repo, agent)
        assert created.returncode == 0, created.stderr
        first[agent] = created.path
        rel, text = _new_file(agent)
        (created.path / rel).write_text(text)
    for agent in AGENTS[:4]:                   # four hand back (merged); two are cut off mid-work
        removed = _remove(repo, first[agent])
        assert removed.returncode == 0 and not first[agent].exists(), removed.stderr
    integration = f"wtc/{first['agent-a'].parent.name}/integration"
    tip = git(repo, "rev-parse", integration)

    again: dict[str, Path] = {}
    said: dict[str, str] = {}
    for agent in AGENTS:                       # the session resumes: all six again, in start order
        created = _create(repo, agent)
        assert created.returncode == 0, created.stderr
        again[agent], said[agent] = created.path, created.stderr
    for agent in AGENTS[:4]:                   # finished ones: their work is in place, and they are told
        rel, text = _new_file(agent)
        assert (again[agent] / rel).read_text() == text, agent
        manifest = json.loads((again[agent] / ".wtc/task.json").read_text())
        assert manifest["earlier"].startswith("this agent ran before in this session"), manifest
        assert "continue from it, do not redo it" in manifest["earlier"] and rel in manifest["earlier"]
        assert manifest["earlier"] in said[agent]                     # and the hook's stderr says it
    created = _create(repo, "agent-a")         # (a retried hook of a re-run agent: the same worktree)
    assert created.path == again["agent-a"] and "this agent ran before in this session" in created.stderr
    for agent in AGENTS[4:]:                   # live ones: their own worktree, uncommitted work kept
        assert again[agent] == first[agent]
        rel, text = _new_file(agent)
        assert (again[agent] / rel).read_text() == text
    for agent in AGENTS[:4]:                   # the re-run writes the same work again: nothing new lands
        rel, text = _new_file(agent)
        (again[agent] / rel).write_text(text)
        removed = _remove(repo, again[agent])
        assert removed.returncode == 0, removed.stderr
    assert git(repo, "rev-parse", integration) == tip
    for agent in AGENTS[4:]:
        assert _remove(repo, again[agent]).returncode == 0
    landed = git(repo, "ls-tree", "-r", "--name-only", integration).splitlines()
    for agent in AGENTS:
        rel, text = _new_file(agent)
        assert landed.count(rel) == 1 and git(repo, "show", f"{integration}:{rel}") == text.rstrip("\n")
    # each agent's file was added by exactly one merge on integration's first-parent line
    adds = git(repo, "log", "--first-parent", "--diff-filter=A", "--name-only", "--format=", f"main..{integration}").split()
    assert sorted(adds) == sorted(_new_file(agent)[0] for agent in AGENTS)


def test_a_re_run_agent_that_changes_its_work_further_merges_an_ordinary_edit_on_top(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    created = _create(repo, "agent-a")
    rel, text = _new_file("agent-a")
    (created.path / rel).write_text(text)
    assert _remove(repo, created.path).returncode == 0
    again = _create(repo, "agent-a")
    assert (again.path / rel).read_text() == text
    (again.path / rel).write_text(text.replace('"agent_a"', '"agent_a, better"'))
    removed = _remove(repo, again.path)
    assert removed.returncode == 0, removed.stderr
    run = again.path.parent.name
    assert "agent_a, better" in git(repo, "show", f"wtc/{run}/integration:{rel}")


def test_a_re_run_agent_whose_task_conflicted_gets_its_work_and_the_finding_back(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    one, two = _create(repo, "one"), _create(repo, "two")
    (one.path / "pkg/base.go").write_text(FILES["pkg/base.go"].replace("return 1", "return 10"))
    (two.path / "pkg/base.go").write_text(FILES["pkg/base.go"].replace("return 1", "return 20"))
    assert _remove(repo, one.path).returncode == 0
    assert _remove(repo, two.path).returncode == 0          # conflict: its work kept on its branch
    again = _create(repo, "two")
    assert again.returncode == 0, again.stderr
    assert again.path == two.path and "return 20" in (again.path / "pkg/base.go").read_text()
    assert "its last finish conflicted with the integration branch in pkg/base.go" in again.stderr
