"""The per-file cascade: trivial -> binary -> line merge -> structured merge -> the better result.

Input: base, left (ours), right (theirs) bytes and the file's path. Output: a `FileMerge`.
Order: (1) identical or one-side-unchanged inputs are TRIVIAL; (2) binary inputs (a NUL byte) are
a conflict unless trivial; (3) the diff3 line merge runs; a clean line result that creates no
duplicate key in an unordered container is returned as is, byte-identical to git (a key counts as
created only when it repeats more often than in either input; conditional variants, like Rust
items under `#[cfg(...)]`, are not counted: Profile.variant_markers), unless it puts a member a
side added in another container than that side did (placement.py: one side moved a block, the
other appended to it); (4) otherwise,
for a language with a profile and inputs that are UTF-8, free of conflict markers and parse without
errors, the structured merge runs under a time limit. Its result is kept only when it re-parses
without errors, keeps every declaration either side added or both kept, in the container its side put it in, and has less conflict
mass than the line merge (or holds a conflict over a name one side removed and the other's new
code uses, which the line merge cannot show), and, when clean, passes the language's strict
parser (validate.py); every fallback is recorded in `notes`; a clean Python result must also
keep the kind of its `__all__` (python_cst.accepts), and no clean result may import a name more
often than every input did (names.py, the profile's `binds`).
(5) a clean Python result of the line or structured stage goes through the libcst refinements
(python_cst.refine: from-imports of one module combined), which keep it unless they are sure.
(6) a clean result of the structured, data or Python stage where the line merge conflicted passes
the precision guards (guards.py: shapes where the inputs cannot tell the right merge, like a
generated file or a forward-port between release lines; some read the result's provenance,
`FileMerge.trace`: which rule of the structured merge settled each place both sides edited), else
the line merge's conflicts stand.
(7) a clean result of the line or structured stage goes through the semantic check (semantic.py:
a name one side removed that the other side's new lines use): with `semantic="block"` (the
default) each finding is a conflict of kind `semantic` and the result is not clean; with "warn" it
is a warning and the result stays clean; with "off" the check does not run. The merged bytes are
never changed by it.
Around them (line_endings.py): (0) the inputs are merged in the line-ending convention a side
changed the file to, else the base's, so a side converting a file to CRLF changes no line by it and
the other side's LF lines do not end up beside CRLF ones; (8) any line break a stage wrote in
another convention (a marker, a separator) is put in it too. An input mixing conventions, or
binary, is merged as it is. Every stage writes and compares diff3 blocks; a result's blocks are
then written in the conflict style asked for (git's `merge.conflictStyle`: merge, diff3, zdiff3;
markers.restyle), each conflict's lines moved with its block.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable

from .. import lean_dataclasses  # noqa: F401  (first: dataclasses without inspect)
from dataclasses import replace  # noqa: E402
from typing import TYPE_CHECKING

import tree_sitter

from ..errors import UsageError
from .lines import line_endings
from .languages import python_cst
from .lines.line import line_merge
from .lines.linediff import hunks
from .lines.markers import STYLES, has_markers, render_block, restyle
from .syntax.members import Unmergeable, Version
from .syntax.placement import Layout, misplaced
from .syntax.pieces import Conflict, Piece
from .languages.profiles import ContainerRule, Profile, profile_for_path
from .result import FileMerge, MergeConflict, SemanticMode, Strategy

# Loaded where their stage runs, not here: each git merge-driver call (`wtc merge-file`) starts a
# process, and a clean line merge (most calls) needs none of them (issue 36, start-up): the
# structured merge and its strict second opinions (syntax/structured.py, names.py, validate.py,
# data_semantics.py), the precision guards (where a stage settled what the line merge conflicted
# on), the entry merge of appended files (a conflicted file no profile reads) and the semantic
# check (a file whose profile has one).
if TYPE_CHECKING:
    from .checks.semantic import PackageFiles


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8000]


def _eol(data: bytes) -> str:
    crlf = data.count(b"\r\n")
    return "\r\n" if crlf and crlf * 2 >= data.count(b"\n") else "\n"


def _parse(profile: Profile, data: bytes, near: tuple[bytes, tree_sitter.Tree] | None = None) -> tree_sitter.Tree:
    """`data`'s tree; with `near` (another version of the file and its tree) parsed from that tree
    where the line diff between them allows (Profile.parse's `like`: a side changes a few lines of
    the base, the merged file a few of a side)."""
    if near is None or near[0] == data:
        return profile.parse(data)
    old = near[0]
    return profile.parse(data, like=(old, lambda: hunks(old, data), near[1]))


KeyCount = Counter[tuple[tuple[str, ...], str]]
_NAME_KINDS = ("delete_use", "rename_use")


def _created_duplicates(merged: KeyCount, *sides: KeyCount) -> bool:
    # Keys that repeat in some input (overloads, property setters) are legitimately repeated.
    return any(count > 1 and max(side.get(key, 0) for side in sides) <= 1 for key, count in merged.items())


def _keeps_every_change(merged: KeyCount, base: KeyCount, left: KeyCount, right: KeyCount) -> bool:
    """Declarations added by a side or kept by both must survive; none may appear from nowhere."""
    for key in set(left) | set(right):
        in_l, in_r, in_b = key in left, key in right, key in base
        if (in_l and in_r) or (in_l and not in_b) or (in_r and not in_b):
            if key not in merged:
                return False
    return all(key in left or key in right for key in merged)


def _imported_more_often(profile: Profile, merged: bytes, root: tree_sitter.Node,
                         inputs: tuple[bytes, bytes, bytes], trees: list[tree_sitter.Tree]) -> set[str]:
    """Names the merged file's module-level imports bind more often than any input's did: the same
    import added by both sides in different places (`use a::B;` and `use a::{B, C};`), or two
    edits of one import statement both kept. Such a result does not compile (Rust, Go, Java,
    TypeScript) or imports one name twice (Python)."""
    if profile.binds_query is None:
        return set()
    from .syntax import names

    merged_counts = names.imported_names(profile, merged, root)
    if not merged_counts or max(merged_counts.values()) < 2:
        return set()
    most: Counter[str] = Counter()
    for data, tree in zip(inputs, trees):
        for name, count in names.imported_names(profile, data, tree.root_node).items():
            most[name] = max(most[name], count)
    return {name for name, count in merged_counts.items() if count > max(most[name], 1)}


def _hoist_blank_lines(pieces: list[Piece]) -> list[Piece]:
    """Blank lines that open every side of a conflict are written before its markers instead."""
    out: list[Piece] = []
    for piece in pieces:
        if isinstance(piece, Conflict) and piece.base and piece.ours and piece.theirs:
            parts = [piece.base, piece.ours, piece.theirs]
            hoisted = b""
            while True:
                first = [part.split(b"\n", 1)[0] + b"\n" for part in parts]
                if len(set(first)) != 1 or first[0].strip() or any(len(part) <= len(first[0]) for part in parts):
                    break
                hoisted += first[0]
                parts = [part[len(first[0]):] for part in parts]
            if hoisted:
                out.append(hoisted)
                piece = replace(piece, base=parts[0], ours=parts[1], theirs=parts[2])
        out.append(piece)
    return out


def render(pieces: list[Piece], *, marker_size: int, labels: tuple[str, str, str], eol: str,
           language: str | None) -> tuple[bytes, tuple[MergeConflict, ...]]:
    """Pieces to bytes, writing each Conflict as a diff3 block, and the conflicts' line ranges."""
    out: list[bytes] = []
    conflicts: list[MergeConflict] = []
    line = 1
    for piece in _hoist_blank_lines(pieces):
        if isinstance(piece, Conflict):
            base, ours, theirs = (part.decode("utf-8") for part in (piece.base, piece.ours, piece.theirs))
            block = render_block(base, ours, theirs, marker_size=marker_size, labels=labels, eol=eol).encode("utf-8")
            lines = block.count(b"\n")
            conflicts.append(MergeConflict(start_line=line, end_line=line + lines - 1, declaration=piece.declaration,
                                           kind=piece.kind, base=base, ours=ours, theirs=theirs))
            out.append(block)
            line += lines
        else:
            out.append(piece)
            line += piece.count(b"\n")
    return b"".join(out), tuple(conflicts)


def merge_file(base: bytes, left: bytes, right: bytes, path: str, *, marker_size: int = 7,
               labels: tuple[str, str, str] = ("ours", "base", "theirs"), timeout: float = 10.0,
               semantic: SemanticMode | str = SemanticMode.BLOCK, conflict_style: str = "diff3",
               package_files: PackageFiles | None = None) -> FileMerge:
    """Three-way merge of one file; labels are (left/ours, base, right/theirs); markers in git's
    `conflict_style` (merge, diff3, zdiff3: markers.restyle; the stages compare diff3 blocks).
    `package_files(path)`: the other files of the file's package (Go: its folder) as the sides hold
    them, for the semantic check (semantic.PackageFiles; a git merge driver reads them from its
    repository); without it a name one side removed, that another file may still define, is
    reported all the same (a note says the package was not read)."""
    if conflict_style not in STYLES:
        raise UsageError(f"conflict style {conflict_style!r} is not one of {', '.join(STYLES)}",
                         fix="use merge, diff3 or zdiff3 (git's merge.conflictStyle values)")
    # Step 0: the inputs in the line-ending convention the result takes (line_endings.py).
    wanted = None if any(_is_binary(data) for data in (base, left, right)) else \
        line_endings.result_convention(base, left, right)
    if wanted is not None:
        base, left, right = (line_endings.normalized(data, wanted) for data in (base, left, right))
    result = _merge(base, left, right, path, marker_size=marker_size, labels=labels, timeout=timeout,
                    semantic=SemanticMode.parse(semantic), package_files=package_files)
    if conflict_style != "diff3" and result.has_markers:
        result = _restyled(result, conflict_style, marker_size)
    # Step 8: a line break a stage wrote in another convention (a marker, a separator) in it too.
    return line_endings.unify(result, wanted)


def _restyled(result: FileMerge, style: str, marker_size: int) -> FileMerge:
    """`result` with its marker blocks in `style`, each conflict's lines and sides moved with them
    (unchanged when the blocks cannot be read back one for one)."""
    rewritten = restyle(result.merged, style=style, marker_size=marker_size)
    marked = [index for index, conflict in enumerate(result.conflicts) if conflict.kind not in ("semantic", "binary")]
    if rewritten is None or len(rewritten[1]) != len(marked):
        return result
    merged, blocks = rewritten
    conflicts = list(result.conflicts)
    for index, block in zip(marked, blocks):
        conflicts[index] = replace(conflicts[index], start_line=block.start_line, end_line=block.end_line,
                                   ours=block.ours.decode("utf-8", "replace"),
                                   theirs=block.theirs.decode("utf-8", "replace"))
    return replace(result, merged=merged, conflicts=tuple(conflicts))


def _merge(base: bytes, left: bytes, right: bytes, path: str, *, marker_size: int,
           labels: tuple[str, str, str], timeout: float, semantic: SemanticMode,
           package_files: PackageFiles | None) -> FileMerge:
    """Steps 1-7 of the module docstring."""
    mode = semantic
    parsed: dict[str, tree_sitter.Tree] = {}
    lines: list[FileMerge] = []
    result = _generic(base, left, right, path, marker_size=marker_size, labels=labels, timeout=timeout, parsed=parsed,
                      line_out=lines)
    # Hook: Python results of the line or structured stage get the libcst refinements (python_cst).
    if result.language == "python" and result.strategy in (Strategy.LINE, Strategy.STRUCTURED):
        result = python_cst.refine(base, left, right, result)
    # A clean result where git's line merge conflicted: the precision guards (guards.py) may say
    # the inputs cannot tell, and then git's conflicts stand.
    if result.clean and lines and not lines[0].clean and result.strategy != Strategy.TRIVIAL:
        from .appended import appendable
        from .precision import guards

        kind = appendable.kind_for_path(path)
        why = guards.distrust(profile_for_path(path, base, left, right), base, left, right, lines[0].conflicts,
                              skip=kind.skip_guards if kind is not None else frozenset(), trace=result.trace)
        if why is not None:
            return _Fallback(lines[0], labels)(_sides_named(why, labels))
    if mode is not SemanticMode.OFF and result.clean and result.strategy in (Strategy.LINE, Strategy.STRUCTURED,
                                                                            Strategy.PYTHON):
        result = with_semantic_check(result, base, left, right, path, labels=labels, mode=mode, trees=parsed,
                                     package_files=package_files)
    return result


def with_semantic_check(result: FileMerge, base: bytes, left: bytes, right: bytes, path: str, *,
                        labels: tuple[str, str, str], mode: SemanticMode,
                        trees: dict[str, tree_sitter.Tree] | None = None,
                        package_files: PackageFiles | None = None) -> FileMerge:
    """Step 7: the result with its semantic findings as conflicts (block) or warnings (warn)."""
    profile = profile_for_path(path)    # checks.semantic.semantic_profile's answer, before loading the check
    if profile is None or not profile.semantic.enabled:
        return result
    from .checks.semantic import check_file, package_unseen
    unread: list[str] = []    # packages the check needed and could not read

    def reader(wanted: str) -> Iterable[tuple[str, bytes]] | None:
        files = package_files(wanted) if package_files is not None else None
        if files is None:
            unread.append(wanted)
        return files

    try:
        findings = check_file(base, left, right, result.merged, path, labels=labels, trees=trees,
                              package_files=reader)
    except Exception as error:  # noqa: BLE001 - the check must never cost a merge its result
        return replace(result, notes=result.notes + (f"semantic check failed internally "
                                                     f"({type(error).__name__}: {error})",))
    if not findings:
        return result
    found = tuple(finding.as_conflict() for finding in findings)
    unseen = sorted({f.name for f in findings if package_unseen(f)}) if unread else []
    notes = result.notes + ((f"the other files of this file's package were not read: {', '.join(unseen)} may "
                             "still be defined in one of them",) if unseen else ())
    if mode is SemanticMode.WARN:
        return replace(result, warnings=result.warnings + found, notes=notes)
    return replace(result, clean=False, conflicts=result.conflicts + found, notes=notes)


def _generic(base: bytes, left: bytes, right: bytes, path: str, *, marker_size: int,
             labels: tuple[str, str, str], timeout: float, parsed: dict[str, tree_sitter.Tree],
             line_out: list[FileMerge] | None = None) -> FileMerge:
    """The language-independent cascade (module docstring, steps 1-4); the trees it parses of the
    three inputs are left in `parsed` (base, left, right) for the semantic check to reuse, and the
    line merge, when one ran, is appended to `line_out` (for the precision guards)."""
    profile = profile_for_path(path, base, left, right)
    language = profile.name if profile else None
    if left == right or right == base:
        return FileMerge(merged=left, clean=True, strategy=Strategy.TRIVIAL, language=language)
    if left == base:
        return FileMerge(merged=right, clean=True, strategy=Strategy.TRIVIAL, language=language)
    if any(_is_binary(data) for data in (base, left, right)):
        conflict = MergeConflict(start_line=0, end_line=0, kind="binary")   # no markers: no lines
        return FileMerge(merged=left, clean=False, strategy=Strategy.BINARY, conflicts=(conflict,),
                         language=language, notes=("binary: both sides changed; kept ours",))
    line = line_merge(base, left, right, marker_size=marker_size, labels=labels, language=language)
    if line_out is not None:
        line_out.append(line)
    if profile is None:
        return line if line.clean else _appendable(base, left, right, path, line, marker_size=marker_size,
                                                   labels=labels)
    fallback = _Fallback(line, labels)
    inputs = (base, left, right)
    if any(has_markers(data, marker_size) for data in inputs):
        return fallback(_markers_reason(inputs, labels, marker_size))
    if not all(utf8 := [_is_utf8(data) for data in inputs]):
        return fallback(f"{_versions(labels, [not ok for ok in utf8])} not UTF-8 text, which wtc's structured merge "
                        "needs to read it")
    deadline = time.monotonic() + timeout
    base_tree = _parse(profile, base)
    trees = [base_tree] + [_parse(profile, data, (base, base_tree)) for data in (left, right)]
    parsed.update(zip(("base", "left", "right"), trees))
    if any(tree.root_node.has_error for tree in trees):
        return fallback(_unparsed_reason(trees, profile.name, labels))
    layouts = [Layout(profile, data, tree.root_node) for data, tree in zip((base, left, right), trees)]
    census = [layout.census for layout in layouts]
    if line.clean:
        merged_tree = _parse(profile, line.merged, (left, trees[1]))
        if merged_tree.root_node.has_error:
            return line
        merged_layout = Layout(profile, line.merged, merged_tree.root_node)
        # A clean line merge stands unless it creates a duplicate key or puts a side's new member in
        # another container than that side did (placement.py: one side moved the block, the other
        # appended to it): then the structured merge is consulted.
        if not _created_duplicates(merged_layout.census, *census) and not misplaced(layouts + [merged_layout]):
            return line
    from .syntax.structured import MOVED_AGAINST_DELETION, StructuredMerge, StructuredTimeout

    engine = StructuredMerge(profile, marker_size=marker_size, labels=labels, deadline=deadline, path=path)
    try:
        pieces = engine.merge(*(Version(data, tree.root_node) for data, tree in zip((base, left, right), trees)))
    except StructuredTimeout:
        return fallback(f"wtc's structured merge of this file passed its time limit ({timeout:g} s)")
    except Unmergeable as why:
        return fallback(f"wtc's structured merge could not keep the two sides' edits apart: {why}")
    except RecursionError:
        return fallback("the file nests deeper than wtc's structured merge follows")
    except Exception as error:  # noqa: BLE001 - a bug in a later stage must never cost the line merge
        return fallback(f"wtc's structured merge failed internally ({type(error).__name__}: {error}; a bug "
                        "in wtc: please report it)")
    merged, conflicts = render(pieces, marker_size=marker_size, labels=labels, eol=_eol(left), language=language)
    strategy = Strategy.DATA if profile.data else Strategy.STRUCTURED
    result = FileMerge(merged=merged, clean=not conflicts, strategy=strategy, conflicts=conflicts, language=language,
                       trace=tuple(engine.trace), steps=_conflict_steps(pieces))
    if result.clean:
        tree = _parse(profile, merged, (left, trees[1]))
        if tree.root_node.has_error:
            return fallback(f"{_REFUSED} does not parse as {profile.name}")
        merged_layout = Layout(profile, merged, tree.root_node)
        if not _keeps_every_change(merged_layout.census, *census):
            return fallback(f"{_REFUSED} lacks a declaration one side added (or both kept)")
        if misplaced(layouts + [merged_layout]):
            return fallback(f"{_REFUSED} puts a side's new declaration in another class or block than that side did "
                            "(the other side moved or rewrote the block it was added to)")
        from .languages import data_semantics, validate

        if not validate.accepts(profile.name, (base, left, right), merged):
            return fallback(f"{_REFUSED} is refused by the strict {profile.name} parser")
        if profile.name == "python" and not python_cst.accepts((base, left, right), merged):
            return fallback(f"{_REFUSED} changes what kind of value `__all__` is")
        if not data_semantics.accepts(profile.name, base, left, right, merged):
            return fallback(f"{_REFUSED} does not hold both sides' keys and values as each side set them")
        twice = _imported_more_often(profile, merged, tree.root_node, (base, left, right), trees)
        if twice:
            return fallback(f"{_REFUSED} imports {', '.join(sorted(twice))} more often than either side did "
                            "(both sides added the same import, in different places)")
        return result
    # A conflict over a name one side took away and the other side's new code uses (names.py), or
    # over a member one side moved or renamed and the other deleted, is one the line merge cannot
    # show: its smaller conflict would hide the dangling use or keep the moved copy unseen.
    if line.clean or result.conflict_mass <= line.conflict_mass or any(c.kind in _NAME_KINDS for c in conflicts) \
            or MOVED_AGAINST_DELETION in result.steps:
        return result
    return fallback(f"wtc's structured merge found the same overlap as git's line merge: {_overlap(conflicts)}, "
                    "and no declaration-level rule keeps the two edits apart", steps=result.steps)


def _appendable(base: bytes, left: bytes, right: bytes, path: str, line: FileMerge, *, marker_size: int,
                labels: tuple[str, str, str]) -> FileMerge:
    """Step 4 for a file every task appends to (appendable.py: line lists, PO, .properties): the
    entry-level merge, kept when clean or when its conflicts are smaller than the line merge's."""
    from .appended import appendable

    kind = appendable.kind_for_path(path)
    if kind is None:
        return line
    fallback = _Fallback(line, labels)
    inputs = (base, left, right)
    if any(has_markers(data, marker_size) for data in inputs):
        return fallback(_markers_reason(inputs, labels, marker_size))
    entries = f"wtc's entry-by-entry merge of this {kind.name} file"
    try:
        pieces = appendable.merge_appendable(kind, base, left, right, eol=_eol(left), labels=labels)
    except Unmergeable as why:
        return fallback(f"{entries} could not run: {why}")
    except Exception as error:  # noqa: BLE001 - a bug in a later stage must never cost the line merge
        return fallback(f"{entries} failed internally ({type(error).__name__}: {error}; a bug in wtc: please "
                        "report it)")
    try:
        merged, conflicts = render(pieces, marker_size=marker_size, labels=labels, eol=_eol(left), language=kind.name)
    except UnicodeDecodeError:
        return fallback(f"{entries} left conflicts, and the file is not UTF-8 text to write them in")
    result = FileMerge(merged=merged, clean=not conflicts, strategy=Strategy.DATA, conflicts=conflicts,
                       language=kind.name, trace=((f"{kind.name} entries", -1, -1),))
    if result.clean or result.conflict_mass < line.conflict_mass:
        return result
    return fallback(f"{entries} found the same overlap as git's line merge: both sides changed the same "
                    "entries")


# What a fallback says of a structured result the cascade's own checks refused (module docstring, step 4).
_REFUSED = "wtc's structured merge was not used: its result"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _versions(labels: tuple[str, str, str], chosen: Iterable[bool], verbs: tuple[str, str] = ("is", "are")) -> str:
    """"the `task t` version is" / "the base and the `task t` version are": the subject of a reason
    about some of the versions (`chosen`, for base, left and right), named by the labels their
    markers carry (`integration r1`, `task t-x`: the sides a person knows), and its verb."""
    names = [name for name, wanted in zip(("the base", f"the `{labels[0]}` version", f"the `{labels[2]}` version"),
                                          chosen) if wanted]
    subject = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{subject} {verbs[len(names) > 1]}"


def _markers_reason(inputs: tuple[bytes, bytes, bytes], labels: tuple[str, str, str], marker_size: int) -> str:
    marked = [has_markers(data, marker_size) for data in inputs]
    return (f"{_versions(labels, marked, ('holds', 'hold'))} conflict markers (lines of {marker_size} `<`, `=` or "
            "`>`) committed from an earlier merge, which wtc's structured merge does not read; resolve those old "
            "markers too")


_QUOTED = re.compile(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")


def _sides_named(sentence: str, labels: tuple[str, str, str]) -> str:
    """A guard's sentence (precision/guards.py says "ours" and "theirs") with the sides named by the
    labels their markers carry (`integration r1`, `task t-x`), outside the lines it quotes."""
    parts = _QUOTED.split(sentence)
    for index in range(0, len(parts), 2):   # the even parts lie outside quotes
        parts[index] = re.sub(r"\bours\b", labels[0], re.sub(r"\btheirs\b", labels[2], parts[index]))
    return "".join(parts)


def _overlap(conflicts: Iterable[MergeConflict]) -> str:
    """What the two sides did where a structured merge's conflicts stand, by their kind and
    declarations ("one side deleted `def b`, which the other side changed")."""
    conflicts = list(conflicts)
    named = list(dict.fromkeys(f"`{c.declaration}`" for c in conflicts if c.declaration))[:3]
    deleted = list(dict.fromkeys(f"`{c.declaration}`" for c in conflicts if c.kind == "delete_modify" and c.declaration))
    if deleted:
        return f"one side deleted {', '.join(deleted[:3])}, which the other side changed"
    where = f" in {', '.join(named)}" if named else ""
    if conflicts and all(c.kind in ("insert_insert", "add_add") for c in conflicts):
        return f"both sides added code at the same place{where}"
    return f"both sides changed the same lines{where}"


def _unparsed_reason(trees: list[tree_sitter.Tree], language: str,
                     labels: tuple[str, str, str] = ("ours", "base", "theirs")) -> str:
    """Why only the line merge ran on a file whose versions (base, left, right) the grammar does not
    read, naming which (by the labels of their markers) and where the first stops: C code full of
    macros fails to parse in every version, and "a side does not parse" then sent the user looking
    for a broken edit that was not there (lua's lstrlib.c: both sides changed one `#define`, a plain
    overlap), so a base that does not parse says the grammar does not read the file either."""
    from .checks.syntax import first_error

    bad = [tree.root_node.has_error for tree in trees]
    who = _versions(labels, bad, ("does", "do"))
    first = bad.index(True)
    row, column = first_error(trees[first].root_node) or (0, 0)
    names = ("the base", f"the `{labels[0]}` version", f"the `{labels[2]}` version")
    where = f"line {row + 1}:{column + 1}" + (f" of {names[first]}" if sum(bad) > 1 else "")
    if bad[0]:
        return (f"{who} not parse as {language} ({where}): wtc's grammar does not read this file (its macros or "
                "newer syntax), so its structured merge could not run")
    return (f"{who} not parse as {language} ({where}) where the base did, so wtc's structured merge could not "
            "read it: that side's edit has a syntax error to fix as well")


class _Fallback:
    """Return the line merge with a note saying why the structured result was not used: what
    happened, in the words of the file's constructs and the sides' labels, then what stands (git's
    line merge, its conflicts' lines) and what to do about it."""

    def __init__(self, line: FileMerge, labels: tuple[str, str, str] = ("ours", "base", "theirs")) -> None:
        self.line = line
        self.labels = labels

    def __call__(self, why: str, steps: tuple[str, ...] = ()) -> FileMerge:
        return FileMerge(merged=self.line.merged, clean=self.line.clean, strategy=self.line.strategy,
                         conflicts=self.line.conflicts, language=self.line.language,
                         notes=(f"{why}; {self._stands()}",), steps=steps)

    def _stands(self) -> str:
        if self.line.clean:
            return "git's line merge, which is clean, was kept"
        blocks = [c for c in self.line.conflicts if c.start_line]
        lines = ", ".join(f"{c.start_line}-{c.end_line}" for c in blocks[:5]) + (", ..." if len(blocks) > 5 else "")
        where = f" (line{'s' if len(blocks) > 1 or '-' in lines else ''} {lines})" if blocks else ""
        return (f"git's line conflict{'s' if len(blocks) != 1 else ''}{where} stand{'' if len(blocks) != 1 else 's'}: "
                f"in each, keep what `{self.labels[0]}` (above) and `{self.labels[2]}` (below) each meant, "
                "then remove the markers")


def _conflict_steps(pieces: list[Piece]) -> tuple[str, ...]:
    """Each distinct step of the structured merge that left a conflict (pieces.Conflict.step:
    a region between members, a member both sides edited and why it did not merge inside), in
    file order: why the structured stage did not resolve the file (FileMerge.steps)."""
    return tuple(dict.fromkeys(piece.step or piece.kind for piece in pieces if isinstance(piece, Conflict)))
