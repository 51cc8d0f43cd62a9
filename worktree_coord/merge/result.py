"""What a file merge returns: the merged bytes, whether they are clean, and each conflict left.

This is the contract between the merge engine and its callers (the merge queue, `wtc merge-file`,
the CI check): callers never parse conflict markers to learn what conflicted, they read
`FileMerge.conflicts`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Strategy(str, enum.Enum):
    """Which stage of the cascade produced a result."""

    LINE = "line"                # diff3 line merge (git's xdiff), taken as is
    STRUCTURED = "structured"    # tree-sitter declaration-level merge
    PYTHON = "python"            # libcst refinements on top of the structured merge
    DATA = "data"                # JSON / TOML / YAML key-level merge
    TRIVIAL = "trivial"          # one side unchanged, or both sides identical
    BINARY = "binary"            # not text: no merge attempted, conflict unless trivial


@dataclass(frozen=True)
class MergeConflict:
    """One region left conflicted.

    `declaration` is the path of the smallest enclosing declaration, outermost first, joined with
    " > " (e.g. "class Store > def get"); empty when the conflict is at file level or unknown.
    Lines are 1-based and inclusive, in the merged output (the marker block itself).
    """

    start_line: int
    end_line: int
    declaration: str = ""
    kind: str = "content"        # content, delete_modify, duplicate_key, insert_insert, ...
    base: str = ""               # the three versions of the conflicted region, as text
    ours: str = ""
    theirs: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "start_line": self.start_line,
            "end_line": self.end_line,
            "declaration": self.declaration,
            "kind": self.kind,
            "base": self.base,
            "ours": self.ours,
            "theirs": self.theirs,
        }


@dataclass(frozen=True)
class FileMerge:
    """The result of `merge_file`: `merged` holds conflict markers exactly where `conflicts` say."""

    merged: bytes
    clean: bool
    strategy: Strategy
    conflicts: tuple[MergeConflict, ...] = ()
    language: str | None = None
    notes: tuple[str, ...] = field(default=())   # why a stage was skipped or a fallback taken

    @property
    def conflict_mass(self) -> int:
        """Bytes inside conflict blocks: the measure the cascade minimises."""
        return sum(len(c.ours) + len(c.theirs) + len(c.base) for c in self.conflicts)

    def to_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "strategy": self.strategy.value,
            "language": self.language,
            "conflicts": [c.to_json() for c in self.conflicts],
            "notes": list(self.notes),
        }
