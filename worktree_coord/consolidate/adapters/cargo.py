"""Cargo: `cargo add` first, tomlkit otherwise; `cargo update --workspace` relock; `cargo metadata --locked`."""

from __future__ import annotations

import posixpath
import re

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig, ToolRun
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.textformat import load_toml, plain


# "failed to select a version for ..." names the package whose requirement could not be met
# ("required by package `a v0.1.0 (...)`"); the lines after it walk up to the packages that depend
# on that one, which are not at fault. (A conflict's "previously selected package" line is not read:
# it needs two registry versions, which no offline test here can make.)
_REQUIRED_BY = re.compile(r"required by package `([A-Za-z0-9_-]+) v")


class CargoAdapter(ToolAdapter):
    ecosystem = Ecosystem.CARGO
    tool = "cargo"
    lock_name = "Cargo.lock"
    default_config = ToolConfig(
        relock=("cargo", "update", "--workspace"),
        offline_flags=("--offline",),
        check=(("cargo", "metadata", "--locked", "--offline", "--format-version", "1"),),
    )

    def native_edit(self, intent: Intent) -> ToolRun | None:
        if intent.op not in (Op.ADD_DEP, Op.SET_SPEC) or intent.group == "workspace.dependencies":
            return None
        source = intent.source_dict() or {}
        if "workspace" in source or "registry" in source or intent.spec is None and "path" not in source:
            return None
        argv = ["cargo", "add", "--offline", "--manifest-path", posixpath.basename(intent.manifest)]
        real = intent.package or intent.name
        argv.append(f"{real}@{intent.spec}" if intent.spec and "path" not in source and "git" not in source else real)
        if "path" in source:
            argv += ["--path", str(source["path"])]
        if "git" in source:
            argv += ["--git", str(source["git"])]
            for key in ("rev", "branch", "tag"):
                if key in source:
                    argv += [f"--{key}", str(source[key])]
        if intent.package and intent.package != intent.name:
            argv += ["--rename", intent.name]
        if intent.features:
            argv += ["--features", ",".join(intent.features)]
        options = dict(intent.options)
        if options.pop("optional", False):
            argv.append("--optional")
        if options.pop("default-features", True) is False:
            argv.append("--no-default-features")
        if options:
            return None          # attributes `cargo add` cannot write: structural edit
        group = intent.group
        if group.startswith("target:"):
            cfg, group = group[len("target:"):].rsplit(":", 1)
            argv += ["--target", cfg]
        argv += {"dependencies": [], "dev-dependencies": ["--dev"], "build-dependencies": ["--build"]}[group]
        return self.run(argv, cwd=(self.workdir / intent.manifest).parent)

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        # Cargo appends its "you're using offline mode" reminder to every offline failure, so the
        # reminder alone says nothing: a miss is a failure whose search went to a registry.
        if "cyclic package dependency" in stderr:
            return FailureKind.RESOLUTION
        # A git source never fetched into CARGO_HOME searches no registry: "can't checkout from
        # '<url>': you are in the offline mode" (alacritty patches x11-clipboard from GitHub).
        registry = ("location searched: crates.io index" in stderr or "location searched: `" in stderr
                    or "failed to download" in stderr or "--offline was specified" in stderr
                    or "can't checkout from" in stderr)
        if "offline" in stderr and registry:
            return FailureKind.OFFLINE_MISS
        if "failed to select a version" in stderr or "no matching package" in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def blamed_projects(self, stderr: str) -> set[str] | None:
        if "failed to select a version" not in stderr:
            return None
        first = _REQUIRED_BY.search(stderr)
        return {first.group(1)} if first else None

    def locked_versions(self) -> dict[str, set[str]]:
        lock = self.workdir / self.lockfile
        if not lock.is_file():
            return {}
        out: dict[str, set[str]] = {}
        for package in plain(load_toml(self.lockfile, lock.read_bytes())).get("package") or []:
            out.setdefault(package["name"], set()).add(package["version"])
        return out
