"""Rust: a path inside a macro call's tokens (`writeln!(std::io::stdout(), ..)`) is one path.

The parse leaves a macro call's tokens flat: `std`, `::`, `io`, `::`, `stdout` side by side. The call
`stdout(..)` was read with the receiver `io` alone, and so as a use of a bare `io`: ripgrep 082245dadb
dropped `use std::{io::{self, Write}}` and kept `writeln!(std::io::stdout(), ..)` (crates/core/main.rs:367),
and `wtc check` of the commit said `io` was a removed import still used, a false block (`cargo check`
passes: a path `a::b::c` never uses the bare name `b`). A bare `io::stdout()` in the tokens, once `io` is
no longer imported, still blocks.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _second_finish, _task_edited

CARGO = '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n'
BEFORE = ("use std::{\n    io::{self, Write},\n    process::ExitCode,\n};\n\n"
          "fn main() -> ExitCode {\n    let _ = io::stdout();\n    ExitCode::from(0)\n}\n\n"
          "fn tail() {\n}\n")
# the ripgrep commit's shape: the group loses `self`, the function spells the whole path in a macro
DROPPED = ("use std::{io::Write, process::ExitCode};\n\n"
           "fn main() -> ExitCode {\n    writeln!(std::io::stdout(), \"{}\", 1).unwrap();\n    ExitCode::from(0)\n}\n\n"
           "fn tail() {\n}\n")
FILES = {"Cargo.toml": CARGO, "src/main.rs": BEFORE}


def test_a_full_path_in_a_macro_call_after_its_import_is_dropped_checks_clean(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {"src/main.rs": DROPPED})
    assert (code, report["left_behind"]) == (0, []), report


def test_a_full_path_in_a_macro_call_after_its_import_is_dropped_finishes_merged(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, FILES, "rg", ("src/**",), {"src/main.rs": DROPPED}, None)
    code, check = wtc_in_process(repo, "task", "check", "rg", "--run", "r1")
    assert (code, check["left_behind"]) == (0, []), check
    code, body = wtc_in_process(repo, "task", "finish", "rg", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body


def test_a_path_in_a_macro_call_another_task_adds_merges_beside_the_dropped_import(tmp_path: Path) -> None:
    """Task `drop` drops the import (its own use rewritten); task `add`, started beside it, appends a
    function whose macro call spells `std::io::stdout()`: the queue's merge of `add` checks clean."""
    code, body = _second_finish(
        tmp_path, FILES,
        ("drop", "src/**", {"src/main.rs": DROPPED.replace("    writeln!(std::io::stdout(), \"{}\", 1).unwrap();\n", "")}),
        ("add", "src/**", {"src/main.rs": BEFORE.replace(
            "fn tail() {\n}\n", "fn tail() {\n    writeln!(std::io::stdout(), \"{}\", 2).unwrap();\n}\n")}))
    assert (code, body["state"]) == (0, "merged"), body


def test_a_bare_module_path_in_a_macro_call_after_its_import_is_dropped_still_blocks(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {"src/main.rs": DROPPED.replace("std::io::stdout()", "io::stdout()")})
    assert code == 1 and [(row["name"], row["use_lines"]) for row in report["left_behind"]] == [("io", [4])], report
