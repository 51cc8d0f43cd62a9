"""Consolidation of npm workspaces with the real npm, offline, caches in tmp."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import pkg, snapshot, write
from worktree_coord.consolidate import (
    ConflictKind,
    RootState,
    adapter_for,
    consolidate,
    consolidate_root,
    derive_intents,
)

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is required (installed on this machine)")


def root_pkg(**fields) -> str:
    return json.dumps({"name": "root", "private": True, **fields}, indent=2) + "\n"


def make_workspace(tmp: Path, env: dict, members=("a",), root_fields=None) -> Path:
    write(tmp, {"package.json": root_pkg(workspaces=[f"packages/{m}" for m in members], **(root_fields or {}))})
    for m in members:
        write(tmp, {f"packages/{m}/package.json": pkg(m, "1.2.0")})
    run = adapter_for("npm", tmp, "", env=env).relock(offline=True)
    assert run.ok, run.stderr
    return tmp


def task_edit(ws: Path, task: str, **fields) -> list:
    base = (ws / "package.json").read_bytes()
    doc = json.loads(base)
    doc.update(fields)
    return derive_intents("package.json", base, (json.dumps(doc, indent=2) + "\n").encode(), task=task)


def lock(ws: Path) -> dict:
    return json.loads((ws / "package-lock.json").read_text())


def test_two_tasks_each_add_a_member_and_the_second_run_changes_nothing(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env)
    write(ws, {"packages/b/package.json": pkg("b"), "packages/c/package.json": pkg("c")})   # the tasks' own files
    intents = (task_edit(ws, "t1", workspaces=["packages/a", "packages/b"])
               + task_edit(ws, "t2", workspaces=["packages/a", "packages/c"]))
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert result.files_changed == ("package-lock.json", "package.json")
    assert json.loads((ws / "package.json").read_text())["workspaces"] == ["packages/a", "packages/b", "packages/c"]
    packages = lock(ws)["packages"]
    assert packages["node_modules/b"]["resolved"] == "packages/b" and packages["node_modules/c"]["link"] is True
    assert {n for n, _ in result.lock_diff.added} == {"b", "c"} and not result.lock_diff.unexplained
    before = snapshot(ws)
    again = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert again.state == RootState.UNCHANGED and again.files_changed == () and len(again.satisfied) == 2
    assert snapshot(ws) == before


@pytest.mark.parametrize("order", ["member_first", "dependency_first"])
def test_new_member_and_another_tasks_dependency_on_it_in_either_order(tmp_path, tool_env, order):
    ws = make_workspace(tmp_path / "ws", tool_env)
    write(ws, {"packages/new/package.json": pkg("new", "2.0.0")})
    member = task_edit(ws, "a", workspaces=["packages/a", "packages/new"])
    dependency = task_edit(ws, "b", dependencies={"new": "^2.0.0"})
    intents = member + dependency if order == "member_first" else dependency + member
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert [c.intent.op.value for c in result.applied] == ["add_member", "add_dep"]
    assert lock(ws)["packages"]["node_modules/new"] == {"resolved": "packages/new", "link": True}
    assert lock(ws)["packages"][""]["dependencies"] == {"new": "^2.0.0"}


def test_equivalent_specs_give_one_line_and_nested_ranges_the_narrower(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, members=("a", "b"))
    intents = (task_edit(ws, "t1", dependencies={"a": "^1.2", "b": "^1.0.0"})
               + task_edit(ws, "t2", dependencies={"a": "^1.2.0", "b": "^1.1.0"}))
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    deps = json.loads((ws / "package.json").read_text())["dependencies"]
    assert deps == {"a": "^1.2", "b": "^1.1.0"}      # t1's spelling of the equal spec; the narrower of b
    assert len(result.warnings) == 1 and "narrower '^1.1.0'" in result.warnings[0]


def test_disjoint_ranges_and_dependency_vs_dev_dependency_are_conflicts(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, members=("a", "b"))
    before = snapshot(ws)
    intents = (task_edit(ws, "t1", dependencies={"a": "^1"}) + task_edit(ws, "t2", dependencies={"a": "^2"})
               + task_edit(ws, "t3", dependencies={"b": "^1.0.0"})
               + task_edit(ws, "t4", devDependencies={"b": "^1.0.0"}))
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.CONFLICT
    kinds = {(c.kind, c.tasks) for c in result.conflicts}
    assert kinds == {(ConflictKind.DISJOINT_RANGES, ("t1", "t2")), (ConflictKind.GROUP_COLLISION, ("t3", "t4"))}
    assert snapshot(ws) == before


def test_stale_base_value_conflicts_instead_of_downgrading(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, members=("a",), root_fields={"dependencies": {"a": "^1.0.0"}})
    base = (ws / "package.json").read_bytes()
    stale = derive_intents("package.json", base, base.replace(b'"^1.0.0"', b'"^1.1.0"'), task="late")
    first = derive_intents("package.json", base, base.replace(b'"^1.0.0"', b'"^1.2.0"'), task="early")
    assert consolidate_root(ws, "", "npm", first, env=tool_env).state == RootState.APPLIED
    result = consolidate_root(ws, "", "npm", first + stale, env=tool_env)
    assert result.state == RootState.CONFLICT
    [conflict] = result.conflicts
    assert conflict.kind == ConflictKind.STALE_BASE and conflict.tasks == ("early", "late")
    assert json.loads((ws / "package.json").read_text())["dependencies"] == {"a": "^1.2.0"}


def test_offline_miss_restores_the_root_byte_for_byte_while_another_root_consolidates(tmp_path, tool_env):
    repo = tmp_path / "repo"
    make_workspace(repo / "web", tool_env)
    make_workspace(repo / "api", tool_env)
    web_before = snapshot(repo / "web")
    web_base = (repo / "web/package.json").read_bytes()
    doc = json.loads(web_base)
    doc["dependencies"] = {"left-pad": "^1.3.0"}        # a registry package the empty cache lacks
    miss = derive_intents("web/package.json", web_base, (json.dumps(doc, indent=2) + "\n").encode(), task="m")
    write(repo, {"api/packages/z/package.json": pkg("z")})
    api_base = (repo / "api/package.json").read_bytes()
    ok = derive_intents("api/package.json", api_base,
                        api_base.replace(b'"packages/a"', b'"packages/a",\n    "packages/z"'), task="k")
    result = consolidate(repo, miss + ok, env=tool_env)
    by_root = {r.root: r for r in result.roots}
    assert by_root["web"].state == RootState.NEEDS_NETWORK
    assert "not cached" in by_root["web"].error["message"] and by_root["web"].error["intent_ids"]
    assert snapshot(repo / "web") == web_before
    assert by_root["api"].state == RootState.APPLIED
    assert result.files_changed == ("api/package-lock.json", "api/package.json")


def test_tab_indented_crlf_package_json_without_final_newline_keeps_its_format(tmp_path, tool_env):
    ws = tmp_path / "ws"
    text = '{\r\n\t"name": "root",\r\n\t"private": true,\r\n\t"workspaces": [\r\n\t\t"packages/a"\r\n\t],\r\n' \
           '\t"scripts": {\r\n\t\t"test": "node -e 1"\r\n\t}\r\n}'
    write(ws, {"package.json": text.encode(), "packages/a/package.json": pkg("a", "1.2.0"),
               "packages/b/package.json": pkg("b")})
    base = (ws / "package.json").read_bytes()
    new = base.replace(b'\t\t"packages/a"\r\n', b'\t\t"packages/a",\r\n\t\t"packages/b"\r\n')
    intents = derive_intents("package.json", base, new, task="t") + derive_intents(
        "package.json", base, base.replace(b'\t"scripts"', b'\t"dependencies": {\r\n\t\t"a": "^1.0.0"\r\n\t},\r\n\t"scripts"'),
        task="u")
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    out = (ws / "package.json").read_bytes()
    assert out == ('{\r\n\t"name": "root",\r\n\t"private": true,\r\n\t"workspaces": [\r\n\t\t"packages/a",\r\n'
                   '\t\t"packages/b"\r\n\t],\r\n\t"scripts": {\r\n\t\t"test": "node -e 1"\r\n\t},\r\n'
                   '\t"dependencies": {\r\n\t\t"a": "^1.0.0"\r\n\t}\r\n}').encode()


def test_a_base_lockfile_with_conflict_markers_is_refused_clearly(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env)
    lockfile = ws / "package-lock.json"
    text = lockfile.read_text().replace('  "requires": true,\n',
                                        '<<<<<<< ours\n  "requires": true,\n=======\n  "requires": false,\n>>>>>>> theirs\n')
    lockfile.write_text(text)
    write(ws, {"packages/b/package.json": pkg("b")})
    before = snapshot(ws)
    base = (ws / "package.json").read_bytes()
    intents = derive_intents("package.json", base, base.replace(b'"packages/a"', b'"packages/a", "packages/b"'),
                             task="t")
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.FAILED
    assert "conflict markers" in result.error["message"] and "package-lock.json" in result.error["message"]
    assert "fix" in result.error
    assert snapshot(ws) == before


def test_intents_in_any_order_give_byte_identical_results(tmp_path, tool_env, copy_tree):
    ws = make_workspace(tmp_path / "ws", tool_env, members=("a", "b"))
    write(ws, {"packages/c/package.json": pkg("c", "3.1.0")})
    intents = (task_edit(ws, "t1", workspaces=["packages/a", "packages/b", "packages/c"])
               + task_edit(ws, "t2", dependencies={"c": "^3.0.0", "a": "^1.2.0"})
               + task_edit(ws, "t3", dependencies={"c": "^3.1.0"}, devDependencies={"b": "*"}))
    one = copy_tree(ws, tmp_path / "one")
    two = copy_tree(ws, tmp_path / "two")
    r1 = consolidate_root(one, "", "npm", intents, env=tool_env)
    r2 = consolidate_root(two, "", "npm", list(reversed(intents)), env=tool_env)
    assert r1.state == r2.state == RootState.APPLIED, (r1.error, r2.error)
    assert snapshot(one) == snapshot(two)
    assert json.loads((one / "package.json").read_text())["dependencies"] == {"a": "^1.2.0", "c": "^3.1.0"}


def test_member_glob_already_covers_the_new_member_so_only_a_relock_is_asked(tmp_path, tool_env):
    ws = tmp_path / "ws"
    write(ws, {"package.json": root_pkg(workspaces=["packages/*"]), "packages/a/package.json": pkg("a")})
    assert adapter_for("npm", ws, "", env=tool_env).relock(offline=True).ok
    # Task A creates packages/new (merged into the directory as ordinary task work): a relock intent only.
    new_member = pkg("new", "0.3.0")
    write(ws, {"packages/new/package.json": new_member})
    created = derive_intents("packages/new/package.json", None, new_member.encode(), task="A", root="")
    assert [i.op.value for i in created] == ["relock"]
    dependency = task_edit(ws, "B", dependencies={"new": "^0.3.0"})
    result = consolidate_root(ws, "", "npm", dependency + created, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert lock(ws)["packages"]["node_modules/new"]["resolved"] == "packages/new"
    assert result.lock_diff.added == (("new", ("0.3.0",)),)


def test_a_root_whose_intents_all_conflict_is_still_relocked_when_a_member_changed(tmp_path, tool_env):
    ws = make_workspace(tmp_path / "ws", tool_env, members=("a", "b"))
    # A task changed member b's manifest (merged as ordinary work): its root needs a relock.
    old = (ws / "packages/b/package.json").read_bytes()
    write(ws, {"packages/b/package.json": pkg("b", "1.2.0", dependencies={"a": "^1.0.0"})})
    relock = derive_intents("packages/b/package.json", old, (ws / "packages/b/package.json").read_bytes(),
                            task="m", root="")
    intents = relock + task_edit(ws, "t1", dependencies={"a": "^1"}) + task_edit(ws, "t2", dependencies={"a": "^2"})
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.APPLIED and result.files_changed == ("package-lock.json",)
    assert [c.kind for c in result.conflicts] == [ConflictKind.DISJOINT_RANGES]
    assert lock(ws)["packages"]["packages/b"]["dependencies"] == {"a": "^1.0.0"}


def test_a_relock_tool_that_crashes_is_not_blamed_on_the_manifests_and_scripts_land_apart(tmp_path, tool_env):
    """Driving vuejs/core: the project's pinned pnpm could not run on this machine's Node, and the
    root failed with "the base of . does not relock: fix the manifests on the integration branch
    first", holding back a new `check:size` script with it. A tool that dies of its own error is
    named as such, with no manifest blamed, and a script (no lockfile records one but the install
    scripts) lands on its own."""
    from worktree_coord.consolidate import ToolConfig

    ws = make_workspace(tmp_path / "ws", tool_env)
    write(ws, {"packages/b/package.json": pkg("b")})
    intents = task_edit(ws, "t", workspaces=["packages/a", "packages/b"], scripts={"check:size": "node size.js"})
    assert sorted(i.op.value for i in intents) == ["add_member", "set_key"]
    crashing = ToolConfig(relock=("node", "-e", "throw new TypeError('lockfile store unavailable')"))
    result = consolidate(ws, intents, configs={"npm": crashing}, env=tool_env)
    alone, rest = result.roots
    assert (alone.state, alone.files_changed) == (RootState.APPLIED, ("package.json",))
    assert json.loads((ws / "package.json").read_text())["scripts"] == {"check:size": "node size.js"}
    assert rest.state is RootState.FAILED and rest.error["kind"] == "tool_cannot_run", rest.error
    assert "node crashed (TypeError: lockfile store unavailable)" in rest.error["message"]
    assert "manifests" not in rest.error["fix"] and "--retry-failed" in rest.error["fix"]
    # An install script is recorded in package-lock.json (hasInstallScript): it waits for the relock.
    hooks = task_edit(ws, "u", scripts={"check:size": "node size.js", "postinstall": "node setup.js"})
    assert [i.op.value for i in hooks] == ["set_key"]
    again = consolidate(ws, hooks, configs={"npm": crashing}, env=tool_env)
    assert [r.state for r in again.roots] == [RootState.FAILED]


LOCK_WITH_URLS = {
    "name": "root", "lockfileVersion": 3, "requires": True,
    "packages": {
        "": {"name": "root", "workspaces": ["packages/a"], "dependencies": {"left-pad": "^1.3.0"}},
        "node_modules/a": {"resolved": "packages/a", "link": True},
        "node_modules/left-pad": {
            "version": "1.3.0", "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
            "integrity": "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQGinBN9yTQT3bFlCBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA==",
            "license": "WTFPL"},
        "packages/a": {"version": "1.2.0"},
    },
}


@pytest.mark.parametrize("lock_keeps_urls", [True, False])
def test_the_relock_keeps_the_lockfiles_registry_urls_whatever_the_persons_npmrc_says(tmp_path, tool_env, lock_keeps_urls):
    """pdf.js: a person's ~/.npmrc with `omit-lockfile-registry-resolved=true` made the relock of two
    new devDependencies drop all 970 `resolved` lines of the project's lockfile; the relock now
    writes them as the lockfile had them (and, the other way round, adds none to one without)."""
    ws = tmp_path / "ws"
    write(ws, {"package.json": root_pkg(workspaces=["packages/a"], dependencies={"left-pad": "^1.3.0"}),
               "packages/a/package.json": pkg("a", "1.2.0"), "packages/b/package.json": pkg("b")})
    locked = json.loads(json.dumps(LOCK_WITH_URLS))
    if not lock_keeps_urls:
        del locked["packages"]["node_modules/left-pad"]["resolved"]
    (ws / "package-lock.json").write_text(json.dumps(locked, indent=2) + "\n")
    home = Path(tool_env["HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / ".npmrc").write_text(f"omit-lockfile-registry-resolved={'true' if lock_keeps_urls else 'false'}\n")
    result = consolidate_root(ws, "", "npm", task_edit(ws, "t1", workspaces=["packages/a", "packages/b"]),
                              env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    entry = lock(ws)["packages"]["node_modules/left-pad"]
    assert entry.get("resolved") == (LOCK_WITH_URLS["packages"]["node_modules/left-pad"]["resolved"]
                                     if lock_keeps_urls else None), entry
    assert lock(ws)["packages"]["node_modules/b"]["link"] is True


def test_a_relock_that_changes_an_entrys_install_flags_no_intent_names_is_flagged(tmp_path, tool_env):
    """The committed lock was written by another npm, which marked `vendor/yak` (the root's dev
    dependency, a `file:` folder) `"peer": true` as well. A task adds a member; the relock writes
    yak's entry again without that line: the same version, installed otherwise (an install that
    omits peers now puts it on disk), so the result says so, as it does for a version moved."""
    ws = tmp_path / "ws"
    write(ws, {"vendor/yak/package.json": pkg("yak", "0.1.0")})
    make_workspace(ws, tool_env, root_fields={"devDependencies": {"yak": "file:vendor/yak"}})
    written = lock(ws)
    assert written["packages"]["vendor/yak"].get("dev") is True, written
    written["packages"]["vendor/yak"]["peer"] = True
    (ws / "package-lock.json").write_text(json.dumps(written, indent=2) + "\n")
    write(ws, {"packages/b/package.json": pkg("b")})
    intents = task_edit(ws, "t1", workspaces=["packages/a", "packages/b"],
                        devDependencies={"yak": "file:vendor/yak"})
    result = consolidate_root(ws, "", "npm", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert "peer" not in lock(ws)["packages"]["vendor/yak"]
    assert result.lock_diff.flags == ('yak (vendor/yak): "peer" dropped',), result.lock_diff
    [warning] = [w for w in result.warnings if "are installed" in w]
    assert 'yak (vendor/yak): "peer" dropped' in warning and "review package-lock.json" in warning, warning
