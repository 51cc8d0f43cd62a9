"""`wtc check` on a Rust workspace whose facade crate re-exports its parts by `extern crate`.

Found driving wtc on BurntSushi/ripgrep: the `grep` crate's root says `pub extern crate grep_cli as
cli;`, and the binary calls `cli::is_tty_stdout()` after `use grep::cli;`. A task renaming
`is_tty_stdout` in grep-cli (its own uses updated) was clean at `task check`, and cargo said E0425
in crates/core/args.rs: `grep::cli` led to no file (an `extern crate` alias is neither a `mod` nor
a `use`), and a name imported whole and called through (`cli::x()`) was not followed to the
module it names. A task giving grep-cli's `parse_human_readable_size` (src/human.rs, re-exported by
the root) a second parameter was clean the same way: the call `cli::parse_human_readable_size(&s)`
spells no word of human.rs, and its parameters were written one a line (the note showed
`parse_human_readable_size( size: &str, binary: bool, )`).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

FILES = {
    "Cargo.toml": ('[package]\nname = "app"\nversion = "0.1.0"\nedition = "2018"\n\n[[bin]]\nname = "app"\n'
                   'path = "crates/core/main.rs"\n\n[dependencies]\ngrep = { version = "0.1", path = "crates/grep" }\n\n'
                   '[workspace]\nmembers = ["crates/grep", "crates/cli"]\n'),
    "crates/grep/Cargo.toml": ('[package]\nname = "grep"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\n'
                               'grep-cli = { version = "0.1", path = "../cli" }\n'),
    "crates/grep/src/lib.rs": "/*!\nThe facade.\n*/\n\npub extern crate grep_cli as cli;\n",
    "crates/cli/Cargo.toml": '[package]\nname = "grep-cli"\nversion = "0.1.0"\nedition = "2018"\n',
    "crates/cli/src/lib.rs": "mod human;\n\npub use crate::human::parse_size;\n\npub fn is_tty_stdout() -> bool {\n    false\n}\n",
    "crates/cli/src/human.rs": "pub fn parse_size(s: &str) -> u64 {\n    s.len() as u64\n}\n",
    "crates/core/main.rs": "mod args;\n\nfn main() {\n    args::run();\n}\n",
    "crates/core/args.rs": ("use grep::cli;\n\npub fn run() {\n    if cli::is_tty_stdout() {\n"
                            "        println!(\"tty\");\n    }\n}\n\nstruct Args;\n\nimpl Args {\n"
                            "    fn parse_size(&self, name: &str) -> u64 {\n        cli::parse_size(name)\n    }\n}\n"),
}


def _check(tmp_path: Path, edits: dict[str, str]) -> tuple[int, dict]:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, edits)
    git(repo, "commit", "-q", "-am", "feature")
    return wtc_in_process(repo, "check", "--base", "main", "--head", "feature", "--own", "crates/cli/**")


def test_a_rename_called_through_an_extern_crate_alias_is_left_behind(tmp_path: Path) -> None:
    code, report = _check(tmp_path, {"crates/cli/src/lib.rs": FILES["crates/cli/src/lib.rs"]
                                     .replace("is_tty_stdout", "stdout_is_tty")})
    assert code == 1, report
    assert [(u["use_path"], u["use_lines"], u["name"]) for u in report["left_behind"]] == \
        [("crates/core/args.rs", [4], "is_tty_stdout")], report["left_behind"]


def test_the_old_name_kept_beside_the_new_leaves_nothing(tmp_path: Path) -> None:
    kept = FILES["crates/cli/src/lib.rs"].replace(
        "pub fn is_tty_stdout() -> bool {\n    false\n}\n",
        "pub fn stdout_is_tty() -> bool {\n    false\n}\n\npub fn is_tty_stdout() -> bool {\n    stdout_is_tty()\n}\n")
    code, report = _check(tmp_path, {"crates/cli/src/lib.rs": kept})
    assert code == 0 and not report["left_behind"], report


def test_a_function_given_a_parameter_called_the_old_way_through_the_alias_is_left_behind(tmp_path: Path) -> None:
    # rustfmt's shape: one parameter a line. The method of the same name (`self.parse_size(..)`
    # nowhere, `fn parse_size(&self, ..)` in args.rs) is not the function, and is not named.
    code, report = _check(tmp_path, {"crates/cli/src/human.rs": FILES["crates/cli/src/human.rs"].replace(
        "parse_size(s: &str)", "parse_size(\n    s: &str,\n    binary: bool,\n)")})
    assert code == 1, report
    rows = report["left_behind"]
    assert [(u["use_path"], u["use_lines"], u["name"]) for u in rows] == [("crates/core/args.rs", [13], "parse_size")], rows
    assert rows[0]["replacement"] == "parse_size(s: &str, binary: bool)", rows
