"""Every error worktree_coord raises, each carrying the exit code the command line maps it to.

One base class, `WtcError`; callers of the Python API catch it (or a subclass) and read
`exit_code`, `message` and `fix`. The faces never invent exit codes of their own: they print the
error and exit with `error.exit_code`.

Exit codes (the contract in DESIGN.md) are defined once, in `EXIT_CODES` below; the README and
docs/cli.md show that table and a test checks that they do.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False   # not typing's: every command imports this module, and typing is not free
if TYPE_CHECKING:
    from typing import Any

EXIT_OK = 0
EXIT_ACTION = 1          # the caller must act: a conflict, a failed verification, an intent not applied
EXIT_CONFLICT = EXIT_ACTION
EXIT_USAGE = 2
EXIT_BOUNDARY = 3
EXIT_BUSY = 4
EXIT_NOT_FOUND = 5
EXIT_INTERNAL = 6
EXIT_INTERRUPTED = 130   # Ctrl-C, as a shell reports SIGINT (128 + 2)


class ExitCode(namedtuple("ExitCode", ("code", "name", "meaning"))):
    """One row of the exit-code table: read-only, compared by value. A named tuple, not a frozen
    dataclass, whose generated methods were compiled at the import of every command (issue 36)."""

    __slots__ = ()
    if TYPE_CHECKING:
        code: int
        name: str
        meaning: str


EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(EXIT_OK, "ok", "done; nothing left for the caller"),
    ExitCode(EXIT_ACTION, "action", "the caller must act: a merge or semantic conflict, a failed verification, "
             "an intent that did not apply (conflict, failed, needs_network), leftovers that block landing, or a "
             "worktree setup command (worktree-setup.run) that failed; "
             "the output says what and how"),
    ExitCode(EXIT_USAGE, "usage", "usage or bad input: a malformed name, flag, glob or configuration; "
             "an operation the task or run's state does not allow"),
    ExitCode(EXIT_BOUNDARY, "boundary", "boundary violation: the task changed what its boundary does not allow"),
    ExitCode(EXIT_BUSY, "busy", "busy or locked past the timeout, the store cannot be reached, or a lease "
             "passed to another process; safe to retry later with the same key (`retry_after_seconds`)"),
    ExitCode(EXIT_NOT_FOUND, "not_found", "not found: the run, task, intent, branch, revision, file or repository"),
    ExitCode(EXIT_INTERNAL, "internal", "internal error: a bug in wtc, never bad input; the message says how "
             "to report it (`wtc check`, `wtc task check` and `wtc land` exit 6 too when their look for uses of "
             "removed names gave no answer, failed at one or had more changed files, or more files mentioning a "
             "removed name, than it reads: `left_behind_unchecked` says which, never a clean verdict; `wtc task "
             "finish` then does not merge, unless --merge-unchecked, and `wtc merge` passes over that task, merges "
             "the others and exits 6 naming it)"),
    ExitCode(EXIT_INTERRUPTED, "interrupted", "interrupted (Ctrl-C); run the same command again to finish "
             "(every write is idempotent)"),
)


def exit_code_table() -> str:
    """The table as Markdown rows (README and docs/cli.md show exactly these)."""
    return "\n".join(["| exit | meaning |", "|---|---|"]
                     + [f"| **{row.code}** | {row.meaning} |" for row in EXIT_CODES])


class WtcError(Exception):
    """Base class. `message` says what went wrong, `fix` what to do next, `details` is JSON-able."""

    exit_code: int = EXIT_USAGE
    kind: str = "error"

    def __init__(self, message: str, *, fix: str | None = None, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.details = dict(details or {})

    def __str__(self) -> str:
        return self.message if not self.fix else f"{self.message}\n  fix: {self.fix}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message, "exit_code": self.exit_code}
        if self.fix:
            out["fix"] = self.fix
        if self.details:
            out["details"] = self.details
        return out


class UsageError(WtcError):
    """Bad input: a malformed name, glob, flag combination or configuration value."""

    exit_code = EXIT_USAGE
    kind = "usage"


class IdempotencyMismatch(UsageError):
    """The same idempotency key was used earlier for a different request."""

    kind = "idempotency_mismatch"


class ConfigError(UsageError):
    """Invalid project configuration (`[tool.worktree-coord]` or `.wtc.toml`)."""

    kind = "config"


class StateError(UsageError):
    """The operation does not apply to the task or run in its current state."""

    kind = "state"


class EditError(UsageError):
    """An intent that cannot be applied to its manifest (shape not expressible, key missing)."""

    kind = "edit"


class ConflictError(WtcError):
    """A merge left conflicts that need an agent or a person."""

    exit_code = EXIT_CONFLICT
    kind = "conflict"


class ActionRequired(WtcError):
    """The operation would leave something undone that the caller must act on first (e.g. landing
    with intents not applied or tasks in conflict); `details` lists it and `fix` says how."""

    exit_code = EXIT_ACTION
    kind = "action_required"


class SetupError(WtcError):
    """The project's worktree setup (worktree-setup.run) failed or timed out; `details` names its log."""

    exit_code = EXIT_ACTION
    kind = "setup_failed"


class BoundaryViolation(WtcError):
    """A task changed what its boundary does not allow."""

    exit_code = EXIT_BOUNDARY
    kind = "boundary"


class BusyError(WtcError):
    """Something held a lock or lease past the caller's timeout; safe to retry later."""

    exit_code = EXIT_BUSY
    kind = "busy"

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after
        if retry_after is not None:
            self.details.setdefault("retry_after_seconds", round(retry_after, 1))


class NotFoundError(WtcError):
    """A run, task, revision or file that was named does not exist."""

    exit_code = EXIT_NOT_FOUND
    kind = "not_found"


class InternalError(WtcError):
    """A bug in worktree_coord (an exception nobody expected): never reported as bad input."""

    exit_code = EXIT_INTERNAL
    kind = "internal"


class LookUnanswered(WtcError):
    """A check the command needs gave no answer (the look for uses of removed names failed inside,
    or had more to read than it reads): exit 6 as for an internal error, never a clean verdict; the
    fix says how to go on without it."""

    exit_code = EXIT_INTERNAL
    kind = "unchecked"


class Interrupted(WtcError):
    """The user pressed Ctrl-C."""

    exit_code = EXIT_INTERRUPTED
    kind = "interrupted"


class GitError(WtcError):
    """git itself failed in a way worktree_coord did not expect; carries git's own words."""

    exit_code = EXIT_USAGE
    kind = "git"


class GitLocked(BusyError):
    """git refused because another process holds one of its lock files (`index.lock`, a ref's
    `.lock`, `config.lock`): the repository is busy, not broken, and the same call is safe to repeat
    (exit 4). A lock left by a killed git stays until removed: the fix names the file."""

    kind = "git_locked"


class StoreError(WtcError):
    """The coordination store cannot be used as configured, and retrying will not change that: a
    corrupt file, a schema from a newer worktree_coord, a store address that is malformed, refused
    credentials, a database that does not exist. The fix is the user's (exit 2, like any bad
    configuration)."""

    exit_code = EXIT_USAGE
    kind = "store"


class StoreUnavailable(BusyError):
    """The coordination store cannot be reached right now (the server is down, restarting, out of
    connections, or the network is cut): nothing was decided, so the same call with the same key is
    safe to repeat later (exit 4 with `retry_after_seconds`). Never bad input."""

    kind = "store_unavailable"


class LeaseLost(BusyError):
    """This call's lease or idempotency claim passed to another process while it worked (its
    heartbeat lapsed: the process was paused or cut off from the store longer than the lease's
    time to live). It stopped before writing anything that assumed ownership; the other process
    carries on, and repeating the call with the same key returns that process's result."""

    kind = "lease_lost"
