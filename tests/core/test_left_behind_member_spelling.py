"""A finding names a member as its language writes it, in the text face and the JSON face alike.

A Rust enum's variant renamed while `Color::Red` is read elsewhere was reported as `Color.Red`: a
spelling no Rust reader searches for, and the name `wtc land --allow-left-behind` is approved by. Rust
writes a variant, an associated item or a module's item with `::` (profile `member_separator`);
Python, Java and TypeScript write theirs with a dot.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tests.core.test_uses_left_behind import _branch_checked

CASES = {
    "rust": ({"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n',
              "src/color.rs": "pub enum Color {\n    Red,\n    Green,\n}\n",
              "src/main.rs": "mod color;\nuse color::Color;\n\nfn main() {\n    let _r = Color::Red;\n}\n"},
             "src/color.rs", "    Red,", "    Crimson,", "Color::Red"),
    "python": ({"pkg/__init__.py": "", "pkg/color.py": "import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n",
                "pkg/use.py": "from pkg.color import Color\n\nr = Color.RED\n"},
               "pkg/color.py", "    RED = 1", "    CRIMSON = 1", "Color.RED"),
    "java": ({"src/main/java/p/Color.java": "package p;\n\npublic enum Color {\n  RED,\n  GREEN\n}\n",
              "src/main/java/p/Use.java": "package p;\n\nclass Use {\n  Color c = Color.RED;\n}\n"},
             "src/main/java/p/Color.java", "  RED,", "  CRIMSON,", "Color.RED"),
    "typescript": ({"src/color.ts": "export enum Color {\n  Red,\n  Green,\n}\n",
                    "src/use.ts": 'import { Color } from "./color";\n\nexport const r = Color.Red;\n'},
                   "src/color.ts", "  Red,", "  Crimson,", "Color.Red"),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_renamed_member_is_named_as_its_language_writes_it(tmp_path: Path, language: str) -> None:
    files, path, old, new, name = CASES[language]
    code, report = _branch_checked(tmp_path, files, {path: files[path].replace(old, new)})
    assert code == 1 and [row["name"] for row in report["left_behind"]] == [name], report
    from worktree_coord import cli

    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()), contextlib.chdir(tmp_path / "ci"):
        assert cli.main(["check", "--base", "main", "--head", "topic", "--own", "**"]) == 1
    said = [line for line in text.getvalue().splitlines() if "left_behind:" in line]
    assert len(said) == 1 and f" uses {name}, " in said[0], text.getvalue()
