"""Yarn, Berry (2+) and classic (1): structural package.json edits, an offline relock, a freshness
check, and no files left behind in the repository but package.json files and yarn.lock.

Which Yarn: the lockfile's header says (`__metadata:` = Berry, `# yarn lockfile v1` = classic);
without a lock, the root package.json's `packageManager` (`yarn@1.x` = classic); else Berry. The
commands start with `yarn` either way (corepack or a global classic yarn delegating to a project's
`yarnPath` pick the binary); the kind decides the flags.

Measured with Yarn 4.18.1 and 1.22.22:
- Berry: `yarn install --mode=update-lockfile` relocks without linking. There is no `--offline`
  flag: offline is `YARN_ENABLE_NETWORK=0` (an uncached package then fails fast with YN0080
  "Request to ... has been blocked because of your configuration settings") together with
  `YARN_ENABLE_OFFLINE_MODE=1` (use cached metadata). Offline mode alone is not offline: it still
  asks the registry for metadata it lacks. Errors are printed on stdout.
- Berry writes `.yarn/install-state.gz` on every install: it goes to a temporary folder
  (`YARN_INSTALL_STATE_PATH`); telemetry is off (`YARN_ENABLE_TELEMETRY=0`); scripts are off;
  immutable installs are off (Berry turns them on when CI=true).
- Berry refuses `--immutable` together with `--mode=update-lockfile`, and a plain `--immutable`
  install fetches every archive and links `.pnp.cjs`/node_modules into the tree; so the freshness
  check is the one every relock-only tool here uses: relock again offline, the lock must not move.
- Classic has no lock-only mode: `yarn install --offline` links node_modules, so every classic
  install gets `--modules-folder` in a temporary folder, one for all of a root's runs: its
  `.yarn-integrity` lets the checks after a relock answer "Already up-to-date" instead of linking
  every package again (immer, ~1,000 packages: the frozen check 38 s in a fresh folder, 2.3 s in
  the relock's; a lock stale against package.json, a new `file:` dependency included, still fails
  it); the folder is deleted in the background when the root is done. `--frozen-lockfile` misses some stale
  locks (a new `file:` dependency passes it), so the classic check is the frozen install plus the
  relock-twice check. Classic writes `yarn-error.log` into the project on failures: removed.
- Which version relocks: the adapter picks none (unlike pnpm.py, whose relock fetches the pinned
  pnpm): `yarn` on PATH runs, which is the version `packageManager` pins when it is corepack's shim,
  and a global yarn's own version (or its `yarnPath`'s) otherwise. Another version may rewrite the
  lock's metadata or resolutions (a minor apart too: pnpm.py's docstring measures pnpm doing so), so
  a relock by a yarn whose version is not exactly the pinned one says so in its warnings
  (`pinned_version_warning`), naming both versions and how to run the pinned one.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any, Mapping, Sequence

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig, ToolRun
from worktree_coord.consolidate.adapters.javascript import (
    member_versions,
    package_version,
    pinned_tool_version,
    split_package_key,
    with_output,
)
from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.textformat import load_yaml
from worktree_coord.errors import WtcError

# Files a Yarn run may create in the project that must not outlive the run (nor be committed).
LEFTOVERS = ("yarn-error.log", ".yarn/install-state.gz", ".pnp.cjs", ".pnp.loader.mjs", ".pnp.data.json",
             "node_modules", ".yarn/unplugged", ".yarn/build-state.yml")


class YarnKind(str, enum.Enum):
    BERRY = "berry"
    CLASSIC = "classic"


BERRY_CONFIG = ToolConfig(
    relock=("yarn", "install", "--mode=update-lockfile"),
    offline_env={"YARN_ENABLE_NETWORK": "0", "YARN_ENABLE_OFFLINE_MODE": "1"},
    env={"YARN_ENABLE_TELEMETRY": "0", "YARN_ENABLE_SCRIPTS": "0", "YARN_ENABLE_IMMUTABLE_INSTALLS": "0",
         "YARN_ENABLE_PROGRESS_BARS": "0", "YARN_ENABLE_COLORS": "0", "YARN_ENABLE_HYPERLINKS": "0",
         "YARN_ENABLE_INLINE_BUILDS": "0"},
)
CLASSIC_CONFIG = ToolConfig(
    relock=("yarn", "install", "--ignore-scripts", "--non-interactive", "--no-progress", "--ignore-engines"),
    offline_flags=("--offline",),
    check=(("yarn", "install", "--frozen-lockfile", "--offline", "--ignore-scripts", "--non-interactive",
            "--no-progress", "--ignore-engines"),),
)


def _remove_in_background(folder: str) -> None:
    """Take a linked node_modules away at once and delete it in a process of its own: deleting
    immer's (28,000 files) took 67 s of a 137 s consolidation on a loaded machine, and nothing
    waits for it. The folder is renamed first, so its path is free as soon as this returns."""
    import os
    import subprocess

    doomed = f"{folder}.removing"
    try:
        os.rename(folder, doomed)
    except OSError:
        return
    try:
        subprocess.Popen(["rm", "-rf", "--", doomed], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        shutil.rmtree(doomed, ignore_errors=True)


def yarn_kind(root_dir: Path) -> YarnKind:
    """Berry or classic, from the lockfile header, else the `packageManager` field (module docstring)."""
    lock = root_dir / "yarn.lock"
    if lock.is_file():
        head = lock.read_bytes()[:1024]
        if re.search(rb"^__metadata:", head, re.MULTILINE):
            return YarnKind.BERRY
        if b"# yarn lockfile v1" in head:
            return YarnKind.CLASSIC
    pinned = pinned_tool_version(root_dir, "yarn")
    return YarnKind.CLASSIC if pinned is not None and pinned.startswith("1.") else YarnKind.BERRY


def pinned_version_warning(manifest: str, pinned: str | None, used: str) -> str | None:
    """What a relock by yarn `used` says when `manifest`'s `packageManager` pins yarn@`pinned`: None
    when it pins none, or that exact version ran (a same-major yarn is not the pinned one: its lock
    rules may differ), or the version could not be read (the relock's own run says why)."""
    if pinned is None or not used or used == pinned:
        return None
    return (f"relocked with yarn {used}, but {manifest} pins yarn@{pinned} (packageManager): another version may "
            f"rewrite the lockfile's metadata or resolutions; review the lockfile diff, and run the pinned yarn "
            f"(`corepack enable yarn` puts a yarn on PATH that runs yarn@{pinned}) next time")


class YarnAdapter(ToolAdapter):
    ecosystem = Ecosystem.YARN
    tool = "yarn"
    lock_name = "yarn.lock"
    default_config = BERRY_CONFIG

    def __init__(self, workdir: Path, root: str, *, config: ToolConfig | None = None,
                 env: Mapping[str, str] | None = None):
        root_dir = Path(workdir) / root if root else Path(workdir)
        self.kind = yarn_kind(root_dir)
        default = CLASSIC_CONFIG if self.kind == YarnKind.CLASSIC else BERRY_CONFIG
        if config is not None and self.kind == YarnKind.CLASSIC and config.offline_env == BERRY_CONFIG.offline_env:
            # A configured command (built on the class default, Berry's) keeps classic's offline flag.
            config = dataclasses.replace(CLASSIC_CONFIG, relock=config.relock, timeout=config.timeout)
        super().__init__(workdir, root, config=config or default, env=env)
        self._modules_folder: Path | None = None

    def _classic_modules_folder(self) -> Path:
        """The node_modules every classic install of this adapter links into (module docstring),
        removed with the adapter."""
        if self._modules_folder is None:
            scratch = tempfile.mkdtemp(prefix="wtc-yarn-modules-")
            weakref.finalize(self, _remove_in_background, scratch)
            self._modules_folder = Path(scratch) / "node_modules"
        return self._modules_folder

    def run(self, argv: Sequence[str], *, cwd: Path | None = None, timeout: float | None = None,
            env: Mapping[str, str] | None = None) -> ToolRun:
        present = {rel for rel in LEFTOVERS if (self.root_dir / rel).exists()}
        manifests = self._manifest_bytes()
        with tempfile.TemporaryDirectory(prefix="wtc-yarn-") as scratch:
            argv = list(argv)
            extra_env = dict(env or {})
            if self.kind == YarnKind.BERRY:
                extra_env["YARN_INSTALL_STATE_PATH"] = str(Path(scratch) / "install-state.gz")
            elif "install" in argv and "--modules-folder" not in argv:
                argv += ["--modules-folder", str(self._classic_modules_folder())]
            result = with_output(super().run(argv, cwd=cwd, timeout=timeout, env=extra_env))
        self.runs[-1] = result
        for rel in LEFTOVERS:
            path = self.root_dir / rel
            if rel not in present and (path.exists() or path.is_symlink()):
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        yarn_dir = self.root_dir / ".yarn"
        if ".yarn" not in present and yarn_dir.is_dir() and not any(yarn_dir.iterdir()):
            yarn_dir.rmdir()
        self._undo_reformatting(manifests)
        return result

    def _manifest_bytes(self) -> dict[Path, bytes]:
        """The workspace's package.json files as they are before a run."""
        from worktree_coord.consolidate.graph import discover_workspace, join

        try:
            dirs = set(discover_workspace(self.workdir, self.ecosystem, self.root).members.values()) | {self.root}
        except WtcError:
            dirs = {self.root}
        out = {}
        for directory in sorted(dirs):
            file = self.workdir / join(directory, "package.json")
            if file.is_file():
                out[file] = file.read_bytes()
        return out

    @staticmethod
    def _undo_reformatting(before: Mapping[Path, bytes]) -> None:
        """Berry saves every workspace manifest on install (adding a final newline the file did not
        have, say); a manifest whose JSON did not change gets its own bytes back."""
        for file, data in before.items():
            if not file.is_file():
                continue
            now = file.read_bytes()
            if now == data:
                continue
            try:
                same = json.loads(now) == json.loads(data)
            except ValueError:
                same = False
            if same:
                file.write_bytes(data)

    def relock_warnings(self) -> list[str]:
        """The relock ran PATH's yarn: say so when that is not the version the root pins (module
        docstring)."""
        from worktree_coord.consolidate.graph import join

        pinned = pinned_tool_version(self.root_dir, "yarn")
        if pinned is None:
            return []
        done = self.run(("yarn", "--version"))
        used = done.stdout.strip().splitlines()[-1].strip() if done.ok and done.stdout.strip() else ""
        warning = pinned_version_warning(join(self.root, "package.json"), pinned, used)
        return [warning] if warning else []

    def check(self) -> list[ToolRun]:
        runs = super().check()
        if any(not run.ok for run in runs):
            return runs
        return runs + self._relock_changes_nothing("offline relock")

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if "YN0080" in stderr or "has been blocked because of your configuration settings" in stderr:
            return FailureKind.OFFLINE_MISS
        if "in our cache" in stderr or "Can't make a request in offline mode" in stderr:
            return FailureKind.OFFLINE_MISS          # classic's offline miss
        if "Workspace not found" in stderr or "YN0082" in stderr or "Couldn't find any versions" in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        """Package name -> versions of yarn.lock; workspace members at their package.json version."""
        lock = self.workdir / self.lockfile
        if not lock.is_file():
            return {}
        data = lock.read_bytes()
        entries = _berry_entries(self.lockfile, data) if self.kind == YarnKind.BERRY else _classic_entries(data)
        out: dict[str, set[str]] = {}
        for name, version in entries:
            if version.startswith("workspace:"):
                directory = version[len("workspace:"):]
                version = package_version(self.workdir, _join(self.root, directory)) or ""
            if version:
                out.setdefault(name, set()).add(version)
        if self.kind == YarnKind.CLASSIC:
            # Classic leaves workspace members out of its lock: they are locked to themselves.
            for name, versions in member_versions(self.workdir, self.ecosystem, self.root).items():
                out.setdefault(name, set()).update(versions)
        return out


def _join(root: str, directory: str) -> str:
    from worktree_coord.consolidate.graph import join

    return join(root, directory)


def _berry_entries(path: str, data: bytes) -> list[tuple[str, str]]:
    """(name, version) of every Berry entry; a workspace's version is `workspace:<dir>`."""
    doc: dict[str, Any] = load_yaml(path, data) or {}
    out = []
    for key, entry in doc.items():
        if key == "__metadata" or not isinstance(entry, dict):
            continue
        resolution = str(entry.get("resolution", ""))
        parsed = split_package_key(resolution)
        if parsed is None:
            continue
        name, reference = parsed
        if reference.startswith("workspace:"):
            out.append((name, reference))
        elif entry.get("version") is not None:
            out.append((name, str(entry["version"])))
    return out


def _classic_entries(data: bytes) -> list[tuple[str, str]]:
    """(name, version) of every classic entry: `"a@^1", a@~1.2:` then an indented `version "1.2.3"`."""
    out = []
    name: str | None = None
    for line in data.decode("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            first = line.rstrip(":").split(",")[0].strip().strip('"')
            parsed = split_package_key(first)
            name = parsed[0] if parsed else None
            continue
        match = re.match(r'^\s+version:?\s+"?([^"\s]+)"?\s*$', line)
        if match and name is not None:
            out.append((name, match.group(1)))
            name = None
    return out
