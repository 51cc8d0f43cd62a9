"""Consolidation: reserved root manifests and lockfiles become intents, applied in dependency-graph
order, relocked offline first, and verified. A capability usable alone: files and directories in,
intents and results out; it knows nothing of runs, tasks or the store.

Pipeline (one module per stage):
    derive.py   edit of a reserved file -> Intents (key-level diff against the base)
    planning.py Intents + current tree -> Plan (merged changes, conflicts, satisfied, warnings)
    graph.py    workspace members and edges -> cycle rejection + deterministic order
    adapters/   per ecosystem (npm, pnpm, yarn, cargo, uv, go, pip-tools, poetry): edit (native, else edits/),
                relock, check, classify; `ToolConfig` makes every command configurable
    edits/      formatting-preserving structural edits (package.json, Cargo.toml, pyproject, requirements,
                pnpm-workspace.yaml, go.mod/go.work)
    verify.py   strict re-parse, postconditions, freshness, locked versions, lock diff audit
    root.py     consolidate_root / consolidate over a plain directory -> RootResult per root
"""

from worktree_coord.consolidate.adapters import ToolConfig, adapter_for
from worktree_coord.consolidate.derive import (
    declare_intent,
    derive_intents,
    detect_ecosystem,
    find_root,
    unexpressed_changes,
)
from worktree_coord.consolidate.graph import Workspace, discover_workspace, order_changes
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import classify_path
from worktree_coord.consolidate.planning import Change, ConflictKind, IntentConflict, Plan, directory_reader, plan
from worktree_coord.consolidate.result import ConsolidationResult, Culprit, LockDiff, RootResult, RootState
from worktree_coord.consolidate.root import consolidate, consolidate_root
from worktree_coord.consolidate.textformat import ManifestParseError

__all__ = [
    "Change", "ConflictKind", "ConsolidationResult", "Culprit", "Ecosystem", "Intent", "IntentConflict",
    "LockDiff", "ManifestParseError", "Op", "Plan", "RootResult", "RootState", "ToolConfig", "Workspace",
    "adapter_for", "classify_path", "declare_intent", "detect_ecosystem", "consolidate", "consolidate_root", "derive_intents", "directory_reader",
    "discover_workspace", "find_root", "order_changes", "plan", "unexpressed_changes",
]
