"""Project configuration: `[tool.worktree-coord]` in the root pyproject.toml, or a `.wtc.toml`.

One schema, validated on load: an unknown key or a wrong type is a ConfigError naming the key, the
file and the allowed values. `.wtc.toml` (top level keys, or a `[tool.worktree-coord]` table) wins
over pyproject.toml when both exist. Read from the main checkout's working tree, or from HEAD's
tree in a bare repository.
"""

from __future__ import annotations

import os
import re

from dataclasses import field
from pathlib import PurePosixPath
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from .errors import ConfigError
from .frozen import value_class
from .task_worktree import DEFAULT_WORKTREE_ROOT


@value_class
class WorktreeSetup:
    """How a new task worktree is made ready to run (`[tool.worktree-coord.worktree-setup]`).

    `link` / `copy`: git-ignored folders of the main checkout (node_modules, .venv) put into each
    worktree as a symlink / a copy; `run`: a shell command run in the worktree after that, bounded
    by `timeout` seconds; `ports`: how many ports each task gets, from `port-base` up (0: none).
    Files named in `.worktreeinclude` are copied whatever this table says."""

    link: tuple[str, ...] = ()
    copy: tuple[str, ...] = ()
    run: str | None = None
    timeout: float = 600.0
    ports: int = 10
    port_base: int = 20000

    def to_json(self) -> dict[str, Any]:
        return {"link": list(self.link), "copy": list(self.copy), "run": self.run, "timeout": self.timeout,
                "ports": self.ports, "port-base": self.port_base}


@value_class
class DefaultBoundary:
    """The boundary a task gets when neither its caller nor the plan names one
    (`[tool.worktree-coord.default-boundary]`)."""

    own: tuple[str, ...] = ("**",)
    read: tuple[str, ...] = ()
    sparse: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"own": list(self.own), "read": list(self.read), "sparse": self.sparse}


@value_class
class Config:
    worktree_root: str = DEFAULT_WORKTREE_ROOT
    reserved_add: tuple[str, ...] = ()
    reserved_remove: tuple[str, ...] = ()
    idempotency_ttl: float = 24 * 3600.0
    lock_timeout: float = 120.0
    wait_timeout: float = 600.0
    verify: str | None = None
    verify_timeout: float = 1800.0
    relock: dict[str, str] = field(default_factory=dict)
    max_parallel: int | None = None
    worktree_setup: WorktreeSetup | None = None
    default_boundary: DefaultBoundary | None = None
    store: str | None = None
    lease_ttl: float = 30.0
    semantic_check: str = "block"
    left_behind: str = "block"   # a use the landed tree keeps of a name the run removed: block, warn, off
    max_file_size: int = 50 * 1024 * 1024   # bytes; 0: no limit (boundary/large_files.py)
    network: str = "isolated"    # the commands wtc starts for a task: isolated (own loopback) or shared
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "worktree-root": self.worktree_root,
            "reserved-add": list(self.reserved_add),
            "reserved-remove": list(self.reserved_remove),
            "idempotency-ttl": self.idempotency_ttl,
            "lock-timeout": self.lock_timeout,
            "wait-timeout": self.wait_timeout,
            "verify": self.verify,
            "verify-timeout": self.verify_timeout,
            "relock": dict(self.relock),
            "max-parallel": self.max_parallel,
            "worktree-setup": self.worktree_setup.to_json() if self.worktree_setup else None,
            "default-boundary": self.default_boundary.to_json() if self.default_boundary else None,
            "store": redact_address(self.store) if self.store else None,
            "lease-ttl": self.lease_ttl,
            "semantic-check": self.semantic_check,
            "left-behind": self.left_behind,
            "max-file-size": self.max_file_size,
            "network": self.network,
            "source": self.source,
        }


def _str(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError("a non-empty string")
    return value


def _str_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise TypeError("a list of non-empty strings")
    return tuple(value)


def _seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise TypeError("a positive number of seconds")
    return float(value)


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TypeError("a positive integer")
    return value


_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2, "mib": 1024 ** 2,
               "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3}


def _size(value: Any) -> int:
    """Bytes, or a text like "100MB" / "1.5 GiB" (units of 1024; "MB" means MiB, as git and hosts
    count); 0 turns the limit off."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value) if isinstance(value, str) else None
    if match is None or match.group(2).lower() not in _SIZE_UNITS:
        raise TypeError('a size in bytes, or a text like "100MB" or "1GiB" (0 for no limit)')
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def _semantic_mode(value: Any) -> str:
    if value not in ("block", "warn", "off"):
        raise TypeError('one of "block", "warn", "off"')
    return str(value)


def _network_mode(value: Any) -> str:
    if value not in ("isolated", "shared"):
        raise TypeError('one of "isolated", "shared"')
    return str(value)


def _str_table(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise TypeError("a table of ecosystem = \"command\" strings")
    return dict(value)


def _folder_list(value: Any) -> tuple[str, ...]:
    folders = _str_list(value)
    for folder in folders:
        pure = PurePosixPath(folder)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts or pure.parts[0] in (".git", ".wtc"):
            raise TypeError(f"a list of folders relative to the repository root (not {folder!r})")
    return tuple(str(PurePosixPath(folder)) for folder in folders)


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1024 <= value <= 65000:
        raise TypeError("a port number from 1024 to 65000")
    return value


def _port_count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
        raise TypeError("a number of ports from 0 to 1000")
    return value


def _table(kind: str, fields: dict[str, tuple[str, Callable[[Any], Any]]], value: Any) -> dict[str, Any]:
    """A sub-table validated key by key; a TypeError names the sub-key that is wrong."""
    allowed = ", ".join(fields)
    if not isinstance(value, dict):
        raise TypeError(f"a table with the keys {allowed}")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in fields:
            raise TypeError(f"a table with the keys {allowed} (there is no {kind}.{key})")
        attribute, convert = fields[key]
        try:
            out[attribute] = convert(item)
        except TypeError as expected:
            raise TypeError(f"a table whose {key} is {expected}") from None
    return out


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("true or false")
    return value


def _worktree_setup(value: Any) -> WorktreeSetup:
    return WorktreeSetup(**_table("worktree-setup", {
        "link": ("link", _folder_list), "copy": ("copy", _folder_list), "run": ("run", _str),
        "timeout": ("timeout", _seconds), "ports": ("ports", _port_count), "port-base": ("port_base", _port),
    }, value))


def _default_boundary(value: Any) -> DefaultBoundary:
    fields = _table("default-boundary", {"own": ("own", _str_list), "read": ("read", _str_list),
                                          "sparse": ("sparse", _bool)}, value)
    if "own" in fields and not fields["own"]:
        raise TypeError("a table whose own lists at least one glob")
    return DefaultBoundary(**fields)


STORE_SCHEMES = ("postgresql", "postgres", "sqlite")
STATE_DIR_VARIABLE = "WTC_STATE_DIR"


def user_state_dir() -> Path:
    """Where this user's worktree_coord state lives, outside every repository (the port blocks
    leased across the machine, backups of user-scope settings): `$WTC_STATE_DIR`, else
    `$XDG_STATE_HOME/worktree-coord`, else `~/.local/state/worktree-coord`."""
    chosen = os.environ.get(STATE_DIR_VARIABLE, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    state = os.environ.get("XDG_STATE_HOME", "").strip()
    return (Path(state) if state else Path.home() / ".local" / "state") / "worktree-coord"


def redact_address(address: str) -> str:
    """A store address fit to show: its password (in the user part or a `password=` parameter)
    replaced by `***`."""
    try:
        parts = urlsplit(address)
        netloc = parts.netloc
        if parts.password is not None:
            user = netloc.rpartition("@")[0].split(":", 1)[0]
            netloc = f"{user}:***@{netloc.rpartition('@')[2]}"
    except ValueError:
        return address.split(":", 1)[0] + ":(an address that cannot be read)"
    items = parts.query.split("&") if parts.query else []
    if netloc == parts.netloc and not any(item.split("=", 1)[0] == "password" for item in items):
        return address  # nothing to hide: shown exactly as given
    query = "&".join("password=***" if item.split("=", 1)[0] == "password" else item for item in items)
    return (f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
            + (f"#{parts.fragment}" if parts.fragment else ""))


def has_password(address: str) -> bool:
    return redact_address(address) != address


def _store_address(value: Any) -> str:
    if not isinstance(value, str) or value.split(":", 1)[0].lower() not in STORE_SCHEMES:
        raise TypeError('"sqlite" (the default) or a postgresql:// address without a password')
    if has_password(value):
        raise TypeError("an address without a password: a configuration file is committed, so give the password "
                        "in PGPASSWORD or ~/.pgpass, or the whole address in the WTC_STORE environment variable")
    return value


_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "worktree-root": ("worktree_root", _str),
    "reserved-add": ("reserved_add", _str_list),
    "reserved-remove": ("reserved_remove", _str_list),
    "idempotency-ttl": ("idempotency_ttl", _seconds),
    "lock-timeout": ("lock_timeout", _seconds),
    "wait-timeout": ("wait_timeout", _seconds),
    "verify": ("verify", _str),
    "verify-timeout": ("verify_timeout", _seconds),
    "relock": ("relock", _str_table),
    "max-parallel": ("max_parallel", _positive_int),
    "worktree-setup": ("worktree_setup", _worktree_setup),
    "default-boundary": ("default_boundary", _default_boundary),
    "store": ("store", _store_address),
    "lease-ttl": ("lease_ttl", _seconds),
    "semantic-check": ("semantic_check", _semantic_mode),
    "left-behind": ("left_behind", _semantic_mode),
    "max-file-size": ("max_file_size", _size),
    "network": ("network", _network_mode),
}


# The keys that are a run's rules, what it holds every task and merge to: read as committed at the
# run's pinned commit (coordinator/base.py `_run_rules`; check/pipeline.py for a task of a run), the
# run's own options first, so no uncommitted edit in the main checkout and no merged `.wtc.toml`
# changes them for a run under way. `wtc check` without a run reads them at its target tip.
RUN_RULES = ("default-boundary", "left-behind", "max-file-size", "reserved-add", "reserved-remove",
             "semantic-check", "verify")
# Read from the main checkout's configuration when a run starts, then recorded with the run.
RECORDED_AT_RUN_START = ("network",)
# Every other key is this machine's: where and how this checkout runs wtc (folders, timeouts, the
# store, the setup and relock commands), read from the main checkout's working configuration by
# each call.


def parse_config(table: dict[str, Any], source: str) -> Config:
    """Validate a `[tool.worktree-coord]` table into a Config."""
    values: dict[str, Any] = {"source": source}
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(
                f"unknown key {key!r} in {source}",
                fix="allowed keys: " + ", ".join(sorted(_KEYS)),
                details={"key": key, "file": source},
            )
        attribute, convert = _KEYS[key]
        try:
            values[attribute] = convert(value)
        except TypeError as expected:
            shown = redact_address(value) if key == "store" and isinstance(value, str) else value
            raise ConfigError(
                f"{key} in {source} must be {expected}, not {shown!r}",
                fix=f"set {key} to {expected} (see docs/configuration.md)",
                details={"key": key, "file": source},
            ) from None
    return Config(**values)


CONFIG_FILES = (".wtc.toml", "pyproject.toml")   # where load_config looks, in this order


def load_config(toplevel: Path | None, read_head_file: Callable[[str], bytes | None] | None = None) -> Config:
    """The project's configuration, or the defaults when it has none."""
    for name, table_path in zip(CONFIG_FILES, (None, ("tool", "worktree-coord"))):
        raw = _read(name, toplevel, read_head_file)
        if raw is None:
            continue
        import tomllib   # only when the project has a file to read: every wtc call loads the configuration

        try:
            document = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            if name == "pyproject.toml":
                continue  # a broken pyproject is the project's problem unless it configures us
            raise ConfigError(f"{name} is not valid TOML: {error}", fix=f"fix the syntax of {name}") from None
        if table_path is None:
            table = document.get("tool", {}).get("worktree-coord", document)
        else:
            table = document.get(table_path[0], {}).get(table_path[1])
            if table is None:
                continue
        if not isinstance(table, dict):
            raise ConfigError(f"[tool.worktree-coord] in {name} must be a table")
        return parse_config(table, name)
    return Config()


def load_run_rules(read_pin_file: Callable[[str], bytes | None], run_id: str, pin: str) -> Config:
    """The configuration a run enforces: the one committed at its pinned commit `pin`, read by
    `read_pin_file` (the coordinator's kept copy, or the check's git read). An invalid one is an
    error naming the pin, since no edit of a working file can fix a run's rules."""
    try:
        return load_config(None, read_pin_file)
    except ConfigError as error:
        raise ConfigError(f"{error.message} (as committed at run {run_id}'s pinned commit {pin[:12]}, whose "
                          "rules the run enforces)", fix="start a new run from a commit whose configuration is valid",
                          details=error.details | {"commit": pin}) from None


def _read(name: str, toplevel: Path | None, read_head_file: Callable[[str], bytes | None] | None) -> bytes | None:
    if toplevel is not None:
        path = toplevel / name
        return path.read_bytes() if path.is_file() else None
    return read_head_file(name) if read_head_file else None
