"""The coordination store's protocol: every piece of shared state behind one small interface.

Callers (the coordinator, idempotency, leases) use only these methods; one core implements them
(`core.py`, with the schema in `schema.py` and `dialect.py`'s table of spellings) over two
databases, SQLite (`sqlite.py`, one file in the git common dir) and PostgreSQL (`postgres.py`,
shared by machines). Every method is one short transaction; methods that decide something under contention
(claims, compare-and-set of a task's state, lease acquisition, admission) are atomic. A store that
cannot be reached raises StoreUnavailable (exit 4: nothing was decided, retry later); one that
cannot be used as configured raises StoreError (exit 2).

Liveness: every process that holds something (a claim, a lease, a place in the admission queue)
keeps a heartbeat row alive (`beat`, driven by `heartbeat.py`). On its own host a dead owner is
seen at once from its pid; elsewhere, from a heartbeat that expired by the store's clock.
"""

from __future__ import annotations

import enum
from typing import Any, Callable, Iterable, Protocol, Sequence

from ..errors import LeaseLost
from ..frozen import value_class
from ..model import RunRecord, RunState, TaskRecord, TaskState


class ClaimStatus(str, enum.Enum):
    NEW = "new"              # the caller owns the key now and must run the operation
    TAKEOVER = "takeover"    # the previous owner died mid-way: the caller resumes the operation
    DONE = "done"            # finished before: return the stored result
    RUNNING = "running"      # a live owner is running it: wait and ask again
    MISMATCH = "mismatch"    # the key was used for a different request


@value_class
class IdempotencyRecord:
    key: str
    op: str
    request_hash: str
    request: dict[str, Any]
    state: str                       # running | done | open
    owner: str | None
    result: dict[str, Any] | None
    exit_code: int | None
    created_at: float
    updated_at: float
    expires_at: float


@value_class
class Claim:
    status: ClaimStatus
    record: IdempotencyRecord


@value_class
class TaskWrite:
    """One task's write of `Store.update_tasks`: what `update_task` takes, for one task."""
    task_id: str
    fields: dict[str, Any]                             # state, worktree, head, result, ...
    holder: tuple[str, str] | None = None              # the fence: (lease name, owner)
    event: tuple[str, dict[str, Any]] | None = None    # (kind, data), logged with the row's change
    expect: Iterable[TaskState] | None = None          # only from one of these states


@value_class
class Lease:
    name: str
    owner: str
    acquired_at: float
    expires_at: float


class Store(Protocol):
    """Shared state of every run in one repository."""

    location: str

    # runs
    def create_run(self, run: RunRecord) -> bool:
        """Insert the run; False (and no change) when a run with that id exists."""

    def get_run(self, run_id: str) -> RunRecord | None: ...

    def set_run_trace(self, run_id: str, trace_id: str, root_span_id: str) -> RunRecord | None:
        """Give a run recorded without trace ids (before they were kept) its ids, unless it has some
        already (first writer wins); returns the run as stored afterwards."""

    def list_runs(self) -> list[RunRecord]: ...

    def set_run_state(self, run_id: str, state: RunState) -> None: ...

    # tasks
    def insert_task(self, task: TaskRecord, *, event: tuple[str, dict[str, Any]] | None = None,
                    context: dict[str, Any] | None = None) -> bool:
        """Insert the task; False (and no change) when it exists. `event` (kind, data): logged in the
        same transaction when the row was inserted, as `update_task`'s; `context`: merged into the
        task's context in that transaction too (a start killed after it still says where its
        boundary came from)."""

    def get_task(self, run_id: str, task_id: str) -> TaskRecord | None: ...

    def list_tasks(self, run_id: str | None = None, states: Iterable[TaskState] | None = None) -> list[TaskRecord]: ...

    def update_task(self, run_id: str, task_id: str, *, expect: Iterable[TaskState] | None = None,
                    holder: tuple[str, str] | None = None, event: tuple[str, dict[str, Any]] | None = None,
                    **fields: Any) -> bool:
        """Set fields (state, worktree, head, result, finished_at, boundary); when `expect` is given,
        only if the current state is one of them. Returns whether a row changed. `event` (kind, data):
        logged in the same transaction when the row changed (a state and the event saying so are
        never one without the other, whatever kills the process between them).

        With `holder` (lease name, owner) the write is fenced: it happens only while that owner
        holds that lease, in the same transaction; otherwise LeaseLost is raised and nothing
        changes (a caller whose heartbeat lapsed and whose lease another process took)."""

    def update_tasks(self, run_id: str, writes: Sequence[TaskWrite]) -> list[bool]:
        """`update_task` of each write, in order, in one transaction: all of them or none (a fence
        lost on any raises LeaseLost and writes nothing). Whether each changed a row. What a drain's
        records are: the merges one move of integration published, recorded together after it."""

    def delete_task(self, run_id: str, task_id: str, *, event: tuple[str, dict[str, Any]] | None = None) -> None:
        """Delete the task's record; `event` (kind, data) logged in the same transaction."""

    # idempotency
    def claim(self, key: str, op: str, request_hash: str, request: dict[str, Any], owner: str, ttl: float) -> Claim:
        """Atomically decide who runs the operation named by `key` (see ClaimStatus)."""

    def complete(self, key: str, owner: str, result: dict[str, Any], exit_code: int, *, final: bool) -> bool:
        """Record the outcome, only while `owner` still holds the running claim; False when another
        process took it over meanwhile (nothing is written). `final=False` keeps it for inspection
        but lets a repeat run again (a boundary rejection or a conflict: the caller fixes something
        and retries)."""

    def release(self, key: str, owner: str) -> None:
        """Forget a claim whose operation failed before changing anything, so a repeat runs again."""

    def takeover(self, key: str, old_owner: str | None, new_owner: str) -> bool:
        """Move a running claim from a dead owner to the caller; False if someone else did first."""

    def get_record(self, key: str) -> IdempotencyRecord | None: ...

    def delete_expired_records(self, now: float, *, dry_run: bool = False) -> list[str]: ...

    # leases
    def acquire_lease(self, name: str, owner: str, ttl: float, *, steal_from: str | None = None) -> Lease | None:
        """Take the lease if free, already ours, or held by `steal_from` (an owner the caller found
        dead or expired). Returns the lease held afterwards, or None when another owner holds it."""

    def acquire_leases(self, names: Sequence[str], owner: str, ttl: float) -> list[str]:
        """`acquire_lease` of each name (none stolen) in one write transaction: the names whose
        lease `owner` holds afterwards, in the given order (a drain takes its waiting tasks')."""

    def get_lease(self, name: str) -> Lease | None: ...

    def release_lease(self, name: str, owner: str) -> None: ...

    def release_leases(self, names: Sequence[str], owner: str) -> None:
        """`release_lease` of each name in one write transaction."""

    def list_leases(self) -> list[Lease]: ...

    def delete_lease(self, name: str, owner: str) -> bool:
        """Drop the lease if `owner` still holds it (gc of a dead owner's lease)."""

    # heartbeats: how an owner on another machine shows it is alive
    def beat(self, owner: str, ttl: float, *, renew: bool) -> bool:
        """Keep `owner` alive for `ttl` seconds from now by the store's clock, and extend the expiry
        of the leases it holds to match. `renew=False` starts a heartbeat (always True);
        `renew=True` extends one and returns False, writing nothing, when it had already expired
        or was removed: others may have taken what the owner held."""

    def owner_expired(self, owner: str) -> bool:
        """Whether `owner` has no heartbeat that is still running by the store's clock."""

    def end_beat(self, owner: str) -> None:
        """Drop the owner's heartbeat (it holds nothing any more)."""

    # admission: a first-come first-served queue bounding heavy work across processes
    def enqueue(self, kind: str, owner: str) -> int: ...

    def try_admit(self, ticket: int, kind: str, limit: int) -> bool: ...

    def leave(self, ticket: int) -> None: ...

    def queue_entries(self, kind: str | None = None) -> list[dict[str, Any]]: ...

    # intents (structured changes to reserved files, waiting for consolidation)
    def put_intents(self, run_id: str, task_id: str, intents: list[dict[str, Any]]) -> None: ...

    def add_intent(self, run_id: str, task_id: str, intent: dict[str, Any]) -> bool: ...

    def list_intents(self, run_id: str, states: Iterable[str] | None = None) -> list[dict[str, Any]]: ...

    def set_intent_state(self, run_id: str, intent_id: str, state: str, detail: dict[str, Any],
                         commit_sha: str | None = None) -> None: ...

    # the plan: boundaries by agent name pattern, per run (run_id "" applies to every run)
    def add_plan_rule(self, run_id: str, pattern: str, boundary: dict[str, Any]) -> int:
        """Append a rule; returns its id (rules are tried in id order)."""

    def list_plan_rules(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Rules of `run_id` ("" for the rules of every run), or all rules when None; id order."""

    def delete_plan_rule(self, rule_id: int) -> bool: ...

    # harness sessions (a run per agent-harness session) and the tasks their agents got
    def add_harness_session(self, harness: str, session_id: str, seq: int, run_id: str, base: str) -> bool:
        """Record the session's `seq`-th run; False (and no change) when that seq is taken."""

    def harness_sessions(self, *, harness: str | None = None, session_id: str | None = None,
                         run_id: str | None = None) -> list[dict[str, Any]]: ...

    def claim_agent_task(self, run_id: str, task_id: str, *, harness: str, session_id: str, agent: str,
                         boundary: dict[str, Any], rule: str) -> bool:
        """Reserve the task name for the agent; False (and no change) when the name is taken."""

    def agent_tasks(self, run_id: str, *, task_id: str | None = None, harness: str | None = None,
                    session_id: str | None = None, agent: str | None = None) -> list[dict[str, Any]]: ...

    def delete_agent_task(self, run_id: str, task_id: str) -> None: ...

    # task context: the boundary's origin, the worktree's preparation, its block of ports
    def allocate_port_block(self, run_id: str, task_id: str, limit: int,
                            usable: Callable[[int], bool] | None = None) -> int | None:
        """Atomically give the task the lowest port block (0..limit-1) no live task holds and
        `usable` accepts (e.g. no other repository on the machine holds its ports); its own block
        when it has one that `usable` accepts; None when every block is held."""

    def update_task_context(self, run_id: str, task_id: str, data: dict[str, Any]) -> None:
        """Merge `data` into the task's context."""

    def task_contexts(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]: ...

    def delete_task_context(self, run_id: str, task_id: str) -> None: ...

    # events (an append-only audit trail)
    def log_event(self, run_id: str, task_id: str | None, kind: str, data: dict[str, Any]) -> None: ...

    def events(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]: ...

    def run_version(self, run_id: str) -> str:
        """An opaque token that changes whenever anything of the run changes (the run's state, a
        task inserted, updated or deleted, an intent, a task context, an event), and stays equal while
        nothing does: what a live view (`wtc ui`) polls before reading the run again. One read of
        aggregates (per table: how many rows, the latest and the sum of their change times; the events'
        last id), not a counter bumped by every write: a counter row would make every task write of a
        run wait on one lock (PostgreSQL), which nothing else needs."""

    def integrity_check(self) -> list[str]:
        """Problems found (empty when healthy)."""

    def close(self) -> None: ...


def check_fence(holder: tuple[str, str], current: str | None) -> None:
    """Raise LeaseLost unless the lease `holder[0]` is held by `holder[1]`: the check a fenced write
    makes inside its own transaction (`current` is the lease's owner as read there)."""
    name, owner = holder
    if current != owner:
        raise LeaseLost(
            f"the lease {name} is no longer held by this process "
            f"({'another process holds it: ' + current if current else 'it was released'}); nothing was written",
            fix="repeat the call with the same key: it returns the other process's result, or resumes",
            retry_after=1.0,
            details={"lost_lease": name, "holder": current},
        )
