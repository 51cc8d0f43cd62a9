"""Rust: an enum's variant and an impl's associated const, read through the type's name, are definitions.

`Color::Red`, `Self::Red` in an impl of the enum, `use color::Color::{self, Red}` and
`color::Config::LIMIT` read a member of a type as `util::parse()` calls a function: renaming the
variant or the const leaves each such read behind, and `cargo check` fails on the landed tree (E0599,
E0432 for the import). Before, only the enum and the struct were definitions: each rename checked
clean at `task check` and in `wtc check`. A variant is the enum's own, so a trait the enum implements
(`impl Display for Color`, a base) hides none; a const may come from a trait impl and keeps that rule.
A variant added, or a const moved to another inherent impl of the type, is no removal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _task_edited

CARGO = '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n'
COLOR = ("pub enum Color {\n    Red,\n    Green,\n    Custom { r: u8 },\n}\n\n"
         "impl std::fmt::Display for Color {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {\n"
         "        f.write_str(\"c\")\n    }\n}\n\npub struct Config;\n\nimpl Config {\n    pub const LIMIT: u32 = 3;\n}\n")
MAIN = ("mod color;\nmod warm;\nuse color::Color;\n\nfn main() {\n    let _g = Color::Green;\n"
        "    let _c = color::Color::Custom { r: 1 };\n    let _n = color::Config::LIMIT;\n}\n")
WARM = ("use crate::color::Color::{self, Red};\n\nimpl Color {\n    pub fn warm(&self) -> bool {\n"
        "        if let Self::Green = self {\n            return false;\n        }\n        true\n    }\n}\n\n"
        "pub fn red() -> Color {\n    Red\n}\n")
FILES = {"Cargo.toml": CARGO, "src/color.rs": COLOR, "src/main.rs": MAIN, "src/warm.rs": WARM}


def _checked(tmp_path: Path, color: str) -> tuple[int, dict]:
    repo = _task_edited(tmp_path, FILES, "rn", ("src/color.rs",), {"src/color.rs": color}, None)
    return wtc_in_process(repo, "task", "check", "rn", "--run", "r1")


def _uses(body: dict) -> list[tuple[str, str, list[int]]]:
    return sorted((row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"])


@pytest.mark.parametrize("old, new, uses", [
    ("    Green,", "    Lime,", [("src/main.rs", "Color::Green", [6]), ("src/warm.rs", "Color::Green", [5])]),
    ("    Red,", "    Crimson,", [("src/warm.rs", "Color::Red", [1])]),
    ("    Custom {", "    Made {", [("src/main.rs", "Color::Custom", [7])]),
    ("    pub const LIMIT", "    pub const MAX", [("src/main.rs", "Config::LIMIT", [8])]),
], ids=["variant-through-the-enum-and-self", "variant-imported", "struct-variant", "associated-const"])
def test_a_member_read_through_its_types_name_renamed_blocks(tmp_path: Path, old: str, new: str, uses: list) -> None:
    code, body = _checked(tmp_path, COLOR.replace(old, new))
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert _uses(body) == uses


def test_a_renamed_variant_blocks_in_wtc_check(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {"src/color.rs": COLOR.replace("    Green,", "    Lime,")})
    assert code == 1 and _uses(report) == [("src/main.rs", "Color::Green", [6]), ("src/warm.rs", "Color::Green", [5])], report


@pytest.mark.parametrize("color", [
    COLOR.replace("    Green,\n", "    Green,\n    Blue,\n"),
    COLOR.replace("    pub const LIMIT: u32 = 3;\n}\n", "}\n\nimpl Config {\n    pub const LIMIT: u32 = 3;\n}\n"),
], ids=["a-variant-added", "a-const-moved-to-another-impl"])
def test_a_member_added_or_kept_is_clean(tmp_path: Path, color: str) -> None:
    code, body = _checked(tmp_path, color)
    assert (code, body["left_behind"]) == (0, []), body


def test_a_crate_named_alone_in_a_use_group_is_still_imported(tmp_path: Path) -> None:
    """ripgrep 09905560ff rewrote `use base64; use std::fmt;` as `use { base64, std::fmt };`: the bare
    `base64` in the group was read as no import, so the import was taken for dropped and the function's
    `use base64::engine::Engine;` for its use left behind (a false block: `cargo check` passes)."""
    before = "use base64;\nuse std::fmt;\n\npub fn f() -> usize {\n    use base64::engine::Engine;\n    fmt::Error.to_string().len()\n}\n"
    grouped = before.replace("use base64;\nuse std::fmt;\n", "use {\n    base64,\n    std::fmt,\n};\n")
    files = {"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n', "src/lib.rs": before}
    code, body = _branch_checked(tmp_path / "grouped", files, {"src/lib.rs": grouped})
    assert (code, body["left_behind"]) == (0, []), body
