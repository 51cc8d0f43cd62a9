"""Why a file both sides added stays conflicted, in words an agent reads (`task update` prints it)."""

from worktree_coord.merge import merge_file


def test_a_file_both_sides_added_says_so_not_container_words() -> None:
    result = merge_file(b"", b"export const EXTRA = 1;\n", b"export const EXTRA = 2;\nexport const F = 3;\n",
                        path="src/extra.ts")
    assert not result.clean
    assert result.notes == ("structured merge not possible: both sides added this file, each its own way",)
