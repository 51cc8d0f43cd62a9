"""Claude Code's hook payloads: one JSON object on stdin, read and checked.

Every shape seen in the field is accepted (../shared/research/agent-harnesses.md):
- WorktreeCreate from the workflow runtime: `{session_id, transcript_path, cwd, hook_event_name, name}`;
- the documented shape: `worktree_name`, `source_ref`, `base_path`;
- other builds and older hooks: `branch_name`, `base_commit` / `base_ref`, `worktree_path` (the name
  is then its last folder);
- WorktreeRemove: the common fields plus `worktree_path` (what the create hook printed).
Unknown fields are ignored; a known field of the wrong type is an error naming it.

Reading stops at the end of the first complete JSON object, not at end of input: a harness that
keeps the pipe open must not hang the hook. Nor may one that never sends a whole object: the read
gives up after a timeout (30 s; `--stdin-timeout` or WTC_HOOK_STDIN_TIMEOUT) with an error saying so.
"""

from __future__ import annotations

import json
import os
import select
import time
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import UsageError
from ..frozen import value_class

STDIN_TIMEOUT_SECONDS = 30.0
STDIN_TIMEOUT_VARIABLE = "WTC_HOOK_STDIN_TIMEOUT"   # or the hook commands' --stdin-timeout


@value_class
class CreatePayload:
    name: str
    session_id: str | None
    cwd: str | None
    source_ref: str | None
    base_path: str | None
    event: str | None


@value_class
class RemovePayload:
    worktree_path: str | None
    session_id: str | None
    cwd: str | None
    event: str | None


def read_object(stream: BinaryIO, *, what: str, timeout: float = STDIN_TIMEOUT_SECONDS) -> dict[str, Any]:
    """The JSON object on `stream`, read up to its end (or end of input)."""
    if stream.isatty():
        raise UsageError(f"{what} reads Claude Code's hook payload (a JSON object) on stdin",
                         fix=f"echo '{{\"session_id\": \"s1\", \"cwd\": \"'$PWD'\", \"name\": \"agent-1\"}}' | {what}")
    decoder = json.JSONDecoder()
    buffer = b""
    deadline = time.monotonic() + timeout
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # a stream with no descriptor: read it whole
        try:
            return _as_object(_parse_all(stream.read()))
        except OSError as error:
            raise UsageError(f"cannot read the hook payload on stdin: {error}",
                             fix="pipe the hook payload into the command (Claude Code does)") from None
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            got = f"{len(buffer)} byte(s) of it arrived" if buffer else "nothing arrived"
            raise UsageError(
                f"no complete JSON payload on stdin within {timeout:g} s ({got}, and stdin is still open); "
                f"that is the hook's read timeout (--stdin-timeout, or {STDIN_TIMEOUT_VARIABLE})",
                fix="send the whole payload (one JSON object) and close stdin, as Claude Code does; a harness "
                    f"that is slower to write gets more time with --stdin-timeout SECONDS or {STDIN_TIMEOUT_VARIABLE}",
                details={"timeout_seconds": timeout, "bytes_read": len(buffer)})
        chunk = os.read(fd, 65536)
        if chunk:
            buffer += chunk
            try:
                text = buffer.decode("utf-8").lstrip()
                value, _ = decoder.raw_decode(text)
            except (UnicodeDecodeError, ValueError):
                continue  # incomplete so far
            return _as_object(value)
        return _as_object(_parse_all(buffer))


def _parse_all(buffer: bytes) -> Any:
    if not buffer.strip():
        raise UsageError("stdin was empty: no hook payload", fix="pipe the hook payload into the command")
    try:
        return json.loads(buffer.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UsageError(f"the hook payload is not UTF-8 ({error})", fix="send UTF-8 JSON on stdin") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"the hook payload is not valid JSON ({error.msg} at line {error.lineno} "
                         f"column {error.colno})", fix="send one JSON object on stdin") from None


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's words with its article: "a number", "an array"
    (not Python's "a int", "a list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object" if isinstance(value, dict) else f"a {type(value).__name__}"


def _as_object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise UsageError(f"the hook payload is {json_kind(value)}, not a JSON object", fix="send one JSON object on stdin")
    return value


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UsageError(f"the hook payload's {key!r} is {json_kind(value)}, not a string",
                         fix=f"send {key} as a JSON string")
    return value or None


def create_payload(data: dict[str, Any]) -> CreatePayload:
    name = _text(data, "name") or _text(data, "worktree_name") or _text(data, "branch_name")
    legacy_path = _text(data, "worktree_path")
    if name is None and legacy_path:
        name = Path(legacy_path.rstrip("/")).name or None
    if name is None:
        raise UsageError("the WorktreeCreate payload names no worktree (none of name, worktree_name, "
                         "branch_name, worktree_path)",
                         fix="check the Claude Code version; the payload must carry the agent's name")
    return CreatePayload(
        name=name, session_id=_text(data, "session_id"), cwd=_text(data, "cwd"),
        source_ref=_text(data, "source_ref") or _text(data, "base_commit") or _text(data, "base_ref"),
        base_path=_text(data, "base_path"), event=_text(data, "hook_event_name"),
    )


def remove_payload(data: dict[str, Any]) -> RemovePayload:
    return RemovePayload(worktree_path=_text(data, "worktree_path"), session_id=_text(data, "session_id"),
                         cwd=_text(data, "cwd"), event=_text(data, "hook_event_name"))
