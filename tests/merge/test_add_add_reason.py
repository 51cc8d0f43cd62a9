"""Why a file both sides added stays conflicted, in words an agent reads (`task update` prints it)."""

from worktree_coord.merge import merge_file


def test_a_file_both_sides_added_differently_around_its_declarations_says_so() -> None:
    # Each side's new file opens with its own header: the inputs cannot tell which goes first.
    result = merge_file(b"", b"// Tool A.\n\nexport const A = 1;\n", b"// Tool B.\n\nexport const B = 2;\n",
                        path="src/extra.ts")
    assert not result.clean
    assert result.notes == ("wtc's structured merge could not keep the two sides' edits apart: both sides added this "
                            "file, each its own way; git's line conflict (lines 1-10) stands: in each, keep what "
                            "`ours` (above) and `theirs` (below) each meant, then remove the markers",)


def test_one_declaration_both_sides_added_two_ways_is_the_conflict_not_the_whole_file() -> None:
    # An empty base is a file with no members: the other declarations of both sides land, and the
    # one both wrote differently is the conflict, named as written (not the whole file).
    result = merge_file(b"", b"export const EXTRA = 1;\n", b"export const EXTRA = 2;\nexport const F = 3;\n",
                        path="src/extra.ts")
    assert not result.clean and result.notes == ()
    assert [(c.declaration, c.kind) for c in result.conflicts] == [("export const EXTRA", "insert_insert")]
    assert result.merged.endswith(b">>>>>>> theirs\nexport const F = 3;\n")
