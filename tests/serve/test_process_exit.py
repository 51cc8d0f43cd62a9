"""A `wtc` process ends without the interpreter's teardown (entry.leave), and nothing a caller sees
changes: the exit code of every kind of ending, all of stdout (more than a pipe's buffer), the
atexit handlers (telemetry flushes), a thread that is not a daemon still finishing its work, and a
closed stdout reported as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, write, wtc

# The entry point as the `wtc` script runs it, with something registered before it the way a
# telemetry exporter or coverage registers an atexit handler.
RUNNER = """
import atexit, sys, threading, time
marker = sys.argv[1]
def at_exit():
    with open(marker, "a") as out:
        out.write("atexit\\n")
atexit.register(at_exit)
if sys.argv[2] == "thread":
    def late():
        time.sleep(0.5)
        with open(marker, "a") as out:
            out.write("thread\\n")
    threading.Thread(target=late).start()
sys.argv = ["wtc", *sys.argv[3:]]
from worktree_coord.entry import main
main()
"""


def run(tmp_path: Path, *args: str, thread: bool = False) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    marker = tmp_path / "marker.txt"
    marker.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-c", RUNNER, str(marker), "thread" if thread else "-", *args],
                          cwd=tmp_path, capture_output=True, text=True, env={"WTC_NO_SERVE": "1", **_env()})
    return done, marker.read_text().splitlines() if marker.exists() else []


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "WTC_NO_FAST"}


def test_exit_codes_output_and_atexit_handlers_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    code, _ = wtc(repo, "run", "start", "--run", "r1")
    assert code == 0
    assert wtc(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/**")[0] == 0
    ok, ran = run(tmp_path, "status", "--run", "r1", "--repo", str(repo), "--json")   # the quick path
    assert ok.returncode == 0 and ran == ["atexit"]
    assert [task["task"] for task in json.loads(ok.stdout)["tasks"]] == ["t1"]
    # A result longer than a pipe's buffer: every byte reaches the caller.
    lines = [f"value_{i} = {i}\n" for i in range(20000)]
    write(tmp_path, {"base.py": "".join(lines), "left.py": "".join(["# left\n", *lines]),
                     "right.py": "".join([*lines, "# right\n"])})
    merged, ran = run(tmp_path, "merge-file", "base.py", "left.py", "right.py")
    assert merged.returncode == 0 and ran == ["atexit"]
    assert merged.stdout == "".join(["# left\n", *lines, "# right\n"]) and len(merged.stdout) > 65536
    missing, ran = run(tmp_path, "status", "--run", "nope", "--repo", str(repo), "--json")
    assert missing.returncode == 5 and json.loads(missing.stdout)["error"]["kind"] == "not_found"
    assert ran == ["atexit"]
    typer, ran = run(tmp_path, "intent", "list", "--run", "r1", "--repo", str(repo), "--json")   # typer's path
    assert typer.returncode == 0 and json.loads(typer.stdout)["schema"] == "wtc.intent.list/1" and ran == ["atexit"]
    collected, ran = run(tmp_path, "gc", "--repo", str(repo), "--json")               # the quick path
    assert collected.returncode == 0 and json.loads(collected.stdout)["schema"] == "wtc.gc/1" and ran == ["atexit"]
    usage, ran = run(tmp_path, "statu")
    assert usage.returncode == 2 and "No such command" in usage.stderr and ran == ["atexit"]


def test_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    done, ran = run(tmp_path, "status", "--run", "r1", "--repo", str(repo), "--json", thread=True)
    assert done.returncode == 0
    assert ran == ["thread", "atexit"]     # the ordinary exit: the thread joined, then the handlers


def test_a_closed_stdout_ends_as_before(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    reader = subprocess.Popen([sys.executable, "-m", "worktree_coord", "status", "--run", "r1", "--repo", str(repo)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"WTC_NO_SERVE": "1", **_env()})
    assert reader.stdout is not None
    reader.stdout.close()                  # the reader went away (`wtc status | head -0`)
    _, err = reader.communicate(timeout=120)
    assert reader.returncode in (0, 1, 120) and b"Traceback" not in err.replace(b"Exception ignored", b"")
