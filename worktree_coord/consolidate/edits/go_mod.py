"""go.mod / go.work edits by directive: the fallback when `go mod edit` / `go work edit` is missing.

Input: the file's bytes and one intent (require, replace, use, go, toolchain). Output: the new bytes.
Invariants: only the directive the intent names changes; other lines, comments, blocks, the end of
line and the final newline are kept; an entry is changed in place (keeping its trailing comment),
added to the verb's block when there is one, else as a single-line directive after the last one
of its verb (or at the end); dropping the last entry of a block drops the block. The Go tool
formats the file again on its next write (`go mod tidy`), so this aims at correct, not canonical.
"""

from __future__ import annotations


from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.manifests import normalize_member
from worktree_coord.errors import EditError

from ...frozen import value_class


@value_class
class _Entry:
    verb: str
    index: int            # line index
    body: str             # the directive's arguments, without the verb and the comment
    in_block: bool


def _split_comment(line: str) -> tuple[str, str]:
    at = line.find("//")
    return (line, "") if at < 0 else (line[:at], line[at:])


def _entries(lines: list[str]) -> tuple[list[_Entry], dict[str, tuple[int, int]]]:
    """Every directive entry, and each block's (open line, close line) by verb (the last block wins)."""
    entries: list[_Entry] = []
    blocks: dict[str, tuple[int, int]] = {}
    block: tuple[str, int] | None = None
    for index, raw in enumerate(lines):
        code = _split_comment(raw)[0].strip()
        if block is not None:
            if code == ")":
                blocks[block[0]] = (block[1], index)
                block = None
            elif code:
                entries.append(_Entry(block[0], index, code, True))
            continue
        if not code:
            continue
        verb, _, rest = code.partition(" ")
        rest = rest.strip()
        if rest == "(":
            block = (verb, index)
        else:
            entries.append(_Entry(verb, index, rest, False))
    return entries, blocks


def _key(verb: str, body: str) -> str:
    if verb == "replace":
        return " ".join(body.split("=>", 1)[0].split())
    if verb == "use":
        return normalize_member(body.strip().strip('"'))
    if verb in ("go", "toolchain"):
        return verb
    return body.split()[0] if body.split() else ""


def _use_path(name: str) -> str:
    return name if name.startswith((".", "/")) else f"./{name}"


def _directive(path: str, intent: Intent) -> tuple[str, str, str | None]:
    """(verb, key, new body or None to drop) for the intent."""
    op, name, spec = intent.op, intent.name, intent.spec
    if op in (Op.ADD_DEP, Op.SET_SPEC) and intent.group == "require" and spec:
        return "require", name, f"{name} {spec}"
    if op == Op.REMOVE_DEP and intent.group == "require":
        return "require", name, None
    if op == Op.SET_OVERRIDE and spec:
        return "replace", " ".join(name.split()), f"{name} => {spec}"
    if op == Op.REMOVE_OVERRIDE:
        return "replace", " ".join(name.split()), None
    if op == Op.ADD_MEMBER and path.endswith("go.work"):
        return "use", normalize_member(name), _use_path(normalize_member(name))
    if op == Op.REMOVE_MEMBER and path.endswith("go.work"):
        return "use", normalize_member(name), None
    if op == Op.SET_RUNTIME and name in ("go", "toolchain") and spec:
        return name, name, spec
    raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {name}) has no {path.rsplit('/', 1)[-1]} form",
                    fix="declare a require, replace, use, go or toolchain change")


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    text = data.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    final_newline = text.endswith("\n") or not text
    lines = text.splitlines()
    verb, key, body = _directive(path, intent)
    entries, blocks = _entries(lines)
    hits = [e for e in entries if e.verb == verb and _key(verb, e.body) == key]
    if body is None:
        for entry in reversed(hits):
            del lines[entry.index]
        lines = _drop_empty_blocks(lines)
    elif hits:
        first = hits[0]
        indent = lines[first.index][: len(lines[first.index]) - len(lines[first.index].lstrip())]
        comment = _split_comment(lines[first.index])[1]
        lines[first.index] = indent + ("" if first.in_block else f"{verb} ") + body + (f" {comment}" if comment else "")
        for entry in reversed(hits[1:]):
            del lines[entry.index]
    elif verb in blocks:
        lines.insert(blocks[verb][1], f"\t{body}")
    else:
        same = [e for e in entries if e.verb == verb]
        anchor = {"go": "module", "toolchain": "go"}.get(verb)
        anchors = [e for e in entries if e.verb == anchor] if anchor else []
        if same:
            lines.insert(same[-1].index + 1, f"{verb} {body}")
        elif anchors:
            lines[anchors[0].index + 1:anchors[0].index + 1] = ["", f"{verb} {body}"]
        else:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += ([""] if lines else []) + [f"{verb} {body}"]
    out = eol.join(lines)
    return (out + eol if final_newline else out).encode("utf-8")


def _drop_empty_blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    index = 0
    while index < len(lines):
        code = _split_comment(lines[index])[0].strip()
        if code.endswith("(") and index + 1 < len(lines) and _split_comment(lines[index + 1])[0].strip() == ")":
            index += 2
            # Keep one blank line between the neighbours, not two.
            if out and not out[-1].strip() and index < len(lines) and not lines[index].strip():
                index += 1
            continue
        out.append(lines[index])
        index += 1
    return out
