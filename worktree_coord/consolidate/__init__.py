"""Consolidation: reserved root manifests and lockfiles become intents, applied in dependency-graph
order, relocked offline first, and verified. A capability usable alone: files and directories in,
intents and results out; it knows nothing of runs, tasks or the store.

Pipeline (one module per stage):
    names.py    which files are manifests and lockfiles, by name (import-light: the boundary and a
                plain finish use it; lockfile_names.py, the lockfiles' names alone, is what a
                task start reads)
    derive.py   edit of a reserved file -> Intents (key-level diff against the base)
    planning.py Intents + current tree -> Plan (merged changes, conflicts, satisfied, warnings)
    graph.py    workspace members and edges -> cycle rejection + deterministic order
    adapters/   per ecosystem (npm, pnpm, yarn, cargo, uv, go, pip-tools, poetry, pixi): edit (native, else edits/),
                relock, check, classify; `ToolConfig` makes every command configurable
    edits/      formatting-preserving structural edits (package.json, Cargo.toml, pyproject, requirements,
                pnpm-workspace.yaml, go.mod/go.work, pixi.toml), a new dependency where its task wrote it
    verify.py   strict re-parse, postconditions, freshness, locked versions, lock diff audit
    root.py     consolidate_root / consolidate over a plain directory -> RootResult per root
"""

from typing import TYPE_CHECKING

from worktree_coord.lazy_names import lazy_names

# The names load on first use (PEP 562): `consolidate.names` and `consolidate.intent` are read on
# every finish and by the boundary check, which must not pay for the parsers and adapters.
_LAZY = {
    "Change": "planning",
    "ConflictKind": "planning",
    "ConsolidationResult": "result",
    "Culprit": "result",
    "Ecosystem": "intent",
    "Intent": "intent",
    "IntentConflict": "planning",
    "LockDiff": "result",
    "ManifestParseError": "textformat",
    "Op": "intent",
    "Plan": "planning",
    "RootResult": "result",
    "RootState": "result",
    "ToolConfig": "adapters",
    "Workspace": "graph",
    "adapter_for": "adapters",
    "classify_path": "names",
    "consolidate": "root",
    "consolidate_root": "root",
    "declare_intent": "derive",
    "derive_intents": "derive",
    "detect_ecosystem": "derive",
    "directory_reader": "planning",
    "discover_workspace": "graph",
    "find_root": "derive",
    "order_changes": "graph",
    "plan": "planning",
    "unexpressed_changes": "derive",
}

if TYPE_CHECKING:
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
    from worktree_coord.consolidate.names import classify_path
    from worktree_coord.consolidate.planning import Change, ConflictKind, IntentConflict, Plan, directory_reader, plan
    from worktree_coord.consolidate.result import ConsolidationResult, Culprit, LockDiff, RootResult, RootState
    from worktree_coord.consolidate.root import consolidate, consolidate_root
    from worktree_coord.consolidate.textformat import ManifestParseError


__getattr__ = lazy_names(globals(), _LAZY)


__all__ = [
    "Change", "ConflictKind", "ConsolidationResult", "Culprit", "Ecosystem", "Intent", "IntentConflict",
    "LockDiff", "ManifestParseError", "Op", "Plan", "RootResult", "RootState", "ToolConfig", "Workspace",
    "adapter_for", "classify_path", "declare_intent", "detect_ecosystem", "consolidate", "consolidate_root", "derive_intents", "directory_reader",
    "discover_workspace", "find_root", "order_changes", "plan", "unexpressed_changes",
]
