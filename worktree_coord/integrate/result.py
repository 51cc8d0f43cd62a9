"""What the integration engine returns: frozen dataclasses and the enums naming their states.

Callers (the merge queue, `wtc task finish`, `wtc merge`) read these and never parse git output:
`IntegrationResult.state` says whether the ref moved, `conflicts` says exactly what is left when it
did not, `path` and `timings_ms` say how the merge was done and what it cost.
"""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any, Callable, Sequence

import pygit2

from ..frozen import value_class
from ..gitrepo.mergetree import StagedPath, StageEntry, TreeMergeOutcome
from ..merge.result import FileMerge, SemanticFinding, Strategy

# The check run on a clean merged tree: (repo, merge base, tip, task, merged tree) -> findings.
TreeCheck = Callable[[pygit2.Repository, pygit2.Oid, pygit2.Oid, pygit2.Oid, pygit2.Oid], Sequence[SemanticFinding]]


class IntegrationState(str, enum.Enum):
    """Outcome of one `merge_into` call."""

    MERGED = "merged"                  # a new merge commit is the ref's tip
    ALREADY_MERGED = "already_merged"  # the task commit was already an ancestor of the tip: nothing done
    CONFLICT = "conflict"              # conflicts remain; the ref was not touched


class MergePath(str, enum.Enum):
    """Which tree merge produced the result."""

    # pygit2 in memory, rewriting only the subtrees the task changed; still a merge commit with two
    # parents. Its JSON value was "fast" before (read like a fast-forward); a result stored then
    # still says "fast" and means this path (README, "Merging").
    IN_MEMORY = "in-memory"
    FAST = "in-memory"         # the Python name it had: an alias, kept for callers of the API
    MERGE_TREE = "merge-tree"  # git merge-tree (ort), the persistent --stdin process or one spawn
    NONE = "none"              # no merge was needed (already merged)


@value_class
class ConflictedFile:
    """A path git could not merge on its own, with its base/ours/theirs stages (None = absent).

    `ours` is the integration side, `theirs` the task side. After `merge_into` tried to resolve it,
    `resolution` holds what the resolver returned (None when it was not offered to the resolver, e.g.
    a modify/delete), `kind` names the conflict ("content", "add_add", "modify_delete",
    "type_change", ...) and `text` is the conflicted content an agent or person would edit.
    """

    path: str
    base: StageEntry | None
    ours: StageEntry | None
    theirs: StageEntry | None
    kind: str = "content"
    text: bytes = b""
    resolution: FileMerge | None = None

    @classmethod
    def from_staged(cls, staged: StagedPath) -> "ConflictedFile":
        """A path git left conflicted, before its kind is known or a resolver has seen it."""
        return cls(staged.path, staged.base, staged.ours, staged.theirs)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "stages": {
                name: (entry.to_json() if entry else None)
                for name, entry in (("base", self.base), ("ours", self.ours), ("theirs", self.theirs))
            },
            "conflicts": [c.to_json() for c in self.resolution.conflicts] if self.resolution else [],
            "text": self.text.decode("utf-8", "replace"),
        }


@value_class
class IntegrationResult:
    """The result of `merge_into`.

    `old_tip` is the tip the merge was made onto (for CONFLICT: the tip that was current), `new_tip`
    the ref's tip afterwards (unchanged unless MERGED), `merge_commit` the commit that brought the task
    in (for ALREADY_MERGED: found on the first-parent chain when it is recent, else None), `tree` its
    tree (for CONFLICT: a tree with the resolved files clean and conflict markers in the others,
    never referenced by any ref, for `wtc task update` to check out). A task commit equal to base
    has nothing to merge and is ALREADY_MERGED. `attempts` counts merges made: more than 1 means the ref moved under us and we merged again.
    `resolved` lists paths the resolver made clean; `strategies` names, for every file offered to
    the resolver, the stage of the merge cascade that produced its result (line, structured, ...).
    """

    state: IntegrationState
    ref: str
    task_commit: str
    base: str
    old_tip: str
    new_tip: str
    merge_commit: str | None
    tree: str | None
    path: MergePath
    conflicts: tuple[ConflictedFile, ...] = ()
    resolved: tuple[str, ...] = ()
    attempts: int = 1
    fallback_reason: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict, compare=False, hash=False)
    findings: tuple[SemanticFinding, ...] = ()   # the semantic check's (conflicts when blocking, else warnings)
    strategies: tuple[tuple[str, str], ...] = ()  # (path, strategy) of each file the resolver merged, clean or not
    # (path, what its merge did in a line: "imports of both sides combined") of each file made clean
    resolutions: tuple[tuple[str, str], ...] = ()

    @property
    def moved(self) -> bool:
        return self.state is IntegrationState.MERGED

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state.value,
            "ref": self.ref,
            "task_commit": self.task_commit,
            "base": self.base,
            "old_tip": self.old_tip,
            "new_tip": self.new_tip,
            "merge_commit": self.merge_commit,
            "tree": self.tree,
            "path": self.path.value,
            "conflicts": [c.to_json() for c in self.conflicts],
            "resolved": list(self.resolved),
            "attempts": self.attempts,
            "fallback_reason": self.fallback_reason,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "semantic": [f.to_json() for f in self.findings],
            "strategies": dict(self.strategies),
            "resolutions": dict(self.resolutions),
        }


@value_class
class FastForwardResult:
    """The result of `fast_forward`: the target ref moved from `old` to `new`."""

    ref: str
    old: str
    new: str


def semantic_conflicts(repo: pygit2.Repository, tree: pygit2.Oid, findings: Sequence[SemanticFinding]
                       ) -> tuple[ConflictedFile, ...]:
    """Blocking semantic findings as conflicted files (one per file holding a broken use), the
    merged text as it is (no markers: the merge is fine line by line, the names are not)."""
    by_path: dict[str, list[SemanticFinding]] = {}
    for finding in findings:
        by_path.setdefault(finding.use_path, []).append(finding)
    out = []
    root = repo[tree].peel(pygit2.Tree)
    for path, found in sorted(by_path.items()):
        try:
            entry = root[path]
            text, stage = repo[entry.id].data, StageEntry(entry.filemode, str(entry.id))
        except KeyError:
            text, stage = b"", None
        merge = FileMerge(merged=text, clean=False, strategy=Strategy.TRIVIAL,
                          conflicts=tuple(f.as_conflict() for f in found))
        out.append(ConflictedFile(path, None, stage, stage, "semantic", text, merge))
    return tuple(out)
