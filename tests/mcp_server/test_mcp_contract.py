"""The MCP server's contract, with the SDK's own client against a real `wtc mcp` process: the tool
list and its schemas, idempotency under concurrency, errors an agent can act on, resources,
progress, land behind elicitation (both protocol eras), and the bearer token over HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import jsonschema
import mcp_types as types
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import git, write
from tests.mcp_server.helpers import (ASKED, WRITE_TOOLS, accept, call, check_result, decline, http_server,
                                      http_session, list_tools, server_command, stdio_session)

TOOLS = {"run_start", "task_start", "task_finish", "task_update", "task_abandon", "task_widen", "task_status", "merge",
         "consolidate", "intent_add", "intent_list", "intent_retry", "intent_drop", "check", "report", "sync",
         "merge_file", "land", "plan_add", "plan_list", "task_check", "forecast"}
KEYLESS_WRITES = {"plan_add"}   # idempotent by content: the same rule added again is returned as it is


def merges_of(repo: Path, task: str, run: str = "r") -> int:
    """How many merge commits of `task` the integration branch's first-parent line holds."""
    subjects = git(repo, "log", "--first-parent", "--format=%s", f"wtc/{run}/integration").splitlines()
    return sum(1 for line in subjects if line.startswith(f"wtc: merge task {task} into run "))


async def start_edit(session, task: str, path: str, text: str, run: str = "r") -> Path:
    body = await call(session, "task_start", {"run": run, "task": task, "own": [path]})
    worktree = Path(body["worktree"])
    write(worktree, {path: text})
    return worktree


# ---- the tool list -----------------------------------------------------------------------------------

async def _check_tool_list(session) -> None:
    tools = {tool.name: tool for tool in await list_tools(session)}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.output_schema["properties"]["schema"]["const"].startswith("wtc."), name
        assert len(tool.description) > 80 and "exit_code" in tool.description, name
        for prop, shape in tool.input_schema["properties"].items():
            assert shape.get("description"), f"{name}.{prop} has no description an agent can act on"
        writes = name in WRITE_TOOLS | KEYLESS_WRITES
        keyed = writes and name not in KEYLESS_WRITES
        assert ("idempotency_key" in tool.input_schema["properties"]) == keyed, name
        assert tool.annotations.read_only_hint is (not writes), name
        assert writes is ("Safe to retry" in tool.description), name
        if keyed:
            key = tool.input_schema["properties"]["idempotency_key"]["description"]
            assert "safe" in key and "first call's stored result" in key and "default key" in key
            assert "Safe to retry" in tool.description
    templates = {t.uri_template for t in (await session.list_resource_templates()).resource_templates}
    assert templates == {"wtc://runs/{run}/status", "wtc://runs/{run}/report", "wtc://runs/{run}/tasks/{task}/conflicts"}


def test_tools_and_schemas_over_stdio_and_http(repo):
    async def over_stdio() -> None:
        async with stdio_session(repo) as session:
            await _check_tool_list(session)

    anyio.run(over_stdio)
    with http_server(repo) as server:
        async def over_http() -> None:
            async with http_session(server.url) as session:
                await _check_tool_list(session)

        anyio.run(over_http)


# ---- idempotency under concurrency --------------------------------------------------------------------

@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_one_key_sent_eight_times_at_once_gives_one_commit_and_other_arguments_are_refused(repo, transport):
    # Over HTTP: eight client sessions of one server. Over stdio: eight concurrent calls in the one
    # session a stdio server has.
    with contextlib.ExitStack() as stack:
        if transport == "http":
            server = stack.enter_context(http_server(repo))
            session = lambda: http_session(server.url)  # noqa: E731
        else:
            session = None
        anyio.run(_one_key_eight_times, repo, session)


async def _one_key_eight_times(repo: Path, session) -> None:
    async with (session() if session else stdio_session(repo)) as lead:
        await call(lead, "run_start", {"run": "r"})
        await start_edit(lead, "api", "packages/api/index.js", "export const api = 8;\n")
        results: list[dict] = []

        async def finish() -> None:
            arguments = {"run": "r", "task": "api", "idempotency_key": "k-api"}
            if session is None:
                results.append(await call(lead, "task_finish", arguments))
                return
            async with session() as mine:
                results.append(await call(mine, "task_finish", arguments))

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(finish)
        assert len(results) == 8 and {r["state"] for r in results} == {"merged"}
        assert len({r["commit"] for r in results}) == 1
        assert sorted(r["replayed"] for r in results) == [False] + [True] * 7
        assert merges_of(repo, "api") == 1
        other = await call(lead, "task_finish", {"run": "r", "task": "api", "message": "other",
                                                 "idempotency_key": "k-api"})
        assert other["exit_code"] == 2 and other["error"]["kind"] == "idempotency_mismatch"
        assert "message" in other["error"]["message"] and other["error"]["fix"]
        assert merges_of(repo, "api") == 1


def test_calls_on_one_task_with_different_keys_serialize_on_its_lease(repo):
    # One server process, eight calls: each call is its own lease owner, so they take turns on the
    # task as eight processes would (a lease is re-entrant for its owner; a shared owner would not wait).
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            await start_edit(session, "web", "packages/web/index.js", "export const web = 8;\n")
            results: list[dict] = []

            async def finish(number: int) -> None:
                results.append(await call(session, "task_finish", {"run": "r", "task": "web",
                                                                   "idempotency_key": f"k{number}"}))

            async with anyio.create_task_group() as group:
                for number in range(8):
                    group.start_soon(finish, number)
            assert {r["schema"] for r in results} == {"wtc.task.finish/1"}, results
            assert {r["state"] for r in results} == {"merged"} and len({r["commit"] for r in results}) == 1
            assert merges_of(repo, "web") == 1
            assert git(repo, "log", "--format=%s", "wtc/r/web").count("\n") == 1, "one task commit on its branch"

    anyio.run(scenario)


# ---- errors an agent can act on -------------------------------------------------------------------------

def test_errors_carry_their_class_message_and_fix(repo):
    from worktree_coord.store import SQLiteStore, leases

    write(repo, {".wtc.toml": "wait-timeout = 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "short waits")

    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            missing = await call(session, "task_finish", {"run": "r", "task": "ghost"})
            assert (missing["exit_code"], missing["error"]["kind"]) == (5, "not_found")
            assert "wtc task start ghost" in missing["error"]["fix"]
            bad = await call(session, "task_start", {"run": "r", "task": "-bad", "own": ["x/**"]})
            assert (bad["exit_code"], bad["error"]["kind"]) == (2, "usage") and bad["error"]["fix"]
            raw = await session.call_tool("task_start", {"task": "x"})   # no run: the SDK's schema check
            assert raw.is_error and "run" in raw.content[0].text
            await start_edit(session, "api", "packages/api/index.js", "export const api = 2;\n")
            store = SQLiteStore(repo / ".git" / "wtc" / "state.sqlite3")
            with leases.hold(store, "task:r/api", timeout=5):   # another process holds the task
                result = await session.call_tool("task_finish", {"run": "r", "task": "api"})
            store.close()
            busy = check_result("task_finish", result)
            assert (busy["exit_code"], busy["error"]["kind"]) == (4, "busy")
            assert busy["error"]["details"]["retry_after_seconds"] >= 1
            assert "retry after" in result.content[0].text and "fix:" in result.content[0].text
            done = await call(session, "task_finish", {"run": "r", "task": "api"})
            assert done["state"] == "merged", "the busy call left nothing behind"
            worktree = await start_edit(session, "web", "packages/web/index.js", "export const web = 2;\n")
            write(worktree, {"packages/api/index.js": "not web's\n"})
            result = await session.call_tool("task_finish", {"run": "r", "task": "web"})
            rejected = check_result("task_finish", result)
            assert (rejected["exit_code"], rejected["state"]) == (3, "rejected") and result.is_error
            assert rejected["violations"] == [{"path": "packages/api/index.js", "rule": "outside_own",
                                               "detail": "modified a path outside --own ['packages/web/index.js']"}]
            assert any("wtc task finish web --run r" in note for note in rejected["notes"]), "the fix is in the structured content"

    anyio.run(scenario)


def test_an_unknown_argument_is_refused_naming_the_closest_known_one(repo):
    # Issue 35: a misspelled `idempotency_kye` was dropped silently, so the call ran under the
    # default key as if none had been given. Every tool refuses an argument it does not take.
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            typo = await call(session, "task_start", {"run": "r", "task": "api", "own": ["packages/api/**"],
                                                      "idempotency_kye": "start-api-1"})
            assert (typo["exit_code"], typo["error"]["kind"]) == (2, "usage"), typo
            assert "'idempotency_kye'" in typo["error"]["message"] and "'idempotency_key'" in typo["error"]["message"]
            assert "own" in typo["error"]["fix"] and "sparse" in typo["error"]["fix"]
            assert (await call(session, "task_status", {"run": "r"}))["tasks"] == [], "nothing ran"
            land = await call(session, "land", {"run": "r", "onto": "main", "yes": True})
            assert land["exit_code"] == 2 and "'yes'" in land["error"]["message"]
            fine = await call(session, "task_start", {"run": "r", "task": "api", "own": ["packages/api/**"],
                                                      "idempotency_key": "start-api-1"})
            assert fine["exit_code"] == 0

    anyio.run(scenario)


def test_an_unexpected_exception_is_an_internal_error_not_bad_input(repo):
    from worktree_coord.mcp.calls import Served, run_call

    def broken(coordinator):
        raise KeyError("oops")

    served = Served(repo=repo, limiter=anyio.CapacityLimiter(1))
    result = anyio.run(run_call, served, broken)
    body = result.structured_content
    assert result.is_error and body["exit_code"] == 6 and body["error"]["kind"] == "internal"
    assert "KeyError" in result.content[0].text and "bug in wtc" in body["error"]["message"]


# ---- resources and progress -----------------------------------------------------------------------------

def test_resources_and_progress_of_a_drain(repo):
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            for task in ("api", "web"):
                await start_edit(session, task, f"packages/{task}/index.js", f"export const {task} = 3;\n")
                body = await call(session, "task_finish", {"run": "r", "task": task, "merge": False})
                assert body["state"] == "finished"
            heard: list[tuple] = []

            async def progress(done, total, message):
                heard.append((done, total, message))

            drained = await call(session, "merge", {"run": "r"}, progress_callback=progress)
            assert [row["state"] for row in drained["tasks"]] == ["merged", "merged"]
            assert [(d, t) for d, t, _ in heard] == [(1, 2), (2, 2)] and "merged" in heard[-1][2]
            status = json.loads((await session.read_resource("wtc://runs/r/status")).contents[0].text)
            assert status["schema"] == "wtc.status/1" and status["counts"] == {"merged": 2}
            everything = json.loads((await session.read_resource("wtc://status")).contents[0].text)
            assert [row["run"] for row in everything["runs"]] == ["r"]
            conflicts = json.loads((await session.read_resource("wtc://runs/r/tasks/api/conflicts")).contents[0].text)
            assert conflicts["state"] == "merged" and conflicts["conflicts"] == []
            with pytest.raises(MCPError) as missing:
                await session.read_resource("wtc://runs/nope/report")
            assert missing.value.error.code == types.INVALID_PARAMS
            assert missing.value.error.data["error"]["kind"] == "not_found" and "fix" in missing.value.error.message
            with pytest.raises(MCPError) as ghost:
                await session.read_resource("wtc://runs/r/tasks/ghost/conflicts")
            assert ghost.value.error.data["exit_code"] == 5

    anyio.run(scenario)


def test_merge_file_merges_text_without_a_repository_write(repo):
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            base = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
            left = base.replace("return 1", "return 10")
            right = base.replace("return 2", "return 20")
            clean = await call(session, "merge_file", {"base": base, "left": left, "right": right, "path": "m.py"})
            assert clean["exit_code"] == 0 and "return 10" in clean["merged"] and "return 20" in clean["merged"]
            both = await call(session, "merge_file", {"base": base, "left": left, "right": base.replace("return 1", "return 99"),
                                                      "path": "m.py", "labels": ["mine", "base", "yours"]})
            assert both["exit_code"] == 1 and both["conflicts"] and "<<<<<<< mine" in both["merged"]

    anyio.run(scenario)


# ---- land behind elicitation ----------------------------------------------------------------------------

def _finished_run(repo: Path) -> None:
    from worktree_coord.coordinator import Coordinator

    with Coordinator(repo) as coordinator:
        coordinator.start_run("r")
        for task in ("api", "web"):
            worktree = Path(coordinator.start_task("r", task, [f"packages/{task}/**"]).worktree)
            write(worktree, {f"packages/{task}/index.js": f"export const {task} = 'v2';\n"})
            assert coordinator.finish_task("r", task).state == "merged"


def test_land_without_elicitation_is_refused_and_declined_lands_nothing(repo):
    _finished_run(repo)
    main_before = git(repo, "rev-parse", "main")

    async def scenario() -> None:
        async with stdio_session(repo) as session:   # a client that declares no elicitation
            refused = await call(session, "land", {"run": "r", "onto": "main"})
            assert refused["exit_code"] == 2 and "elicitation" in refused["error"]["message"]
            assert "wtc land --run r --onto main" in refused["error"]["fix"]
        async with stdio_session(repo, elicitation=decline) as session:
            declined = await call(session, "land", {"run": "r", "onto": "main"})
            assert declined["exit_code"] == 2 and "not approved" in declined["error"]["message"]
            missing = await call(session, "land", {"run": "nope", "onto": "main"})
            assert missing["exit_code"] == 5

    anyio.run(scenario)
    assert git(repo, "rev-parse", "main") == main_before


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_land_with_an_approving_client_over_the_2026_protocol(repo, transport):
    _finished_run(repo)
    tip = git(repo, "rev-parse", "wtc/r/integration")
    with contextlib.ExitStack() as stack:
        if transport == "http":
            target = stack.enter_context(http_server(repo)).url
        else:
            target = StdioServerParameters(command=sys.executable, args=server_command(repo)[1:], env=dict(os.environ))
        anyio.run(_land_over_2026, target, tip)
    assert git(repo, "rev-parse", "main") == tip


async def _land_over_2026(target, tip: str) -> None:
    async with Client(target, elicitation_callback=accept) as client:   # mode auto: 2026-07-28
        assert client.session.protocol_version == "2026-07-28"
        asked = len(ASKED)
        result = await client.call_tool("land", {"run": "r", "onto": "main"})
        await list_tools(client.session)
        body = check_result("land", result)
        assert body["exit_code"] == 0 and body["new"] == tip and body["manifest"]["tip"] == tip
        assert len(ASKED) == asked + 1 and f"Fast-forward main to {tip[:12]}" in ASKED[-1]


def _move_integration(repo: Path) -> None:
    """Integration moves past what landed (a landed run takes no new task: a commit is put on it)."""
    tip = git(repo, "rev-parse", "wtc/r/integration")
    later = git(repo, "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "later")
    git(repo, "update-ref", "refs/heads/wtc/r/integration", later, tip)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_approval_covers_the_manifest_it_was_shown(repo, mode):
    # While the person reads the question, another task merges. Handshake-era: the approved tip is
    # stale and land refuses. 2026-07-28: the next round re-renders the question, the stale answer
    # does not count, the person is asked again and the new tip lands.
    _finished_run(repo)
    main_before = git(repo, "rev-parse", "main")
    questions: list[str] = []

    async def approve_after_a_merge(context, params):
        questions.append(params.message)
        if len(questions) == 1:
            await anyio.to_thread.run_sync(_move_integration, repo)
        return types.ElicitResult(action="accept", content={"approve": True})

    params = StdioServerParameters(command=sys.executable, args=server_command(repo)[1:], env=dict(os.environ))

    async def scenario() -> dict:
        async with Client(params, mode=mode, elicitation_callback=approve_after_a_merge) as client:
            await list_tools(client.session)
            return check_result("land", await client.call_tool("land", {"run": "r", "onto": "main"}))

    body = anyio.run(scenario)
    tip = git(repo, "rev-parse", "wtc/r/integration")
    if mode == "legacy":
        assert body["exit_code"] == 2 and body["error"]["kind"] == "state" and "moved" in body["error"]["message"]
        assert git(repo, "rev-parse", "main") == main_before and len(questions) == 1
    else:
        assert body["exit_code"] == 0 and body["new"] == tip and len(questions) == 2
        assert tip[:12] in questions[1] and tip[:12] not in questions[0]
        assert git(repo, "rev-parse", "main") == tip


def test_an_approval_that_names_leftovers_lands_without_them(repo):
    _finished_run(repo)
    from worktree_coord.coordinator import Coordinator

    with Coordinator(repo) as coordinator:
        coordinator.start_task("r", "unfinished", ["docs/**"])
    tip = git(repo, "rev-parse", "wtc/r/integration")

    async def scenario() -> dict:
        async with stdio_session(repo, elicitation=accept) as session:
            return await call(session, "land", {"run": "r", "onto": "main"})

    body = anyio.run(scenario)
    assert "LEAVING OUT 1 task(s) started (unfinished)" in ASKED[-1]
    assert body["exit_code"] == 0 and body["new"] == tip and body["left_out"]["tasks"] == {"started": ["unfinished"]}


def test_an_approval_that_names_a_use_left_behind_lands_it(repo):
    """Found reviewing the faces: the MCP land's question did not name the uses the landed tree keeps
    of a name the run removed, and nothing could approve them (exit 1 with a CLI-only fix). The
    question names them now, and the person's approval approves them by name."""
    _finished_run(repo)
    git(repo, "checkout", "-q", "wtc/r/integration")        # someone removes a used name by hand
    (repo / "packages/core/lib.py").write_text("def other():\n    return 4\n")
    (repo / "packages/core/use.py").write_text("from packages.core.lib import core\n\nVALUE = core()\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "by hand")
    git(repo, "checkout", "-q", "main")
    tip = git(repo, "rev-parse", "wtc/r/integration")

    async def scenario() -> dict:
        async with stdio_session(repo, elicitation=accept) as session:
            return await call(session, "land", {"run": "r", "onto": "main"})

    body = anyio.run(scenario)
    assert "KEEPING USES OF NAMES THE RUN REMOVED: core (packages/core/use.py:1, 3)" in ASKED[-1], ASKED[-1]
    assert body["exit_code"] == 0 and body["new"] == tip and [u["name"] for u in body["left_behind"]] == ["core"]


def test_an_approval_that_names_a_file_that_does_not_parse_lands_it(repo):
    """The MCP land's question names each file of the landed tree that does not parse where the pin's
    version did (found on pydata/xarray: a stray line landed unseen), and approving it approves each
    path, as `--allow-unparsed` does."""
    _finished_run(repo)
    git(repo, "checkout", "-q", "wtc/r/integration")        # someone leaves a stray line by hand
    (repo / "packages/api/index.js").write_text("export const api = 'v2';\nexport const = stray words\n")
    git(repo, "commit", "-qam", "by hand")
    git(repo, "checkout", "-q", "main")
    tip = git(repo, "rev-parse", "wtc/r/integration")

    async def scenario() -> dict:
        async with stdio_session(repo, elicitation=accept) as session:
            return await call(session, "land", {"run": "r", "onto": "main"})

    body = anyio.run(scenario)
    assert "WITH FILES THAT DO NOT PARSE: packages/api/index.js:2:" in ASKED[-1], ASKED[-1]
    assert body["exit_code"] == 0 and body["new"] == tip
    assert [(u["path"], u["tasks"]) for u in body["unparsed"]] == [("packages/api/index.js", ["api"])]


def test_a_repeated_land_returns_the_first_result_without_asking_again(repo):
    # Issue 35, 1.4: a repeat of an approved land (the same idempotency key, or none twice) asked
    # the person again, and a decline of the repeat answered exit 2 "not approved" although the
    # branch had landed. A repeat replays the first result; a land with nothing left to land asks
    # nothing either; a key used for another landing is refused without a question.
    _finished_run(repo)
    tip = git(repo, "rev-parse", "wtc/r/integration")

    async def scenario() -> None:
        async with stdio_session(repo, elicitation=accept) as session:
            asked = len(ASKED)
            first = await call(session, "land", {"run": "r", "onto": "main", "idempotency_key": "land-r-1"})
            assert first["exit_code"] == 0 and first["new"] == tip and not first["replayed"]
            assert len(ASKED) == asked + 1
        async with stdio_session(repo, elicitation=decline) as session:
            asked = len(ASKED)
            again = await call(session, "land", {"run": "r", "onto": "main", "idempotency_key": "land-r-1"})
            assert again["exit_code"] == 0 and again["replayed"] and again["new"] == tip
            assert again["how"] == first["how"] and again["manifest"]["tip"] == tip
            nothing = await call(session, "land", {"run": "r", "onto": "main", "idempotency_key": "land-r-2"})
            assert nothing["exit_code"] == 0 and nothing["how"] == "already" and nothing["new"] == tip
            default = await call(session, "land", {"run": "r", "onto": "main"})
            assert default["exit_code"] == 0 and default["how"] == "already"
            assert len(ASKED) == asked, "a repeat or a land with nothing to land asks the person nothing"
            _move_integration(repo)
            other = await call(session, "land", {"run": "r", "onto": "main", "idempotency_key": "land-r-1"})
            assert other["exit_code"] == 2 and other["error"]["kind"] == "idempotency_mismatch"
            assert len(ASKED) == asked, "a key that cannot land this tip is refused before asking"

    anyio.run(scenario)
    assert git(repo, "rev-parse", "main") == tip


# ---- HTTP: the bearer token ------------------------------------------------------------------------------

def test_http_off_loopback_requires_the_token_it_prints_once(repo):
    with http_server(repo, bind="0.0.0.0:0") as server:
        assert server.token and server.stderr().count(server.token) == 1
        url = server.url.replace("0.0.0.0", "127.0.0.1")
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "1"}}}
        headers = {"Accept": "application/json, text/event-stream"}
        for auth in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}, {"Authorization": server.token}):
            refused = httpx2.post(url, json=initialize, headers=headers | auth, timeout=30)
            assert refused.status_code == 401 and "Bearer" in refused.text

        async def with_token() -> None:
            async with http_session(url, token=server.token) as session:
                assert {tool.name for tool in await list_tools(session)} == TOOLS

        anyio.run(with_token)
        assert server.stderr().count(server.token) == 1, "the token is never logged"


def test_the_bearer_scheme_is_case_insensitive_and_the_token_is_not(repo):
    # RFC 7235 2.1: the auth-scheme is case-insensitive. `bearer TOKEN` was refused with 401.
    token = "s3cret-" + "x" * 24
    with http_server(repo, env={"WTC_MCP_TOKEN": token}) as server:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "1"}}}
        headers = {"Accept": "application/json, text/event-stream"}
        for given in (f"bearer {token}", f"BEARER {token}", f"Bearer  {token}"):
            answered = httpx2.post(server.url, json=initialize, headers=headers | {"Authorization": given}, timeout=30)
            assert answered.status_code == 200, (given, answered.status_code, answered.text)
        for given in (f"Bearer {token.upper()}", f"Basic {token}", f"Bearer{token}", "Bearer"):
            refused = httpx2.post(server.url, json=initialize, headers=headers | {"Authorization": given}, timeout=30)
            assert refused.status_code == 401, given


def test_http_token_from_the_environment_guards_loopback_too(repo):
    token = "s3cret-" + "x" * 24
    with http_server(repo, env={"WTC_MCP_TOKEN": token}) as server:
        assert server.token is None and token not in server.stderr()
        refused = httpx2.post(server.url, json={}, headers={"Accept": "application/json, text/event-stream"}, timeout=30)
        assert refused.status_code == 401

        async def with_token() -> None:
            async with http_session(server.url, token=token) as session:
                await call(session, "run_start", {"run": "r"})

        anyio.run(with_token)
        assert token not in server.stderr()


@pytest.mark.parametrize(("args", "env", "words"), [
    (["--http", "nonsense:port"], {}, "not an address"),
    (["--http", "127.0.0.1:0"], {"WTC_MCP_TOKEN": "short"}, "too short"),
])
def test_bad_server_options_exit_2_naming_the_problem(repo, args, env, words):
    done = subprocess.run(server_command(repo, *args), cwd=repo, env=dict(os.environ) | env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and words in done.stderr and "fix:" in done.stderr


def test_a_folder_that_is_no_repository_fails_before_serving(tmp_path):
    done = subprocess.run(server_command(tmp_path), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 5 and "git" in done.stderr.lower()
    # Issue 35: the fix said "or pass --repo PATH" to a caller who had passed --repo.
    assert f"--repo {tmp_path}" in done.stderr and "or pass --repo PATH" not in done.stderr


def test_the_start_up_line_names_the_repository_by_its_absolute_path(repo):
    # Issue 35: `wtc mcp --http` started in the repository printed "serving . at ...".
    log = repo.parent / "serving.log"
    with log.open("w") as err:
        process = subprocess.Popen([sys.executable, "-m", "worktree_coord", "mcp", "--http", "127.0.0.1:0"],
                                   cwd=repo / "docs", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 60
            while "at http://" not in log.read_text() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert f"wtc mcp: serving {repo} at http://127.0.0.1:" in log.read_text(), log.read_text()


def test_other_commands_do_not_load_the_sdk():
    code = ("import sys; from worktree_coord.cli import build_command; build_command(); "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'uvicorn', 'starlette'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_what_a_verification_prints_never_reaches_the_stdio_protocol(repo):
    # stdout is the protocol under stdio: a verify command's (or git's) own output must go elsewhere.
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            await start_edit(session, "api", "packages/api/index.js", "export const api = 'loud';\n")
            done = await call(session, "task_finish", {"run": "r", "task": "api",
                                                       "verify": "echo '{\"jsonrpc\": \"2.0\"}'; echo noise; true"})
            assert done["state"] == "merged" and done["merge"]["verification"]["ok"] is True
            assert (await call(session, "task_status", {"run": "r"}))["counts"] == {"merged": 1}

    anyio.run(scenario)


def test_an_agent_asks_task_check_and_the_lead_forecast_over_mcp(repo):
    # Two agents edit one function of one file, uncommitted: each one's check predicts the conflict
    # (exit 1, is_error) naming the other; the forecast names the pair. Results match the schemas.
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            for task, value in (("one", 10), ("two", 20)):
                await start_edit(session, task, "packages/api/index.js",
                                 f"export function api() {{\n  return {value};\n}}\n")
            check = await call(session, "task_check", {"run": "r", "task": "one"})
            assert check["exit_code"] == 1 and check["clean"] is False
            assert [(o["target"], o["clean"]) for o in check["onto"]] == [("integration", True), ("two", False)]
            assert check["onto"][1]["conflicts"][0]["declaration"] == "export function api"
            forecast = await call(session, "forecast", {"run": "r"})
            assert forecast["exit_code"] == 0
            assert [(c["left"], c["right"]) for c in forecast["conflicts"]] == [("one", "two")]

    anyio.run(scenario)


# ---- the plan ---------------------------------------------------------------------------------------

def test_a_plan_rule_added_over_mcp_gives_a_task_started_without_own_its_boundary(repo):
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            added = await call(session, "plan_add", {"pattern": "api-*", "own": ["packages/api/**"], "run": "r"})
            assert [rule["pattern"] for rule in added["rules"]] == ["api-*"] and not added["replayed"]
            again = await call(session, "plan_add", {"pattern": "api-*", "own": ["packages/api/**"], "run": "r"})
            assert again["replayed"] and again["rules"][0]["rule"] == added["rules"][0]["rule"]
            listed = await call(session, "plan_list", {"run": "r"})
            assert [rule["pattern"] for rule in listed["rules"]] == ["api-*"] and listed["default"]
            started = await call(session, "task_start", {"run": "r", "task": "api-login"})
            assert started["boundary"]["own"] == ["packages/api/**"]
            write(Path(started["worktree"]), {"packages/web/index.js": "outside the plan's boundary\n"})
            result = await session.call_tool("task_finish", {"run": "r", "task": "api-login"})
            rejected = check_result("task_finish", result)
            assert (rejected["exit_code"], rejected["state"]) == (3, "rejected")
            empty = await session.call_tool("plan_add", {"pattern": "web-*", "own": []})
            assert empty.is_error, "a rule that owns nothing is refused by the schema"

    anyio.run(scenario)


def test_task_start_of_a_merged_task_answers_its_state_not_a_dead_worktree(repo):
    """Issue 35, 1.3, through the MCP tool: a harness re-running an agent calls task_start again
    after the task merged; it answered the first start's worktree, removed at finish."""
    async def scenario() -> tuple[dict, dict]:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            worktree = await start_edit(session, "api", "packages/api/index.js", "export const api = 2;\n")
            done = await call(session, "task_finish", {"run": "r", "task": "api"})
            assert done["state"] == "merged" and not worktree.exists()
            again = await call(session, "task_start", {"run": "r", "task": "api", "own": ["packages/api/index.js"]})
            return done, again

    done, again = anyio.run(scenario)
    assert again["exit_code"] == 0 and again["state"] == "merged" and again["existing"] is True
    assert again["worktree"] == "" and again["last_finish"]["merge"]["new_tip"] == done["merge"]["new_tip"]
