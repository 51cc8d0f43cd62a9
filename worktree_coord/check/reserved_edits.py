"""From a finished task's changes to intents: what its edits of reserved files mean, key by key.

Stage: finish-time derivation. Input: the task's changes since its base, the boundary report
(reserved vs owned), and blob access. Output: `Intent`s (consolidation's model) and violations for
reserved edits consolidation could not carry, so no edit is ever dropped silently:
- a reserved manifest that does not parse strictly: `reserved_invalid`;
- a root-manifest edit no intent can express (a TOML or YAML date, the order of a
  requirements file's option lines; every other key of a root package.json, Cargo.toml or pyproject.toml
  is a `set_key` intent), or a comment no intent writes (uncarried_edits.py):
  `reserved_unexpressible` (make it in a member manifest, or unreserve it).
Owned member manifests merge through the merge engine and still ask their root for a relock.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Sequence

from ..consolidate import Intent, classify_path, derive_intents, find_root, unexpressed_changes
from ..consolidate.intent import Ecosystem, Op
from ..consolidate.uv_workspace import uv_lock_root
from ..consolidate.derive import detect_ecosystem
from ..errors import EditError, WtcError
from ..gitrepo import Change
from .uncarried_edits import uncarried_edits


def derive_task_intents(reserved: Sequence[Change], owned: Sequence[Change], *, task: str, since: str,
                        read_blob: Callable[[str], bytes], tree_paths: Callable[[], Iterable[str]],
                        read_path: Callable[[str], bytes | None] | None = None
                        ) -> tuple[list[Intent], list[dict[str, str]]]:
    """Intents for every reserved edit and every owned manifest edit; violations for the rest.
    `read_path` reads a file of the tree `tree_paths` lists (to find the uv workspace that locks an
    owned member manifest)."""
    member_manifests = [c for c in owned if (kind := classify_path(c.path)) is not None and kind.kind == "manifest"]
    if not reserved and not member_manifests:
        return [], []
    paths = frozenset(tree_paths())
    intents: list[Intent] = []
    violations: list[dict[str, str]] = []
    for change in list(reserved) + member_manifests:
        base = read_blob(change.old_oid) if change.old_oid else None
        new = read_blob(change.new_oid) if change.new_oid else None
        if classify_path(change.path) is None:
            continue  # a reserved pattern consolidation has no model for (a project's own addition)
        root = find_root(change.path, paths, read_path)
        if change not in reserved:
            # An owned manifest merged as ordinary code; all it asks of consolidation is a relock of
            # the root whose lockfile covers it, when there is one: for a uv workspace's member, the
            # workspace's, whatever lockfile the member keeps (the root consolidation relocks).
            if read_path is not None and detect_ecosystem(change.path, root, paths) is Ecosystem.UV:
                root = uv_lock_root(read_path, root)
            if _has_own_lockfile(root, change.path, paths):
                intents += _relock_request(change.path, base, new, task=task, root=root, since=since, paths=paths)
            continue
        try:
            lost = unexpressed_changes(change.path, base, new)
            if lost:
                violations.append({
                    "path": change.path, "rule": "reserved_unexpressible",
                    "detail": "consolidation cannot carry these edits of a reserved file: " + ", ".join(lost[:6])
                              + "; make them in a member manifest, or have the lead unreserve the file "
                                "(`reserved-remove` in .wtc.toml or [tool.worktree-coord])"})
                continue
            derived = derive_intents(change.path, base, new, task=task, root=root, base_commit=since,
                                     ecosystem=detect_ecosystem(change.path, root, paths))
            try:
                lost = uncarried_edits(change.path, base, new, derived)
            except EditError as error:
                violations.append({"path": change.path, "rule": "reserved_unexpressible",
                                   "detail": f"{error.message}; fix: {error.fix}"})
                continue
            if lost:
                violations.append({
                    "path": change.path, "rule": "reserved_unexpressible",
                    "detail": "consolidation carries a reserved manifest's keys, and a comment only with an entry "
                              "the task adds or changes (on its line, or on the lines just above it), so these "
                              "edits would be lost: " + "; ".join(lost[:6]) + (f" (and {len(lost) - 6} more)"
                                                                               if len(lost) > 6 else "")
                              + f"; take those edits out of {change.path} in the worktree (what it had at the task's "
                                f"base: `git show {since[:12]}:{change.path}`) and finish again: its key edits are "
                                "carried; or have the lead unreserve the file (`reserved-remove` in .wtc.toml or "
                                "[tool.worktree-coord])"})
                continue
            intents += derived
        except WtcError as error:
            violations.append({"path": change.path, "rule": "reserved_invalid",
                               "detail": _repaired(change.path, base, new, since) or _marked(change.path, new, since)
                               or error.message + (f"; fix: {error.fix}" if error.fix else "")})
    return _one_relock_per_root(intents), violations


def _repaired(path: str, base: bytes | None, new: bytes | None, since: str) -> str:
    """What to say of a reserved manifest whose version at the task's base does not read strictly while
    the task's does (the task repairs it), or "" (the task's version is the one that does not read).
    Found by the false block hunt on expressjs/express: f9256ef36fa9 took out the conflict markers its
    parent e5feb9fcc9ab had committed in package.json, and the check said "package.json holds git
    conflict markers", of the version the commit had just repaired. A repair is no key edit an intent
    carries onto the integration's copy (which does not read either), so it stays refused; said so."""
    if base is None or new is None or _strict_error(path, new) is not None:
        return ""
    error = _strict_error(path, base)
    if error is None:
        return ""
    return (f"{path} at the task's base ({since[:12]}) does not read strictly ({error.message}); the task's version "
            "does: it repairs the file, which consolidation cannot carry (it applies a reserved manifest's edits key by "
            f"key onto the integration's copy, unreadable too); fix: the lead repairs {path} on the integration branch "
            f"(or unreserves it, `reserved-remove` in .wtc.toml, so the repair merges as code), then finish again")


def _marked(path: str, new: bytes | None, since: str) -> str:
    """What to say of a task's reserved manifest holding conflict markers (a merge of its own, or one
    `task update` could not carry as intents), or "". Consolidation's own advice, take one side with
    `git checkout --theirs`, works only while a merge is open (finish has committed the file by
    then) and drops the task's edit either way: integration's side has none of it, and the task's
    side, finished against integration, would undo what integration holds. The file as the task's
    base holds it, with the task's edits made again on it, is what finish carries as intents."""
    from ..consolidate.textformat import CONFLICT_MARKER

    found = CONFLICT_MARKER.search(new) if new is not None else None
    if new is None or found is None:
        return ""
    line = new.count(b"\n", 0, found.start()) + 1
    return (f"{path} holds git conflict markers (line {line}); a reserved manifest is never text-merged, its edits are carried "
            f"key by key as intents from the version the task's changes are measured from; fix: write it back as that "
            f"version holds it (`git show {since[:12]}:{path} > {path}` at the checkout's top), make the task's own edits "
            f"of it again there, then finish again")


def _strict_error(path: str, data: bytes) -> WtcError | None:
    """The error consolidation's strict reader gives a manifest's bytes (conflict markers, a syntax error,
    a key twice in one object), None where it reads, or the format has no strict reader here."""
    from ..consolidate.textformat import load_json, load_toml, load_yaml, refuse_conflict_markers

    loaders: dict[str, Callable[[str, bytes], object]] = {
        "package.json": load_json, "cargo": load_toml, "pyproject": load_toml, "pnpm-workspace": load_yaml}
    kind = classify_path(path)
    load = loaders.get(kind.format) if kind is not None and kind.kind == "manifest" else None
    if load is None:
        return None
    try:
        refuse_conflict_markers(path, data)
        load(path, data)
    except WtcError as error:
        return error
    return None


def _one_relock_per_root(intents: list[Intent]) -> list[Intent]:
    """A task's relock requests of one root, one intent (they share its id: the store kept the last
    and the output named one member manifest of two), saying every manifest and what changed in it."""
    out: list[Intent] = []
    first: dict[str, int] = {}
    for intent in intents:
        if intent.op != Op.RELOCK or intent.intent_id not in first:
            if intent.op == Op.RELOCK:
                first[intent.intent_id] = len(out)
            out.append(intent)
            continue
        kept = out[first[intent.intent_id]]
        if intent.manifest != kept.manifest:
            out[first[intent.intent_id]] = dataclasses.replace(
                kept, rationale=f"{kept.rationale}; and {intent.manifest}: {intent.rationale}")
    return out


def unreadable_manifest_notes(changes: Sequence[Change], read_blob: Callable[[str], bytes]) -> list[str]:
    """A note per manifest the task changed that consolidation's strict reader refuses (a key twice
    in one object, a syntax error, conflict markers) where its version at the task's start read
    well. An owned member manifest merges as code and its grammar may still parse (a JSON object
    with a key twice does), so the merge says nothing, and the relock of its root fails at
    consolidation, after the task is gone (found driving wtc on pinia: a task added `"sideEffects"`
    to a package.json that had it; `wtc consolidate` then refused the root). A reserved manifest
    that does not read is a violation instead (`reserved_invalid`)."""
    notes: list[str] = []
    for change in changes:
        if change.new_oid is None:
            continue
        error = _strict_error(change.path, read_blob(change.new_oid))
        if error is None or (change.old_oid and _strict_error(change.path, read_blob(change.old_oid)) is not None):
            continue
        notes.append(f"{change.path}: {error.message}: consolidation reads it strictly and will refuse its root as "
                     "it is: fix it (before this task merges, in its worktree; after, in a task that owns the file)")
    return notes


def _has_own_lockfile(root: str, manifest: str, paths: frozenset[str]) -> bool:
    """Whether `root` holds a lockfile of the manifest's own tool: a setuptools pyproject.toml beside
    another tool's lockfile (a package-lock.json, a pixi.lock) has nothing for consolidation to
    relock, and a relock asked for it would make uv write a uv.lock the project never had."""
    from ..consolidate.names import own_lockfiles

    prefix = f"{root}/" if root else ""
    return any(f"{prefix}{name}" in paths for name in own_lockfiles(manifest))


def _relock_request(path: str, base: bytes | None, new: bytes | None, *, task: str, root: str, since: str,
                    paths: frozenset[str]) -> list[Intent]:
    try:
        derived = derive_intents(path, base, new, task=task, root=root, base_commit=since,
                                 ecosystem=detect_ecosystem(path, root, paths))
    except WtcError:
        return []  # e.g. a member manifest deleted with its package: the relock of its root is still needed
    relocks = [i for i in derived if i.op.value == "relock"]
    if derived and not relocks:
        # The manifest is its own root's (services/api/pyproject.toml beside services/api/uv.lock):
        # derive read it key by key, as a root's; owned, it merged as code, and its lockfile still
        # needs the relock (found driving wtc on pydantic: pydantic-core/pyproject.toml, beside
        # pydantic-core/uv.lock, gained a dependency; no relock was asked, the lock stayed stale).
        first = derived[0]
        relocks = [dataclasses.replace(first, intent_id=f"{task}:{root or '.'}:relock:{first.ecosystem.value}",
                                       op=Op.RELOCK, group="", name="", spec=None, source=None, extras=(),
                                       features=(), markers=None, package=None, options=(), expected_before=None,
                                       rationale="owned manifest changed")]
    return relocks
