"""pnpm: structural edits of package.json and pnpm-workspace.yaml, `pnpm install --lockfile-only`
relock, `pnpm install --frozen-lockfile --lockfile-only --offline` freshness check.

Measured with pnpm 12.21.0 (lockfile v9):
- an offline relock of workspace-only changes needs neither the store nor the metadata cache;
- an uncached registry dependency fails fast offline with `ERR_PNPM_NO_OFFLINE_META`;
- a stale lock fails the frozen check (`ERR_PNPM_OUTDATED_LOCKFILE`, or
  `ERR_PNPM_PACKAGE_MANAGER_NO_IMPORTER` for a member the lock does not know yet);
- pnpm 11+ reads its settings from `pnpm_config_*` variables (not `npm_config_*`): the store and
  cache folders follow `pnpm_config_store_dir` / `pnpm_config_cache_dir`, else the XDG folders;
- a `packageManager: pnpm@<other>` field makes pnpm fetch that version itself, in a way that
  fails offline (and, measured with pnpm 12.21.0 on Linux, online too: it asked the registry for
  `@pnpm/macos-x64`); pnpm 12 also records a pin of its own version in the lock, which resolves
  `@pnpm/exe` from the registry and fails offline even when the pin names the running pnpm:
  `pnpm_config_manage_package_manager_versions=false` and `pnpm_config_pm_on_fail=ignore` turn
  both off, and the adapter picks the pnpm itself: the one on PATH when it is the pinned version,
  else the pinned version through `npm exec` (from npm's cache; fetched first when the
  consolidation may use the network, `--online`).
  A lock rewritten by another major is a large diff of format changes nobody asked for (measured
  on vitejs/vite, pinned pnpm@10 relocked by pnpm 12: `patchedDependencies` and peer suffixes
  rewritten), and once committed no later consolidation undoes it: so when the pinned pnpm cannot
  be had, the relock does not run (offline: needs the network, error kind `tool_not_cached`, whose
  message names the pnpm on PATH, or none, and whose fix is installing the pinned pnpm or one online
  run; online: the fix names the version). A minor apart rewrites too (measured on vuejs/pinia,
  pinned pnpm@9.4.0 relocked by pnpm 9.15.9: `libc` added to every native package, peer suffixes
  shortened, 74 lines of the lock's own changed by adding one dependency), but less: the pnpm on
  PATH of the pinned major relocks when the pinned one cannot be had, and the result says so;
- `npm exec` runs in an empty folder holding a copy of the root's `.npmrc` (its registry
  settings): in the root, npm reads package.json's `workspaces` and refuses to run at all when
  they are not npm's to read (vuejs/pinia: two members named `@pinia/playground`,
  `EDUPLICATEWORKSPACE`).
pnpm's own editor (`pnpm add --filter P --lockfile-only`) is not used: it resolves from the
registry and rewrites package.json with its own layout; the structural editors keep the file's.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from pathlib import Path
from typing import Any

from worktree_coord.consolidate.adapters.base import (
    FailureKind,
    OfflineMiss,
    ToolAdapter,
    ToolConfig,
    ToolRun,
    unreachable_registry,
)
from worktree_coord.consolidate.adapters.javascript import (
    major_mismatch,
    package_version,
    pinned_tool_version,
    split_package_key,
    strip_peers,
    with_output,
)
from worktree_coord.consolidate.edits import EditError
from worktree_coord.consolidate.graph import join
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.textformat import load_yaml

OFFLINE_MISS_CODES = ("ERR_PNPM_NO_OFFLINE_META", "ERR_PNPM_NO_OFFLINE_TARBALL",
                      "ENOTCACHED")     # npm's, for the pinned pnpm `npm exec --offline` does not have
RESOLUTION_CODES = ("ERR_PNPM_NO_MATCHING_VERSION", "ERR_PNPM_WORKSPACE_PKG_NOT_FOUND",
                    "ERR_PNPM_NO_MATCHING_VERSION_INSIDE_WORKSPACE", "ERR_PNPM_PEER_DEP_ISSUES",
                    "ERR_PNPM_CATALOG_ENTRY_NOT_FOUND", "ERR_PNPM_BAD_PM_VERSION",
                    # pnpm 12 reports workspace resolution failures without a code:
                    "present in the workspace", "No matching version found")


class PnpmAdapter(ToolAdapter):
    ecosystem = Ecosystem.PNPM
    tool = "pnpm"
    lock_name = "pnpm-lock.yaml"
    side_files = ("pnpm-workspace.yaml",)      # pnpm may write settings there; restored with the root
    default_config = ToolConfig(
        # --no-frozen-lockfile: pnpm freezes the lock by default when CI=true.
        relock=("pnpm", "install", "--lockfile-only", "--ignore-scripts", "--no-frozen-lockfile"),
        offline_flags=("--offline",),
        check=(("pnpm", "install", "--frozen-lockfile", "--lockfile-only", "--ignore-scripts", "--offline"),),
        env={"pnpm_config_manage_package_manager_versions": "false", "pnpm_config_pm_on_fail": "ignore",
             "pnpm_config_update_notifier": "false",
             "pnpm_config_color": "never"},
    )

    def edit(self, intent: Intent) -> str:
        if intent.op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER) and posixpath.basename(intent.manifest) == "package.json":
            # pnpm ignores package.json `workspaces`: writing there would "succeed" and change nothing.
            raise EditError(f"{intent.manifest}: pnpm reads workspace members from pnpm-workspace.yaml, not "
                            f"package.json `workspaces` (intent {intent.intent_id})",
                            fix=f"list {intent.name!r} under `packages` in {join(self.root, 'pnpm-workspace.yaml')}")
        return super().edit(intent)

    def relock(self, offline: bool) -> ToolRun:
        missing = self._use_pinned_pnpm(offline)
        return missing if missing is not None else super().relock(offline)

    def check(self) -> list[ToolRun]:
        missing = self._use_pinned_pnpm(offline=True)
        return [missing] if missing is not None else super().check()

    def _use_pinned_pnpm(self, offline: bool) -> ToolRun | None:
        """Put the pnpm the root's `packageManager` pins first on PATH (module docstring); None when
        every later pnpm command runs it (or PATH's of the pinned major, when the pinned one cannot be
        had), else the failed run that says why it cannot be had."""
        if self._pinned_bin is not None:
            return None
        pinned = pinned_tool_version(self.root_dir, "pnpm")
        if pinned is None:
            self._pinned_bin = ""
            return None
        installed = self.run(("pnpm", "--version"))
        used = installed.stdout.strip().splitlines()[-1] if installed.ok and installed.stdout.strip() else ""
        if used == pinned:
            self._pinned_bin = ""
            return None
        self._not_cached = None
        online = not offline or self.network_allowed
        found, path = self._npm_exec_pnpm(pinned, offline=True)
        if path is None and online:
            found, path = self._npm_exec_pnpm(pinned, offline=False)
        if path is not None:
            self._pinned_bin = str(Path(path).parent)
            self.env["PATH"] = self._pinned_bin + os.pathsep + self.env.get("PATH", "")
            return None
        if used and not major_mismatch(pinned, used):
            self._fallback = (pinned, used, online)
            self._pinned_bin = ""
            return None
        offline = not online        # what the last `npm exec` tried, for the message below
        why = (f"{join(self.root, 'package.json')} pins pnpm@{pinned} (packageManager) and the pnpm on PATH is "
               f"{used or 'missing'}: a lock relocked by another major is rewritten in that major's format")
        relock = tuple(self.config.relock) + (tuple(self.config.offline_flags) if offline else ())
        if found.returncode == 127:            # no npm to fetch it with
            stderr = f"pnpm@{pinned}: command not found ({why}; npm, which would fetch it, is not on PATH either)"
        elif offline or unreachable_registry(found.stderr):
            if offline:
                self._not_cached = (pinned, used)
            stderr = f"{why}; `npm exec --offline` does not have it cached: {found.stderr.strip()[-2000:]}"
            if "ENOTCACHED" not in stderr and not unreachable_registry(stderr):
                stderr += " (ENOTCACHED)"
        else:
            stderr = f"pnpm@{pinned}: command not found ({why}; npm could not fetch it: {found.stderr.strip()[-2000:]})"
        if "command not found" in stderr:          # the fix then names the pinned version to install
            relock = (f"pnpm@{pinned}", *relock[1:])
        failed = ToolRun(relock, found.returncode or 1, found.stdout, stderr, found.seconds)
        self.runs.append(failed)
        return failed

    def _npm_exec_pnpm(self, pinned: str, *, offline: bool) -> tuple[ToolRun, str | None]:
        """`npm exec` for pnpm@`pinned` (from npm's cache when `offline`) and where its pnpm lives;
        None when it could not be had. Run in an empty folder with the root's `.npmrc` (module
        docstring). `--call` runs npm's own shell in the folder npm exec prepared: `command -v`
        answers where that pnpm lives, so the later commands run it directly (npm exec costs 2-5 s
        per call)."""
        argv = ("npm", "exec", *(("--offline",) if offline else ()), "--yes", f"--package=pnpm@{pinned}",
                "--call", "command -v pnpm")
        with tempfile.TemporaryDirectory(prefix="wtc-pnpm-") as folder:
            npmrc = self.root_dir / ".npmrc"
            if npmrc.is_file():
                shutil.copyfile(npmrc, Path(folder) / ".npmrc")
            found = self.run(argv, cwd=Path(folder))
        path = found.stdout.strip().splitlines()[-1] if found.ok and found.stdout.strip() else ""
        return found, (path if found.ok and Path(path).is_file() else None)

    def relock_warnings(self) -> list[str]:
        """The relock ran PATH's pnpm of the pinned major, not the pinned version (which could not be
        had): another version may rewrite the lockfile's format, so a person reviews the diff."""
        if self._fallback is None:
            return []
        pinned, used, online = self._fallback
        how = "npm could not fetch it" if online else "npm's cache does not hold it (consolidation ran offline)"
        return [f"relocked with pnpm {used}, but {join(self.root, 'package.json')} pins pnpm@{pinned} "
                f"(packageManager) and {how}: another version may rewrite the lockfile's format; review the "
                f"lockfile diff, and put pnpm@{pinned} on PATH (npm install -g pnpm@{pinned}) or consolidate "
                "with --online next time"]

    def offline_miss(self, run: ToolRun) -> OfflineMiss | None:
        """Offline, the pnpm that package.json pins was neither on PATH nor in npm's cache: that is
        what the relock lacked, not packages (the generic message said "packages that are not
        cached", and the cause was only in the tool's output)."""
        if self._not_cached is None:
            return None
        pinned, used = self._not_cached
        on_path = (f"the pnpm on PATH is {used}, another major (its lockfile format differs)" if used
                   else "there is no pnpm on PATH")
        return OfflineMiss(
            "tool_not_cached",
            f"pnpm cannot run offline: {join(self.root, 'package.json')} pins pnpm@{pinned} (packageManager), "
            f"{on_path}, and `npm exec --offline` has no pnpm@{pinned} cached",
            f"install pnpm@{pinned} (npm install -g pnpm@{pinned}) and consolidate again, or consolidate online "
            f"once (wtc consolidate --online): npm exec fetches pnpm@{pinned} into npm's cache, where later "
            "offline runs find it")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pinned_bin: str | None = None     # "" once PATH's pnpm is the one to run
        self._not_cached: tuple[str, str] | None = None   # (pinned, PATH's version or "") when npm had none offline
        self._fallback: tuple[str, str, bool] | None = None   # (pinned, PATH's version, online) when PATH's relocks

    def run(self, argv, **kwargs) -> ToolRun:
        result = with_output(super().run(argv, **kwargs))
        self.runs[-1] = result
        return result

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if any(code in stderr for code in OFFLINE_MISS_CODES):
            return FailureKind.OFFLINE_MISS
        if any(code in stderr for code in RESOLUTION_CODES):
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        """Every importer's direct dependencies (workspace links resolved to the member's version)
        and every package of `snapshots` (v9) / `packages` (v6)."""
        lock = self.workdir / self.lockfile
        if not lock.is_file():
            return {}
        doc: dict[str, Any] = load_yaml(self.lockfile, lock.read_bytes()) or {}
        out: dict[str, set[str]] = {}
        for importer, groups in (doc.get("importers") or {}).items():
            importer_dir = join(self.root, importer)
            for group in ("dependencies", "devDependencies", "optionalDependencies"):
                for name, entry in ((groups or {}).get(group) or {}).items():
                    version = str(entry.get("version", "")) if isinstance(entry, dict) else str(entry)
                    version = self._resolve_link(importer_dir, strip_peers(version))
                    aliased = split_package_key(version) if version and "@" in version[1:] else None
                    if aliased is not None and not version.startswith(("file:", "link:", "http")):
                        name, version = aliased            # `npm:real@range` locks as `real@version`
                    if version:
                        out.setdefault(name, set()).add(version)
        for catalog in (doc.get("catalogs") or {}).values():        # catalog entries members use
            for name, entry in (catalog or {}).items():
                if isinstance(entry, dict) and entry.get("version"):
                    out.setdefault(name, set()).add(strip_peers(str(entry["version"])))
        for section in ("snapshots", "packages"):
            for key in doc.get(section) or {}:
                parsed = split_package_key(strip_peers(str(key)).lstrip("/"))
                if parsed is not None:
                    out.setdefault(parsed[0], set()).add(parsed[1])
        return out

    def _resolve_link(self, importer_dir: str, version: str) -> str | None:
        if not version.startswith("link:"):
            return version
        target = join(importer_dir, version[len("link:"):])
        if not Path(self.workdir / target).resolve().is_relative_to(Path(self.workdir).resolve()):
            return None
        return package_version(self.workdir, target)
