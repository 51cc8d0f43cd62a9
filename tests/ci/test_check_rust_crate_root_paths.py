"""`wtc check` on Rust calls through the crate root: `crate::to_value(x)` (no `use`, the root's
`pub use` leads to the definition) and `$crate::to_value(x)` in a `macro_rules!` body, which
expands in every caller's code. Found driving wtc on serde_json: its `json!` macro calls
`$crate::to_value(&$other)`; a branch giving `to_value` one more parameter (its other callers
updated) came back clean, and every `json!({"a": x})` of the landed crate failed to compile (E0061).
A rename through the root's `pub use` left both uses behind unseen the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write

FILES = {
    "Cargo.toml": '[package]\nname = "sj"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "#[macro_use]\nmod macros;\npub mod value;\npub use crate::value::to_value;\n",
    "src/value.rs": "pub fn to_value(x: u8) -> Result<u8, ()> {\n    Ok(x)\n}\n",
    "src/macros.rs": ("#[macro_export]\nmacro_rules! json {\n    ($e:expr) => {\n        $crate::to_value($e).unwrap()\n"
                      "    };\n}\n\npub fn one() -> u8 {\n    crate::to_value(1).unwrap()\n}\n"),
}


def _check(tmp_path: Path, changes: dict[str, str], own: list[str]) -> dict:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, changes)
    commit_all(repo, "feature")
    globs = [arg for glob in own for arg in ("--own", glob)]
    done = run_wtc(repo, "check", "--head", "feature", "--target", "main", *globs, "--json")
    return json.loads(done.stdout)


@pytest.mark.parametrize("how", ["renamed", "reshaped"])
def test_uses_through_the_crate_root_and_a_macro_rules_body_are_left_behind(tmp_path: Path, how: str) -> None:
    if how == "renamed":
        changes = {"src/value.rs": FILES["src/value.rs"].replace("to_value", "into_value"),
                   "src/lib.rs": FILES["src/lib.rs"].replace("value::to_value", "value::into_value")}
        own = ["src/value.rs", "src/lib.rs"]
    else:
        changes = {"src/value.rs": FILES["src/value.rs"].replace("(x: u8)", "(x: u8, strict: bool)")}
        own = ["src/value.rs"]
    report = _check(tmp_path, changes, own)
    assert report["exit_code"] == 1, report
    assert [(u["use_path"], u["use_lines"]) for u in report["left_behind"]] == [("src/macros.rs", [4, 9])]


def test_the_uses_updated_or_an_alias_kept_leave_nothing_behind(tmp_path: Path) -> None:
    updated = {"src/value.rs": FILES["src/value.rs"].replace("(x: u8)", "(x: u8, strict: bool)"),
               "src/macros.rs": FILES["src/macros.rs"].replace("to_value($e)", "to_value($e, false)")
                                                     .replace("to_value(1)", "to_value(1, false)")}
    assert _check(tmp_path / "a", updated, ["src/value.rs", "src/macros.rs"])["exit_code"] == 0
    alias = {"src/value.rs": FILES["src/value.rs"].replace("to_value", "into_value"),
             "src/lib.rs": FILES["src/lib.rs"].replace("value::to_value;", "value::into_value;\n"
                                                        "pub use crate::value::into_value as to_value;")}
    assert _check(tmp_path / "b", alias, ["src/value.rs", "src/lib.rs"])["exit_code"] == 0
