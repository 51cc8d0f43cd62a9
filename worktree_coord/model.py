"""The records worktree_coord keeps and the states a task moves through.

Plain frozen dataclasses shared by the store, the coordinator and the faces. A task's state machine:

    started --finish--> finished --merge--> merged
       |  ^                |                  
       |  '--rejected <----'   (boundary violation: fix in the worktree, finish again)
       |        '--------------> conflict --update/finish--> merged
       '--abandon--> abandoned      empty (finished with no changes)      failed

`started`, `rejected` and `conflict` are live (the task may still change); the rest are ended.
Abandon takes any task not merged yet: a live one, a `finished` one waiting for its merge, a `failed` one.
"""

from __future__ import annotations

import enum
import json
import re

from . import lean_dataclasses  # noqa: F401  (first: dataclasses without inspect)
from dataclasses import dataclass, field  # noqa: E402

from .errors import UsageError
from .frozen import FrozenValue

TYPE_CHECKING = False   # not typing's
if TYPE_CHECKING:
    from typing import Any


# An intent's states (the store's `intents.state`): waiting to be applied, applied or given up,
# and the union the lead must still act on before landing leaves nothing out.
PENDING_INTENT_STATES = ("pending", "declared", "needs_network")
UNAPPLIED_INTENT_STATES = PENDING_INTENT_STATES + ("failed", "conflict", "rejected")


class TaskState(str, enum.Enum):
    STARTED = "started"
    FINISHED = "finished"
    MERGED = "merged"
    CONFLICT = "conflict"
    REJECTED = "rejected"
    ABANDONED = "abandoned"
    EMPTY = "empty"
    FAILED = "failed"

    @property
    def live(self) -> bool:
        """A live task may still change: its worktree belongs to an agent."""
        return self in (TaskState.STARTED, TaskState.REJECTED, TaskState.CONFLICT)

    @property
    def holds_ports(self) -> bool:
        """A task holding its port block: a live one, a finished one waiting for its merge, which
        may conflict and bring it back to its agent (whose servers may still bind the block), or
        one whose verification failed, which `task update` brings back alike. It ends (merged,
        empty, abandoned) and lets go."""
        return self.live or self in (TaskState.FINISHED, TaskState.FAILED)


class RunState(str, enum.Enum):
    OPEN = "open"
    LANDED = "landed"


# Names of runs and tasks become parts of branch names (wtc/<run>/<task>), folder names and keys.
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$")
RESERVED_TASK_NAMES = frozenset({"integration"})


def validate_name(kind: str, name: str) -> str:
    """Return `name` if it is a valid run or task name, else raise UsageError saying why."""
    why = None
    if not isinstance(name, str) or not name:
        why = "it is empty"
    elif len(name) > 64:
        why = f"it is {len(name)} characters long (at most 64)"
    elif not _NAME.match(name):
        bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "._-"))})
        if bad:
            why = "it contains " + ", ".join(repr(c) for c in bad)
        else:
            why = f"it starts with {name[0]!r}"
    elif ".." in name:
        why = "it contains '..'"
    elif name.endswith(".lock") or name.endswith("."):
        why = "git refuses branch names ending in '.lock' or '.'"
    elif kind == "task" and name in RESERVED_TASK_NAMES:
        why = f"'{name}' is reserved for the run's own branch"
    if why:
        raise UsageError(
            f"invalid {kind} name {name!r}: {why}",
            fix=f"use 1-64 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-' (e.g. {kind}-1)",
            details={"kind": kind, "name": name},
        )
    return name


_put = object.__setattr__
_NEW = object()   # a field's default_factory: a new dict per record, as dataclass's `field(default_factory=dict)`


@dataclass(init=False, repr=False, eq=False)
class Boundary(FrozenValue):
    """What a task may write (`own`), what it may see (`read`), and what is reserved.

    Globs are gitignore-style and repository-relative. `reserved` lists the reserved-file patterns in
    force when the task started (defaults plus project configuration), so a later configuration change
    does not move a running task's goalposts.
    """

    own: tuple[str, ...]
    read: tuple[str, ...] = ()
    reserved: tuple[str, ...] = ()
    exclusive: bool = False
    sparse: bool = False

    def __init__(self, own: tuple[str, ...], read: tuple[str, ...] = (), reserved: tuple[str, ...] = (),
                 exclusive: bool = False, sparse: bool = False) -> None:
        _put(self, "own", own)
        _put(self, "read", read)
        _put(self, "reserved", reserved)
        _put(self, "exclusive", exclusive)
        _put(self, "sparse", sparse)

    def to_json(self) -> dict[str, Any]:
        return {
            "own": list(self.own),
            "read": list(self.read),
            "reserved": list(self.reserved),
            "exclusive": self.exclusive,
            "sparse": self.sparse,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Boundary":
        return cls(
            own=tuple(data.get("own", ())),
            read=tuple(data.get("read", ())),
            reserved=tuple(data.get("reserved", ())),
            exclusive=bool(data.get("exclusive", False)),
            sparse=bool(data.get("sparse", False)),
        )


@dataclass(init=False, repr=False, eq=False)
class RunRecord(FrozenValue):
    """A run as the store keeps it: its pin, integration branch, state and options."""

    run_id: str
    base: str
    integration_ref: str
    state: RunState
    created_at: float
    options: dict[str, Any] = field(default_factory=dict)
    trace_id: str | None = None       # the run's trace (32 hex digits): every process acting on it joins it
    root_span_id: str | None = None   # the run's root span (16 hex digits), the parent of its task spans
    remote: str | None = None         # the git remote holding the integration branch (None: this repository)

    def __init__(self, run_id: str, base: str, integration_ref: str, state: RunState, created_at: float,
                 options: dict[str, Any] = _NEW, trace_id: str | None = None,  # type: ignore[assignment]
                 root_span_id: str | None = None, remote: str | None = None) -> None:
        _put(self, "run_id", run_id)
        _put(self, "base", base)
        _put(self, "integration_ref", integration_ref)
        _put(self, "state", state)
        _put(self, "created_at", created_at)
        _put(self, "options", {} if options is _NEW else options)
        _put(self, "trace_id", trace_id)
        _put(self, "root_span_id", root_span_id)
        _put(self, "remote", remote)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "base": self.base,
            "integration": self.integration_ref,
            "state": self.state.value,
            "created_at": self.created_at,
            "options": self.options,
            "trace_id": self.trace_id,
            "remote": self.remote,
        }


@dataclass(init=False, repr=False, eq=False)
class TaskRecord(FrozenValue):
    """A task as the store keeps it: its state, branch, worktree and boundary."""

    run_id: str
    task_id: str
    state: TaskState
    branch: str
    worktree: str | None
    boundary: Boundary
    author: str
    head: str | None
    created_at: float
    updated_at: float
    finished_at: float | None = None
    result: dict[str, Any] = field(default_factory=dict)

    def __init__(self, run_id: str, task_id: str, state: TaskState, branch: str, worktree: str | None,
                 boundary: Boundary, author: str, head: str | None, created_at: float, updated_at: float,
                 finished_at: float | None = None, result: dict[str, Any] = _NEW) -> None:  # type: ignore[assignment]
        _put(self, "run_id", run_id)
        _put(self, "task_id", task_id)
        _put(self, "state", state)
        _put(self, "branch", branch)
        _put(self, "worktree", worktree)
        _put(self, "boundary", boundary)
        _put(self, "author", author)
        _put(self, "head", head)
        _put(self, "created_at", created_at)
        _put(self, "updated_at", updated_at)
        _put(self, "finished_at", finished_at)
        _put(self, "result", {} if result is _NEW else result)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "task": self.task_id,
            "state": self.state.value,
            "branch": self.branch,
            "worktree": self.worktree,
            "boundary": self.boundary.to_json(),
            "author": self.author,
            "head": self.head,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "finished_at": self.finished_at,
            "result": self.result,
        }


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces): what the store keeps and what request hashes hash."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_default)


def _default(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
