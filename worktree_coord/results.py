"""Result dataclasses of the Coordinator's operations: what the Python API returns and what every
face renders (`to_json()` is the `--json` payload). Each carries the exit code the CLI exits with.

Results are rebuilt from stored JSON when an idempotent call is replayed, so every field is a plain
JSON value. For an orchestrator that would rather not index dicts, the payloads it acts on have typed,
read-only views beside them: `violation_records`, `conflict_records`, `skipped_records` and
`leftover_records`, tuples of the frozen records below, built from the fields on each read (a key a
stored result lacks takes its default). The views are properties, not fields: `to_json()` and the
fields stay as they are.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

T = TypeVar("T", bound="Result")


# ---- typed records: read-only views of the JSON payloads ----------------------------------------

def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, (list, tuple)) else ()


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


def _leftover_records(leftovers: dict[str, Any]) -> tuple[LeftoverRecord, ...]:
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


# Every result class is a frozen dataclass whose `__repr__`, `__eq__` and `__hash__` are Result's, which
# read the fields as the generated ones do: `dataclass` compiles each method it writes (exec), and six
# methods for each of 18 classes were the largest import of every `wtc` call (issue 36: start-up).
_RESULT = dict(frozen=True, repr=False, eq=False)


@dataclass(frozen=True)
class Result:
    exit_code: int = 0
    replayed: bool = False

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        return data

    @classmethod
    def from_json(cls: type[T], data: dict[str, Any], **overrides: Any) -> T:
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        values.update(overrides)
        return cls(**values)


@dataclass(**_RESULT)
class RunStarted(Result):
    run: str = ""
    base: str = ""
    integration: str = ""
    remote: str | None = None     # the git remote holding the integration branch (None: this repository)
    uncommitted: list[str] = field(default_factory=list)   # the checkout's changes the pin leaves out (first 50)
    notes: list[str] = field(default_factory=list)
    network: str = ""             # how this machine starts the run's task commands: isolated or shared


@dataclass(**_RESULT)
class TaskStarted(Result):
    run: str = ""
    task: str = ""
    state: str = "started"
    worktree: str = ""
    branch: str = ""
    base: str = ""
    boundary: dict[str, Any] = field(default_factory=dict)
    sparse_cone: list[str] | None = None
    overlaps: list[dict[str, Any]] = field(default_factory=list)
    manifest: str = ""
    boundary_from: str = ""
    prepared: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # The task existed before this call (a harness re-running an agent, a retry): the result is its
    # state now, never a replay of what the first start said; `last_finish` is its last finish's
    # recorded result (the merge, the conflicts or violations that stopped it), None if it had none.
    existing: bool = False
    last_finish: dict[str, Any] | None = None


@dataclass(**_RESULT)
class TaskFinished(Result):
    run: str = ""
    task: str = ""
    state: str = ""
    commit: str | None = None
    branch: str = ""
    changed: list[dict[str, Any]] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    reserved: list[dict[str, Any]] = field(default_factory=list)
    intents: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    worktree: str | None = None
    merge: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    verification: dict[str, Any] | None = None   # a failed verification: command, exit code, output tail

    @property
    def violation_records(self) -> tuple[ViolationRecord, ...]:
        """`violations` as typed records."""
        return tuple(ViolationRecord.from_json(row) for row in self.violations)

    @property
    def conflict_records(self) -> tuple[ConflictRecord, ...]:
        """`conflicts` as typed records."""
        return tuple(ConflictRecord.from_json(row) for row in self.conflicts)


@dataclass(**_RESULT)
class MergeReport(Result):
    run: str = ""
    integration: str = ""
    tip: str = ""
    tasks: list[dict[str, Any]] = field(default_factory=list)


@dataclass(**_RESULT)
class ConsolidationReport(Result):
    """`wtc consolidate`: per ecosystem root its state, commit, conflicts and culprits (`roots`), the
    intents of tasks not merged yet (`waiting`), every intent of the run left unapplied with why and
    what to do (`skipped`; the exit code is 0 only when it is empty), and the intents taken up again
    (`retried`, by `retry_failed`)."""

    run: str = ""
    tip: str = ""
    offline: bool = True
    roots: list[dict[str, Any]] = field(default_factory=list)
    waiting: list[dict[str, Any]] = field(default_factory=list)   # intents of tasks not merged yet
    skipped: list[dict[str, Any]] = field(default_factory=list)   # every intent left unapplied, with why
    retried: list[str] = field(default_factory=list)              # intents taken up again (--retry-failed)

    @property
    def skipped_records(self) -> tuple[SkippedRecord, ...]:
        """`skipped` as typed records."""
        return tuple(SkippedRecord.from_json(row) for row in self.skipped)


@dataclass(**_RESULT)
class RunReport(Result):
    """The change manifest of a run: what `land` would bring, with exact pointers."""

    run: str = ""
    base: str = ""
    integration: str = ""
    tip: str = ""
    tasks: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    intents_pending: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    verification: list[dict[str, Any]] = field(default_factory=list)
    target: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    leftovers: dict[str, Any] = field(default_factory=dict)   # what landing now would leave out
    # When each task started, finished, merged, conflicted, was rejected ... (the store's event log):
    # {"started_at", "now", "tasks": [{"task", "state", "events": [{"at", "kind"}]}], "run": [{"at", "kind"}]}
    timeline: dict[str, Any] = field(default_factory=dict)
    # Consolidation per root, as last run: root, ecosystem, state, commit, when; intents by state.
    consolidation: list[dict[str, Any]] = field(default_factory=list)
    # Uses the landed tree keeps of names the run removed or renamed, in files that do not define
    # them any more (left_behind.py over pin..tip): use_path, use_lines, name, definition_path,
    # replacement, tasks (those that changed the definition's file). Advice: also in `warnings`.
    left_behind: list[dict[str, Any]] = field(default_factory=list)
    # Declarations the landed tree holds twice in one scope where the pin did not (duplicates.py
    # over pin..tip): path, name, kind, lines (both copies), tasks (those that changed the file).
    # Advice: also in `warnings`.
    declared_twice: list[dict[str, Any]] = field(default_factory=list)

    @property
    def conflict_records(self) -> tuple[ConflictRecord, ...]:
        """`conflicts` as typed records (each with its `task`)."""
        return tuple(ConflictRecord.from_json(row) for row in self.conflicts)

    @property
    def leftover_records(self) -> tuple[LeftoverRecord, ...]:
        """`leftovers` (what landing now would leave out) as typed records, intents first."""
        return _leftover_records(self.leftovers)


@dataclass(**_RESULT)
class Landed(Result):
    run: str = ""
    onto: str = ""
    old: str = ""
    new: str = ""
    tip: str = ""                       # the integration tip that was landed
    how: str = ""
    left_out: dict[str, Any] = field(default_factory=dict)   # leftovers landed without (--allow-partial)
    warnings: list[str] = field(default_factory=list)
    # Uses the landed tree keeps of names the run removed, approved by name (--allow-left-behind)
    left_behind: list[dict[str, Any]] = field(default_factory=list)

    @property
    def leftover_records(self) -> tuple[LeftoverRecord, ...]:
        """`left_out` (what was landed without, `allow_partial`) as typed records, intents first."""
        return _leftover_records(self.left_out)


@dataclass(**_RESULT)
class TaskUpdated(Result):
    run: str = ""
    task: str = ""
    state: str = ""
    worktree: str = ""
    integration_tip: str = ""
    conflicted_paths: list[str] = field(default_factory=list)
    merged_cleanly: bool = False
    semantic: list[dict[str, Any]] = field(default_factory=list)   # names the update's merge broke
    markers: list[dict[str, str]] = field(default_factory=list)   # which label is which side
    notes: list[str] = field(default_factory=list)   # e.g. a finding whose use is outside the task's boundary


@dataclass(**_RESULT)
class TaskAbandoned(Result):
    run: str = ""
    task: str = ""
    state: str = "abandoned"
    branch: str = ""
    snapshot: str | None = None
    notes: list[str] = field(default_factory=list)
    dropped_intents: list[str] = field(default_factory=list)   # its intents not applied: they never will be


@dataclass(**_RESULT)
class TaskWidened(Result):
    """`wtc task widen`: the lead gave a live task more of the repository (`added_own`, `added_read`,
    with `why`); `boundary` is the whole boundary now, `overlaps` the live tasks the new globs meet."""

    run: str = ""
    task: str = ""
    state: str = ""
    boundary: dict[str, Any] = field(default_factory=dict)
    added_own: list[str] = field(default_factory=list)
    added_read: list[str] = field(default_factory=list)
    why: str = ""
    overlaps: list[dict[str, Any]] = field(default_factory=list)
    sparse_cone: list[str] | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(**_RESULT)
class RunStatus(Result):
    runs: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    intents: dict[str, int] = field(default_factory=dict)
    forecast_at: float | None = None   # when the tasks' `forecast` column was computed (None: never)


@dataclass(**_RESULT)
class RunSnapshot(Result):
    """One frame of `wtc watch`: a run while agents work, read from the store without a lease.

    `tasks`: every task with its state, age (since start) and idle time (since its record last
    changed); `merges`: the latest merges, newest first; `conflicts`: one row per conflict of each
    task in conflict (file, declaration, kind, the merged tasks that last changed the file);
    `admission`: the machine-wide heavy-work queue (running, waiting, limit, longest wait);
    `intents`: by state; `throughput`: merges in the last minute and ten minutes; with a forecast
    asked for, each task row has `forecast` ({"forecast": clean|overlap|conflict, "conflicts_with"})."""

    at: float = 0.0
    run: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    merges: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    admission: dict[str, Any] = field(default_factory=dict)
    intents: dict[str, int] = field(default_factory=dict)
    pending_intents: int = 0
    throughput: dict[str, Any] = field(default_factory=dict)
    forecast_at: float | None = None   # when the tasks' `forecast` column was computed (None: not asked)


@dataclass(**_RESULT)
class GcReport(Result):
    dry_run: bool = False
    worktrees_removed: list[str] = field(default_factory=list)
    tombstones_removed: list[str] = field(default_factory=list)  # folders of interrupted removals
    snapshots: list[dict[str, str]] = field(default_factory=list)  # always empty: gc never commits
    admin_entries_pruned: list[str] = field(default_factory=list)
    leases_removed: list[str] = field(default_factory=list)
    records_expired: list[str] = field(default_factory=list)
    branches_deleted: list[str] = field(default_factory=list)
    kept: list[dict[str, str]] = field(default_factory=list)
    remote_branches_deleted: list[str] = field(default_factory=list)   # "<remote>:<ref>" of merged tasks
    tracking_refs_pruned: list[str] = field(default_factory=list)      # refs/remotes/... gone from the remote
    forecast_cache_removed: int = 0                                    # files finished runs left in the cache
    merge_index_removed: int = 0    # merge index entries of tips no run merges onto, symbols rows past its cap


@dataclass(**_RESULT)
class PlanRules(Result):
    """Plan rules (added, removed or listed), in the order they are tried; `default` is what a name
    no rule matches gets (listings only)."""

    rules: list[dict[str, Any]] = field(default_factory=list)
    default: dict[str, Any] | None = None


@dataclass(**_RESULT)
class AgentStarted(Result):
    """A harness agent's worktree: the task it became (`task` may differ from `agent`, whose name
    need not be a valid task name), in the run of its session."""

    harness: str = ""
    session: str | None = None
    agent: str = ""
    run: str = ""
    run_created: bool = False
    task: str = ""
    worktree: str = ""
    branch: str = ""
    base: str = ""
    boundary: dict[str, Any] = field(default_factory=dict)
    boundary_from: str = ""
    prepared: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    earlier: str | None = None   # the agent's earlier task in this session that this one continues from


@dataclass(**_RESULT)
class AgentFinished(Result):
    """What removing a harness agent's worktree did. `action`: `finished` (the task was finished:
    see `state`), `ended` (the task had ended before), `not_ours` (no wtc task has that worktree:
    left untouched). `kept` says whether the worktree is still there; the exit code is 0 when it is
    not (or was never wtc's), else the finish's (3 for a boundary violation)."""

    worktree: str = ""
    action: str = ""
    run: str | None = None
    task: str | None = None
    agent: str | None = None
    state: str | None = None
    kept: bool = False
    branch: str | None = None
    message: str = ""
    next: list[str] = field(default_factory=list)
    finish: dict[str, Any] | None = None


@dataclass(**_RESULT)
class Forecast(Result):
    """`wtc forecast`: which live (and finished-but-unmerged) tasks are changing the same files and
    declarations right now, and whether a structured merge of their current states would conflict.

    `tasks`: one row per task looked at (its state, where its state was read: `worktree` with
    uncommitted edits or `branch`, files changed, uncommitted files, and its forecast: `clean`,
    `overlap` (shares files, merges cleanly) or `conflict`, with the tasks it would conflict with;
    "integration" names the integration branch); `overlaps`: per file two or more tasks change, the
    tasks and the declarations each changes; `conflicts`: one row per predicted conflict (the two
    sides, file, declaration, kind). Exit code 0 even with conflicts: it is a report (`task check` is
    the question that exits 1)."""

    run: str = ""
    integration_tip: str = ""
    at: float = 0.0
    tasks: list[dict[str, Any]] = field(default_factory=list)
    overlaps: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(**_RESULT)
class TaskCheck(Result):
    """`wtc task check`: would this task's current state (uncommitted edits included) merge onto the
    integration tip, and onto each other live or finished-but-unmerged task? Exit 1 when any
    conflict is predicted. `onto`: one row per target (`integration` first, then tasks sharing files
    with this one) with `clean`, the files both changed and the conflicts; `not_compared` the others, and why. `left_behind`: uses, in files the
    task did not change, of names it removed or renamed (exit 1 too when the run's left-behind mode
    blocks: its merge would refuse them).
    `violations`: the changes its boundary does not allow, as `task finish` would reject them (exit 3,
    before any conflict counts)."""

    run: str = ""
    task: str = ""
    state: str = ""
    source: str = ""
    clean: bool = True
    files: list[str] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    onto: list[dict[str, Any]] = field(default_factory=list)
    # The other live or finished tasks not in `onto`, each with why (`task`, `state`, `why`: "no
    # changes yet", "no file in common with this task"): a clean verdict says nothing about them yet.
    not_compared: list[dict[str, Any]] = field(default_factory=list)
    # The intents this task declared with `wtc intent add` (and, after finish, derived from its
    # reserved edits), each with `intent_id`, `op`, `name`, `spec`, `manifest` and its `state`.
    intents: list[dict[str, Any]] = field(default_factory=list)
    # Uses, in files the task did not change, of names it removed or renamed (left_behind.py), as its
    # merge would find them; with the run's left-behind mode `block` they block that merge, and the
    # check exits 1 (`left_behind_blocks`).
    left_behind: list[dict[str, Any]] = field(default_factory=list)
    left_behind_blocks: bool = False
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def violation_records(self) -> tuple[ViolationRecord, ...]:
        """`violations` as typed records."""
        return tuple(ViolationRecord.from_json(row) for row in self.violations)
