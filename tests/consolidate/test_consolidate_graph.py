"""graph: offline member discovery, cycle rejection, deterministic dependency order."""

import itertools
import json
from pathlib import Path

from worktree_coord.consolidate.graph import discover_workspace, order_changes
from worktree_coord.consolidate.intent import Ecosystem, Intent
from worktree_coord.consolidate.planning import ConflictKind, directory_reader, plan


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def npm_pkg(name: str, **fields) -> str:
    return json.dumps({"name": name, "version": "1.0.0", **fields}, indent=2) + "\n"


def test_discovers_npm_cargo_uv_and_go_workspaces(tmp_path):
    write(tmp_path, {
        "package.json": npm_pkg("root", workspaces=["packages/*", "!packages/skip"]),
        "packages/a/package.json": npm_pkg("a", dependencies={"b": "^1.0.0", "lodash": "^4"}),
        "packages/b/package.json": npm_pkg("b"),
        "packages/skip/package.json": npm_pkg("skip"),
        "packages/notapkg/README": "x",
        "rs/Cargo.toml": '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/old"]\n'
                         '[workspace.dependencies]\nutil = { path = "crates/util" }\n',
        "rs/crates/app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n[dependencies]\n'
                                    'core = { path = "../core", version = "0.1" }\nutil = { workspace = true }\n',
        "rs/crates/core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n',
        "rs/crates/util/Cargo.toml": '[package]\nname = "util"\nversion = "0.1.0"\n',
        "rs/crates/old/Cargo.toml": '[package]\nname = "old"\nversion = "0.1.0"\n',
        "py/pyproject.toml": '[project]\nname = "Py_Root"\nversion = "0.1.0"\ndependencies = ["lib-a"]\n'
                             '[tool.uv.sources]\nlib-a = { workspace = true }\n[tool.uv.workspace]\nmembers = ["libs/*"]\n',
        "py/libs/a/pyproject.toml": '[project]\nname = "Lib_A"\nversion = "0.1.0"\ndependencies = ["requests"]\n',
        "go/go.work": "go 1.22\n\nuse (\n\t./svc\n\t./lib\n)\n",
        "go/svc/go.mod": "module example.com/svc\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n",
        "go/lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
    })
    npm = discover_workspace(tmp_path, "npm", "")
    assert npm.members == {"root": "", "a": "packages/a", "b": "packages/b"}
    assert sorted(npm.graph.edges) == [("a", "b")]
    cargo = discover_workspace(tmp_path, Ecosystem.CARGO, "rs")
    assert cargo.members == {"app": "rs/crates/app", "core": "rs/crates/core", "util": "rs/crates/util"}
    assert sorted(cargo.graph.edges) == [("app", "core"), ("app", "util")]
    uv = discover_workspace(tmp_path, Ecosystem.UV, "py")
    assert uv.members == {"py-root": "py", "lib-a": "py/libs/a"} and sorted(uv.graph.edges) == [("py-root", "lib-a")]
    go = discover_workspace(tmp_path, Ecosystem.GO, "go")
    assert sorted(go.graph.edges) == [("example.com/svc", "example.com/lib")]


def test_member_globs_are_expanded_as_each_package_manager_expands_them(tmp_path):
    """Discovery and the merge's semantic check share one expander (member_globs.py). What changed
    here: a trailing `/**` is the folder and every folder below (it was the folder alone), and npm,
    yarn, pnpm and bun never expand into node_modules or a dot folder (Path.glob did); Cargo's and
    uv's globs still do, as theirs do."""
    write(tmp_path, {
        "package.json": npm_pkg("root", workspaces=["packages/**", "!packages/old"]),
        "packages/a/package.json": npm_pkg("a"),
        "packages/group/b/package.json": npm_pkg("b"),
        "packages/old/package.json": npm_pkg("old"),
        "packages/a/node_modules/dep/package.json": npm_pkg("dep"),
        "packages/.template/package.json": npm_pkg("template"),
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        "crates/core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\n',
        "crates/.hidden/Cargo.toml": '[package]\nname = "hidden"\nversion = "0.1.0"\n',
    })
    assert discover_workspace(tmp_path, "npm", "").members == {"root": "", "a": "packages/a", "b": "packages/group/b"}
    assert discover_workspace(tmp_path, "cargo", "").members == {"core": "crates/core", "hidden": "crates/.hidden"}


def test_a_glob_part_with_a_leading_dot_names_dot_folders_as_pnpm_and_npm_do(tmp_path):
    """trpc's pnpm-workspace.yaml lists `examples/.*/*` beside `examples/*`: pnpm 10.33 and npm 11.19
    expand the first into `examples/.test/...` (a part that starts with a dot asks for dot folders)
    and the second past it. Discovery skipped every dot folder, so those packages were no members."""
    write(tmp_path, {
        "package.json": npm_pkg("root"),
        "pnpm-workspace.yaml": "packages:\n  - 'examples/*'\n  - 'examples/.*/*'\n",
        "examples/app/package.json": npm_pkg("app", dependencies={"types-check": "workspace:*"}),
        "examples/.test/types-check/package.json": npm_pkg("types-check"),
        "examples/.test/package.json": npm_pkg("not-a-member"),
    })
    ws = discover_workspace(tmp_path, "pnpm", "")
    assert ws.members == {"root": "", "app": "examples/app", "types-check": "examples/.test/types-check"}
    assert sorted(ws.graph.edges) == [("app", "types-check")]


def member_dep(task: str, frm: str, to: str, priority: int = 0) -> Intent:
    return Intent(intent_id=f"{task}:1", task=task, ecosystem="cargo", root="", manifest=f"crates/{frm}/Cargo.toml",
                  member=f"crates/{frm}", op="add_dep", group="dependencies", name=to, spec="0.1.0",
                  source={"path": f"../{to}"}, priority=priority)


def cargo_ws(tmp_path: Path) -> None:
    write(tmp_path, {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        **{f"crates/{n}/Cargo.toml": f'[package]\nname = "{n}"\nversion = "0.1.0"\n' for n in "abc"},
    })


def test_a_cycle_across_two_tasks_rejects_the_lowest_priority_deterministically(tmp_path):
    cargo_ws(tmp_path)
    ws = discover_workspace(tmp_path, "cargo", "")
    intents = [member_dep("t1", "a", "b"), member_dep("t2", "b", "a")]
    for order in itertools.permutations(intents):
        p = plan(list(order), directory_reader(tmp_path))
        result = order_changes(p.changes, ws)
        assert [c.intent.task for c in result.changes] == ["t1"]
        [conflict] = result.rejected
        assert conflict.kind == ConflictKind.CYCLE and conflict.tasks == ("t1", "t2")
        assert "t2" in conflict.message and "cycle" in conflict.message
    # A higher priority keeps t2's edge instead.
    p = plan([member_dep("t1", "a", "b"), member_dep("t2", "b", "a", priority=5)], directory_reader(tmp_path))
    assert [c.intent.task for c in order_changes(p.changes, ws).changes] == ["t2"]


def test_order_puts_new_members_and_dependencies_first(tmp_path):
    cargo_ws(tmp_path)
    write(tmp_path, {"crates/new/Cargo.toml": '[package]\nname = "new"\nversion = "0.1.0"\n'})
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/a", "crates/b", "crates/c"]\n')
    add_member = Intent(intent_id="z:1", task="z", ecosystem="cargo", root="", manifest="Cargo.toml",
                        op="add_member", group="workspace.members", name="crates/new", spec="crates/new")
    dep_on_new = member_dep("a", "c", "new")
    a_on_b = member_dep("b", "a", "b")
    b_change = Intent(intent_id="y:1", task="y", ecosystem="cargo", root="", manifest="crates/b/Cargo.toml",
                      op="add_dep", group="dependencies", name="c", spec="0.1.0", source={"path": "../c"})
    intents = [add_member, dep_on_new, a_on_b, b_change]
    seen = set()
    for order in itertools.permutations(intents):
        p = plan(list(order), directory_reader(tmp_path))
        ws = discover_workspace(tmp_path, "cargo", "", extra_members=["crates/new"])
        result = order_changes(p.changes, ws)
        seen.add(tuple(c.intent.intent_id for c in result.changes))
    assert len(seen) == 1
    [ids] = seen
    assert ids.index("z:1") < ids.index("a:1")          # the new member before the dependency on it
    assert ids.index("a:1") < ids.index("y:1") < ids.index("b:1")   # c's change, then b's, then a's (a -> b -> c)
