"""Run a git process that finishes what it starts even when wtc dies while it runs.

A git command's output normally comes back through pipes. When the wtc process reading them is
killed (SIGKILL, the OOM killer, a harness's timeout), the pipes' read ends close, and the next line
git writes kills it with SIGPIPE, wherever it is: `git merge` dies after it wrote the conflicted
files and index but before it records MERGE_HEAD, and the next `task update` takes those half-merged
files for the agent's own work. Measured: a fanout runner SIGKILLed during `task update` left
exactly that (tests/gitrepo/test_running.py reproduces it with a real git).

So git's stdout and stderr go to anonymous files instead: a git whose caller died runs to its end
and leaves git's own consistent state (a merge in progress with MERGE_HEAD, a released lock), which
every wtc call already knows how to pick up, the same as a call killed just after the git command
returned. The files are memory files where the system has them (memfd_create on Linux), else
unlinked temporary files: two per call, within noise of a pipe next to the process start itself.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, BinaryIO, Callable, Mapping, Sequence

from .held import write_held

if TYPE_CHECKING:
    import subprocess


def run_to_end(command: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str] | None,
               input: bytes | None = None, timeout: float | None = None,
               pass_fds: Sequence[int] = ()) -> subprocess.CompletedProcess[bytes]:
    """`subprocess.run(command, capture_output=True)` whose child never dies of its caller's death:
    stdin is `input` (or nothing), stdout and stderr are read back from temporary files. `pass_fds`:
    descriptors the child inherits (a flock the caller holds, which the child then holds until it
    ends, should the caller die first)."""
    import subprocess   # loaded when git runs: `wtc merge` with nothing waiting runs none

    write_held()   # git must find every object this process wrote (held.py)

    with _scratch_file() as out, _scratch_file() as err:
        done = subprocess.run(list(command), cwd=cwd, env=dict(env) if env is not None else None, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL, stdout=out, stderr=err,
                              timeout=timeout, pass_fds=tuple(pass_fds))
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(done.args, done.returncode, out.read(), err.read())


def start_to_end(command: Sequence[str], *, cwd: str | os.PathLike[str],
                 env: Mapping[str, str] | None) -> Callable[[], subprocess.CompletedProcess[bytes]]:
    """`run_to_end` started now and waited for later: the returned function waits for the process
    and gives what `run_to_end` gives (once). For a read that runs beside the caller's next git
    process (two cores, two processes); its output goes to temporary files the same way, so a caller
    killed meanwhile leaves the read to finish on its own."""
    import subprocess

    write_held()
    out, err = _scratch_file(), _scratch_file()
    try:
        process = subprocess.Popen(list(command), cwd=cwd, env=dict(env) if env is not None else None,
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    except BaseException:
        out.close()
        err.close()
        raise

    def wait() -> subprocess.CompletedProcess[bytes]:
        try:
            code = process.wait()
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(process.args, code, out.read(), err.read())
        finally:
            out.close()
            err.close()
    return wait


def _scratch_file() -> BinaryIO:
    """An unnamed file for a git process's output: a memory file where the system has them (Linux's
    memfd_create: a file like any other to git, gone with its last descriptor), else an unlinked
    temporary file. The memory file spares each call that runs git the tempfile module's import
    (with random, shutil and the compression modules shutil loads: ~3-4 ms of a `task start`)."""
    if hasattr(os, "memfd_create"):
        try:
            return open(os.memfd_create("wtc-git-output", os.MFD_CLOEXEC), "w+b")
        except OSError:
            pass   # a kernel or sandbox without it: a file on disk does the same
    import tempfile

    return tempfile.TemporaryFile()
