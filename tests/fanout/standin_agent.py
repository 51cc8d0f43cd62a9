"""A scripted stand-in for a coding agent: deterministic edits read from its prompt.

`python standin_agent.py PROMPT_FILE` runs in a task's worktree (its working directory), as `wtc
fanout` runs any agent. Lines of the prompt that start with `!` are directives, run in order; a
directive may be limited to one attempt (`@1`, `@2`, ...) or to repair runs (`@repair`), or to a
repair whose report says verification failed (`@fix-verify`):

    ! write PATH TEXT     write TEXT (\\n for a newline) to PATH, replacing it
    ! append PATH TEXT    append a line
    ! sleep SECONDS
    ! hang                sleep until killed
    ! crash CODE          exit with CODE before anything after it
    ! commit MESSAGE      commit what is there (git add -A; agents do commit)
    ! require PATH        exit 4 unless PATH exists (a dependency's merged work must be there)
    ! keep-markers        a repair that leaves the conflict markers where they are (a sloppy agent)
    ! wait-merged TASK    wait until TASK has merged into the run's integration branch (an order a
                          test needs, whatever the machine's load)
    ! wait-file PATH      wait until the file PATH exists (a test holds the agent running)
    ! spawn-child         start a long-lived child process (logged as `child` with its pid), as an
                          agent starting a dev server or a test watcher does

A repair run (WTC_REPAIR=1) first reads the report at the end of its prompt, as an agent would:
  - each `outside_own PATH` violation: the file is put back as the pin had it (or deleted);
  - each file a `task update` left conflict markers in: both sides kept, markers removed;
then runs the directives that apply. Every run appends `begin` and `end` lines (JSON) to the file
named by STANDIN_LOG, so a test counts the runs of each task.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path


def log(event: str, **data: object) -> None:
    path = os.environ.get("STANDIN_LOG")
    if not path:
        return
    line = json.dumps({"event": event, "task": os.environ.get("WTC_TASK"), "attempt": int(os.environ.get("WTC_ATTEMPT", "0")),
                       "repair": os.environ.get("WTC_REPAIR") == "1", "pid": os.getpid(), "at": time.time(), **data})
    with open(path, "a") as handle:
        handle.write(line + "\n")


def resolve_markers(path: Path) -> None:
    """Keep both sides of every conflict block (ours, then theirs), drop the base and the markers."""
    out, side = [], None
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith("<<<<<<<"):
            side = "ours"
        elif line.startswith("|||||||") and side:
            side = "base"
        elif line.startswith("=======") and side:
            side = "theirs"
        elif line.startswith(">>>>>>>") and side:
            side = None
        elif side != "base":
            out.append(line)
    path.write_text("".join(out))


def repair_from_report(report: str, *, markers: bool = True) -> None:
    # As the finish's note says: put each path outside the boundary back as the task's base had it.
    source = re.search(r"restore --source=([0-9a-f]+)", report)
    for match in re.finditer(r"^\s+outside_own\s+(\S+)", report, re.M):
        rel = match.group(1)
        if source:
            subprocess.run(["git", "restore", f"--source={source.group(1)}", "--staged", "--worktree", "--", rel],
                           check=True, capture_output=True)
        else:
            Path(rel).unlink(missing_ok=True)
    if not markers:
        return
    block = re.search(r"file\(s\) hold conflict markers to resolve:\n((?:    \S.*\n)+)", report)
    paths = [line.strip() for line in block.group(1).splitlines()] if block else []
    paths += re.findall(r"^\s+conflict\s+(\S+) lines .*\(unresolved_markers\)", report, re.M)
    for rel in dict.fromkeys(paths):
        if Path(rel).is_file():
            resolve_markers(Path(rel))


def main() -> int:
    prompt = Path(sys.argv[1]).read_text()
    attempt = int(os.environ.get("WTC_ATTEMPT", "1"))
    repair = os.environ.get("WTC_REPAIR") == "1"
    log("begin", argv=sys.argv[1:], cwd=os.getcwd(), run=os.environ.get("WTC_RUN"),
        worktree=os.environ.get("WTC_WORKTREE"), port_base=os.environ.get("WTC_PORT_BASE"),
        prompt_file=os.environ.get("WTC_PROMPT_FILE"), report_file=os.environ.get("WTC_REPORT_FILE"),
        stdin=sys.stdin.read() if sys.stdin is not None else None, mine=os.environ.get("MINE"))
    report = prompt.split("\n---\nwtc: ", 1)[1] if "\n---\nwtc: " in prompt else ""
    directives = []
    for line in prompt.splitlines():
        if not line.startswith("! "):
            continue
        words = line[2:].split(" ")
        if words[0].startswith("@"):
            when, words = words[0][1:], words[1:]
            if when == "repair" and not repair:
                continue
            if when == "fix-verify" and "verification failed" not in report:
                continue
            if when.isdigit() and int(when) != attempt:
                continue
        directives.append((line, words))
    if repair:
        repair_from_report(report, markers=not any(words[0] == "keep-markers" for _, words in directives))
    for line, words in directives:
        verb, args = words[0], words[1:]
        if verb == "keep-markers":
            continue   # not an action: it told the repair above to leave the markers in
        if verb in ("write", "append"):
            path = Path(args[0])
            path.parent.mkdir(parents=True, exist_ok=True)
            text = " ".join(args[1:]).replace("\\n", "\n") + "\n"
            if verb == "write":
                path.write_text(text)
            else:
                with path.open("a") as handle:
                    handle.write(text)
        elif verb == "sleep":
            time.sleep(float(args[0]))
        elif verb == "hang":
            time.sleep(1_000_000)
        elif verb == "crash":
            log("crash", code=int(args[0]))
            return int(args[0])
        elif verb == "spawn-child":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
            log("child", child=child.pid)
        elif verb == "wait-file":
            while not Path(args[0]).exists():
                time.sleep(0.05)
        elif verb == "wait-merged":
            branch = f"wtc/{os.environ['WTC_RUN']}/integration"
            deadline = time.time() + 300
            while f"merge task {args[0]} into" not in subprocess.run(
                    ["git", "log", "--format=%s", branch], capture_output=True, text=True).stdout:
                if time.time() > deadline:
                    log("crash", code=5)
                    return 5
                time.sleep(0.1)
        elif verb == "require":
            if not Path(args[0]).exists():
                print(f"standin: {args[0]} is missing", file=sys.stderr)
                log("crash", code=4)
                return 4
        elif verb == "commit":
            subprocess.run(["git", "add", "-A"], check=True)
            subprocess.run(["git", "commit", "-q", "-m", " ".join(args) or "agent"], check=True)
        else:
            print(f"standin: unknown directive {line!r}", file=sys.stderr)
            return 2
    log("end")
    print(f"standin: task {os.environ.get('WTC_TASK')} attempt {attempt} done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
