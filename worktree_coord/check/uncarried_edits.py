"""What of a task's edit of a reserved manifest its intents do not carry: its comments.

Stage: finish-time derivation, beside `reserved_edits.py`. Input: the manifest's path, its bytes at
the task's base and in the task's result, and the intents derived from that edit. Output: one line
per edit consolidation would lose (`requirements.txt:3: the comment '# Tests (pinned)' (added)`),
which the caller turns into a `reserved_unexpressible` violation: the task's edit is refused with
the line named, never dropped.

Intents are key-level (derive.py diffs normalized models), and the merge puts every reserved path
back as it was at the base (integrate/mergeable.py); so a comment-only edit of a requirements file,
a comment beside a Cargo.toml dependency or a `<!-- -->` in a pom.xml derived nothing, merged as
"merged" and vanished (a note said only that no intent carried the edit). Here the intents are applied
to the base by consolidation's own editors (edits/), and each comment the task's file holds that
the result does not (or the other way round) is named. An edit of layout alone (white space, a
package.json's keys reordered) is said by the finish's note that no intent carries it, and merges.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

from ..consolidate import Intent, classify_path
from ..consolidate.intent import Op
from ..consolidate.requirements_file import COMMENT
from ..errors import EditError, WtcError

# Comments of the formats no grammar profile reads, by their tools' rules: pip's (a `#` at the line's
# start or after white space: requirements_file.COMMENT) and go's (`//` to the line's end). A
# requirement's `// indirect` is no comment to carry: `go mod tidy` writes it, and consolidation's model
# leaves it out (manifests.read_go_mod); refusing it refused every dependency bump that adds an indirect
# requirement (gin a9401cd23837, d7776de7d444, 87c207a14093 in the false block hunt).
_GO_COMMENT = re.compile(r"//(?!\s*indirect\s*$).*$")
_LINE_COMMENTS = {"requirements": COMMENT, "go.mod": _GO_COMMENT, "go.work": _GO_COMMENT}


def uncarried_edits(path: str, base: bytes | None, new: bytes | None, intents: Sequence[Intent]) -> list[str]:
    """The edits of `path` (base -> new) that applying `intents` to `base` does not make, one line each
    naming where in the task's file it is; [] when everything is carried (or the file is new, gone,
    or not a manifest: those have their own rules)."""
    kind = classify_path(path)
    if kind is None or kind.kind != "manifest" or base is None or new is None or base == new:
        return []
    carried = applied(path, base, intents)
    wanted, made = _comments(path, new), _comments(path, carried)
    missing = Counter(text for _, text in wanted) - Counter(text for _, text in made)
    extra = Counter(text for _, text in made) - Counter(text for _, text in wanted)
    lost = []
    for line, text in wanted:
        if missing[text]:
            missing[text] -= 1
            lost.append(f"{path}:{line}: the comment {text!r} (added or changed)")
    for line, text in _comments(path, base):
        if extra[text]:
            extra[text] -= 1
            lost.append(f"{path}:{line}: the comment {text!r} (removed; line {line} at the task's base)")
    # An edit of layout alone (white space, the order of keys) loses nothing Maven, npm or pip reads:
    # the finish's note says no intent carries it (coordinator/tasks.py), and it merges.
    return lost


def applied(path: str, base: bytes, intents: Sequence[Intent]) -> bytes:
    """`base` with the task's intents of `path` applied by consolidation's editors. An intent they
    cannot apply raises `EditError` naming it: the check cannot say what would land, and it used to
    pass then (a pom.xml given its own `<version>` with a comment above it: the comment was dropped
    without a word, and consolidation failed on the version later)."""
    from ..consolidate.edits import edit_manifest

    data = base
    for intent in intents:
        if intent.manifest != path or intent.op == Op.RELOCK:
            continue
        try:
            data = edit_manifest(path, data, intent)
        except WtcError as error:
            raise EditError(f"{path}: consolidation cannot apply the task's intent {intent.summary()} to the file "
                            f"(so what of the edit would land cannot be checked): {error.message}",
                            fix=(error.fix + "; or " if error.fix else "") + "make that edit in a task that owns "
                                "the file (have the lead unreserve it: `reserved-remove` in .wtc.toml)") from error
    return data


def _comments(path: str, data: bytes) -> list[tuple[int, str]]:
    """(line number, text) of each comment of a manifest, in order."""
    kind = classify_path(path)
    pattern = _LINE_COMMENTS.get(kind.format) if kind is not None else None
    text = data.decode("utf-8", errors="replace")
    if pattern is not None:
        return [(number, found.group(0).strip()) for number, line in enumerate(text.splitlines(), 1)
                if (found := pattern.search(line))]
    from ..merge.languages.profiles import profile_for_path

    profile = profile_for_path(path, data)
    if profile is None:
        return []           # JSON: no comments
    out: list[tuple[int, str]] = []
    stack = [profile.parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type.lower() == "comment":
            out.append((node.start_point[0] + 1, data[node.start_byte:node.end_byte].decode("utf-8", "replace")
                        .strip()))
        else:
            stack.extend(reversed(node.children))
    return out


def uncarried_layout(path: str, base: bytes | None, new: bytes | None, intents: Sequence[Intent]) -> str | None:
    """A note when the task's file differs from what consolidation writes of it (its intents applied
    to the base) in more than comments: the layout the task changed beside its key edits (entries
    reordered, re-indented, blank lines), which no intent carries. It merged as "merged" and the
    layout part was gone without a word (fidelity13: a Cargo.toml's dependencies sorted alongside a
    version bump). None when everything lands as written, or nothing is carried at all (the finish's
    "no intent carries it" note says that)."""
    kind = classify_path(path)
    mine = [i for i in intents if i.manifest == path and i.op != Op.RELOCK]
    if kind is None or kind.kind != "manifest" or base is None or new is None or base == new or not mine:
        return None
    try:
        carried = applied(path, base, mine)
    except EditError:
        return None         # refused at finish already (reserved_edits.py)
    if carried == new:
        return None
    from difflib import SequenceMatcher

    lines = new.decode("utf-8", errors="replace").splitlines()
    codes = SequenceMatcher(None, carried.decode("utf-8", errors="replace").splitlines(), lines,
                            autojunk=False).get_opcodes()
    # a line the task's file does not have (moved away, or taken out) is named by the line before the gap
    spans = [(j1 + 1, j2) if tag != "delete" else (max(1, j1), max(1, j1)) for tag, _, _, j1, j2 in codes
             if tag != "equal"]
    if not spans:           # only the final newline or the end of line differs
        return (f"{path}: its end of line or final newline is the file's, not the task's: consolidation applies "
                "the task's key edits to the file as it stands")
    joined: list[tuple[int, int]] = []
    for first, last in spans:       # 88-89 and 90 read as 88-90
        if joined and first <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(last, joined[-1][1]))
        else:
            joined.append((first, last))
    shown = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in joined[:6]) + (" ..." if len(joined) > 6 else "")
    return (f"{path}: line(s) {shown} of the task's file are not written as the task wrote them: consolidation "
            f"applies its {len(mine)} key edit(s) to the file as it stands and carries no layout (order, "
            f"indentation, blank lines, a value's spelling); for that layout, have the lead unreserve {path} "
            "(`reserved-remove`), or make it in a task after the run lands")
