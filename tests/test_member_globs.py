"""member_globs.py: one expander of a workspace's member globs, over a checkout on disk (consolidation)
and over a git tree (the post-merge semantic check), which once each had rules of their own."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from tests.conftest import git, make_repo, write
from worktree_coord.member_globs import Unsure, disk_subfolders, expand, names, skipped_by_javascript, tree_subfolders

# Every folder holds a file: git keeps no empty folder.
LAYOUT = {
    "package.json": "{}\n",
    "packages/a/package.json": "{}\n",
    "packages/b/package.json": "{}\n",
    "packages/old/package.json": "{}\n",
    "packages/a/node_modules/dep/package.json": "{}\n",
    "packages/.cache/x/package.json": "{}\n",
    "apps/web/package.json": "{}\n",
    "apps/web/nested/deep/package.json": "{}\n",
    "apps/cli/package.json": "{}\n",
    "tools/ab/README": "x\n",
    "tools/bc/README": "x\n",
    "tools/ca/README": "x\n",
    "node_modules/left-pad/package.json": "{}\n",
    ".github/actions/setup/action.yml": "x\n",
    "crates/core/Cargo.toml": "x\n",
}

GLOBS = [
    ["packages/*"],
    ["packages/*", "!packages/old"],
    ["!packages/old", "packages/*"],          # a negation applies wherever it stands
    ["apps/**"],                              # the folder and every folder below it
    ["**/de*"],
    ["**/deep"],                              # a literal last part: every folder's `deep`, for the caller to look in
    ["apps/**/nested/*"],
    [".*/*"],                                 # a part with a leading dot lists dot folders (npm, pnpm)
    ["tools/[ab]*", "tools/?c"],
    ["."], ["./packages/a/"], [""],
    ["packages/missing"],                     # a literal is joined, not looked for
    ["*"],
    ["**", "!**/node_modules/**", "!packages/**"],
    [".github/*/*"],                          # a literal dot folder is named; a wildcard never lists into one
]


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pygit2.Tree]:
    """The layout as a folder on disk (no `.git` in it, which a tree never holds) and as a git tree."""
    folder = tmp_path_factory.mktemp("globs")
    write(folder / "checkout", LAYOUT)
    repo = make_repo(folder / "repo", LAYOUT)
    return folder / "checkout", pygit2.Repository(str(repo)).head.peel(pygit2.Tree)


@pytest.mark.parametrize("skip", [None, skipped_by_javascript], ids=["cargo", "javascript"])
@pytest.mark.parametrize("globs", GLOBS, ids=lambda globs: " ".join(globs) or "empty")
def test_a_checkout_on_disk_and_its_git_tree_expand_alike(layout, globs, skip) -> None:
    root, tree = layout
    on_disk = expand(globs, disk_subfolders(root), skip=skip)
    in_tree = expand(globs, lambda folder: tree_subfolders(tree, folder), skip=skip)
    assert on_disk == in_tree


def test_what_the_globs_name(layout) -> None:
    root, _ = layout
    npm = disk_subfolders(root)
    assert expand(["packages/*", "!packages/old"], npm, skip=skipped_by_javascript) == {"packages/a", "packages/b"}
    # Cargo's and uv's globs list dot folders too (node_modules is only a name to them).
    assert expand(["packages/*", "!packages/old"], npm) == {"packages/a", "packages/b", "packages/.cache"}
    assert expand(["apps/**"], npm) == {"apps", "apps/web", "apps/cli", "apps/web/nested", "apps/web/nested/deep"}
    assert expand(["apps/**/nested/*"], npm) == {"apps/web/nested/deep"}
    assert expand(["tools/[ab]*", "tools/?c"], npm) == {"tools/ab", "tools/bc"}
    assert expand(["."], npm) == expand([""], npm) == {""}
    assert expand(["./packages/a/"], npm) == {"packages/a"}
    assert expand(["packages/missing"], npm) == {"packages/missing"}
    assert expand(["**/de*"], npm, skip=skipped_by_javascript) == {"apps/web/nested/deep"}
    assert "node_modules/left-pad/deep" not in expand(["**/deep"], npm, skip=skipped_by_javascript)
    assert "node_modules/left-pad/deep" in expand(["**/deep"], npm)
    assert expand([".github/*/*"], npm, skip=skipped_by_javascript) == {".github/actions/setup"}
    # A part that starts with a dot asks for dot folders (pnpm 10 and npm 11 expand trpc's
    # `examples/.*/*`); `*` and `**` beside it still skip them.
    assert expand([".*/*"], npm, skip=skipped_by_javascript) == {".github/actions"}
    assert expand(["packages/.*"], npm, skip=skipped_by_javascript) == {"packages/.cache"}
    assert "packages/.cache" not in expand(["packages/**"], npm, skip=skipped_by_javascript)
    assert "packages/a/node_modules" not in expand(["packages/**"], npm, skip=skipped_by_javascript)
    assert "packages/a/node_modules/dep" in expand(["packages/**"], npm)


def test_a_literal_part_is_never_listed_and_the_budget_counts_listings(layout) -> None:
    root, _ = layout
    listed: list[str] = []

    def recording(folder: str) -> list[str] | None:
        listed.append(folder)
        return disk_subfolders(root)(folder)

    assert expand(["packages/a", "apps/web/nested"], recording) == {"packages/a", "apps/web/nested"}
    assert listed == []
    assert expand(["packages/*"], recording, budget=1) == {"packages/a", "packages/b", "packages/old", "packages/.cache"}
    assert listed == ["packages"]
    with pytest.raises(Unsure):   # apps, apps/web, apps/cli, apps/web/nested, .../deep: five listings
        expand(["apps/**"], recording, budget=4)
    assert len(expand(["apps/**"], recording, budget=5)) == 5


def test_nothing_to_list_with_is_unsure_only_for_a_wildcard() -> None:
    def cannot_list(folder: str) -> list[str] | None:
        raise Unsure

    assert expand(["packages/a", "!packages/b"], cannot_list) == {"packages/a"}
    with pytest.raises(Unsure):
        expand(["packages/*"], cannot_list)


def test_a_symlink_is_no_folder_on_disk_as_in_the_git_tree(tmp_path: Path) -> None:
    """Path.glob's `*` followed a link to a folder, while the git tree holds a link: both listers now
    agree that it is not one (and `**` cannot loop through it)."""
    root = make_repo(tmp_path / "repo", {"vendor/real/package.json": "{}\n", "packages/a/package.json": "{}\n"})
    os.symlink("../vendor/real", root / "packages" / "linked")
    os.symlink("..", root / "packages" / "a" / "loop")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "links")
    tree = pygit2.Repository(str(root)).head.peel(pygit2.Tree)
    assert tree["packages/linked"].type_str == "blob"
    for subfolders in (disk_subfolders(root), lambda folder: tree_subfolders(tree, folder)):
        assert expand(["packages/*"], subfolders) == {"packages/a"}
        assert expand(["packages/**"], subfolders) == {"packages", "packages/a"}
        assert expand(["packages/linked"], subfolders) == {"packages/linked"}   # a literal: the caller's manifest check decides


def test_a_tree_lister_says_none_for_what_is_no_folder(layout) -> None:
    _, tree = layout
    assert sorted(tree_subfolders(tree, "")) == sorted({".github", "apps", "crates", "node_modules", "packages", "tools"})
    assert tree_subfolders(tree, "package.json") is None
    assert tree_subfolders(tree, "nowhere") is None
    assert tree_subfolders(tree, "apps/web") == ["nested"]
    assert disk_subfolders(Path("/nonexistent-for-member-globs"))("") is None
    assert disk_subfolders(Path(__file__))("") is None   # a file


def test_names_answers_for_one_folder_as_expand_does(tmp_path: Path) -> None:
    """`names` (one folder, no listing: which uv workspace locks a member) agrees with `expand`."""
    write(tmp_path, LAYOUT)
    globs = ["packages/*", "apps/**", "!packages/old"]
    found = expand(globs, disk_subfolders(tmp_path))
    for folder in ("packages/a", "packages/old", "apps/web/nested/deep", "apps", "tools/ab", ""):
        assert names(globs, folder) == (folder in found), folder


def test_a_uv_members_lockfile_is_its_workspaces_unless_excluded() -> None:
    from worktree_coord.consolidate.uv_workspace import uv_lock_root

    files = {"pyproject.toml": b'[project]\nname = "app"\n\n[tool.uv.workspace]\nmembers = ["libs/*"]\n'
                               b'exclude = ["libs/own"]\n',
             "libs/a/pyproject.toml": b'[project]\nname = "a"\n', "libs/own/pyproject.toml": b'[project]\nname = "o"\n'}
    assert uv_lock_root(files.get, "libs/a") == ""
    assert uv_lock_root(files.get, "libs/own") == "libs/own"     # excluded: locks itself
    assert uv_lock_root(files.get, "tools/x") == "tools/x"       # not a member
