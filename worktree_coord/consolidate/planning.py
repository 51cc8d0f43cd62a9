"""Plan: merge compatible intents, reject conflicting ones, skip those already applied.

Stage: before ordering and applying. Input: intents (any order) and a `tree_reader(path) -> bytes
| None` over the tree consolidation will edit (the integration branch). Output: a `Plan` with one
`Change` per key to apply, the changes already satisfied, the roots to relock, the conflicts (each
naming every task involved) and policy warnings.
Invariants:
- the result does not depend on the order of the input intents (everything is sorted by key, task
  and intent id before folding);
- equal specs merge into one change; nested ranges keep the narrower one with a warning; partial
  overlaps write the conjunction when the syntax has one (with a warning); extras that tasks
  changed from one value merge as a set edit, also on top of extras applied since; disjoint ranges,
  undecidable ranges, add vs remove, different sources or attributes, one package in two
  exclusive groups, one crate under two names, and a stale base value are conflicts;
- in a single-version workspace (uv; version_rules.py) a planned range must also meet, or be rejected naming the
  manifest, every range of that package in the other changes and in the members' current manifests;
- an intent whose target value is already in the current manifest is satisfied, not re-applied
  (this makes a second consolidation a no-op).
"""

from __future__ import annotations

import dataclasses
import enum
import fnmatch
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from worktree_coord.consolidate import settings
from worktree_coord.consolidate.intent import REMOVING_OPS, DepValue, Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import ManifestModel, encode_value, read_manifest
from worktree_coord.consolidate.specs import Relation, compare, conjunction, same_spec
from worktree_coord.consolidate.version_rules import VERSIONS, ranges_must_meet

from ..frozen import value_class

TreeReader = Callable[[str], "bytes | None"]


class ConflictKind(str, enum.Enum):
    DISJOINT_RANGES = "disjoint_ranges"
    UNDECIDABLE_RANGES = "undecidable_ranges"
    ADD_VS_REMOVE = "add_vs_remove"
    DIFFERENT_SOURCES = "different_sources"
    DIFFERENT_ATTRIBUTES = "different_attributes"
    GROUP_COLLISION = "group_collision"
    ALIAS_COLLISION = "alias_collision"
    STALE_BASE = "stale_base"
    DIFFERENT_VALUES = "different_values"
    NESTED_KEYS = "nested_keys"
    CYCLE = "cycle"


@value_class
class IntentConflict:
    kind: ConflictKind
    key: tuple[str, ...]
    tasks: tuple[str, ...]
    intent_ids: tuple[str, ...]
    message: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "key": list(self.key), "tasks": list(self.tasks),
                "intent_ids": list(self.intent_ids), "message": self.message, "fix": self.fix}


@value_class
class Change:
    """One key's change to apply: `intent` is the merged representative, `sources` all it stands for."""

    intent: Intent
    sources: tuple[Intent, ...]

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(sorted({i.task for i in self.sources}))

    def to_json(self) -> dict[str, Any]:
        return {"intent": self.intent.to_json(), "tasks": list(self.tasks),
                "intent_ids": [i.intent_id for i in self.sources], "summary": self.intent.summary()}


@value_class
class Plan:
    changes: tuple[Change, ...]
    satisfied: tuple[Change, ...]
    relock_roots: tuple[tuple[str, str], ...]          # (ecosystem, root), sorted
    conflicts: tuple[IntentConflict, ...]
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"changes": [c.to_json() for c in self.changes], "satisfied": [c.to_json() for c in self.satisfied],
                "relock_roots": [list(r) for r in self.relock_roots],
                "conflicts": [c.to_json() for c in self.conflicts], "warnings": list(self.warnings)}


def directory_reader(workdir: Path) -> TreeReader:
    def read(path: str) -> bytes | None:
        file = Path(workdir) / path
        return file.read_bytes() if file.is_file() else None

    return read


# -------------------------------------------------------------------------------- current values

def intent_dep_value(intent: Intent) -> DepValue:
    return DepValue(spec=intent.spec, source=intent.source, extras=intent.extras, features=intent.features,
                    markers=intent.markers, package=intent.package, options=intent.options)


def target_value(intent: Intent) -> str | None:
    """The encoded value the key holds once `intent` is applied (None = absent)."""
    if intent.op in REMOVING_OPS:
        return None
    if intent.op in (Op.ADD_DEP, Op.SET_SPEC):
        return encode_value(intent_dep_value(intent))
    if intent.op == Op.ADD_MEMBER:
        return intent.name
    return intent.spec


def current_value(model: ManifestModel | None, intent: Intent) -> str | None:
    if model is None:
        return None
    if intent.op in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP):
        return encode_value(model.deps.get((intent.group, intent.name)))
    if intent.op == Op.ADD_MEMBER:
        # A member a glob already covers (`packages/*`) is already in the workspace.
        covered = any(fnmatch.fnmatchcase(intent.name, m) for m in model.members if any(c in m for c in "*?["))
        return intent.name if intent.name in model.members or covered else None
    if intent.op == Op.REMOVE_MEMBER:
        return intent.name if intent.name in model.members else None
    if intent.op == Op.BUMP_VERSION:
        return model.version
    if intent.op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        return model.overrides.get(intent.name)
    if intent.op == Op.SET_RUNTIME:
        return model.runtime.get(intent.name)
    if intent.op in (Op.SET_KEY, Op.REMOVE_KEY):
        return settings.value_at(model.document, settings.parse_key(intent.name))
    return None


# Ops whose encoded value carries a version spec (bare, or as `spec` in a dependency's JSON).
_SPEC_OPS = frozenset({Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP, Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE})


def _spec_and_rest(encoded: str) -> tuple[str | None, Any]:
    """An encoded value (`manifests.encode_value`) cut into its spec and everything else."""
    if encoded.startswith("{"):
        try:
            parts = json.loads(encoded)
        except ValueError:
            return None, encoded
        if isinstance(parts, dict):
            return parts.pop("spec", None) or "", parts
    return encoded, {}


def same_value(intent: Intent, a: str | None, b: str | None) -> bool:
    """Whether two encoded values of the intent's key are one value: equal text, or, for a dependency
    or an override, equal but for how the version spec is written (`specs.same_spec`: `>=1.0.9,<2`
    and `<2,>=1.0.9` are one specifier set). Every comparison of a manifest's value with an intent's
    (already applied? stale base? did the edit read back?) goes through here."""
    if a == b:
        return True
    if a is None or b is None or intent.op not in _SPEC_OPS:
        return False
    spec_a, rest_a = _spec_and_rest(a)
    spec_b, rest_b = _spec_and_rest(b)
    return rest_a == rest_b and same_spec(intent.ecosystem, spec_a, spec_b)


class _Models:
    """Current manifest models, read once each."""

    def __init__(self, reader: TreeReader):
        self.reader = reader
        self.cache: dict[tuple[str, str], ManifestModel | None] = {}

    def get(self, manifest: str, ecosystem: Ecosystem) -> ManifestModel | None:
        key = (manifest, ecosystem.value)
        if key not in self.cache:
            data = self.reader(manifest)
            self.cache[key] = None if data is None else read_manifest(manifest, data, ecosystem)
        return self.cache[key]


# ---------------------------------------------------------------------------------------- folding

def _sort_key(intent: Intent) -> tuple[Any, ...]:
    return (-intent.priority, intent.task, intent.intent_id)


def _shape(intent: Intent) -> tuple[Any, ...]:
    if intent.op == Op.SET_KEY:
        return ()   # a setting's options say where it goes, not what it is: its spec is compared
    return (intent.extras, intent.features, intent.markers, intent.package, intent.options)


def _where(key: tuple[str, ...]) -> str:
    """How a message names a key: `'lodash' in package.json [dependencies]`, `scripts.test in package.json`."""
    if key[3] == settings.SETTINGS_GROUP:
        return f"{key[4]} in {key[2]}"
    return f"{key[4]!r} in {key[2]} [{key[3]}]"


def _shown(value: str | None, intent: Intent) -> str:
    """A value in a message: a setting's JSON as it is (`"vitest"`, `120`), a spec quoted."""
    if intent.op in (Op.SET_KEY, Op.REMOVE_KEY):
        try:
            block = settings.decode(value)
        except ValueError:        # a value JSON could not carry, shown as its repr (settings.value_at)
            block = None
        if isinstance(block, str) and block.strip().count("\n") > 1:
            # a whole block (a pom.xml's <build>): its first line and its size, not all of it
            return f"{block.strip().splitlines()[0]}... ({len(block.strip().splitlines())} lines)"
        return "absent" if value is None else value
    return repr(value)


def _fold(group: list[Intent], warnings: list[str]) -> tuple[Intent | None, IntentConflict | None]:
    """Merge intents that share one key; either a merged intent or a conflict."""
    key = group[0].key
    ids = tuple(i.intent_id for i in group)
    tasks = tuple(sorted({i.task for i in group}))
    setting = [i for i in group if i.op not in REMOVING_OPS]
    removing = [i for i in group if i.op in REMOVING_OPS]
    if setting and removing:
        return None, IntentConflict(
            ConflictKind.ADD_VS_REMOVE, key, tasks, ids,
            f"{_where(key)}: task(s) {', '.join(sorted({i.task for i in setting}))} set it, "
            f"task(s) {', '.join(sorted({i.task for i in removing}))} remove it",
            "decide which task's change stands and drop the other intent")
    if removing:
        return removing[0], None
    setting = _extras_merged(setting, warnings)
    first = setting[0]
    for other in setting[1:]:
        if other.source != first.source:
            return None, IntentConflict(
                ConflictKind.DIFFERENT_SOURCES, key, tasks, ids,
                f"{_where(key)}: task {first.task} uses source {first.source_dict()}, "
                f"task {other.task} uses {other.source_dict()}",
                "make both tasks agree on where the package comes from (workspace/path/git/registry)")
        if _shape(other) != _shape(first):
            return None, IntentConflict(
                ConflictKind.DIFFERENT_ATTRIBUTES, key, tasks, ids,
                f"{_where(key)}: tasks {first.task} and {other.task} ask for different "
                f"extras/features/markers/options", "make both intents carry the same attributes")
    chosen = first
    eco = first.ecosystem
    decidable_ops = (Op.ADD_DEP, Op.SET_SPEC, Op.SET_RUNTIME)
    for other in setting[1:]:
        if other.spec == chosen.spec:
            continue
        if chosen.op == other.op == Op.SET_KEY and chosen.expected_before == other.expected_before:
            both = settings.merge_lists(chosen.expected_before, chosen.spec, other.spec)
            if both is not None:
                # Two tasks each added (or took out) items of one array: both edits stand. The
                # merged array is edited in place (the tasks' own spelling fits neither alone).
                warnings.append(f"{_where(key)}: merged the array edits of tasks {chosen.task} and {other.task}")
                chosen = dataclasses.replace(chosen, spec=both,
                                             options=tuple((k, v) for k, v in chosen.options if k != "toml"))
                continue
        if chosen.op not in decidable_ops or other.op not in decidable_ops:
            return None, IntentConflict(
                ConflictKind.DIFFERENT_VALUES, key, tasks, ids,
                f"{_where(key)}: task {chosen.task} wants {_shown(chosen.spec, chosen)}, "
                f"task {other.task} wants {_shown(other.spec, other)}", "make both tasks agree on one value")
        spec_eco = Ecosystem.UV if (first.op == Op.SET_RUNTIME and key[4] == "python") else eco
        rel = compare(spec_eco, chosen.spec, other.spec)
        where = _where(key)
        if rel == Relation.EQUAL:
            continue
        if rel == Relation.SUBSET:
            warnings.append(f"{where}: kept the narrower {chosen.spec!r} (task {chosen.task}) "
                            f"over {other.spec!r} (task {other.task})")
            continue
        if rel == Relation.SUPERSET:
            warnings.append(f"{where}: kept the narrower {other.spec!r} (task {other.task}) "
                            f"over {chosen.spec!r} (task {chosen.task})")
            chosen = other
            continue
        if rel == Relation.OVERLAP and chosen.spec and other.spec:
            both = conjunction(spec_eco, chosen.spec, other.spec)
            if both is not None:
                warnings.append(f"{where}: wrote the conjunction {both!r} of {chosen.spec!r} (task {chosen.task}) "
                                f"and {other.spec!r} (task {other.task})")
                chosen = dataclasses.replace(chosen, spec=both)
                continue
        kind = ConflictKind.DISJOINT_RANGES if rel == Relation.DISJOINT else ConflictKind.UNDECIDABLE_RANGES
        what = "no version satisfies both" if rel == Relation.DISJOINT else "cannot decide how these ranges relate"
        return None, IntentConflict(
            kind, key, tasks, ids,
            f"{where}: task {chosen.task} wants {chosen.spec!r}, task {other.task} wants {other.spec!r}: {what}",
            "choose one range (or a range both accept) and re-declare the intent")
    return chosen, None


def _extras(encoded: str | None) -> frozenset[str] | None:
    """The extras of a dependency's encoded value (None: no dependency there)."""
    if encoded is None:
        return None
    _, rest = _spec_and_rest(encoded)
    return frozenset(rest.get("extras", ())) if isinstance(rest, dict) else None


def _but_extras(encoded: str | None) -> Any:
    spec, rest = _spec_and_rest(encoded) if encoded is not None else (None, None)
    return spec, {k: v for k, v in rest.items() if k != "extras"} if isinstance(rest, dict) else rest


def _with_extras(intent: Intent, extras: Iterable[str], **changes: Any) -> Intent:
    """The intent asking for `extras` instead of its own; the text the task wrote no longer says it."""
    return dataclasses.replace(intent, extras=tuple(sorted(extras)), **changes,
                               placement=tuple((k, v) for k, v in intent.placement if k != "text"))


def _extras_merged(setting: list[Intent], warnings: list[str]) -> list[Intent]:
    """Tasks that each changed the extras of one dependency from the same value (httpx's `-e
    .[brotli,cli]`: one adds `zstd`, another `socks`): both edits stand, as a set edit of the extras
    (what either task took out goes, what either added comes). Anything else about the dependency
    the fold compares as before."""
    deps = [i for i in setting if i.op in (Op.ADD_DEP, Op.SET_SPEC)]
    if len(deps) < 2 or len(deps) != len(setting) or len({i.extras for i in deps}) == 1 \
            or len({i.expected_before for i in deps}) != 1 \
            or len({(i.source, i.features, i.markers, i.package, i.options) for i in deps}) != 1:
        return setting
    base = _extras(deps[0].expected_before) or frozenset()
    removed = set().union(*(base - set(i.extras) for i in deps))
    merged = (base | set().union(*(set(i.extras) for i in deps))) - removed
    warnings.append(f"{_where(deps[0].key)}: merged the extras of tasks {', '.join(sorted({i.task for i in deps}))} "
                    f"into [{', '.join(sorted(merged))}]")
    return [_with_extras(i, merged) for i in deps]


def _rebased_extras(intent: Intent, current: str | None) -> Intent | None:
    """The intent on top of a current value that differs from what the task saw only in its extras
    (an earlier consolidation applied another task's extras): its own extras edit, applied to them."""
    if intent.op not in (Op.ADD_DEP, Op.SET_SPEC) or current is None or intent.expected_before is None:
        return None
    if _but_extras(intent.expected_before) != _but_extras(current):
        return None
    base, now = _extras(intent.expected_before) or frozenset(), _extras(current) or frozenset()
    mine = set(intent.extras)
    return _with_extras(intent, (now | (mine - base)) - (base - mine), expected_before=current)


def _exclusive(ecosystem: Ecosystem, a: str, b: str) -> bool:
    """Whether one package in groups `a` and `b` of one manifest is a collision."""
    if a == b:
        return False
    if ecosystem in (Ecosystem.NPM, Ecosystem.PNPM, Ecosystem.YARN, Ecosystem.BUN):
        # package.json keeps one entry per package across these; npm installs one of them and
        # warns about the other.
        exclusive = {"dependencies", "devDependencies", "optionalDependencies"}
        return a in exclusive and b in exclusive
    # Python (uv, Poetry) and Cargo: a package may sit in the main dependencies and in an extra, a
    # dependency group or a dev group at once (pytest's own `dev` extra repeats `attrs`); one
    # resolution must satisfy every range, which the single-version check compares.
    return False


def plan(intents: Iterable[Intent], tree_reader: TreeReader, *,
         workspace_manifests: Mapping[tuple[str, str], Sequence[str]] | None = None) -> Plan:
    """Group, merge and check the intents against the current tree (see the module docstring).

    `workspace_manifests` maps (ecosystem, root) to the repo-relative manifests of that root's
    workspace members (root included), read through `tree_reader`; single-version ecosystems (uv)
    check planned ranges against the requirements those manifests already hold.
    """
    intents = sorted(intents, key=lambda i: (i.key, _sort_key(i)))
    models = _Models(tree_reader)
    warnings: list[str] = []
    conflicts: list[IntentConflict] = []
    relock: set[tuple[str, str]] = set()
    by_key: dict[tuple[str, ...], list[Intent]] = defaultdict(list)
    for intent in intents:
        relock.add(intent.root_key)
        if intent.op != Op.RELOCK:
            by_key[intent.key].append(intent)

    changes: dict[tuple[str, ...], Change] = {}
    satisfied: list[Change] = []
    for key in sorted(by_key):
        group = sorted(by_key[key], key=_sort_key)
        model = models.get(group[0].manifest, group[0].ecosystem)
        current = current_value(model, group[0])
        fresh: list[Intent] = []
        done: list[Intent] = []
        for intent in group:
            if same_value(intent, target_value(intent), current):
                done.append(intent)
            elif intent.op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER) or same_value(intent, intent.expected_before, current):
                fresh.append(intent)
            elif (rebased_dep := _rebased_extras(intent, current)) is not None:
                fresh.append(rebased_dep)
            elif intent.op == Op.SET_KEY and (rebased := settings.merge_lists(intent.expected_before, current,
                                                                               intent.spec)) is not None:
                # The array changed since the task's base (an earlier consolidation applied another
                # task's items): the task's own additions and removals still apply on top.
                fresh.append(dataclasses.replace(intent, spec=rebased, expected_before=current,
                                                 options=tuple((k, v) for k, v in intent.options if k != "toml")))
            else:
                others = sorted({i.task for i in group if i.task != intent.task}) or ["integration"]
                conflicts.append(IntentConflict(
                    ConflictKind.STALE_BASE, key, tuple(sorted({intent.task, *others})), (intent.intent_id,),
                    f"{_where(key)}: task {intent.task} changed it from "
                    f"{_shown(intent.expected_before, intent)}, but it is now {_shown(current, intent)} "
                    f"(changed by {', '.join(others)}); applying {_shown(intent.spec, intent)} would undo that",
                    f"rebase task {intent.task} on the current integration branch and re-declare its intent"))
        if done:
            satisfied.append(Change(done[0], tuple(done)))
        if not fresh:
            continue
        merged, conflict = _fold(fresh, warnings)
        if conflict is not None:
            conflicts.append(conflict)
        else:
            assert merged is not None
            changes[key] = Change(merged, tuple(fresh))

    _nested_settings(changes, conflicts)
    _group_collisions(changes, models, conflicts)
    _single_version(changes, conflicts, models, workspace_manifests or {})
    return Plan(
        changes=tuple(changes[k] for k in sorted(changes)),
        satisfied=tuple(sorted(satisfied, key=lambda c: c.intent.key)),
        relock_roots=tuple(sorted(relock)),
        conflicts=tuple(sorted(conflicts, key=lambda c: (c.key, c.kind.value, c.intent_ids))),
        warnings=tuple(warnings),
    )


def _group_collisions(changes: dict[tuple[str, ...], Change], models: _Models,
                      conflicts: list[IntentConflict]) -> None:
    """One package set in two exclusive groups, or one crate under two names: reject all sides."""
    adds = [c for c in changes.values() if c.intent.op in (Op.ADD_DEP, Op.SET_SPEC)]
    removed = {(c.intent.manifest, c.intent.group, c.intent.name) for c in changes.values()
               if c.intent.op == Op.REMOVE_DEP}
    rejected: set[tuple[str, ...]] = set()
    by_name: dict[tuple[str, str, str], list[Change]] = defaultdict(list)
    for change in adds:
        i = change.intent
        real = i.package or i.name
        by_name[(i.ecosystem.value, i.manifest, real)].append(change)
    for (eco_value, manifest, real), group in sorted(by_name.items()):
        eco = Ecosystem(eco_value)
        for a_index, a in enumerate(group):
            for b in group[a_index + 1:]:
                ia, ib = a.intent, b.intent
                if _exclusive(eco, ia.group, ib.group):
                    kind, what = ConflictKind.GROUP_COLLISION, f"in both [{ia.group}] and [{ib.group}]"
                elif ia.group == ib.group and ia.name != ib.name:
                    kind, what = ConflictKind.ALIAS_COLLISION, f"under two names ({ia.name!r}, {ib.name!r})"
                else:
                    continue
                tasks = tuple(sorted(set(a.tasks) | set(b.tasks)))
                conflicts.append(IntentConflict(
                    kind, ia.key, tasks, tuple(x.intent_id for x in (*a.sources, *b.sources)),
                    f"{real!r} in {manifest}: {what}, by task(s) {', '.join(tasks)}",
                    "keep the package in one group (or under one name) and drop the other intent"))
                rejected.update({ia.key, ib.key})
        # Against the current manifest: a new group for a package already held in an exclusive group.
        for change in group:
            i = change.intent
            model = models.get(manifest, eco)
            if model is None or i.key in rejected:
                continue
            for (group_name, name) in sorted(model.deps):
                if (name == i.name and _exclusive(eco, group_name, i.group)
                        and (manifest, group_name, name) not in removed):
                    conflicts.append(IntentConflict(
                        ConflictKind.GROUP_COLLISION, i.key, tuple(sorted({*change.tasks, "integration"})),
                        tuple(x.intent_id for x in change.sources),
                        f"{i.name!r} in {manifest}: task(s) {', '.join(change.tasks)} add it to [{i.group}] "
                        f"but it is already in [{group_name}]",
                        f"also remove it from [{group_name}], or leave it where it is"))
                    rejected.add(i.key)
                    break
    for key in rejected:
        changes.pop(key, None)



# Ecosystems that resolve one version per package for the whole workspace: every member (and every
# group of every member) gets the same version, so disjoint ranges anywhere in the workspace cannot
# both hold. The package manager's rule, read from its entry in version_rules.py. Cargo is not
# among them: incompatible majors coexist in one Cargo.lock, and members that inherit
# `x.workspace = true` all read the one `[workspace.dependencies]` key, which the fold above
# already guards (two intents on that key are compared like any other key).
SINGLE_VERSION = tuple(eco for eco in VERSIONS if ranges_must_meet(eco))

# A uv source that still comes from a package index; any other source (workspace, path, git, url)
# pins the package outside version ranges, so a range there says nothing about the registry one.
_INDEX_SOURCE_KEYS = frozenset({"index", "marker", "extra", "group"})


def _nested_settings(changes: dict[tuple[str, ...], Change], conflicts: list[IntentConflict]) -> None:
    """A setting of one key and a setting inside it (a whole `[tool.ruff]` table against its
    `line-length`) cannot both stand: whichever applies last would undo part of the other."""
    keyed = {key: settings.parse_key(key[4]) for key, change in changes.items()
             if change.intent.op in (Op.SET_KEY, Op.REMOVE_KEY)}
    clashing: set[tuple[str, ...]] = set()
    for outer, outer_parts in keyed.items():
        for inner, inner_parts in keyed.items():
            if outer[:3] != inner[:3] or outer == inner or inner_parts[:len(outer_parts)] != outer_parts:
                continue
            a, b = changes[outer], changes[inner]
            if set(a.tasks) == set(b.tasks):
                continue   # one task's own coherent edit (a table it replaced, then a key in it)
            clashing |= {outer, inner}
            tasks = tuple(sorted(set(a.tasks) | set(b.tasks)))
            conflicts.append(IntentConflict(
                ConflictKind.NESTED_KEYS, inner, tasks,
                tuple(i.intent_id for i in (*a.sources, *b.sources)),
                f"{outer[4]} in {outer[2]}: task(s) {', '.join(a.tasks)} change it as a whole, task(s) "
                f"{', '.join(b.tasks)} change {inner[4]} inside it",
                "make one task carry both edits (or drop one intent), then consolidate again"))
    for key in clashing:
        del changes[key]


def _registry(source: Any) -> bool:
    return not source or set(dict(source)) <= _INDEX_SOURCE_KEYS


def _spec_relation(eco: Ecosystem, a: str, b: str) -> ConflictKind | None:
    """The conflict kind for two specs one resolution must satisfy together (None: compatible)."""
    rel = compare(eco, a, b)
    if rel == Relation.DISJOINT:
        return ConflictKind.DISJOINT_RANGES
    if rel == Relation.UNKNOWN:           # a range question we cannot decide is a conflict (issue 5)
        return ConflictKind.UNDECIDABLE_RANGES
    return None


def ranged(value: Intent | DepValue) -> bool:
    """Whether a requirement is a plain registry range (no markers, no path/git/workspace source):
    the kind whose overlap with another range the single-version checks decide."""
    return bool(value.spec) and not value.markers and _registry(value.source)


def _single_version(changes: dict[tuple[str, ...], Change], conflicts: list[IntentConflict], models: _Models,
                    workspace_manifests: Mapping[tuple[str, str], Sequence[str]]) -> None:
    """In a single-version workspace, a planned range must meet every other range of the same package:
    other planned changes, and the requirements every member manifest holds in the current tree."""
    by_name: dict[tuple[str, str, str], list[Change]] = defaultdict(list)
    for change in changes.values():
        i = change.intent
        if i.ecosystem in SINGLE_VERSION and i.op in (Op.ADD_DEP, Op.SET_SPEC) and ranged(i):
            by_name[(i.ecosystem.value, i.root, i.name)].append(change)
    # Keys the plan rewrites or removes: their current value will not be in the workspace any more.
    replaced = {(c.intent.manifest, c.intent.group, c.intent.name) for c in changes.values()}
    rejected: set[tuple[str, ...]] = set()
    for (eco_value, root, name), group in sorted(by_name.items()):
        eco = Ecosystem(eco_value)
        where = f"the {eco.value} workspace at {root or '.'} resolves one version for all members"
        for index, a in enumerate(group):
            for b in group[index + 1:]:
                kind = _spec_relation(eco, a.intent.spec or "", b.intent.spec or "")
                if kind is None:
                    continue
                tasks = tuple(sorted(set(a.tasks) | set(b.tasks)))
                conflicts.append(IntentConflict(
                    kind, a.intent.key, tasks, tuple(x.intent_id for x in (*a.sources, *b.sources)),
                    f"{name!r}: {a.intent.manifest} [{a.intent.group}] wants {a.intent.spec!r} (task(s) "
                    f"{', '.join(a.tasks)}) and {b.intent.manifest} [{b.intent.group}] wants {b.intent.spec!r} "
                    f"(task(s) {', '.join(b.tasks)}): {where}",
                    "agree on one range for the whole workspace"))
                rejected.update({a.intent.key, b.intent.key})
        manifests = workspace_manifests.get((eco_value, root), ())
        root_model = models.get(f"{root}/pyproject.toml" if root else "pyproject.toml", eco) if manifests else None
        if root_model is not None and name in root_model.overrides:
            continue                      # the root's override-dependencies entry replaces every range of it
        for change in group:
            i = change.intent
            if i.key in rejected:
                continue
            for manifest in manifests:
                model = models.get(manifest, eco)
                if model is None:
                    continue
                for (dep_group, dep_name), value in sorted(model.deps.items()):
                    if dep_name != name or (manifest, dep_group, dep_name) in replaced or not ranged(value):
                        continue
                    kind = _spec_relation(eco, i.spec or "", value.spec or "")
                    if kind is None:
                        continue
                    what = "no version satisfies both" if kind == ConflictKind.DISJOINT_RANGES \
                        else "cannot decide whether one version satisfies both"
                    conflicts.append(IntentConflict(
                        kind, i.key, tuple(sorted({*change.tasks, "integration"})),
                        tuple(x.intent_id for x in change.sources),
                        f"{name!r}: task(s) {', '.join(change.tasks)} want {i.spec!r} in {i.manifest} [{i.group}], "
                        f"but {manifest} [{dep_group}] requires {value.spec!r}: {what}; {where}",
                        f"choose a range that {manifest}'s {value.spec!r} also accepts, or change {manifest} "
                        f"in the same run"))
                    rejected.add(i.key)
                    break
                if i.key in rejected:
                    break
    for key in rejected:
        changes.pop(key, None)
