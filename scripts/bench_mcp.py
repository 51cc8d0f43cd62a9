#!/usr/bin/env python3
"""Benchmark: agents driving tasks through one `wtc mcp --http` server against `wtc` processes.

The same work both ways: N tasks (default 200), each one start, one edit (a new file in its own
folder), one finish (commit, boundary check, merge into integration), spread over C concurrent
clients (default 16):

- MCP: C sessions of the SDK's own streamable-HTTP client against one `wtc mcp --http 127.0.0.1:0`
  server (started before the clock; its start-up is printed apart);
- CLI: C threads, each running `wtc task start ... --json` and `wtc task finish ... --json` as
  processes, as an agent's shell does (a Python start-up per call).

Each side gets a fresh repository with the same content and its own run; the clock runs from the
first task's start to the last task's finish. Every task must end merged, and the integration branch
must hold one merge commit per task, or the run fails. Prints tasks per minute for both and the ratio
MCP/CLI (medians over `--repeat` rounds, sides alternating first, since the machine's load moves).

Usage: python scripts/bench_mcp.py [--tasks 200] [--clients 16] [--repeat 1] [--json]
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


def run_cli(repo: Path, tasks: list[str], clients: int) -> float:
    wtc(repo, "run", "start", "--run", "cli")
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
                body = wtc(repo, "task", "start", task, "--run", "cli", "--own", own(task))
                edit(Path(body["worktree"]), task)
                body = wtc(repo, "task", "finish", task, "--run", "cli")
                if body["state"] != "merged":
                    failures.append(f"{task}: {body['state']}")
            except BaseException as error:  # noqa: BLE001 - reported below, the run fails
                failures.append(f"{task}: {error}")

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures or merged_count(repo, "cli") != len(tasks):
        raise SystemExit(f"CLI side: {merged_count(repo, 'cli')} merged of {len(tasks)}; {failures[:5]}")
    return elapsed


# ---- the MCP server -----------------------------------------------------------------------------------

def start_server(repo: Path) -> tuple[subprocess.Popen[bytes], str, float, Path]:
    log = repo.parent / "mcp-server.log"
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "worktree_coord", "mcp", "--http", "127.0.0.1:0"], cwd=repo,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log.open("w"),
                               env=dict(os.environ, **GIT_ENV))
    while True:
        found = re.search(r"at (http://\S+/mcp)", log.read_text())
        if found:
            return process, found.group(1), time.perf_counter() - started, log
        if process.poll() is not None:
            raise SystemExit(f"wtc mcp --http exited {process.returncode}: {log.read_text()}")
        time.sleep(0.02)


def run_mcp(repo: Path, tasks: list[str], clients: int) -> tuple[float, float]:
    import anyio
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    process, url, startup, log = start_server(repo)
    failures: list[str] = []

    async def tool(session: ClientSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await session.call_tool(name, arguments)
        body = result.structured_content or {}
        if result.is_error:
            raise RuntimeError(f"{name} {arguments}: {body}")
        return body

    async def drive() -> float:
        queue = list(tasks)

        async def client() -> None:
            async with httpx2.AsyncClient(timeout=httpx2.Timeout(600, read=600)) as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        while queue:
                            task = queue.pop(0)
                            try:
                                body = await tool(session, "task_start", {"run": "mcp", "task": task,
                                                                          "own": [own(task)]})
                                edit(Path(body["worktree"]), task)
                                body = await tool(session, "task_finish", {"run": "mcp", "task": task})
                                if body["state"] != "merged":
                                    failures.append(f"{task}: {body['state']}")
                            except Exception as error:  # noqa: BLE001 - reported below, the run fails
                                failures.append(f"{task}: {error}")

        async with httpx2.AsyncClient(timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as lead:
                    await lead.initialize()
                    await tool(lead, "run_start", {"run": "mcp"})
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(clients):
                group.start_soon(client)
        return time.perf_counter() - started

    try:
        elapsed = anyio.run(drive)
    finally:
        process.terminate()
        process.wait(timeout=60)
    if failures or merged_count(repo, "mcp") != len(tasks):
        raise SystemExit(f"MCP side: {merged_count(repo, 'mcp')} merged of {len(tasks)}; {failures[:5]}\n"
                         f"{log.read_text()[-2000:]}")
    return elapsed, startup


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    tasks = task_names(options.tasks)
    rounds: dict[str, list[float]] = {"mcp": [], "cli": []}
    startups: list[float] = []
    scratch = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    try:
        for number in range(options.repeat):
            order = ("mcp", "cli") if number % 2 == 0 else ("cli", "mcp")
            for side in order:
                repo = make_repo(scratch / f"{side}-{number}" / "repo", options.tasks)
                if side == "mcp":
                    elapsed, startup = run_mcp(repo, tasks, options.clients)
                    startups.append(startup)
                else:
                    elapsed = run_cli(repo, tasks, options.clients)
                rounds[side].append(elapsed)
                print(f"round {number + 1} {side}: {options.tasks} tasks in {elapsed:.1f} s "
                      f"({options.tasks / elapsed * 60:.0f} tasks/min)", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    mcp, cli = statistics.median(rounds["mcp"]), statistics.median(rounds["cli"])
    result = {"tasks": options.tasks, "clients": options.clients, "repeat": options.repeat,
              "mcp_seconds": round(mcp, 2), "cli_seconds": round(cli, 2),
              "mcp_tasks_per_minute": round(options.tasks / mcp * 60, 1),
              "cli_tasks_per_minute": round(options.tasks / cli * 60, 1),
              "ratio_mcp_over_cli": round(cli / mcp, 2), "mcp_server_startup_seconds": round(min(startups), 2),
              "load_average": os.getloadavg()[0]}
    if options.json:
        print(json.dumps(result))
    else:
        print(f"{options.tasks} tasks (start, edit, finish) by {options.clients} concurrent clients")
        print(f"  MCP (one wtc mcp --http server): {result['mcp_tasks_per_minute']:>7} tasks/min "
              f"({mcp:.1f} s; server start-up {result['mcp_server_startup_seconds']} s, not counted)")
        print(f"  CLI (a wtc process per call):    {result['cli_tasks_per_minute']:>7} tasks/min ({cli:.1f} s)")
        print(f"  ratio MCP/CLI: {result['ratio_mcp_over_cli']}x   (load average {result['load_average']:.1f})")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
