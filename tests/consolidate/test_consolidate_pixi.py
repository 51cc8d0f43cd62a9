"""pixi.toml and pixi.lock are a root manifest and its lockfile (dask keeps both, and its
pyproject.toml says they must match): reserved, a task's edit of pixi.toml's dependencies and
settings carried as intents, applied where the task wrote them; without pixi on the machine the
manifest lands and the result names the step left (`pixi lock`). No pixi is installed here: its
relock is not run; the missing tool is real (PATH without it)."""

from __future__ import annotations

import pytest

from conftest import write
from worktree_coord.boundary.manifest import DEFAULT_RESERVED
from worktree_coord.consolidate import Ecosystem, Op, RootState, classify_path, consolidate, derive_intents
from worktree_coord.consolidate.adapters.pixi import locked_packages
from worktree_coord.consolidate.derive import find_root

PIXI = b'''[workspace]
channels = ["https://prefix.dev/conda-forge"]
platforms = ["linux-64", "osx-arm64", "win-64"]

[package]
name = "dask-core"
version = "2099.0.0"

[package.run-dependencies]
click = ">=8.1"
toolz = ">=0.12.0"

[feature.py310.dependencies]
python = "=3.10"
numpy = "=1.24"

[feature.py313.dependencies]
python = "=3.13"
numpy = "=2.4"

[feature.test.dependencies]
pytest = "*"
pytest-xdist = "*"
pytest-reportlog = "*"  # Used when automatically opening an issue when CI fails

[feature.test.tasks]
test = "pytest"

[environments]
py310 = ["py310", "test"]
'''

LOCK = '''version: 6
environments:
  default:
    packages:
      linux-64:
      - conda: https://prefix.dev/conda-forge/noarch/toolz-0.12.1-pyhd8ed1ab_0.conda
packages:
- conda: https://prefix.dev/conda-forge/noarch/toolz-0.12.1-pyhd8ed1ab_0.conda
  sha256: 0000
  depends:
  - python >=3.7
- conda: https://prefix.dev/conda-forge/linux-64/python-3.13.1-h9ebbce0_100_cp313.conda
  size: 1
- conda: .
  name: dask-core
  version: 2099.0.0
- pypi: https://files.pythonhosted.org/packages/0c/d5/donfig-0.8.1.post1-py3-none-any.whl
  name: donfig
  version: 0.8.1.post1
'''


def test_pixi_files_are_reserved_and_known_and_a_task_edit_becomes_intents_in_their_tables():
    assert "/pixi.toml" in DEFAULT_RESERVED and "pixi.lock" in DEFAULT_RESERVED
    assert (classify_path("pixi.toml").kind, classify_path("pixi.toml").ecosystem) == ("manifest", Ecosystem.PIXI)
    assert (classify_path("pixi.lock").kind, classify_path("pixi.lock").ecosystem) == ("lockfile", Ecosystem.PIXI)
    assert find_root("pixi.toml", {"pixi.toml", "pixi.lock", "pyproject.toml"}) == ""
    new = (PIXI.replace(b'toolz = ">=0.12.0"\n', b'toolz = ">=0.12.0"\ntomli = ">=2.0"\n')
           .replace(b'pytest-xdist = "*"\n', b'pytest-xdist = "*"\npytest-benchmark = "*"\n')
           .replace(b'numpy = "=2.4"', b'numpy = "=2.3"')
           .replace(b'test = "pytest"', b'test = "pytest -n auto"'))
    intents = derive_intents("pixi.toml", PIXI, new, task="t")
    assert {(i.op, i.group, i.name, i.spec) for i in intents} == {
        (Op.ADD_DEP, "feature.test.dependencies", "pytest-benchmark", "*"),
        (Op.SET_SPEC, "feature.py313.dependencies", "numpy", "=2.3"),
        (Op.ADD_DEP, "package.run-dependencies", "tomli", ">=2.0"),
        (Op.SET_KEY, "settings", "feature.test.tasks.test", '"pytest -n auto"')}
    assert {i.ecosystem for i in intents} == {Ecosystem.PIXI}
    [lock] = derive_intents("pixi.lock", LOCK.encode(), LOCK.encode() + b"- conda: x\n", task="t")
    assert (lock.op, lock.ecosystem, lock.root) == (Op.RELOCK, Ecosystem.PIXI, "")


def test_without_pixi_the_manifest_lands_as_the_tasks_and_the_result_names_pixi_lock(tmp_path):
    write(tmp_path, {"pixi.toml": PIXI, "pixi.lock": LOCK})
    one = PIXI.replace(b'toolz = ">=0.12.0"\n', b'toolz = ">=0.12.0"\ntomli = ">=2.0"\n')
    two = PIXI.replace(b'pytest-xdist = "*"\n', b'pytest-xdist = "*"\npytest-benchmark = "*"\n')
    intents = derive_intents("pixi.toml", PIXI, one, task="a") + derive_intents("pixi.toml", PIXI, two, task="b")
    no_pixi = tmp_path / "bin"
    no_pixi.mkdir()
    result = consolidate(tmp_path, intents, env={"PATH": str(no_pixi)})
    [root] = result.roots
    assert root.state == RootState.APPLIED, root.error
    assert (tmp_path / "pixi.toml").read_bytes() == one.replace(
        b'pytest-xdist = "*"\n', b'pytest-xdist = "*"\npytest-benchmark = "*"\n')
    assert (tmp_path / "pixi.lock").read_text() == LOCK
    assert root.files_changed == ("pixi.toml",)
    [warning] = root.warnings
    assert "pixi is not installed" in warning and "`pixi lock`" in warning and "pixi.lock" in warning
    assert [run["argv"] for run in root.tool_runs] == [["pixi", "lock"]]


def test_pixi_lock_names_each_package_with_its_versions():
    assert locked_packages(LOCK) == {"toolz": {"0.12.1"}, "python": {"3.13.1"}, "dask-core": {"2099.0.0"},
                                     "donfig": {"0.8.1.post1"}}


def test_a_declared_pixi_dependency_names_its_table_and_a_table_pixi_has_not_is_refused_at_once():
    from worktree_coord.consolidate import declare_intent
    from worktree_coord.consolidate.edits import edit_manifest
    from worktree_coord.errors import UsageError

    plain = declare_intent("pixi.toml", PIXI, task="d", op="add_dep", name="rich", spec="*")
    assert (plain.group, plain.ecosystem) == ("dependencies", Ecosystem.PIXI)
    test = declare_intent("pixi.toml", PIXI, task="d", op="add_dep", name="hypothesis", spec=">=6",
                          group="feature.test.dependencies")
    assert b'pytest-reportlog = "*"  # Used when automatically opening an issue when CI fails\nhypothesis = ">=6"\n' \
        in edit_manifest("pixi.toml", PIXI, test)
    with pytest.raises(UsageError, match="not a pixi.toml dependency table") as refused:
        declare_intent("pixi.toml", PIXI, task="d", op="add_dep", name="x", spec="*", group="feature.test.tasks")
    assert "feature.NAME.dependencies" in refused.value.fix
