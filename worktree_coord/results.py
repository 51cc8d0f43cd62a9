"""Result dataclasses of the Coordinator's operations: what the Python API returns and what every
face renders (`to_json()` is the `--json` payload). Each carries the exit code the CLI exits with.

Results are rebuilt from stored JSON when an idempotent call is replayed, so every field is a plain
JSON value. For an orchestrator that would rather not index dicts, the payloads it acts on have typed,
read-only views beside them: `violation_records`, `conflict_records`, `skipped_records` and
`leftover_records`, tuples of the frozen records of records.py (re-exported here), built from the fields on each read (a key a
stored result lacks takes its default). The views are properties, not fields: `to_json()` and the
fields stay as they are.
"""

from __future__ import annotations

from . import lean_dataclasses  # noqa: F401  (first: dataclasses without inspect)
import dataclasses  # noqa: E402
import functools  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, dataclass_transform

from .frozen import FrozenValue

if TYPE_CHECKING:
    from .records import ConflictRecord, LeftoverRecord, SkippedRecord, ViolationRecord

if TYPE_CHECKING:
    T = TypeVar("T", bound="Result")
else:
    # At run time nothing reads the bound, and a bound given as text is compiled (typing's ForwardRef):
    # the first `compile()` of a process builds the `ast` module's ~100 node classes (~9 million
    # instructions), which a `task start` or `status` pays for nothing else.
    T = TypeVar("T")


# The typed records (records.py) load when a view is first read, or a record is imported from here.
_RECORDS = ("ConflictRecord", "LeftoverRecord", "SemanticRecord", "SkippedRecord", "ViolationRecord")


def __getattr__(name: str) -> Any:
    if name in _RECORDS:
        from . import records

        return getattr(records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Every result class is a dataclass (fields, `dataclasses.fields`, `asdict`, `replace` work on it) whose
# methods are all Result's: `dataclass` writes each method it generates as source text and compiles it
# (exec), and with `__init__`, `__setattr__`, `__delattr__`, `__repr__`, `__eq__` and `__hash__` for each
# of 18 classes that was the largest import of every `wtc` call (issue 36: start-up). So the classes
# are declared `init=False, repr=False, eq=False` and not `frozen` (a frozen dataclass compiles its own
# `__setattr__`); Result supplies one `__init__` that reads the class's fields in order (a plan
# computed once per class, no compiling), and a `__setattr__`/`__delattr__` that refuse every change
# with dataclasses' own FrozenInstanceError: as read-only as `frozen=True` made them.
_MISSING = dataclasses.MISSING


@dataclass_transform()   # type checkers read each class's fields as its __init__'s keywords, as before
def result_class(cls: type[T]) -> type[T]:
    """Declare a Result subclass: a dataclass with no generated code (see above)."""
    if cls.__doc__ is None:   # else dataclass writes one from inspect.signature (slow to import, and *args)
        cls.__doc__ = f"{cls.__name__}: a result of the Coordinator (see the field list)."
    made = dataclass(init=False, repr=False, eq=False)(cls)
    made._init_plan = tuple((f.name, f.default, f.default_factory)  # type: ignore[attr-defined]
                            for f in dataclasses.fields(made) if f.init)
    made._field_names = tuple(f.name for f in dataclasses.fields(made))  # type: ignore[attr-defined]
    return made


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """A copy of a JSON value as `dataclasses.asdict` makes it (dicts, lists and tuples copied,
    their atoms shared), without its generic walk: asdict asks every value whether it is a
    dataclass, a named tuple, a list or a dict, and deep-copies each string through `copy`. A
    finish's or a drain's record serialises a result of ~60 nested values (asdict was 5.5% of a
    200-merge drain's profile, the largest of its bookkeeping). Anything else goes the way asdict
    takes it."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {key if type(key) in _ATOMS else _plain(key): _plain(item) for key, item in value.items()}
    if kind is list:
        return [_plain(item) for item in value]
    if kind is tuple:
        return tuple([_plain(item) for item in value])
    return dataclasses.asdict(_carrier()(value))["value"]   # anything else (a named tuple...) as asdict copies it


@functools.cache
def _carrier() -> type:
    """A dataclass of one field, `value`, for asdict's own copy of what `_plain` leaves to it; made
    when first needed (a dataclass compiles its methods: no call pays that at import)."""
    return dataclasses.make_dataclass("_Carrier", [("value", Any)])


@result_class
class Result(FrozenValue):
    """What every Coordinator operation returns: `exit_code` (what the CLI exits with), `replayed`
    (the stored result of an earlier call with the same idempotency key), and its own fields."""

    exit_code: int = 0
    replayed: bool = False
    _init_plan: ClassVar[tuple[tuple[str, Any, Any], ...]] = ()
    _field_names: ClassVar[tuple[str, ...]] = ()
    if TYPE_CHECKING:   # what dataclasses.fields/asdict ask of a dataclass (set by result_class at run time)
        __dataclass_fields__: ClassVar[dict[str, Any]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        plan = self._init_plan
        name = type(self).__qualname__
        if len(args) > len(plan):
            raise TypeError(f"{name}() takes {len(plan)} positional arguments but {len(args)} were given")
        put = object.__setattr__
        for (field_name, _, _), value in zip(plan, args):
            if field_name in kwargs:
                raise TypeError(f"{name}() got multiple values for argument {field_name!r}")
            put(self, field_name, value)
        for field_name, default, factory in plan[len(args):]:
            if field_name in kwargs:
                put(self, field_name, kwargs.pop(field_name))
            elif factory is not _MISSING:
                put(self, field_name, factory())
            elif default is not _MISSING:
                put(self, field_name, default)
            else:
                raise TypeError(f"{name}() missing 1 required argument: {field_name!r}")
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")

    def to_json(self, *, copy: bool = True) -> dict[str, Any]:
        """The fields as `dataclasses.asdict` gives them (a deep copy of the JSON values); `copy`
        False: the values themselves, for a caller that only serialises them (a drain's records: the
        copy of ~60 values a task was a fifth of the records' cost)."""
        if not copy:
            return {name: getattr(self, name) for name in self._field_names}
        return {name: _plain(getattr(self, name)) for name in self._field_names}

    @classmethod
    def from_json(cls: type[T], data: dict[str, Any], **overrides: Any) -> T:
        names = cls._field_names   # type: ignore[attr-defined]
        values = {k: v for k, v in data.items() if k in names}
        values.update(overrides)
        return cls(**values)


@result_class
class RunStarted(Result):
    run: str = ""
    base: str = ""
    integration: str = ""
    remote: str | None = None     # the git remote holding the integration branch (None: this repository)
    uncommitted: list[str] = field(default_factory=list)   # the checkout's changes the pin leaves out (first 50)
    notes: list[str] = field(default_factory=list)
    network: str = ""             # how this machine starts the run's task commands: isolated or shared


@result_class
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


@result_class
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
    # The changed files whose language no semantic check reads (check/names_unread.py): `languages`,
    # `files`; empty when every changed file was read. A name one of them removed was NOT looked for.
    names_unread: dict[str, Any] = field(default_factory=dict)

    @property
    def violation_records(self) -> tuple[ViolationRecord, ...]:
        """`violations` as typed records."""
        from . import records

        return tuple(records.ViolationRecord.from_json(row) for row in self.violations)

    @property
    def conflict_records(self) -> tuple[ConflictRecord, ...]:
        """`conflicts` as typed records."""
        from . import records

        return tuple(records.ConflictRecord.from_json(row) for row in self.conflicts)


@result_class
class MergeReport(Result):
    run: str = ""
    integration: str = ""
    tip: str = ""
    tasks: list[dict[str, Any]] = field(default_factory=list)


@result_class
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
        from . import records

        return tuple(records.SkippedRecord.from_json(row) for row in self.skipped)


@result_class
class RunReport(Result):
    """The change manifest of a run: what `land` would bring, with exact pointers."""

    run: str = ""
    base: str = ""
    integration: str = ""
    tip: str = ""
    tasks: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    intents_pending: list[dict[str, Any]] = field(default_factory=list)
    # Every intent of the run, each: intent, task, manifest, what (its change in a few words), state
    # (applied, satisfied, pending, conflict, failed, ...), why (a state's reason, else None),
    # commit (the consolidation commit that applied it, else None).
    intents: list[dict[str, Any]] = field(default_factory=list)
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
    # Why the look for uses left behind gave no answer ("" when it did): the run is NOT CHECKED for
    # them, and `land` refuses (exit 6) in mode block unless told to land unchecked.
    left_behind_unchecked: str = ""
    # Files of the landed tree that do not parse where the pin's version did, or that the run added
    # unparseable (syntax.py over pin..tip): path, language, line, column (1-based, where the parse
    # first fails), added, tasks (the merged tasks that changed the file). `land` refuses while one
    # is not approved by path. Also in `warnings`.
    unparsed: list[dict[str, Any]] = field(default_factory=list)
    # Why the look for those files gave no answer ("" when it did): NOT CHECKED, never clean.
    unparsed_unchecked: str = ""
    # The changed files whose language no semantic check reads (check/names_unread.py): `languages`,
    # `files`; empty when every changed file was read. A name one of them removed was NOT looked for.
    names_unread: dict[str, Any] = field(default_factory=dict)

    @property
    def conflict_records(self) -> tuple[ConflictRecord, ...]:
        """`conflicts` as typed records (each with its `task`)."""
        from . import records

        return tuple(records.ConflictRecord.from_json(row) for row in self.conflicts)

    @property
    def leftover_records(self) -> tuple[LeftoverRecord, ...]:
        """`leftovers` (what landing now would leave out) as typed records, intents first."""
        from . import records

        return records.leftover_records(self.leftovers)


@result_class
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
    # Files of the landed tree that do not parse, approved by path (--allow-unparsed)
    unparsed: list[dict[str, Any]] = field(default_factory=list)
    # The changed files whose language no semantic check reads (check/names_unread.py): `languages`,
    # `files`; empty when every changed file was read. A name one of them removed was NOT looked for.
    names_unread: dict[str, Any] = field(default_factory=dict)

    @property
    def leftover_records(self) -> tuple[LeftoverRecord, ...]:
        """`left_out` (what was landed without, `allow_partial`) as typed records, intents first."""
        from . import records

        return records.leftover_records(self.left_out)


@result_class
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


@result_class
class TaskAbandoned(Result):
    run: str = ""
    task: str = ""
    state: str = "abandoned"
    branch: str = ""
    snapshot: str | None = None
    notes: list[str] = field(default_factory=list)
    dropped_intents: list[str] = field(default_factory=list)   # its intents not applied: they never will be


@result_class
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


@result_class
class RunStatus(Result):
    runs: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    intents: dict[str, int] = field(default_factory=dict)
    forecast_at: float | None = None   # when the tasks' `forecast` column was computed (None: never)


@result_class
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


@result_class
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
    pin_words_removed: list[str] = field(default_factory=list)   # word indexes (tree ids) of pins no open run uses
    scratch_removed: list[str] = field(default_factory=list)     # tmp-trees.* folders of killed tree reads


@result_class
class PlanRules(Result):
    """Plan rules (added, removed or listed), in the order they are tried; `default` is what a name
    no rule matches gets (listings only)."""

    rules: list[dict[str, Any]] = field(default_factory=list)
    default: dict[str, Any] | None = None


@result_class
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


@result_class
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


@result_class
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


@result_class
class TaskCheck(Result):
    """`wtc task check`: would this task's current state (uncommitted edits included) merge onto the
    integration tip, and onto each other live or finished-but-unmerged task? Exit 1 when any
    conflict is predicted. `onto`: one row per target (`integration` first, then tasks sharing files
    with this one) with `clean`, the files both changed and the conflicts; `not_compared` the others, and why. `left_behind`: uses, in files the
    task did not change, of names it removed or renamed (exit 1 too when the run's left-behind mode
    blocks: its merge would refuse them; exit 6 when the look for them failed inside,
    `left_behind_unchecked`).
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
    # Why the look for those uses failed inside ("" when it answered, or was not asked): an error of
    # wtc's, not an answer; the check exits 6 (EXIT_INTERNAL) unless a boundary violation (3) or a
    # conflict (1) asks the agent to act first. `left_behind` carries the same reason as a note.
    left_behind_unchecked: str = ""
    # The changed files whose language no semantic check reads (check/names_unread.py): `languages`,
    # `files`; empty when every changed file was read. A name one of them removed was NOT looked for.
    names_unread: dict[str, Any] = field(default_factory=dict)
    # What the agent should know of its changes that is no conflict (a lockfile wtc does not relock).
    notes: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def violation_records(self) -> tuple[ViolationRecord, ...]:
        """`violations` as typed records."""
        from . import records

        return tuple(records.ViolationRecord.from_json(row) for row in self.violations)
