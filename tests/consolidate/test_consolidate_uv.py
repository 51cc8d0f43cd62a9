"""Consolidation of uv workspaces with the real uv (from the test extras), offline, cache in tmp."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import RootState, consolidate, consolidate_root, derive_intents
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.textformat import load_toml, plain

pytestmark = pytest.mark.skipif(find_tool("uv") is None, reason="uv comes with the test extras")

ROOT = '''[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
    # internal libraries first
    "lib-a",
]

[tool.uv.sources]
lib-a = { workspace = true }

[tool.uv.workspace]
members = ["libs/lib-a"]  # grown by hand
'''


def lib(name: str, deps: str = "") -> dict[str, str]:
    return {f"libs/{name}/pyproject.toml": f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                                           f'dependencies = [{deps}]\n\n[build-system]\nrequires = ["hatchling"]\n'
                                           f'build-backend = "hatchling.build"\n',
            f"libs/{name}/src/{name.replace('-', '_')}/__init__.py": ""}


def make_workspace(ws: Path, env: dict, extra: dict | None = None) -> Path:
    write(ws, {"pyproject.toml": ROOT, **lib("lib-a"), **(extra or {})})
    run = adapter_for("uv", ws, "", env=env).relock(offline=True)
    assert run.ok, run.stderr
    return ws


def lock_packages(ws: Path) -> dict[str, dict]:
    doc = plain(load_toml("uv.lock", (ws / "uv.lock").read_bytes()))
    return {p["name"]: p for p in doc["package"]}


@pytest.mark.parametrize("reverse", [False, True])
def test_new_member_and_dependency_on_it_keep_comments_in_either_order(tmp_path, tool_env, reverse):
    ws = make_workspace(tmp_path / "ws", tool_env, lib("lib-b"))
    base = (ws / "pyproject.toml").read_bytes()
    member = derive_intents("pyproject.toml", base,
                            base.replace(b'members = ["libs/lib-a"]', b'members = ["libs/lib-a", "libs/lib-b"]'), task="m")
    dep = derive_intents("pyproject.toml", base,
                         base.replace(b'    "lib-a",\n', b'    "lib-a",\n    "Lib_B",\n')
                         + b"", task="d")
    dep_src = derive_intents("pyproject.toml", base, base.replace(
        b'    "lib-a",\n', b'    "lib-a",\n    "Lib_B",\n').replace(
        b"lib-a = { workspace = true }\n", b"lib-a = { workspace = true }\nlib-b = { workspace = true }\n"), task="d")
    assert len(dep) == 1 and len(dep_src) == 1 and dep_src[0].source_dict() == {"workspace": True}
    intents = member + dep_src
    result = consolidate_root(ws, "", "uv", list(reversed(intents)) if reverse else intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    text = (ws / "pyproject.toml").read_text()
    assert "    # internal libraries first\n" in text and "# grown by hand" in text
    doc = plain(load_toml("pyproject.toml", text.encode()))
    assert doc["tool"]["uv"]["workspace"]["members"] == ["libs/lib-a", "libs/lib-b"]
    assert doc["tool"]["uv"]["sources"]["lib-b"] == {"workspace": True}
    assert [d["name"] for d in lock_packages(ws)["app"]["dependencies"]] == ["lib-a", "lib-b"]
    assert dict(result.edit_methods)[dep_src[0].intent_id] == "structural"    # tomlkit, never `uv add`
    again = consolidate_root(ws, "", "uv", intents, env=tool_env)
    assert again.state == RootState.UNCHANGED


def test_dependency_group_python_version_and_a_main_dependency_repeated_in_a_group(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, lib("lib-b"))
    base = (ws / "pyproject.toml").read_bytes().replace(b'["libs/lib-a"]', b'["libs/*"]')
    (ws / "pyproject.toml").write_bytes(base)
    new = base.replace(b'requires-python = ">=3.11"', b'requires-python = ">=3.11,<4"').replace(
        b"lib-a = { workspace = true }\n", b"lib-a = { workspace = true }\nlib-b = { workspace = true }\n") + \
        b'\n[dependency-groups]\ndev = ["lib-b"]\n'
    # lib-a is already a main dependency: a dependency group may name it too (PEP 735; uv resolves one
    # version for both), so this is no conflict.
    repeat = base + b'\n[dependency-groups]\nlint = ["lib-a"]\n'
    intents = derive_intents("pyproject.toml", base, new, task="g") + derive_intents("pyproject.toml", base, repeat,
                                                                                     task="c")
    result = consolidate_root(ws, "", "uv", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert not result.conflicts
    groups = plain(load_toml("pyproject.toml", (ws / "pyproject.toml").read_bytes()))["dependency-groups"]
    assert groups["lint"] == ["lib-a"] and groups["dev"] == ["lib-b"]
    assert plain(load_toml("uv.lock", (ws / "uv.lock").read_bytes()))["requires-python"] == ">=3.11, <4"
    assert plain(load_toml("uv.lock", (ws / "uv.lock").read_bytes()))["requires-python"] == ">=3.11, <4"
    assert b"lib-b>=5" not in (ws / "pyproject.toml").read_bytes()


def test_an_uncached_registry_package_needs_the_network_and_another_root_still_consolidates(tmp_path, tool_env):
    repo = tmp_path / "repo"
    make_workspace(repo / "py1", tool_env)
    make_workspace(repo / "py2", tool_env, lib("lib-c"))
    before = snapshot(repo / "py1")
    base = (repo / "py1/pyproject.toml").read_bytes()
    miss = derive_intents("py1/pyproject.toml", base, base.replace(b'    "lib-a",\n', b'    "lib-a",\n    "requests>=2",\n'),
                          task="net")
    base2 = (repo / "py2/pyproject.toml").read_bytes()
    ok = derive_intents("py2/pyproject.toml", base2,
                        base2.replace(b'members = ["libs/lib-a"]', b'members = ["libs/*"]'), task="glob")
    result = consolidate(repo, miss + ok, env=tool_env)
    states = {r.root: r.state for r in result.roots}
    assert states == {"py1": RootState.NEEDS_NETWORK, "py2": RootState.APPLIED}, [r.error for r in result.roots]
    assert snapshot(repo / "py1") == before
    assert "lib-c" in lock_packages(repo / "py2")


def test_a_workspace_requirement_the_lock_cannot_meet_is_dropped_by_verification(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, lib("lib-b"))
    base = (ws / "pyproject.toml").read_bytes().replace(b'["libs/lib-a"]', b'["libs/*"]')
    (ws / "pyproject.toml").write_bytes(base)
    sources = b"lib-a = { workspace = true }\nlib-b = { workspace = true }\n"
    bad = derive_intents("pyproject.toml", base, base.replace(b'    "lib-a",\n', b'    "lib-a",\n    "lib-b>=5",\n')
                         .replace(b"lib-a = { workspace = true }\n", sources), task="bad")
    good = derive_intents("pyproject.toml", base, base.replace(b'">=3.11"', b'">=3.11,<4"'), task="good")
    assert len(bad) == 1 and len(good) == 1
    result = consolidate_root(ws, "", "uv", bad + good, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    [culprit] = result.culprits
    assert culprit.change.tasks == ("bad",)
    # uv locks the workspace member whatever the range says; verification catches it and drops the change.
    assert "outside '>=5'" in culprit.reason
    assert [c.intent.task for c in result.applied] == ["good"]
    assert plain(load_toml("uv.lock", (ws / "uv.lock").read_bytes()))["requires-python"] == ">=3.11, <4"
    assert b"lib-b>=5" not in (ws / "pyproject.toml").read_bytes()


@pytest.mark.parametrize("manifest, old, new, lockfile", [
    ("pyproject.toml", '    "click>=8",\n', '    "click>=8",\n    "rich>=13",\n', "uv.lock"),
    ("package.json", '"left-pad": "^1.3.0"', '"left-pad": "^1.3.0", "chalk": "^5.3.0"', "package-lock.json"),
])
def test_a_project_that_locks_nothing_gets_its_manifest_edited_and_no_lockfile(tmp_path, tool_env, manifest, old,
                                                                                new, lockfile):
    # A library without a committed lockfile (black: hatch, no uv.lock): consolidation must not add one
    # (nor fail offline trying to resolve the whole project to write it).
    texts = {"pyproject.toml": '[project]\nname = "lib"\nversion = "1.0"\ndependencies = [\n    "click>=8",\n]\n',
             "package.json": '{\n  "name": "lib",\n  "version": "1.0.0",\n  "dependencies": {"left-pad": "^1.3.0"}\n}\n'}
    ws = tmp_path / "ws"
    write(ws, {manifest: texts[manifest]})
    base = (ws / manifest).read_bytes()
    intents = derive_intents(manifest, base, base.replace(old.encode(), new.encode()), task="t")
    [result] = consolidate(ws, intents, env=tool_env).roots
    assert result.state == RootState.APPLIED, result.error
    assert result.files_changed == (manifest,) and not (ws / lockfile).exists()
    edited = (ws / manifest).read_text()
    assert ("rich>=13" if manifest == "pyproject.toml" else '"chalk": "^5.3.0"') in edited
    relock_argv = list(adapter_for("uv" if lockfile == "uv.lock" else "npm", ws, "", env=tool_env).config.relock)
    assert [run["argv"] for run in result.tool_runs if run["argv"][:len(relock_argv)] == relock_argv] == [], \
        "the relock never ran"
    assert any(f"has no {lockfile}" in warning for warning in result.warnings)
    # A task that asks for the lockfile itself (a relock intent) still gets it relocked.
    relock = derive_intents(lockfile, None, b"{}" if lockfile.endswith(".json") else b"version = 1\n", task="r")
    assert relock and all(i.op.value == "relock" for i in relock)


def test_an_uncached_git_dependency_needs_the_network_and_lock_neutral_settings_land_apart(tmp_path, tool_env):
    """modelcontextprotocol/python-sdk, driven as a user: its dev group holds a git dependency; offline,
    uv said "Remote Git fetches are not allowed because network connectivity is disabled", which was
    taken for a base that does not relock (FAILED, "fix the manifests"), and a `[tool.ruff]` edit in
    the same root waited with it. Now: the miss needs the network, and the lint lands on its own."""
    ws = make_workspace(tmp_path / "ws", tool_env)
    lock = (ws / "uv.lock").read_bytes()
    base = (ws / "pyproject.toml").read_bytes()
    new = base.replace(b'    "lib-a",\n', b'    "lib-a",\n    "gitdep @ git+https://example.invalid/org/gitdep",\n') \
        + b"\n[tool.ruff]\nline-length = 100\n"
    intents = derive_intents("pyproject.toml", base, new, task="t")
    assert sorted(i.op.value for i in intents) == ["add_dep", "set_key"]
    result = consolidate(ws, intents, env=tool_env)
    alone, rest = result.roots
    assert (alone.state, alone.files_changed, alone.intent_ids) == \
        (RootState.APPLIED, ("pyproject.toml",), ("t:pyproject.toml:set_key:settings:tool.ruff.line-length",))
    assert alone.tool_runs == (), "a lint needs no relock"
    assert rest.state is RootState.NEEDS_NETWORK, rest.error
    assert rest.intent_ids == ("t:pyproject.toml:add_dep:dependencies:gitdep",)
    written = (ws / "pyproject.toml").read_bytes()
    assert written.endswith(b"[tool.ruff]\nline-length = 100\n") and b"gitdep" not in written
    assert (ws / "uv.lock").read_bytes() == lock


def test_a_merged_member_manifest_that_does_not_relock_is_named_not_the_base(tmp_path, tool_env):
    """pydantic/pydantic-ai, driven as a user: a member's pyproject.toml is merged on the integration
    branch (only the root is reserved), each edit leaving a `relock` intent. When that merged member
    breaks the lock, no intent's edit is to blame, and the error said "the base of . does not relock",
    sending the lead to the pinned commit. It names the member manifests and the tasks that changed
    them, and the summary carries uv's own cause line."""
    from worktree_coord.consolidate.tool_output import summarize_message

    ws = make_workspace(tmp_path / "ws", tool_env)
    member = "libs/lib-a/pyproject.toml"
    before = (ws / member).read_bytes()
    after = before.replace(b"dependencies = []", b'dependencies = ["lib-c"]') + \
        b"\n[tool.uv.sources]\nlib-c = { workspace = true }\n"
    [relock] = derive_intents(member, before, after, task="t1", root="")
    (ws / member).write_bytes(after)           # merged on the integration branch, as the queue does
    result = consolidate_root(ws, "", "uv", [relock], env=tool_env)
    assert result.state == RootState.FAILED
    message = result.error["message"]
    assert "(libs/lib-a/pyproject.toml by task t1)" in message and "the base of" not in message
    assert "libs/lib-a/pyproject.toml" in result.error["fix"]
    summary = summarize_message(message)      # what the report and the consolidation summary print
    assert "(libs/lib-a/pyproject.toml by task t1)" in summary and "`lib-c` references a workspace" in summary


def test_the_fix_for_a_merged_member_that_does_not_relock_brings_the_integration_tip_into_the_new_task(tmp_path, tool_env):
    """pydantic/pydantic-ai, driven as a user: two tasks gave two members disjoint ranges of one package
    (`packaging>=24` and `packaging<20`), both merged, the relock failed, and the fix said "correct
    pydantic_evals/pyproject.toml with a new task that owns it". A new task starts at the pin, where
    the bad line is not: its worktree showed nothing to correct and it finished empty. The fix says
    to bring the integration tip in first."""
    ws = make_workspace(tmp_path / "ws", tool_env)
    member = "libs/lib-a/pyproject.toml"
    before = (ws / member).read_bytes()
    after = before.replace(b"dependencies = []", b'dependencies = ["lib-c"]') + \
        b"\n[tool.uv.sources]\nlib-c = { workspace = true }\n"
    [relock] = derive_intents(member, before, after, task="t1", root="")
    (ws / member).write_bytes(after)
    result = consolidate_root(ws, "", "uv", [relock], env=tool_env)
    assert result.state == RootState.FAILED
    fix = result.error["fix"]
    assert "libs/lib-a/pyproject.toml" in fix and "wtc task update" in fix and "--retry-failed" in fix, fix


def test_a_source_entry_no_dependency_intent_carries_is_kept(tmp_path, tool_env):
    """pydantic/pydantic-ai, driven as a user: a task that adds a workspace member also lists it in the
    root's `[tool.uv.sources]`, whose dependencies a hatch metadata hook writes (outside the model). The
    source travelled with no intent, and consolidation rewrote the root without it, silently. It is a
    setting now, placed where the task wrote it; a source its dependency's intent carries is not
    repeated."""
    ws = make_workspace(tmp_path / "ws", tool_env, lib("lib-b"))
    base = (ws / "pyproject.toml").read_bytes()
    edited = base.replace(b'members = ["libs/lib-a"]', b'members = ["libs/lib-a", "libs/lib-b"]').replace(
        b"lib-a = { workspace = true }\n", b"lib-a = { workspace = true }\nlib-b = { workspace = true }\n")
    intents = derive_intents("pyproject.toml", base, edited, task="m")
    assert [(i.op.value, i.name, i.spec) for i in intents] == [
        ("add_member", "libs/lib-b", "libs/lib-b"), ("set_key", "tool.uv.sources.lib-b", '{"workspace":true}')]
    result = consolidate_root(ws, "", "uv", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert (ws / "pyproject.toml").read_bytes() == edited
    # a dependency added with its source: the source rides on add_dep, never twice
    with_dep = edited.replace(b'    "lib-a",\n', b'    "lib-a",\n    "lib-b",\n')
    assert [i.op.value for i in derive_intents("pyproject.toml", base, with_dep, task="d")] == ["add_dep", "add_member"]


SINGLE_QUOTED = """[project]
name = 'app'
version = '0.1.0'
requires-python = '>=3.11'
dependencies = [
    'typing-extensions>=4.15.0',
]

[dependency-groups]
dev = [
    'pytest',
    'time-machine; platform_python_implementation != "PyPy"',
]
"""


def test_a_new_entry_keeps_the_files_quoting(tmp_path, tool_env):
    """Found driving wtc on pydantic (single-quoted lists): `uv add --frozen` wrote
    `"pytest-timeout>=2.3",` among `'...'` entries where the task had written `'pytest-timeout>=2.3',`;
    the entry lands in the file's own style (pyproject.toml is edited by tomlkit, adapters/uv.py)."""
    ws = tmp_path / "ws"
    write(ws, {"pyproject.toml": SINGLE_QUOTED})
    base = SINGLE_QUOTED.encode()
    intents = derive_intents("pyproject.toml", base, base.replace(
        b"    'pytest',\n", b"    'pytest',\n    'pytest-timeout>=2.3',\n").replace(
        b"    'typing-extensions>=4.15.0',\n", b"    'typing-extensions>=4.15.0',\n    'annotated-types>=0.6.0',\n"),
        task="t")
    assert len(intents) == 2
    adapter = adapter_for("uv", ws, "", env=tool_env)
    for intent in intents:
        assert adapter.edit(intent) == "structural"
    text = (ws / "pyproject.toml").read_text()
    assert "    'pytest-timeout>=2.3',\n" in text, text
    assert "    'annotated-types>=0.6.0',\n" in text, text
    assert '"pytest-timeout' not in text and '"annotated-types' not in text, text
    assert text.count("pytest-timeout") == 1 and text.count("annotated-types") == 1


def test_a_member_with_a_lockfile_of_its_own_is_relocked_with_its_workspace(tmp_path, tool_env):
    """Found driving wtc on pydantic: pydantic-core, a member of the root's uv workspace, keeps a
    uv.lock of its own; its relock ran `uv lock` in its folder (uv locks the workspace there), the
    root's uv.lock was left stale and the root reported "unchanged". The member's relock is the
    workspace root's."""
    from worktree_coord.consolidate.intent import Ecosystem, Intent, Op

    ws = make_workspace(tmp_path / "ws", tool_env)
    (ws / "libs/lib-a/uv.lock").write_bytes((ws / "uv.lock").read_bytes())   # a lockfile of its own
    member = ws / "libs/lib-a/pyproject.toml"
    member.write_text(member.read_text().replace('version = "0.1.0"', 'version = "0.2.0"'))
    relock = Intent(intent_id="t:libs/lib-a:relock:uv", task="t", ecosystem=Ecosystem.UV, root="libs/lib-a",
                    manifest="libs/lib-a/pyproject.toml", op=Op.RELOCK)
    result = consolidate(ws, [relock], env=tool_env)
    [root] = result.roots
    assert (root.root, root.state) == ("", RootState.APPLIED), root.to_json()
    assert root.intent_ids == ("t:libs/lib-a:relock:uv",)
    assert lock_packages(ws)["lib-a"]["version"] == "0.2.0"
    assert adapter_for("uv", ws, "", env=tool_env).check()[0].ok
