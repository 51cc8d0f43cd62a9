"""Consolidation of Cargo workspaces with the real cargo, offline, CARGO_HOME in tmp."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import ConflictKind, Intent, Op, RootState, consolidate, consolidate_root, derive_intents
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.textformat import load_toml, plain

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is required (installed on this machine)")

ROOT = """# The workspace root: members are listed by hand.
[workspace]
resolver = "2"
members = [
    "crates/a",  # the core
    "crates/b",
]

[workspace.package]
edition = "2021"  # shared edition
"""


def crate(name: str, version: str = "0.1.0", deps: str = "") -> dict[str, str]:
    return {f"crates/{name}/Cargo.toml": f'[package]\nname = "{name}"\nversion = "{version}"\nedition = "2021"\n{deps}',
            f"crates/{name}/src/lib.rs": ""}


def make_workspace(ws: Path, env: dict, extra: dict | None = None) -> Path:
    write(ws, {"Cargo.toml": ROOT, **crate("a"), **crate("b"), **(extra or {})})
    run = adapter_for("cargo", ws, "", env=env).relock(offline=True)
    assert run.ok, run.stderr
    return ws


def member_dep(task: str, frm: str, to: str, **fields) -> Intent:
    return Intent(intent_id=f"{task}:dep:{frm}:{to}", task=task, ecosystem="cargo", root="",
                  manifest=f"crates/{frm}/Cargo.toml", member=f"crates/{frm}", op="add_dep", group="dependencies",
                  name=to, **{"source": {"path": f"../{to}"}, **fields})


def locked(ws: Path) -> dict[str, list]:
    doc = plain(load_toml("Cargo.lock", (ws / "Cargo.lock").read_bytes()))
    return {p["name"]: p.get("dependencies", []) for p in doc["package"]}


def test_members_from_two_tasks_and_comments_kept(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, {**crate("c"), **crate("d")})
    base = (ws / "Cargo.toml").read_bytes()
    t1 = derive_intents("Cargo.toml", base, base.replace(b'    "crates/b",\n', b'    "crates/b",\n    "crates/c",\n'),
                        task="t1")
    t2 = derive_intents("Cargo.toml", base, base.replace(b'    "crates/b",\n', b'    "crates/b",\n    "crates/d",\n'),
                        task="t2")
    t3 = derive_intents("Cargo.toml", base, base + b'\n[workspace.dependencies]\na = { path = "crates/a" }\n', task="t3")
    result = consolidate_root(ws, "", "cargo", t2 + t3 + t1, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    text = (ws / "Cargo.toml").read_text()
    assert text.startswith("# The workspace root: members are listed by hand.\n")
    assert '"crates/a",  # the core\n' in text and 'edition = "2021"  # shared edition' in text
    assert plain(load_toml("Cargo.toml", text.encode()))["workspace"]["members"] == [
        "crates/a", "crates/b", "crates/c", "crates/d"]
    assert 'a = { path = "crates/a" }' in text
    assert set(locked(ws)) == {"a", "b", "c", "d"}
    assert consolidate_root(ws, "", "cargo", t1 + t2 + t3, env=tool_env).state == RootState.UNCHANGED


def test_a_cycle_across_two_tasks_applies_one_side_only(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env)
    intents = [member_dep("t2", "b", "a"), member_dep("t1", "a", "b")]
    result = consolidate_root(ws, "", "cargo", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    [conflict] = result.conflicts
    assert conflict.kind == ConflictKind.CYCLE and conflict.tasks == ("t1", "t2")
    assert [c.intent.task for c in result.applied] == ["t1"]
    assert locked(ws)["a"] == ["b"] and locked(ws)["b"] == []
    assert 'b = { path = "../b" }' in (ws / "crates/a/Cargo.toml").read_text()
    # `cargo add --path` also writes a version the intent does not carry: the structural edit is used instead.
    assert dict(result.edit_methods) == {"t1:dep:a:b": "structural"}


def test_a_failing_change_is_bisected_out_and_named_while_the_rest_consolidates(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, crate("c"))
    good = member_dep("good", "b", "a", spec="0.1.0")
    bad = member_dep("bad", "c", "a", spec="9")            # crate a is 0.1.0: no version satisfies ^9
    base = (ws / "Cargo.toml").read_bytes()
    member = derive_intents("Cargo.toml", base, base.replace(b'    "crates/b",\n', b'    "crates/b",\n    "crates/c",\n'),
                            task="member")
    result = consolidate_root(ws, "", "cargo", [bad, good, *member], env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    [culprit] = result.culprits
    assert culprit.change.tasks == ("bad",) and "failed to select a version" in culprit.stderr
    assert sorted(c.intent.task for c in result.applied) == ["good", "member"]
    # `cargo add --path` wrote exactly the intended value, so the native editor's result was kept.
    assert dict(result.edit_methods) == {"good:dep:b:a": "native", "member:Cargo.toml:add_member:workspace.members:crates/c": "structural"}
    assert locked(ws)["b"] == ["a"] and "c" in locked(ws)
    assert "a =" not in (ws / "crates/c/Cargo.toml").read_text()


def test_an_uncached_crate_needs_the_network_and_restores_every_byte(tmp_path, tool_env):
    repo = tmp_path / "repo"
    make_workspace(repo / "rs", tool_env)
    before = snapshot(repo / "rs")
    serde = Intent(intent_id="s:1", task="s", ecosystem="cargo", root="rs", manifest="rs/crates/a/Cargo.toml",
                   op="add_dep", group="dependencies", name="serde", spec="1")
    write(repo, {"rs2/Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n', **{f"rs2/{k}": v for k, v in crate("x").items()}})
    relock_only = Intent(intent_id="r:1", task="r", ecosystem="cargo", root="rs2", manifest="rs2/Cargo.lock", op="relock")
    result = consolidate(repo, [serde, relock_only], env=tool_env)
    states = {r.root: r.state for r in result.roots}
    assert states == {"rs": RootState.NEEDS_NETWORK, "rs2": RootState.APPLIED}
    assert snapshot(repo / "rs") == before
    assert result.files_changed == ("rs2/Cargo.lock",)


def test_a_git_dependency_never_fetched_needs_the_network_not_a_fix_of_the_manifest(tmp_path, tool_env):
    """alacritty's root patches x11-clipboard from GitHub: offline, cargo says "can't checkout from
    '...': you are in the offline mode", with no registry searched. That is a cache miss (exit 1,
    needs_network: consolidate --online), not a failure that asks the lead to fix the tasks' manifests."""
    dep = tmp_path / "gitdep"
    write(dep, {"Cargo.toml": '[package]\nname = "gitdep"\nversion = "0.1.0"\nedition = "2021"\n', "src/lib.rs": ""})
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=dep, check=True)
    repo = tmp_path / "repo"
    make_workspace(repo / "rs", tool_env)
    before = snapshot(repo / "rs")
    intent = Intent(intent_id="g:1", task="g", ecosystem="cargo", root="rs", manifest="rs/crates/b/Cargo.toml",
                    member="rs/crates/b", op="add_dep", group="dependencies", name="gitdep",
                    source={"git": dep.as_uri()})
    result = consolidate(repo, [intent], env=tool_env)
    [root] = result.roots
    assert root.state == RootState.NEEDS_NETWORK, root
    assert snapshot(repo / "rs") == before


def bump(task: str, member: str, old: str, new: str) -> Intent:
    return Intent(intent_id=f"{task}:bump:{member}", task=task, ecosystem="cargo", root="",
                  manifest=f"crates/{member}/Cargo.toml", op="bump_version", group="version", name=member,
                  spec=new, expected_before=old)


def test_a_version_bump_needs_matching_spec_changes_in_its_dependents(tmp_path, tool_env):
    extra = crate("b", deps='[dependencies]\na = { path = "../a", version = "0.1" }\n')
    ws = make_workspace(tmp_path / "ws", tool_env, extra)
    lone = consolidate_root(ws, "", "cargo", [bump("t1", "a", "0.1.0", "2.0.0")], env=tool_env)
    assert lone.state == RootState.CONFLICT
    [conflict] = lone.conflicts
    assert "breaks b's dependencies spec '0.1'" in conflict.message and conflict.tasks == ("t1",)
    follow = Intent(intent_id="t2:spec", task="t2", ecosystem="cargo", root="", manifest="crates/b/Cargo.toml",
                    op="set_spec", group="dependencies", name="a", spec="2", source={"path": "../a"},
                    expected_before='{"source":{"path":"../a"},"spec":"0.1"}')
    both = consolidate_root(ws, "", "cargo", [follow, bump("t1", "a", "0.1.0", "2.0.0")], env=tool_env)
    assert both.state == RootState.APPLIED, (both.error, both.conflicts)
    assert [c.intent.op.value for c in both.applied] == ["bump_version", "set_spec"]
    versions = {p["name"]: p["version"] for p in plain(load_toml("Cargo.lock", (ws / "Cargo.lock").read_bytes()))["package"]}
    assert versions["a"] == "2.0.0"


def test_a_change_that_cannot_be_applied_is_a_culprit_and_the_rest_goes_on(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, crate("c"))
    virtual_bump = Intent(intent_id="v:1", task="v", ecosystem="cargo", root="", manifest="Cargo.toml",
                          op="bump_version", group="version", name="", spec="1.0.0")   # the root has no [package]
    ok = member_dep("ok", "b", "a")
    result = consolidate_root(ws, "", "cargo", [virtual_bump, ok], env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    [culprit] = result.culprits
    assert culprit.change.tasks == ("v",) and "no [package] table" in culprit.reason
    assert [c.intent.task for c in result.applied] == ["ok"]


def test_relock_and_check_commands_are_configurable_and_a_failed_check_restores_everything(tmp_path, tool_env):
    from worktree_coord.consolidate import ToolConfig

    ws = make_workspace(tmp_path / "ws", tool_env)
    before = snapshot(ws)
    strict = ToolConfig(relock=("cargo", "update", "--workspace"), offline_flags=("--offline",),
                        check=(("cargo", "metadata", "--locked", "--offline", "--format-version", "99"),))
    result = consolidate(ws, [member_dep("t", "b", "a")], configs={"cargo": strict}, env=tool_env).roots[0]
    assert result.state == RootState.FAILED and result.error["kind"] == "verification"
    assert "--format-version 99" in result.error["message"]
    assert snapshot(ws) == before
    assert [tuple(r["argv"][:2]) for r in result.tool_runs] == [("cargo", "add"), ("cargo", "update"),
                                                                ("cargo", "metadata")]


def test_an_ecosystem_without_an_adapter_fails_clearly_and_alone(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env)
    bun = Intent(intent_id="p:1", task="p", ecosystem="bun", root="web", manifest="web/package.json",
                 op="add_dep", group="dependencies", name="react", spec="^18")
    result = consolidate(ws, [bun, member_dep("t", "b", "a")], env=tool_env)
    states = {(r.ecosystem, r.root): r.state for r in result.roots}
    assert states == {("bun", "web"): RootState.FAILED, ("cargo", ""): RootState.APPLIED}
    failed = next(r for r in result.roots if r.ecosystem == "bun")
    assert "no consolidation adapter for bun" in failed.error["message"] and failed.error["fix"]


def test_when_every_change_is_a_culprit_the_root_fails_and_stays_untouched(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env)
    before = snapshot(ws)
    result = consolidate_root(ws, "", "cargo", [member_dep("bad", "b", "a", spec="9")], env=tool_env)
    assert result.state == RootState.FAILED and result.error["kind"] == "culprits"
    assert [c.change.tasks for c in result.culprits] == [("bad",)] and result.files_changed == ()
    assert snapshot(ws) == before


def test_intents_in_any_order_give_byte_identical_cargo_results(tmp_path, tool_env, copy_tree):
    ws = make_workspace(tmp_path / "ws", tool_env, {**crate("c"), **crate("d")})
    base = (ws / "Cargo.toml").read_bytes()
    intents = [
        *derive_intents("Cargo.toml", base, base.replace(b'    "crates/b",\n', b'    "crates/b",\n    "crates/d",\n'),
                        task="t1"),
        *derive_intents("Cargo.toml", base, base.replace(b'    "crates/b",\n', b'    "crates/b",\n    "crates/c",\n'),
                        task="t2"),
        member_dep("t3", "c", "d"), member_dep("t4", "b", "a"), member_dep("t5", "d", "c"),   # t5 closes a cycle
    ]
    one, two = copy_tree(ws, tmp_path / "one"), copy_tree(ws, tmp_path / "two")
    r1 = consolidate_root(one, "", "cargo", intents, env=tool_env)
    r2 = consolidate_root(two, "", "cargo", list(reversed(intents)), env=tool_env)
    assert r1.state == r2.state == RootState.APPLIED, (r1.error, r2.error)
    assert snapshot(one) == snapshot(two)
    assert [c.tasks for c in r1.conflicts] == [c.tasks for c in r2.conflicts] == [("t3", "t5")]


def test_a_relock_that_cannot_select_a_version_blames_the_member_that_requires_it(tmp_path, tool_env):
    """Two tasks changed two members' manifests on the integration branch; cargo's "failed to select
    a version" names the package whose requirement no version meets (`a`, wanting x ^2 of a path
    crate at 1.0.0): only its manifest and its task are named, and `manifests` lists it, so that the
    other task's intents can wait rather than fail (consolidate/root.py, `_base_failure`)."""
    x_dep = '[dependencies]\nx = {{ path = "../x", version = "{}" }}\n'
    ws = make_workspace(tmp_path / "ws", tool_env, {**crate("x", "1.0.0")})
    before = {name: (ws / f"crates/{name}/Cargo.toml").read_bytes() for name in ("a", "b")}
    write(ws, {**crate("a", deps=x_dep.format("^2")), **crate("b", deps=x_dep.format("^1"))})
    # What a finish records for an owned member manifest's change (check/reserved_edits.py): a relock.
    intents = [dataclasses.replace(derive_intents(f"crates/{name}/Cargo.toml", before[name],
                                                  (ws / f"crates/{name}/Cargo.toml").read_bytes(), task=task)[0],
                                   intent_id=f"{task}:.:relock:cargo", root="", op=Op.RELOCK, group="", name="", spec=None,
                                   source=None, options=())
               for name, task in (("a", "t1"), ("b", "t2"))]
    result = consolidate_root(ws, "", "cargo", intents, env=tool_env)
    assert result.state == RootState.FAILED and result.error["kind"] == "base_does_not_relock", result.error
    assert result.error["manifests"] == ["crates/a/Cargo.toml"], result.error
    assert "(crates/a/Cargo.toml by task t1)" in result.error["message"], result.error["message"]
