"""Named crash points: places inside multi-step operations where a test can kill the process.

`crash_point("finish.after_commit")` does nothing unless the environment variable WTC_CRASH_AT
names that point, in which case the process kills itself with SIGKILL: no cleanup, no finally
blocks, exactly what a machine or a harness does to a running agent. Tests use it to prove that the
retried or resumed call ends in the right state.
"""

from __future__ import annotations

import os
import signal

ENV = "WTC_CRASH_AT"


def crash_point(name: str) -> None:
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
