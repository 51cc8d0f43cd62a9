#!/usr/bin/env python3
"""Benchmark: agents driving tasks through one `wtc mcp --http` server against `wtc` processes.

The same work both ways: N tasks (default 200), each one start, one edit (a new file in its own
folder), one finish (commit, boundary check, merge into integration), spread over C concurrent
clients (default 16):

- MCP: C sessions of the SDK's own streamable-HTTP client against one `wtc mcp --http 127.0.0.1:0`
  server (started before the clock; its start-up is printed apart);
- CLI: C threads, each running `wtc task start ... --json` and `wtc task finish ... --json` as
  processes, as an agent's shell does (a Python start-up per call).

Each side gets a fresh repository with the same content and its own run. The tasks are split into
`--chunks` (default 4) run alternately MCP, CLI, CLI, MCP, ... (the machine is shared: its load moves,
and alternating spreads a change of load over both sides); each side's time is the sum of its chunks,
each from its first task's start to its last task's finish. Every task must end merged, and each
integration branch must hold one merge commit per task, or the run fails. Prints tasks per minute for
both and the ratio MCP/CLI.

Usage: python scripts/bench_mcp.py [--tasks 200] [--clients 16] [--chunks 4] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


def make_repo(path: Path, tasks: int) -> Path:
    """A repository with one folder per task (a module each) plus some shared files."""
    path.mkdir(parents=True)
    env = dict(os.environ, **GIT_ENV)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True, env=env)
    for number in range(tasks):
        folder = path / "pkg" / f"m{number:03d}"
        folder.mkdir(parents=True)
        (folder / "mod.py").write_text(f"def value():\n    return {number}\n")
    (path / "README.md").write_text("# bench\n")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "initial"], cwd=path, check=True, env=env)
    return path


def task_names(tasks: int) -> list[str]:
    return [f"t{number:03d}" for number in range(tasks)]


def edit(worktree: Path, task: str) -> None:
    number = int(task[1:])
    (worktree / "pkg" / f"m{number:03d}" / "extra.py").write_text(f"EXTRA = {number}\n")


def own(task: str) -> str:
    return f"pkg/m{int(task[1:]):03d}/**"


def merged_count(repo: Path, run: str) -> int:
    """Merge commits of tasks on the run's integration branch (first-parent line)."""
    subjects = subprocess.run(["git", "log", "--first-parent", "--format=%s", f"wtc/{run}/integration"], cwd=repo,
                              capture_output=True, text=True, check=True).stdout.splitlines()
    return sum(1 for line in subjects if line.startswith("wtc: merge task "))


# ---- the command line --------------------------------------------------------------------------------

def wtc(repo: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo, capture_output=True,
                          text=True, env=dict(os.environ, **GIT_ENV), timeout=600)
    body = json.loads(done.stdout)
    if done.returncode != 0:
        raise SystemExit(f"wtc {' '.join(args)} exited {done.returncode}: {body}")
    return body


class CliSide:
    """Agents with a shell: a `wtc` process per call, `clients` of them at once."""

    name = "cli"

    def __init__(self, repo: Path, clients: int) -> None:
        self.repo, self.clients = repo, clients
        wtc(repo, "run", "start", "--run", self.name)

    def chunk(self, tasks: list[str]) -> float:
        queue = list(tasks)
        lock = threading.Lock()
        failures: list[str] = []

        def client() -> None:
            while True:
                with lock:
                    if not queue:
                        return
                    task = queue.pop(0)
                try:
                    body = wtc(self.repo, "task", "start", task, "--run", self.name, "--own", own(task))
                    edit(Path(body["worktree"]), task)
                    body = wtc(self.repo, "task", "finish", task, "--run", self.name)
                    if body["state"] != "merged":
                        failures.append(f"{task}: {body['state']}")
                except BaseException as error:  # noqa: BLE001 - reported below, the run fails
                    failures.append(f"{task}: {error}")

        started = time.perf_counter()
        threads = [threading.Thread(target=client) for _ in range(self.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise SystemExit(f"CLI side: {failures[:5]}")
        return time.perf_counter() - started

    def close(self) -> None:
        return None


# ---- the MCP server -----------------------------------------------------------------------------------

class McpSide:
    """Agents with MCP tools: `clients` sessions of the SDK's client against one `wtc mcp --http`."""

    name = "mcp"

    def __init__(self, repo: Path, clients: int) -> None:
        self.repo, self.clients = repo, clients
        self.log = repo.parent / "mcp-server.log"
        started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, "-m", "worktree_coord", "mcp", "--http", "127.0.0.1:0"],
                                        cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=self.log.open("w"), env=dict(os.environ, **GIT_ENV))
        while True:
            found = re.search(r"at (http://\S+/mcp)", self.log.read_text())
            if found:
                self.url = found.group(1)
                break
            if self.process.poll() is not None:
                raise SystemExit(f"wtc mcp --http exited {self.process.returncode}: {self.log.read_text()}")
            time.sleep(0.02)
        self.startup = time.perf_counter() - started
        import anyio

        async def start_run() -> None:
            async with self.session() as lead:
                await self.tool(lead, "run_start", {"run": self.name})

        anyio.run(start_run)

    def session(self) -> Any:
        import contextlib

        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        @contextlib.asynccontextmanager
        async def opened() -> Any:
            async with httpx2.AsyncClient(timeout=httpx2.Timeout(600, read=600)) as http:
                async with streamable_http_client(self.url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        yield session

        return opened()

    @staticmethod
    async def tool(session: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await session.call_tool(name, arguments)
        body = result.structured_content or {}
        if result.is_error:
            raise RuntimeError(f"{name} {arguments}: {body}")
        return body

    def chunk(self, tasks: list[str]) -> float:
        import anyio

        queue = list(tasks)
        failures: list[str] = []

        async def client() -> None:
            async with self.session() as session:
                while queue:
                    task = queue.pop(0)
                    try:
                        body = await self.tool(session, "task_start", {"run": self.name, "task": task,
                                                                       "own": [own(task)]})
                        edit(Path(body["worktree"]), task)
                        body = await self.tool(session, "task_finish", {"run": self.name, "task": task})
                        if body["state"] != "merged":
                            failures.append(f"{task}: {body['state']}")
                    except Exception as error:  # noqa: BLE001 - reported below, the run fails
                        failures.append(f"{task}: {error}")

        async def drive() -> float:
            started = time.perf_counter()
            async with anyio.create_task_group() as group:
                for _ in range(self.clients):
                    group.start_soon(client)
            return time.perf_counter() - started

        elapsed = anyio.run(drive)
        if failures:
            raise SystemExit(f"MCP side: {failures[:5]}\n{self.log.read_text()[-2000:]}")
        return elapsed

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--chunks", type=int, default=4, help="split the tasks into this many chunks, run "
                        "alternately MCP, CLI, CLI, MCP, ... so a change of the machine's load hits both sides")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    tasks = task_names(options.tasks)
    size = -(-len(tasks) // options.chunks)
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    scratch = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    sides: dict[str, Any] = {}
    seconds = {"mcp": 0.0, "cli": 0.0}
    loads: list[float] = []
    try:
        sides["mcp"] = McpSide(make_repo(scratch / "mcp" / "repo", options.tasks), options.clients)
        sides["cli"] = CliSide(make_repo(scratch / "cli" / "repo", options.tasks), options.clients)
        for number, chunk in enumerate(chunks):
            order = ("mcp", "cli") if number % 2 == 0 else ("cli", "mcp")   # ABBA
            for side in order:
                loads.append(os.getloadavg()[0])
                elapsed = sides[side].chunk(chunk)
                seconds[side] += elapsed
                print(f"chunk {number + 1}/{len(chunks)} {side}: {len(chunk)} tasks in {elapsed:.1f} s "
                      f"({len(chunk) / elapsed * 60:.0f} tasks/min, load {loads[-1]:.1f})", file=sys.stderr,
                      flush=True)
        for side in ("mcp", "cli"):
            merged = merged_count(sides[side].repo, side)
            if merged != len(tasks):
                raise SystemExit(f"{side}: {merged} of {len(tasks)} tasks merged into integration")
    finally:
        for side in sides.values():
            side.close()
        shutil.rmtree(scratch, ignore_errors=True)
    mcp, cli = seconds["mcp"], seconds["cli"]
    result = {"tasks": options.tasks, "clients": options.clients, "chunks": len(chunks),
              "mcp_seconds": round(mcp, 2), "cli_seconds": round(cli, 2),
              "mcp_tasks_per_minute": round(options.tasks / mcp * 60, 1),
              "cli_tasks_per_minute": round(options.tasks / cli * 60, 1),
              "ratio_mcp_over_cli": round(cli / mcp, 2),
              "mcp_server_startup_seconds": round(sides["mcp"].startup, 2),
              "load_average_median": round(statistics.median(loads), 1)}
    if options.json:
        print(json.dumps(result))
    else:
        print(f"{options.tasks} tasks (start, edit, finish) by {options.clients} concurrent clients, "
              f"{len(chunks)} chunks alternating")
        print(f"  MCP (one wtc mcp --http server): {result['mcp_tasks_per_minute']:>7} tasks/min "
              f"({mcp:.1f} s; server start-up {result['mcp_server_startup_seconds']} s, not counted)")
        print(f"  CLI (a wtc process per call):    {result['cli_tasks_per_minute']:>7} tasks/min ({cli:.1f} s)")
        print(f"  ratio MCP/CLI: {result['ratio_mcp_over_cli']}x   (median load average "
              f"{result['load_average_median']} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
