"""Which declarations one version of a file changes against another: the forecast's "who touches what".

Stage: inventory, beside the merge (it merges nothing). Input: two versions of one file (bytes) and
its path. Output: the declaration paths (outermost first, joined with " > " as MergeConflict's
`declaration` is, e.g. "class Store > def get") whose text differs between the versions, or that
exist in one version only. Declarations are what the language's profile under `grammars/` says they
are (its keyed members of containers), found the way the structured merge segments a file.

Invariants: only the innermost changed declarations are listed (a method edited inside a class
names the method, not the class as well, unless the class's own text outside its members changed
too; a declaration added or removed whole is named without its members); a file with no profile,
binary or not UTF-8, or that does not parse, is one unit: the result is ("",), meaning "the file,
not a declaration". Identical inputs give ().
"""

from __future__ import annotations

import hashlib

import tree_sitter

from ..syntax.members import visit_keyed_members
from ..languages.profiles import ContainerRule, Profile, profile_for_path

WHOLE_FILE = ""


def changed_declarations(old: bytes | None, new: bytes | None, path: str) -> tuple[str, ...]:
    """The declarations of `path` that differ between `old` and `new` (None: the file is absent)."""
    if old == new:
        return ()
    if old is None or new is None:
        return (WHOLE_FILE,)
    profile = profile_for_path(path, old, new)   # a content marker may claim the file for another profile
    if profile is None or b"\x00" in old[:8000] or b"\x00" in new[:8000]:
        return (WHOLE_FILE,)
    before, after = inventory(profile, old), inventory(profile, new)
    if before is None or after is None:
        return (WHOLE_FILE,)
    changed = {key for key in set(before) | set(after) if before.get(key) != after.get(key)}
    if not changed:
        return (WHOLE_FILE,)   # only text outside every declaration changed (a module docstring, a blank line)
    # A declaration added or removed as a whole is named once, not with each of its members.
    one_sided = set(before) ^ set(after)
    changed = {key for key in changed if not any(key[:n] in one_sided for n in range(1, len(key)))}
    innermost = []
    for key in changed:
        inner = [other for other in changed if len(other) > len(key) and other[:len(key)] == key]
        # A container whose own text changed beyond its changed members is listed too.
        if not inner or _own_text(before.get(key)) != _own_text(after.get(key)):
            innermost.append(key)
    return tuple(sorted(" > ".join(key) for key in innermost))


def _leading_comments_start(profile: Profile, source: bytes, container: tree_sitter.Node, index: int,
                            child: tree_sitter.Node) -> int:
    """Where a member starts with the comments right above it (a JSDoc, `#` or `//` lines, at most one
    blank line between each): they are its, not its container's. Found driving wtc on commander.js:
    a task that edited the JSDoc of Help.longestOptionTermLength was said to change `export class Help`."""
    start = child.start_byte
    siblings = container.children
    while index > 0:
        before = siblings[index - 1]
        if before.type not in profile.comments or source[before.end_byte:start].strip() \
                or source.count(b"\n", before.end_byte, start) > 2:
            break
        if index > 1 and source.count(b"\n", siblings[index - 2].end_byte, before.start_byte) == 0:
            break   # a comment that ends the line of the member before it (`x = 1  # note`) is that one's
        start, index = before.start_byte, index - 1
    return start


def inventory(profile: Profile, source: bytes) -> dict[tuple[str, ...], tuple[str, str]] | None:
    """Each keyed declaration's path -> (digest of its whole text, digest of its text without its
    keyed members); None when the source does not parse cleanly."""
    tree = profile.parse(source)
    if tree.root_node.has_error:
        return None
    spans: dict[tuple[str, ...], tuple[int, int]] = {}

    def record(container: tree_sitter.Node, index: int, child: tree_sitter.Node, rule: ContainerRule,
               path: tuple[str, ...], key: str) -> tuple[str, ...]:
        here, repeat = path + (key,), 1
        while here in spans:   # a repeated key (an overload): told apart by order
            repeat += 1
            here = path + (f"{key} #{repeat}",)
        spans[here] = (_leading_comments_start(profile, source, container, index, child), child.end_byte)
        return here

    visit_keyed_members(profile, source, tree.root_node, record)
    found: dict[tuple[str, ...], tuple[str, str]] = {}
    for key, (start, end) in spans.items():
        # Its own text: the declaration with its keyed members cut out, so that a class whose
        # method changed does not read as a changed class.
        cuts = sorted(spans[other] for other in spans if len(other) == len(key) + 1 and other[:len(key)] == key)
        own, position = [], start
        for cut_start, cut_end in cuts:
            own.append(source[position:cut_start])
            position = cut_end
        own.append(source[position:end])
        found[key] = (_digest(source[start:end]), _digest(b"\x00".join(own)))
    return found


def _own_text(entry: tuple[str, str] | None) -> str | None:
    return None if entry is None else entry[1]


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()
