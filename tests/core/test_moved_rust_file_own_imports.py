"""A Rust file a task moves carries its `mod x;` and `super::` paths along: each must still name a file.

Rust finds a file module by the place of the file declaring it: src/net/client.rs's `mod codec;`
is src/net/client/codec.rs, its `use super::util;` is src/net/util.rs. A task that moves client.rs
up to src/client.rs (and declares it in lib.rs) leaves both naming nothing (cargo: E0583 file not
found for module `codec`, E0432 unresolved import `super::util`), in the task's own file: kind
`own_import`, at `task check` (exit 1) and `wtc check`, as for Python, JavaScript, TypeScript and
Java. A move that takes the file module along and rewrites the path is clean, as is a `super::`
path whose parent module still defines the name.
"""

from __future__ import annotations

import json

import pytest

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, wtc
from tests.core.test_uses_left_behind import _task_edited

CLIENT = "mod codec;\nuse super::util;\n\npub fn run() -> u32 {\n    util::helper() + codec::c()\n}\n"
FILES = {
    "Cargo.toml": '[package]\nname = "netcrate"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod net;\n",
    "src/net/mod.rs": "pub mod client;\npub mod util;\n",
    "src/net/util.rs": "pub fn helper() -> u32 {\n    1\n}\n",
    "src/net/client.rs": CLIENT,
    "src/net/client/codec.rs": "pub fn c() -> u32 {\n    2\n}\n",
}
MOVED_UP = {"src/lib.rs": "pub mod client;\npub mod net;\n", "src/net/mod.rs": "pub mod util;\n"}


def test_a_moved_rust_file_whose_mod_and_super_paths_name_nothing_now_blocks(tmp_path):
    repo = _task_edited(tmp_path, FILES, "mv", ("src/**",), MOVED_UP, {"src/net/client.rs": "src/client.rs"})
    code, body = wtc(repo, "task", "check", "mv", "--run", "r1")
    rows = [(row["use_path"], row["use_lines"], row["name"], row["definition_path"], row["moved_from"])
            for row in body["left_behind"] if "use_path" in row]
    assert code == 1 and sorted(rows) == [
        ("src/client.rs", [1], "mod codec;", "src/net/client/codec.rs", "src/net/client.rs"),
        ("src/client.rs", [2], "super::util", "src/net/util.rs", "src/net/client.rs")], body
    assert all(row["own_import"] for row in body["left_behind"] if "use_path" in row)


def test_wtc_check_names_them_too(tmp_path):
    repo = make_repo(tmp_path / "ci", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "mv", "src/net/client.rs", "src/client.rs")
    for path, text in MOVED_UP.items():
        (repo / path).write_text(text)
    commit_all(repo, "feature")
    done = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 1 and sorted((f["path"], f["start_line"]) for f in body["findings"]) == \
        [("src/client.rs", 1), ("src/client.rs", 2)], done.stdout


@pytest.mark.parametrize("edits, moves", [
    (MOVED_UP | {"src/client.rs": CLIENT.replace("use super::util;", "use crate::net::util;")},
     {"src/net/client.rs": "src/client.rs", "src/net/client/codec.rs": "src/client/codec.rs"}),
    (MOVED_UP | {"src/lib.rs": "pub mod client;\npub mod net;\npub use net::util;\n"},
     {"src/net/client.rs": "src/client.rs", "src/net/client/codec.rs": "src/client/codec.rs"}),
    ({"src/net/mod.rs": "pub mod client;\npub mod util;\npub mod more;\n", "src/net/more.rs": "pub fn m() {}\n"}, None),
], ids=["module-taken-along-path-rewritten", "parent-module-binds-the-name", "an-edit-that-moves-nothing"])
def test_a_move_that_keeps_every_module_answering_is_clean(tmp_path, edits, moves):
    repo = _task_edited(tmp_path, FILES, "mv", ("src/**",), edits, moves)
    code, body = wtc(repo, "task", "check", "mv", "--run", "r1")
    assert code == 0 and not [row for row in body["left_behind"] if "use_path" in row], body


# -- a `use super::{a, b}` group and `super::` paths in expressions (cargo: E0432, E0433) ---------------
GROUPED = "use super::{util, wire};\n\npub fn run() -> u32 {\n    util::helper() + super::wire::w()\n}\n"
GROUPED_FILES = {**{path: text for path, text in FILES.items() if "codec" not in path},
                 "src/net/mod.rs": "pub mod client;\npub mod util;\npub mod wire;\n",
                 "src/net/wire.rs": "pub fn w() -> u32 {\n    3\n}\n", "src/net/client.rs": GROUPED}


def test_a_moved_rust_file_whose_use_group_and_expression_paths_name_nothing_now_blocks(tmp_path):
    moved = {"src/lib.rs": "pub mod client;\npub mod net;\n", "src/net/mod.rs": "pub mod util;\npub mod wire;\n"}
    repo = _task_edited(tmp_path, GROUPED_FILES, "mv", ("src/**",), moved, {"src/net/client.rs": "src/client.rs"})
    code, body = wtc(repo, "task", "check", "mv", "--run", "r1")
    rows = sorted((row["name"], row["use_lines"], row["definition_path"])
                  for row in body["left_behind"] if "use_path" in row)
    assert code == 1 and rows == [("super::util", [1], "src/net/util.rs"),
                                  ("super::wire", [1, 4], "src/net/wire.rs")], body


@pytest.mark.parametrize("moved_to", ["src/net/client_v2.rs", "src/net/client/mod.rs"])
def test_a_move_that_keeps_the_group_and_paths_answering_is_clean(tmp_path, moved_to):
    """client.rs renamed beside itself, or turned into client/mod.rs: `super` is still net."""
    mod = "pub mod client_v2;\npub mod util;\npub mod wire;\n" if "v2" in moved_to else GROUPED_FILES["src/net/mod.rs"]
    repo = _task_edited(tmp_path, GROUPED_FILES, "mv", ("src/**",), {"src/net/mod.rs": mod},
                        {"src/net/client.rs": moved_to})
    code, body = wtc(repo, "task", "check", "mv", "--run", "r1")
    assert code == 0 and not [row for row in body["left_behind"] if "use_path" in row], body
