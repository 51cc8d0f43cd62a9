"""The product's tree merge of one real merge commit, re-assembled, and its semantic check.

Stage: scoring (scripts/eval_merge_quality.py, `--corpus history`). Input: a mined repository, a
merge commit of it, and the merged bytes the eval already has for some of the files both parents
changed (its cases). Output: the semantic findings the product would report on that merge
(`merge.check_merge`, the check the merge queue, `task update` and `check` run over a tree merge,
`find_broken_names(..., complete=True)`), and how the merge was assembled.

The assembly is the product's: a file one side changed is that side's version; a file both sides
changed is git's line merge when it is clean (the product never offers those files to the
structured merge), else `merge_file`'s result (semantic check off file by file, as the queue's
resolver runs it), with its conflict markers when it stays conflicted (such a version does not
parse, so the check reads nothing from it). A file deleted on one side and changed on the other
keeps the changed text (merge/tree.py's rule). Nothing is written into the repository.

Invariant: the merged bytes given for a case are used as they are, so a case's score and the
check read the same result.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

import pygit2

from worktree_coord.merge import line_merge, merge_file
from worktree_coord.merge.result import SemanticFinding
from worktree_coord.merge.tree import changed_on_both_sides, check_merge

MAX_BYTES = 400_000   # a bigger file both sides changed merges by lines only (the miner's bound)


@dataclass
class WholeMerge:
    """The check of one merge commit: its findings and what it cost."""

    findings: tuple[SemanticFinding, ...] = ()
    both_changed: int = 0           # files both sides changed that a semantic profile reads
    structured: int = 0             # of those, merged by merge_file here (git conflicts, not a case)
    seconds: float = 0.0
    error: str = ""                 # why the merge could not be checked (then no findings)
    paths: set[str] = field(default_factory=set)   # every file a finding names (use or definition)


def check_merge_commit(repo: pygit2.Repository, merge: str, given: Mapping[str, bytes]) -> WholeMerge:
    """The semantic findings of merging `merge`'s second parent into its first, as the product's
    tree merge would produce it (module docstring); `given`: path -> merged bytes already known."""
    started = time.perf_counter()
    out = WholeMerge()
    commit = repo[merge]
    if len(commit.parent_ids) != 2:
        out.error = "not a two-parent merge"
        return out
    left, right = commit.parent_ids
    base = repo.merge_base(left, right)
    if base is None:
        out.error = "no merge base"
        return out
    both = changed_on_both_sides(repo, base, left, right)
    out.both_changed = len(both)
    merged: dict[str, bytes | None] = {}
    for path, (base_id, left_id, right_id) in both.items():
        if path in given:
            merged[path] = given[path]
            continue
        if left_id is None or right_id is None:
            kept = right_id if left_id is None else left_id
            merged[path] = None if kept is None or kept == base_id else repo[kept].data
            continue
        base_bytes = repo[base_id].data if base_id is not None else b""
        left_bytes, right_bytes = repo[left_id].data, repo[right_id].data
        git = line_merge(base_bytes, left_bytes, right_bytes)
        if git.clean or max(len(base_bytes), len(left_bytes), len(right_bytes)) > MAX_BYTES:
            merged[path] = git.merged
            continue
        out.structured += 1
        merged[path] = merge_file(base_bytes, left_bytes, right_bytes, path, semantic="off").merged
    out.findings = check_merge(repo, base, left, right, merged, labels=("left", "base", "right"))
    # A broken name names two places the merge broke; a duplicate is in one file; an import path
    # replaced names, as its definition, a file where the other side replaced it (not broken there).
    out.paths = {f.use_path for f in out.findings} | {f.definition_path for f in out.findings
                                                       if f.problem != "import_path"}
    out.seconds = time.perf_counter() - started
    return out
