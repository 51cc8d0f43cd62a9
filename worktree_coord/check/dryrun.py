"""The dry-run merge: would the branch merge into the target tip, and where would it conflict?

Stage: merge preview for `wtc check`. Input: the head commit, the target tip, the merge base, the
reserved paths the branch edited, and a resolver (default: the structured merge engine, its markers
labelled with the target's name above and the head's below, as a real merge into the target would).
Output: a `DryRun` with the conflicts left after the resolver, each located by declaration and lines;
when none is left, the semantic check's findings on the merged tree (merge.check_tree_merge: a name
one side removed that the other side's new code uses), as `semantic_conflict` (mode block) or
`semantic_warning` (warn) findings.

It does what the merge queue does, minus every write that matters: reserved-file edits are taken
out through `integrate.mergeable_commit` (they are consolidated later, never text-merged), git
merge-tree (`GitRepo.merge_trees`) merges the trees, and the files it leaves conflicted go to
the resolver. Invariants: no ref moves, no index or worktree is written; the only writes are
unreachable objects in the object database (the derived commit, merge-tree's trees and blobs),
which `git gc` collects.
"""

from __future__ import annotations

from typing import Sequence

from ..frozen import value_class
from ..gitrepo import GitRepo
from ..gitrepo.mergetree import StagedPath
from ..integrate import FileToResolve, Resolver, conflict_kind, labelled_resolver, mergeable_commit
from ..integrate.trees import update_tree
from ..merge import check_tree_merge
from ..merge.result import FileMerge, SemanticMode
from .lines import locate_text
from .report import Finding, MergeSummary
from .rules import Severity



@value_class
class DryRun:
    summary: MergeSummary
    conflicts: tuple[Finding, ...]


def dry_run_merge(git: GitRepo, head: str, target: str, target_tip: str, base: str,
                  reserved_paths: Sequence[str], resolver: Resolver | None = None, *,
                  head_label: str = "head", semantic: SemanticMode | str = SemanticMode.BLOCK) -> DryRun:
    """Merge `head` (minus its reserved-file edits) into `target_tip` in memory; report what conflicts.
    The target is "ours" (merged into), the head "theirs", and the markers say so by name."""
    semantic = SemanticMode.parse(semantic)
    repo = git.repo
    resolve = resolver or labelled_resolver(target, head_label)
    mergeable = mergeable_commit(repo, head, base, list(reserved_paths), "check") if reserved_paths else head
    if git.is_ancestor(mergeable, target_tip):
        return DryRun(MergeSummary(True, True, target, target_tip, git.commit_tree_id(target_tip),
                                   reason="the branch is already in the target"), ())
    if git.is_ancestor(target_tip, mergeable):
        return DryRun(MergeSummary(True, True, target, target_tip, git.commit_tree_id(mergeable),
                                   reason="fast-forward: the target has not moved since the branch left it"), ())
    outcome = git.merge_trees(target_tip, mergeable)
    if outcome.clean:
        semantic_findings = _semantic(git, target, target_tip, mergeable, outcome.tree, semantic)
        return DryRun(MergeSummary(True, not _blocking(semantic_findings), target, target_tip, outcome.tree),
                      semantic_findings)
    offered = []
    for item in outcome.conflicts:
        if conflict_kind(item) in ("content", "add_add"):
            assert item.ours is not None and item.theirs is not None
            offered.append(FileToResolve(item.path, git.read_blob(item.base.oid) if item.base else b"",
                                         git.read_blob(item.ours.oid), git.read_blob(item.theirs.oid)))
    results = resolve(offered) if offered else {}
    resolved: list[str] = []
    findings: list[Finding] = []
    for item in outcome.conflicts:
        result = results.get(item.path)
        if result is not None and result.clean:
            resolved.append(item.path)
            continue
        head_bytes = git.read_blob(item.theirs.oid) if item.theirs else b""
        findings.extend(_findings(item, conflict_kind(item), result, head_bytes, target, head_label))
    if not outcome.conflicts:  # git said "conflicted" and named no file: never guess, report it
        findings.append(Finding("merge_conflict", "", "git merge-tree reported a conflict without naming a file",
                                Severity.ERROR, details={"kind": "unlisted"}))
    if not findings:   # every conflicted file resolved: check the names of the resolved tree
        tree = update_tree(repo, outcome.tree,
                           {path: (repo.create_blob(results[path].merged), _mode(item))
                            for item in outcome.conflicts for path in [item.path]})
        findings.extend(_semantic(git, target, target_tip, mergeable, str(tree), semantic))
    clean = not _blocking(findings)
    return DryRun(MergeSummary(True, clean, target, target_tip, outcome.tree, tuple(sorted(resolved))),
                  tuple(findings))


def _findings(item: StagedPath, kind: str, result: FileMerge | None, head_bytes: bytes,
              target: str, head_label: str) -> list[Finding]:
    blocks = result.conflicts if result is not None else ()
    if not blocks:
        what = {"modify_delete": "one side deleted the file and the other changed it",
                "type_change": "one side changed the file's type (file, symlink, submodule)",
                "add_add": "both sides added the file with different contents"}.get(kind, "git could not merge it")
        return [Finding("merge_conflict", item.path, f"merging into {target} conflicts: {what}", Severity.ERROR,
                        details={"kind": kind})]
    out = []
    for block in blocks:
        where = locate_text(head_bytes, block.theirs)
        start, end = where if where else (block.start_line or None, block.end_line or None)
        inside = f" in {block.declaration}" if block.declaration else ""
        out.append(Finding(
            "merge_conflict", item.path,
            f"merging into {target} conflicts{inside}: {target} changed this region too ({block.kind})",
            Severity.ERROR, start, end, block.declaration,
            details={"kind": block.kind, "merged_start_line": block.start_line, "merged_end_line": block.end_line,
                     "lines_in": "head" if where else "merged", "base": block.base, "ours": block.ours,
                     "theirs": block.theirs, "strategy": result.strategy.value if result else None,
                     # `ours` is the target (merged into), `theirs` the head: the labels its markers carry
                     "labels": {"ours": target, "base": "base", "theirs": head_label}},
        ))
    return out


def _mode(item: StagedPath) -> int:
    assert item.ours is not None and item.theirs is not None
    base_mode = item.base.mode if item.base else item.ours.mode
    return item.theirs.mode if item.ours.mode == base_mode else item.ours.mode


def _blocking(findings: Sequence[Finding]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)


def _semantic(git: GitRepo, target: str, target_tip: str, head: str, tree: str, mode: SemanticMode) -> tuple[Finding, ...]:
    """The semantic check of the dry-run merge (target = ours, head = theirs), as findings on the
    file holding the broken use: lines in the head when the head added the use, else in the merged
    result (`details.lines_in`)."""
    if mode is SemanticMode.OFF:
        return ()
    repo = git.repo
    merge_base = repo.merge_base(target_tip, head)
    if merge_base is None:
        return ()
    found = check_tree_merge(repo, merge_base, target_tip, head, tree, labels=(target, "base", "head"))
    rule = "semantic_conflict" if mode is SemanticMode.BLOCK else "semantic_warning"
    severity = Severity.ERROR if mode is SemanticMode.BLOCK else Severity.WARNING
    out = []
    for finding in found:
        start, lines_in = finding.use_line, "merged"
        if finding.used_by == "head":
            head_bytes = git.file_at(head, finding.use_path) or b""
            where = locate_text(head_bytes, finding.use)
            if where:
                start, lines_in = where[0], "head"
        removed = "the head" if finding.removed_by == "head" else target
        used = "the head" if finding.used_by == "head" else target
        text = (finding.message if finding.problem != "broken" else
                f"{finding.name} ({finding.kind}, {finding.definition_path}:{finding.definition_line} at the merge base) "
                f"is removed or renamed by {removed}, but {used} adds a use of it")
        out.append(Finding(
            rule, finding.use_path, text,
            severity, start, start, finding.declaration,
            details={"kind": "semantic", "lines_in": lines_in, "merged_line": finding.use_line} | finding.to_json()))
    return tuple(out)
