"""requirements*.in / requirements*.txt edits: one line per requirement, everything else kept as is."""

from __future__ import annotations

from worktree_coord.consolidate.edits.pyproject import requirement_text
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.manifests import pep508, requirement_lines
from worktree_coord.errors import EditError


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    if intent.op not in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP):
        raise EditError(f"{path}: intent {intent.intent_id} ({intent.op.value}) has no requirements-file form")
    text = data.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    final_newline = text.endswith(("\n", "\r"))
    hits = []
    for index, requirement in requirement_lines(text):
        name, value = pep508(requirement, path)
        if name == intent.name or f"{name}; {value.markers}" == intent.name:
            hits.append(index)
    if intent.op == Op.REMOVE_DEP:
        for index in reversed(hits):
            del lines[index]
    elif hits:
        line = lines[hits[0]]
        comment = line[line.index(" #"):] if " #" in line else ""
        lines[hits[0]] = requirement_text(intent) + comment
        for index in reversed(hits[1:]):
            del lines[index]
    else:
        new = requirement_text(intent)
        # Ordered by name, not by line: `pytest==8.3.5` comes before `pytest-xdist==3.6.1`.
        reqs = [(i, pep508(r, path)[0].lower()) for i, r in requirement_lines(text)]
        if reqs and [r for _, r in reqs] == sorted(r for _, r in reqs):
            after = [i for i, r in reqs if r <= intent.name.lower()]
            position = after[-1] + 1 if after else reqs[0][0]
            lines.insert(position, new)
        else:
            lines.append(new)
    out = eol.join(lines)
    if final_newline or not text:
        out += eol
    return out.encode("utf-8")
