"""Which locked packages depend on which, read from a lockfile: what a relock may move on its own.

Stage: the audit after a relock (root.py, verify.lock_diff). A package an intent names pulls its
own dependencies along when its version moves (a bump to a release that needs a newer `urllib3`
moves `urllib3`); those moves are explained, and only the others are flagged for review.
Input: the lockfile of one ecosystem root, on disk. Output: package name -> the names its locked
entries depend on (names spelled as `locked_versions` spells them), empty when the format carries
no graph (go.sum) or the file is missing or unreadable: then nothing counts as explained by it.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from packaging.utils import canonicalize_name

Graph = dict[str, set[str]]


def read_graph(lockfile: Path) -> Graph:
    """The dependency graph of one lockfile, by its name; {} for a format without one."""
    if not lockfile.is_file():
        return {}
    name = lockfile.name
    try:
        data = lockfile.read_bytes()
        if name == "package-lock.json" or name == "npm-shrinkwrap.json":
            return _npm(json.loads(data))
        if name == "pnpm-lock.yaml":
            return _pnpm(data)
        if name == "yarn.lock":
            return _yarn(data)
        if name in ("Cargo.lock", "uv.lock", "poetry.lock"):
            return _toml_packages(name, data)
        if name.endswith(".txt"):
            return _pip_compiled(data.decode("utf-8", "replace"))
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError, yaml.YAMLError):
        return {}        # an unreadable lock explains nothing; the audit then flags as before
    return {}


def reachable(graph: Mapping[str, Iterable[str]], start: Iterable[str]) -> set[str]:
    """Every package reached from `start` through the graph (not `start` itself unless reached)."""
    seen: set[str] = set()
    stack = [dep for name in start for dep in graph.get(name, ())]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(graph.get(name, ()))
    return seen


def union(*graphs: Graph) -> Graph:
    out: Graph = defaultdict(set)
    for graph in graphs:
        for name, deps in graph.items():
            out[name] |= deps
    return dict(out)


def _npm(doc: dict[str, Any]) -> Graph:
    packages = doc.get("packages") or {}
    # A workspace member's entry is keyed by its folder and names itself only when the folder's
    # name differs: its link under node_modules/ says which package it is.
    linked = {entry.get("resolved"): key.rsplit("node_modules/", 1)[1] for key, entry in packages.items()
              if "node_modules/" in key and isinstance(entry, dict) and entry.get("link")}
    out: Graph = defaultdict(set)
    for key, entry in packages.items():
        if not key or not isinstance(entry, dict):
            continue          # the root's own entry: what it depends on is what intents name
        name = key.rsplit("node_modules/", 1)[1] if "node_modules/" in key else \
            entry.get("name") or linked.get(key)
        if not name:
            continue
        for group in ("dependencies", "optionalDependencies", "peerDependencies"):
            out[name].update(entry.get(group) or {})
    return dict(out)


def _yaml(data: bytes) -> Any:
    """A lockfile's YAML, read fast (libyaml when PyYAML has it): the graph needs its values only."""
    return yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _pnpm(data: bytes) -> Graph:
    from worktree_coord.consolidate.adapters.javascript import split_package_key, strip_peers

    doc: dict[str, Any] = _yaml(data) or {}
    out: Graph = defaultdict(set)
    for section in ("snapshots", "packages"):
        for key, entry in (doc.get(section) or {}).items():
            parsed = split_package_key(strip_peers(str(key)).lstrip("/"))
            if parsed is None or not isinstance(entry, dict):
                continue
            for group in ("dependencies", "optionalDependencies"):
                out[parsed[0]].update(str(dep) for dep in entry.get(group) or {})
    return dict(out)


def _yarn(data: bytes) -> Graph:
    text = data.decode("utf-8")
    if "__metadata:" in text:
        return _berry(_yaml(data) or {})
    return _classic(text)


def _berry(doc: dict[str, Any]) -> Graph:
    from worktree_coord.consolidate.adapters.javascript import split_package_key

    out: Graph = defaultdict(set)
    for key, entry in doc.items():
        if key == "__metadata" or not isinstance(entry, dict):
            continue
        parsed = split_package_key(str(entry.get("resolution", "")))
        if parsed is not None:
            for group in ("dependencies", "optionalDependencies", "peerDependencies"):
                out[parsed[0]].update(str(dep) for dep in entry.get(group) or {})
    return dict(out)


def _classic(text: str) -> Graph:
    """Yarn 1: an entry's header names it (`"a@^1", a@~1.2:`); its indented `dependencies:` block
    lists one `name "range"` per line, indented one step further."""
    from worktree_coord.consolidate.adapters.javascript import split_package_key

    out: Graph = defaultdict(set)
    name: str | None = None
    in_deps = False
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            parsed = split_package_key(line.rstrip(":").split(",")[0].strip().strip('"'))
            name, in_deps = (parsed[0] if parsed else None), False
            continue
        if line.startswith("    ") and in_deps and name is not None:
            dep = line.strip().split(" ", 1)[0].strip('"')
            if dep:
                out[name].add(dep)
            continue
        in_deps = line.strip() in ("dependencies:", "optionalDependencies:")
    return dict(out)


def _toml_packages(name: str, data: bytes) -> Graph:
    """Cargo.lock (`dependencies = ["serde 1.0.1 (registry+...)"]`), uv.lock (`dependencies =
    [{ name = "idna" }]`, optional and dev groups too) and poetry.lock (`[package.dependencies]`)."""
    doc = tomllib.loads(data.decode("utf-8"))
    python = name != "Cargo.lock"
    key = canonicalize_name if python else (lambda text: text)
    out: Graph = defaultdict(set)
    for package in doc.get("package") or []:
        deps: set[str] = set()
        listed = package.get("dependencies") or []
        if isinstance(listed, dict):                       # poetry: name -> spec
            deps.update(listed)
        for item in listed if isinstance(listed, list) else ():
            deps.add(item.split(" ", 1)[0] if isinstance(item, str) else str(item.get("name", "")))
        for group in ("optional-dependencies", "dev-dependencies"):
            for items in (package.get(group) or {}).values():
                deps.update(str(item.get("name", "")) for item in items if isinstance(item, dict))
        out[key(package["name"])].update(key(dep) for dep in deps if dep)
    return dict(out)


_VIA = re.compile(r"^\s*#\s+(?:via\s+)?(?P<names>[A-Za-z0-9][A-Za-z0-9._\-\[\], ]*)$")
_PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==")


def _pip_compiled(text: str) -> Graph:
    """pip-compile's output: each pin is followed by `# via` lines naming what required it (a
    package, or `-r requirements.in`): the graph runs from those to the pin."""
    out: Graph = defaultdict(set)
    current: str | None = None
    for line in text.splitlines():
        pinned = _PINNED.match(line)
        if pinned:
            current = canonicalize_name(pinned.group(1))
            continue
        if current is None or not line.lstrip().startswith("#"):
            current = None if line.strip() and not line.startswith((" ", "\t")) else current
            continue
        match = _VIA.match(line)
        if match is None or match.group("names").strip() == "via":
            continue
        for parent in match.group("names").split(","):
            parent = parent.strip().split("[", 1)[0]
            if parent and not parent.startswith("-"):
                out[canonicalize_name(parent)].add(current)
    return dict(out)
