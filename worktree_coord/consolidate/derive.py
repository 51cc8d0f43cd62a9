"""Derive intents from a task's edit of one reserved file (a key-level diff against its base).

Stage: task finish. Input: the repo-relative path, the file's bytes at the task's base and in the
task's result (None = absent), the task id. Output: a list of `Intent`, sorted by intent id.
Invariants:
- a lockfile edit is never kept: it becomes one RELOCK intent for its ecosystem root;
- a manifest below its ecosystem root (a member's manifest) merges through the merge engine and
  only asks its root for a relock;
- every intent carries the value the task saw at its base (`expected_before`, None = absent);
- equal content written differently derives nothing (the diff runs on normalized models).
"""

from __future__ import annotations

import posixpath

from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import (
    ManifestModel,
    classify_path,
    encode_value,
    is_poetry,
    read_manifest,
)
from worktree_coord.consolidate.textformat import load_toml, plain
from worktree_coord.errors import UsageError


def _dir(path: str) -> str:
    parent = posixpath.dirname(path)
    return "" if parent in ("", ".") else parent


def _ecosystem_of(path: str, data: bytes | None, given: Ecosystem | str | None) -> Ecosystem:
    if given is not None:
        return Ecosystem(given)
    kind = classify_path(path)
    assert kind is not None
    if kind.format == "pyproject" and data is not None:
        return Ecosystem.POETRY if is_poetry(plain(load_toml(path, data))) else Ecosystem.UV
    return kind.ecosystem


def derive_intents(
    path: str,
    base: bytes | None,
    new: bytes | None,
    *,
    task: str,
    ecosystem: Ecosystem | str | None = None,
    root: str | None = None,
    base_commit: str = "",
    priority: int = 0,
) -> list[Intent]:
    """Intents that turn `base` into `new` for the reserved file `path`.

    `root` is the ecosystem root that owns the lockfile (default: the file's own directory);
    `ecosystem` overrides the default guessed from the file name (e.g. "pnpm" for a package.json
    in a pnpm workspace).
    """
    kind = classify_path(path)
    if kind is None:
        raise UsageError(f"{path} is not a manifest or lockfile consolidation knows",
                         fix="declare intents for it directly (`wtc intent add`) or remove it from the reserved list")
    if base == new:
        return []
    eco = _ecosystem_of(path, new if new is not None else base, ecosystem)
    root = _dir(path) if root is None else root.strip("/")
    common = dict(task=task, ecosystem=eco, root=root, manifest=path, base_commit=base_commit, priority=priority)

    if kind.kind == "lockfile" or _dir(path) != root:
        why = "lockfile edited by the task" if kind.kind == "lockfile" else "member manifest changed"
        return [Intent(intent_id=f"{task}:{root or '.'}:relock:{eco.value}", op=Op.RELOCK, rationale=why, **common)]
    if new is None:
        raise UsageError(f"task {task} deleted the root manifest {path}",
                         fix=f"restore {path}; removing an ecosystem root needs a person, not consolidation")

    before = read_manifest(path, base, eco) if base is not None else ManifestModel(eco)
    after = read_manifest(path, new, eco)
    intents: list[Intent] = []

    def add(op: Op, group: str, name: str, **fields) -> None:
        intents.append(Intent(intent_id=f"{task}:{path}:{op.value}:{group}:{name}", op=op, group=group,
                              name=name, **common, **fields))

    for (group, name) in sorted(set(before.deps) | set(after.deps)):
        old, cur = before.deps.get((group, name)), after.deps.get((group, name))
        if old == cur:
            continue
        if cur is None:
            add(Op.REMOVE_DEP, group, name, expected_before=encode_value(old))
            continue
        op = Op.ADD_DEP if old is None else Op.SET_SPEC
        add(op, group, name, spec=cur.spec, source=cur.source, extras=cur.extras, features=cur.features,
            markers=cur.markers, package=cur.package, options=cur.options, expected_before=encode_value(old))

    for member in sorted(set(after.members) - set(before.members)):
        add(Op.ADD_MEMBER, "workspace.members", member, spec=member)
    for member in sorted(set(before.members) - set(after.members)):
        add(Op.REMOVE_MEMBER, "workspace.members", member, expected_before=member)

    if after.version != before.version and after.version is not None:
        add(Op.BUMP_VERSION, "version", after.package_name or before.package_name or "", spec=after.version,
            expected_before=before.version)

    for name in sorted(set(before.overrides) | set(after.overrides)):
        old_o, new_o = before.overrides.get(name), after.overrides.get(name)
        if old_o == new_o:
            continue
        if new_o is None:
            add(Op.REMOVE_OVERRIDE, "overrides", name, expected_before=old_o)
        else:
            add(Op.SET_OVERRIDE, "overrides", name, spec=new_o, expected_before=old_o)

    for name in sorted(set(before.runtime) | set(after.runtime)):
        old_r, new_r = before.runtime.get(name), after.runtime.get(name)
        if old_r != new_r and new_r is not None:
            add(Op.SET_RUNTIME, "runtime", name, spec=new_r, expected_before=old_r)

    return sorted(intents, key=lambda i: i.intent_id)


def find_root(path: str, tree_paths: set[str] | frozenset[str]) -> str:
    """The nearest directory at or above `path` that holds a lockfile or a workspace declaration.

    `tree_paths` is the set of repo-relative file paths of the base tree. Falls back to the file's
    own directory when nothing above qualifies.
    """
    from worktree_coord.consolidate.manifests import LOCKFILES

    here = _dir(path)
    probe = here
    while True:
        prefix = f"{probe}/" if probe else ""
        if any(f"{prefix}{lock}" in tree_paths for lock in LOCKFILES):
            return probe
        if f"{prefix}pnpm-workspace.yaml" in tree_paths or f"{prefix}go.work" in tree_paths:
            return probe
        if not probe:
            return here
        probe = _dir(probe)


# Key paths the intent model covers, per manifest format ("*" matches any one key).
MODELED: dict[str, tuple[tuple[str, ...], ...]] = {
    "package.json": (("dependencies",), ("devDependencies",), ("optionalDependencies",), ("peerDependencies",),
                     ("workspaces",), ("version",), ("overrides",), ("resolutions",), ("pnpm", "overrides"),
                     ("engines", "node")),
    "cargo": (("package", "version"), ("package", "rust-version"), ("dependencies",), ("dev-dependencies",),
              ("build-dependencies",), ("target", "*", "dependencies"), ("target", "*", "dev-dependencies"),
              ("target", "*", "build-dependencies"), ("workspace", "members"), ("workspace", "dependencies"),
              ("patch", "crates-io")),
    "pyproject": (("project", "dependencies"), ("project", "optional-dependencies"), ("project", "version"),
                  ("project", "requires-python"), ("dependency-groups",), ("tool", "uv", "dev-dependencies"),
                  ("tool", "uv", "sources"), ("tool", "uv", "workspace", "members"),
                  ("tool", "uv", "override-dependencies"), ("tool", "poetry", "dependencies"),
                  ("tool", "poetry", "dev-dependencies"), ("tool", "poetry", "group", "*", "dependencies"),
                  ("tool", "poetry", "version")),
    "pnpm-workspace": (("packages",), ("catalog",), ("catalogs",), ("overrides",)),
}


def _strip(doc, path: tuple[str, ...]) -> None:
    if not isinstance(doc, dict) or not path:
        return
    head, rest = path[0], path[1:]
    keys = list(doc) if head == "*" else [head] if head in doc else []
    for key in keys:
        if rest:
            _strip(doc[key], rest)
            if isinstance(doc[key], dict) and not doc[key]:
                del doc[key]
        else:
            del doc[key]


def _differences(a, b, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            out += _differences(a.get(key), b.get(key), f"{prefix}.{key}" if prefix else str(key))
        return out
    return [] if a == b else [prefix or "(whole file)"]


def unexpressed_changes(path: str, base: bytes | None, new: bytes | None) -> list[str]:
    """Changes to a root manifest that no intent can express (e.g. `scripts.test` in package.json).

    Consolidation applies intents only, so these edits would be lost: the caller rejects or reports
    them instead of dropping them silently. Lockfiles and member manifests return [] (by design a
    lockfile edit is replaced by a relock, and member manifests merge through the merge engine).
    """
    import copy

    from worktree_coord.consolidate.manifests import _go_directives, requirement_lines
    from worktree_coord.consolidate.textformat import load_json, load_yaml

    kind = classify_path(path)
    if kind is None or kind.kind == "lockfile" or base == new or base is None or new is None:
        return []
    if kind.format in MODELED:
        def load(data: bytes):
            if kind.format == "package.json":
                return load_json(path, data)
            if kind.format == "pnpm-workspace":
                return load_yaml(path, data) or {}
            return plain(load_toml(path, data))

        docs = [copy.deepcopy(load(data)) for data in (base, new)]
        for doc in docs:
            for modeled in MODELED[kind.format]:
                _strip(doc, modeled)
        return _differences(*docs)
    if kind.format == "requirements":
        def options(data: bytes) -> list[str]:
            reqs = {index for index, _ in requirement_lines(data.decode("utf-8"))}
            return [line.strip() for index, line in enumerate(data.decode("utf-8").splitlines())
                    if index not in reqs and line.strip() and not line.strip().startswith("#")
                    and not line.strip().startswith("--hash")]
        return ["options lines"] if options(base) != options(new) else []
    modeled_verbs = {"module", "go", "toolchain", "require", "replace", "use"}
    def others(data: bytes) -> list[tuple[str, str]]:
        return [d for d in _go_directives(data.decode("utf-8")) if d[0] not in modeled_verbs]
    return sorted({verb for verb, _ in set(others(base)) ^ set(others(new))})


DEFAULT_GROUP = {"package.json": "dependencies", "cargo": "dependencies", "pyproject": "dependencies",
                 "requirements": "requirements", "go.mod": "require", "go.work": "require",
                 "pnpm-workspace": "catalog"}


def declare_intent(
    path: str,
    base: bytes | None,
    *,
    task: str,
    op: Op | str,
    name: str,
    spec: str | None = None,
    group: str | None = None,
    source: dict | None = None,
    extras: tuple[str, ...] = (),
    features: tuple[str, ...] = (),
    markers: str | None = None,
    package: str | None = None,
    ecosystem: Ecosystem | str | None = None,
    root: str | None = None,
    base_commit: str = "",
    priority: int = 0,
    rationale: str = "",
) -> Intent:
    """An intent an agent declares directly (`wtc intent add`), with its base value filled in.

    `base` is the manifest at the task's base; the name is normalized for the ecosystem and the
    group defaults to the manifest's main dependency group. The result is the same intent
    `derive_intents` would give for the equivalent edit.
    """
    from worktree_coord.consolidate.manifests import normalize_member, normalize_name
    from worktree_coord.consolidate.plan import current_value

    kind = classify_path(path)
    if kind is None or kind.kind != "manifest":
        raise UsageError(f"{path} is not a manifest consolidation can edit",
                         fix="name a package.json, Cargo.toml, pyproject.toml, requirements*.txt or go.mod")
    op = Op(op)
    eco = _ecosystem_of(path, base, ecosystem)
    root = _dir(path) if root is None else root.strip("/")
    if op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        group, name = "workspace.members", normalize_member(name)
        spec = name if op == Op.ADD_MEMBER else None
    elif op == Op.BUMP_VERSION:
        group = "version"
    elif op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        group = "overrides"
    elif op == Op.SET_RUNTIME:
        group = "runtime"
    else:
        group = group or DEFAULT_GROUP[kind.format]
        name = normalize_name(eco, name)
    draft = Intent(intent_id=f"{task}:{path}:{op.value}:{group}:{name}", task=task, ecosystem=eco, root=root,
                   manifest=path, op=op, group=group, name=name, spec=spec, source=source, extras=extras,
                   features=features, markers=markers, package=package, base_commit=base_commit,
                   priority=priority, rationale=rationale,
                   member=None if _dir(path) == root else _dir(path))
    model = read_manifest(path, base, eco) if base is not None else ManifestModel(eco)
    before = current_value(model, draft)
    if op == Op.ADD_DEP and before is not None:
        raise UsageError(f"{name!r} is already in [{group}] of {path} at the task's base ({before})",
                         fix="declare set_spec to change it")
    if op in (Op.SET_SPEC, Op.REMOVE_DEP) and before is None:
        raise UsageError(f"{name!r} is not in [{group}] of {path} at the task's base",
                         fix="declare add_dep to add it")
    import dataclasses

    return dataclasses.replace(draft, expected_before=before)
