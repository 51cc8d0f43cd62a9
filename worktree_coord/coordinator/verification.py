"""The verification gate: run a command in a scratch worktree of a candidate commit.

Input: a commit and a shell command (the project's tests, a build). Output: VerifyResult with the
exit code and the tail of the output. The scratch worktree is detached (no branch), fully checked
out, created under the repository registration lock like every worktree, and always removed.
The integration ref moves only after this says ok. The command starts through the run's `Spawn`
(isolation.py): by default in a network namespace of its own, so a suite that binds a fixed port
passes while another task's suite holds that port.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..frozen import value_class
from ..gitrepo import GitRepo
from ..gitrepo.environment import REDIRECTING
from ..gitrepo.held import write_held
from ..isolation import Spawn

OUTPUT_TAIL_BYTES = 4000


@value_class
class VerifyResult:
    commit: str
    command: str
    ok: bool
    exit_code: int | None
    output_tail: str
    seconds: float
    network: dict[str, Any] | None = None    # Spawn.to_json(): how the command reached the network

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "command": self.command, "ok": self.ok, "exit_code": self.exit_code,
                "output_tail": self.output_tail, "seconds": round(self.seconds, 2)} \
            | ({"network": self.network} if self.network else {})


def verify_commit(git: GitRepo, commit: str, command: str, scratch_root: Path, *, timeout: float,
                  spawn: Spawn) -> VerifyResult:
    """Check out `commit` in a scratch worktree, run `command` there (shell, started as `spawn`
    says), remove the worktree."""
    import subprocess
    import uuid
    path = scratch_root / f"verify-{commit[:12]}-{uuid.uuid4().hex[:6]}"
    started = time.monotonic()
    git.add_detached_worktree(path, commit)
    try:
        # The project's command runs in the scratch worktree; git inside it must find that checkout.
        env = {k: v for k, v in os.environ.items() if k not in REDIRECTING} | {"WTC_VERIFY_COMMIT": commit}
        try:
            write_held()   # the project's command may run git on any object of the repository
            done = subprocess.run(spawn.shell(command), cwd=path, env=env, capture_output=True, timeout=timeout)
            output = (done.stdout + done.stderr)[-OUTPUT_TAIL_BYTES:].decode("utf-8", "replace")
            return VerifyResult(commit, command, done.returncode == 0, done.returncode, output,
                                time.monotonic() - started, spawn.to_json())
        except subprocess.TimeoutExpired as expired:
            raw = (expired.stdout or b"") + (expired.stderr or b"")
            output = raw[-OUTPUT_TAIL_BYTES:].decode("utf-8", "replace") + f"\n[timed out after {timeout:.0f} s]"
            return VerifyResult(commit, command, False, None, output, time.monotonic() - started, spawn.to_json())
    finally:
        git.remove_worktree(path)
