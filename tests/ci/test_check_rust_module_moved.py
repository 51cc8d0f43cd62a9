"""`wtc check` on a Rust module moved while a sibling module keeps importing it by its old path.

Found driving wtc on BurntSushi/ripgrep: a task moved grep-cli's src/escape.rs to
src/text/escape.rs (`mod text;` in lib.rs, `pub mod escape;` in text/mod.rs, the root's
`pub use crate::text::escape::{escape, escape_os, ...}`), while src/pattern.rs, which it did not
change, kept `use crate::escape::{escape, escape_os};`. `task check` said clean; cargo said E0432.
Two things hid the use: the root's `pub use` binds a *function* named `escape`, which no path goes
through, taken for the root giving `escape` some other way than `mod escape;`; and the doc comments'
examples (`//! assert_eq!(...)`, `/// use grep_cli::escape;`) were read as an item macro and a
`use` of the root and of the moved file.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

ESCAPE = ("/// Escapes bytes.\n///\n/// ```\n/// use grep_cli::escape;\n/// assert_eq!(\"a\", escape(b\"a\"));\n/// ```\n"
          "pub fn escape(b: &[u8]) -> String {\n    String::from_utf8_lossy(b).into_owned()\n}\n\n"
          "pub fn escape_os(s: &str) -> String {\n    escape(s.as_bytes())\n}\n")
LIB = ("/*!\nExamples:\n\n```\nuse grep_cli::unescape;\n\nassert_eq!(vec![b'a'], unescape(\"a\"));\n```\n*/\n\n"
       "mod escape;\nmod pattern;\n\npub use crate::escape::{escape, escape_os};\npub use crate::pattern::pat;\n\n"
       "pub fn unescape(s: &str) -> Vec<u8> {\n    s.as_bytes().to_vec()\n}\n")
FILES = {
    "Cargo.toml": '[package]\nname = "grep-cli"\nversion = "0.1.0"\nedition = "2018"\n',
    "src/lib.rs": LIB,
    "src/escape.rs": ESCAPE,
    "src/pattern.rs": ("use crate::escape::{escape, escape_os};\n\npub fn pat(b: &[u8]) -> String {\n"
                       "    let _ = escape_os(\"x\");\n    escape(b)\n}\n"),
}


def _check_move(tmp_path: Path, root_export: str) -> tuple[int, dict]:
    """The branch moves src/escape.rs into src/text/, its root exporting `root_export`."""
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "src/text").mkdir()
    git(repo, "mv", "src/escape.rs", "src/text/escape.rs")
    write(repo, {"src/text/mod.rs": "pub mod escape;\n",
                 "src/lib.rs": LIB.replace("mod escape;", "mod text;")
                                  .replace("pub use crate::escape::{escape, escape_os};", root_export)})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "move escape into text")
    return wtc_in_process(repo, "check", "--base", "main", "--head", "feature", "--own", "src/lib.rs",
                          "--own", "src/escape.rs", "--own", "src/text/**")


def test_an_import_of_the_moved_module_by_its_old_path_is_left_behind(tmp_path: Path) -> None:
    code, report = _check_move(tmp_path, "pub use crate::text::escape::{escape, escape_os};")
    assert code == 1, report
    assert sorted((u["use_path"], u["name"]) for u in report["left_behind"]) == \
        [("src/pattern.rs", "escape"), ("src/pattern.rs", "escape_os")], report["left_behind"]


def test_the_root_re_exporting_the_module_itself_keeps_the_old_path(tmp_path: Path) -> None:
    # `pub use crate::text::escape;` binds the module: `crate::escape::escape_os` still resolves.
    code, report = _check_move(tmp_path, "pub use crate::text::escape;\npub use crate::text::escape::escape_os;")
    assert code == 0 and not report["left_behind"], report
