"""Consolidation of a pip-tools root (requirements.in -> requirements.txt) offline, from a local wheelhouse."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import Op, RootState, consolidate_root, derive_intents
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import find_tool

pytestmark = pytest.mark.skipif(find_tool("pip-compile") is None, reason="pip-tools comes with the test extras")


def wheel(directory: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> None:
    """A minimal, valid pure-Python wheel: enough for pip's resolver to read its metadata."""
    dist = f"{name.replace('-', '_')}-{version}"
    files = {
        f"{name.replace('-', '_')}/__init__.py": "",
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                      + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist}.dist-info/RECORD"] = "".join(f"{p},,\n" for p in files) + f"{dist}.dist-info/RECORD,,\n"
    directory.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(directory / f"{dist}-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)


@pytest.fixture
def pip_env(tool_env, tmp_path):
    house = tmp_path / "wheelhouse"
    wheel(house, "alpha", "1.0.0", ("beta>=2",))
    wheel(house, "beta", "2.1.0")
    wheel(house, "beta", "3.0.0")
    wheel(house, "gamma", "0.5.0")
    return {**tool_env, "PIP_FIND_LINKS": str(house), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def make_root(root: Path, env: dict) -> Path:
    write(root, {"requirements.in": "# runtime pins\nalpha>=1\n"})
    assert adapter_for("pip-tools", root, "", env=env).relock(offline=True).ok
    return root


def test_added_and_narrowed_requirements_are_compiled_offline_and_idempotent(tmp_path, pip_env):
    root = make_root(tmp_path / "app", pip_env)
    assert "beta==3.0.0" in (root / "requirements.txt").read_text()
    base = (root / "requirements.in").read_bytes()
    a = derive_intents("requirements.in", base, base + b"gamma\n", task="a")
    b = derive_intents("requirements.in", base, base + b"beta<3\n", task="b")
    result = consolidate_root(root, "", "pip-tools", b + a, env=pip_env)
    assert result.state == RootState.APPLIED, result.error
    assert (root / "requirements.in").read_text() == "# runtime pins\nalpha>=1\nbeta<3\ngamma\n"
    locked = (root / "requirements.txt").read_text()
    assert "beta==2.1.0" in locked and "gamma==0.5.0" in locked and str(tmp_path) not in locked
    assert result.lock_diff.changed == (("beta", ("3.0.0",), ("2.1.0",)),) and not result.lock_diff.unexplained
    assert consolidate_root(root, "", "pip-tools", a + b, env=pip_env).state == RootState.UNCHANGED


def test_a_package_missing_from_the_wheelhouse_needs_the_network(tmp_path, pip_env):
    root = make_root(tmp_path / "app", pip_env)
    before = snapshot(root)
    base = (root / "requirements.in").read_bytes()
    miss = derive_intents("requirements.in", base, base + b"requests>=2\n", task="net")
    result = consolidate_root(root, "", "pip-tools", miss, env=pip_env)
    assert result.state == RootState.NEEDS_NETWORK
    assert snapshot(root) == before


def test_an_impossible_range_is_the_culprit_and_a_compiled_file_edit_is_only_a_relock(tmp_path, pip_env):
    root = make_root(tmp_path / "app", pip_env)
    base = (root / "requirements.in").read_bytes()
    bad = derive_intents("requirements.in", base, base + b"beta<2\n", task="bad")
    good = derive_intents("requirements.in", base, base + b"gamma\n", task="good")
    lock = (root / "requirements.txt").read_bytes()
    relock = derive_intents("requirements.txt", lock, lock + b"zzz==1\n", task="edit")
    assert [i.op for i in relock] == [Op.RELOCK]
    result = consolidate_root(root, "", "pip-tools", bad + good + relock, env=pip_env)
    assert result.state == RootState.APPLIED, result.error
    [culprit] = result.culprits
    assert culprit.change.tasks == ("bad",) and "beta<2" in culprit.stderr
    assert "gamma==0.5.0" in (root / "requirements.txt").read_text()


def test_a_requirements_txt_kept_by_hand_is_edited_and_never_compiled(tmp_path):
    """Found driving wtc on encode/httpx: its requirements.txt pins tooling by hand (no
    requirements.in); a task's new pin became an intent, and consolidation ran pip-compile, which
    wanted requirements.in, and blamed the base ("does not relock: fix the manifests")."""
    root = tmp_path / "app"
    text = "# tooling, pinned by hand\n-e .[cli]\n\n# Tests\npytest==8.3.5\n"
    write(root, {"requirements.txt": text})
    base = text.encode()
    [intent] = derive_intents("requirements.txt", base, base + b"pytest-xdist==3.6.1\n", task="req")
    assert intent.op == Op.ADD_DEP
    result = consolidate_root(root, "", "pip-tools", [intent], env={"PATH": "/nonexistent"})
    assert result.state == RootState.APPLIED, result.error
    assert (root / "requirements.txt").read_text().endswith("pytest==8.3.5\npytest-xdist==3.6.1\n")
    assert not (root / "requirements.in").exists() and result.tool_runs == ()
    assert any("kept by hand" in warning for warning in result.warnings)


def test_a_dependency_the_bumped_package_pulls_along_is_not_flagged_for_review(tmp_path, pip_env):
    """A bump that needs a newer dependency moves that dependency too: pip-compile's `# via` lines
    say who required it, so the audit explains the move instead of asking a person to review a
    package "no intent names". A package no named one depends on still is flagged."""
    house = Path(pip_env["PIP_FIND_LINKS"])
    wheel(house, "delta", "1.0.0", ("epsilon>=1",))
    wheel(house, "delta", "2.0.0", ("epsilon>=2",))
    wheel(house, "epsilon", "1.0.0")
    wheel(house, "epsilon", "2.0.0")
    root = tmp_path / "app"
    write(root, {"requirements.in": "alpha>=1\ndelta<2\ngamma\n"})
    assert adapter_for("pip-tools", root, "", env=pip_env).relock(offline=True).ok
    assert "epsilon==2.0.0" in (root / "requirements.txt").read_text()
    # Pin epsilon back by hand in the lock (as an older lock would have it), then bump delta.
    locked = (root / "requirements.txt").read_text().replace("epsilon==2.0.0", "epsilon==1.0.0")
    (root / "requirements.txt").write_text(locked)
    base = (root / "requirements.in").read_bytes()
    bump = derive_intents("requirements.in", base, base.replace(b"delta<2", b"delta>=2"), task="bump")
    result = consolidate_root(root, "", "pip-tools", bump, env=pip_env)
    assert result.state == RootState.APPLIED, result.error
    assert result.lock_diff.changed == (("delta", ("1.0.0",), ("2.0.0",)), ("epsilon", ("1.0.0",), ("2.0.0",)))
    assert result.lock_diff.unexplained == (), result.lock_diff
    assert not any("no intent names" in w for w in result.warnings)
