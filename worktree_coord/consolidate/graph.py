"""The package graph of an ecosystem root, and the order in which planned changes are applied.

Stage: between `plan` and applying. Input: a directory (the consolidation worktree), an ecosystem
root, and the planned `Change`s for that root. Output: a `Workspace` (member name -> directory,
a networkx DiGraph with an edge P -> Q when member P depends on member Q) and an `Ordering`
(changes in application order, plus the changes rejected to break cycles).
Invariants:
- discovery is offline and reads files only (npm/yarn/bun `workspaces`, `pnpm-workspace.yaml`,
  Cargo `[workspace]` and path deps, uv `[tool.uv.workspace]` and workspace sources, `go.work`,
  Maven `<modules>`, an aggregator's own included, with an edge from a module to its `<parent>`);
  member globs are expanded by the package managers' rules (member_globs.py, which the merge's
  semantic check shares: a member found here is a package found there);
- a cycle that the changes would create rejects the change that sorts last on the cycle (lowest
  priority, then the greatest task id, then the greatest intent id): the same inputs always
  reject the same change;
- the order is a deterministic topological order: new members before changes naming them,
  version bumps before dependents' spec changes, root-level changes before member ones,
  dependencies before dependents; ties broken by (priority, task, intent id).
"""

from __future__ import annotations

import posixpath
from dataclasses import field
from pathlib import Path
from typing import Iterable

import networkx as nx
from packaging.utils import canonicalize_name

from worktree_coord import member_globs
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import (
    ManifestModel,
    normalize_member,
    read_go_mod,
    read_manifest,
    read_pnpm_workspace,
)
from worktree_coord.consolidate.planning import Change, ConflictKind, IntentConflict

from ..frozen import value_class

MANIFEST_OF: dict[Ecosystem, str] = {
    Ecosystem.NPM: "package.json", Ecosystem.PNPM: "package.json", Ecosystem.YARN: "package.json",
    Ecosystem.BUN: "package.json", Ecosystem.CARGO: "Cargo.toml", Ecosystem.UV: "pyproject.toml",
    Ecosystem.POETRY: "pyproject.toml", Ecosystem.PIP_TOOLS: "requirements.in", Ecosystem.GO: "go.mod",
    Ecosystem.PIXI: "pixi.toml", Ecosystem.MAVEN: "pom.xml", Ecosystem.GRADLE: "gradle/libs.versions.toml",
}
# npm, yarn, pnpm and bun never expand a member glob into node_modules or a dot folder; Cargo's and
# uv's globs do (go.work names its modules one by one).
_JAVASCRIPT = frozenset({Ecosystem.NPM, Ecosystem.PNPM, Ecosystem.YARN, Ecosystem.BUN})


def join(root: str, rel: str) -> str:
    out = posixpath.normpath(posixpath.join(root, rel)) if root else posixpath.normpath(rel)
    return "" if out == "." else out


@value_class(frozen=False)
class Workspace:
    ecosystem: Ecosystem
    root: str
    members: dict[str, str] = field(default_factory=dict)        # package name -> repo-relative dir
    models: dict[str, ManifestModel] = field(default_factory=dict)  # package name -> its manifest model
    graph: nx.DiGraph = field(default_factory=nx.DiGraph)
    root_model: ManifestModel | None = None

    def name_at(self, directory: str) -> str | None:
        for name, path in self.members.items():
            if path == directory:
                return name
        return None


def _expand(workdir: Path, eco: Ecosystem, root: str, patterns: Iterable[str], manifest: str) -> list[str]:
    """Directories (repo-relative) matched by the member globs that hold `manifest`."""
    globs = [("!" if pattern.startswith("!") else "") + normalize_member(pattern.lstrip("!")) for pattern in patterns]
    skip = member_globs.skipped_by_javascript if eco in _JAVASCRIPT else None
    folders = member_globs.expand(globs, member_globs.disk_subfolders(workdir / root), skip=skip)
    return sorted(directory for directory in (join(root, folder) for folder in folders)
                  if (workdir / directory / manifest).is_file())


def _model(workdir: Path, path: str, ecosystem: Ecosystem) -> ManifestModel | None:
    file = workdir / path
    if not file.is_file():
        return None
    return read_manifest(path, file.read_bytes(), ecosystem)


def discover_workspace(workdir: Path, ecosystem: Ecosystem | str, root: str,
                       extra_members: Iterable[str] = ()) -> Workspace:
    """Members and member-to-member edges of one ecosystem root, read from the files offline.

    `extra_members` are member globs that planned `add_member` changes will add.
    """
    workdir = Path(workdir)
    eco = Ecosystem(ecosystem)
    ws = Workspace(eco, root)
    manifest = MANIFEST_OF[eco]
    root_manifest = join(root, manifest)
    root_model = _model(workdir, root_manifest, eco)
    ws.root_model = root_model
    globs: list[str] = list(root_model.members) if root_model else []
    if eco == Ecosystem.PNPM:
        pnpm = workdir / join(root, "pnpm-workspace.yaml")
        if pnpm.is_file():
            globs = list(read_pnpm_workspace(pnpm.name, pnpm.read_bytes()).members)
    if eco == Ecosystem.GO:
        work = workdir / join(root, "go.work")
        if work.is_file():
            globs = list(read_go_mod("go.work", work.read_bytes()).members)
    if eco == Ecosystem.CARGO and root_model is not None:
        exclude = ((_raw_toml(workdir / root_manifest).get("workspace") or {}).get("exclude") or [])
        globs += [f"!{e}" for e in exclude]
    if eco == Ecosystem.UV and root_model is not None:
        uv_ws = ((_raw_toml(workdir / root_manifest).get("tool") or {}).get("uv") or {}).get("workspace") or {}
        globs += [f"!{e}" for e in uv_ws.get("exclude") or []]
    globs += list(extra_members)
    dirs = _maven_modules(workdir, root, extra_members) if eco == Ecosystem.MAVEN else _expand(workdir, eco, root, globs, manifest)
    if root_model is not None and root_model.package_name and root not in dirs:
        dirs.insert(0, root)
    for directory in dirs:
        model = root_model if directory == root else _model(workdir, join(directory, manifest), eco)
        if model is None or not model.package_name:
            continue
        name = _package_name(eco, model.package_name)
        ws.members[name] = directory
        ws.models[name] = model
        ws.graph.add_node(name)
    for name, model in ws.models.items():
        if model.parent in ws.models and model.parent != name:
            ws.graph.add_edge(name, model.parent, group="parent")   # a Maven module after its parent
        for (group, dep_name), value in model.deps.items():
            target = member_target(ws, ws.members[name], dep_name, value.source, value.package)
            if target is not None and target != name:
                ws.graph.add_edge(name, target, group=group)
    return ws


def _maven_modules(workdir: Path, root: str, extra_modules: Iterable[str]) -> list[str]:
    """The folders of a Maven build's modules (pom.build_folders: an aggregator's own modules and
    the parents they name by `<relativePath>` included; a module path is a folder, not a glob; `../x`
    reaches outside the root's folder as Maven allows), with the builds of `extra_modules` (modules
    planned changes add)."""
    from worktree_coord.consolidate.planning import directory_reader
    from worktree_coord.consolidate.pom import build_folders

    read = directory_reader(workdir)
    found = set(build_folders(root, read))
    for module in extra_modules:
        found.update(build_folders(join(root, normalize_member(module)), read))
    return sorted(folder for folder in found if folder != root and read(join(folder, "pom.xml")) is not None)


def _raw_toml(path: Path) -> dict:
    from worktree_coord.consolidate.textformat import load_toml, plain

    return plain(load_toml(path.name, path.read_bytes()))


def _package_name(eco: Ecosystem, name: str) -> str:
    return canonicalize_name(name) if eco in (Ecosystem.UV, Ecosystem.POETRY) else name


def member_target(ws: Workspace, from_dir: str, dep_name: str, source, package: str | None) -> str | None:
    """The member a dependency points at, or None when it points outside the workspace."""
    src = dict(source or ())
    if "path" in src:
        target_dir = join(from_dir, str(src["path"]))
        return ws.name_at(target_dir)
    real = _package_name(ws.ecosystem, (package or dep_name).split(";")[0].strip())
    if ws.ecosystem == Ecosystem.MAVEN:
        real = ":".join(real.split(":")[:2])     # a module's test-jar is still that module
    if real not in ws.members:
        return None
    if ws.ecosystem in (Ecosystem.NPM, Ecosystem.YARN, Ecosystem.BUN, Ecosystem.PNPM, Ecosystem.GO, Ecosystem.MAVEN):
        # npm links a member whose name matches; go.work uses the member module; Maven's reactor
        # builds the module a dependency names by groupId:artifactId
        return real
    if ws.ecosystem == Ecosystem.UV:
        if src.get("workspace"):
            return real
        root_src = ws.root_model.sources.get(real, {}) if ws.root_model else {}
        return real if root_src.get("workspace") else None
    if ws.ecosystem == Ecosystem.CARGO and src.get("workspace"):
        root_model = ws.root_model
        inherited = root_model.deps.get(("workspace.dependencies", dep_name)) if root_model else None
        if inherited is not None and "path" in dict(inherited.source or ()):
            return ws.name_at(join(ws.root, str(dict(inherited.source)["path"])))
    return None


# ---------------------------------------------------------------------------------------- ordering

@value_class
class Ordering:
    changes: tuple[Change, ...]
    rejected: tuple[IntentConflict, ...]
    graph: nx.DiGraph


def _owner(ws: Workspace, intent: Intent) -> str | None:
    """The package whose manifest the intent edits (None for a virtual root)."""
    return ws.name_at(posixpath.dirname(intent.manifest) if "/" in intent.manifest else "")


def _edge_target(ws: Workspace, intent: Intent) -> str | None:
    if intent.op not in (Op.ADD_DEP, Op.SET_SPEC) or intent.group == "workspace.dependencies":
        return None
    from_dir = posixpath.dirname(intent.manifest)
    return member_target(ws, from_dir, intent.name, intent.source, intent.package)


def _sort_key(change: Change) -> tuple:
    i = change.intent
    return (-i.priority, i.task, i.intent_id)


def order_changes(changes: Iterable[Change], ws: Workspace) -> Ordering:
    """Break cycles the changes would create, then order them topologically (module docstring)."""
    changes = sorted(changes, key=_sort_key)
    graph = ws.graph.copy()
    by_edge: dict[tuple[str, str], list[Change]] = {}
    for change in changes:
        owner, target = _owner(ws, change.intent), _edge_target(ws, change.intent)
        if owner is not None and target is not None and owner != target:
            by_edge.setdefault((owner, target), []).append(change)
            graph.add_edge(owner, target)
    rejected: list[IntentConflict] = []
    dropped: set[str] = set()
    while True:
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            break
        on_cycle = [c for u, v, *_ in cycle for c in by_edge.get((u, v), []) if c.intent.intent_id not in dropped]
        if not on_cycle:           # a cycle already in the base: not ours to break; stop looking
            break
        victim = max(on_cycle, key=_sort_key)
        dropped.add(victim.intent.intent_id)
        u, v = _owner(ws, victim.intent), _edge_target(ws, victim.intent)
        remaining = [c for c in by_edge.get((u, v), []) if c.intent.intent_id not in dropped]
        if not remaining and not ws.graph.has_edge(u, v):
            graph.remove_edge(u, v)
        path = " -> ".join([cycle[0][0], *(e[1] for e in cycle)])
        tasks = tuple(sorted({t for c in on_cycle for t in c.tasks}))
        rejected.append(IntentConflict(
            ConflictKind.CYCLE, victim.intent.key, tasks, tuple(i.intent_id for i in victim.sources),
            f"dependency cycle {path}: rejected {victim.intent.name!r} in {victim.intent.manifest} "
            f"(task {victim.intent.task}, lowest priority on the cycle)",
            "break the cycle: move the shared code into a third member, or drop one of the dependencies"))
    kept = [c for c in changes if c.intent.intent_id not in dropped]
    return Ordering(_topological(kept, ws, graph), tuple(rejected), graph)


def _topological(changes: list[Change], ws: Workspace, pkg_graph: nx.DiGraph) -> tuple[Change, ...]:
    # Dependencies first: rank packages by a deterministic topological order of the reversed graph.
    try:
        pkg_order = list(nx.lexicographical_topological_sort(pkg_graph.reverse(copy=True), key=str))
    except nx.NetworkXUnfeasible:      # a cycle already in the base: fall back to names
        pkg_order = sorted(pkg_graph.nodes)
    rank = {name: index for index, name in enumerate(pkg_order)}
    member_names = {c.intent.intent_id: _member_name_added(ws, c.intent) for c in changes}
    g = nx.DiGraph()
    ids = {c.intent.intent_id: c for c in changes}
    g.add_nodes_from(ids)
    for a in changes:
        ia = a.intent
        for b in changes:
            ib = b.intent
            if ia.intent_id == ib.intent_id:
                continue
            refers = {ib.name, ib.package} & {member_names[ia.intent_id], ia.name}
            if ia.op == Op.ADD_MEMBER and member_names[ia.intent_id] in {ib.name, ib.package, _owner(ws, ib)}:
                g.add_edge(ia.intent_id, ib.intent_id)
            elif ia.op == Op.BUMP_VERSION and ib.op in (Op.ADD_DEP, Op.SET_SPEC) and refers:
                g.add_edge(ia.intent_id, ib.intent_id)
            elif ia.op == Op.REMOVE_DEP and ib.op == Op.REMOVE_MEMBER and ia.name == member_names[ib.intent_id]:
                g.add_edge(ia.intent_id, ib.intent_id)
            elif _is_root_level(ia) and not _is_root_level(ib) and ia.manifest != ib.manifest:
                g.add_edge(ia.intent_id, ib.intent_id)
            else:
                oa, ob = _owner(ws, ia), _owner(ws, ib)
                if oa and ob and oa != ob and pkg_graph.has_node(oa) and pkg_graph.has_node(ob) \
                        and nx.has_path(pkg_graph, ob, oa):
                    g.add_edge(ia.intent_id, ib.intent_id)     # ob depends on oa: oa's change first

    def key(intent_id: str) -> tuple:
        c = ids[intent_id]
        owner = _owner(ws, c.intent)
        return (0 if _is_root_level(c.intent) else 1, rank.get(owner or "", -1), *_sort_key(c))

    try:
        order = list(nx.lexicographical_topological_sort(g, key=key))
    except nx.NetworkXUnfeasible:
        order = sorted(ids, key=key)
    return tuple(ids[i] for i in order)


def _is_root_level(intent: Intent) -> bool:
    return intent.op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE, Op.SET_RUNTIME, Op.ADD_MEMBER) \
        or intent.group == "workspace.dependencies"


def _member_name_added(ws: Workspace, intent: Intent) -> str | None:
    if intent.op not in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        return None
    directory = join(intent.root, intent.name)
    return ws.name_at(directory) or posixpath.basename(intent.name)


# ------------------------------------------------------------------------------- version bumps

def check_version_bumps(changes: Iterable[Change], ws: Workspace) -> list[IntentConflict]:
    """Bumps of a member's version that would leave a dependent's spec unsatisfied.

    Without a `workspace:` protocol a dependent whose range no longer matches the member goes to
    the registry (npm) or fails to resolve (Cargo path + version), so such a bump needs matching
    spec changes in the same consolidation; otherwise it is rejected here, naming every task.
    """
    from worktree_coord.consolidate.specs import satisfies

    changes = list(changes)
    planned = {(c.intent.manifest, c.intent.group, c.intent.name): c for c in changes
               if c.intent.op in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP)}
    conflicts: list[IntentConflict] = []
    manifest_name = MANIFEST_OF[ws.ecosystem]
    for bump in changes:
        intent = bump.intent
        if intent.op != Op.BUMP_VERSION or not intent.spec:
            continue
        member = _owner(ws, intent) or _package_name(ws.ecosystem, intent.name)
        if member not in ws.members:
            continue
        for dependent in sorted(ws.graph.predecessors(member)) if ws.graph.has_node(member) else []:
            directory = ws.members[dependent]
            manifest = join(directory, manifest_name)
            for (group, dep), value in sorted(ws.models[dependent].deps.items()):
                if member_target(ws, directory, dep, value.source, value.package) != member:
                    continue
                fix = planned.get((manifest, group, dep))
                if fix is not None and fix.intent.op == Op.REMOVE_DEP:
                    continue
                spec = fix.intent.spec if fix is not None else value.spec
                if not spec or spec.startswith("workspace:"):
                    continue
                if satisfies(ws.ecosystem, intent.spec, spec) is False:
                    tasks = tuple(sorted({*bump.tasks, *(fix.tasks if fix else ())}))
                    conflicts.append(IntentConflict(
                        ConflictKind.DIFFERENT_VALUES, intent.key, tasks, tuple(i.intent_id for i in bump.sources),
                        f"{member} {intent.expected_before} -> {intent.spec} (task {intent.task}) breaks "
                        f"{dependent}'s {group} spec {spec!r} in {manifest}",
                        f"add an intent setting {dep!r} in {manifest} to a range that accepts {intent.spec}, "
                        f"or use the workspace protocol"))
    return conflicts
