"""Helpers for the MCP tests: a real `wtc mcp` process (stdio or streamable HTTP) and the SDK's own
client against it; every successful result is checked against the output schema its tool publishes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import httpx2
import jsonschema
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

WRITE_TOOLS = {"run_start", "task_start", "task_finish", "task_update", "task_abandon", "task_widen", "merge", "consolidate",
               "intent_add", "intent_retry", "intent_drop", "sync", "land"}


def server_command(repo: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "worktree_coord", "mcp", "--repo", str(repo), *extra]


async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    """An elicitation callback that approves whatever it is asked (a person saying yes)."""
    ASKED.append(params.message)
    return types.ElicitResult(action="accept", content={"approve": True})


async def decline(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    ASKED.append(params.message)
    return types.ElicitResult(action="decline")


ASKED: list[str] = []   # every question an elicitation callback above was asked


@contextlib.asynccontextmanager
async def stdio_session(repo: Path, *, env: dict[str, str] | None = None, elicitation: Any = None,
                        errlog: Any = None) -> AsyncIterator[ClientSession]:
    """A client session with its own `wtc mcp` process over stdio."""
    params = StdioServerParameters(command=sys.executable, args=server_command(repo)[1:],
                                   env=dict(os.environ) | (env or {}), cwd=str(repo))
    async with stdio_client(params, errlog=errlog or sys.stderr) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation) as session:
            await session.initialize()
            yield session


class HttpServer:
    """A `wtc mcp --http` process; `url` and (when one was printed) `token` are read from its stderr."""

    def __init__(self, repo: Path, bind: str = "127.0.0.1:0", env: dict[str, str] | None = None,
                 log: Path | None = None):
        self.log = log or repo.parent / f"mcp-http-{time.monotonic_ns()}.log"
        self.handle = self.log.open("w")
        self.process = subprocess.Popen(server_command(repo, "--http", bind), cwd=repo, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=self.handle,
                                        env=dict(os.environ) | (env or {}))
        self.url, self.token = self._wait_for_start()

    def _wait_for_start(self, timeout: float = 60) -> tuple[str, str | None]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log.read_text()
            found = re.search(r"at (http://\S+/mcp)", text)
            if found:
                token = re.search(r"bearer token \(shown once.*?\): (\S+)", text)
                return found.group(1), token.group(1) if token else None
            if self.process.poll() is not None:
                raise AssertionError(f"wtc mcp --http exited {self.process.returncode}: {text}")
            time.sleep(0.05)
        raise AssertionError(f"wtc mcp --http did not start: {self.log.read_text()}")

    def stderr(self) -> str:
        return self.log.read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.handle.close()


@contextlib.contextmanager
def http_server(repo: Path, bind: str = "127.0.0.1:0", env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    server = HttpServer(repo, bind, env)
    try:
        yield server
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def http_session(url: str, *, token: str | None = None, elicitation: Any = None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(300, read=300)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicitation) as session:
                await session.initialize()
                yield session


SCHEMAS: dict[str, dict[str, Any]] = {}   # tool name -> output schema, filled by list_tools()


async def list_tools(session: ClientSession) -> list[types.Tool]:
    tools = (await session.list_tools()).tools
    for tool in tools:
        SCHEMAS[tool.name] = tool.output_schema or {}
    return tools


async def call(session: ClientSession, name: str, arguments: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Call a tool; returns its structured content after checking the result's shape: both text
    blocks, the JSON text equal to the structured content, `is_error` exactly when exit_code != 0,
    errors as `wtc.error/1` with a message, and successes valid against the published output schema."""
    if not SCHEMAS:
        await list_tools(session)
    result = await session.call_tool(name, arguments, **kwargs)
    return check_result(name, result)


def check_result(name: str, result: types.CallToolResult) -> dict[str, Any]:
    body = result.structured_content
    assert body is not None, f"{name}: no structured content: {result.content}"
    assert [block.type for block in result.content] == ["text", "text"], result.content
    assert json.loads(result.content[1].text) == body, "the JSON text and the structured content differ"
    assert body["exit_code"] in (0, 1, 2, 3, 4, 5, 6), body
    assert result.is_error == (body["exit_code"] != 0), (result.is_error, body)
    if body["schema"] == "wtc.error/1":
        assert body["ok"] is False and body["error"]["message"] and body["error"]["exit_code"] == body["exit_code"]
    else:
        jsonschema.validate(body, SCHEMAS[name])
    return body
