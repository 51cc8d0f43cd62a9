"""Where a swarm's CPU goes, by kind of process: the harness's per-process accounting.

Stage: measurement helper for scripts/stress_swarm.py (`--cpu-by-process`); not part of the product.
Input: a C compiler (`cc`) and the real `git`. Output: a `git` wrapper put first on PATH for the
swarm's processes, and a table of CPU-seconds (user + sys) by kind of process.

Why a wrapper in C and not the harness's own rusage: a git process is a grandchild (a `wtc` process's
or a served call's child), so its CPU is folded into its parent's children's total and cannot be told
apart from the interpreter's. The wrapper forks the real git, waits for it with `wait4` (microsecond
user and system time, git's own children included) and appends one line `ROLE SUBCOMMAND USER_US
SYS_US` to WTC_ACCT_GIT_LOG. A compiled wrapper costs about a fork of a small process a git call, a
Python one would cost more than most git calls. It forwards SIGTERM/SIGINT/SIGHUP and asks the kernel
to SIGKILL git when the wrapper dies (PR_SET_PDEATHSIG), so a kill of the wrapper alone, as a
`wtc` process's kill of its git child by pid, ends git too; a process-group kill reaches both.

The other kinds come from rusage the harness already waits for: each `wtc` client process (wait4 in
`AccountedPopen`, which includes its git on the CLI path), each pool worker's own work
(RUSAGE_SELF around a task), and the server's own and reaped children's time (/proc/PID/stat before
it stops: on the warm path the served calls with their git).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

WRAPPER_C = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
static pid_t child;
static void forward(int sig) { if (child > 0) kill(child, sig); }
int main(int argc, char **argv) {
    const char *real = getenv("WTC_ACCT_REAL_GIT");
    const char *log = getenv("WTC_ACCT_GIT_LOG");
    if (!real) return 127;
    pid_t parent = getpid();
    child = fork();
    if (child < 0) return 127;
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(137);
        argv[0] = (char *)real;
        execv(real, argv);
        _exit(127);
    }
    signal(SIGTERM, forward); signal(SIGINT, forward); signal(SIGHUP, forward);
    int status; struct rusage ru;
    while (wait4(child, &status, 0, &ru) < 0 && errno == EINTR) {}
    if (log) {
        const char *sub = "?";
        for (int i = 1; i < argc; i++) {
            if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "-C")) { i++; continue; }
            if (argv[i][0] == '-') continue;
            sub = argv[i]; break;
        }
        const char *role = getenv("WTC_ACCT_ROLE");
        char line[256];
        int n = snprintf(line, sizeof line, "%s %.40s %ld %ld\n", role ? role : "wtc", sub,
                         (long)(ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec),
                         (long)(ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec));
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0600);
        if (fd >= 0) { if (write(fd, line, n) < 0) {} close(fd); }
    }
    if (WIFSIGNALED(status)) { signal(WTERMSIG(status), SIG_DFL); raise(WTERMSIG(status)); _exit(128 + WTERMSIG(status)); }
    return WEXITSTATUS(status);
}
"""


def install_git_wrapper(folder: Path | None = None) -> dict[str, str]:
    """Build the wrapper and return the environment that puts it first on PATH (merge it into
    os.environ before the swarm's processes start)."""
    real = shutil.which("git")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if real is None or compiler is None:
        raise SystemExit("--cpu-by-process needs `git` and a C compiler (`cc`) on PATH; install build-essential")
    folder = Path(folder or tempfile.mkdtemp(prefix="wtc-acct-"))
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    source = folder / "gitwrap.c"
    source.write_text(WRAPPER_C)
    subprocess.run([compiler, "-O2", "-o", str(folder / "bin" / "git"), str(source)], check=True)
    log = folder / "git.log"
    log.write_text("")
    return {"PATH": f"{folder / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "WTC_ACCT_REAL_GIT": real,
            "WTC_ACCT_GIT_LOG": str(log)}


@dataclass
class GitCpu:
    """CPU-seconds of git processes by (role, subcommand), and how many ran."""
    seconds: dict[tuple[str, str], float] = field(default_factory=dict)
    calls: dict[tuple[str, str], int] = field(default_factory=dict)

    def total(self, role: str | None = None) -> float:
        return sum(v for (r, _), v in self.seconds.items() if role is None or r == role)


def read_git_log(path: str | Path) -> GitCpu:
    cpu = GitCpu()
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        key = (parts[0], parts[1])
        cpu.seconds[key] = cpu.seconds.get(key, 0.0) + (int(parts[2]) + int(parts[3])) / 1e6
        cpu.calls[key] = cpu.calls.get(key, 0) + 1
    return cpu


def proc_cpu(pid: int) -> tuple[float, float]:
    """(own, reaped children's) CPU-seconds of a live process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    # fields after the name: state is [0], utime [11], stime [12], cutime [13], cstime [14]
    return (int(fields[11]) + int(fields[12])) / ticks, (int(fields[13]) + int(fields[14])) / ticks


class AccountedPopen(subprocess.Popen):  # type: ignore[type-arg]
    """A Popen that keeps the child's rusage (user + sys seconds, its reaped children included)."""

    cpu: float | None = None

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            pid, status = self.pid, 0
        else:
            if pid == self.pid:
                self.cpu = usage.ru_utime + usage.ru_stime
        return pid, status

    def _internal_poll(self, _deadstate=None, _waitpid=None, _WNOHANG=os.WNOHANG, _ECHILD=None):  # type: ignore[override]
        # poll() reaps through here: keep the rusage of that reaping too
        if self.returncode is None:
            if not self._waitpid_lock.acquire(False):
                return None
            try:
                if self.returncode is not None:
                    return self.returncode
                pid, status = self._try_wait(_WNOHANG)
                if pid == self.pid:
                    self._handle_exitstatus(status)
            finally:
                self._waitpid_lock.release()
        return self.returncode


def format_table(rows: list[tuple[str, float, int | None]], tasks: int) -> list[str]:
    """Lines of `kind | CPU-s | per task | share | processes`; indented kinds are parts of the row
    above them, so the total and the shares count the others only."""
    total = sum(seconds for kind, seconds, _ in rows if not kind.startswith(" "))
    lines = [f"{'kind':<44}{'CPU-s':>9}{'per task':>10}{'share':>7}{'procs':>8}"]
    for kind, seconds, count in rows:
        share = f"{100 * seconds / total:.0f}%" if total else "-"
        lines.append(f"{kind:<44}{seconds:>9.2f}{seconds / max(1, tasks):>10.3f}{share:>7}"
                     f"{'' if count is None else count:>8}")
    lines.append(f"{'total':<44}{total:>9.2f}{total / max(1, tasks):>10.3f}")
    return lines
