"""`wtc check` on a Rust workspace whose facade crate re-exports its parts by `extern crate`.

Found driving wtc on BurntSushi/ripgrep: the `grep` crate's root says `pub extern crate grep_cli as
cli;`, and the binary calls `cli::is_tty_stdout()` after `use grep::cli;`. A task renaming
`is_tty_stdout` in grep-cli (its own uses updated) was clean at `task check`, and cargo said E0425
in crates/core/args.rs: `grep::cli` led to no file (an `extern crate` alias is neither a `mod` nor
a `use`), and a name imported whole and called through (`cli::x()`) was not followed to the
module it names.
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
    "crates/cli/src/lib.rs": "pub fn is_tty_stdout() -> bool {\n    false\n}\n",
    "crates/core/main.rs": "mod args;\n\nfn main() {\n    args::run();\n}\n",
    "crates/core/args.rs": ("use grep::cli;\n\npub fn run() {\n    if cli::is_tty_stdout() {\n"
                            "        println!(\"tty\");\n    }\n}\n"),
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
    kept = "pub fn stdout_is_tty() -> bool {\n    false\n}\n\npub fn is_tty_stdout() -> bool {\n    stdout_is_tty()\n}\n"
    code, report = _check(tmp_path, {"crates/cli/src/lib.rs": kept})
    assert code == 0 and not report["left_behind"], report
