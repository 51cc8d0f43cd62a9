"""Consolidation of pnpm workspaces with the real pnpm 12 (tools/), offline, store and caches in tmp."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import pkg, snapshot, write
from worktree_coord.consolidate import ConflictKind, RootState, adapter_for, consolidate, consolidate_root, derive_intents
from worktree_coord.consolidate.adapters import FailureKind, PnpmAdapter
from worktree_coord.consolidate.adapters.base import tool_env as adapter_env

pytestmark = pytest.mark.skipif(shutil.which("pnpm") is None,
                                reason="pnpm comes from `npm ci --prefix tools` (the README's test set-up)")

WORKSPACE_YAML = """\
# Members of the demo workspace.
packages:
  # applications first
  - 'packages/a'   # the first one

catalog:
  # shared ranges
  zed: file:vendor/zed
"""


@pytest.fixture
def pnpm_env(tool_env, tmp_path_factory) -> dict[str, str]:
    """pnpm's store, metadata cache and every XDG folder in tmp: ~/.local/share/pnpm is never used."""
    base = tmp_path_factory.mktemp("pnpmenv")
    return {**tool_env, "pnpm_config_store_dir": str(base / "store"), "pnpm_config_cache_dir": str(base / "cache"),
            "XDG_DATA_HOME": str(base / "data"), "XDG_STATE_HOME": str(base / "state"),
            "XDG_CONFIG_HOME": str(base / "config"), "CI": ""}


def make_workspace(tmp: Path, env: dict, members=("a",), yaml_text: str | None = None, root_fields=None) -> Path:
    write(tmp, {"package.json": json.dumps({"name": "root", "private": True, **(root_fields or {})}, indent=2) + "\n",
                "pnpm-workspace.yaml": yaml_text if yaml_text is not None
                else "packages:\n" + "".join(f"  - packages/{m}\n" for m in members)})
    for m in members:
        write(tmp, {f"packages/{m}/package.json": pkg(m, "1.2.0")})
    run = adapter_for("pnpm", tmp, "", env=env).relock(offline=True)
    assert run.ok, run.stderr
    return tmp


def yaml_edit(ws: Path, task: str, old: str, new: str) -> list:
    base = (ws / "pnpm-workspace.yaml").read_bytes()
    assert old.encode() in base
    return derive_intents("pnpm-workspace.yaml", base, base.replace(old.encode(), new.encode()), task=task)


def json_edit(ws: Path, task: str, path: str = "package.json", **fields) -> list:
    base = (ws / path).read_bytes()
    doc = json.loads(base)
    doc.update(fields)
    return derive_intents(path, base, (json.dumps(doc, indent=2) + "\n").encode(), task=task, ecosystem="pnpm",
                          root="")


def lock(ws: Path) -> dict:
    return yaml.safe_load((ws / "pnpm-lock.yaml").read_text())


def pnpm(ws: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["pnpm", *args], cwd=ws, env=adapter_env(env), capture_output=True, text=True)


def test_two_tasks_each_add_a_member_in_the_workspace_yaml_with_comments_kept(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env, yaml_text=WORKSPACE_YAML.replace("  zed: file:vendor/zed\n", "  {}\n")
                        .replace("catalog:\n  # shared ranges\n  {}\n", ""))
    # The tasks' own new members (ordinary task work, already merged); each depends on a.
    write(ws, {"packages/b/package.json": pkg("b", dependencies={"a": "workspace:*"}),
               "packages/c/package.json": pkg("c", dependencies={"a": "workspace:^"})})
    intents = (yaml_edit(ws, "t1", "  - 'packages/a'   # the first one\n",
                         "  - 'packages/a'   # the first one\n  - 'packages/b'\n")
               + yaml_edit(ws, "t2", "  - 'packages/a'   # the first one\n",
                           "  - 'packages/a'   # the first one\n  - packages/c\n"))
    assert [i.op.value for i in intents] == ["add_member", "add_member"]
    result = consolidate_root(ws, "", "pnpm", intents, env=pnpm_env)
    assert result.state == RootState.APPLIED, result.error
    assert result.files_changed == ("pnpm-lock.yaml", "pnpm-workspace.yaml")
    assert (ws / "pnpm-workspace.yaml").read_text() == (
        "# Members of the demo workspace.\npackages:\n  # applications first\n  - 'packages/a'   # the first one\n"
        "  - 'packages/b'\n  - 'packages/c'\n\n")
    importers = lock(ws)["importers"]
    assert importers["packages/b"]["dependencies"]["a"] == {"specifier": "workspace:*", "version": "link:../a"}
    assert importers["packages/c"]["dependencies"]["a"] == {"specifier": "workspace:^", "version": "link:../a"}
    assert result.lock_diff.added == (("a", ("1.2.0",)),) and not result.lock_diff.unexplained
    assert [tuple(r["argv"][:3]) for r in result.tool_runs][-1] == ("pnpm", "install", "--frozen-lockfile")
    # pnpm itself says the lock is fresh, and a second consolidation changes nothing.
    assert pnpm(ws, pnpm_env, "install", "--frozen-lockfile", "--lockfile-only", "--offline").returncode == 0
    before = snapshot(ws)
    again = consolidate_root(ws, "", "pnpm", intents, env=pnpm_env)
    assert again.state == RootState.UNCHANGED and len(again.satisfied) == 2
    assert snapshot(ws) == before


def test_new_member_and_a_workspace_dependency_on_it_in_either_order_are_byte_identical(tmp_path, pnpm_env,
                                                                                         copy_tree):
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    write(ws, {"packages/new/package.json": pkg("new", "2.0.0")})       # task a's own files, merged
    member = yaml_edit(ws, "a", "  - packages/a\n", "  - packages/a\n  - packages/new\n")
    dependency = json_edit(ws, "b", dependencies={"new": "workspace:*"})
    assert [i.op.value for i in member + dependency] == ["add_member", "add_dep"]
    one, two = copy_tree(ws, tmp_path / "one"), copy_tree(ws, tmp_path / "two")
    r1 = consolidate_root(one, "", "pnpm", member + dependency, env=pnpm_env)
    r2 = consolidate_root(two, "", "pnpm", dependency + member, env=pnpm_env)
    assert r1.state == r2.state == RootState.APPLIED, (r1.error, r2.error)
    assert [c.intent.op.value for c in r1.applied] == [c.intent.op.value for c in r2.applied] == ["add_member",
                                                                                                  "add_dep"]
    assert r1.files_changed == ("package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml")
    assert snapshot(one) == snapshot(two)
    importer = lock(one)["importers"]["."]["dependencies"]["new"]
    assert importer == {"specifier": "workspace:*", "version": "link:packages/new"}
    assert PnpmAdapter(one, "", env=pnpm_env).locked_versions()["new"] == {"2.0.0"}


def test_tab_indented_crlf_package_json_keeps_its_format(tmp_path, pnpm_env):
    ws = tmp_path / "ws"
    text = ('{\r\n\t"name": "root",\r\n\t"private": true,\r\n\t"scripts": {\r\n\t\t"test": "node -e 1"\r\n\t}\r\n}')
    write(ws, {"package.json": text.encode(), "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
               "packages/a/package.json": pkg("a", "1.2.0")})
    assert adapter_for("pnpm", ws, "", env=pnpm_env).relock(offline=True).ok
    base = (ws / "package.json").read_bytes()
    new = base.replace(b'\t"scripts"', b'\t"devDependencies": {\r\n\t\t"a": "workspace:^"\r\n\t},\r\n\t"scripts"')
    intents = derive_intents("package.json", base, new, task="t", ecosystem="pnpm")
    result = consolidate_root(ws, "", "pnpm", intents, env=pnpm_env)
    assert result.state == RootState.APPLIED, result.error
    assert (ws / "package.json").read_bytes() == (
        '{\r\n\t"name": "root",\r\n\t"private": true,\r\n\t"scripts": {\r\n\t\t"test": "node -e 1"\r\n\t},\r\n'
        '\t"devDependencies": {\r\n\t\t"a": "workspace:^"\r\n\t}\r\n}').encode()
    assert lock(ws)["importers"]["."]["devDependencies"]["a"]["version"] == "link:packages/a"


def test_catalog_entry_from_the_workspace_yaml_is_locked_with_comments_kept(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env, yaml_text=WORKSPACE_YAML)
    write(ws, {"vendor/zed/package.json": pkg("zed", "0.4.1"), "vendor/yup/package.json": pkg("yup", "3.0.0")})
    intents = yaml_edit(ws, "t", "  zed: file:vendor/zed\n", "  zed: file:vendor/zed\n  yup: file:vendor/yup\n")
    assert [(i.op.value, i.group, i.name) for i in intents] == [("add_dep", "catalog", "yup")]
    # Task u's member manifest uses the new entry (ordinary task work, merged before consolidation).
    intents += json_edit(ws, "u", "packages/a/package.json", dependencies={"yup": "catalog:"})
    write(ws, {"packages/a/package.json": pkg("a", "1.2.0", dependencies={"yup": "catalog:"})})
    result = consolidate_root(ws, "", "pnpm", intents, env=pnpm_env)
    assert result.state == RootState.APPLIED, result.error
    assert (ws / "pnpm-workspace.yaml").read_text() == WORKSPACE_YAML + "  yup: file:vendor/yup\n"
    locked = lock(ws)
    assert locked["catalogs"]["default"]["yup"] == {"specifier": "file:vendor/yup", "version": "file:vendor/yup"}
    assert locked["importers"]["packages/a"]["dependencies"]["yup"]["specifier"] == "catalog:"
    assert "yup@file:vendor/yup" in locked["snapshots"]


def test_uncached_registry_dependency_needs_network_and_restores_every_file(tmp_path, pnpm_env):
    repo = tmp_path / "repo"
    make_workspace(repo / "web", pnpm_env, yaml_text=WORKSPACE_YAML.replace("  zed: file:vendor/zed\n", "  {}\n")
                   .replace("catalog:\n  # shared ranges\n  {}\n", ""))
    make_workspace(repo / "api", pnpm_env)
    write(repo, {"web/packages/b/package.json": pkg("b")})     # the task's own new member, merged
    web_before = snapshot(repo / "web")
    base = (repo / "web/pnpm-workspace.yaml").read_bytes()
    member = derive_intents("web/pnpm-workspace.yaml", base,
                            base.replace(b"# the first one\n", b"# the first one\n  - packages/b\n"), task="m")
    web_json = (repo / "web/package.json").read_bytes()
    miss = derive_intents("web/package.json", web_json,
                          web_json.replace(b'"private": true', b'"private": true,\n  "dependencies": {\n'
                                                               b'    "left-pad": "^1.3.0"\n  }'),
                          task="m", ecosystem="pnpm")
    write(repo, {"api/packages/z/package.json": pkg("z", dependencies={"a": "workspace:*"})})
    api = (repo / "api/pnpm-workspace.yaml").read_bytes()
    ok = derive_intents("api/pnpm-workspace.yaml", api, api + b"  - packages/z\n", task="k")
    result = consolidate(repo, member + miss + ok, env=pnpm_env)
    by_root = {r.root: r for r in result.roots}
    web = by_root["web"]
    assert web.state == RootState.NEEDS_NETWORK, web.error
    assert "ERR_PNPM_NO_OFFLINE_META" in web.error["stderr"] and web.error["intent_ids"]
    assert max(r["seconds"] for r in web.tool_runs) < 20, "an offline miss fails fast"
    assert snapshot(repo / "web") == web_before
    assert by_root["api"].state == RootState.APPLIED
    assert result.files_changed == ("api/pnpm-lock.yaml", "api/pnpm-workspace.yaml")


def test_a_base_lock_with_conflict_markers_is_refused_before_anything_runs(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    lockfile = ws / "pnpm-lock.yaml"
    lockfile.write_text(lockfile.read_text().replace("importers:\n",
                                                     "<<<<<<< ours\nimporters:\n=======\nimporters: {}\n>>>>>>> theirs\n"))
    write(ws, {"packages/b/package.json": pkg("b")})
    before = snapshot(ws)
    intents = yaml_edit(ws, "t", "  - packages/a\n", "  - packages/a\n  - packages/b\n")
    result = consolidate_root(ws, "", "pnpm", intents, env=pnpm_env)
    assert result.state == RootState.FAILED and result.tool_runs == ()
    assert "conflict markers" in result.error["message"] and "pnpm-lock.yaml" in result.error["message"]
    assert snapshot(ws) == before


def test_disjoint_catalog_ranges_conflict_and_the_offline_miss_is_classified():
    adapter = PnpmAdapter(Path("."), "")
    assert adapter.classify("Error: ERR_PNPM_NO_OFFLINE_META\n  x installing") == FailureKind.OFFLINE_MISS
    assert adapter.classify("ERR_PNPM_WORKSPACE_PKG_NOT_FOUND  In : \"nope@workspace:*\"") == FailureKind.RESOLUTION
    base = b"catalog:\n  react: ^18.0.0\n"
    one = derive_intents("pnpm-workspace.yaml", base, base.replace(b"^18.0.0", b"^17.0.0"), task="t1")
    two = derive_intents("pnpm-workspace.yaml", base, base.replace(b"^18.0.0", b"^19.0.0"), task="t2")
    from worktree_coord.consolidate import plan

    the_plan = plan(one + two, lambda path: base if path == "pnpm-workspace.yaml" else None)
    assert [(c.kind, c.tasks) for c in the_plan.conflicts] == [(ConflictKind.DISJOINT_RANGES, ("t1", "t2"))]


def test_a_dependency_on_a_missing_member_is_named_as_culprit_and_the_rest_consolidates(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    write(ws, {"packages/b/package.json": pkg("b", dependencies={"a": "workspace:*"})})
    member = yaml_edit(ws, "good", "  - packages/a\n", "  - packages/a\n  - packages/b\n")
    broken = json_edit(ws, "bad", dependencies={"nope": "workspace:*"})
    result = consolidate_root(ws, "", "pnpm", member + broken, env=pnpm_env)
    assert result.state == RootState.APPLIED, result.error
    [culprit] = result.culprits
    assert culprit.change.tasks == ("bad",) and "no package named \"nope\"" in culprit.stderr
    assert PnpmAdapter(ws, "").classify(culprit.stderr) == FailureKind.RESOLUTION
    assert [c.intent.op.value for c in result.applied] == ["add_member"]
    assert result.files_changed == ("pnpm-lock.yaml", "pnpm-workspace.yaml")
    assert "nope" not in (ws / "package.json").read_text()


def test_members_listed_in_package_json_workspaces_are_refused_for_pnpm(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    write(ws, {"packages/b/package.json": pkg("b")})
    before = snapshot(ws)
    intents = json_edit(ws, "t", workspaces=["packages/b"])
    result = consolidate_root(ws, "", "pnpm", intents, env=pnpm_env)
    assert result.state == RootState.FAILED
    [culprit] = result.culprits
    assert "pnpm-workspace.yaml" in culprit.reason and culprit.change.tasks == ("t",)
    assert snapshot(ws) == before


def test_locked_versions_read_aliases_links_and_snapshots_of_a_v9_lock(tmp_path):
    write(tmp_path, {"packages/a/package.json": pkg("a", "1.2.0"), "pnpm-lock.yaml": """\
lockfileVersion: '9.0'

importers:

  .:
    dependencies:
      a:
        specifier: workspace:^
        version: link:packages/a
      sw:
        specifier: npm:string-width@^4.2.0
        version: string-width@4.2.3
      react-dom:
        specifier: ^18.2.0
        version: 18.2.0(react@18.2.0)

packages:

  '@scope/x@2.0.1':
    resolution: {integrity: sha512-x}

snapshots:

  '@scope/x@2.0.1': {}
  react-dom@18.2.0(react@18.2.0): {}
  string-width@4.2.3: {}
"""})
    locked = PnpmAdapter(tmp_path, "").locked_versions()
    assert locked == {"a": {"1.2.0"}, "string-width": {"4.2.3"}, "react-dom": {"18.2.0"}, "@scope/x": {"2.0.1"}}


def _pin(ws: Path, version: str) -> None:
    doc = json.loads((ws / "package.json").read_text())
    (ws / "package.json").write_text(json.dumps({**doc, "packageManager": f"pnpm@{version}"}, indent=2) + "\n")


def _installed_pnpm(tmp_path: Path, env: dict) -> str:
    return pnpm(tmp_path, env, "--version").stdout.strip().splitlines()[-1]


def test_a_pinned_pnpm_of_another_major_that_npm_has_not_cached_is_needs_network_offline(tmp_path, pnpm_env):
    """Relocking with another major than the project pins rewrites the lock in that major's format
    (and nothing undoes a committed relock): offline, with the pinned pnpm not in npm's cache, the
    root needs the network and its files are put back."""
    used = _installed_pnpm(tmp_path, pnpm_env)
    other = f"{int(used.split('.')[0]) - 1}.19.0"
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    _pin(ws, other)
    before = snapshot(ws)
    result = consolidate_root(ws, "", "pnpm", json_edit(ws, "t", dependencies={"a": "workspace:*"}), env=pnpm_env)
    assert result.state == RootState.NEEDS_NETWORK, result.error
    # The message names what the relock lacked (the pinned pnpm, not packages) and both ways out.
    assert result.error["kind"] == "tool_not_cached"
    assert result.error["message"] == (f"pnpm cannot run offline: package.json pins pnpm@{other} (packageManager), "
                                       f"the pnpm on PATH is {used}, another major (its lockfile format differs), "
                                       f"and `npm exec --offline` has no pnpm@{other} cached")
    assert result.error["fix"].startswith(f"install pnpm@{other} (npm install -g pnpm@{other}) and consolidate "
                                          "again, or consolidate online once (wtc consolidate --online)")
    assert f"package.json pins pnpm@{other} (packageManager) and the pnpm on PATH is {used}" in result.error["stderr"]
    assert "ENOTCACHED" in result.error["stderr"]
    assert snapshot(ws) == before, "nothing relocked by the wrong pnpm stays on disk"


def test_offline_a_pinned_pnpm_a_minor_apart_not_cached_relocks_with_paths_and_says_so(tmp_path, pnpm_env):
    """Another minor than the one pinned rewrites a lock's format too (pnpm 9.15 on a pnpm@9.4.0
    lock: `libc` on every native package, peer suffixes shortened): npm's cache is asked for the
    pinned one first; offline without it, PATH's pnpm of the same major relocks, and the result
    names both versions so a person reviews the lockfile diff."""
    used = _installed_pnpm(tmp_path, pnpm_env)
    pinned = f"{used.split('.')[0]}.0.0"
    assert pinned != used
    same = make_workspace(tmp_path / "same", pnpm_env)
    _pin(same, pinned)
    result = consolidate_root(same, "", "pnpm", json_edit(same, "t", dependencies={"a": "workspace:*"}), env=pnpm_env)
    assert result.state == RootState.APPLIED, result
    asked = [run for run in result.tool_runs if run["argv"][:2] == ["npm", "exec"]]
    assert [(run["argv"][2], run["returncode"] != 0) for run in asked] == [("--offline", True)], asked
    assert result.warnings == (
        f"relocked with pnpm {used}, but package.json pins pnpm@{pinned} (packageManager) and npm's cache does not "
        "hold it (consolidation ran offline): another version may rewrite the lockfile's format; review the "
        f"lockfile diff, and put pnpm@{pinned} on PATH (npm install -g pnpm@{pinned}) or consolidate with --online "
        "next time",), result.warnings


def test_a_pinned_pnpm_with_no_npm_to_fetch_it_names_the_version_to_install(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    _pin(ws, "9.15.9")
    bin_dir = tmp_path / "bin"                       # node and pnpm, but no npm
    bin_dir.mkdir()
    for tool in ("node", "pnpm"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    env = {**pnpm_env, "PATH": str(bin_dir)}
    result = consolidate_root(ws, "", "pnpm", json_edit(ws, "t", dependencies={"a": "workspace:*"}), env=env,
                              offline=False)
    assert result.state == RootState.FAILED and result.error["kind"] == "tool_missing", result.error
    assert result.error["fix"] == ("install pnpm@9.15.9 (npm install -g pnpm@9.15.9, or run consolidation with "
                                   "--online, which fetches it with npm exec), then consolidate again with "
                                   "--retry-failed")


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm comes with Node.js 20, which the README's set-up needs")
def test_online_the_pinned_pnpm_is_fetched_with_npm_exec_and_relocks_then_offline_from_the_cache(tmp_path, pnpm_env):
    """Uses the npm registry, as the README's `npm ci --prefix tools` does: pnpm@10 is fetched
    once into this test's own npm cache, relocks, and a later offline consolidation reuses it."""
    pinned = "10.34.5"
    assert _installed_pnpm(tmp_path, pnpm_env).split(".")[0] != "10", "the test needs another major on PATH"
    ws = make_workspace(tmp_path / "ws", pnpm_env, members=("a", "b"))
    _pin(ws, pinned)
    result = consolidate_root(ws, "", "pnpm", json_edit(ws, "t", dependencies={"a": "workspace:*"}), env=pnpm_env,
                              offline=False)
    assert result.state == RootState.APPLIED, result.error
    assert not [w for w in result.warnings if "pins pnpm@" in w], result.warnings
    fetched = [run for run in result.tool_runs if run["argv"][:2] == ["npm", "exec"]]
    assert [run["returncode"] for run in fetched] == [1, 0], "offline first (not cached), then fetched"
    assert f"--package=pnpm@{pinned}" in fetched[-1]["argv"]
    assert lock(ws)["importers"]["."]["dependencies"]["a"]["version"] == "link:packages/a"
    adapter = adapter_for("pnpm", ws, "", env=pnpm_env)
    assert adapter.relock(offline=True).ok, "offline now: npm's cache holds the pinned pnpm"
    assert adapter.run(("pnpm", "--version")).stdout.strip().splitlines()[-1] == pinned


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm comes with Node.js 20, which the README's set-up needs")
def test_online_a_pinned_pnpm_a_minor_apart_is_fetched_and_relocks_instead_of_paths(tmp_path, pnpm_env):
    """Uses the npm registry, as the README's `npm ci --prefix tools` does. The project pins
    the major on PATH but another minor: online, the pinned version is fetched before the offline
    relock (which would succeed from the cache with PATH's pnpm and rewrite the lock's format)."""
    used = _installed_pnpm(tmp_path, pnpm_env)
    major, minor = used.split(".")[:2]
    pinned = f"{major}.{int(minor) - 1}.0"
    ws = make_workspace(tmp_path / "ws", pnpm_env, members=("a", "b"))
    _pin(ws, pinned)
    result = consolidate_root(ws, "", "pnpm", json_edit(ws, "t", dependencies={"a": "workspace:*"}), env=pnpm_env,
                              offline=False)
    assert result.state == RootState.APPLIED, result.error
    assert not result.warnings, result.warnings
    fetched = [run for run in result.tool_runs if run["argv"][:2] == ["npm", "exec"]]
    assert [run["returncode"] for run in fetched] == [1, 0], "npm's cache first (empty), then fetched"
    assert f"--package=pnpm@{pinned}" in fetched[-1]["argv"]
    adapter = adapter_for("pnpm", ws, "", env=pnpm_env)
    assert adapter.relock(offline=True).ok, "offline now: npm's cache holds the pinned pnpm"
    assert adapter.run(("pnpm", "--version")).stdout.strip().splitlines()[-1] == pinned


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm comes with Node.js 20, which the README's set-up needs")
def test_the_pinned_pnpm_is_fetched_where_npm_cannot_read_the_roots_workspaces(tmp_path, pnpm_env):
    """Uses the npm registry. The root's package.json also lists `workspaces` (for other tools),
    and two members share a name, which pnpm accepts and npm refuses (EDUPLICATEWORKSPACE) before
    doing anything, `npm exec` included (vuejs/pinia's playground and online-playground); the
    root's `.npmrc` still applies to the fetch."""
    used = _installed_pnpm(tmp_path, pnpm_env)
    pinned = "10.34.5"
    assert used.split(".")[0] != "10", "the test needs another major on PATH"
    ws = make_workspace(tmp_path / "ws", pnpm_env, members=("a", "b"), root_fields={"workspaces": ["packages/*"]})
    write(ws, {"packages/b/package.json": pkg("a", "1.2.0"), ".npmrc": "fund=false\n"})
    _pin(ws, pinned)
    npm_in_root = subprocess.run(["npm", "exec", "--offline", "--yes", f"--package=pnpm@{pinned}", "--call", "true"],
                                 cwd=ws, env=adapter_env(pnpm_env), capture_output=True, text=True)
    assert "EDUPLICATEWORKSPACE" in npm_in_root.stderr, npm_in_root.stderr
    result = consolidate_root(ws, "", "pnpm", json_edit(ws, "t", dependencies={"a": "workspace:*"}), env=pnpm_env,
                              offline=False)
    assert result.state == RootState.APPLIED, result.error
    fetched = [run for run in result.tool_runs if run["argv"][:2] == ["npm", "exec"]]
    assert [run["returncode"] for run in fetched] == [1, 0], fetched


def test_packages_the_relock_moves_without_an_intent_are_a_warning(tmp_path, pnpm_env):
    ws = make_workspace(tmp_path / "ws", pnpm_env)
    # The base lock holds a package nothing depends on (left by an old hand edit): the relock prunes
    # it, which no intent asked for; a person should see that before landing.
    text = (ws / "pnpm-lock.yaml").read_text()
    write(ws, {"vendor/ghost/package.json": pkg("ghost", "1.0.0")})
    assert "\npackages:" not in text
    text += ("\npackages:\n\n  ghost@file:vendor/ghost:\n    resolution: {directory: vendor/ghost, type: directory}\n"
             "\nsnapshots:\n\n  ghost@file:vendor/ghost: {}\n")
    (ws / "pnpm-lock.yaml").write_text(text)
    assert PnpmAdapter(ws, "", env=pnpm_env).locked_versions()["ghost"] == {"file:vendor/ghost"}
    result = consolidate_root(ws, "", "pnpm", json_edit(ws, "t", dependencies={"a": "workspace:*"}), env=pnpm_env)
    assert result.state == RootState.APPLIED, result.error
    assert "ghost" not in PnpmAdapter(ws, "", env=pnpm_env).locked_versions()
    assert result.lock_diff.unexplained == ("ghost: removed (file:vendor/ghost)",)
    assert ("the relock also moved 1 package(s) no intent names: ghost: removed (file:vendor/ghost) "
            "(review pnpm-lock.yaml before landing)") in result.warnings
