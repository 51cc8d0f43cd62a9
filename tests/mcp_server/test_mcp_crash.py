"""A server killed mid-call, and a client that disconnects mid-call: the task finishes once.

The server process dies by SIGKILL at a named crash point (`WTC_CRASH_AT`, crashpoints.py) inside
task_finish: no cleanup runs, exactly as an OOM kill or a power cut. The client retries the same call
against a new server; the idempotency record's owner is dead, so the call is taken over and resumes
from what git and the store hold. A client that goes away mid-call does not stop the call: it runs
to its end, and the retry returns its result.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.conftest import git
from tests.mcp_server.helpers import call, http_server, http_session, stdio_session
from tests.mcp_server.test_mcp_contract import merges_of, start_edit

CRASH_POINTS = ["finish.after_commit", "finish.after_record", "merge.after_commit_written", "merge.after_ref_moved",
                "merge.after_record"]


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_server_killed_mid_finish_and_a_retry_from_a_new_server_finish_the_task_once(repo, point):
    async def scenario() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            await start_edit(session, "api", "packages/api/index.js", "export const api = 'crash';\n")
        async with stdio_session(repo, env={"WTC_CRASH_AT": point}) as doomed:
            with pytest.raises(Exception):   # the server dies: the SDK reports the closed connection
                with anyio.fail_after(120):
                    await doomed.call_tool("task_finish", {"run": "r", "task": "api"})
        async with stdio_session(repo) as session:
            retried = await call(session, "task_finish", {"run": "r", "task": "api"})
            assert retried["state"] == "merged", retried
            again = await call(session, "task_finish", {"run": "r", "task": "api"})
            assert again["replayed"] and again["commit"] == retried["commit"]

    anyio.run(scenario)
    assert merges_of(repo, "api") == 1
    assert git(repo, "show", "wtc/r/integration:packages/api/index.js") == "export const api = 'crash';"
    assert git(repo, "log", "--format=%s", "wtc/r/api").splitlines()[0] != "initial"
    assert len(git(repo, "log", "--format=%H", "main..wtc/r/api").splitlines()) == 1, "one task commit"


def test_a_server_killed_mid_finish_over_http(repo):
    async def start() -> None:
        async with stdio_session(repo) as session:
            await call(session, "run_start", {"run": "r"})
            await start_edit(session, "web", "packages/web/index.js", "export const web = 'crash';\n")

    anyio.run(start)
    with http_server(repo, env={"WTC_CRASH_AT": "merge.after_ref_moved"}) as doomed:
        async def dies() -> None:
            with pytest.raises(Exception):
                with anyio.fail_after(120):
                    async with http_session(doomed.url) as session:
                        await session.call_tool("task_finish", {"run": "r", "task": "web"})

        anyio.run(dies)
        assert doomed.process.wait(timeout=30) == -9
    with http_server(repo) as server:
        async def retry() -> dict:
            async with http_session(server.url) as session:
                return await call(session, "task_finish", {"run": "r", "task": "web"})

        assert anyio.run(retry)["state"] == "merged"
    assert merges_of(repo, "web") == 1


def test_a_client_that_disconnects_mid_finish_leaves_the_call_to_run_to_its_end(repo):
    with http_server(repo) as server:
        async def scenario() -> None:
            async with http_session(server.url) as lead:
                await call(lead, "run_start", {"run": "r"})
                await start_edit(lead, "api", "packages/api/index.js", "export const api = 'slow';\n")
            # The verification takes 3 s; the client gives up after 1 s and closes its session.
            arguments = {"run": "r", "task": "api", "verify": "sleep 3"}
            with anyio.move_on_after(1) as gave_up:
                async with http_session(server.url) as impatient:
                    await impatient.call_tool("task_finish", arguments)
            assert gave_up.cancelled_caught, "the call should still have been running"
            started = time.monotonic()
            async with http_session(server.url) as watcher:
                while True:   # nobody calls finish again: the first call ends on its own
                    status = await call(watcher, "task_status", {"run": "r", "task": "api"})
                    if status["tasks"][0]["state"] == "merged":
                        break
                    assert time.monotonic() - started < 60, status
                    await anyio.sleep(0.2)
                retried = await call(watcher, "task_finish", arguments)
                assert retried["state"] == "merged" and retried["replayed"] is True
                assert retried["merge"]["verification"]["ok"] is True

        anyio.run(scenario)
    assert merges_of(repo, "api") == 1
