"""Comment lines a task wrote just above an entry it added or changed, or at the end of an unchanged
line beside it, carried with that entry's intent; and the comment lines just above an entry it
removed, taken out with it.

Stage: derive (`attach`: which intent a new comment block belongs to) and apply (`carry`: the block
written back above the entry the editor or the tool wrote). Input: the manifest's path, its bytes
before and after (the task's base and result at derive; the file before and after one intent's edit
at apply) and the intents. Output: intents whose `placement` holds `comment` (the block's lines as
the task wrote them), `comment_at` (the entry's lines as the task wrote them, stripped: where the block goes) and
`comment_replaces` (the comment lines the task replaced there, stripped); and the edited bytes with
the block above the entry.

Why: intents are key-level, so a comment line is no key's value; a requirement's own trailing comment
already rides with its entry's text (placement `text`), but a comment on the line above a dependency
(`# 8.4: the fixture fix` over `pytest==8.4.1`, `<!-- for the CLI -->` over a `<dependency>`) was
refused at finish (`reserved_unexpressible`), where a person expects it to land with the entry.
Rule: a block of comment-only lines the task added directly above (no blank line between) the first
line of an entry that exactly one intent's edit writes, as the task wrote it, goes with that intent;
any other comment is left to the finish's check (check/uncarried_edits.py), which names it.
Removal: the comment-only lines directly above an entry a remove intent takes out, which the task
took out too (starlette's `# TODO: Remove when trio is updated.` over `attrs==23.2.0`), go with it:
placement `comment_removes` (those lines, stripped), and `comment_blank` when the task took a blank
line beside them too (the comment and entry were a paragraph of their own). A heading the task kept
above the first entry under it stays. The remove left the comment behind, above the next entry, and
the finish refused the task.
Beside: a comment the task put at the end of a line it left as it was otherwise, in the block (no
blank line between) of the lines one intent's edit writes, goes with that intent (`comment_beside`):
starlette's `ignore = ["UP031"] # link` below the `select` it rewrote.
"""

from __future__ import annotations

import dataclasses
import re
from difflib import SequenceMatcher
from typing import Callable, Sequence

from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.errors import WtcError

# A line that is a comment and nothing else, per manifest format (manifests.classify_path): TOML,
# YAML and pip's `#`, go's `//`, a one-line XML comment.
_HASH = re.compile(r"^\s*#")
COMMENT_LINE = {
    "requirements": _HASH, "cargo": _HASH, "pyproject": _HASH, "pixi": _HASH, "gradle-catalog": _HASH,
    "pnpm-workspace": _HASH, "go.mod": re.compile(r"^\s*//"), "go.work": re.compile(r"^\s*//"),
    "pom": re.compile(r"^\s*<!--.*-->\s*$"),
}


def _pattern(path: str) -> re.Pattern[str] | None:
    from worktree_coord.consolidate.manifests import classify_path

    kind = classify_path(path)
    return COMMENT_LINE.get(kind.format) if kind is not None else None


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines()


def _changed(before: list[str], after: list[str]) -> tuple[set[int], list[tuple[str, int, int, int, int]]]:
    """The indexes of `after`'s lines an edit inserted or rewrote, and the edit's opcodes."""
    codes = SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    return {j for tag, _, _, j1, j2 in codes if tag in ("insert", "replace") for j in range(j1, j2)}, codes


def attach(path: str, base: bytes | None, new: bytes | None, intents: Sequence[Intent],
           edit: Callable[[str, bytes, Intent], bytes]) -> list[Intent]:
    """`intents` with each new comment block put on the intent whose entry it sits above; `edit(path,
    data, intent)`: the intent's edit alone, no comment carried (edits/common.py's, passed in: that
    module carries comments with this one's `carry`)."""
    pattern = _pattern(path)
    if pattern is None or base is None or new is None:
        return list(intents)
    old_lines, new_lines = _lines(base), _lines(new)
    out = _removed(path, base, old_lines, new_lines, intents, edit, pattern)
    out = _trailing(path, base, old_lines, new_lines, out, edit, pattern)
    if not any(pattern.match(line) for line in set(new_lines) - set(old_lines)):
        return out          # no comment line the base lacks: no line diff of the whole file
    added, codes = _changed(old_lines, new_lines)
    for at in range(1, len(new_lines)):
        line = new_lines[at]
        if not line.strip() or pattern.match(line) or not (at - 1 in added and pattern.match(new_lines[at - 1])):
            continue
        start = at - 1
        while start > 0 and start - 1 in added and pattern.match(new_lines[start - 1]):
            start -= 1
        found = _owner(path, base, new_lines, at, out, edit)
        if found is None:
            continue        # no one intent writes the line below: the finish's check names the comment
        owner, run = found
        replaced = _replaced(old_lines, codes, start, pattern)
        placement = dict(out[owner].placement) | {"comment": tuple(new_lines[start:at]),
                                                  "comment_at": tuple(line.strip() for line in new_lines[at:at + run]),
                                                  "comment_replaces": replaced}
        out[owner] = dataclasses.replace(out[owner], placement=tuple(placement.items()))
    return out


REMOVES = (Op.REMOVE_DEP, Op.REMOVE_KEY)


def _removed(path: str, base: bytes, old_lines: list[str], new_lines: list[str], intents: Sequence[Intent],
             edit: Callable[[str, bytes, Intent], bytes], pattern: re.Pattern[str]) -> list[Intent]:
    """`intents` with each remove whose entry had comment lines directly above it, which the task
    took out as well, holding those lines (`comment_removes`) and whether a blank line beside them
    went too (`comment_blank`)."""
    out = list(intents)
    removes = [index for index, intent in enumerate(out) if intent.manifest == path and intent.op in REMOVES]
    if not removes or not any(pattern.match(line) for line in set(old_lines) - set(new_lines)):
        return out          # the task took out no comment line: no line diff of the whole file
    _, codes = _changed(old_lines, new_lines)
    gone = {i for tag, i1, i2, _, _ in codes if tag in ("delete", "replace") for i in range(i1, i2)}
    for index in removes:
        try:
            span = _taken(old_lines, _lines(edit(path, base, out[index])))
        except WtcError:
            continue
        if span is None:
            continue
        first, end = span
        start = first
        while start > 0 and pattern.match(old_lines[start - 1]):
            start -= 1
        if start == first or not all(i in gone for i in range(start, first)):
            continue        # no comment above the entry, or the task kept it (a heading over the group)
        blank = any(0 <= i < len(old_lines) and not old_lines[i].strip() and i in gone for i in (start - 1, end))
        placement = dict(out[index].placement) | {
            "comment_removes": tuple(line.strip() for line in old_lines[start:first]), "comment_blank": blank}
        out[index] = dataclasses.replace(out[index], placement=tuple(placement.items()))
    return out


def _taken(before: list[str], after: list[str]) -> tuple[int, int] | None:
    """The span of `before`'s lines an edit took out (the first deletion), None when it took none."""
    _, codes = _changed(before, after)
    return next(((i1, i2) for tag, i1, i2, _, _ in codes if tag == "delete"), None)


def _drop(before: bytes, after: bytes, intent: Intent) -> bytes:
    """`after` (the file once the intent's entry is taken out) without the comment lines that were
    directly above that entry, and a blank line beside them when the task took one (two blank lines
    left in a row, or one at an end of the file); `after` as it is when those lines are not there."""
    where = dict(intent.placement)
    block = list(where.get("comment_removes") or ())
    lines = _lines(after)
    span = _taken(_lines(before), lines)
    if not block or span is None:
        return after
    at = span[0]            # where the entry was, in `after`'s lines too (everything above is equal)
    start = at - len(block)
    if start < 0 or [line.strip() for line in lines[start:at]] != block:
        return after
    del lines[start:at]
    if where.get("comment_blank"):
        above = start > 0 and not lines[start - 1].strip()
        below = start < len(lines) and not lines[start].strip()
        if above and (below or start == len(lines)):
            del lines[start - 1]
        elif below and start == 0:
            del lines[start]
    return _joined(after.decode("utf-8"), lines)


def _joined(text: str, lines: list[str]) -> bytes:
    """`lines` written back with `text`'s end of line and final newline."""
    eol = "\r\n" if "\r\n" in text else "\n"
    out = eol.join(lines)
    if text.endswith(("\n", "\r")) and lines:
        out += eol
    return out.encode("utf-8")


def _trailing(path: str, base: bytes, old_lines: list[str], new_lines: list[str], intents: Sequence[Intent],
              edit: Callable[[str, bytes, Intent], bytes], pattern: re.Pattern[str]) -> list[Intent]:
    """`intents` with each comment the task put at the end of a line it left as it was otherwise
    (`ignore = ["UP031"] # printf-string-formatting`) held by the one intent whose edit writes lines
    of the same block (no blank line between): `comment_beside`, the (line, line with its comment)
    pairs, stripped. A line beside no edit, or beside two intents' edits, is left to the finish's check."""
    out = list(intents)
    bare = {line.rstrip() for line in old_lines if line.strip()}
    commented: dict[str, str] = {}         # the base's line -> the task's, with its comment
    for line in set(new_lines) - set(old_lines):
        for space in re.finditer(r"\s+", line):
            head, tail = line[:space.start()], line[space.start():]
            if head in bare and not pattern.match(head) and pattern.match(tail):
                commented[head] = line
                break
    if not commented:
        return out
    _, codes = _changed(old_lines, new_lines)
    for tag, i1, i2, j1, j2 in codes:
        if tag != "replace":
            continue
        for i in range(i1, i2):
            j = next((j for j in range(j1, j2) if new_lines[j] == commented.get(old_lines[i].rstrip())), None)
            if j is None:
                continue
            owners = [index for index, intent in enumerate(out) if intent.manifest == path
                      and intent.op not in REMOVES and intent.op != Op.RELOCK
                      and _edits_beside(old_lines, base, path, intent, edit, i)]
            if len(owners) != 1:
                continue
            where = dict(out[owners[0]].placement)
            pairs = tuple(where.get("comment_beside") or ()) + ((old_lines[i].strip(), new_lines[j].strip()),)
            where["comment_beside"] = pairs
            out[owners[0]] = dataclasses.replace(out[owners[0]], placement=tuple(where.items()))
    return out


def _edits_beside(old_lines: list[str], base: bytes, path: str, intent: Intent,
                  edit: Callable[[str, bytes, Intent], bytes], at: int) -> bool:
    """Whether the intent's edit of `base` alone writes a line of the block (lines with no blank one
    between) holding the base's line `at`."""
    try:
        edited = _lines(edit(path, base, intent))
    except WtcError:
        return False
    changed, codes = _changed(old_lines, edited)
    where = next((j1 + at - i1 for tag, i1, i2, j1, _ in codes if tag == "equal" and i1 <= at < i2), None)
    return where is not None and _in_block(edited, changed, where)


def _in_block(lines: list[str], changed: set[int], at: int) -> bool:
    """Whether a line of `changed` is in the block of `lines` (no blank line between) holding `at`."""
    for step in (-1, 1):
        j = at + step
        while 0 <= j < len(lines) and lines[j].strip():
            if j in changed:
                return True
            j += step
    return False


def _beside(before: bytes, after: bytes, intent: Intent) -> bytes:
    """`after` with each comment the task put at the end of an unchanged line beside the intent's
    entry (`comment_beside`) written there, on the line of the entry's block that reads as the base's."""
    pairs = dict(intent.placement).get("comment_beside")
    if not pairs:
        return after
    text = after.decode("utf-8")
    lines = text.splitlines()
    changed, _ = _changed(_lines(before), lines)
    for bare, full in pairs:
        for j, line in enumerate(lines):
            if line.strip() == bare and _in_block(lines, changed, j):
                lines[j] = line[:len(line) - len(line.lstrip())] + full
                break
    return _joined(text, lines)


def _owner(path: str, base: bytes, new_lines: list[str], at: int, intents: Sequence[Intent],
           edit: Callable[[str, bytes, Intent], bytes]) -> tuple[int, int] | None:
    """The index of the one intent whose edit of `base` writes the task's line `at` (and the most of
    the lines after it, as the task wrote them: two `<dependency>` blocks are told apart by their
    `<artifactId>`), with the number of lines it writes so; None when none does or two do equally."""
    base_lines = _lines(base)
    scores: list[tuple[int, int]] = []
    for index, intent in enumerate(intents):
        if intent.manifest != path or intent.op in (Op.RELOCK, Op.REMOVE_DEP, Op.REMOVE_KEY, Op.REMOVE_MEMBER,
                                                    Op.REMOVE_OVERRIDE):
            continue
        try:
            edited = _lines(edit(path, base, intent))
        except WtcError:
            continue
        changed, _ = _changed(base_lines, edited)
        best = max((len(run) for run in _runs(base_lines, edited, new_lines[at:])
                    if any(j in changed for j in run)), default=0)
        if best:
            scores.append((best, index))
    scores.sort(reverse=True)
    if not scores or (len(scores) > 1 and scores[0][0] == scores[1][0]):
        return None
    return scores[0][1], scores[0][0]


def _runs(before: list[str], after: list[str], wanted: Sequence[str]) -> list[tuple[int, ...]]:
    """Where in `after` (an edit of `before`) the lines `wanted` start, as far as they match
    (stripped), at most as many lines as the edit wrote: each run as the indexes of its lines, those
    holding a line the edit wrote first. Found by text, not among the changed lines alone: a line
    diff of a block inserted beside one of the same shape (`<dependency>` ... before `<dependency>`
    ...) may call some of its lines the other block's."""
    changed, _ = _changed(before, after)
    most = max(1, len(changed))
    touching, others = [], []
    for j, line in enumerate(after):
        if not wanted or line.strip() != wanted[0].strip():
            continue
        length = 1
        while j + length < len(after) and length < min(len(wanted), most) and \
                after[j + length].strip() == wanted[length].strip():
            length += 1
        (touching if any(j + k in changed for k in range(length)) else others).append(tuple(range(j, j + length)))
    return touching + others


def _replaced(old_lines: list[str], codes: list[tuple[str, int, int, int, int]], start: int,
              pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The base's comment lines the task's edit took out where it wrote the block (its comment
    above the entry rewritten), stripped."""
    for tag, i1, i2, j1, j2 in codes:
        if tag == "replace" and j1 <= start < j2:
            taken = []
            for line in old_lines[i1:i2]:
                if not pattern.match(line):
                    break
                taken.append(line.strip())
            return tuple(taken)
    return ()


def carry(path: str, before: bytes, after: bytes, intent: Intent) -> bytes:
    """`after` (the file once the intent's entry is written) with the intent's comment block on the
    lines above that entry, in place of the comment it replaces (for a remove: without the comment
    lines that were above the entry it took out); `after` as it is when the intent carries none."""
    if intent.op in REMOVES:
        return _drop(before, after, intent)
    return _beside(before, _above(before, after, intent), intent)


def _above(before: bytes, after: bytes, intent: Intent) -> bytes:
    """`after` with the intent's comment block (`comment`) above its entry."""
    where = dict(intent.placement)
    block, anchor = where.get("comment"), where.get("comment_at")
    if not block or not anchor:
        return after
    text = after.decode("utf-8")
    lines = text.splitlines()
    wanted = [anchor] if isinstance(anchor, str) else list(anchor)
    # The entry as the task wrote it; else (a tool wrote it its own way) the line the edit wrote that
    # starts as the task's did; else the first line it wrote: the comment is never dropped.
    found = _runs(_lines(before), lines, wanted)
    changed, _ = _changed(_lines(before), lines)
    runs = [run for run in found if len(run) == len(wanted)] or [run for run in found if run[0] in changed] \
        or [(j,) for j in sorted(changed)[:1]]
    if not runs:
        return after        # the edit wrote nothing: the entry is as the intent wants it already
    at = runs[0][0]
    if [line.strip() for line in lines[max(0, at - len(block)):at]] == [line.strip() for line in block]:
        return after
    replaces = list(where.get("comment_replaces") or ())
    start = at - len(replaces) if replaces and [line.strip() for line in lines[max(0, at - len(replaces)):at]] \
        == replaces else at
    lines[start:at] = list(block)
    return _joined(text, lines)
