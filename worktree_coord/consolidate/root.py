"""Consolidate ecosystem roots in a plain directory: plan, order, apply, relock, verify.

Stage: the whole consolidation of one root (`consolidate_root`) and of every root intents name
(`consolidate`). Input: a directory (a scratch worktree of the integration branch, into which the
tasks' ordinary files were already merged) and intents. Output: `RootResult`s; the directory
holds the consolidated manifests and lockfiles of APPLIED roots.
Invariants:
- atomic per root: a root that ends in any state but APPLIED has every file it could have touched
  restored byte for byte (files it created are removed);
- offline first: with `offline=True` an offline cache miss ends the root as NEEDS_NETWORK; with
  `offline=False` the offline relock is tried first and the network only on a miss;
- any other relock failure bisects the ordered changes (apply a prefix, relock) to name the first
  change that breaks it, drops it as a culprit and consolidates the rest;
- a base lockfile holding conflict markers is refused (FAILED) before anything is written;
- a root that locks nothing (no lockfile; npm, uv, Poetry, Cargo; Maven has none at all) has its manifests edited and
  verified, and is not relocked, unless a relock intent asks for the lockfile; nor is a root whose
  every intent sets a key no lockfile records (`settings.LOCK_NEUTRAL`: a lint, a test script); when
  a root's relock cannot run (no network, no tool), those settings are applied on their own and
  committed, the rest keeping the failed state (two results for that root);
- same directory content and intents in any order give byte-identical results; a second run over
  its own output changes nothing (UNCHANGED).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping

from worktree_coord.consolidate import settings
from worktree_coord.consolidate.project_tool import pyproject_tool
from worktree_coord.consolidate.adapters import ToolAdapter, ToolConfig, adapter_for
from worktree_coord.consolidate.adapters.base import (
    CannotRun,
    FailureKind,
    OfflineMiss,
    ToolRun,
    cannot_run,
    install_hint,
    unreached,
)
from worktree_coord.consolidate.edits import EditError
from worktree_coord.consolidate.graph import (MANIFEST_OF, Workspace, check_version_bumps, discover_workspace, join,
                                              order_changes)
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import classify_path
from worktree_coord.consolidate.planning import SINGLE_VERSION, Change, Plan, directory_reader, plan
from worktree_coord.consolidate.result import ConsolidationResult, Culprit, LockDiff, RootResult, RootState
from worktree_coord.consolidate.tool_output import summarize_tool_output
from worktree_coord.consolidate.textformat import ManifestParseError, refuse_conflict_markers
from worktree_coord.consolidate.lock_graph import read_graph, union
from worktree_coord.consolidate.verify import lock_diff, verify_root
from worktree_coord.consolidate.uv_workspace import disk_reader, uv_lock_root
from worktree_coord.errors import WtcError
from worktree_coord.events import NullReporter, Reporter, stage

MAX_CULPRITS = 8
# Ecosystems where committing a lockfile is the project's choice (libraries often lock nothing):
# a root without one has its manifests edited and is not relocked, so consolidation never adds a
# lockfile the project does not track (unless a task asked for one: a relock intent). Go is not among them: go.sum is what makes a module build.
OPTIONAL_LOCK = (Ecosystem.NPM, Ecosystem.UV, Ecosystem.POETRY, Ecosystem.CARGO, Ecosystem.PIXI, Ecosystem.GRADLE)


class _Snapshot:
    """The bytes of every file a root's consolidation may touch, to restore them exactly."""

    def __init__(self, workdir: Path, paths: Iterable[str]):
        self.workdir = workdir
        self.files: dict[str, bytes | None] = {}
        for path in sorted(set(paths)):
            file = workdir / path
            self.files[path] = file.read_bytes() if file.is_file() else None

    def restore(self) -> None:
        for path, data in self.files.items():
            file = self.workdir / path
            if data is None:
                if file.exists():
                    file.unlink()
            elif not file.is_file() or file.read_bytes() != data:
                file.write_bytes(data)

    def changed(self) -> tuple[str, ...]:
        out = []
        for path, data in self.files.items():
            file = self.workdir / path
            now = file.read_bytes() if file.is_file() else None
            if now != data:
                out.append(path)
        return tuple(out)


def _touchable(workdir: Path, adapter: ToolAdapter, eco: Ecosystem, root: str, changes: Iterable[Change],
               members: Collection[str]) -> list[str]:
    manifest = MANIFEST_OF[eco]
    lockfile = [adapter.lockfile] if adapter.lock_name else []     # Maven has none
    paths = [*lockfile, join(root, manifest), *(c.intent.manifest for c in changes)]
    paths += [join(m, manifest) for m in members]
    return paths + adapter.touchable(members)


def _workspace_manifests(workdir: Path, eco: Ecosystem, root: str, intents: list[Intent]
                         ) -> dict[tuple[str, str], tuple[str, ...]]:
    """The member manifests of a single-version workspace (new members included), for `plan`."""
    if eco not in SINGLE_VERSION:
        return {}
    members = [i.name for i in intents if i.op == Op.ADD_MEMBER]
    dropped = {join(root, i.name) for i in intents if i.op == Op.REMOVE_MEMBER}
    workspace = discover_workspace(workdir, eco, root, extra_members=members)
    dirs = sorted({root, *workspace.members.values()} - dropped)
    return {(eco.value, root): tuple(join(d, MANIFEST_OF[eco]) for d in dirs)}


def _lock_neutral(intent: Intent) -> bool:
    kind = classify_path(intent.manifest)
    return (intent.op in (Op.SET_KEY, Op.REMOVE_KEY) and kind is not None
            and settings.lock_neutral(kind.format, intent.name))


def _apply(adapter: ToolAdapter, changes: Iterable[Change]) -> list[Culprit]:
    failed: list[Culprit] = []
    for change in changes:
        try:
            adapter.edit(change.intent)
        except (EditError, ManifestParseError) as exc:
            failed.append(Culprit(change, f"cannot apply: {exc.message}"))
    return failed


def _relock(adapter: ToolAdapter, offline: bool, reporter: Reporter) -> tuple[ToolRun, FailureKind | None]:
    with stage(reporter, "relock", lockfile=adapter.lockfile) as out:
        run = adapter.relock(offline=True)
        kind = None if run.ok else adapter.classify(run.stderr)
        if kind in (FailureKind.OFFLINE_MISS, FailureKind.UNREACHABLE) and not offline:
            run = adapter.relock(offline=False)
            kind = None if run.ok else adapter.classify(run.stderr)
        out.update(command=" ".join(run.argv), returncode=run.returncode, seconds=round(run.seconds, 3),
                   online=not offline, failure=kind.value if kind is not None else None)
    return run, kind


# The tail of an unreachable root's fix; the run-level summary puts its own command in its place.
RETRY_ONLINE = "then consolidate again with --online --retry-failed"


def _blamed_manifests(adapter: ToolAdapter, workspace: Workspace, run: ToolRun) -> set[str] | None:
    """The member manifests whose projects the failed relock's output names as its cause (the
    adapter reads its tool's words); None when it names none of the workspace's projects."""
    names = adapter.blamed_projects(run.stderr)
    if not names:
        return None
    manifest = MANIFEST_OF[workspace.ecosystem]
    found = {join(folder, manifest) for name, folder in workspace.members.items() if name in names}
    return found or None


def _base_failure(root: str, intents: list[Intent], run: ToolRun,
                  blamed: set[str] | None = None) -> dict[str, Any]:
    """The error when the root does not relock with no intent applied. A member manifest is not
    reserved: tasks' edits to it are merged on the integration branch (a `relock` intent records
    each), so the manifests that fail may be theirs, not the pinned commit's; naming them sends the
    lead to the right file instead of to "the base". When the tool's output names the members at
    fault (`blamed`), only their manifests are named, and `manifests` lists them so that the intents
    of the tasks that did not change them can wait instead of failing (`_waiting_apart`)."""
    merged = sorted({(i.manifest, i.task) for i in intents if i.op == Op.RELOCK and i.manifest and i.task})
    named = [(manifest, task) for manifest, task in merged if manifest in (blamed or ())]
    merged = named or merged
    where = root or "."
    crashed = cannot_run(run.stderr)
    if crashed is not None:
        return _cannot_run_error(run, crashed)   # the tool died of its own error, with or without intents
    if blamed and not named:
        # The manifests at fault are none of these intents' (their tasks' intents ended failed at an
        # earlier consolidation, or the pin holds them): these wait for them (`_waiting_apart`).
        return {"kind": "base_does_not_relock", "manifests": sorted(blamed),
                "message": f"{where} does not relock with {', '.join(sorted(blamed))} as the integration branch "
                           f"holds them, before any intent is applied: {run.stderr.strip()[-2000:]}",
                "fix": f"correct {', '.join(sorted(blamed))} with a new task that owns it (first `wtc task update "
                       "TASK --run RUN` to bring the integration tip into its worktree), then consolidate again"}
    if not merged:
        return {"kind": "base_does_not_relock",
                "message": f"the base of {where} does not relock: {run.stderr.strip()[-2000:]}",
                "fix": "fix the manifests on the integration branch first"}
    by_manifest: dict[str, list[str]] = defaultdict(list)
    for manifest, task in merged:
        by_manifest[manifest].append(task)
    changed = "; ".join(f"{manifest} by task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}"
                        for manifest, tasks in sorted(by_manifest.items()))
    return {"kind": "base_does_not_relock",
            **({"manifests": sorted(blamed or ())} if named else {}),
            # (no ": " before the tool's output: summaries keep the head whole and shorten the rest)
            "message": f"{where} does not relock with the member manifests tasks changed on the integration branch, "
                       f"before any intent is applied ({changed}): {run.stderr.strip()[-2000:]}",
            # A new task starts at the pin, where these merged edits are not: without the update its
            # worktree shows nothing to correct and it finishes empty (found driving pydantic-ai).
            "fix": f"correct {', '.join(sorted(by_manifest))} with a new task that owns it (its tool's message "
                   "names the requirement): a task starts at the pin, so first bring the integration tip into "
                   "its worktree (`wtc task update TASK --run RUN`), then edit and finish it, then consolidate "
                   "again with --retry-failed"}


def _cannot_run_error(run: ToolRun, why: CannotRun) -> dict[str, str]:
    """The error when the relock tool could not run on this machine (a runtime it refuses, or a
    crash of its own): the manifests are not at fault, so nothing names them."""
    tool = run.argv[0] if run.argv else "the relock tool"
    command = " ".join(run.argv)
    if why.need:
        fix = (f"run consolidation where Node.js {why.need} or newer is installed (or install it here), or pin a "
               f"{tool} release that supports Node.js {why.have}; then wtc consolidate --retry-failed")
    else:
        fix = (f"run `{command}` in the integration checkout to see it fail; when another {tool} version runs, "
               "put that one on PATH, then wtc consolidate --retry-failed")
    return {"kind": FailureKind.TOOL_CANNOT_RUN.value,
            "message": f"`{command}` could not run on this machine: {why.what(tool)}",
            "fix": fix, "stderr": run.stderr[-4000:]}


def _bisect(adapter: ToolAdapter, snapshot: _Snapshot, ordered: list[Change], offline: bool,
            reporter: Reporter) -> int | None:
    """Index of the first change whose prefix fails to relock; None when even no change fails."""
    lo, hi = 0, len(ordered)            # invariant: prefix lo relocks, prefix hi fails
    snapshot.restore()
    if not _relock(adapter, offline, reporter)[0].ok:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        snapshot.restore()
        bad = _apply(adapter, ordered[:mid])
        if bad or not _relock(adapter, offline, reporter)[0].ok:
            hi = mid
        else:
            lo = mid
    return hi - 1


def consolidate_root(
    workdir: Path,
    root: str,
    ecosystem: Ecosystem | str,
    intents: Iterable[Intent],
    *,
    offline: bool = True,
    config: ToolConfig | None = None,
    env: Mapping[str, str] | None = None,
    reporter: Reporter | None = None,
) -> RootResult:
    """Apply the intents of one ecosystem root in `workdir`, relock, verify (module docstring).
    Each relock is a stage (`relock`) reported to `reporter`.

    Three steps: the plan (before anything is written: the intents planned, the workspace read, the
    changes ordered and checked), the loop (apply, relock, verify; a failure either ends the root,
    `_relock_failure`, or names a culprit that is dropped before the next turn) and the result
    (what changed, with its warnings, `_applied_warnings`). The loop stays here as one algorithm:
    each turn starts from the snapshot with what the turns before left of the changes."""
    reporter = reporter or NullReporter()
    workdir = Path(workdir)
    eco = Ecosystem(ecosystem)
    intents = [i for i in intents if i.ecosystem == eco and i.root == root]
    adapter = adapter_for(eco, workdir, root, config=config, env=env)
    adapter.network_allowed = not offline

    # A pyproject root not uv's (setuptools, flit...) is consolidated as uv's, and named as what it uses.
    tool = pyproject_tool(workdir, root) if eco == Ecosystem.UV else ""
    tool = "" if tool == eco.value else tool

    def result(state: RootState, **fields) -> RootResult:
        relocks = tuple(i for i in intents if i.op == Op.RELOCK)   # named in the output with what asked for each
        return RootResult(eco.value, root, state, tool_runs=tuple(r.to_json() for r in adapter.runs), tool=tool,
                          relocks=relocks, **fields)

    # pip-compile writes requirements.txt from requirements.in; a root without one keeps its
    # requirements.txt by hand (httpx pins its tooling there): it is edited, nothing is compiled.
    hand_kept = eco == Ecosystem.PIP_TOOLS and not (workdir / join(root, MANIFEST_OF[eco])).is_file()
    # (a relock intent asks for the lockfile itself: a task that created or edited one)
    lockless = hand_kept or not adapter.lock_name or (eco in OPTIONAL_LOCK and not any(i.op == Op.RELOCK for i in intents)
                             and not any((workdir / lockfile).is_file() for lockfile in adapter.lockfiles()))
    # Settings no lockfile records (a lint, a test script) are committed without a relock, so they
    # never wait for the network; one intent of any other kind and the root relocks as always.
    neutral = bool(intents) and all(_lock_neutral(i) for i in intents)
    try:
        the_plan, workspace = _plan_and_workspace(workdir, eco, root, intents, adapter)
    except WtcError as exc:
        return result(RootState.FAILED, error=exc.to_json())
    ordering = order_changes(the_plan.changes, workspace)
    bump_conflicts = check_version_bumps(ordering.changes, workspace)
    conflicts = tuple(the_plan.conflicts) + tuple(ordering.rejected) + tuple(bump_conflicts)
    warnings = tuple(the_plan.warnings)
    rejected_ids = {i for c in bump_conflicts for i in c.intent_ids}
    ordered = [c for c in ordering.changes if c.intent.intent_id not in rejected_ids]
    snapshot = _Snapshot(workdir, _touchable(workdir, adapter, eco, root, the_plan.changes,
                                             workspace.members.values()))
    base_locked = adapter.locked_versions()
    base_flags = adapter.locked_flags()
    base_graph = read_graph(workdir / adapter.lockfile)
    culprits: list[Culprit] = []

    def restore_and(state: RootState, **fields) -> RootResult:
        snapshot.restore()
        return result(state, conflicts=conflicts, warnings=warnings, satisfied=the_plan.satisfied,
                      culprits=tuple(culprits), **fields)

    while True:
        snapshot.restore()
        bad = _apply(adapter, ordered)
        if bad:
            culprits.extend(bad)
            bad_ids = {id(c.change) for c in bad}
            ordered = [c for c in ordered if id(c) not in bad_ids]
            continue
        if lockless or neutral:
            failure = None
        else:
            run, failure = _relock(adapter, offline, reporter)
            if failure == FailureKind.TOOL_MISSING and adapter.without_tool() is not None:
                # The manifests go in without the relock, under a warning saying what to run (pixi).
                lockless, failure = True, None
                warnings += (adapter.without_tool(),)
        if failure is not None:
            ended = _relock_failure(failure, run, adapter, ordered, len(culprits))
            if ended is not None:
                return restore_and(ended[0], error=ended[1])
            index = _bisect(adapter, snapshot, ordered, offline, reporter)
            if index is None:
                return restore_and(RootState.FAILED,
                                   error=_base_failure(root, intents, run, _blamed_manifests(adapter, workspace, run)))
            culprits.append(Culprit(ordered[index], "relock fails once this change is applied", run.stderr))
            ordered = ordered[:index] + ordered[index + 1:]
            continue
        manifests = sorted({c.intent.manifest for c in ordered} | {join(root, MANIFEST_OF[eco])})
        problems = verify_root(adapter, tuple(ordered), manifests, relocked=not (lockless or neutral))
        if not problems:
            break
        blamed = [p for p in problems if p.change is not None]
        if len(blamed) < len(problems) or len(culprits) >= MAX_CULPRITS:
            return restore_and(RootState.FAILED, error={"kind": "verification",
                                                        "message": "; ".join(p.message for p in problems)})
        # Each remaining problem is one change's own (e.g. the resolver ignored its range): drop those, retry.
        reasons: dict[int, list[str]] = {}
        for problem in blamed:
            reasons.setdefault(id(problem.change), []).append(problem.message)
        for change in ordered:
            if id(change) in reasons:
                culprits.append(Culprit(change, "verification: " + "; ".join(reasons[id(change)])))
        dropped = set(reasons)
        ordered = [c for c in ordered if id(c) not in dropped]

    changed = snapshot.changed()
    diff = lock_diff(base_locked, adapter.locked_versions(), tuple(ordered), set(workspace.members),
                     union(base_graph, read_graph(workdir / adapter.lockfile)),
                     (base_flags, adapter.locked_flags())) if changed else LockDiff()
    if not changed:
        # Nothing to commit: say why (a change that could not be applied outranks a conflict).
        state = RootState.FAILED if culprits else RootState.CONFLICT if conflicts else RootState.UNCHANGED
        error = {"kind": "culprits", "message": "; ".join(c.reason for c in culprits)} if culprits else None
        return result(state, applied=tuple(ordered), satisfied=the_plan.satisfied, conflicts=conflicts,
                      culprits=tuple(culprits), warnings=warnings, error=error)
    methods = tuple((c.intent.intent_id, adapter.edit_methods.get(c.intent.intent_id, "")) for c in ordered)
    warnings += _applied_warnings(adapter, root, eco, hand_kept=hand_kept, diff=diff, tool=tool,
                                  lockless=lockless and adapter.without_tool() not in warnings)
    return result(RootState.APPLIED, files_changed=changed, applied=tuple(ordered), satisfied=the_plan.satisfied,
                  conflicts=conflicts, culprits=tuple(culprits), warnings=warnings, lock_diff=diff,
                  edit_methods=methods)


def _plan_and_workspace(workdir: Path, eco: Ecosystem, root: str, intents: list[Intent],
                        adapter: ToolAdapter) -> tuple[Plan, Workspace]:
    """The root's plan of changes and its workspace (with the members the plan adds), read before
    anything is written; a base lockfile holding conflict markers is refused first (`WtcError`)."""
    for lockfile in adapter.lockfiles():
        if (workdir / lockfile).is_file():
            refuse_conflict_markers(lockfile, (workdir / lockfile).read_bytes())
    the_plan = plan(intents, directory_reader(workdir),
                    workspace_manifests=_workspace_manifests(workdir, eco, root, intents))
    extra = [c.intent.name for c in the_plan.changes if c.intent.op == Op.ADD_MEMBER]
    return the_plan, discover_workspace(workdir, eco, root, extra_members=extra)


def _relock_failure(failure: FailureKind, run: ToolRun, adapter: ToolAdapter, ordered: list[Change],
                    culprits: int) -> tuple[RootState, dict[str, Any]] | None:
    """What a relock that failed means for the root: the state it ends in and its error, when the
    cause is the machine's (no network, no registry, no tool, a timeout) or enough culprits were
    dropped already; None when the changes are to be bisected for the one that breaks the relock."""
    if failure == FailureKind.OFFLINE_MISS:
        missed = adapter.offline_miss(run) or OfflineMiss(
            "needs_network", f"`{' '.join(run.argv)}` needs packages that are not cached",
            "run consolidation with the network allowed (wtc consolidate --online), or warm the package cache")
        return RootState.NEEDS_NETWORK, {
            "kind": missed.kind, "message": missed.message, "fix": missed.fix,
            "stderr": run.stderr[-4000:], "intent_ids": [i.intent_id for c in ordered for i in c.sources]}
    if failure == FailureKind.UNREACHABLE:
        # Not the manifests' fault: never bisect for a culprit, never blame the base.
        unreachable = unreached(run.stderr)
        fix = (f"check that this machine reaches {unreachable.host or 'the registry'} (proxy, mirror or registry "
               "settings), or warm the package cache")
        if unreachable.git_source:
            fix += ", or depend on a registry release instead of the git source"
        return RootState.NEEDS_NETWORK, {
            "kind": "unreachable",
            "message": f"`{' '.join(run.argv)}` could not reach {unreachable.what()}: "
                       f"{summarize_tool_output(run.stderr)}",
            "fix": f"{fix}; {RETRY_ONLINE}",
            "stderr": run.stderr[-4000:], "intent_ids": [i.intent_id for c in ordered for i in c.sources]}
    if failure == FailureKind.TOOL_CANNOT_RUN:
        # The machine's runtime, not the manifests: never bisect for a culprit.
        return RootState.FAILED, _cannot_run_error(run, cannot_run(run.stderr) or CannotRun())
    if failure in (FailureKind.TOOL_MISSING, FailureKind.TIMEOUT) or culprits >= MAX_CULPRITS:
        error = {"kind": failure.value, "message": run.stderr[-4000:]}
        if failure == FailureKind.TOOL_MISSING:
            error["tool"] = run.argv[0]   # (the run's retry names it: coordinator/consolidation_phase.py)
            error["fix"] = (f"install {run.argv[0]} ({install_hint(run.argv[0])}), then consolidate again "
                            "with --retry-failed")
        elif failure == FailureKind.TIMEOUT:
            error["fix"] = "raise the relock timeout or warm the package cache, then consolidate again with --retry-failed"
        return RootState.FAILED, error
    return None


def _applied_warnings(adapter: ToolAdapter, root: str, eco: Ecosystem, *, hand_kept: bool, lockless: bool,
                      diff: LockDiff, tool: str = "") -> tuple[str, ...]:
    """What an applied root's result says besides its changes: the relock tool's own warnings, a
    root that was edited and not compiled or relocked, packages the relock moved that no intent names.
    `tool`: what a pyproject root not uv's uses (project_tool.py), named instead of uv's lockfile."""
    warnings = tuple(adapter.relock_warnings())
    if hand_kept:
        warnings += (f"{root or '.'} has no {MANIFEST_OF[eco]}: its requirements files are kept by hand, so they "
                     "were edited and nothing was compiled",)
    elif lockless and tool:
        warnings += (f"{root or '.'} is a {tool} project that commits no lockfile: its pyproject.toml was edited and "
                     f"nothing was relocked (a {adapter.lock_name} committed there would be kept current)",)
    elif lockless and adapter.lock_name:     # (an ecosystem with no lockfile at all, Maven, says nothing)
        warnings += (f"{root or '.'} has no {adapter.lock_name}: its manifests were edited and nothing was relocked "
                     f"(the project locks nothing; commit a {adapter.lock_name} to have consolidation keep it current)",)
    if diff.unexplained:
        warnings += (f"the relock also moved {len(diff.unexplained)} package(s) no intent names: "
                     + "; ".join(diff.unexplained[:8]) + ("; ..." if len(diff.unexplained) > 8 else "")
                     + f" (review {adapter.lockfile} before landing)",)
    if diff.flags:
        warnings += (f"the relock also changed how {len(diff.flags)} locked package(s) no intent names are installed "
                     "(their dev, optional or peer flags): " + "; ".join(diff.flags[:8])
                     + ("; ..." if len(diff.flags) > 8 else "") + f" (review {adapter.lockfile} before landing)",)
    return warnings


def _settings_apart(workdir: Path, root: str, eco: Ecosystem | str, intents: list[Intent], done: RootResult, *,
                    offline: bool, config: ToolConfig | None, env: Mapping[str, str] | None,
                    reporter: Reporter) -> list[RootResult]:
    """When a root's relock could not run (no network, no tool, a timeout), its lock-neutral settings
    (a lint, a test script) are applied on their own, without the relock, instead of waiting with
    the dependency changes; the rest keeps the root's failed state. Otherwise `[done]`."""
    if done.state not in (RootState.NEEDS_NETWORK, RootState.FAILED) or done.culprits or done.conflicts:
        return [done]
    if (done.error or {}).get("kind") in ("verification", "base_does_not_relock"):
        return [done]   # the manifests are at fault, not the relock's reach: nothing goes on its own
    neutral = [i for i in intents if _lock_neutral(i)]
    rest = [i for i in intents if not _lock_neutral(i)]
    if not neutral or not rest:
        return [done]
    alone = consolidate_root(workdir, root, eco, neutral, offline=offline, config=config, env=env, reporter=reporter)
    if alone.state is not RootState.APPLIED:
        return [done]
    rest_ids = tuple(i.intent_id for i in rest)
    error = dict(done.error or {})
    if "intent_ids" in error:
        error["intent_ids"] = [i for i in error["intent_ids"] if i in rest_ids]
    return [dataclasses.replace(alone, intent_ids=tuple(i.intent_id for i in neutral)),
            dataclasses.replace(done, intent_ids=rest_ids, error=error or None)]


def _waiting_apart(intents: list[Intent], done: RootResult) -> list[RootResult]:
    """When the root does not relock and the tool's output names the member manifests at fault, only
    the intents of the tasks that changed those manifests fail; every other task's intents (an
    innocent `add_member`, its own relock) cannot be applied while the root does not relock, and wait
    (WAITING: they stay pending, saying why) instead of failing with them. Otherwise `[done]`."""
    error = done.error or {}
    blamed = error.get("manifests")
    if done.state is not RootState.FAILED or error.get("kind") != "base_does_not_relock" or not blamed:
        return [done]
    ids = set(done.intent_ids) if done.intent_ids is not None else {i.intent_id for i in intents}
    mine = [i for i in intents if i.intent_id in ids]
    at_fault = {i.task for i in mine if i.op == Op.RELOCK and i.manifest in blamed}
    failing = tuple(i.intent_id for i in mine if i.task in at_fault)
    innocent = tuple(i.intent_id for i in mine if i.task not in at_fault)
    if not innocent:
        return [done]
    tasks_of = {m: sorted({i.task for i in mine if i.op == Op.RELOCK and i.manifest == m}) for m in blamed}
    suspects = " or ".join(f"{m} ({'task' if len(t) == 1 else 'tasks'} {', '.join(t)})" if t else m
                           for m, t in sorted(tasks_of.items()))
    where = done.root or "."
    reason = (f"{where} does not relock until {suspects} is corrected; the relock's failure does not name this "
              f"task's changes, which apply once it relocks")
    waiting = RootResult(done.ecosystem, done.root, RootState.WAITING, intent_ids=innocent, tool_runs=done.tool_runs,
                         tool=done.tool,
                         error={"kind": "waiting", "message": reason,
                                "fix": "correct the named manifests (their failure says how), then consolidate again: "
                                       "these intents are taken up with it"})
    return [dataclasses.replace(done, intent_ids=failing), waiting] if failing else [waiting]


def consolidate(
    workdir: Path,
    intents: Iterable[Intent],
    *,
    offline: bool = True,
    configs: Mapping[str, ToolConfig] | None = None,
    env: Mapping[str, str] | None = None,
    reporter: Reporter | None = None,
) -> ConsolidationResult:
    """Consolidate every (ecosystem, root) the intents name, in a fixed order, independently; each
    root is a stage (`consolidate.root`) reported to `reporter`."""
    reporter = reporter or NullReporter()
    by_root: dict[tuple[str, str], list[Intent]] = defaultdict(list)
    moved: set[tuple[str, str]] = set()   # roots that took intents recorded under another root
    for intent in intents:
        if intent.ecosystem == Ecosystem.UV and intent.op == Op.RELOCK and intent.root:
            lock_root = uv_lock_root(disk_reader(Path(workdir)), intent.root)
            if lock_root != intent.root:
                intent = dataclasses.replace(intent, root=lock_root)
                moved.add(intent.root_key)
        by_root[intent.root_key].append(intent)
    results = []
    for (eco, root) in sorted(by_root):
        with stage(reporter, "consolidate.root", ecosystem=str(getattr(eco, "value", eco)), root=root or ".",
                   intents=len(by_root[(eco, root)])) as out:
            config = (configs or {}).get(eco)
            try:
                done = consolidate_root(workdir, root, eco, by_root[(eco, root)], offline=offline,
                                        config=config, env=env, reporter=reporter)
            except WtcError as exc:      # e.g. no adapter for this ecosystem: the other roots go on
                done = RootResult(eco, root, RootState.FAILED, error=exc.to_json())
            if (eco, root) in moved and done.intent_ids is None:   # its caller matches intents by their own root
                done = dataclasses.replace(done, intent_ids=tuple(i.intent_id for i in by_root[(eco, root)]))
            waiting = _waiting_apart(by_root[(eco, root)], done)
            results += waiting if waiting != [done] else _settings_apart(
                workdir, root, eco, by_root[(eco, root)], done, offline=offline, config=config, env=env,
                reporter=reporter)
            done = results[-1]
            out.update(state=done.state.value, files=list(done.files_changed), applied=len(done.applied),
                       conflicts=len(done.conflicts), culprits=len(done.culprits))
    return ConsolidationResult(tuple(results))
