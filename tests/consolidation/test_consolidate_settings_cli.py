"""A root Cargo.toml's lints through the CLI, as agents change them (tokio-rs/axum, driven as a user:
a task adding `large_futures = "warn"` to `[workspace.lints.clippy]` was refused at finish with
`reserved_unexpressible`, a dead end for an agent). One task edits the reserved file, another
declares the same kind of edit with `wtc intent add --op set_key`; consolidation applies both
without running cargo (nothing the lockfile records changed), and bad keys are refused with a fix."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import git, make_repo, write
from tests.lead.helpers import cli

ROOT = '''[workspace]
members = ["a"]
resolver = "2"

[workspace.lints.clippy]
# lints every crate shares
dbg_macro = "warn"
todo = "allow"
'''


def test_root_cargo_lints_from_an_edit_and_a_declaration_land_without_a_relock(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"Cargo.toml": ROOT,
                                         "a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n',
                                         "a/src/lib.rs": "pub fn a() {}\n"})
    subprocess.run(["cargo", "generate-lockfile", "--offline"], cwd=repo, check=True, capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lock")
    lock = (repo / "Cargo.lock").read_bytes()
    cli(repo, "run", "start", "--run", "r", expect=0)
    _, started = cli(repo, "task", "start", "edit", "--run", "r", "--own", "a/**", expect=0)
    worktree = Path(started["worktree"])
    write(worktree, {"Cargo.toml": ROOT.replace('dbg_macro = "warn"\n', 'dbg_macro = "warn"\nlarge_futures = "warn"\n')})
    _, done = cli(repo, "task", "finish", "edit", "--run", "r", expect=0)
    assert done["state"] == "merged"
    assert [(i["op"], i["name"], i["spec"]) for i in done["intents"]] == \
        [("set_key", "workspace.lints.clippy.large_futures", '"warn"')]

    cli(repo, "task", "start", "declare", "--run", "r", "--own", "a/**", expect=0)
    _, declared = cli(repo, "intent", "add", "declare", "--run", "r", "--manifest", "Cargo.toml", "--op", "set_key",
                      "--name", "workspace.lints.clippy.todo", "--spec", "warn", expect=0)
    assert (declared["intent"]["spec"], declared["intent"]["expected_before"]) == ('"warn"', '"allow"')
    # A key the dependency intents carry, and a key that does not parse, are refused with the way out.
    _, refused = cli(repo, "intent", "add", "declare", "--run", "r", "--manifest", "Cargo.toml", "--op", "set_key",
                     "--name", "workspace.dependencies.serde", "--spec", "1", expect=2)
    assert "add_dep" in refused["error"]["fix"]
    _, refused = cli(repo, "intent", "add", "declare", "--run", "r", "--manifest", "Cargo.toml", "--op", "set_key",
                     "--name", 'workspace."lints', "--spec", "1", expect=2)
    assert "dotted path" in refused["error"]["fix"]
    write(Path(repo / ".wtc/worktrees/r/declare"), {"a/src/lib.rs": "pub fn a() {}\npub fn b() {}\n"})
    cli(repo, "task", "finish", "declare", "--run", "r", expect=0)
    _, listed = cli(repo, "intent", "list", "--run", "r", json_mode=False, expect=0)
    assert 'set_key workspace.lints.clippy.todo "warn"' in listed

    _, consolidated = cli(repo, "consolidate", "--run", "r", expect=0)
    [root] = consolidated["roots"]
    assert root["state"] == "applied" and root["tool_runs"] == [], "nothing the lockfile records changed"
    landed = git(repo, "show", "wtc/r/integration:Cargo.toml")   # (git() strips the last newline)
    assert landed == ROOT.replace('dbg_macro = "warn"\ntodo = "allow"\n',
                                  'dbg_macro = "warn"\nlarge_futures = "warn"\ntodo = "warn"\n').rstrip("\n")
    assert git(repo, "show", "wtc/r/integration:Cargo.lock") == lock.decode().rstrip("\n")
