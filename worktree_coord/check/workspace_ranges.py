"""A finished task's ranges against the other members of its lock: ranges no one version can meet.

Stage: `task finish`, after the task's intents are derived, and the checks an agent runs before
it with the same words (`wtc task check`: coordinator/forecast.py; `wtc check`: check/pipeline.py,
against the target's tip, naming the run's tasks when it checks a task of a run). Input: the task's owned member manifests
(their relock intents name the lock that covers each), the integration tip (other members' manifests
as merged so far), the pinned commit, and who changed which manifest in the run. Output: one
`disjoint_workspace_range` violation per requirement the task changed that is provably disjoint from
a range of the same package another manifest under the same lock declares, naming both manifests,
who set the other range, and the fix.
Invariants:
- applies only where the package manager locks one version per package for all the lock covers
  (consolidate/version_rules.py: uv, not npm's nested copies or Cargo's majors);
- refuses only what the operators prove (`specs.compare` says DISJOINT); a pair it cannot decide
  (`===`, pre-releases, markers, a non-registry source) is the relock's to decide;
- a root `override-dependencies` entry for the package replaces every range of it: no finding.
Member manifests merge as ordinary files, so without this check both ranges merged and only the
relock at consolidation failed, with every member manifest the run changed named as a suspect.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from ..consolidate.intent import Ecosystem, Intent, Op
from ..consolidate.manifests import ManifestModel, read_manifest
from ..consolidate.planning import ranged
from ..consolidate.specs import Relation, compare, same_spec
from ..consolidate.uv_workspace import uv_member_manifests
from ..consolidate.version_rules import ranges_must_meet
from ..errors import WtcError
from ..gitrepo import Change
from ..member_globs import Subfolders, Unsure

Reader = Callable[[str], "bytes | None"]   # repo-relative path -> its bytes at one commit; None: absent

# Which manifests one lock covers, per package manager that locks a workspace as one.
_COVERED: dict[Ecosystem, Callable[[Reader, Subfolders, str], list[str]]] = {Ecosystem.UV: uv_member_manifests}


def disjoint_member_ranges(owned: Sequence[Change], intents: Iterable[Intent], *, task: str, run: str | None,
                           read_blob: Callable[[str], bytes], tip: Reader, tip_folders: Subfolders,
                           pinned: Reader, changed_by: Callable[[str], list[str]]) -> list[dict[str, str]]:
    """Violations for the task's requirements no version can meet together with another manifest's
    under the same lock (module docstring). `changed_by(manifest)` names the other tasks of the run
    that changed that manifest. `run` None: a branch checked outside a run (`wtc check` with no
    task), whose way to bring the target in is its own merge."""
    relocks = {i.manifest: i for i in intents if i.op == Op.RELOCK and i.manifest}
    mine = {c.path: read_blob(c.new_oid) for c in owned if c.path in relocks and c.new_oid}
    violations: list[dict[str, str]] = []
    for path in sorted(mine):
        intent = relocks[path]
        eco = intent.ecosystem
        covered = _COVERED.get(eco)
        if covered is None or not ranges_must_meet(eco):
            continue

        def read(name: str) -> bytes | None:   # the task's own manifests as it left them, the rest at the tip
            return mine[name] if name in mine else tip(name)

        try:
            manifests = covered(read, tip_folders, intent.root)
            new = _model(path, mine[path], eco)
            old = _model(path, _started_from(owned, path, read_blob), eco)
        except (Unsure, ValueError, WtcError):
            continue   # members it cannot list, or a manifest it cannot read: the relock decides
        if new is None:
            continue
        try:
            root_model = _model(manifests[0], read(manifests[0]), eco)
        except (ValueError, WtcError):
            root_model = None
        overridden = set(root_model.overrides) if root_model is not None else set()
        for (group, name), value in sorted(new.deps.items()):
            if not ranged(value) or name in overridden or (old is not None and old.deps.get((group, name)) == value):
                continue
            found = _first_disjoint(eco, path, group, name, value.spec or "", manifests, read)
            if found is None:
                continue
            other, other_group, other_spec = found
            who = _who(other, other_group, name, other_spec, eco, mine, pinned, changed_by, task)
            where = intent.root or "."
            bring_in = (f"`wtc task update {task} --run {run}`" if run is not None
                        else "merge the target branch into this one")
            violations.append({"path": path, "rule": "disjoint_workspace_range", "detail":
                f"{path} [{group}] wants {name + (value.spec or '')!r}, but {other} [{other_group}] requires "
                f"{name + other_spec!r} on the integration branch ({who}): no version satisfies both, and "
                f"{eco.value} locks one version of each package for the whole workspace at {where}; fix: choose a "
                f"range that {other}'s {name + other_spec!r} also accepts, or change {other} in this task too "
                f"(bring the integration branch into the worktree first: {bring_in}), "
                f"then finish again"})
    return violations


def _started_from(owned: Sequence[Change], path: str, read_blob: Callable[[str], bytes]) -> bytes | None:
    """The manifest as the task started from it (None: the task created it)."""
    change = next(c for c in owned if c.path == path)
    return read_blob(change.old_oid) if change.old_oid else None


def _model(path: str, data: bytes | None, eco: Ecosystem) -> ManifestModel | None:
    return None if data is None else read_manifest(path, data, eco)


def _first_disjoint(eco: Ecosystem, path: str, group: str, name: str, spec: str, manifests: list[str],
                    read: Reader) -> tuple[str, str, str] | None:
    """The first (manifest, group, spec) under the lock whose range of `name` no version shares with
    `spec`; None when every one meets it or cannot be decided."""
    for manifest in manifests:
        try:
            model = _model(manifest, read(manifest), eco)
        except (ValueError, WtcError):
            continue      # a manifest that does not read: the relock says what is wrong with it
        if model is None:
            continue
        for (other_group, other_name), value in sorted(model.deps.items()):
            if other_name != name or (manifest, other_group) == (path, group) or not ranged(value):
                continue
            if compare(eco, spec, value.spec or "") == Relation.DISJOINT:
                return manifest, other_group, value.spec or ""
    return None


def _who(manifest: str, group: str, name: str, spec: str, eco: Ecosystem, mine: dict[str, bytes], pinned: Reader,
         changed_by: Callable[[str], list[str]], task: str) -> str:
    """Who set the other range: this task, the pinned commit, or the tasks that changed its manifest."""
    if manifest in mine:
        return "set by this task"
    try:
        at_pin = _model(manifest, pinned(manifest), eco)
    except (ValueError, WtcError):
        at_pin = None
    held = at_pin.deps.get((group, name)) if at_pin is not None else None
    if held is not None and same_spec(eco, held.spec, spec):
        return "as the pinned commit has it"
    tasks = sorted(set(changed_by(manifest)) - {task})
    if not tasks:
        return "changed on the integration branch"
    return f"set by task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}"
