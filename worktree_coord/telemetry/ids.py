"""The ids that tie every process acting on a run into one trace.

A run gets a random trace id and a root span id when it starts; both are stored with the run, so
any process (the CLI, the Python API, the MCP server, a Claude Code hook) builds the same remote
parent from the store. A task's span id is derived from the run's trace id and the task's name
(the first 8 bytes of a SHA-256), so every process names the same task span without storing
anything more, and the span itself can be written once, by whichever process ends the task.

Pure: no OpenTelemetry import (the coordinator makes ids for every run, traced or not).
"""

from __future__ import annotations

import os

from ..digest import sha256
from ..frozen import value_class


def _random_nonzero(size: int) -> int:
    while True:
        value = int.from_bytes(os.urandom(size), "big")
        if value:              # all zeros is the invalid id in W3C trace context
            return value


@value_class
class RunTrace:
    """A run's trace id (128 bits) and root span id (64 bits)."""

    trace_id: int
    root_span_id: int

    @classmethod
    def new(cls) -> "RunTrace":
        return cls(_random_nonzero(16), _random_nonzero(8))

    @classmethod
    def from_hex(cls, trace_id: str, root_span_id: str) -> "RunTrace":
        return cls(int(trace_id, 16), int(root_span_id, 16))

    @property
    def trace_hex(self) -> str:
        return f"{self.trace_id:032x}"

    @property
    def root_hex(self) -> str:
        return f"{self.root_span_id:016x}"

    def task_span_id(self, task: str) -> int:
        """The span id of task `task`'s span in this trace: the same in every process."""
        digest = sha256(f"{self.trace_hex}/task/{task}".encode()).digest()
        return int.from_bytes(digest[:8], "big") or 1
