"""Typed, read-only records of the JSON payloads results carry (`violation_records`,
`conflict_records`, `skipped_records`, `leftover_records` on the results of results.py): frozen
dataclasses built from a result's fields on each read, a key a stored result lacks taking its default.

Its own module so that a `wtc` call which never reads a view does not pay for defining them (a frozen
dataclass compiles six methods at import: issue 36, start-up); `worktree_coord.results` re-exports
every name here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .frozen import value_class


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, (list, tuple)) else ()


@value_class
class ViolationRecord:
    """A change the task's boundary does not allow: `rule` is one of README's rule list
    (`outside_own`, `git_dir`, `symlink_outside_own`, ...), `detail` says what it did; `fix`, for a
    new file outside the boundary, the exact commands to delete it or exclude it ("" otherwise)."""

    path: str
    rule: str
    detail: str = ""
    fix: str = ""

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "ViolationRecord":
        return cls(path=str(row.get("path", "")), rule=str(row.get("rule", "")), detail=str(row.get("detail", "")),
                   fix=str(row.get("fix", "")))


@value_class
class SemanticRecord:
    """What a conflict of kind `semantic` or `left_behind` broke: `name` (a `kind`: function, class,
    ...), defined at `definition_path:definition_line` in the base and used at `use_path:use_line`;
    `problem` is `broken`, `duplicate`, `dropped`, `import_path`, `signature` or `left_behind`;
    `removed_by_task` and `used_by_task` name the two tasks where known; `message` says it in one
    sentence."""

    name: str
    kind: str = ""
    problem: str = "broken"
    definition_path: str = ""
    definition_line: int = 0
    use_path: str = ""
    use_line: int = 0
    removed_by_task: str | None = None
    used_by_task: str | None = None
    message: str = ""

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "SemanticRecord":
        return cls(name=str(row.get("name", "")), kind=str(row.get("kind", "")),
                   problem=str(row.get("problem", "broken")), definition_path=str(row.get("definition_path", "")),
                   definition_line=int(row.get("definition_line") or 0), use_path=str(row.get("use_path", "")),
                   use_line=int(row.get("use_line") or 0), removed_by_task=row.get("removed_by_task"),
                   used_by_task=row.get("used_by_task"), message=str(row.get("message", "")))


@value_class
class ConflictRecord:
    """One conflict a merge left: the file, its `kind` (`content`, `semantic`, `left_behind`,
    `unresolved_markers`, `modify_delete`, ...), the smallest enclosing `declaration` and its lines
    (None: the whole file), the three versions of the region (`ours` the integration side, `theirs`
    the task), the merged tasks that last changed the file (`last_changed_by`, most recent first) and
    wrote the integration side (`written_by`), why the structured merge kept it (`why`), `semantic`
    for a `semantic` or `left_behind` conflict, and `task`, the task in conflict (in a run report;
    None in a task's own result)."""

    path: str
    kind: str = "content"
    declaration: str = ""
    start_line: int | None = None
    end_line: int | None = None
    base: str = ""
    ours: str = ""
    theirs: str = ""
    last_changed_by: tuple[str, ...] = ()
    written_by: tuple[str, ...] = ()
    why: tuple[str, ...] = ()
    semantic: SemanticRecord | None = None
    task: str | None = None

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "ConflictRecord":
        semantic = row.get("semantic")
        return cls(path=str(row.get("path", "")), kind=str(row.get("kind", "content")),
                   declaration=str(row.get("declaration") or ""), start_line=row.get("start_line"),
                   end_line=row.get("end_line"), base=str(row.get("base") or ""), ours=str(row.get("ours") or ""),
                   theirs=str(row.get("theirs") or ""), last_changed_by=_strings(row.get("last_changed_by")),
                   written_by=_strings(row.get("written_by")), why=_strings(row.get("why")),
                   semantic=SemanticRecord.from_json(semantic) if isinstance(semantic, dict) else None,
                   task=row.get("task"))


@value_class
class SkippedRecord:
    """An intent consolidation left unapplied: its id, its task, its `state` (pending, declared,
    needs_network, failed, conflict, rejected), `why` and what to do (`fix`)."""

    intent: str
    task: str
    state: str
    why: str = ""
    fix: str = ""

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "SkippedRecord":
        return cls(intent=str(row.get("intent", "")), task=str(row.get("task", "")), state=str(row.get("state", "")),
                   why=str(row.get("why", "")), fix=str(row.get("fix", "")))


@value_class
class LeftoverRecord:
    """Something landing leaves out (`what`): an intent not applied, by its id (`name`), its task,
    its `state`, why (`reason`) and what to do (`fix`); or a task whose work is not in integration
    (`name` and `task`: the task, `state`: conflict, rejected, ...; its fix is in `warnings`)."""

    what: Literal["intent", "task"]
    name: str
    state: str
    task: str = ""
    reason: str = ""
    fix: str = ""


def leftover_records(leftovers: dict[str, Any]) -> tuple[LeftoverRecord, ...]:
    """`{"intents": {state: [row, ...]}, "tasks": {state: [name, ...]}}` as records, intents first."""
    out: list[LeftoverRecord] = []
    for state, rows in sorted((leftovers.get("intents") or {}).items()):
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, dict):
                out.append(LeftoverRecord("intent", str(row.get("intent", "")), str(row.get("state") or state),
                                          task=str(row.get("task") or ""), reason=str(row.get("reason") or ""),
                                          fix=str(row.get("fix") or "")))
            else:
                out.append(LeftoverRecord("intent", str(row), str(state)))
    for state, names in sorted((leftovers.get("tasks") or {}).items()):
        out.extend(LeftoverRecord("task", name, str(state), task=name) for name in _strings(names))
    return tuple(out)
