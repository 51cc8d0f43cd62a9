"""Every error worktree_coord raises, each carrying the exit code the command line maps it to.

One base class, `WtcError`; callers of the Python API catch it (or a subclass) and read
`exit_code`, `message` and `fix`. The faces never invent exit codes of their own: they print the
error and exit with `error.exit_code`.

Exit codes (the contract in DESIGN.md):
    0 ok, 1 merge conflict needs attention, 2 usage or bad input, 3 boundary violation,
    4 busy or locked past a timeout, 5 not found.
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_CONFLICT = 1
EXIT_USAGE = 2
EXIT_BOUNDARY = 3
EXIT_BUSY = 4
EXIT_NOT_FOUND = 5


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


class SetupError(WtcError):
    """The project's worktree setup (worktree-setup.run) failed or timed out; `details` names its log."""

    exit_code = EXIT_CONFLICT
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


class GitError(WtcError):
    """git itself failed in a way worktree_coord did not expect; carries git's own words."""

    exit_code = EXIT_USAGE
    kind = "git"


class StoreError(WtcError):
    """The coordination store cannot be used (corrupt, newer schema, unreadable)."""

    exit_code = EXIT_USAGE
    kind = "store"
