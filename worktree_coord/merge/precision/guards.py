"""Precision guards: shapes of a three-way merge where the three inputs cannot tell the right
result, so a clean result that resolves what git's line merge could not is not trusted there.

Stage: the cascade's last check (cascade.py), on a clean structured, data or Python-union result
whose line merge conflicted. Input: the language profile, base/left/right bytes and the line
merge's conflict blocks. Output: None (trust the result) or a sentence saying why not; the
cascade then keeps the line merge's conflicts and records the sentence in `FileMerge.notes`.

Each guard is a rule a reviewer would accept on sight, measured on real merge commits
(docs/merge-precision.md, "Precision guards in force": what each guard stops, by verdict): it must
remove more wrong merges than right ones.
  * generated: an input says in its first lines that it is generated ("Code generated ... DO NOT
    EDIT", "@generated", "automatically generated"): generated code is regenerated from its source,
    and a merge of two generators' outputs is neither's output.
  * release_lines: in a data file (a version catalog, a package manifest), one block git could not
    merge holds version bumps of different entries by both sides, where one side only moved
    entries to patch releases of their line (a maintenance branch) and the other moved an entry to
    a new minor or major release (a development line). That is a forward-port between release
    lines; whether the maintenance line's bumps belong on the newer line is the maintainers' call
    (projects often keep the newer line's versions), so it stays a conflict.

  * release_train: in a data file (a package manifest), one block git could not merge where one
    side moved two or more entries' versions in one release train (each line only its version
    changed, and the side's new versions replace old ones) while the other side added an entry
    whose version is one of the versions the first side moved away from. The new entry was written
    against the release the other side left (jupyterlab's package.json: one side bumps every
    `@jupyterlab/*` to alpha.11, the other adds `@jupyterlab/mainmenu` at alpha.10); whether it
    belongs at the old version, the new one, or at all is the maintainers' call. Found on
    jupyterlab/jupyterlab (the generalisation corpus, issue 39).

  * deleted_vs_edited: in a data file, one block git could not merge whose lines one side
    deleted, all of them, while the other side changed some of them (rewrote or removed a line,
    not only inserted next to them): a delete/modify at the level of lines. A data merge sees keys,
    and a key both sides dropped (one deleting it, the other commenting it out or moving it) looks
    agreed while the two sides did different things to the same lines; which one stands is the
    developers' call.

  * section_owner: both sides inserted at one place and one side's insertion opens a section (a
    line the profile's `section_opener` matches: a Markdown heading): the other side's text may continue the section above or belong under the
    new heading, and a merge keyed by sections puts it above. The replay eval found it (fastapi's
    contributing.md: a heading placed after the bullets the new release puts under it). Not when
    both sides' text opens with the same heading line: both wrote under it (one `## Unreleased`
    both sides opened), and the structured merge merges the two as one section or conflicts.

  * comment_over_head (by shape of resolution): a git conflict the structured merge settled by
    taking one member's leading lines from one side and the member from the other, where one side
    wrote a new comment or attribute line over the member and the other rewrote the member's first
    line (its signature): the comment was written for the old line (a parameter list it documents,
    a lint it silences: diesel's `#[allow(clippy::needless_lifetimes)]` over a signature the other
    side rid of the lifetimes), and whether it still holds cannot be told.

  * data_delete_next_to_insert (by shape of resolution): in a data file (a manifest, a locale
    table, a workflow), a git conflict the structured merge settled as a union of members where one
    side only deleted entries and the other only inserted entries next to them. Whether the
    deletion stands (a dependency dropped, a key retired) or was undone because the other side's
    new entries still need what it removed is the developers' call: on the generalisation corpus
    (issue 39) the union agreed with the committed file on 7 of 15 files over 11 repositories
    (6 of the 8 others different in content: bevy's `subpixel_glyph_atlas` feature and
    excalidraw's `roomDialog` string deleted on one side and kept by the developers).

Guards by shape of resolution read the result's provenance (FileMerge.trace, provenance.py): which
rule settled each git conflict region; that is the engine's account of the inputs, not the result's
bytes.

Invariants: a guard only ever turns a clean result into the line merge's conflicts, never the
other way; it reads the inputs only (never the result), so it explains itself from them.
`disabled` exists for measurement (`scripts/eval_merge_quality.py --without NAME`); the product
never sets it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from . import provenance
from .provenance import Region
from ..result import FileMerge, MergeConflict, Strategy
from ..languages.profiles import Profile
from ..syntax.structured import COMMENT_OVER_HEAD

disabled: set[str] = set()

# Conventional "this file is generated" markers, looked for in comment lines at the top of a file.
_GENERATED = re.compile(r"\bDO NOT EDIT\b|\bDO NOT MODIFY\b|@generated\b|\bCode generated\b|"
                        r"\bauto-?generated\b|\bautomatically generated\b", re.IGNORECASE)
_COMMENT_OPENERS = ("#", "//", "/*", "*", "--", ";", "<!--", "'''", '"""')
_HEAD_LINES = 10

# A version: dotted numbers, maybe with a pre-release or build suffix (1.9.22.1, 2.0.0-rc.1, 6.4.8.Final).
_VERSION = re.compile(r"\d+(?:\.\d+)+(?:[-.+][0-9A-Za-z][0-9A-Za-z.-]*)?")


def distrust(profile: Profile | None, base: bytes, left: bytes, right: bytes,
             conflicts: Sequence[MergeConflict], *, skip: frozenset[str] = frozenset(),
             trace: Sequence[tuple[str, int, int]] = ()) -> str | None:
    """Why a clean merge of these inputs must not be trusted where git's line merge conflicted
    (the blocks in `conflicts`), or None; the guards named in `skip` do not apply to this file
    (a file kind that says so, grammars/append/kinds.toml). `trace` is the clean result's
    provenance (FileMerge.trace): which rule of the structured merge settled which base bytes."""
    for name, guard in _GUARDS:
        if name in disabled or name in skip:
            continue
        why = guard(profile, (base, left, right), conflicts) if name not in _BY_SHAPE \
            else _BY_SHAPE[name](profile, (base, left, right), trace)
        if why:
            return f"{name}: {why}"
    return None


def _generated(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
               conflicts: Sequence[MergeConflict]) -> str | None:
    for data in inputs:
        for line in data[:4000].decode("utf-8", "replace").splitlines()[:_HEAD_LINES]:
            stripped = line.strip()
            if stripped.startswith(_COMMENT_OPENERS) and _GENERATED.search(stripped):
                return f"the file says it is generated ({stripped[:80]!r}): regenerate it instead of merging"
    return None


def _bumps(base: str, side: str) -> list[tuple[str, str]]:
    """(old line, new line) pairs where the side changed only version numbers on a line."""
    old, new = base.splitlines(), side.splitlines()
    pairs: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            pairs.extend((a, b) for a, b in zip(old[i1:i2], new[j1:j2])
                         if _VERSION.search(a) and _VERSION.sub("0", a) == _VERSION.sub("0", b))
    return pairs


def _patch_only(pair: tuple[str, str]) -> bool:
    """The first version on the line kept its major and minor number (1.9.23 -> 1.9.24)."""
    before, after = (_VERSION.search(line) for line in pair)
    assert before is not None and after is not None
    return re.split(r"[.+-]", before.group())[:2] == re.split(r"[.+-]", after.group())[:2]


def _release_lines(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
                   conflicts: Sequence[MergeConflict]) -> str | None:
    if profile is None or not profile.data:
        return None
    for block in conflicts:
        ours, theirs = _bumps(block.base, block.ours), _bumps(block.base, block.theirs)
        # A bump both sides made alike is no disagreement: only each side's own bumps count.
        own = {"ours": [pair for pair in ours if pair not in theirs], "theirs": [pair for pair in theirs if pair not in ours]}
        for patch_side, line_side in (("ours", "theirs"), ("theirs", "ours")):
            patches, moves = own[patch_side], own[line_side]
            if patches and moves and all(_patch_only(pair) for pair in patches) \
                    and not all(_patch_only(pair) for pair in moves):
                moved = next(pair for pair in moves if not _patch_only(pair))
                return (f"{line_side} moved {moved[0].strip()[:60]!r} to a new release line while {patch_side} only "
                        f"bumped patch releases next to it ({patches[0][0].strip()[:60]!r}): a forward-port whose "
                        f"versions are the maintainers' call")
    return None


def _release_train(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
                   conflicts: Sequence[MergeConflict]) -> str | None:
    if profile is None or not profile.data:
        return None
    for block in conflicts:
        base_lines = {line.strip() for line in block.base.splitlines()}
        for mover, moved_text, adder, added_text in (("ours", block.ours, "theirs", block.theirs),
                                                     ("theirs", block.theirs, "ours", block.ours)):
            moves = [pair for pair in _bumps(block.base, moved_text) if pair[0].strip() != pair[1].strip()]
            if len(moves) < 2:
                continue
            left_behind = {match.group() for old, _new in moves if (match := _VERSION.search(old))}
            for line in added_text.splitlines():
                if line.strip() in base_lines:
                    continue
                version = _VERSION.search(line)
                if version is not None and version.group() in left_behind:
                    return (f"{mover} moved {len(moves)} entries to new releases ({moves[0][0].strip()[:50]!r} -> "
                            f"{moves[0][1].strip()[:50]!r}) while {adder} added {line.strip()[:60]!r} at a version "
                            f"{mover} moved away from: which version the new entry needs cannot be told")
    return None


def _deleted_vs_edited(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
                       conflicts: Sequence[MergeConflict]) -> str | None:
    if profile is None or not profile.data:
        return None
    for block in conflicts:
        base = block.base.splitlines()
        if not any(line.strip() for line in base):
            continue
        for deleter, deleted, editor, edited in (("ours", block.ours, "theirs", block.theirs),
                                                 ("theirs", block.theirs, "ours", block.ours)):
            if deleted.strip():
                continue
            opcodes = difflib.SequenceMatcher(None, base, edited.splitlines(), autojunk=False).get_opcodes()
            touched = next(((i1, j1, j2) for tag, i1, _i2, j1, j2 in opcodes if tag in ("replace", "delete")), None)
            if touched is not None:
                i1, j1, j2 = touched
                now = edited.splitlines()[j1].strip()[:60] if j2 > j1 else "(removed)"
                return (f"{deleter} deleted every line of the block, {base[i1].strip()[:60]!r} among them, while "
                        f"{editor} changed that line ({now!r}): a delete/modify the data merge would settle silently")
    return None


def _section_owner(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
                   conflicts: Sequence[MergeConflict]) -> str | None:
    # What opens a section is the profile's data (Markdown: a heading; grammars/markdown.toml).
    starts_section = profile.section_opener if profile is not None else None
    if starts_section is None:
        return None
    for block in conflicts:
        if block.base.strip() or not (block.ours.strip() and block.theirs.strip()):
            continue   # only both sides inserting at one place
        firsts = {next(line.strip() for line in text.splitlines() if line.strip()) for text in (block.ours, block.theirs)}
        if len(firsts) == 1 and starts_section.match(next(iter(firsts))):
            continue   # both open the same section (`## Unreleased`): each side's text is under that heading
        for opener, text, other in (("ours", block.ours, "theirs"), ("theirs", block.theirs, "ours")):
            heading = next((line for line in text.splitlines() if starts_section.match(line)), None)
            if heading is not None:
                return (f"{opener} starts a section here ({heading.strip()[:60]!r}) where {other} adds text: "
                        f"whether {other}'s text belongs above the new heading or under it cannot be told")
    return None


def _settled_by(rule: str, inputs: tuple[bytes, bytes, bytes], trace: Sequence[tuple[str, int, int]]) -> Region | None:
    """The first git conflict region of the inputs that `rule` settled (provenance.py), or None."""
    if not any(name == rule for name, _start, _end in trace):
        return None   # the common case: no need to compute git's regions
    return next((region for region in provenance.regions(*inputs, FileMerge(b"", True, Strategy.STRUCTURED,
                                                                                trace=tuple(trace)))
                 if rule in region.rules), None)


def _comment_over_head(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
                       trace: Sequence[tuple[str, int, int]]) -> str | None:
    region = _settled_by(COMMENT_OVER_HEAD, inputs, trace)
    if region is None:
        return None
    head = next((line.strip() for line in region.base if line.strip() and not line.strip().startswith(
        _COMMENT_OPENERS + ("@", "#["))), (region.base or ("",))[0].strip())
    return (f"one side wrote a comment or attribute over {head[:60]!r} while the other rewrote that line: "
            f"whether what it says still holds for the new line cannot be told")


# The rule (provenance.py's name) a data union of members records where one side only deleted
# members and the other only inserted next to them (member_diff.group_shape).
DATA_DELETE_NEXT_TO_INSERT = "data: union of members: delete next to insert"


def _data_delete_next_to_insert(profile: Profile | None, inputs: tuple[bytes, bytes, bytes],
                                trace: Sequence[tuple[str, int, int]]) -> str | None:
    region = _settled_by(DATA_DELETE_NEXT_TO_INSERT, inputs, trace)
    if region is None:
        return None
    # The deleting side wrote no line of its own in the region; the inserting side did.
    ours_only_base = set(region.ours) <= set(region.base)
    deleter, inserter = ("ours", "theirs") if ours_only_base else ("theirs", "ours")
    kept = region.ours if ours_only_base else region.theirs
    gone = next((line.strip() for line in region.base if line.strip() and line not in kept), "")
    return (f"{deleter} deleted entries ({gone[:60]!r}) where {inserter} inserted entries next to them: whether "
            f"the deletion stands or the new entries still need what it removed cannot be told")


_BY_SHAPE: dict[str, Callable[[Profile | None, tuple[bytes, bytes, bytes], Sequence[tuple[str, int, int]]], str | None]] = {
    "comment_over_head": _comment_over_head,
    "data_delete_next_to_insert": _data_delete_next_to_insert,
}

_GUARDS: tuple[tuple[str, Callable[[Profile | None, tuple[bytes, bytes, bytes], Sequence[MergeConflict]], str | None]], ...] = (
    ("generated", _generated),
    ("release_lines", _release_lines),
    ("release_train", _release_train),
    ("deleted_vs_edited", _deleted_vs_edited),
    ("section_owner", _section_owner),
    ("comment_over_head", lambda *_: None),   # by shape of resolution: _BY_SHAPE
    ("data_delete_next_to_insert", lambda *_: None),
)
GUARD_NAMES = tuple(name for name, _ in _GUARDS)
