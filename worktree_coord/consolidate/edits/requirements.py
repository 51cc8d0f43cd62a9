"""requirements*.in / requirements*.txt edits: one entry (a logical line: a requirement, an editable or
path install, an option) per intent, everything else kept as is (requirements_file.py reads them)."""

from __future__ import annotations

import re

from worktree_coord.consolidate.edits.placement import slot, written_text
from worktree_coord.consolidate.edits.pyproject import requirement_text
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.requirements_file import (COMMENT, OPTIONS_GROUP, REQUIREMENTS_GROUP, entries,
                                                           entry_text)
from worktree_coord.consolidate.textformat import ManifestParseError
from worktree_coord.errors import EditError


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    if intent.op not in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP):
        raise EditError(f"{path}: intent {intent.intent_id} ({intent.op.value}) has no requirements-file form")
    if intent.group not in (REQUIREMENTS_GROUP, OPTIONS_GROUP):
        raise EditError(f"{path}: intent {intent.intent_id} names the group {intent.group!r}",
                        fix=f"a requirements file's groups are {REQUIREMENTS_GROUP} and {OPTIONS_GROUP}")
    text = data.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    final_newline = text.endswith(("\n", "\r"))
    found = entries(text, path)
    hits = [e for e in found if e.key == (intent.group, intent.name)]
    if intent.op == Op.REMOVE_DEP:
        for entry in reversed(hits):
            del lines[entry.start:entry.end]
    else:
        new = _entry_lines(path, intent, hits[0].value.text if hits else None)
        if hits:
            entry = hits[0]
            first = lines[entry.start]
            # a comment after a one-line entry stays with it, unless the task wrote the entry's own
            comment = first[first.index(" #"):] if entry.end - entry.start == 1 and " #" in first else ""
            if not COMMENT.search(new[-1]):
                new[-1] += comment
            lines[entry.start:entry.end] = new
        else:
            group = [e for e in found if e.key[0] == intent.group]
            if group:
                at = slot([e.key[1] for e in group], intent, intent.name)
                # right after the entry the task wrote it after: before the next one's line, it went
                # under that one's heading (`# Documentation`), out of the paragraph the task put it in
                after = at > 0 and group[at - 1].key[1] in dict(intent.placement).get("after", ())
                position = group[at].start if at < len(group) and not after else group[at - 1].end
            elif intent.group == OPTIONS_GROUP and found:
                position = found[0].start        # options first, as pip-compile writes them
            else:
                position = len(lines)
            lines[position:position] = new
    out = eol.join(lines)
    if final_newline or not text:
        out += eol
    return out.encode("utf-8")


def _entry_lines(path: str, intent: Intent, replaced: str | None) -> list[str]:
    """The lines of the intent's entry: as the task wrote it when that reads as the intended value
    (hashes aside: they are written one a line), else built from the intent."""
    from worktree_coord.consolidate.planning import intent_dep_value

    options = dict(intent.options)
    written = written_text(intent)
    if written is not None and not options.get("hashes"):
        try:
            read = entries(written, path)
        except ManifestParseError:
            read = []
        if len(read) == 1 and read[0].key[0] == intent.group and read[0].value == intent_dep_value(intent):
            return [written]
    # an option keeps its spelling (`-i`): the replaced line's, else the task's
    option = re.match(r"-{1,2}[A-Za-z][\w-]*", replaced or written or "") if intent.group == OPTIONS_GROUP else None
    spelled = option.group(0) if option else None
    return entry_text(intent.name, intent.group, intent.spec, intent.extras, intent.markers,
                      dict(intent.source or ()), options, requirement_text(intent), written_option=spelled)
