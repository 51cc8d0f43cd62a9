"""The uv workspace single-version rule against the members' manifests: a planned range must meet
every range of that package the workspace already holds (real uv, offline, a local wheel folder)."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import RootState, consolidate_root, declare_intent, derive_intents, plan
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.planning import ConflictKind
from worktree_coord.consolidate.textformat import load_toml, plain

ROOT = '''[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["lib-a"]

[tool.uv.sources]
lib-a = { workspace = true }

[tool.uv.workspace]
members = ["libs/*"]
'''


def member(name: str, deps: str = "") -> dict[str, str]:
    return {f"libs/{name}/pyproject.toml": f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                                           f'dependencies = [{deps}]\n\n[build-system]\nrequires = ["hatchling"]\n'
                                           f'build-backend = "hatchling.build"\n',
            f"libs/{name}/src/{name.replace('-', '_')}/__init__.py": ""}


def wheel(folder: Path, name: str, version: str) -> None:
    """A minimal valid pure-Python wheel, so uv resolves `name` offline from a find-links folder."""
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"VERSION = {version!r}\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=').decode()},"
              f"{len(t)}" for p, t in files.items()]
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), text)


def reader(files: dict[str, str]):
    return lambda path: files[path].encode() if path in files else None


MEMBERS = {"pyproject.toml": ROOT, **member("lib-a", '"shared>=2"'), **member("lib-b")}
SPACE = {("uv", ""): ("pyproject.toml", "libs/lib-a/pyproject.toml", "libs/lib-b/pyproject.toml")}


def declare(task: str, spec: str, manifest: str = "libs/lib-b/pyproject.toml", files=MEMBERS):
    return declare_intent(manifest, files[manifest].encode(), task=task, op="add_dep", name="shared", spec=spec,
                          root="", ecosystem="uv")


def test_a_range_disjoint_from_another_members_requirement_is_a_conflict_naming_that_manifest():
    p = plan([declare("old", ">=1,<2"), declare("new", ">=1.5", manifest="pyproject.toml")], reader(MEMBERS),
             workspace_manifests=SPACE)
    [conflict] = p.conflicts
    assert conflict.kind == ConflictKind.DISJOINT_RANGES and conflict.tasks == ("integration", "old")
    assert "libs/lib-a/pyproject.toml [dependencies] requires '>=2'" in conflict.message
    assert "task(s) old want '>=1,<2' in libs/lib-b/pyproject.toml" in conflict.message
    assert [(c.intent.task, c.intent.spec) for c in p.changes] == [("new", ">=1.5")]
    # Without the workspace's manifests (the old behaviour) the base requirement goes unseen.
    assert not plan([declare("old", ">=1,<2")], reader(MEMBERS)).conflicts


def test_undecidable_ranges_conflict_and_ranges_the_workspace_cannot_hold_against_are_skipped():
    [undecided] = plan([declare("t", "===1.0")], reader(MEMBERS), workspace_manifests=SPACE).conflicts
    assert undecided.kind == ConflictKind.UNDECIDABLE_RANGES and "cannot decide" in undecided.message
    # A marker-limited, a path-sourced, or an overridden requirement is no single-version constraint.
    for lib_a in ('"shared>=2; sys_platform == \'win32\'"', '"shared"'):
        files = {**MEMBERS, **member("lib-a", lib_a)}
        assert not plan([declare("t", "<2")], reader(files), workspace_manifests=SPACE).conflicts
    sourced = {**MEMBERS, "libs/lib-a/pyproject.toml": MEMBERS["libs/lib-a/pyproject.toml"]
               + '\n[tool.uv.sources]\nshared = { path = "../../vendor/shared" }\n'}
    assert not plan([declare("t", "<2")], reader(sourced), workspace_manifests=SPACE).conflicts
    overridden = {**MEMBERS, "pyproject.toml": ROOT.replace("[tool.uv.workspace]", '[tool.uv]\noverride-dependencies = '
                                                            '["shared==1.0"]\n\n[tool.uv.workspace]')}
    assert not plan([declare("t", "<2")], reader(overridden), workspace_manifests=SPACE).conflicts
    # The key a change rewrites does not conflict with its own old value.
    lower = declare_intent("libs/lib-a/pyproject.toml", MEMBERS["libs/lib-a/pyproject.toml"].encode(), task="t",
                           op="set_spec", name="shared", spec="<2", root="", ecosystem="uv")
    assert lower.expected_before == ">=2"
    assert not plan([lower], reader(MEMBERS), workspace_manifests=SPACE).conflicts
    # ... but another change that still needs the old range does.
    [clash] = plan([lower, declare("t2", ">=2.0")], reader(MEMBERS), workspace_manifests=SPACE).conflicts
    assert clash.tasks == ("t", "t2") and clash.kind == ConflictKind.DISJOINT_RANGES


needs_uv = pytest.mark.skipif(find_tool("uv") is None, reason="uv comes with the test extras")


@pytest.fixture
def uv_env(tool_env, tmp_path) -> dict[str, str]:
    for version in ("1.0", "2.0"):
        wheel(tmp_path / "wheels", "shared", version)
    return {**tool_env, "UV_FIND_LINKS": str(tmp_path / "wheels")}


def make_workspace(ws: Path, env: dict[str, str], files: dict[str, str] = MEMBERS) -> Path:
    write(ws, files)
    run = adapter_for("uv", ws, "", env=env).relock(offline=True)
    assert run.ok, run.stderr
    return ws


def locked(ws: Path) -> dict[str, dict]:
    return {p["name"]: p for p in plain(load_toml("uv.lock", (ws / "uv.lock").read_bytes()))["package"]}


@needs_uv
def test_with_real_uv_the_disjoint_member_intent_is_refused_and_a_compatible_one_relocks(tmp_path, uv_env):
    ws = make_workspace(tmp_path / "ws", uv_env)
    assert locked(ws)["shared"]["version"] == "2.0"
    before = snapshot(ws)
    refused = consolidate_root(ws, "", "uv", [declare("old", ">=1,<2")], env=uv_env)
    assert refused.state == RootState.CONFLICT, refused.error
    [conflict] = refused.conflicts
    assert conflict.tasks == ("integration", "old") and "libs/lib-a/pyproject.toml" in conflict.message
    assert snapshot(ws) == before
    # Both at once: the disjoint one is rejected, the compatible one is applied, locked and verified.
    ok = declare("ok", ">=1.5", manifest="pyproject.toml")       # overlaps both '>=2' and the refused range
    result = consolidate_root(ws, "", "uv", [declare("old", ">=1,<2"), ok], env=uv_env)
    assert result.state == RootState.APPLIED, result.error
    assert [c.tasks for c in result.conflicts] == [("integration", "old")]
    assert [c.intent.task for c in result.applied] == ["ok"] and not result.culprits
    assert set(result.files_changed) == {"pyproject.toml", "uv.lock"}
    assert sorted(d["name"] for d in locked(ws)["app"]["dependencies"]) == ["lib-a", "shared"]
    assert locked(ws)["shared"]["version"] == "2.0"
    assert any(r["argv"][:3] == ["uv", "lock", "--check"] and r["returncode"] == 0 for r in result.tool_runs)
    assert consolidate_root(ws, "", "uv", [ok], env=uv_env).state == RootState.UNCHANGED


@needs_uv
def test_a_new_members_requirement_counts_too(tmp_path, uv_env):
    files = {**MEMBERS, "pyproject.toml": ROOT.replace('members = ["libs/*"]', 'members = ["libs/lib-a", "libs/lib-b"]')}
    ws = make_workspace(tmp_path / "ws", uv_env, files)
    write(ws, member("lib-c", '"shared<2"'))            # task m's new member, merged as ordinary files
    base = files["pyproject.toml"]
    add = derive_intents("pyproject.toml", base.encode(),
                         base.replace('"libs/lib-b"]', '"libs/lib-b", "libs/lib-c"]').encode(), task="m", root="")
    pin = declare("pin", ">=2.0", files=files)
    result = consolidate_root(ws, "", "uv", add + [pin], env=uv_env)
    [conflict] = result.conflicts
    assert conflict.kind == ConflictKind.DISJOINT_RANGES and "libs/lib-c/pyproject.toml" in conflict.message
    assert conflict.tasks == ("integration", "pin")
