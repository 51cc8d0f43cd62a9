"""How every command prints: one JSON object with a `schema` field under `--json`, readable text
otherwise, and errors mapped to their exit codes. The only place that writes to stdout for the CLI.
"""

from __future__ import annotations

import sys
TYPE_CHECKING = False   # not typing's: `wtc version` prints through here before anything else loads
if TYPE_CHECKING:
    from typing import Any, Callable

    from ..errors import WtcError

SCHEMA_PREFIX = "wtc."


def schema_name(name: str, version: int = 1) -> str:
    """`task.finish` -> `wtc.task.finish/1`: the `schema` value of a JSON payload."""
    return f"{SCHEMA_PREFIX}{name}/{version}"


def tagged(payload: dict[str, Any], *, schema: str, exit_code: int | None = None) -> dict[str, Any]:
    """The `--json` object of a result: `schema` and `exit_code` first, then the payload. Every face
    that returns JSON (the CLI, the MCP server) returns exactly this. `exit_code` defaults to the
    payload's own, else 0."""
    code = exit_code if exit_code is not None else payload.get("exit_code", 0)
    body = {"schema": schema_name(schema), "exit_code": code}
    body.update({k: v for k, v in payload.items() if k != "exit_code"})
    return body


def tagged_error(error: WtcError) -> dict[str, Any]:
    """The `--json` object of an error (`wtc.error/1`), as every face returns it."""
    return {"schema": schema_name("error"), "exit_code": error.exit_code, "ok": False, "error": error.to_json()}


def to_json_text(body: dict[str, Any]) -> str:
    """One line of JSON, with results' dataclasses, enums and sets made plain."""
    import json   # only for --json: text output never needs it

    return json.dumps(body, sort_keys=False, default=_json_default)


def emit(payload: dict[str, Any], *, schema: str, json_mode: bool, human: str | Callable[[], str],
         exit_code: int | None = None) -> None:
    """Print a result: the payload as one JSON object (`schema` and `exit_code` first, always at the
    top level), or the human text. `exit_code` defaults to the payload's own, else 0."""
    if json_mode:
        sys.stdout.write(to_json_text(tagged(payload, schema=schema, exit_code=exit_code)) + "\n")
    else:
        text = human() if callable(human) else human
        if text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def emit_error(error: WtcError, *, json_mode: bool) -> None:
    """Print an error: JSON on stdout under `--json` (so agents parse one object), text on stderr."""
    if json_mode:
        try:
            sys.stdout.write(to_json_text(tagged_error(error)) + "\n")
            sys.stdout.flush()
            return
        except OSError:   # stdout itself failed (a full disk, a closed pipe): say it on stderr
            pass
    sys.stderr.write(f"wtc: error: {error.message}\n")
    if error.fix:
        sys.stderr.write(f"  fix: {error.fix}\n")
    sys.stderr.flush()


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "value"):  # enums
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def emit_lock_warnings() -> None:
    """The shared git locks a killed git left that this process removed (gitrepo/git_locks.py), said
    on stderr after the command's own output (stdout stays one JSON object under --json). Every way
    a call ends says them: cli.main (in-process and served calls), entry.leave (the quick path)."""
    locks = sys.modules.get("worktree_coord.gitrepo.git_locks")   # loaded with the git layer: none without git
    for warning in locks.warnings_given() if locks is not None else ():
        sys.stderr.write(f"wtc: warning: {warning}\n")
