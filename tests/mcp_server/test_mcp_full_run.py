"""A whole run through MCP tools alone, over stdio and over streamable HTTP, with the SDK's own client
against a real `wtc mcp` process: start, 16 tasks finished by 16 concurrent client sessions, a
conflict resolved through task_update, an intent consolidated offline, the report, and land approved
through elicitation."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import git
from tests.lead.helpers import lead_repo, tool_env, wheel
from tests.mcp_server.helpers import ASKED, accept, call, http_server, http_session, stdio_session

pytestmark = [pytest.mark.slow, pytest.mark.heavy]   # heavy: 16 client sessions at once
SESSIONS = 16


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_whole_run_through_tools_alone(tmp_path, transport):
    env = tool_env(tmp_path)
    for name, version in (("shared", "1.0"), ("extra", "1.0")):
        wheel(tmp_path / "wheels", name, version)
    repo = lead_repo(tmp_path, env)
    main_before = git(repo, "rev-parse", "main")

    with contextlib.ExitStack() as stack:
        if transport == "http":
            server = stack.enter_context(http_server(repo, env=env))

        def session(**kwargs: Any):
            if transport == "http":
                return http_session(server.url, **kwargs)
            return stdio_session(repo, env=env, **kwargs)

        anyio.run(_whole_run, repo, session, main_before)


async def _whole_run(repo: Path, session: Any, main_before: str) -> None:
    async with session(elicitation=accept) as lead:
        started = await call(lead, "run_start", {"run": "r"})
        assert started["schema"] == "wtc.run.start/1" and started["integration"] == "wtc/r/integration"

        # -- 16 agents, each in its own client session, at once -------------------------------------
        finished: dict[str, dict] = {}

        async def agent(number: int) -> None:
            task = f"t{number:02d}"
            async with session() as mine:
                body = await call(mine, "task_start", {"run": "r", "task": task, "own": [f"app/{task}.py"]})
                worktree = Path(body["worktree"])
                (worktree / f"app/{task}.py").write_text(f"NAME = {task!r}\n")
                if number == 0:   # a reserved file: becomes an intent, never merged as a file
                    edit(worktree / "pyproject.toml", "dependencies = []", 'dependencies = ["shared>=1"]')
                finished[task] = await call(mine, "task_finish", {"run": "r", "task": task,
                                                                  "message": f"{task}: add module"})

        async with anyio.create_task_group() as group:
            for number in range(SESSIONS):
                group.start_soon(agent, number)
        assert {task: body["state"] for task, body in finished.items()} == \
            {f"t{n:02d}": "merged" for n in range(SESSIONS)}
        assert finished["t00"]["intents"] and finished["t00"]["intents"][0]["name"] == "shared"
        merges = git(repo, "log", "--first-parent", "--format=%s", "wtc/r/integration").splitlines()
        assert sum(1 for line in merges if line.startswith("wtc: merge task t")) == SESSIONS

        # -- two tasks change one line: b's conflict comes back whole, and is resolved in place -----
        worktrees = {}
        for task in ("a", "b"):
            body = await call(lead, "task_start", {"run": "r", "task": task, "own": ["app/core.py"]})
            worktrees[task] = Path(body["worktree"])
        edit(worktrees["a"] / "app/core.py", "return 2", "return 20  # from a")
        edit(worktrees["b"] / "app/core.py", "return 2", "return 200  # from b")
        assert (await call(lead, "task_finish", {"run": "r", "task": "a"}))["state"] == "merged"
        conflict = await call(lead, "task_finish", {"run": "r", "task": "b"})
        assert conflict["exit_code"] == 1 and conflict["state"] == "conflict"
        report = conflict["conflicts"][0]
        assert report["path"] == "app/core.py" and report["declaration"] and report["start_line"]
        assert "from a" in report["theirs"] + report["ours"] and "from b" in report["theirs"] + report["ours"]
        assert "return 2" in report["base"]
        resource = await lead.read_resource("wtc://runs/r/tasks/b/conflicts")
        import json

        conflicts = json.loads(resource.contents[0].text)
        assert conflicts["schema"] == "wtc.task.conflicts/1" and conflicts["state"] == "conflict"
        assert conflicts["conflicts"][0]["ours"] == report["ours"]
        updated = await call(lead, "task_update", {"run": "r", "task": "b"})
        assert updated["conflicted_paths"] == ["app/core.py"]
        worktree_b = Path(updated["worktree"])
        marked = (worktree_b / "app/core.py").read_text()
        (worktree_b / "app/core.py").write_text(marked.split("<<<<<<<")[0] + "    return 20  # from a, kept by b\n"
                                                + marked.split(">>>>>>> integration r\n", 1)[1])
        assert (await call(lead, "task_finish", {"run": "r", "task": "b"}))["state"] == "merged"
        assert "kept by b" in git(repo, "show", "wtc/r/integration:app/core.py")

        # -- an intent declared by tool, then consolidation with progress ---------------------------
        declared = await call(lead, "intent_add", {"run": "r", "task": "t01", "manifest": "pyproject.toml",
                                                   "op": "add_dep", "name": "extra", "spec": ">=1",
                                                   "why": "t01 imports extra"})
        assert declared["intent"]["state"] == "declared"
        progress: list[tuple[float, float | None, str | None]] = []

        async def heard(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        consolidated = await call(lead, "consolidate", {"run": "r"}, progress_callback=heard)
        assert consolidated["exit_code"] == 0, consolidated
        assert [root["state"] for root in consolidated["roots"]] == ["applied"]
        assert progress and all(b[0] > a[0] for a, b in zip(progress, progress[1:])), progress
        assert progress[-1][0] == progress[-1][1], "the last step reports the whole"
        pyproject = git(repo, "show", "wtc/r/integration:pyproject.toml")
        assert "shared>=1" in pyproject and "extra>=1" in pyproject

        # -- the report, as a tool and as a resource -----------------------------------------------
        manifest = await call(lead, "report", {"run": "r", "onto": "main"})
        assert manifest["leftovers"] == {"intents": {}, "tasks": {}}
        origins = {item["path"]: item["origin"] for item in manifest["files"]}
        assert origins["app/core.py"] == "task a, task b" and origins["app/t05.py"] == "task t05"
        assert origins["uv.lock"] == "consolidation uv root . for tasks t00, t01", origins
        read = await lead.read_resource("wtc://runs/r/report")
        assert json.loads(read.contents[0].text)["tip"] == manifest["tip"]

        # -- land: the person is shown the manifest and approves -----------------------------------
        asked_before = len(ASKED)
        landed = await call(lead, "land", {"run": "r", "onto": "main"})
        assert landed["exit_code"] == 0 and landed["new"] == manifest["tip"] and landed["old"] == main_before
        question = ASKED[asked_before]
        assert f"Fast-forward main to {manifest['tip'][:12]}" in question and "app/core.py" in question
        assert git(repo, "rev-parse", "main") == manifest["tip"]
        status = await call(lead, "task_status", {"run": "r"})
        assert status["runs"][0]["state"] == "landed" and status["counts"] == {"merged": SESSIONS + 2}
