"""Agent processes: the one place `wtc fanout` and `wtc task exec` start a command in a task's worktree.

Stage: between a task's start and its finish. Input: the command (placeholders already filled), the
worktree, the environment. Output: an `AgentProcess` to wait on, stop, or (after the runner that
started it was killed) adopt again.

Invariants:
- every agent runs through `spawn_agent`, in a process group of its own (its own session), with
  stdin closed and its output to a file or the caller's stream: a timeout, Ctrl-C or SIGTERM of
  the runner ends the agent and every process it started (`stop`), never the runner itself;
- under `wtc fanout` the command runs inside a small `sh` wrapper that writes its own pid first and
  the agent's exit code last (atomically, beside the log): a runner killed with SIGKILL leaves the
  agent running, and the next runner reads whether it ended and how (`adopt`), so an agent that
  finished is never run again and one that still runs is waited for, not doubled;
- it runs with the network its caller's `Spawn` gives (isolation.py): `wtc task exec`'s command the
  run's (by default a namespace of its own, its own loopback, so two tasks' test servers can both
  bind 127.0.0.1:8000); a fanout agent the plan's (`Plan.network_of`: shared unless the plan asks
  isolated, since an agent CLI reaches its hosted model over the internet);
- the environment is the runner's, without variables that point git elsewhere or that name
  another task, plus the task's own (`.wtc/env`: run, task, worktree, ports) and the caller's.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import IO, Mapping, Sequence

from ..frozen import value_class
from ..gitrepo.environment import REDIRECTING
from ..isolation import Spawn

# Variables that describe one task: set for each agent, never inherited from the runner's own shell
# (a runner started from inside a task's worktree would hand its task to every agent).
TASK_VARIABLES = ("WTC_RUN", "WTC_TASK", "WTC_WORKTREE", "WTC_MAIN_CHECKOUT", "WTC_PORT_BASE", "WTC_PORT_COUNT",
                  "WTC_REPAIR", "WTC_ATTEMPT", "WTC_ATTEMPTS", "WTC_PROMPT_FILE", "WTC_REPORT_FILE")

# $1 the pid file, $2 the status file, then the command. The wrapper's pid is the process group's
# (its own session). The status is written only when the command ended by itself (a kill of the
# group takes the wrapper too): its absence means the agent did not finish.
_WRAPPER = ('printf "%s\\n" "$$" > "$1"; status=$2; shift 2; "$@"; code=$?; '
            'printf "%s\\n" "$code" > "$status.tmp" && mv -f "$status.tmp" "$status"; exit "$code"')

STOP_GRACE_SECONDS = 3.0


@value_class
class Ended:
    """How an agent process ended: `exit_code` (None when it was killed before it could say: its
    group was stopped, or it vanished without the wrapper writing a status)."""

    exit_code: int | None


class AgentProcess:
    """A running agent: started by this process (`popen`), or adopted from a runner that was killed."""

    def __init__(self, pid: int, *, popen: subprocess.Popen[bytes] | None = None, status_file: Path | None = None):
        self.pid = pid
        self.popen = popen
        self.status_file = status_file

    @classmethod
    def adopt(cls, pid_file: Path, status_file: Path) -> "AgentProcess | None":
        """The agent a killed runner left running, when its wrapper still runs (checked by its command
        line naming `status_file`, so a reused pid is never taken for it); None when it is not."""
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        return cls(pid, status_file=status_file) if _runs_wrapper(pid, status_file) else None

    def poll(self) -> Ended | None:
        """None while it runs; how it ended once it has."""
        if self.popen is not None:
            code = self.popen.poll()
            if code is None:
                return None
            recorded = read_status(self.status_file) if self.status_file is not None else None
            if recorded is not None:
                return Ended(recorded)
            return Ended(code if code >= 0 else None)
        recorded = read_status(self.status_file) if self.status_file is not None else None
        if recorded is not None:
            return Ended(recorded)
        if self.status_file is not None and _runs_wrapper(self.pid, self.status_file):
            return None
        # Gone: a last look, since the wrapper writes the status just before it exits.
        recorded = read_status(self.status_file) if self.status_file is not None else None
        return Ended(recorded)

    def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """End the agent and everything it started: SIGTERM to its process group, SIGKILL after `grace`."""
        _signal_group(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if self.poll() is not None and not _group_alive(self.pid):
                break
            time.sleep(0.05)
        if _group_alive(self.pid):
            _signal_group(self.pid, signal.SIGKILL)
        if self.popen is not None:
            self.popen.wait()


def spawn_agent(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], output: IO[bytes] | int | None,
                spawn: Spawn, status_file: Path | None = None, pid_file: Path | None = None) -> AgentProcess:
    """Start `argv` in `cwd` with exactly `env`, in a process group of its own, stdin closed, stdout
    and stderr to `output` (a file, a descriptor, or None: the caller's own), its network as
    `spawn` says. With `status_file` (and `pid_file`), it runs
    inside the wrapper that records its pid and exit code (module docstring).

    The one place an agent process is started: whatever changes how agents run (an isolated network,
    a sandbox) wraps `argv` here, for `wtc fanout` and `wtc task exec` alike. The isolation helper
    execs the command in place, so the pid and process group are the wrapper's as before."""
    command = list(argv)
    if status_file is not None:
        if pid_file is None:
            raise ValueError("a status file needs a pid file")
        for stale in (status_file, pid_file):
            stale.unlink(missing_ok=True)
        command = ["/bin/sh", "-c", _WRAPPER, "wtc-agent", str(pid_file), str(status_file), *command]
    popen = subprocess.Popen(spawn.argv(command), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=output,
                             stderr=subprocess.STDOUT if output is not None else None, start_new_session=True)
    return AgentProcess(popen.pid, popen=popen, status_file=status_file)


def read_status(status_file: Path | None) -> int | None:
    """The exit code the wrapper recorded, or None when it has not (yet)."""
    if status_file is None:
        return None
    try:
        return int(status_file.read_text().strip())
    except (OSError, ValueError):
        return None


def agent_environment(worktree: Path, extra: Mapping[str, str], *, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment an agent runs with: `base` (default: this process's) without git's redirecting
    variables and without another task's variables, then the task's `.wtc/env` (WTC_RUN, WTC_TASK,
    WTC_WORKTREE, the port block), then `extra`."""
    env = {k: v for k, v in (base if base is not None else os.environ).items()
           if k not in REDIRECTING and k not in TASK_VARIABLES}
    env.update(read_env_file(worktree / ".wtc" / "env"))
    env.update(extra)
    return env


def read_env_file(path: Path) -> dict[str, str]:
    """`NAME=value` lines (values shell-quoted, as worktree_setup writes them); comments skipped."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        try:
            found[name.strip()] = "".join(shlex.split(value))
        except ValueError:
            continue
    return found


def _runs_wrapper(pid: int, status_file: Path) -> bool:
    """Whether `pid` is alive and is the wrapper of this attempt (its command line names the file;
    without /proc, as on macOS, whether the pid is alive at all)."""
    if not Path("/proc/self").exists():
        return _group_alive(pid)
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if state[state.rfind(")") + 2:].startswith("Z"):
        return False
    return str(status_file).encode() in cmdline.split(b"\0")


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
