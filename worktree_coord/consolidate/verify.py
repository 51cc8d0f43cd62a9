"""Verification of a consolidated root before it may be committed, and the lock diff audit.

Stage: after relock. Input: the adapter (on the consolidation directory), the applied changes,
the base lock's package versions. Output: a list of problems (empty = verified) and a `LockDiff`.
Invariants: checks only read, except the npm freshness check which relocks and restores the lock
when it moved; every problem names the file, the intent or the tool run that failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from packaging.utils import canonicalize_name

from worktree_coord.consolidate.adapters.base import ToolAdapter
from worktree_coord.consolidate.intent import Op
from worktree_coord.consolidate.lock_graph import reachable
from worktree_coord.consolidate.manifests import read_manifest
from worktree_coord.consolidate.planning import Change, current_value, same_value, target_value
from worktree_coord.consolidate.result import LockDiff
from worktree_coord.consolidate.specs import satisfies
from worktree_coord.consolidate.textformat import ManifestParseError

from ..frozen import value_class

# Groups whose entries no lockfile records as installed packages (a requirements file's option lines:
# `--index-url URL` names where packages come from, not a package).
UNINSTALLED_GROUPS = ("peerDependencies", "optionalDependencies", "options")


@value_class
class Problem:
    """One failed check; `change` is set when one applied change alone explains it."""

    message: str
    change: Change | None = None


def verify_root(adapter: ToolAdapter, changes: tuple[Change, ...], manifests: list[str], *,
                relocked: bool = True) -> list[Problem]:
    """The problems of a consolidated root (empty: verified); a root that was not relocked (it has
    no lockfile) is checked for its manifests only."""
    problems: list[Problem] = []
    workdir = Path(adapter.workdir)
    # 1. Every touched manifest parses strictly (duplicate keys refused).
    for path in manifests:
        file = workdir / path
        if file.is_file():
            try:
                read_manifest(path, file.read_bytes(), adapter.ecosystem)
            except ManifestParseError as exc:
                problems.append(Problem(f"{path} does not parse strictly after the edits: {exc.message}"))
    if problems:
        return problems
    # 2. Every intent's postcondition holds on read-back.
    for change in changes:
        intent = change.intent
        model = read_manifest(intent.manifest, (workdir / intent.manifest).read_bytes(), intent.ecosystem)
        got = current_value(model, intent)
        if not same_value(intent, got, target_value(intent)):
            problems.append(Problem(f"{intent.manifest}: {intent.op.value} {intent.name!r} reads back as {got!r}, "
                                    f"expected {target_value(intent)!r} (intent {intent.intent_id})", change))
    if not relocked:
        return problems
    # 3. The ecosystem's own freshness check.
    for run in adapter.check():
        if not run.ok:
            problems.append(Problem(f"freshness check `{' '.join(run.argv)}` failed: {run.stderr.strip()[-2000:]}"))
    # 4. Locked versions satisfy the specs that were written.
    locked = adapter.locked_versions()
    for change in changes:
        intent = change.intent
        if intent.op not in (Op.ADD_DEP, Op.SET_SPEC) or intent.group in UNINSTALLED_GROUPS or not intent.spec:
            continue
        if intent.group.startswith("workspace.") or (intent.options and dict(intent.options).get("optional")):
            continue
        name = (intent.package or intent.name).split(";")[0].strip()
        versions = locked.get(name, set())
        if not versions and intent.group.startswith("catalog"):
            continue        # a pnpm catalog entry is locked only once a member uses it
        if not versions:
            problems.append(Problem(f"{name} ({intent.intent_id}) is not in {adapter.lockfile} after the relock",
                                    change))
            continue
        verdicts = [satisfies(adapter.ecosystem, v, intent.spec) for v in sorted(versions)]
        if None not in verdicts and not any(verdicts):
            problems.append(Problem(f"{adapter.lockfile} locks {name} at {', '.join(sorted(versions))}, "
                                    f"outside {intent.spec!r} ({intent.intent_id})", change))
    return problems


def lock_diff(before: dict[str, set[str]], after: dict[str, set[str]], changes: tuple[Change, ...],
              members: set[str], graph: Mapping[str, Iterable[str]] | None = None,
              flags: tuple[Mapping[str, tuple[str, frozenset[str]]], Mapping[str, tuple[str, frozenset[str]]]]
              | None = None) -> LockDiff:
    """What the relock moved, and which of those moves no intent explains. A move is explained when
    an intent names the package, it is a workspace member, or (with the lockfile's dependency
    `graph`, before and after the relock) a package an intent names depends on it, directly or not:
    a bump carries its own dependencies along. With `flags` (each lockfile entry's install flags
    before and after, `ToolAdapter.locked_flags`), an entry kept at its place whose flags changed
    is a move too (npm's `"peer": true` dropped: the same version, installed otherwise)."""
    named = {(c.intent.package or c.intent.name).split(";")[0].strip() for c in changes}
    # Python lockfiles spell names normalized (`Flask_Login` is locked as `flask-login`).
    named |= {canonicalize_name(n) for n in named} & (set(before) | set(after))
    named |= members | reachable(graph or {}, named)
    removals = any(c.intent.op == Op.REMOVE_DEP for c in changes)
    added = tuple((n, tuple(sorted(after[n]))) for n in sorted(set(after) - set(before)))
    removed = tuple((n, tuple(sorted(before[n]))) for n in sorted(set(before) - set(after)))
    changed = tuple((n, tuple(sorted(before[n])), tuple(sorted(after[n])))
                    for n in sorted(set(before) & set(after)) if before[n] != after[n])
    unexplained = [f"{n}: {', '.join(a)} -> {', '.join(b)}" for n, a, b in changed if n not in named]
    if not removals:
        unexplained += [f"{n}: removed ({', '.join(v)})" for n, v in removed if n not in named]
    flagged = _flag_changes(*flags, named) if flags is not None else ()
    return LockDiff(added, removed, changed, tuple(unexplained), flagged)


def _flag_changes(before: Mapping[str, tuple[str, frozenset[str]]], after: Mapping[str, tuple[str, frozenset[str]]],
                  named: set[str]) -> tuple[str, ...]:
    """`name (entry): "peer" dropped` for each entry in both whose flags changed and whose package no
    intent explains (`named`, as for versions)."""
    out = []
    for key in sorted(set(before) & set(after)):
        (name, old), (_, new) = before[key], after[key]
        if old == new or name in named:
            continue
        moves = [f'"{flag}" dropped' for flag in sorted(old - new)] + [f'"{flag}" added' for flag in sorted(new - old)]
        out.append(f"{name} ({key}): {', '.join(moves)}")
    return tuple(out)
