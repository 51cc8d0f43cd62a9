"""pyproject.toml's requirement lists merge as sets of packages (grammars/toml.toml).

Found driving wtc on pydantic/pydantic-ai (a uv workspace): a member's pyproject.toml is not
reserved (only the root is), so it goes through the merge; two tasks each adding a dependency at
the end of `dependencies = [...]` conflicted, as git does, although a resolver reads the list as a
set. Each element is now keyed by its package name: different packages at one place are both kept,
one package given two specifiers (added, bumped, or deleted against a bump) stays a conflict, and
Cargo's `[features]` lists merge as sets of features the same way; arrays that are neither
(classifiers, keywords) keep the line merge."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from tests.lead.helpers import cli
from worktree_coord.errors import ConfigError
from worktree_coord.merge import merge_file
from worktree_coord.merge.languages.profiles import load_profile_text

BASE = '[project]\nname = "x"\ndependencies = [\n    "anyio>=4.7.0",\n    "pydantic>=2.12",\n]\n'


def _after(text: str, anchor: str, *lines: str) -> str:
    assert anchor in text
    return text.replace(anchor, anchor + "".join(f"    {line},\n" for line in lines), 1)


def merged(base: str, left: str, right: str, path: str = "pyproject.toml"):  # type: ignore[no-untyped-def]
    return merge_file(base.encode(), left.encode(), right.encode(), path=path)


def test_two_packages_added_at_one_place_are_both_kept_left_first() -> None:
    result = merged(BASE, _after(BASE, '"pydantic>=2.12",\n', '"rich>=13"'),
                    _after(BASE, '"pydantic>=2.12",\n', '"attrs"'))
    assert result.clean, result.notes
    assert result.merged.decode() == _after(BASE, '"pydantic>=2.12",\n', '"rich>=13"', '"attrs"')
    # at the top, before the first entry, too
    top = merged(BASE, _after(BASE, "dependencies = [\n", '"a1"'), _after(BASE, "dependencies = [\n", '"b1"'))
    assert top.clean and top.merged.decode() == _after(BASE, "dependencies = [\n", '"a1"', '"b1"')


@pytest.mark.parametrize(("left", "right", "package"), [
    (_after(BASE, '"pydantic>=2.12",\n', '"rich>=13"'), _after(BASE, '"pydantic>=2.12",\n', '"rich>=14"'), "rich"),
    (BASE.replace("anyio>=4.7.0", "anyio>=4.8"), BASE.replace("anyio>=4.7.0", "anyio>=4.9"), "anyio"),
    (BASE.replace('    "anyio>=4.7.0",\n', ""), BASE.replace("anyio>=4.7.0", "anyio>=4.9"), "anyio"),
])
def test_one_package_given_two_specifiers_stays_a_conflict(left: str, right: str, package: str) -> None:
    result = merged(BASE, left, right)
    assert not result.clean
    assert [c.declaration for c in result.conflicts] == [f"[project] > dependencies > {package}"]


def test_a_bump_beside_an_added_package_merges() -> None:
    result = merged(BASE, BASE.replace("anyio>=4.7.0", "anyio>=4.8"), _after(BASE, '"anyio>=4.7.0",\n', '"attrs"'))
    assert result.clean
    assert result.merged.decode() == _after(BASE.replace("anyio>=4.7.0", "anyio>=4.8"), '"anyio>=4.8",\n', '"attrs"')


def test_layouts_sorted_one_line_no_trailing_comma_markers_and_urls() -> None:
    sorted_list = ('[project]\nname = "x"\ndependencies = [\n    "anyio",\n    "httpx",\n    "pydantic",\n'
                   '    "zstd",\n]\n')
    result = merged(sorted_list, sorted_list.replace('    "zstd"', '    "rich",\n    "zstd"'),
                    sorted_list.replace('    "httpx",\n', '    "attrs",\n    "httpx",\n'))
    assert result.clean and result.merged.decode() == sorted_list.replace(
        '    "httpx",\n', '    "attrs",\n    "httpx",\n').replace('    "zstd"', '    "rich",\n    "zstd"')

    one_line = '[project]\nname = "x"\ndependencies = ["anyio", "pydantic"]\n'
    result = merged(one_line, one_line.replace('"pydantic"]', '"pydantic", "rich"]'),
                    one_line.replace('"pydantic"]', '"pydantic", "attrs"]'))
    assert result.clean and result.merged.decode() == one_line.replace('"pydantic"]', '"pydantic", "rich", "attrs"]')

    bare_end = '[project]\nname = "x"\ndependencies = [\n    "anyio",\n    "pydantic"\n]\n'
    result = merged(bare_end, bare_end.replace('"pydantic"\n', '"pydantic",\n    "rich"\n'),
                    bare_end.replace('"pydantic"\n', '"pydantic",\n    "attrs"\n'))
    assert result.clean and result.merged.decode() == bare_end.replace(
        '"pydantic"\n', '"pydantic",\n    "rich",\n    "attrs"\n')

    marker = "\"rich[jupyter]>=13 ; python_version >= '3.10'\""
    result = merged(BASE, _after(BASE, '"anyio>=4.7.0",\n', marker),
                    _after(BASE, '"anyio>=4.7.0",\n', '"pkg @ https://example.org/pkg.whl"'))
    assert result.clean and result.merged.decode() == _after(BASE, '"anyio>=4.7.0",\n', marker,
                                                             '"pkg @ https://example.org/pkg.whl"')


def test_groups_extras_build_requires_and_a_metadata_hook_are_requirement_lists() -> None:
    groups = '[dependency-groups]\ndev = [\n    "pytest>=8",\n    {include-group = "lint"},\n]\nlint = ["ruff"]\n'
    result = merged(groups, _after(groups, '"pytest>=8",\n', '"pytest-xdist"'),
                    _after(groups, '"pytest>=8",\n', '"pytest-timeout"'))
    assert result.clean and result.merged.decode() == _after(groups, '"pytest>=8",\n', '"pytest-xdist"',
                                                             '"pytest-timeout"')
    for table, key in (("project.optional-dependencies", "web"), ("build-system", "requires"),
                       ("tool.uv", "constraint-dependencies"),
                       ("tool.hatch.metadata.hooks.uv-dynamic-versioning", "dependencies")):
        text = f'[{table}]\n{key} = [\n    # why this one\n    "anyio>=4",\n]\n'
        result = merged(text, _after(text, f"{key} = [\n", '"a1"'), _after(text, f"{key} = [\n", '"b1"'))
        assert result.clean, (table, result.notes)
        assert result.merged.decode() == _after(text, f"{key} = [\n", '"a1"', '"b1"'), table


@pytest.mark.parametrize(("path", "text", "anchor"), [
    ("pyproject.toml", '[project]\nname = "x"\nclassifiers = [\n    "A :: B",\n]\n', '"A :: B",\n'),
    ("pyproject.toml", '[tool.ruff]\nsrc = [\n    "src",\n]\n', '"src",\n'),
    ("Cargo.toml", '[package]\nname = "x"\nkeywords = [\n    "a",\n]\n', '"a",\n'),
])
def test_other_arrays_keep_the_line_merge(path: str, text: str, anchor: str) -> None:
    result = merged(text, _after(text, anchor, '"left"'), _after(text, anchor, '"right"'), path=path)
    assert not result.clean


def test_cargo_features_enable_sets_of_features() -> None:
    """A feature's list is a set too: tasks enabling different features of one feature both land; the
    same feature enabled by both is kept once."""
    cargo = '[package]\nname = "x"\n\n[features]\ndefault = ["std"]\nfull = [\n    "fs",\n    "net",\n]\n'
    result = merged(cargo, _after(cargo, '"net",\n', '"dep:serde"', '"io-util"'),
                    _after(cargo, '"net",\n', '"serde?/std"', '"io-util"'), path="Cargo.toml")
    assert result.clean, result.notes
    assert result.merged.decode() == _after(cargo, '"net",\n', '"dep:serde"', '"io-util"', '"serde?/std"')
    one_line = merged(cargo, cargo.replace('["std"]', '["std", "alloc"]'), cargo.replace('["std"]', '["std", "rt"]'),
                      path="Cargo.toml")
    assert one_line.clean and one_line.merged.decode() == cargo.replace('["std"]', '["std", "alloc", "rt"]')


def test_a_package_listed_twice_in_the_base_still_merges_beside_it() -> None:
    """Two entries of one package with different markers are legal; keys repeat, nothing is lost."""
    twice = ("[project]\nname = \"x\"\ndependencies = [\n    \"numpy>=1.24; python_version < '3.12'\",\n"
             "    \"numpy>=1.26; python_version >= '3.12'\",\n    \"pydantic\",\n]\n")
    result = merged(twice, _after(twice, '"pydantic",\n', '"rich"'), _after(twice, '"pydantic",\n', '"attrs"'))
    assert result.clean and result.merged.decode() == _after(twice, '"pydantic",\n', '"rich"', '"attrs"')


def test_parent_key_chains_and_key_patterns_load_and_are_checked() -> None:
    profile = load_profile_text(
        'name = "mini"\nextensions = ["mini"]\ngrammar = "tree_sitter_toml"\ncomments = ["comment"]\n'
        '[[containers]]\nkind = "document"\n[[containers]]\nkind = "table"\n'
        '[[containers]]\nkind = "array"\nparent = "pair"\nparent_key = "[a] > x*"\nseparator = ","\n'
        '[declarations]\npair = "{bare_key}"\ntable = "[{bare_key}]"\nstring = \'{~"(\\w)}\'\n', "mini.toml")
    assert [rule.parent_key for rule in profile.containers if rule.kind == "array"] == ["[a] > x*"]
    with pytest.raises(ConfigError, match="needs a group"):
        load_profile_text('name = "mini"\nextensions = ["mini"]\ngrammar = "tree_sitter_toml"\n'
                          '[[containers]]\nkind = "document"\n[declarations]\nstring = \'{~"\\w}\'\n', "mini.toml")
    with pytest.raises(ConfigError, match="bad pattern"):
        load_profile_text('name = "mini"\nextensions = ["mini"]\ngrammar = "tree_sitter_toml"\n'
                          '[[containers]]\nkind = "document"\n[declarations]\nstring = \'{~"(\\w}\'\n', "mini.toml")


MEMBER = ('[project]\nname = "lib"\nversion = "0.1.0"\nrequires-python = ">=3.10"\ndependencies = [\n'
          '    # why: the streaming teardown\n    "anyio>=4.7.0",\n]\n')
ROOT = '[project]\nname = "app"\nversion = "0.1.0"\n\n[tool.uv.workspace]\nmembers = ["lib"]\n'


def test_two_tasks_adding_dependencies_to_one_member_both_merge(tmp_path: Path) -> None:
    """The lead's path: both finishes merge, each leaves a relock for consolidation, and the member's
    list holds both packages."""
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": ROOT, "lib/pyproject.toml": MEMBER,
                                         "lib/src/lib/__init__.py": "", "uv.lock": "version = 1\n"})
    cli(repo, "run", "start", "--run", "r", expect=0)
    for task, package in (("a", '"rich>=13"'), ("b", '"attrs>=23"')):
        _, started = cli(repo, "task", "start", task, "--run", "r", "--own", "lib/**", expect=0)
        write(Path(started["worktree"]), {"lib/pyproject.toml": _after(MEMBER, '"anyio>=4.7.0",\n', package)})
    for task in ("a", "b"):
        _, done = cli(repo, "task", "finish", task, "--run", "r", expect=0)
        assert done["state"] == "merged"
        assert [i["op"] for i in done["intents"]] == ["relock"]
    landed = subprocess.run(["git", "show", "wtc/r/integration:lib/pyproject.toml"], cwd=repo, check=True,
                            capture_output=True, text=True).stdout
    assert landed == _after(MEMBER, '"anyio>=4.7.0",\n', '"rich>=13"', '"attrs>=23"')
    assert git(repo, "status", "--porcelain") == ""
