"""The facts of a task's own change that its merge reads, computed where the task is finished.

Stage: a `wtc task finish` (coordinator/tasks.py), after its commit and boundary check and before
its merge takes any lock. A merge's post-merge check (merge.tree.check_tree_merge) and left-behind
look (left_behind.left_behind_at_merge) read, of the task's side, what depends on the task alone,
never on the integration tip: each changed file's versions parsed and extracted (definitions and
imports). A `wtc merge` drain read them in its serial section, for each merge; here they are
computed once, in the finishing agent's process (its own core: the finishes of a run's agents run
side by side), and kept in the merge index (merge_index.py: by content, on disk), where the merge
finds them (merge.tree._prefetch: one query a merge) whether it runs now in this process or later
in a drain. The work is moved off the serial section, not removed (docs/architecture.md, "Cost of
a merge").
Invariants: what is kept is what the readers compute, under the key and mode they ask (a version
that parses cleanly: the check's own extraction, uses=False, which the check's imports and the
look's definitions accept; one that does not: the look's own reading, LOOK_DEFINITIONS, which the
check never reads); the disk is a cache: a merge that finds nothing computes as before, and the
findings are the same either way (tests/check/test_task_facts.py).
"""

from __future__ import annotations

from typing import Any

from ..gitrepo.repository import GitRepo
from ..merge.checks.linked import reading_profile
from ..merge.checks.reach import added_words, gone_in_edit, near_words, reshaped_words, standing_words
from ..merge.checks.semantic import semantic_profile
from ..merge.checks.symbols import extract, fingerprint
from ..merge.checks.versions import MAX_BYTES
from .left_behind import MAX_CHANGED, _definitions_reader, _reshapes_reader, _specifiers_reader


def keep_task_facts(git: GitRepo, base: str, task_commit: str, kept: Any = None) -> int:
    """Extract every version (at `base` and at `task_commit`) of each file the task changed that a
    profile reads, into the merge index `kept` (default: the repository's, `<git common
    dir>/wtc/merge-index`), pending for its next write (`settle`): the caller writes them when no
    merge of its own follows. Returns how many versions were read (kept ones cost a lookup)."""
    if kept is None:
        from ..merge.checks.merge_index import index_folder, shared_index

        kept = shared_index(index_folder(git.repo))
    # At most the files a merge's look reads (MAX_CHANGED): a task that changed thousands (a
    # vendored tree) would pay for them all here, and its merge reads only the few a use reaches.
    # git's diff of the two trees, not the merge's own walk (merge.tree: the finish would load the
    # whole post-merge check with it); what the disk keeps of the versions already, loaded at once.
    changes = [c for c in git.changes(base, task_commit) if semantic_profile(c.path) is not None][:MAX_CHANGED]
    edits = [(fingerprint(semantic_profile(c.path)), *(None if oid is None else bytes.fromhex(oid)
                                                       for oid in (c.old_oid, c.new_oid))) for c in changes]
    kept.prefetch_edits(edits)
    look, reshapes = _definitions_reader(kept, on_disk=True), _reshapes_reader(kept, on_disk=True)
    specifiers = _specifiers_reader(kept)
    read = 0
    for change in changes:
        profile = semantic_profile(change.path)
        texts = {oid: git.read_blob(oid) for oid in (change.old_oid, change.new_oid) if oid is not None}
        for oid, data in texts.items():
            if len(data) > MAX_BYTES or reading_profile(change.path, data, profile) is not profile:
                continue   # (the readers decide those alone: never guessed at, or read by another profile)
            read += 1
            _keep_version(kept, profile, change.path, oid, data, look)
        if change.new_oid is not None and len(texts[change.new_oid]) <= MAX_BYTES:
            # Its words (reach.standing_words, by the blob): what the next tip's tables take in and
            # reach.py's pairing reads of the task's file, scanned here, not in the drain.
            data = texts[change.new_oid]
            kept.memo("words", bytes.fromhex(change.new_oid), lambda: standing_words(data), disk=True)
        if change.new_oid is not None and profile.semantic.specifiers and len(texts[change.new_oid]) <= MAX_BYTES:
            try:   # the modules the version loads (own_imports.py's question of each file the task wrote)
                specifiers(profile, texts[change.new_oid])
            except (ValueError, UnicodeDecodeError):
                pass   # (not kept: the look reads it again, and says so as it does)
        if change.old_oid is not None and change.new_oid is not None:
            # The functions the edit reshaped (the look's question of each edit), from both versions'
            # definitions as the look reads them (kept just above).
            before, after = texts[change.old_oid], texts[change.new_oid]
            reshapes(change.path, change.old_oid, change.new_oid, before, after,
                     (look(change.path, change.old_oid, before), look(change.path, change.new_oid, after)))
            # The words the edit took away, of the functions whose parameters it may have changed,
            # of the lines it added (the task's file as a user of the tip's) and of those it touched
            # with the lines above (as a candidate), as the check's pairing of files reads them
            # (reach.py, by the two blobs).
            pair = ("id", bytes.fromhex(change.old_oid), bytes.fromhex(change.new_oid))
            kept.memo("gone", pair, lambda: gone_in_edit(before, after), disk=True)
            kept.memo("reshaped-words", pair, lambda: reshaped_words(before, after), disk=True)
            kept.memo("added", pair, lambda: added_words(before, after), disk=True)
            kept.memo("near", pair, lambda: near_words(before, after), disk=True)
    # All of them again as one row, which the merge's prefetch reads first: one row and, of each
    # value, only what its check and look ask for unpickled (a row per fact, each unpickled, cost
    # a drain's merge more than its tip's side of reach.py: "Cost of a merge").
    kept.keep_task(edits)
    return read


def _keep_version(kept: Any, profile: Any, path: str, oid: str, data: bytes, look: Any) -> None:
    """One version's extraction kept: the check's (uses=False) for a clean parse, else the look's."""
    from ..merge.checks.merge_index import MISSING

    key = fingerprint(profile)
    if kept.known_symbols(key, bytes.fromhex(oid), (True, False)) not in (MISSING, None):
        return   # a clean parse's extraction is kept already (by this task's merge, or another task)
    try:
        tree = profile.parse(data)
        if tree.root_node.has_error:
            look(path, oid, data)   # what the check reads as nothing, the look reads as the parser did
            return
        kept.symbols(key, data, False, lambda: extract(profile, data, tree, uses=False))
    except (ValueError, UnicodeDecodeError):
        pass   # (not kept: each reader meets it, and answers for it, as before)
