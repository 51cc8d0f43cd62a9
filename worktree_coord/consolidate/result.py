"""What consolidation returns: per root a state, the files it changed, and why.

Stage: output of `consolidate_root` / `consolidate`. Invariants: frozen values with `to_json`;
`files_changed` lists exactly the files whose bytes differ from before the run (the caller commits
them together, or none of them); a root that is not APPLIED changed no file. A root whose relock
could not run may give two results: its lock-neutral settings applied (`intent_ids` naming them),
then the rest in the failed state (`intent_ids` naming those). A root that does not relock for
changes its tool's output names gives the intents of the tasks that made them FAILED and the other
tasks' intents WAITING (each result's `intent_ids` naming its own).
"""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any

from worktree_coord.consolidate.intent import Intent
from worktree_coord.consolidate.planning import Change, IntentConflict

from ..frozen import value_class


class RootState(str, enum.Enum):
    APPLIED = "applied"              # files changed, verified; commit them
    UNCHANGED = "unchanged"          # nothing to do (or everything already applied)
    NEEDS_NETWORK = "needs_network"  # an offline relock missed the cache; files restored byte for byte
    CONFLICT = "conflict"            # every change was rejected by conflicts; nothing written
    FAILED = "failed"                # refused or failed verification; files restored byte for byte
    WAITING = "waiting"              # the root does not relock for other tasks' changes the failure names;
                                     # these intents stay pending; files restored byte for byte


@value_class
class Culprit:
    change: Change
    reason: str
    stderr: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"intent_ids": [i.intent_id for i in self.change.sources], "tasks": list(self.change.tasks),
                "reason": self.reason, "stderr": self.stderr[-4000:]}


@value_class
class LockDiff:
    added: tuple[tuple[str, tuple[str, ...]], ...] = ()
    removed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    changed: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    unexplained: tuple[str, ...] = ()     # changes no intent explains, flagged for review
    flags: tuple[str, ...] = ()           # install flags (npm's dev, peer...) changed that no intent explains

    def to_json(self) -> dict[str, Any]:
        return {"added": {n: list(v) for n, v in self.added}, "removed": {n: list(v) for n, v in self.removed},
                "changed": {n: {"from": list(a), "to": list(b)} for n, a, b in self.changed},
                "unexplained": list(self.unexplained), "flags": list(self.flags)}


@value_class
class RootResult:
    ecosystem: str
    root: str
    state: RootState
    files_changed: tuple[str, ...] = ()
    applied: tuple[Change, ...] = ()
    satisfied: tuple[Change, ...] = ()
    conflicts: tuple[IntentConflict, ...] = ()
    culprits: tuple[Culprit, ...] = ()
    warnings: tuple[str, ...] = ()
    lock_diff: LockDiff = field(default_factory=LockDiff)
    error: dict[str, Any] | None = None
    edit_methods: tuple[tuple[str, str], ...] = ()     # (intent id, "native" | "structural") of applied changes
    tool_runs: tuple[dict[str, Any], ...] = ()
    intent_ids: tuple[str, ...] | None = None          # the intents this result stands for (None: all of its root's)
    tool: str = ""      # what the root's project uses, when it is not its ecosystem's name (a setuptools project: uv's)
    # The relocks tasks asked for (a member manifest or a lockfile they changed): listed in the output
    # beside the applied intents, each with its task and what it changed, so no ecosystem's says only
    # "changed Cargo.lock".
    relocks: tuple[Intent, ...] = ()

    @property
    def label(self) -> str:
        """The root's kind in words: what its project uses (project_tool.py), else its ecosystem."""
        return self.tool or self.ecosystem

    def to_json(self) -> dict[str, Any]:
        return {
            "ecosystem": self.ecosystem, **({"tool": self.tool} if self.tool else {}), "root": self.root,
            "state": self.state.value,
            **({"intent_ids": list(self.intent_ids)} if self.intent_ids is not None else {}),
            "files_changed": list(self.files_changed),
            "applied": [c.to_json() for c in self.applied], "satisfied": [c.to_json() for c in self.satisfied],
            "conflicts": [c.to_json() for c in self.conflicts], "culprits": [c.to_json() for c in self.culprits],
            "warnings": list(self.warnings), "lock_diff": self.lock_diff.to_json(), "error": self.error,
            "edit_methods": dict(self.edit_methods), "tool_runs": list(self.tool_runs),
            "relocks": [{"intent_id": i.intent_id, "task": i.task, "manifest": i.manifest, "summary": i.summary()}
                        for i in self.relocks],
        }


@value_class
class ConsolidationResult:
    roots: tuple[RootResult, ...]

    @property
    def files_changed(self) -> tuple[str, ...]:
        return tuple(sorted({f for r in self.roots for f in r.files_changed}))

    def to_json(self) -> dict[str, Any]:
        return {"roots": [r.to_json() for r in self.roots], "files_changed": list(self.files_changed)}
