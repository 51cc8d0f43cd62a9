"""`wtc check` as a function: boundary, reserved files and a dry-run merge of a branch, read-only.

Stage: the check itself, a capability below the coordinator (`ci/` only renders what it returns).
Input: a repository and what to compare (head, target, base; defaults in revisions.py) plus where
the boundary comes from. Output: a frozen `CheckReport`: boundary and reserved findings, the dry-run
merge's conflicts, and the uses the branch leaves behind of names it removed (uses_left_behind.py). The boundary comes from, in order: `own`
globs passed in; the task recorded in the store (`run` + `task`); a boundary file (`manifest`, else
`.wtc-boundary.toml`, read by boundary_file.py), the copy at the merge base when there is one, else
the branch's.

Invariants:
- read-only: no ref, index, worktree, config or store write (the dry-run merge writes only
  unreachable objects); safe to run in parallel with agents and the merge queue;
- the project's rules (reserved files, `semantic-check`, `left-behind`, `max-file-size`) come from
  the target tip's `[tool.worktree-coord]`, or for a task of a run (`run` + `task`) from the run's
  own options and then the configuration committed at its pin, as the run's own operations read
  them; never from the branch under review, so a branch cannot relax the rules it is checked against;
- a changed boundary manifest is itself reported (a branch must not widen its own boundary unseen).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Sequence

import pygit2

from ..boundary import check_changes, make_boundary, reserved_patterns
from ..config import Config, load_config, load_run_rules
from ..errors import GitError, NotFoundError, UsageError
from ..events import NullReporter, Reporter
from ..gitrepo import GIT_MODE_GITLINK, Change, GitRepo
from ..integrate import Resolver
from ..model import Boundary, validate_name
from . import revisions
from ..merge.result import SemanticMode
from .dryrun import dry_run_merge
from .uses_left_behind import NOT_USES, left_behind_findings
from .lines import first_range
from .boundary_file import DEFAULT_MANIFEST, ManifestBoundary, parse_manifest
from .report import BoundarySource, CheckReport, Finding, MergeSummary
from .rules import Severity, rule_info

STAGED_LABEL = "(staged changes)"


def check(repo: str | os.PathLike[str] = ".", *, head: str | None = None, base: str | None = None,
          target: str | None = None, own: Sequence[str] = (), read: Sequence[str] = (),
          run: str | None = None, task: str | None = None, manifest: str | None = None,
          merge: bool = True, reporter: Reporter | None = None,
          resolver: Resolver | None = None, semantic: str | None = None,
          left_behind: str | None = None) -> CheckReport:
    """Check a branch before it merges (see the module docstring); raises UsageError on bad input."""
    reporter = reporter or NullReporter()
    git = GitRepo(repo)
    if (run is None) != (task is None):
        raise UsageError("--run and --task go together", fix="pass both (the task recorded in the store), or neither")
    record = _task_record(git, run, task) if run and task else None
    run_record = record[0] if record else None
    task_record = record[1] if record else None

    head_label = head or (task_record.branch if task_record else "HEAD")
    head_sha = (revisions.resolve_head(git, repo) if head is None and task_record is None
                else revisions.resolve(git, head_label, "head", None if task_record is not None else repo))
    target_name = target or (run_record.integration_ref if run_record else None)
    manifest_path = manifest or DEFAULT_MANIFEST
    use_manifest = not own and task_record is None
    head_manifest: ManifestBoundary | None = None
    head_error: UsageError | None = None
    if use_manifest:
        try:
            head_manifest = _parse_at(git, head_sha, manifest_path, "head")
        except UsageError as error:  # a broken copy on the branch: the base's copy may still govern
            head_error = error
    if head_manifest is not None and target_name is None:
        target_name = head_manifest.target
    picked = ""     # why the target is not the default branch, when none was named (revisions.pick_target)
    if target_name is None:
        target_name, picked = revisions.pick_target(git, repo, head_sha)
    target_tip = revisions.resolve(git, target_name, "target", repo)
    base_sha = revisions.resolve(git, base, "base", repo) if base else revisions.merge_base(git, head_sha, target_tip)
    if base and base_sha != head_sha and not git.is_ancestor(base_sha, head_sha):
        # The diff from a base that is not in the head's history undoes the base's own commits: every
        # one of them would read as the branch's change. Mostly --base given where --target was meant.
        raise UsageError(f"--base {base!r} ({base_sha[:12]}) is not in the history of the head {head_sha[:12]}: "
                         "the branch's changes are measured from its base, which must be an ancestor",
                         fix=f"to check a merge into {base!r}, pass --target {base} (the base defaults to the "
                             "merge base); or pass the commit the branch started from as --base",
                         details={"base": base_sha, "head": head_sha})
    manifest_boundary = (_choose_manifest(git, base_sha, head_manifest, manifest_path, explicit=manifest is not None)
                         if use_manifest else None)
    if head_error is not None and (manifest_boundary is None or manifest_boundary.version != "base"):
        raise head_error
    # The one place every face's check (`wtc check`, `Coordinator.check`, the MCP tool) takes its rules
    # from: the target tip, or a run's pin for a task of that run; never a caller's configuration
    # (see the module docstring).
    config = _rules(git, run_record, target_tip)
    # The target's mode, as its reserved rules: a branch cannot switch off the check of its own removals.
    # A task's check takes its run's `--left-behind` / `--semantic` first, as the run's own merges do.
    options = run_record.options if run_record is not None else {}
    left_behind_mode = SemanticMode.parse(left_behind or options.get("left_behind") or config.left_behind,
                                          option="--left-behind", key="left-behind")

    source = _boundary_source(config, own, read, task_record, manifest_boundary)
    boundary = Boundary(own=source.own, read=source.read, reserved=source.reserved)
    reporter.event("check.stage", stage="boundary", head=head_sha, base=base_sha)
    changes = git.changes(base_sha, head_sha)
    findings = _boundary_findings(git, changes, boundary, source if source.kind == "manifest" else None, head_sha)
    findings += _large_file_findings(git, changes, config.max_file_size)
    reserved_paths = [f.path for f in findings if f.rule == "reserved_edit"]

    summary = MergeSummary(False, True, target_name, target_tip, reason="not asked (--no-merge)", picked=picked)
    if merge:
        reporter.event("check.stage", stage="merge", target=target_name, target_tip=target_tip)
        dry = dry_run_merge(git, head_sha, target_name, target_tip, base_sha, reserved_paths, resolver,
                            head_label=head_label,
                            semantic=semantic or options.get("semantic") or config.semantic_check)
        summary = dataclasses.replace(dry.summary, picked=picked) if picked else dry.summary
        findings += dry.conflicts
    intents, refused, derived = _intents(git, changes, boundary, task=task or "check", since=base_sha, tree=base_sha)
    findings += refused
    if derived is not None and not any(f.severity is Severity.ERROR for f in findings):
        # As `task finish` (after the boundary and the reserved edits pass): a member's range no
        # version shares with another's under the same lock on the target, in the finish's words.
        findings += _disjoint_ranges(git, changes, derived, task=task, run=run_record, since=base_sha,
                                     target_tip=target_tip, changed_by=record[2] if record else {})
    reporter.event("check.stage", stage="left_behind", mode=left_behind_mode.value)
    left = left_behind_findings(git, changes, base_sha, head_sha, target_tip, left_behind_mode)
    findings += left
    reporter.event("check.done", findings=len(findings))
    return CheckReport(
        base=base_sha, head=head_sha, head_label=head_label, boundary=source,
        changed=tuple({"path": c.path, "status": c.status} for c in changes),
        findings=tuple(sorted(findings, key=Finding.sort_key)), merge=summary, intents=tuple(intents),
        left_behind=tuple({key: value for key, value in f.details.items() if key not in ("kind", "lines_in")}
                          for f in left if f.rule not in NOT_USES),
        left_behind_mode=left_behind_mode.value,
    )


def check_staged(repo: str | os.PathLike[str] = ".", *, own: Sequence[str] = (), read: Sequence[str] = (),
                 manifest: str | None = None, config: Config | None = None,
                 left_behind: str | None = None) -> CheckReport:
    """The check of what is staged in the index against HEAD (the pre-commit hook): the boundary,
    reserved files, and the uses, in files the commit does not change, of names it removes
    (`left-behind` from the configuration, or `left_behind`: block, warn, off; the same findings
    and wording as `check`). Only the names the staged change removes are looked for, so a commit
    that only adds lines reads nothing more.

    No merge: staged changes are not a commit yet. The manifest and the configuration are read from
    the working tree of `repo` here (a hook runs in the author's checkout, before anything is shared).
    """
    git = GitRepo(repo)
    workdir = Path(repo).resolve()
    try:
        top = git.caller_toplevel(workdir)
        index_tree = git.caller_index_tree(workdir)  # honours GIT_INDEX_FILE, as a hook must
        head_sha = git.caller_head(workdir) or ""
    except GitError as error:
        raise UsageError(error.message, fix="run the check inside a git repository") from None
    base_tree = head_sha or git.empty_tree()
    manifest_boundary = None
    if not own:
        rel = manifest or DEFAULT_MANIFEST
        path = Path(top) / rel if not os.path.isabs(rel) else Path(rel)
        if not path.is_file():
            raise UsageError("no boundary to check against",
                             fix=f"pass --own GLOB (hook args), or commit a {DEFAULT_MANIFEST} (see docs/ci.md)")
        manifest_boundary = parse_manifest(path.read_bytes(), rel, version="worktree")
    config = config or load_config(Path(top))
    source = _boundary_source(config, own, read, None, manifest_boundary)
    boundary = Boundary(own=source.own, read=source.read, reserved=source.reserved)
    changes = git.changes(base_tree, index_tree)
    findings = _boundary_findings(git, changes, boundary, source if source.kind == "manifest" else None, index_tree)
    findings += _large_file_findings(git, changes, config.max_file_size)
    intents, refused, _ = _intents(git, changes, boundary, task="staged", since=head_sha or "", tree=base_tree)
    findings += refused
    left_behind_mode = SemanticMode.parse(left_behind or config.left_behind, option="--left-behind",
                                          key="left-behind")
    # The index is both the "head" and the "target": what the commit will hold is what must resolve.
    left = (left_behind_findings(git, changes, head_sha, index_tree, index_tree, left_behind_mode)
            if head_sha else [])   # a first commit removes nothing
    findings += left
    return CheckReport(
        base=base_tree, head=index_tree, head_label=STAGED_LABEL, boundary=source,
        changed=tuple({"path": c.path, "status": c.status} for c in changes),
        findings=tuple(sorted(findings, key=Finding.sort_key)),
        merge=MergeSummary(False, True, reason="staged changes are not a commit: no merge is tried"),
        intents=tuple(intents),
        left_behind=tuple({key: value for key, value in f.details.items() if key not in ("kind", "lines_in")}
                          for f in left if f.rule not in NOT_USES),
        left_behind_mode=left_behind_mode.value,
    )


# ---- boundary ---------------------------------------------------------------------------------------

def _boundary_source(config: Config, own: Sequence[str], read: Sequence[str], task_record: Any,
                     manifest_boundary: Any) -> BoundarySource:
    reserved = reserved_patterns(config.reserved_add, config.reserved_remove)
    if own:
        made = make_boundary(own, read, reserved=reserved)
        return BoundarySource("own", made.own, made.read, made.reserved)
    if task_record is not None:
        b = task_record.boundary
        return BoundarySource("task", b.own, b.read, b.reserved or reserved, run=task_record.run_id,
                              task=task_record.task_id)
    if manifest_boundary is not None:
        made = make_boundary(manifest_boundary.own, manifest_boundary.read, reserved=reserved)
        return BoundarySource("manifest", made.own, made.read, made.reserved, manifest=manifest_boundary.path,
                              manifest_version=manifest_boundary.version)
    raise UsageError("no boundary to check against",
                     fix=f"pass --own GLOB (--own '**' for a branch that may change anything: then only its"
                         f" reserved-file edits and the dry-run merge are checked), or --run ID --task ID, or commit"
                         f" a {DEFAULT_MANIFEST} (see docs/ci.md)")


def _large_file_findings(git: GitRepo, changes: Sequence[Change], limit: int) -> list[Finding]:
    """Files over max-file-size the branch adds or grows past it (boundary/large_files.py)."""
    from ..boundary.large_files import too_large

    def size(oid: str | None) -> int | None:
        return int(git.repo.odb.read_header(pygit2.Oid(hex=oid))[1]) if oid else None

    sizes = [(c.path, size(c.new_oid)) for c in changes if c.new_oid and c.new_mode != GIT_MODE_GITLINK]
    old = {c.path: c.old_oid for c in changes}
    found = too_large(sizes, limit, lambda path: size(old.get(path)))
    # No line range: a file this large is not read (a diff of it would load it whole).
    return [Finding("large_file", large.path, large.violation(limit, None, committed=True)["detail"],
                    Severity.ERROR, None, None, details={"size": large.size, "limit": limit})
            for large in found]


_MANIFEST_NOTES = {
    "added": "this branch adds the boundary manifest the check used: a reviewer should confirm the boundary",
    "modified": "this branch changes its boundary manifest: the check used the version at the merge base, "
                "and a reviewer should confirm the new boundary",
    "deleted": "this branch deletes its boundary manifest: the check used the version at the merge base",
    "mode": "this branch changes the mode of its boundary manifest",
}


def _boundary_findings(git: GitRepo, changes: Sequence[Change], boundary: Boundary,
                       manifest: BoundarySource | None, head: str) -> list[Finding]:
    findings: list[Finding] = []
    judged = list(changes)
    if manifest is not None and manifest.manifest is not None:
        for change in changes:
            if change.path == manifest.manifest.lstrip("/"):
                judged.remove(change)  # the manifest is metadata, judged by a reviewer, not by globs
                findings.append(Finding("manifest_changed", change.path, _MANIFEST_NOTES[change.status],
                                        Severity.WARNING, *_lines(git, change),
                                        details={"status": change.status, "used": manifest.manifest_version}))
    by_path = {c.path: c for c in judged}
    report = check_changes(judged, boundary, git.read_blob, lambda: git.submodule_paths(head))
    for violation in report.violations:
        change = by_path.get(violation.path)
        info = rule_info(violation.rule)
        lines = _lines(git, change) if change is not None else (None, None)
        findings.append(Finding(violation.rule, violation.path, violation.detail, info.severity, *lines,
                                details={"status": change.status if change else None}))
    for change in report.reserved:
        findings.append(Finding("reserved_edit", change.path,
                                f"{change.status} a reserved file: kept out of the merge and turned into an "
                                "intent for the consolidation phase", Severity.NOTE, *_lines(git, change),
                                details={"status": change.status}))
    return findings


def _lines(git: GitRepo, change: Change) -> tuple[int | None, int | None]:
    if GIT_MODE_GITLINK in (change.old_mode, change.new_mode):
        return None, None  # a submodule's id names a commit of another repository: no lines to point at
    found = first_range(git.repo, change.old_oid, change.new_oid)
    return found if found else (None, None)


# ---- inputs -----------------------------------------------------------------------------------------

def _task_record(git: GitRepo, run: str, task: str) -> tuple[Any, Any]:
    from ..store.address import open_store, resolve

    validate_name("run", run)
    validate_name("task", task)
    # Where the runs are is the machine's setting, as for every command: WTC_STORE, else `store`
    # in the checkout's configuration, else SQLite in the git dir.
    config = load_config(git.toplevel)
    address = resolve(config.store, config.source, git.wtc_dir / "state.sqlite3")
    if address.kind == "sqlite" and not Path(address.target).exists():
        raise UsageError(f"no wtc store at {address.shown} ({address.source}), so no run {run!r}",
                         fix="pass --own GLOB or a manifest instead of --run/--task when the run was elsewhere, "
                             "or name its store in WTC_STORE")
    store = open_store(address)
    try:
        run_record = store.get_run(run)
        task_record = store.get_task(run, task) if run_record else None
        changed_by: dict[str, list[str]] = {}    # manifest -> the run's tasks with an intent on it
        for row in store.list_intents(run) if task_record else ():
            manifest = (row["data"] or {}).get("manifest")
            if manifest:
                changed_by.setdefault(manifest, []).append(row["task_id"])
    finally:
        store.close()
    if run_record is None or task_record is None:
        raise UsageError(f"no task {task!r} in run {run!r}", fix="check the names with `wtc status`")
    return run_record, task_record, changed_by


def _parse_at(git: GitRepo, commit: str, path: str, version: str) -> ManifestBoundary | None:
    data = git.file_at(commit, path.lstrip("/"))
    return None if data is None else parse_manifest(data, path, version=version)


def _choose_manifest(git: GitRepo, base: str, at_head: ManifestBoundary | None, path: str, *,
                     explicit: bool) -> ManifestBoundary | None:
    """The manifest that governs the check: the one at the merge base when it exists there (the
    boundary agreed before the branch; the branch's own edits to it do not count), else the one the
    branch adds, else (only when named with --manifest) a file on disk."""
    at_base = _parse_at(git, base, path, "base")
    if at_base is not None:
        return at_base
    if at_head is not None:
        return at_head
    if explicit and os.path.isfile(path):
        return parse_manifest(Path(path).read_bytes(), path, version="file")
    if explicit:
        raise UsageError(f"boundary manifest {path} is neither in the head or base commit nor on disk",
                         fix="commit it, or pass the right --manifest path")
    return None


def _file_reader(git: GitRepo, commit: str):  # type: ignore[no-untyped-def]
    return lambda name: git.file_at(commit, name)


def _rules(git: GitRepo, run: Any, target_tip: str) -> Config:
    """The configuration a check enforces: for a task of a run, the run's rules, as committed at its
    pinned commit (what its `task check`, `task finish` and merges enforce: the target, the
    integration tip, may hold a relaxation a task merged); otherwise the target tip's."""
    if run is None:
        return load_config(None, _file_reader(git, target_tip))
    if not git.has_commit(run.base):
        raise NotFoundError(f"run {run.run_id}'s pinned commit {run.base[:12]} is not in this repository, so its "
                         "rules cannot be read", fix=f"fetch it (git fetch <remote> {run.base}), or check the "
                         "branch with --own GLOB against a --target instead of --run/--task")
    return load_run_rules(_file_reader(git, run.base), run.run_id, run.base)


def _disjoint_ranges(git: GitRepo, changes: Sequence[Change], derived: tuple[list[Change], list[Any]], *,
                     task: str | None, run: Any, since: str, target_tip: str,
                     changed_by: dict[str, list[str]]) -> list[Finding]:
    """The branch's member ranges no version can meet with another member's under the same lock at
    the target tip (workspace_ranges.py): for a task of a run, the finding its finish refuses.
    `derived`: the owned changes and the intents derived from them (`_intents`)."""
    from .workspace_ranges import disjoint_member_ranges

    owned, intents = derived
    if not any(i.op.value == "relock" for i in intents):
        return []
    found = disjoint_member_ranges(
        owned, intents, task=task or "", run=run.run_id if run is not None else None,
        read_blob=git.read_blob, tip=lambda name: git.file_at(target_tip, name),
        tip_folders=lambda folder: git.folders_at(target_tip, folder),
        pinned=lambda name: git.file_at(run.base if run is not None else since, name),
        changed_by=lambda manifest: changed_by.get(manifest, []))
    by_path = {c.path: c for c in changes}
    return [Finding(item["rule"], item["path"], item["detail"], rule_info(item["rule"]).severity,
                    *_lines(git, by_path[item["path"]])) for item in found]


def _intents(git: GitRepo, changes: Sequence[Change], boundary: Boundary, *, task: str, since: str,
             tree: str) -> tuple[list[dict[str, Any]], list[Finding], tuple[list[Change], list[Any]] | None]:
    """What the reserved-file edits (and owned member-manifest edits) become, exactly as `wtc task
    finish` derives them (`reserved_edits.derive_task_intents`), and the edits it would refuse as
    findings; with the owned changes and the intents themselves when none was refused (None else)."""
    from .reserved_edits import derive_task_intents

    report = check_changes(list(changes), boundary, git.read_blob)
    intents, refused = derive_task_intents(report.reserved, report.owned, task=task, since=since,
                                           read_blob=git.read_blob, tree_paths=lambda: git.tree_paths(tree),
                                           read_path=lambda name: git.file_at(tree, name))
    by_path = {c.path: c for c in changes}
    findings = []
    for item in refused:
        change = by_path.get(item["path"])
        lines = _lines(git, change) if change is not None else (None, None)
        findings.append(Finding(item["rule"], item["path"], item["detail"], rule_info(item["rule"]).severity, *lines))
    return ([i.to_json() if hasattr(i, "to_json") else dict(i) for i in intents], findings,
            None if refused else (report.owned, list(intents)))


__all__ = ["check", "check_staged", "STAGED_LABEL"]
