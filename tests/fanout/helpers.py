"""Helpers of the fanout tests: plans for the stand-in agent, `wtc fanout` run as a user runs it, and
the stand-in's own log of its runs (to count them per task)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import GIT_ENV

STANDIN = Path(__file__).resolve().parent / "standin_agent.py"


def standin_command() -> list[str]:
    return [sys.executable, str(STANDIN), "{prompt_file}"]


def task(name: str, *directives: str, own: list[str] | None = None, prompt: str = "", **keys: Any) -> dict[str, Any]:
    """A plan task whose prompt holds the stand-in's directives (one per line, `! ` added)."""
    text = (prompt or f"Task {name}.") + "\n" + "".join(f"! {d}\n" for d in directives)
    return {"name": name, "prompt": text, "own": own if own is not None else [f"pkg/{name}/**"], **keys}


def write_plan(path: Path, tasks: list[dict[str, Any]], **agent: Any) -> Path:
    """A JSON plan running the stand-in (`agent` overrides [agent] keys; `run=` gives [run])."""
    run = agent.pop("run", None)
    body: dict[str, Any] = {"agent": {"command": standin_command(), "concurrency": 4, "attempts": 3} | agent,
                            "tasks": tasks}
    if run:
        body["run"] = run
    path.write_text(json.dumps(body, indent=1))
    return path


def environment(log: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return dict(os.environ, **GIT_ENV, STANDIN_LOG=str(log), **(extra or {}))


def fanout(repo: Path, plan: Path, run: str, *args: str, log: Path, timeout: float = 300,
           env: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]], dict[str, Any] | None]:
    """`wtc fanout PLAN --run RUN --json`: (exit code, the events, the summary or None)."""
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", run, *args, "--json"],
                          cwd=repo, env=environment(log, env), capture_output=True, text=True, timeout=timeout)
    return parse(done.returncode, done.stdout, done.stderr)


def start_fanout(repo: Path, plan: Path, run: str, *args: str, log: Path, json_mode: bool = True) -> subprocess.Popen:
    """`wtc fanout` started in the background (to be interrupted or killed)."""
    return subprocess.Popen([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", run, *args,
                             *(["--json"] if json_mode else [])],
                            cwd=repo, env=environment(log), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def parse(code: int, stdout: str, stderr: str = "") -> tuple[int, list[dict[str, Any]], dict[str, Any] | None]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert all(isinstance(line, dict) and "schema" in line for line in lines), stdout
    events = [line for line in lines if line["schema"] == "wtc.fanout.event/1"]
    summary = lines[-1] if lines and lines[-1]["schema"] != "wtc.fanout.event/1" else None
    assert summary is None or summary["schema"] in ("wtc.fanout/1", "wtc.error/1"), (stdout, stderr)
    return code, events, summary


def runs(log: Path) -> list[dict[str, Any]]:
    """Every line the stand-in wrote: begin, end, crash (task, attempt, repair, pid, at)."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def count(log: Path, event: str = "begin") -> dict[str, int]:
    """How many times each task's stand-in logged `event`."""
    found: dict[str, int] = {}
    for line in runs(log):
        if line["event"] == event:
            found[line["task"]] = found.get(line["task"], 0) + 1
    return found


def wait_for(predicate: Any, timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or predicate}")


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its parent to reap it does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def standins_alive(log: Path) -> list[int]:
    """Pids the stand-in logged that still run (a stopped runner must leave none of its agents)."""
    alive = []
    for pid in {line["pid"] for line in runs(log)}:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z" \
                and str(STANDIN).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            alive.append(pid)
    return alive


def kill(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    process.send_signal(sig)
    process.wait(timeout=60)
