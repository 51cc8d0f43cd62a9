"""Idempotent operations: a repeat with the same key returns the stored result and does nothing.

Every write operation runs through `run_once(key, op, request, body, derived=default_key(...))`:
- first call: the key is claimed (owner = this process) and `body` runs; its outcome is stored;
- a repeat after it ended: the stored result comes back, nothing runs again;
- a repeat while it runs: waits for it (bounded by `wait_timeout`, then BusyError, exit 4);
- a repeat after the owner died mid-way (on this host: its pid is gone; on another: its heartbeat
  expired): takes the claim over and runs `body` again, which resumes from the state git and the
  store hold (every body is written to be re-runnable);
- the owner's heartbeat runs from the claim to the outcome (`heartbeat.py`); an owner whose claim
  was taken over meanwhile stores nothing and gets LeaseLost (exit 4): a repeat returns the result
  of the process that took over;
- the same key with a different request: IdempotencyMismatch (exit 2), saying what differs.

Outcomes that invite the caller to fix something and call again (a boundary rejection, a merge
conflict) are stored as "open": a repeat runs again instead of replaying them.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable

from ..digest import sha256
from ..errors import BusyError, IdempotencyMismatch, LeaseLost, StoreUnavailable, UsageError
from ..filelock import jitter
from ..frozen import value_class
from ..model import dumps
from . import heartbeat
from .base import ClaimStatus, IdempotencyRecord, Store
from .leases import owner_is_dead
from .liveness import current_owner


@value_class
class Outcome:
    """What an operation body returns: the JSON result, its exit code, and whether it is final."""

    result: dict[str, Any]
    exit_code: int = 0
    final: bool = True


@value_class
class Replayed:
    outcome: Outcome
    replayed: bool      # True when the stored result of an earlier call was returned


# Derived keys live in their own namespace. Without it a caller's own key that happens to read like
# a derived one (an agent that names its finish `r2-finish-api`, as the default is documented) and a
# later call without --key (the README's "finish again") were one key for two requests: exit 2.
DEFAULT_KEY_PREFIX = "auto:"


def default_key(run_id: str, op: str, target: str | None = None) -> str:
    """`auto:<run>-<op>-<target>`: the key a call gets when the caller passes none."""
    return DEFAULT_KEY_PREFIX + "-".join(part for part in (run_id, op, target) if part)


def _caller_key(key: str) -> str:
    """A key the caller passed, checked: never one of the derived keys' namespace."""
    if key.startswith(DEFAULT_KEY_PREFIX):
        raise UsageError(f"idempotency key {key!r} starts with {DEFAULT_KEY_PREFIX!r}, which is kept for the keys "
                         "wtc derives when no key is given",
                         fix=f"choose a key that does not start with {DEFAULT_KEY_PREFIX!r}, or pass no key to "
                             "get the derived one")
    return key


def variant_key(key: str, **params: Any) -> str:
    """A default key for an operation that is never final (drain, consolidate): calls with other
    parameters are other requests, not a misuse of one key, so they get their own key. Parameters
    left at their default (None/False) leave the key as it is."""
    given = {name: value for name, value in sorted(params.items()) if value not in (None, False)}
    if not given:
        return key
    return f"{key}-{sha256(dumps(given).encode()).hexdigest()[:10]}"


def request_hash(op: str, request: dict[str, Any]) -> str:
    return sha256(dumps({"op": op, "request": request}).encode()).hexdigest()


def run_once(store: Store, key: str | None, op: str, request: dict[str, Any], body: Callable[[], Outcome], *,
             ttl: float, wait_timeout: float, derived: str | None = None) -> Replayed:
    """Run `body` at most once per key (see the module docstring): `key` is the caller's (checked,
    never in the derived keys' namespace), `derived` the one used when the caller gave none."""
    if key is not None:
        key = _caller_key(key)
    elif derived is not None:
        key = derived
    else:
        raise ValueError("run_once needs the caller's key or a derived one")
    me = str(current_owner())
    with heartbeat.keeper(store, me).keeping():
        return _run_once(store, key, op, request, body, me=me, wait_timeout=wait_timeout, ttl=ttl)


def _run_once(store: Store, key: str, op: str, request: dict[str, Any], body: Callable[[], Outcome], *,
              me: str, ttl: float, wait_timeout: float) -> Replayed:
    digest = request_hash(op, request)
    deadline = time.monotonic() + wait_timeout
    delay = 0.01
    while True:
        claim = store.claim(key, op, digest, request, me, ttl)
        status, record = claim.status, claim.record
        if status is ClaimStatus.DONE:
            return Replayed(Outcome(record.result or {}, record.exit_code or 0, True), replayed=True)
        if status is ClaimStatus.MISMATCH:
            raise _mismatch(key, record, request)
        if status is ClaimStatus.NEW:
            return Replayed(_execute(store, key, me, body), replayed=False)
        # RUNNING: someone else holds it.
        owner_text = record.owner or ""
        if owner_is_dead(store, owner_text) and store.takeover(key, record.owner, me):
            return Replayed(_execute(store, key, me, body), replayed=False)
        now = time.monotonic()
        if now >= deadline:
            raise _still_running(key, owner_text, wait_timeout)
        time.sleep(min(delay, deadline - now) * jitter())
        delay = min(delay * 2, 0.25)


def recorded(store: Store, key: str | None, op: str, request: dict[str, Any], *, wait_timeout: float,
             derived: str | None = None) -> Replayed | None:
    """The stored result of an earlier call with this key and request, running nothing: what a
    face consults before it asks a person again about a call already made (MCP `land`). None when
    a call would run the operation (no record, an expired or open one, an owner that died mid-way);
    waits while a live owner runs it, as `run_once` does; the same key with another request is
    IdempotencyMismatch, as `run_once` would say."""
    if key is not None:
        key = _caller_key(key)
    elif derived is not None:
        key = derived
    else:
        raise ValueError("recorded needs the caller's key or a derived one")
    digest = request_hash(op, request)
    deadline = time.monotonic() + wait_timeout
    delay = 0.01
    while True:
        record = store.get_record(key)
        if record is None or record.expires_at <= time.time() or record.state == "open":
            return None
        if record.op != op or record.request_hash != digest:
            raise _mismatch(key, record, request)
        if record.state == "done":
            return Replayed(Outcome(record.result or {}, record.exit_code or 0, True), replayed=True)
        owner_text = record.owner or ""
        if owner_is_dead(store, owner_text):
            return None
        now = time.monotonic()
        if now >= deadline:
            raise _still_running(key, owner_text, wait_timeout)
        time.sleep(min(delay, deadline - now) * jitter())
        delay = min(delay * 2, 0.25)


def _mismatch(key: str, record: IdempotencyRecord, request: dict[str, Any]) -> IdempotencyMismatch:
    return IdempotencyMismatch(
        f"idempotency key {key!r} was used for a different request ({record.op} {_differences(record.request, request)})",
        fix="use a new --key for a new request, or repeat the original request exactly",
        details={"key": key, "original_op": record.op, "original_request": record.request},
    )


def _still_running(key: str, owner_text: str, wait_timeout: float) -> BusyError:
    return BusyError(
        f"the call with key {key!r} is still running in another process ({owner_text}) after {wait_timeout:.0f} s",
        fix="retry later with the same key; it returns the result once the first call ends",
        retry_after=5.0,
        details={"key": key, "owner": owner_text},
    )


def _execute(store: Store, key: str, me: str, body: Callable[[], Outcome]) -> Outcome:
    try:
        outcome = body()
    except BaseException:
        # The body raises before committing to an outcome (bad input, not found, busy): forget the
        # claim so a corrected or later repeat runs again. With the store unreachable the claim
        # stays, its owner dead once this process ends, and a repeat takes it over: the body's own
        # error is the one to report.
        with contextlib.suppress(StoreUnavailable):
            store.release(key, me)
        raise
    if not store.complete(key, me, outcome.result, outcome.exit_code, final=outcome.final):
        record = store.get_record(key)
        raise LeaseLost(
            f"the call with key {key!r} was taken over by another process while this one ran it "
            "(this process's heartbeat lapsed); its outcome was not stored",
            fix="repeat the call with the same key: it returns the other process's result",
            retry_after=1.0,
            details={"key": key, "lost_lease": key, "owner": record.owner if record else None},
        )
    return outcome


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if not keys:
        return "different operation"
    return "; ".join(f"{k}: was {old.get(k)!r}, now {new.get(k)!r}" for k in keys[:4])
