"""The post-merge placement check: a member a clean merge put in another container than its side did.

Stage: after a merge (one file, or every file of a tree merge), beside the duplicate check
(semantic.py calls both). Input: per file, its path and the base, left, right and merged bytes.
Output: `SemanticFinding`s with `problem="misplaced"`, naming the member, where the merge put it
(`use_line`) and the container its side put it in.

Why: git's line merge of a file both sides changed can be clean and still put one side's new
member into another class or impl block than that side did: one side swaps two `impl E` blocks
(or two classes), the other appends a method to the one that moved, and the appended lines follow
the base's lines around them into the other block (user-drive12, serde_json-like). The tree merge
never offers such a file to the structured merge (git calls it clean), so this check is where it
shows; the cascade (`merge_file`) consults the structured merge itself (placement.py).

Cost: a file whose merged bytes are one side's (every file only one side changed, in a tree merge)
is never read; otherwise the four versions are parsed (trees kept by content: profiles.py), and a
version that does not parse cleanly gives nothing (never guessed).
"""

from __future__ import annotations

from typing import Iterable

import tree_sitter

from ..languages.profiles import profile_for_path
from ..result import SemanticFinding
from ..syntax.placement import Layout, misplaced
from .versions import MAX_BYTES, Versions

_WHICH = ("base", "left", "right", "merged")


def find_misplaced(files: Iterable[Versions], *, labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                   trees: dict[str, tree_sitter.Tree] | None = None) -> tuple[SemanticFinding, ...]:
    """Every member a merged file of `files` holds in another container than the side that added
    it put it in (module docstring), in path and line order. `trees`: parsed versions by name
    (base, left, right), for a one-file call."""
    out: list[SemanticFinding] = []
    files = list(files)
    for versions in files:
        if any(not versions.exists(which) for which in _WHICH) or versions.same("merged", "left") \
                or versions.same("merged", "right") or versions.same("left", "base") or versions.same("right", "base"):
            continue
        profile = profile_for_path(versions.path)
        if profile is None or profile.data:
            continue
        data = [versions.version(which) for which in _WHICH]
        if any(d is None or len(d) > MAX_BYTES or b"\x00" in d[:8000] for d in data):
            continue
        if data[3] in (data[1], data[2]):
            continue
        given = trees if len(files) == 1 and trees else {}
        layouts = []
        for which, source in zip(_WHICH, data):
            tree = given.get(which) or profile.parse(source)   # type: ignore[arg-type]
            if tree.root_node.has_error:
                break
            layouts.append(Layout(profile, source, tree.root_node))   # type: ignore[arg-type]
        else:
            merged = data[3]
            assert merged is not None
            lines = merged.split(b"\n")
            for placed in misplaced(layouts):
                use = lines[placed.line - 1].decode("utf-8", "replace").strip() if placed.line <= len(lines) else ""
                added, other = (labels[0], labels[2]) if placed.side == "left" else (labels[2], labels[0])
                out.append(SemanticFinding(
                    name=placed.key, kind="member", definition_path=versions.path, definition_line=placed.line,
                    use_path=versions.path, use_line=placed.line, removed_by=other, used_by=added,
                    declaration=" > ".join(placed.path), definition=" > ".join(placed.wanted) or "(top level)",
                    use=use, problem="misplaced"))
    return tuple(sorted(out, key=lambda f: (f.use_path, f.use_line, f.name)))
