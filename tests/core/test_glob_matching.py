"""Boundary globs of the plain shapes (`pkg/a/**`, `/package.json`, `yarn.lock`, `requirements*.txt`)
are matched by string tests, without pathspec (boundary/globs.py, `_plain_test`): every answer is
pathspec's GitIgnoreSpec answer, on chosen cases and on generated globs and paths, and a start or
finish that meets only such globs never loads pathspec."""

from __future__ import annotations

import subprocess
import sys

import pathspec
from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.boundary import globs

DEFAULT_RESERVED = ("/package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml",
                    "/pnpm-workspace.yaml", "yarn.lock", "/.yarnrc.yml", "bun.lock", "bun.lockb", "/Cargo.toml",
                    "Cargo.lock", "/pyproject.toml", "uv.lock", "poetry.lock", "requirements*.txt", "go.mod", "go.sum",
                    "go.work", "go.work.sum")

PATHS = [
    "package.json", "packages/a/package.json", "package.json/inner.txt", "package-lock.json", "a/b/package-lock.json",
    "package-lock.json/x", "requirements.txt", "requirements-dev.txt", "py/requirements-test.txt",
    "requirements.txt.bak", "xrequirements.txt", "requirements/base.txt", "requirements-dir/x.txt",
    "packages/p001/src/a.py", "packages/p001", "packages/p0011/a.py", "packages/p001x", "src/packages/p001/a.py",
    "go.mod", "tools/go.mod", "go.mod.orig", ".yarnrc.yml", "sub/.yarnrc.yml", "Cargo.toml", "crates/x/Cargo.toml",
    "docs/README.md", "README.md", "a.md/b.txt", ".md", "x/.hidden", "Makefile", "lib/Makefile", "a/b/c/d.e",
]

GLOBS = [
    *DEFAULT_RESERVED, "packages/p001/**", "/packages/p001/**", "packages/p001", "/packages/p001", "packages/",
    "packages/**", "*.md", "/*.md", "README.md", "/README.md", "Makefile", "?akefile", "/a/b", "a/b/c",
    ".hidden", "*", "/*", "x/.hidden", "docs", "a.md", "req*", "*.txt", "p00?",
]


def reference(glob_list: tuple[str, ...], path: str) -> bool:
    """What boundary matching answered before the string tests: pathspec over every glob."""
    return globs._spec(glob_list).match_file(path)


def test_chosen_globs_and_paths_agree_with_pathspec() -> None:
    for glob in GLOBS:
        for path in PATHS:
            assert globs.matches([glob], path) == reference((glob,), path), (glob, path)
    for path in PATHS:
        assert globs.matches(DEFAULT_RESERVED, path) == reference(DEFAULT_RESERVED, path), path


def test_the_plain_shapes_take_the_string_tests_and_the_rest_pathspec() -> None:
    for glob in ("packages/p001/**", "/package.json", "yarn.lock", "requirements*.txt", "a/b", "/*.md", "p00?"):
        assert globs._plain_test(glob) is not None, glob
    for glob in ("**/x.py", "a/*/b", "[ab].txt", "a/**/b", "x\\#y", "!a", "a b", "./a", "a/../b", "a**b", "*/x"):
        assert globs._plain_test(glob) is None, glob


def test_a_negation_keeps_pathspecs_order() -> None:
    # A configured reserved list may say "every lockfile but this one": gitignore's last match decides.
    listed = ("*.lock", "!vendor/keep.lock")
    for path in ("a.lock", "vendor/keep.lock", "vendor/other.lock"):
        assert globs.matches(listed, path) == pathspec.GitIgnoreSpec.from_lines(
            [*listed, "*.lock/**"]).match_file(path) == reference(listed, path)


NAME = st.text(alphabet="ab.-_xy1", min_size=1, max_size=4).filter(lambda n: n not in (".", ".."))
WILD_NAME = st.text(alphabet="ab.*?x1", min_size=1, max_size=4).filter(lambda n: n not in (".", "..") and "**" not in n)


@st.composite
def plain_globs(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["literal", "under", "wild"]))
    lead = draw(st.sampled_from(["", "/"]))
    if kind == "wild":
        return lead + draw(WILD_NAME)
    names = draw(st.lists(NAME, min_size=1, max_size=3))
    return lead + "/".join(names) + ("/**" if kind == "under" else "")


@settings(max_examples=400, deadline=None)
@given(glob=plain_globs(), path=st.lists(NAME, min_size=1, max_size=4).map("/".join))
def test_generated_globs_agree_with_pathspec(glob: str, path: str) -> None:
    assert globs.matches([glob], path) == reference((glob,), path)
    assert globs.pattern_problem(glob) is None


def test_a_start_and_a_finish_with_plain_globs_never_load_pathspec(tmp_path) -> None:
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "repo")
    script = (
        "import sys\n"
        "from worktree_coord import Coordinator\n"
        f"c = Coordinator({str(repo)!r})\n"
        "c.start_run('r1')\n"
        "started = c.start_task('r1', 't1', ['packages/api/**'], sparse=True)\n"
        "open(started.worktree + '/packages/api/new.txt', 'w').write('x')\n"
        "assert c.finish_task('r1', 't1').state == 'merged'\n"
        "print('pathspec' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@settings(max_examples=300, deadline=None)
@given(glob_list=st.lists(plain_globs(), min_size=1, max_size=6).map(tuple),
       paths=st.lists(st.lists(NAME, min_size=1, max_size=4).map("/".join), min_size=1, max_size=6))
def test_lists_of_plain_globs_agree_with_pathspec(glob_list: tuple[str, ...], paths: list[str]) -> None:
    """A list's plain globs are one test (prefixes, exact paths, names at any depth, wildcard names
    together): each path's answer is pathspec's over the whole list."""
    for path in paths:
        assert globs.matches(glob_list, path) == reference(glob_list, path), (glob_list, path)
    for path in PATHS:
        assert globs.matches(glob_list, path) == reference(glob_list, path), (glob_list, path)
