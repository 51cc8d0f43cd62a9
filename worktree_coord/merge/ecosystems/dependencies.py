"""The external dependency an imported module belongs to, as one version of a manifest declares it.

Stage: inside the import-path check (import_paths.py), after a tree merge, only for a module it is
about to report. Input: the language's manifest file name (profile `[semantic] manifest`: one of
`MANIFESTS`), the manifests that govern a file in one tree (nearest first, up to the root) and an
imported module path. Output: `Declared` (the dependency's name, its declaration in a comparable
form, whether its source is in the tree), or None when the module names no declared dependency.

Why: a module whose root is an external dependency is that dependency's code. When one side's files
stop importing it while the manifest still declares the dependency exactly as the base did, the
module still exists: that side dropped its uses, it did not move the module (actix-web
`c7ad677804`: `encoding::types`, with `encoding = "0.2"` on every side). What stays a move:
the dependency itself replaced or bumped (`javax.servlet` -> `jakarta.servlet`, a Go module path
bumped to `/v2`, a new version that may have dropped the module: the declaration differs), and a
dependency whose source is the tree's own (a path dependency, a Cargo `[patch]` to a path, a
`workspace:` package, a Go `replace` to a folder, a uv workspace source): the tree may no longer
hold the module (actix-web `df3bf79873`: `actix_http::client`).

How each manifest names what code imports (a name no rule maps is simply not found, which keeps
the check as strict as without this module):
- Cargo.toml: the dependency's key (`-` read as `_`) is a path's first part (`encoding::types`);
  `workspace = true` takes the entry of the package's workspace (`workspace_entry`: the nearest
  manifest above with a `[workspace]` table).
- go.mod: the longest required module path that is the import path or a folder above it.
- package.json: the package of a bare specifier (`lodash/fp` -> lodash, `@scope/pkg/x` -> @scope/pkg).
- pyproject.toml: a requirement whose normalized name is the module's first part (`simplejson`);
  a distribution whose import name differs (`pyyaml` / `yaml`) is not matched.
Only the nearest manifest declares a file's dependencies (Cargo: its package; npm: its package.json);
an ancestor's are not read (fewer suppressions, never more).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Sequence, TypeVar

from ...frozen import value_class
from ..languages.profiles import MANIFESTS

_CARGO_GROUPS = ("dependencies", "dev-dependencies", "build-dependencies")
_NPM_GROUPS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_NPM_LOCAL = ("file:", "link:", "workspace:", "portal:", ".", "/")
_PEP508_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")

Where = TypeVar("Where")   # a manifest's place: its folder (crate_paths.py), or its rank in a chain


@value_class
class Declared:
    """One dependency as one version of a manifest declares it."""

    name: str       # as the manifest keys it
    entry: str      # the declaration, canonical (key order and spacing do not matter)
    local: bool     # its source is in the tree (path dependency, workspace package, local replace)


def declared_dependency(manifest: str, module: str, chain: Sequence[bytes]) -> Declared | None:
    """The dependency `module` belongs to, as `chain` (the manifests named `manifest` that govern
    the importing file in one tree, nearest first) declares it; None when none does, or when the
    nearest manifest does not parse (nothing is guessed)."""
    if not chain:
        return None
    try:
        if manifest == "Cargo.toml":
            return _cargo(module, [_toml(data) for data in chain])
        if manifest == "go.mod":
            return _go(module, chain[0])
        if manifest == "package.json":
            return _npm(module, chain[0])
        if manifest == "pyproject.toml":
            return _pyproject(module, _toml(chain[0]))
    except (ValueError, UnicodeDecodeError, TypeError, AttributeError):
        return None   # a manifest that does not parse (or holds unexpected shapes): unknown
    raise ValueError(f"no dependency reader for {manifest!r} (known: {', '.join(MANIFESTS)})")


def _toml(data: bytes) -> dict[str, Any]:
    import tomllib   # here: a merge that reads no pyproject.toml loads no TOML parser

    return tomllib.loads(data.decode("utf-8"))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# -- Cargo.toml -----------------------------------------------------------------------------------
def _cargo(module: str, docs: list[dict[str, Any]]) -> Declared | None:
    crate = module.lstrip(":").split("::", 1)[0]
    if not crate:
        return None
    nearest = docs[0]
    tables = [nearest.get(group) or {} for group in _CARGO_GROUPS]
    for target in (nearest.get("target") or {}).values():
        tables.extend(target.get(group) or {} for group in _CARGO_GROUPS)
    entries = [(key, value) for table in tables for key, value in table.items() if key.replace("-", "_") == crate]
    if not entries:
        return None
    resolved = []
    for key, value in entries:
        if isinstance(value, dict) and value.get("workspace") is True:
            inherited = workspace_entry(key, enumerate(docs))
            if inherited is None:
                return None
            value = {"inherited": inherited[0], **{k: v for k, v in value.items() if k != "workspace"}}
        resolved.append((key, value))
    key = resolved[0][0]
    patched = any(isinstance(table.get(key), dict) and "path" in table[key]
                  for doc in docs for table in (doc.get("patch") or {}).values() if isinstance(table, dict))
    local = patched or any(_cargo_path(value) for _, value in resolved)
    return Declared(key, _canonical([value for _, value in resolved]), local)


def workspace_entry(key: str, manifests: Iterable[tuple[Where, Any]]) -> tuple[Any, Where] | None:
    """What `key = { workspace = true }` inherits: the entry of `[workspace.dependencies]` for `key`
    and where the manifest declaring it is (crate_paths.py resolves a `path =` from that folder).
    `manifests` are the parsed Cargo.toml files from the package's own upward, each with its place.
    The workspace is the nearest of them with a `[workspace]` table (Cargo's rule, its `exclude` and
    `package.workspace` aside); None when that one has no entry for `key`, or there is none (an
    outer workspace's entry is not the package's: Cargo refuses it)."""
    for where, doc in manifests:
        workspace = doc.get("workspace") if isinstance(doc, dict) else None
        if isinstance(workspace, dict):
            dependencies = workspace.get("dependencies")
            entry = dependencies.get(key) if isinstance(dependencies, dict) else None
            return None if entry is None else (entry, where)
    return None


def _cargo_path(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return "path" in value or _cargo_path(value.get("inherited"))


# -- go.mod ---------------------------------------------------------------------------------------
def _go(module: str, data: bytes) -> Declared | None:
    required: dict[str, str] = {}
    replaced: dict[str, str] = {}
    block = ""
    for raw in data.decode("utf-8").splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if block:
            if line == ")":
                block = ""
                continue
            verb, rest = block, line
        else:
            verb, _, rest = line.partition(" ")
            rest = rest.strip()
            if rest == "(":
                block = verb
                continue
        words = rest.split()
        if verb == "require" and len(words) >= 2:
            required[words[0]] = words[1]
        elif verb == "replace" and "=>" in rest:
            old, new = (part.strip() for part in rest.split("=>", 1))
            replaced[old.split()[0]] = new
    owners = [path for path in required if module == path or module.startswith(path + "/")]
    if not owners:
        return None
    path = max(owners, key=len)
    target = replaced.get(path, "")
    local = target.startswith((".", "/"))
    return Declared(path, _canonical([required[path], target]), local)


# -- package.json ---------------------------------------------------------------------------------
def _npm(module: str, data: bytes) -> Declared | None:
    if module.startswith((".", "/")) or ":" in module:
        return None   # a relative file, or `node:fs`: no package
    parts = module.split("/")
    package = "/".join(parts[:2]) if module.startswith("@") else parts[0]
    doc = json.loads(data)
    specs = [group[package] for group in (doc.get(name) or {} for name in _NPM_GROUPS)
             if isinstance(group, dict) and package in group]
    if not specs:
        return None
    local = any(isinstance(spec, str) and spec.startswith(_NPM_LOCAL) for spec in specs)
    return Declared(package, _canonical(specs), local)


# -- pyproject.toml -------------------------------------------------------------------------------
def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _pyproject(module: str, doc: dict[str, Any]) -> Declared | None:
    if module.startswith("."):
        return None
    wanted = _normalized(module.split(".", 1)[0])
    project = doc.get("project") or {}
    requirements: list[str] = list(project.get("dependencies") or [])
    for items in (project.get("optional-dependencies") or {}).values():
        requirements.extend(items)
    for items in (doc.get("dependency-groups") or {}).values():
        requirements.extend(item for item in items if isinstance(item, str))
    found: list[Any] = []
    local = False
    for requirement in requirements:
        match = _PEP508_NAME.match(requirement)
        if match and _normalized(match.group(1)) == wanted:
            found.append(" ".join(requirement.split()))
            local = local or "file:" in requirement
    poetry = (doc.get("tool") or {}).get("poetry") or {}
    tables = [poetry.get("dependencies") or {}, poetry.get("dev-dependencies") or {}]
    tables.extend((group.get("dependencies") or {}) for group in (poetry.get("group") or {}).values())
    for table in tables:
        for name, value in table.items():
            if _normalized(name) == wanted:
                found.append(value)
                local = local or (isinstance(value, dict) and ("path" in value or "develop" in value))
    if not found:
        return None
    sources = ((doc.get("tool") or {}).get("uv") or {}).get("sources") or {}
    for name, source in sources.items():
        if _normalized(name) == wanted:
            local = local or (isinstance(source, dict) and ("path" in source or source.get("workspace") is True))
            found.append({"source": source})
    return Declared(wanted, _canonical(found), local)
