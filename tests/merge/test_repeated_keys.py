"""Members whose key repeats (two `impl Error { ... }` blocks in one Rust file, two `from .x import`
lines): matched occurrence by occurrence when every version holds the same number of them in an
order each side kept, so both sides' edits inside one of them merge as inside a single one.

serde_json's src/error.rs holds `impl Error` twice. Two tasks each adding a method at the end of the
second block conflicted (the whole block, each side's text a deletion and an insertion), where the
same change to a file with one `impl Error` merged; a true conflict inside either block named no
declaration ("") where a file with one block names `impl Error > fn line`. An occurrence a side
rewrote beyond recognition, reordered, or added keeps the matching by text (a conflict, never a
merge into the wrong occurrence).
"""

from __future__ import annotations

from worktree_coord.merge import merge_file
from worktree_coord.merge.syntax.member_diff import positional_duplicates

RS_BASE = b"""pub struct E {
    x: usize,
}

impl E {
    pub fn a(&self) -> usize {
        self.x
    }
}

impl E {
    pub fn c(&self) -> usize {
        1
    }
}
"""
SECOND_END = b"        1\n    }\n}\n"


def _append_to_second(method: bytes) -> bytes:
    return RS_BASE.replace(SECOND_END, b"        1\n    }\n" + method + b"}\n")


def test_rust_both_sides_appending_a_method_to_one_of_two_impl_blocks_merge() -> None:
    left = _append_to_second(b"    pub fn d(&self) {}\n")
    right = _append_to_second(b"    pub fn e(&self) {}\n")
    result = merge_file(RS_BASE, left, right, "src/error.rs")
    assert result.clean, [c.declaration for c in result.conflicts]
    assert result.merged.count(b"impl E {") == 2
    assert b"pub fn d(&self) {}" in result.merged and b"pub fn e(&self) {}" in result.merged
    # Both went into the second block, not the first.
    assert result.merged.index(b"pub fn d") > result.merged.index(b"pub fn c")
    assert result.merged.index(b"pub fn e") > result.merged.index(b"pub fn c")


def test_rust_a_conflict_inside_one_of_two_impl_blocks_names_its_declaration() -> None:
    left = RS_BASE.replace(b"        self.x\n", b"        self.x + 1\n")
    right = RS_BASE.replace(b"        self.x\n", b"        self.x + 2\n")
    result = merge_file(RS_BASE, left, right, "src/error.rs")
    assert not result.clean
    assert [c.declaration for c in result.conflicts] == ["impl E > fn a"]


def test_python_both_sides_adding_a_name_to_one_of_two_imports_from_one_module_merge() -> None:
    base = b"from .x import (\n    a,\n)\nfrom .x import (\n    b,\n)\n\n\ndef f():\n    return a, b\n"
    left = base.replace(b"    b,\n", b"    b,\n    c,\n")
    right = base.replace(b"    b,\n", b"    b,\n    d,\n")
    result = merge_file(base, left, right, "pkg/mod.py")
    assert result.clean, [c.declaration for c in result.conflicts]
    assert b"    b,\n    c,\n    d,\n" in result.merged or b"    b,\n    d,\n    c,\n" in result.merged


def _segments(*versions: bytes):  # type: ignore[no-untyped-def]
    """The top-level members of each version, as the structured merge segments them."""
    import time

    from worktree_coord.merge.languages.profiles import profile_for_path
    from worktree_coord.merge.syntax.members import segment
    from worktree_coord.merge.syntax.structured import StructuredMerge
    profile = profile_for_path("src/error.rs")
    assert profile is not None
    engine = StructuredMerge(profile, marker_size=7, labels=("o", "b", "t"), deadline=time.monotonic() + 60)
    out = []
    for source in versions:
        root = profile.parse(source).root_node
        found = engine._find_container(source, root, 4)
        assert found is not None
        out.append(segment(source, found[0], found[1], profile))
    return out


def test_a_side_that_swapped_two_blocks_is_matched_by_text_not_by_position() -> None:
    # Matched by position, left's first block (base's second, moved up) would read as an edit of
    # base's first: a side that reordered the occurrences keeps the matching by text.
    first, second = RS_BASE.split(b"\nimpl E {\n    pub fn c")
    swapped = b"pub struct E {\n    x: usize,\n}\n\nimpl E {\n    pub fn c" + second + b"\n" + \
        first.split(b"}\n\n", 1)[1]
    right = _append_to_second(b"    pub fn e(&self) {}\n")
    b, l, r = positional_duplicates(*_segments(RS_BASE, swapped, right))
    assert all(m.ident.startswith("text:") for m in l.members if m.repeated_key == "impl E")
    assert all(m.ident.startswith("text:") for m in b.members if m.repeated_key == "impl E")


def test_the_same_two_blocks_edited_in_place_are_matched_by_occurrence() -> None:
    right = _append_to_second(b"    pub fn e(&self) {}\n")
    b, _, r = positional_duplicates(*_segments(RS_BASE, RS_BASE, right))
    assert [m.ident for m in b.members if m.repeated_key] == [m.ident for m in r.members if m.repeated_key]


def test_a_block_one_side_rewrote_whole_is_not_matched_to_the_other_sides_edit() -> None:
    left = RS_BASE.replace(b"    pub fn c(&self) -> usize {\n        1\n    }\n",
                           b"    pub fn z(&self, y: u8) -> u8 {\n        y * 2 + 7\n    }\n    pub fn w(&self) {}\n")
    right = _append_to_second(b"    pub fn e(&self) {}\n")
    result = merge_file(RS_BASE, left, right, "src/error.rs")
    # Whatever the outcome, pub fn c stays gone only if left's rewrite won; never both z and c.
    if result.clean:
        assert not (b"pub fn z" in result.merged and b"pub fn c" in result.merged)
