"""How one MCP call runs: on a worker thread, as its own owner, through a fresh Coordinator, and back
as the same `schema`-tagged JSON the command line prints under `--json`.

Stage: between the SDK's tool handler and the Python API. Input: an operation (a function of a
Coordinator returning a `Reply`). Output: a `CallToolResult` with the short text, the JSON as text
(for clients that read only text) and the JSON as structured content.

Invariants:
- the call runs in a thread (`anyio.to_thread`, not abandoned on cancel): a client that disconnects
  mid-call does not stop it; it finishes, or rolls back exactly as a killed `wtc` process would
  (idempotency records and leases live in the store, not in this process);
- each call is its own owner (`store.liveness.separate_owner`): two calls on one task serialize on
  its lease as two `wtc` processes do, though they share a pid;
- a `WtcError` becomes an error result carrying its kind, exit code, message, `fix` and details; any
  other exception is a bug, reported as exit 6 (internal) and logged with its traceback;
- `is_error` is true exactly when the exit code is not 0, as the CLI's exit status is not 0.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp_types import CallToolResult, TextContent

from ..frozen import value_class
from ..output.tagging import tagged, tagged_error, to_json_text
from ..output.progress import describe
from ..errors import InternalError, WtcError
from ..store.liveness import separate_owner

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from ..coordinator import Coordinator

log = logging.getLogger("worktree_coord.mcp")


@value_class
class Reply:
    """What an operation gives back: the `--json` payload (untagged), its schema name (`task.finish`),
    the short text a person would read, and the exit code when the payload does not carry one."""

    payload: dict[str, Any]
    schema: str
    text: str
    exit_code: int | None = None


@value_class
class Served:
    """What every call of one server shares: the repository it coordinates and the bound on calls
    running at once (calls beyond it wait their turn, in order)."""

    repo: Path
    limiter: anyio.CapacityLimiter


class ProgressForwarder:
    """An `events.Reporter` that turns counted events (`done` of `total`, e.g. `merge.progress`,
    `consolidate.progress`) into MCP progress notifications. Called on the worker thread; sends on
    the event loop. Progress is best effort: a client that has gone never breaks the call."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.last = 0

    def event(self, kind: str, **data: Any) -> None:
        done, total = data.get("done"), data.get("total")
        if not isinstance(done, int) or not isinstance(total, int) or done <= self.last:
            return  # progress must only grow; uncounted events are not progress
        self.last = done
        try:
            anyio.from_thread.run(self.context.report_progress, done, total, describe(kind, data))
        except Exception:  # noqa: BLE001 - the client went away or does not listen: keep working
            log.debug("progress notification not delivered", exc_info=True)


async def run_call(served: Served, operation: Callable[[Coordinator], Reply], *,
                   context: Context | None = None, progress: bool = False,
                   needs_repository: bool = True) -> CallToolResult:
    """Run `operation` against a Coordinator of the served repository and render its reply (or the
    error it raised) as a tool result."""
    reporter = ProgressForwarder(context) if progress and context is not None else None
    try:
        reply = await call_in_thread(served, operation, reporter=reporter, needs_repository=needs_repository)
    except WtcError as error:
        return error_result(error)
    return reply_result(reply)


async def call_in_thread(served: Served, operation: Callable[[Coordinator], Any], *,
                         reporter: ProgressForwarder | None = None, needs_repository: bool = True) -> Any:
    """`operation(coordinator)` on a worker thread, as its own owner; returns what it returns. A
    `WtcError` passes through; any other exception becomes an `InternalError` (and is logged).
    Without `needs_repository` (a pure operation such as merging one file's text) it gets None."""

    def work() -> Any:
        from ..coordinator import Coordinator

        if not needs_repository:
            return operation(None)  # type: ignore[arg-type]
        with separate_owner(), Coordinator(served.repo, reporter=reporter) as coordinator:
            return operation(coordinator)

    try:
        # Not abandoned on cancel: a disconnect waits for the call to end instead of leaving it
        # running unobserved or, worse, half done.
        return await anyio.to_thread.run_sync(work, limiter=served.limiter)
    except WtcError:
        raise
    except Exception as unexpected:
        log.exception("internal error in a wtc MCP call")
        raise InternalError(
            f"internal error (a bug in wtc, not in your input): {type(unexpected).__name__}: {unexpected}",
            fix="the server's stderr has the traceback; report it with the tool call that caused it") from unexpected


def reply_result(reply: Reply) -> CallToolResult:
    """A reply as a tool result: the short text, then the JSON (text and structured)."""
    body = tagged(reply.payload, schema=reply.schema, exit_code=reply.exit_code)
    return _result(reply.text, body)


def error_result(error: WtcError) -> CallToolResult:
    """An error as a tool result (`is_error`), with everything the CLI's `--json` error carries."""
    lines = [f"error ({error.kind}, exit {error.exit_code}): {error.message}"]
    if error.fix:
        lines.append(f"fix: {error.fix}")
    retry = error.details.get("retry_after_seconds")
    if retry is not None:
        lines.append(f"retry after {retry} s with the same arguments and idempotency_key")
    return _result("\n".join(lines), tagged_error(error))


def _result(text: str, body: dict[str, Any]) -> CallToolResult:
    serialized = to_json_text(body)
    return CallToolResult(
        content=[TextContent(type="text", text=text), TextContent(type="text", text=serialized)],
        structured_content=json.loads(serialized),   # plain JSON values, exactly what the text says
        is_error=body["exit_code"] != 0)
