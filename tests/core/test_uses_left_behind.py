"""Finish names the uses a task's rename leaves behind in files it does not own (left_behind.py).

Found driving wtc on psf/requests: a task that owned `utils.py` renamed `guess_filename`, `models.py`
(another task's, or nobody's) still imported it; every merge was clean and the landed tree did not
import. The finish now says where, and the ways out; with the run's left-behind mode at `block` (the
default) its merge refuses them (tests/core/test_left_behind_blocks.py), and these tests read what
the refusal names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc_in_process

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def guess_filename(obj):\n    return getattr(obj, 'name', None)\n\n\ndef other():\n    return 1\n",
    "pkg/models.py": "from .utils import guess_filename\n\n\ndef upload_name(obj):\n    return guess_filename(obj)\n",
    "pkg/notes.py": "# guess_filename is described in utils\nTEXT = 'guess_filename'\n",
    "pkg/local.py": "def guess_filename(obj):\n    return 'mine'\n\n\nVALUE = guess_filename(None)\n",
}


def _finish_rename(tmp_path: Path, utils_after: str) -> dict:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "rename", "--run", "r1", "--own", "pkg/utils.py")
    assert code == 0, body
    (Path(body["worktree"]) / "pkg/utils.py").write_text(utils_after)
    code, body = wtc_in_process(repo, "task", "finish", "rename", "--run", "r1")
    assert (code, body["state"]) in ((0, "merged"), (1, "conflict")), body
    return body


def _left_behind_notes(tmp_path: Path, files: dict[str, str], own: str, path: str, old: str, new: str) -> list[str]:
    """The "still uses" notes of a task owning `own` that renames `old` to `new` in `path` and finishes."""
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "rename", "--run", "r1", "--own", own)
    assert code == 0, body
    (Path(body["worktree"]) / path).write_text(files[path].replace(old, new))
    code, body = wtc_in_process(repo, "task", "finish", "rename", "--run", "r1")
    assert (code, body["state"]) in ((0, "merged"), (1, "conflict")), body
    return [note for note in body["notes"] if "still uses" in note]


def _task_edited(tmp_path: Path, files: dict[str, str], task: str, owns: tuple[str, ...],
                 edits: dict[str, str | None], moves: dict[str, str] | None) -> Path:
    """A repository of `files`, run r1 started, task `task` owning `owns`, its worktree edited: `moves`
    with `git mv`, then `edits` written (None: `git rm`). The repository."""
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", *[arg for glob in owns for arg in ("--own", glob)])
    assert code == 0, body
    worktree = Path(body["worktree"])
    for old, new in (moves or {}).items():
        (worktree / new).parent.mkdir(parents=True, exist_ok=True)
        git(worktree, "mv", old, new)
    for path, text in edits.items():
        if text is None:
            git(worktree, "rm", "-q", path)
        else:
            (worktree / path).write_text(text)
    return repo


def _branch_checked(tmp_path: Path, files: dict[str, str], edits: dict[str, str]) -> tuple[int, dict]:
    """A repository of `files` whose branch `topic` writes `edits` (path -> new text), checked as CI
    checks it: `wtc check --base main --head topic --own '**'`."""
    repo = make_repo(tmp_path / "ci", files)
    git(repo, "checkout", "-q", "-b", "topic")
    for path, text in edits.items():
        (repo / path).write_text(text)
    git(repo, "commit", "-qam", "topic")
    return wtc_in_process(repo, "check", "--base", "main", "--head", "topic", "--own", "**")


def _removal_refused(tmp_path: Path, files: dict[str, str], own: str | tuple[str, ...],
                     edits: dict[str, str | None], moves: dict[str, str] | None = None) -> tuple[Path, list[str]]:
    """A task owning `own` moves files (`moves`: old path -> new, `git mv`) and writes `edits` (path ->
    new text: a removal or a rename; None deletes the file): its check fails (exit 1) and its finish
    is a conflict; the repository and the finish's "still use(s)" / "still import(s)" notes."""
    owns = (own,) if isinstance(own, str) else own
    repo = _task_edited(tmp_path, files, "rm", owns, edits, moves)
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1, check
    code, body = wtc_in_process(repo, "task", "finish", "rm", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    return repo, [note for note in body["notes"] if "still use" in note or "still import" in note]


def _removal_merged(tmp_path: Path, files: dict[str, str], edits: dict[str, str | None],
                    moves: dict[str, str] | None = None) -> dict:
    """A task owning everything moves (`moves`) and writes `edits` (None deletes): its check passes
    (exit 0, nothing left behind) and its finish merges; the finish's result."""
    repo = _task_edited(tmp_path, files, "mv", ("**",), edits, moves)
    code, check = wtc_in_process(repo, "task", "check", "mv", "--run", "r1")
    assert code == 0 and not check["left_behind"], check
    code, body = wtc_in_process(repo, "task", "finish", "mv", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    return body


def _second_finish(tmp_path: Path, files: dict[str, str], first: tuple[str, str, dict[str, str]],
                   second: tuple[str, str, dict[str, str]]) -> tuple[int, dict]:
    """Tasks `first` and `second`, each (name, --own glob, edits: path -> new text), started together
    on a repository of `files`; the first finished and merged; the second's finish (exit code,
    result): what the queue's merge check says of its new code over the first's change."""
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for task, own, _edits in (first, second):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", own)
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    for task, _own, edits in (first, second):
        for path, text in edits.items():
            (worktrees[task] / path).write_text(text)
    code, body = wtc_in_process(repo, "task", "finish", first[0], "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    return wtc_in_process(repo, "task", "finish", second[0], "--run", "r1")


def _drained(tmp_path: Path, files: dict[str, str], tasks: list[tuple[str, str, dict[str, str]]]) -> tuple[int, dict[str, tuple]]:
    """Tasks (name, --own glob, edits), started together on a repository of `files` with the run's
    left-behind look off (the post-merge semantic check alone answers), finished `--no-merge` in
    order and drained by `wtc merge` (each merge after the first reading the tip's tables): its
    exit code and each task's (state, [(conflict kind, path, semantic name)])."""
    from worktree_coord.coordinator import Coordinator

    repo = make_repo(tmp_path / "repo", files)
    with Coordinator(repo) as coord:
        coord.start_run("r1", left_behind="off")
        for name, own, edits in tasks:
            worktree = Path(coord.start_task("r1", name, [own]).worktree)
            for path, text in edits.items():
                (worktree / path).parent.mkdir(parents=True, exist_ok=True)
                (worktree / path).write_text(text)
            assert coord.finish_task("r1", name, merge=False).state == "finished"
    code, body = wtc_in_process(repo, "merge", "--run", "r1")
    return code, {row["task"]: (row["state"], [(c["kind"], c["path"], c.get("semantic", {}).get("name"))
                                               for c in row.get("conflicts", [])]) for row in body["tasks"]}


def test_a_rename_whose_old_name_another_file_imports_is_named_at_finish(tmp_path):
    body = _finish_rename(tmp_path, FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of"))
    left = [note for note in body["notes"] if "still uses" in note]
    assert len(left) == 1, body["notes"]
    assert left[0].startswith("pkg/models.py (lines 1, 5: 2 uses) still uses guess_filename")   # import first
    assert "to filename_of" in left[0] and "wtc task widen rename --run r1 --own '/pkg/models.py'" in left[0]
    # a comment or a string naming it is no use; a file defining its own guess_filename is not ours
    assert not any("notes.py" in note or "local.py" in note for note in body["notes"])


def test_a_rename_that_keeps_the_old_name_as_an_alias_leaves_nothing_behind(tmp_path):
    after = FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of") + "\n\nguess_filename = filename_of\n"
    body = _finish_rename(tmp_path, after)
    assert not any("still uses" in note for note in body["notes"]), body["notes"]


def test_an_edit_that_removes_no_name_reads_no_other_file(tmp_path):
    body = _finish_rename(tmp_path, FILES["pkg/utils.py"].replace("return 1", "return 2"))
    assert not any("still uses" in note for note in body["notes"]), body["notes"]
    assert git(tmp_path / "repo", "show", "wtc/r1/integration:pkg/utils.py").endswith("return 2")


def test_task_check_names_them_before_the_finish_apart_from_the_merge_conflicts(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "rename", "--run", "r1", "--own", "pkg/utils.py")
    worktree = Path(body["worktree"])
    (worktree / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of"))
    code, body = wtc_in_process(repo, "task", "check", "rename", "--run", "r1")      # uncommitted edits count
    assert code == 1 and body["clean"] and body["left_behind_blocks"], body     # its merge would refuse them
    assert [(u["use_path"], u["use_lines"], u["name"], u["replacement"]) for u in body["left_behind"]] == \
        [("pkg/models.py", [1, 5], "guess_filename", "filename_of")]
    assert "wtc task widen rename" in body["left_behind"][0]["note"]


def test_a_task_changing_more_files_than_finish_reads_says_it_did_not_look(tmp_path, monkeypatch):
    from worktree_coord.check import left_behind
    from worktree_coord.gitrepo.repository import Change

    changes = [Change(f"pkg/m{i}.py", 0o100644, 0o100644, "0" * 40, "1" * 40) for i in range(left_behind.MAX_CHANGED + 1)]
    monkeypatch.setattr(left_behind, "semantic_profile", lambda path: object())
    with pytest.raises(left_behind.LookupTooLarge, match="more than the 100 read for removed names"):
        left_behind.uses_left_behind(changes, lambda oid: b"", "HEAD", lambda commit, names: [], lambda c, p: None)


def test_uses_imported_through_a_barrel_the_task_did_not_change_are_named(tmp_path):
    """mobx's shape: every module imports from `../internal`, a file of `export * from`; the task
    that owned utils.ts renamed `hasProp`, and the files using it through the barrel were not named."""
    files = {
        "src/utils/utils.ts": "export function hasProp(target: Object, prop: PropertyKey): boolean {\n"
                              "    return Object.prototype.hasOwnProperty.call(target, prop)\n}\n",
        "src/internal.ts": 'export * from "./utils/utils"\nexport * from "./types/map"\n',
        "src/types/map.ts": 'import { hasProp } from "../internal"\n\nexport function has(m: any, k: string) {\n'
                            "    return hasProp(m, k)\n}\n",
    }
    left = _left_behind_notes(tmp_path, files, "src/utils/**", "src/utils/utils.ts", "hasProp", "hasOwnProp")
    assert len(left) == 1 and left[0].startswith("src/types/map.ts (lines 1, 4: 2 uses) still uses hasProp"), left


def test_a_re_export_of_the_renamed_name_in_another_crate_is_named(tmp_path):
    """tokio-rs/tracing's shape (found driving wtc on it): tracing-core's dispatcher.rs defines
    `has_been_set`, the tracing crate re-exports it (`pub use tracing_core::dispatcher::has_been_set;`)
    and calls it nowhere. A task owning dispatcher.rs renamed it; that re-export, which no longer
    compiles, was not named."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["core", "tracing"]\n',
        "core/Cargo.toml": '[package]\nname = "tracing-core"\n',
        "core/src/lib.rs": "pub mod dispatcher;\n",
        "core/src/dispatcher.rs": "pub fn has_been_set() -> bool {\n    true\n}\n",
        "tracing/Cargo.toml": '[package]\nname = "tracing"\n\n[dependencies]\ntracing-core = { path = "../core" }\n',
        "tracing/src/lib.rs": "pub mod dispatcher;\n",
        "tracing/src/dispatcher.rs": "pub use tracing_core::dispatcher::has_been_set;\n",
    }
    left = _left_behind_notes(tmp_path, files, "core/src/dispatcher.rs", "core/src/dispatcher.rs", "has_been_set",
                              "is_set_globally")
    assert len(left) == 1 and left[0].startswith("tracing/src/dispatcher.rs:1 still uses has_been_set"), left
    assert "to is_set_globally" in left[0]


@pytest.mark.parametrize("use", [
    # rustfmt's style: one `use` whose list nests the module path (ripgrep's searcher/core.rs).
    "use crate::{\n    lines::{self, LineStep},\n};\n\npub fn run() -> u8 {\n    lines::locate(3)\n}\n",
    # a list with no path of its own, around another crate's names (ripgrep's printer).
    "use {\n    std::io,\n    crate::lines::{LineStep, locate},\n};\n\npub fn run() -> u8 {\n    locate(3)\n}\n",
    "use crate::{\n    sink::Sink,\n    lines::locate,\n};\n\npub fn run() -> u8 {\n    locate(3)\n}\n",
    "use crate::lines::{self as l, LineStep};\n\npub fn run() -> u8 {\n    l::locate(3)\n}\n",
], ids=["nested-self", "pathless-list", "nested-path", "self-as"])
def test_uses_through_nested_rust_use_lists_are_named(tmp_path, use):
    """Found driving wtc on BurntSushi/ripgrep: renaming `lines::locate` (used through
    `use crate::{lines::{self, LineStep}}`) and `SinkFinish` (imported in `use {grep_searcher::{...,
    SinkFinish}}`) merged clean, and the workspace no longer built: the Rust profile read one level
    of a `use` list, so a name imported through a nested list led nowhere."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["a"]\n',
        "a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
        "a/src/lib.rs": "mod lines;\nmod sink;\nmod searcher;\n",
        "a/src/lines.rs": "pub struct LineStep;\n\n#[inline(always)]\npub(crate) fn locate(x: u8) -> u8 {\n    x + 1\n}\n",
        "a/src/sink.rs": "pub trait Sink {}\n",
        "a/src/searcher/mod.rs": "mod core;\n",
        "a/src/searcher/core.rs": use,
    }
    left = _left_behind_notes(tmp_path, files, "a/src/lines.rs", "a/src/lines.rs", "fn locate(", "fn locate_range(")
    assert len(left) == 1 and left[0].startswith("a/src/searcher/core.rs") and "still uses locate" in left[0], left


@pytest.mark.parametrize("use, named", [
    ("use crate::lines::*;\n", True),
    ("use crate::{\n    lines::*,\n    sink::Sink,\n};\n", True),
    # another glob's module defines the name too: the call may mean that one
    ("use crate::lines::*;\nuse crate::other::*;\n", False),
    # a glob of a module the tree does not hold may bring the name: unknown, nothing said
    ("use std::io::prelude::*;\nuse crate::lines::*;\n", False),
], ids=["glob", "nested-glob", "another-glob-defines-it", "glob-outside-the-tree"])
def test_uses_through_a_rust_glob_import_are_named(tmp_path, use, named):
    """A glob import (`use crate::lines::*;`, then `locate(3)`) made the check give up on every
    bare name of the file, so renaming `locate` left the call behind unnamed (found driving wtc on
    ripgrep). Where each glob's module is a file of the tree, the name comes from one of them."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["a"]\n',
        "a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
        "a/src/lib.rs": "mod lines;\nmod other;\nmod sink;\nmod core;\n",
        "a/src/lines.rs": "pub(crate) fn locate(x: u8) -> u8 {\n    x + 1\n}\n",
        "a/src/other.rs": "pub(crate) fn locate(x: u8) -> u8 {\n    x\n}\n",
        "a/src/sink.rs": "pub trait Sink {}\n",
        "a/src/core.rs": use + "\npub fn run() -> u8 {\n    locate(3)\n}\n",
    }
    left = _left_behind_notes(tmp_path, files, "a/src/lines.rs", "a/src/lines.rs", "fn locate(", "fn locate_range(")
    if named:
        assert len(left) == 1 and left[0].startswith("a/src/core.rs:") and "still uses locate" in left[0], left
    else:
        assert left == [], left


def test_a_call_through_a_crates_name_with_no_use_is_named(tmp_path):
    """Rust 2018 puts every dependency's name in scope: `my_cli::parse_size(v)` needs no `use`
    (ripgrep's core calls its grep crates so). A rename behind the crate root's `pub use` left that
    call behind unnamed: no import led the check from the using file to the crate."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["cli", "app"]\n',
        "cli/Cargo.toml": '[package]\nname = "my-cli"\nversion = "0.1.0"\n',
        "cli/src/lib.rs": "mod human;\n\npub use crate::human::parse_size;\n",
        "cli/src/human.rs": "pub fn parse_size(s: &str) -> u64 {\n    s.len() as u64\n}\n",
        "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nmy-cli = { path = "../cli" }\n',
        "app/src/lib.rs": "pub fn run() -> u64 {\n    let n = std::cmp::max(1, 2);\n    my_cli::parse_size(\"2M\") + n\n}\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "rename", "--run", "r1", "--own", "cli/**")
    assert code == 0, body
    for path in ("cli/src/lib.rs", "cli/src/human.rs"):
        (Path(body["worktree"]) / path).write_text(files[path].replace("parse_size", "parse_human_size"))
    code, body = wtc_in_process(repo, "task", "finish", "rename", "--run", "r1")
    assert code == 1 and body["state"] == "conflict", body
    assert [(c["path"], c["start_line"]) for c in body["conflicts"] if c["kind"] == "left_behind"] == \
        [("app/src/lib.rs", 3)], body["conflicts"]


def test_a_method_call_on_a_value_named_like_a_crate_is_not_a_path_into_it(tmp_path):
    """`my_cli.parse_size()` on a value a match arm binds (`Some(W { my_cli, .. })`, a binding the
    profile does not see) is a method call, not `my_cli::parse_size()`: only the path call is named."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["cli", "app"]\n',
        "cli/Cargo.toml": '[package]\nname = "my-cli"\nversion = "0.1.0"\n',
        "cli/src/lib.rs": "pub fn parse_size(s: &str) -> u64 {\n    s.len() as u64\n}\n",
        "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nmy-cli = { path = "../cli" }\n',
        "app/src/lib.rs": "pub struct W {\n    pub my_cli: Parser,\n}\n\npub fn run(w: Option<W>) -> u64 {\n"
                          "    match w {\n        Some(W { my_cli, .. }) => my_cli.parse_size(),\n"
                          "        None => my_cli::parse_size(\"1\"),\n    }\n}\n",
    }
    left = _left_behind_notes(tmp_path, files, "cli/**", "cli/src/lib.rs", "parse_size", "parse_human_size")
    assert len(left) == 1 and left[0].startswith("app/src/lib.rs:8 still uses parse_size"), left


def test_uses_imported_by_a_workspace_package_name_are_named(tmp_path):
    """A monorepo: packages/app imports `hasProp` from "@acme/core" (packages/core/package.json's
    name, its entry src/index.ts a barrel); the task that owned core's util.ts renamed it."""
    util = "export function hasProp(a: any, b: string): boolean {\n    return b in a\n}\n"
    files = {
        "package.json": '{"private": true, "workspaces": ["packages/*"]}\n',
        "packages/core/package.json": '{"name": "@acme/core", "main": "dist/index.js"}\n',
        "packages/core/src/index.ts": 'export * from "./util"\n',
        "packages/core/src/util.ts": util,
        "packages/app/src/main.ts": 'import { hasProp } from "@acme/core"\n\nexport function run() {\n'
                                    '    return hasProp({}, "x")\n}\n',
    }
    left = _left_behind_notes(tmp_path, files, "packages/core/**", "packages/core/src/util.ts", "hasProp", "hasOwn")
    assert len(left) == 1 and left[0].startswith("packages/app/src/main.ts (lines 1, 4: 2 uses) still uses hasProp"), left

def test_the_report_names_uses_the_landed_tree_keeps_of_a_removed_name_until_a_task_updates_them(tmp_path):
    """The lead reads the report, not each finish's notes: a use another task's file keeps (here a
    task that changed models.py elsewhere, so no finish note and no merge finding names it) is a
    warning there, with the task that renamed the definition; once a task updates the use, it goes."""
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r1", "--left-behind", "warn")[0] == 0   # merges let it through
    for task, own in (("rename", "pkg/utils.py"), ("models", "pkg/models.py"), ("other", "pkg/utils.py")):
        assert wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", own)[0] == 0
    worktrees = repo / ".wtc" / "worktrees" / "r1"
    (worktrees / "models" / "pkg/models.py").write_text(FILES["pkg/models.py"] + "\n\nLIMIT = 10\n")
    assert wtc_in_process(repo, "task", "finish", "models", "--run", "r1")[0] == 0
    # A task that changed the definition's file elsewhere is not named for the rename.
    (worktrees / "other" / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("return 1", "return 7"))
    assert wtc_in_process(repo, "task", "finish", "other", "--run", "r1")[0] == 0
    (worktrees / "rename" / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of"))
    assert wtc_in_process(repo, "task", "finish", "rename", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "report", "--run", "r1")
    assert code == 0
    assert [(u["use_path"], u["use_lines"], u["name"], u["replacement"], u["tasks"]) for u in body["left_behind"]] == \
        [("pkg/models.py", [1, 5], "guess_filename", "filename_of", ["rename"])]
    assert any(w.startswith("left behind: pkg/models.py (lines 1, 5) still uses guess_filename, which task rename")
               for w in body["warnings"]), body["warnings"]
    assert wtc_in_process(repo, "task", "start", "fix", "--run", "r1", "--own", "pkg/models.py")[0] == 0
    fixed = git(repo, "show", "wtc/r1/integration:pkg/models.py").replace("guess_filename", "filename_of")
    (worktrees / "fix" / "pkg/models.py").write_text(fixed + "\n")
    assert wtc_in_process(repo, "task", "finish", "fix", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "report", "--run", "r1")
    assert body["left_behind"] == [] and not any(w.startswith("left behind") for w in body["warnings"])


def test_a_finish_that_conflicts_keeps_its_notes_of_uses_left_behind(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    for task in ("first", "rename"):
        assert wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", "pkg/utils.py")[0] == 0
    worktrees = repo / ".wtc" / "worktrees" / "r1"
    (worktrees / "first" / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("return 1", "return 10"))
    assert wtc_in_process(repo, "task", "finish", "first", "--run", "r1")[0] == 0
    (worktrees / "rename" / "pkg/utils.py").write_text(
        FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of").replace("return 1", "return 2"))
    code, body = wtc_in_process(repo, "task", "finish", "rename", "--run", "r1")
    assert code == 1 and body["state"] == "conflict", body
    assert any(n.startswith("pkg/models.py (lines 1, 5: 2 uses) still uses guess_filename") for n in body["notes"]), \
        body["notes"]
    assert any(n.startswith("run `wtc task update rename") for n in body["notes"]), body["notes"]


JAVA = {
    "src/main/java/com/acme/util/Primitives.java": (
        "package com.acme.util;\n\npublic final class Primitives {\n"
        "  public static boolean isWrapperType(Class<?> type) {\n    return type == Integer.class;\n  }\n\n"
        "  public static boolean isPrimitive(Class<?> type) {\n    return type.isPrimitive();\n  }\n}\n"),
    "src/main/java/com/acme/bind/Binder.java": (
        "package com.acme.bind;\n\nimport com.acme.util.Primitives;\n\npublic final class Binder {\n"
        "  boolean boxed(Object value) {\n    return Primitives.isWrapperType(value.getClass());\n  }\n}\n"),
    "src/main/java/com/acme/bind/Other.java": (
        "package com.acme.bind;\n\npublic final class Other {\n"
        "  static boolean isWrapperType(Class<?> type) {\n    return false;\n  }\n\n"
        "  boolean check(Object value) {\n    return isWrapperType(value.getClass());\n  }\n}\n"),
}


def test_a_renamed_static_method_its_callers_name_through_the_class_is_named(tmp_path):
    # Found driving wtc on google/gson: Java has no top-level functions, so a rename of
    # Primitives.isWrapperType (a member) left its three callers unnamed at finish and in the report.
    notes = _left_behind_notes(tmp_path, JAVA, "src/main/java/com/acme/util/Primitives.java",
                               "src/main/java/com/acme/util/Primitives.java", "isWrapperType", "isBoxed")
    assert len(notes) == 1, notes
    assert notes[0].startswith("src/main/java/com/acme/bind/Binder.java:7 still uses Primitives.isWrapperType")
    assert "to Primitives.isBoxed" in notes[0]   # Other.java's own isWrapperType is not the renamed one


def test_a_renamed_method_called_on_a_value_of_unknown_type_is_not_named(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/store.py": "class Store:\n    def fetch(self, key):\n        return key\n",
        "pkg/app.py": "def run(client):\n    return client.fetch('k')\n",
    }
    # `client` may be anything with a fetch(): nothing says it is a Store.
    assert _left_behind_notes(tmp_path, files, "pkg/store.py", "pkg/store.py", "def fetch", "def get") == []


def test_a_module_made_a_package_that_keeps_its_names_leaves_nothing_behind(tmp_path):
    # Found measuring the advice on pip's history (each commit as a task): "Split exceptions into a
    # package" moved exceptions.py to exceptions/__init__.py, which re-exports from _base.py; every
    # import of pip._internal.exceptions still resolves, yet 145 uses were named as left behind.
    files = {
        "pkg/__init__.py": "",
        "pkg/errors.py": "class PipError(Exception):\n    pass\n\n\nclass BadWheel(PipError):\n    pass\n",
        "pkg/models.py": "from pkg.errors import BadWheel\n\n\ndef fail():\n    raise BadWheel()\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "split", "--run", "r1", "--own", "pkg/errors.py", "--own", "pkg/errors/**")
    assert code == 0, body
    worktree = Path(body["worktree"])
    (worktree / "pkg/errors.py").unlink()
    (worktree / "pkg/errors").mkdir()
    (worktree / "pkg/errors/_base.py").write_text(files["pkg/errors.py"])
    (worktree / "pkg/errors/__init__.py").write_text("from pkg.errors._base import BadWheel, PipError\n")
    code, body = wtc_in_process(repo, "task", "finish", "split", "--run", "r1")
    assert code == 0 and body["state"] == "merged", body
    assert [note for note in body["notes"] if "still uses" in note] == []
    code, report = wtc_in_process(repo, "report", "--run", "r1", "--onto", "main")
    assert code == 0 and report["left_behind"] == [], report["left_behind"]


def test_a_module_moved_to_another_crate_and_re_exported_leaves_nothing_behind(tmp_path):
    # serde f3869307cc (each commit of its history read as a task) moved `ser` into serde_core with
    # `pub use serde_core::ser;` at the root: 52 uses were named; the root read was the base's.
    ser = "pub trait Serialize {}\n"
    files = {"Cargo.toml": '[workspace]\nmembers = ["app"]\n',
             "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
             "app/src/lib.rs": "pub mod ser;\nmod other;\n", "app/src/ser.rs": ser,
             "app/src/other.rs": "use crate::ser::Serialize;\n\npub struct S;\n\nimpl Serialize for S {}\n"}
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "extract", "--run", "r1", "--own", "app/src/lib.rs",
                     "--own", "app/src/ser.rs", "--own", "core/**")
    assert code == 0, body
    worktree = Path(body["worktree"])
    (worktree / "app/src/ser.rs").unlink()
    (worktree / "core/src").mkdir(parents=True)
    (worktree / "core/Cargo.toml").write_text('[package]\nname = "core_x"\nversion = "0.1.0"\n')
    (worktree / "core/src/lib.rs").write_text("pub mod ser;\n")
    (worktree / "core/src/ser.rs").write_text(ser)
    (worktree / "app/src/lib.rs").write_text("pub use core_x::ser;\nmod other;\n")
    code, body = wtc_in_process(repo, "task", "finish", "extract", "--run", "r1")
    assert code == 0 and body["state"] == "merged", body
    assert [note for note in body["notes"] if "still uses" in note] == []


def test_a_name_several_files_still_use_is_one_note_naming_them_all(tmp_path):
    """Found driving wtc on trpc/trpc: renaming `sleep` gave four notes of the same advice, one per
    file that still called it; now one note names the files, and one widen command takes them all."""
    files = dict(FILES)
    files["pkg/views.py"] = "from .utils import guess_filename\n\n\ndef show(obj):\n    return guess_filename(obj) or ''\n"
    [note] = [n for n in _all_notes(tmp_path, files) if "guess_filename" in n]
    assert note.startswith("pkg/models.py (lines 1, 5), pkg/views.py (lines 1, 5) still use guess_filename, which "
                           "this task removed or "
                           "renamed (to filename_of, it seems) in pkg/utils.py"), note
    assert "--own '/pkg/models.py' --own '/pkg/views.py'" in note


def _all_notes(tmp_path: Path, files: dict[str, str]) -> list[str]:
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "rename", "--run", "r1", "--own", "pkg/utils.py")
    assert code == 0, body
    (Path(body["worktree"]) / "pkg/utils.py").write_text(files["pkg/utils.py"].replace("def guess_filename", "def filename_of"))
    code, body = wtc_in_process(repo, "task", "finish", "rename", "--run", "r1")
    assert code == 1 and body["state"] == "conflict", body
    return body["notes"]


def test_a_moved_module_is_named_as_moved_with_all_its_names_in_one_note(tmp_path):
    """Found driving wtc on trpc/trpc: a task moved `error/formatter.ts` to `error/errorFormatter.ts`
    and missed one importer; finish said the importer "still uses ErrorFormatter, which this task
    removed or renamed" (and again for DefaultErrorShape), advising an alias. It was a move: the
    importer needs the new path, or the old path a re-export."""
    files = dict(FILES)
    files["pkg/views.py"] = "from .utils import guess_filename, other\n\n\ndef show(obj):\n    return guess_filename(obj) or other()\n"
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "move", "--run", "r1", "--own", "pkg/utils.py", "--own", "pkg/helpers.py",
                     "--own", "pkg/models.py")
    worktree = Path(body["worktree"])
    git(worktree, "mv", "pkg/utils.py", "pkg/helpers.py")
    (worktree / "pkg/models.py").write_text(files["pkg/models.py"].replace(".utils", ".helpers"))
    code, body = wtc_in_process(repo, "task", "finish", "move", "--run", "r1")
    assert code == 1 and body["state"] == "conflict", body
    notes = [n for n in body["notes"] if "pkg/views.py" in n]
    assert notes == ["pkg/views.py (lines 1, 5) still uses guess_filename, other from pkg/utils.py, which this task "
                     "moved to pkg/helpers.py; that file is outside the task's changes, so the landed tree would not "
                     "resolve them: keep a re-export at the old path, or the lead widens the task (`wtc task widen move "
                     "--run r1 --own '/pkg/views.py' --why '...'`) and it updates the imports, then finish again"], notes


NESTED = {   # networkx's shape: `nx.dijkstra_predecessor_and_distance` through three star re-exports
    "top/__init__.py": "from top.algorithms import *\n",
    "top/algorithms/__init__.py": "from top.algorithms.paths import *\nfrom top.algorithms.other import *\n",
    "top/algorithms/other.py": "__all__ = ['unrelated']\n\n\ndef unrelated(x):\n    return x * 2\n",
    "top/algorithms/paths/__init__.py": "from top.algorithms.paths.weighted import *\n",
    "top/algorithms/paths/weighted.py": "__all__ = ['pred_and_dist', 'dist']\n\n\ndef pred_and_dist(G):\n"
                                        "    return {}, {}\n\n\ndef dist(G):\n    return pred_and_dist(G)[1]\n",
    "top/centrality/load.py": "import top as nx\n\n\ndef load(G):\n    pred, length = nx.pred_and_dist(G)\n"
                              "    return length\n",
}


def test_a_deletion_used_through_package_star_reexports_is_named(tmp_path):
    """Found driving wtc on networkx: a task deleted `dijkstra_predecessor_and_distance` from
    weighted.py; generic.py and load.py call it as `nx.dijkstra_predecessor_and_distance`, reached
    through three `__init__.py` files of `from ... import *` that never spell the name. Check and
    finish said nothing, the run landed, and `import networkx` worked but its callers failed."""
    repo = make_repo(tmp_path / "repo", NESTED)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "drop", "--run", "r1", "--own", "top/algorithms/paths/weighted.py")
    assert code == 0, body
    (Path(body["worktree"]) / "top/algorithms/paths/weighted.py").write_text(
        "__all__ = ['dist']\n\n\ndef dist(G):\n    return {}\n")
    code, checked = wtc_in_process(repo, "task", "check", "drop", "--run", "r1")
    assert code == 1, checked
    assert [(row["use_path"], row["name"]) for row in checked["left_behind"]] == [
        ("top/centrality/load.py", "pred_and_dist")], checked
    code, body = wtc_in_process(repo, "task", "finish", "drop", "--run", "r1")
    assert code == 1 and body["state"] == "conflict", body
    assert {c["kind"] for c in body["conflicts"]} == {"left_behind"}, body


# socket.io's shape (found driving wtc on socketio/socket.io): each package's TypeScript source is in
# lib/, its package.json names only built output (`main: ./dist/index.js`, `types: ./dist/index.d.ts`),
# and its tsconfig.json (comments, trailing commas) says `rootDir: "lib/"`. A task dropped
# `SessionAwareAdapter` from socket.io-adapter's lib/index.ts while socket.io's lib/index.ts still
# imported it by the package's name: task check said "merges cleanly", finish merged, nothing named.
SIO_FILES = {
    "package.json": '{"private": true, "workspaces": ["packages/socket.io-adapter", "packages/socket.io"]}\n',
    "packages/socket.io-adapter/package.json":
        '{"name": "socket.io-adapter", "version": "2.5.8", "main": "./dist/index.js", "types": "./dist/index.d.ts"}\n',
    "packages/socket.io-adapter/tsconfig.json":
        '{\n  "compilerOptions": {\n    "rootDir": "lib/",\n    "outDir": "./dist", // built\n    "strict": false,\n  },\n'
        '  "include": ["./lib/**/*"]\n}\n',
    "packages/socket.io-adapter/lib/index.ts":
        'export { Adapter, SessionAwareAdapter, Room } from "./in-memory-adapter";\n',
    "packages/socket.io-adapter/lib/in-memory-adapter.ts":
        "export type Room = string;\n\nexport class Adapter {}\n\nexport class SessionAwareAdapter extends Adapter {}\n",
    "packages/socket.io/package.json":
        '{"name": "socket.io", "version": "4.8.3", "main": "./dist/index.js", "dependencies": {"socket.io-adapter": "~2.5.2"}}\n',
    "packages/socket.io/lib/index.ts":
        'import { Adapter, SessionAwareAdapter, Room } from "socket.io-adapter";\n\n'
        "export function adapterFor(recover: boolean): typeof Adapter {\n"
        "  return recover ? SessionAwareAdapter : Adapter;\n}\n",
}


def test_a_name_dropped_from_a_lib_entry_a_tsconfig_root_dir_names_is_left_behind(tmp_path):
    """The entry `dist/index.d.ts` is built from the tsconfig's rootDir (lib/index.ts), not src/; the
    task drops the name from the entry's `export { ... } from` list while the definition stays."""
    repo = make_repo(tmp_path / "repo", SIO_FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "drop", "--run", "r1", "--own", "packages/socket.io-adapter/lib/index.ts")
    assert code == 0, body
    index = "packages/socket.io-adapter/lib/index.ts"
    (Path(body["worktree"]) / index).write_text(SIO_FILES[index].replace(" SessionAwareAdapter,", ""))
    code, body = wtc_in_process(repo, "task", "check", "drop", "--run", "r1")
    assert code == 1, body
    code, body = wtc_in_process(repo, "task", "finish", "drop", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    [conflict] = [c for c in body["conflicts"] if c["kind"] == "left_behind"]
    assert conflict["path"] == "packages/socket.io/lib/index.ts", conflict
    assert "SessionAwareAdapter" in json.dumps(conflict)


def test_a_rename_in_a_lib_source_folder_is_named_through_the_package_name(tmp_path):
    files = dict(SIO_FILES)
    files["packages/socket.io-adapter/lib/index.ts"] = 'export * from "./in-memory-adapter";\n'
    left = _left_behind_notes(tmp_path, files, "packages/socket.io-adapter/**",
                              "packages/socket.io-adapter/lib/in-memory-adapter.ts", "SessionAwareAdapter",
                              "RecoveringAdapter")
    assert len(left) == 1 and left[0].startswith("packages/socket.io/lib/index.ts:1 still uses SessionAwareAdapter"), left


def _go_module(module: str, importing: str) -> dict[str, str]:
    return {"go.mod": f"module {module}\n\ngo 1.22\n",
            "app.go": "package app\n\n// Old is old.\nfunc Old() string { return \"old\" }\n",
            "cmd/main.go": f'package main\n\nimport (\n\t"fmt"\n\n\t"{importing}"\n)\n\n'
                           "func main() {\n\tfmt.Println(app.Old())\n}\n"}


@pytest.mark.parametrize("module", ["example.com/app", "example.com/app/v2"])
def test_a_go_function_removed_from_the_module_root_package_another_package_calls_is_named(tmp_path, module):
    """Found driving wtc on caddy (module github.com/caddyserver/caddy/v2): a task removed
    `AppConfigDir` from storage.go, the package at the module's root, while cmd/main.go still calls
    `caddy.AppConfigDir()`; check said "merges cleanly", the finish merged. The root go.mod's module
    path names the root folder's package; its `/v2` suffix binds the name before it (`app`)."""
    notes = _left_behind_notes(tmp_path, _go_module(module, module), "/app.go", "app.go", "Old", "Older")
    assert len(notes) == 1 and notes[0].startswith("cmd/main.go:10 still uses Old"), notes


def test_a_go_import_of_another_module_ending_like_this_one_is_not_its_root_package(tmp_path):
    """The precision side: `github.com/other/app` is a dependency, not this module's root package."""
    assert _left_behind_notes(tmp_path, _go_module("example.com/app", "github.com/other/app"),
                              "/app.go", "app.go", "Old", "Older") == []


OPEN_URL = ("const openUrl = async (url) => url\n\n"
            "const createOpener = (title) =>\n  (url) => openUrl(url)\n\n"
            "module.exports = {\n  openUrl,\n  createOpener,\n}\n")


def test_a_commonjs_function_removed_while_a_destructured_require_still_uses_it_is_named(tmp_path):
    """Found driving wtc on npm/cli (all CommonJS): a task deleted `createOpener` from
    lib/utils/open-url.js while lib/utils/auth.js, which no task touched, still did
    `const { createOpener } = require('../utils/open-url.js')`; check, finish and report said
    nothing. A destructured require is an import of each name, as `import { x } from` is."""
    files = {
        "package.json": '{"name": "cli"}\n',
        "lib/utils/open-url.js": OPEN_URL,
        "lib/utils/auth.js": "const { createOpener } = require('../utils/open-url.js')\n\n"
                             "const login = () => createOpener('Login at')\n\nmodule.exports = { login }\n",
        "lib/utils/local.js": "const createOpener = () => null\n\nmodule.exports = { x: createOpener() }\n",
    }
    removed = OPEN_URL.replace("const createOpener = (title) =>\n  (url) => openUrl(url)\n\n", "") \
                      .replace("  createOpener,\n", "")
    repo, left = _removal_refused(tmp_path, files, "lib/utils/open-url.js", {"lib/utils/open-url.js": removed})
    assert len(left) == 1 and left[0].startswith("lib/utils/auth.js (lines 1, 3: 2 uses) still uses createOpener"), left
    # The report's way out for the task left out names the left-behind ways too, not only markers to resolve.
    code, report = wtc_in_process(repo, "report", "--run", "r1")
    [warning] = [w for w in report["warnings"] if w.startswith("task rm is conflict")]
    assert "keep the old name too, or widen the task with wtc task widen rm --run r1 --own FILE" in warning, warning


def test_a_rename_a_workspace_package_exports_and_another_package_requires_is_named(tmp_path):
    """npm/cli's shape: lib/commands/fund.js requires names of the workspace package libnpmfund
    (`main: lib/index.js`), one of them under another local name."""
    index = ("function isValidFunding (f) {\n  return !!f\n}\n\nfunction readTree () {\n  return {}\n}\n\n"
             "module.exports = {\n  readTree,\n  isValidFunding,\n}\n")
    files = {
        "package.json": '{"name": "npm", "workspaces": ["workspaces/*"]}\n',
        "workspaces/libnpmfund/package.json": '{"name": "libnpmfund", "main": "lib/index.js"}\n',
        "workspaces/libnpmfund/lib/index.js": index,
        "lib/commands/fund.js": "const { readTree: getFundingInfo, isValidFunding } = require('libnpmfund')\n\n"
                                "const valid = (s) => isValidFunding(s)\n\n"
                                "module.exports = { valid, tree: getFundingInfo }\n",
    }
    left = _left_behind_notes(tmp_path, files, "workspaces/libnpmfund/**", "workspaces/libnpmfund/lib/index.js",
                              "isValidFunding", "isFundingValid")
    assert len(left) == 1 and left[0].startswith("lib/commands/fund.js (lines 1, 3: 2 uses) still uses isValidFunding"), left
    assert "to isFundingValid" in left[0]


def test_a_moved_module_s_own_names_are_looked_for_first_when_its_imports_are_common_words(tmp_path):
    """Found driving wtc on npm/cli: lib/utils/tar.js, moved, took `const { log } = require('proc-log')`
    along; more files than finish reads (MAX_FILES) say `log` (npm commits its node_modules, sorted
    before test/), and test/lib/utils/tar.js, which requires the moved `getContents`, went unnamed."""
    from worktree_coord.check.left_behind import MAX_FILES

    files = {f"node_modules/dep{i:03}/index.js": f"const log = (m) => m\n\nmodule.exports = log('{i}')\n"
             for i in range(MAX_FILES + 10)}
    files["lib/utils/tar.js"] = ("const { log } = require('proc-log')\n\nconst getContents = (m) => log(m)\n\n"
                                 "module.exports = { getContents }\n")
    files["test/tar.js"] = "const { getContents } = require('../lib/utils/tar.js')\n\nmodule.exports = getContents(1)\n"
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "move", "--run", "r1", "--own", "lib/utils/**")
    assert code == 0, body
    git(Path(body["worktree"]), "mv", "lib/utils/tar.js", "lib/utils/tarball.js")
    code, check = wtc_in_process(repo, "task", "check", "move", "--run", "r1")
    assert code == 1, check
    assert [row["use_path"] for row in check["left_behind"] if "use_path" in row] == ["test/tar.js"], check["left_behind"]
    # The moved file's names are looked for in the files that spell its module (`tar`): the hundred
    # files saying `log`, a name it imported, are not read at all, and nothing is left unread.
    assert check["left_behind_unchecked"] == "" and not any("files mentioning" in row.get("note", "")
                                                            for row in check["left_behind"]), check


def test_a_name_removed_that_a_comment_still_mentions_is_named_through_an_export_star_barrel(tmp_path):
    """pdf.js's shape: content_disposition.js opens with "This getFilenameFromContentDispositionHeader
    function is adapted from", and network_utils.js imports the function through a barrel of
    `export * from "./content_disposition.js"`. A task removed the function (the comment stayed):
    the comment's word kept the name from counting as gone, the barrel's user was never read, and
    check, finish and report said nothing of the use left behind."""
    files = {
        "src/content_disposition.js": "// This getFilename function is adapted from elsewhere.\n\n"
                                      "function getFilename(header) {\n  return header;\n}\n\n"
                                      "function other() {\n  return 1;\n}\n\nexport { getFilename, other };\n",
        "src/network_helpers.js": 'export { isPdf } from "./display_utils.js";\nexport * from "./content_disposition.js";\n',
        "src/display_utils.js": "function isPdf(name) {\n  return name.endsWith('.pdf');\n}\n\nexport { isPdf };\n",
        "src/network_utils.js": 'import { getFilename } from "./network_helpers.js";\n\n'
                                "export function nameOf(headers) {\n  return getFilename(headers.get('c'));\n}\n",
    }
    removed = files["src/content_disposition.js"].replace(
        "function getFilename(header) {\n  return header;\n}\n\n", "").replace("{ getFilename, other }", "{ other }")
    _, left = _removal_refused(tmp_path, files, "/src/content_disposition.js", {"src/content_disposition.js": removed})
    assert len(left) == 1 and left[0].startswith("src/network_utils.js (lines 1, 4: 2 uses) still uses getFilename"), left


def test_a_file_moved_to_mjs_with_its_importer_that_does_not_parse_whole_leaves_nothing_behind(tmp_path):
    """immer's 2ef9a421 (the false block hunt, user-drive13): measure.js and add-data.js became
    measure.mjs and add-data.mjs, which imports `./measure.mjs` and holds an import assertion
    (`assert { type: "json" }`) the grammar does not parse. Read again in pieces, add-data.mjs was
    checked without measure.mjs beside it, its import resolved to the deleted measure.js, and the
    move was a use left behind."""
    files = {
        "perf/measure.js": "export function measure(name) {\n  return name\n}\n",
        "perf/add.js": 'import {measure} from "./measure.js"\n\nmeasure("a")\n',
        "perf/data.json": "{}\n",
    }
    _removal_merged(tmp_path, files, {"perf/add.mjs": 'import {measure} from "./measure.mjs"\n'
                                                      'import data from "./data.json" assert { type: "json" }\n\n'
                                                      "measure(data)\n"},
                    moves={"perf/measure.js": "perf/measure.mjs", "perf/add.js": "perf/add.mjs"})


@pytest.mark.parametrize("replacement", ["Object.isFrozen", "O?.isFrozen"])
def test_a_name_removed_whose_word_the_file_keeps_as_a_member_is_named_through_a_barrel(tmp_path, replacement):
    """immer's shape (user-drive13): a task deleted `export function isFrozen` from utils/common.ts and
    wrote `Object.isFrozen(obj)` where common.ts had called it; core/current.ts imports isFrozen through
    the barrel `export * from "./utils/common"`. The word survived as a property (`.isFrozen`), so the
    name did not count as gone, the barrel's user was never read, and the run landed a tree that did
    not compile. A word after `.` names a member of something else, not the definition."""
    common = ("export function isFrozen(obj: any): boolean {\n\treturn Object.isFrozen(obj)\n}\n\n"
              "export function freeze(obj: any): any {\n\tif (isFrozen(obj)) return obj\n\treturn Object.freeze(obj)\n}\n")
    files = {
        "src/utils/common.ts": common,
        "src/internal.ts": 'export * from "./utils/common"\n',
        "src/core/current.ts": 'import {freeze, isFrozen} from "../internal"\n\n'
                               "export function current(value: any): any {\n\tif (isFrozen(value)) return value\n"
                               "\treturn freeze(value)\n}\n",
    }
    removed = common.replace("export function isFrozen(obj: any): boolean {\n\treturn Object.isFrozen(obj)\n}\n\n",
                             "").replace("if (isFrozen(obj))", f"if ({replacement}(obj))")
    _, left = _removal_refused(tmp_path, files, "/src/utils/common.ts", {"src/utils/common.ts": removed})
    assert len(left) == 1 and left[0].startswith("src/core/current.ts (lines 1, 4: 2 uses) still uses isFrozen"), left


def test_a_java_static_method_removed_while_another_package_imports_it_static_is_named(tmp_path):
    """mockito: a task removed `Checks.checkItemsNotNull`; MockInjection.java, in another package,
    has `import static org.mockito.internal.util.Checks.checkItemsNotNull;` and calls it. The static
    import was read as a top-level name of Checks.java (it has none: the method is a member of class
    Checks), so check, finish and report said nothing and the tree did not compile."""
    checks = ("package org.mockito.internal.util;\n\npublic class Checks {\n"
              "    public static <T> T checkNotNull(T value, String name) {\n        return value;\n    }\n\n"
              "    public static <T extends Iterable<?>> T checkItemsNotNull(T items, String name) {\n"
              "        return items;\n    }\n}\n")
    files = {
        "src/main/java/org/mockito/internal/util/Checks.java": checks,
        "src/main/java/org/mockito/internal/injection/MockInjection.java":
            "package org.mockito.internal.injection;\n\nimport static org.mockito.internal.util.Checks.checkItemsNotNull;\n"
            "import static org.mockito.internal.util.Checks.checkNotNull;\n\nimport java.util.Set;\n\n"
            "public class MockInjection {\n    public Set<Object> fields(Set<Object> f) {\n"
            "        checkNotNull(f, \"f\");\n        return checkItemsNotNull(f, \"fields\");\n    }\n}\n",
    }
    path = "src/main/java/org/mockito/internal/util/Checks.java"
    removed = checks.replace("\n    public static <T extends Iterable<?>> T checkItemsNotNull(T items, String name) {\n"
                             "        return items;\n    }\n", "")
    _, left = _removal_refused(tmp_path, files, "/" + path, {path: removed})
    assert len(left) == 1 and left[0].startswith(
        "src/main/java/org/mockito/internal/injection/MockInjection.java:11 still uses Checks.checkItemsNotNull"), left


def test_a_rename_through_a_barrel_that_also_has_export_star_names_the_importer_left_behind(tmp_path):
    """pdf.js drive: network_helpers.js holds `export { isPdfFile } from "./display_utils.js"` and
    `export * from "./content_disposition.js"`; a task renamed isPdfFile in display_utils.js and in
    the barrel's line, and transport_stream.js still imported the old name through the barrel. The
    star line was taken to maybe pass the name on, though its module never spells it: check said clean."""
    files = {
        "src/display_utils.js": "function isPdf(name) {\n  return name.endsWith('.pdf');\n}\n\nexport { isPdf };\n",
        "src/content_disposition.js": "function getFilename(header) {\n  return header;\n}\n\nexport { getFilename };\n",
        "src/network_helpers.js": 'export { isPdf } from "./display_utils.js";\nexport * from "./content_disposition.js";\n',
        "src/transport.js": 'import { isPdf } from "./network_helpers.js";\n\nexport function ok(name) {\n  return isPdf(name);\n}\n',
    }
    renamed = ("src/display_utils.js", "src/network_helpers.js")
    _, left = _removal_refused(tmp_path, files, tuple(f"/{path}" for path in renamed),
                               {path: files[path].replace("isPdf", "isPdfName") for path in renamed})
    assert len(left) == 1 and left[0].startswith("src/transport.js (lines 1, 4: 2 uses) still uses isPdf"), left


def test_a_java_static_method_renamed_is_named_in_a_class_of_its_package_that_calls_it_unimported(tmp_path):
    """`Util.m(2)` in a class of Util's own package needs no import: the rename of m in Util.java left
    that call unnamed while the one in another package (with its import) was named (found driving wtc
    on mockito: StringUtil.decamelizeMatcherName)."""
    files = {
        "src/a/Util.java": "package a;\n\npublic class Util {\n    public static int m(int x) {\n        return x;\n    }\n}\n",
        "src/a/Same.java": "package a;\n\npublic class Same {\n    public int g() {\n        return Util.m(2);\n    }\n}\n",
        "src/a/Local.java": "package a;\n\npublic class Local {\n    public int g(Other Util) {\n        return Util.m(2);\n    }\n}\n",
        "src/b/User.java": "package b;\n\nimport a.Util;\n\npublic class User {\n    public int f() {\n        return Util.m(1);\n    }\n}\n",
        # the same package in the test source set (mockito's StringUtilTest), and not in another folder
        "lib/src/main/java/d/Lib.java": "package d;\n\npublic class Lib {\n    public static int k(int x) {\n        return x;\n    }\n}\n",
        "lib/src/test/java/d/LibTest.java": "package d;\n\npublic class LibTest {\n    public int t() {\n        return Lib.k(3);\n    }\n}\n",
        "lib/src/test/java/c/Other.java": "package c;\n\npublic class Other {\n    public int t() {\n        return Lib.k(3);\n    }\n}\n",
    }
    renamed = ("src/a/Util.java", "lib/src/main/java/d/Lib.java")
    _, notes = _removal_refused(tmp_path, files, tuple(f"/{path}" for path in renamed),
                                {path: files[path].replace("int m(", "int n(").replace("int k(", "int j(") for path in renamed})
    left = " ".join(notes)
    for use in ("src/a/Same.java:5", "src/b/User.java:7", "lib/src/test/java/d/LibTest.java:5"):
        assert use in left, left
    assert "Local.java" not in left and "Other.java" not in left, left


FORMAT_BYTES = "function formatBytes(n) {\n  return `${n} B`\n}\n\nmodule.exports = formatBytes\n"
NPM_STYLE = {
    "package.json": '{"name": "cli", "dependencies": {"semver": "^7.0.0"}}\n',
    "lib/utils/format-bytes.js": FORMAT_BYTES,
    "lib/commands/view.js": "const fb = require('../utils/format-bytes.js')\n\nmodule.exports = (n) => fb(n)\n",
}


@pytest.mark.parametrize("importer", [
    "const fb = require('../utils/format-bytes.js')\n\nmodule.exports = (n) => fb(n)\n",
    "const fb = require('../utils/format-bytes')\n\nmodule.exports = (n) => fb(n)\n",
    "import fb from '../utils/format-bytes.js'\n\nexport const view = (n) => fb(n)\n",
    "import * as fb from '../utils/format-bytes.js'\n\nexport const view = (n) => fb.default(n)\n",
    "import '../utils/format-bytes.js'\n\nexport const view = 1\n",
    "require('../utils/format-bytes')\n\nmodule.exports = 1\n",
], ids=["require", "require-no-extension", "default-import", "namespace-import", "side-effect-import",
        "side-effect-require"])
def test_a_deleted_module_a_file_still_loads_by_its_path_is_named(tmp_path, importer):
    """Found driving wtc on npm/cli: lib/commands/view.js did `const fb = require('../utils/format-bytes.js')`
    and a task deleted format-bytes.js; check and finish said nothing (the look followed names, and
    the import binds none of the file's), and the landed tree's require threw. An import that names
    a file by its path alone (a default, namespace or side-effect import, a plain require) blocks."""
    files = NPM_STYLE | {"lib/commands/view.js": importer}
    _, left = _removal_refused(tmp_path, files, "lib/utils/format-bytes.js", {"lib/utils/format-bytes.js": None})
    specifier = importer.split("'")[1]
    assert left == [f"lib/commands/view.js:1 still imports {specifier}, the file lib/utils/format-bytes.js, which this "
                    "task deleted; that file is outside the task's changes, so the landed tree would not load it: keep "
                    "a file at the old path (a stub that re-exports what replaced it), or the lead widens the task "
                    "(`wtc task widen rm --run r1 --own '/lib/commands/view.js' --why '...'`) and it updates the "
                    "imports, then finish again"], left


def test_a_moved_module_names_the_importers_the_task_did_not_update_and_not_those_it_did(tmp_path):
    """A task moves lib/utils/format-bytes.js and updates the importer it owns; the one it does not
    own still requires the old path: that one is named (as moved, with a re-export as the way out),
    the updated one is not."""
    files = NPM_STYLE | {"lib/commands/ls.js": "const fb = require('../utils/format-bytes.js')\n\nmodule.exports = fb\n"}
    _, left = _removal_refused(
        tmp_path, files, ("lib/utils/**", "lib/commands/ls.js"),
        {"lib/commands/ls.js": files["lib/commands/ls.js"].replace("format-bytes.js", "bytes.js")},
        moves={"lib/utils/format-bytes.js": "lib/utils/bytes.js"})
    assert len(left) == 1, left
    assert left[0].startswith("lib/commands/view.js:1 still uses ../utils/format-bytes.js from "
                              "lib/utils/format-bytes.js, which this task moved to lib/utils/bytes.js"), left
    assert "keep a re-export at the old path" in left[0] and "lib/commands/ls.js" not in left[0], left


@pytest.mark.parametrize("importer", [
    "import foo from './foo'\n\nexport const v = foo()\n",
    "import foo from './foo.js'\n\nexport const v = foo()\n",
    "import foo = require('./foo')\n\nexport const v = foo()\n",
], ids=["no-extension", "js-extension", "import-require"])
def test_a_deleted_typescript_module_its_default_importers_load_is_named(tmp_path, importer):
    files = {"package.json": '{"name": "w"}\n', "src/foo.ts": "export default function foo(): number {\n  return 1\n}\n",
             "src/app.ts": importer}
    _, left = _removal_refused(tmp_path, files, "src/foo.ts", {"src/foo.ts": None})
    assert len(left) == 1 and left[0].startswith("src/app.ts:1 still imports ./foo"), left


def test_a_deleted_typescript_folder_index_is_named(tmp_path):
    files = {"package.json": '{"name": "w"}\n', "src/dir/index.ts": "export const a = 1\n",
             "src/app.ts": "import * as d from './dir'\n\nexport const v = d\n"}
    _, left = _removal_refused(tmp_path, files, "src/dir/**", {"src/dir/index.ts": None})
    assert len(left) == 1 and left[0].startswith("src/app.ts:1 still imports ./dir, the file src/dir/index.ts"), left


def test_a_deleted_python_package_a_file_imports_is_named(tmp_path):
    """`import pkg.sub` binds no name of pkg/sub: deleting the package folder left nothing to follow."""
    files = {"pkg/__init__.py": "", "pkg/sub/__init__.py": "X = 1\n", "pkg/sub/a.py": "def f():\n    return 1\n",
             "app.py": "import pkg.sub\n\n\ndef g():\n    return 2\n"}
    _, left = _removal_refused(tmp_path, files, "pkg/sub/**", {"pkg/sub/__init__.py": None, "pkg/sub/a.py": None})
    assert len(left) == 1 and left[0].startswith("app.py:1 still imports pkg.sub, the file pkg/sub/__init__.py"), left


@pytest.mark.parametrize("files, edits, moves", [
    # A folder with index.js replaces foo.js: `require('./foo')` still loads it.
    ({"package.json": '{"name": "cli"}\n', "lib/foo.js": "module.exports = 1\n",
      "lib/main.js": "const foo = require('./foo')\n\nmodule.exports = foo\n"}, {}, {"lib/foo.js": "lib/foo/index.js"}),
    # A Python module made a package: `import pkg.mod` and `from pkg.mod import f` still load it.
    ({"pkg/__init__.py": "", "pkg/mod.py": "def f():\n    return 1\n",
      "app.py": "import pkg.mod\nfrom pkg.mod import f\n\n\ndef g():\n    return pkg.mod.f() + f()\n"},
     {}, {"pkg/mod.py": "pkg/mod/__init__.py"}),
    # A package's name (`semver`) is no file of the repository, whatever file of the same name goes.
    ({"package.json": '{"name": "cli"}\n', "lib/semver.js": "module.exports = 1\n",
      "lib/main.js": "const semver = require('semver')\n\nmodule.exports = semver\n"}, {"lib/semver.js": None}, {}),
    # A tsconfig alias that names a file still there (`@/util` -> src/util.ts), while src/lib/util.ts goes.
    ({"package.json": '{"name": "w"}\n', "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}\n',
      "src/util.ts": "export default 1\n", "src/lib/util.ts": "export default 2\n",
      "src/app.ts": "import u from '@/util'\n\nexport const v = u\n"}, {"src/lib/util.ts": None}, {}),
    # An importer the task updated along with the move.
    ({"package.json": '{"name": "cli"}\n', "lib/setup.js": "globalThis.ready = true\n",
      "lib/main.js": "require('./setup')\n\nmodule.exports = 1\n"},
     {"lib/main.js": "require('./boot/setup')\n\nmodule.exports = 1\n"}, {"lib/setup.js": "lib/boot/setup.js"}),
], ids=["folder-index-replaces-file", "python-module-made-package", "package-name", "path-alias-still-there",
        "importer-updated"])
def test_a_module_still_found_under_the_same_specifier_leaves_nothing_behind(tmp_path, files, edits, moves):
    body = _removal_merged(tmp_path, files, edits, moves)
    assert not [n for n in body.get("notes", []) if "still import" in n or "still use" in n], body


GO_UTIL = {"go.mod": "module example.com/m\n\ngo 1.21\n", "util/util.go": "package util\n\nfunc F() int {\n\treturn 1\n}\n",
           "main.go": "package main\n\nimport \"example.com/m/util\"\n\nfunc main() {\n\t_ = util.F()\n}\n"}


@pytest.mark.parametrize("edits, moves", [({"util/util.go": None}, {}), ({}, {"util/util.go": "internal/util/util.go"})],
                         ids=["deleted", "moved"])
def test_a_go_package_deleted_or_moved_while_another_package_imports_its_path_is_named(tmp_path, edits, moves):
    """Held already by the names look (the package's functions are gone from its path): kept as a guard."""
    _, left = _removal_refused(tmp_path, GO_UTIL, ("util/**", "internal/**"), edits, moves)
    assert len(left) == 1 and left[0].startswith("main.go:6 still uses F"), left


def test_a_rust_module_file_moved_while_its_mod_declaration_stays_is_named(tmp_path):
    """Held already by the names look: kept as a guard."""
    files = {"Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n', "src/lib.rs": "mod x;\n\npub fn g() -> i32 {\n    x::f()\n}\n",
             "src/x.rs": "pub fn f() -> i32 {\n    1\n}\n"}
    _, left = _removal_refused(tmp_path, files, ("src/x.rs", "src/y.rs"), {}, {"src/x.rs": "src/y.rs"})
    assert len(left) == 1 and left[0].startswith("src/lib.rs:4 still use"), left


def test_a_java_class_moved_to_another_package_while_its_import_stays_is_named(tmp_path):
    """The names look holds its use (`C.f`); the import line, which stops compiling first, is named
    with it (profile `specifiers`, `specifier_files`)."""
    files = {"src/main/java/a/b/C.java": "package a.b;\n\npublic class C {\n    public static int f() { return 1; }\n}\n",
             "src/main/java/a/d/U.java": "package a.d;\n\nimport a.b.C;\n\npublic class U {\n    int g() { return C.f(); }\n}\n"}
    moved = files["src/main/java/a/b/C.java"].replace("package a.b;", "package a.c;")
    _, left = _removal_refused(tmp_path, files, "src/main/java/a/[bc]/**", {"src/main/java/a/c/C.java": moved},
                               {"src/main/java/a/b/C.java": "src/main/java/a/c/C.java"})
    assert len(left) == 1 and left[0].startswith("src/main/java/a/d/U.java (lines 3, 6) still uses C.f, a.b.C from "
                                                 "src/main/java/a/b/C.java, which this task moved to src/main/java/a/c/C.java"), left


def test_a_finish_repeated_after_a_left_behind_refusal_says_each_note_once(tmp_path):
    """Found driving wtc: a second `task finish` of a task refused for a use left behind carried the
    first refusal's notes and added the same ones again."""
    repo, left = _removal_refused(tmp_path, NPM_STYLE, "lib/utils/format-bytes.js", {"lib/utils/format-bytes.js": None})
    code, body = wtc_in_process(repo, "task", "finish", "rm", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    assert len(body["notes"]) == len(set(body["notes"])), body["notes"]
    assert [n for n in body["notes"] if "still import" in n] == left
    [conflict] = body["conflicts"]
    assert (conflict["kind"], conflict["path"], conflict["semantic"]["name"], conflict["semantic"]["kind"]) == \
        ("left_behind", "lib/commands/view.js", "../utils/format-bytes.js", "module"), conflict


def test_an_import_of_a_deleted_module_another_task_already_updated_is_not_named_by_task_check(tmp_path):
    """Task check reads the uses at the task's base, then drops those the integration tip no longer
    holds: for a module, the tip's file must still spell the whole path (its last part, `js`, is in
    any require of a .js file)."""
    files = NPM_STYLE | {"lib/utils/bytes.js": FORMAT_BYTES}
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, updater = wtc_in_process(repo, "task", "start", "upd", "--run", "r1", "--own", "lib/commands/view.js")
    assert code == 0, updater
    code, deleter = wtc_in_process(repo, "task", "start", "rm", "--run", "r1", "--own", "lib/utils/format-bytes.js")
    assert code == 0, deleter
    (Path(updater["worktree"]) / "lib/commands/view.js").write_text(
        files["lib/commands/view.js"].replace("format-bytes.js", "bytes.js"))
    assert wtc_in_process(repo, "task", "finish", "upd", "--run", "r1")[1]["state"] == "merged"
    git(Path(deleter["worktree"]), "rm", "-q", "lib/utils/format-bytes.js")
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert (code, check["left_behind"]) == (0, []), check
    code, body = wtc_in_process(repo, "task", "finish", "rm", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body


@pytest.mark.parametrize("importer, path", [
    ("from pkg import mod  # noqa: F401 (loaded for its side effects)\n", "app.py"),
    ("from . import mod  # noqa: F401\n", "pkg/app.py"),
    ("from pkg import other, mod as m  # noqa: F401\n", "app.py"),
], ids=["from-package", "from-dot", "aliased-among-others"])
def test_a_deleted_python_module_imported_from_its_package_by_name_is_named(tmp_path, importer, path):
    """`from pkg import mod` loads pkg/mod.py without naming anything it defines: with no use of
    `mod.f` the names look had nothing to follow."""
    files = {"pkg/__init__.py": "", "pkg/mod.py": "REGISTERED = True\n", "pkg/other.py": "X = 1\n", path: importer}
    _, left = _removal_refused(tmp_path, files, "pkg/mod.py", {"pkg/mod.py": None})
    assert len(left) == 1 and left[0].startswith(f"{path}:1 still imports "), left
    assert "the file pkg/mod.py, which this task deleted" in left[0], left


STARRED = {"pkg/__init__.py": "",
           "pkg/paths.py": "def path():\n    return 1\n\n\ndef builder():\n    return 2\n\n\ndef _helper():\n    return 3\n",
           "pkg/decision.py": "from pkg.paths import builder, path\n\n\ndef decide():\n    return path() + builder()\n",
           "pkg/private.py": "from pkg.paths import _helper\n\n\ndef use():\n    return _helper()\n"}


@pytest.mark.parametrize("listed, user, fine", [
    ("__all__ = ['path', '_helper']\n\n\n", "pkg/decision.py", "pkg/private.py"),   # the list leaves builder out
    ("", "pkg/private.py", "pkg/decision.py"),                                     # no list: never a _name
], ids=["all-list", "underscore"])
def test_a_module_moved_behind_a_star_re_export_that_does_not_pass_a_name_on_is_named(tmp_path, listed, user, fine):
    """Found driving wtc on pydantic-ai: a task moved pydantic_graph/paths.py into a package and left
    `from .routing.paths import *` at the old path, while the moved module's `__all__` named one of
    its classes; `from pydantic_graph.paths import PathBuilder` then failed, and task check said the
    move merged cleanly (a star import was taken to pass on every name)."""
    moved = listed + STARRED["pkg/paths.py"]
    _, left = _removal_refused(tmp_path, STARRED, ("pkg/paths.py", "pkg/routing/**"),
                               {"pkg/routing/paths.py": moved, "pkg/routing/__init__.py": "",
                                "pkg/paths.py": "from .routing.paths import *  # noqa: F403\n"},
                               {"pkg/paths.py": "pkg/routing/paths.py"})
    assert any(note.startswith(user) for note in left), left
    assert not any(fine in note for note in left), left


def test_a_module_moved_behind_a_star_re_export_that_passes_every_name_used_leaves_nothing_behind(tmp_path):
    files = {key: value for key, value in STARRED.items() if key != "pkg/private.py"}
    moved = "__all__ = ['path', 'builder']\n\n\n" + files["pkg/paths.py"]
    _removal_merged(tmp_path, files, {"pkg/routing/paths.py": moved, "pkg/routing/__init__.py": "",
                                      "pkg/paths.py": "from .routing.paths import *  # noqa: F403\n"},
                    {"pkg/paths.py": "pkg/routing/paths.py"})


# headlessui's shape (found driving wtc on tailwindlabs/headlessui): a workspace package whose entry
# re-exports a component by name, and an app of the workspace importing it by the package's name.
UI_WORKSPACE = {
    "package.json": '{"private": true, "workspaces": ["packages/*", "playgrounds/*"]}\n',
    "packages/ui/package.json": '{"name": "@acme/ui", "version": "1.0.0", "main": "dist/index.cjs", '
                                '"typings": "dist/index.d.ts", "module": "dist/ui.esm.js"}\n',
    "packages/ui/src/index.ts": "export * from './button/button'\nexport { Portal } from './portal/portal'\n",
    "packages/ui/src/button/button.ts": "export function Button() {\n  return 1\n}\n",
    "playgrounds/app/package.json": '{"name": "app", "private": true, "dependencies": {"@acme/ui": "*"}}\n',
    "playgrounds/app/page.tsx": "import { Portal } from '@acme/ui'\n\nexport function Page() {\n"
                                "  return <Portal>hi</Portal>\n}\n",
}


def test_a_renamed_exported_value_another_package_imports_through_the_entry_is_named(tmp_path):
    """portal.tsx's `export let Portal = Object.assign(PortalRoot, {...})`: a value, not a function,
    so no tag makes it a definition, only an export. A task renamed it and its line in the package's
    entry; the playground's `import { Portal } from '@headlessui/react'` stayed. Followed through the
    entry, the chain ended at portal.tsx, whose base was taken to define no `Portal`: nothing said."""
    portal = "let PortalRoot = (props: any) => props.children\nexport let Portal = Object.assign(PortalRoot, { Group: 1 })\n"
    files = UI_WORKSPACE | {"packages/ui/src/portal/portal.tsx": portal}
    renamed = ("packages/ui/src/portal/portal.tsx", "packages/ui/src/index.ts")
    _, left = _removal_refused(tmp_path, files, "packages/ui/**",
                               {path: files[path].replace("export let Portal", "export let Teleport")
                                .replace("{ Portal }", "{ Teleport }") for path in renamed})
    # (line 4: `<Portal>`, a JSX element, is a use too)
    assert len(left) == 1 and left[0].startswith("playgrounds/app/page.tsx (lines 1, 4: 2 uses) still uses Portal"), left


def test_a_renamed_function_whose_old_name_stays_in_a_string_is_named_through_the_entry(tmp_path):
    """portal.tsx kept `name: 'Portal'` (a debug name) after the rename: the string's word kept
    the name from counting as gone, so the files importing it through the package's entry were
    never paired with portal.tsx and the playground's use went unnamed."""
    portal = "export function Portal(props: any) {\n  return render({ name: 'Portal', props })\n}\n"
    files = UI_WORKSPACE | {"packages/ui/src/portal/portal.tsx": portal,
                            "packages/ui/src/render.ts": "export function render(x: any) {\n  return x\n}\n"}
    files["packages/ui/src/portal/portal.tsx"] = "import { render } from '../render'\n\n" + portal
    renamed = ("packages/ui/src/portal/portal.tsx", "packages/ui/src/index.ts")
    _, left = _removal_refused(tmp_path, files, "packages/ui/**",
                               {path: files[path].replace("function Portal", "function Teleport")
                                .replace("{ Portal }", "{ Teleport }") for path in renamed})
    # (line 4: `<Portal>`, a JSX element, is a use too)
    assert len(left) == 1 and left[0].startswith("playgrounds/app/page.tsx (lines 1, 4: 2 uses) still uses Portal"), left


def test_an_import_of_a_renamed_name_in_a_file_the_parser_does_not_read_cleanly_is_named(tmp_path):
    """headlessui's portal.test.tsx: `Toggle A & B` in JSX text, which the TSX grammar does not parse
    (a bare `&`), so the check read nothing of the file and its `import { Portal } from './portal'`
    went unnamed; the landed tree did not type-check. Its import statements are read alone."""
    portal = "export function Portal(props: any) {\n  return props.children\n}\n"
    test = ("import { render } from '../render'\nimport { Portal } from './portal'\n\nexport function T() {\n"
            "  return render(\n    <button>\n      Toggle A & B\n    </button>\n  )\n}\n\n"
            "export function U() {\n  return <Portal>x</Portal>\n}\n")
    files = {"src/portal/portal.tsx": portal, "src/portal/portal.test.tsx": test,
             "src/render.ts": "export function render(x: any) {\n  return x\n}\n"}
    _, left = _removal_refused(tmp_path, files, "/src/portal/portal.tsx",
                               {"src/portal/portal.tsx": portal.replace("Portal", "Teleport")})
    # (line 13: `<Portal>`, a JSX element outside the text the parser does not read, is a use too)
    assert len(left) == 1 and left[0].startswith("src/portal/portal.test.tsx (lines 2, 13: 2 uses) still uses Portal"), left
