"""README.md's per-language table is generated from the profiles, so it cannot drift."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from worktree_coord.merge.languages.profiles import load_profiles

ROOT = Path(__file__).resolve().parents[2]


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_language_table", ROOT / "scripts" / "gen_language_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_language_table_matches_the_profiles() -> None:
    generator = _generator()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme == generator.rendered(readme), \
        "README.md's language table is stale: run `python scripts/gen_language_table.py` and commit the result"


def test_every_profile_has_a_row_naming_its_files_and_containers() -> None:
    table = _generator().table()
    for profile in load_profiles():
        row = next(line for line in table.splitlines() if line.startswith(f"| {profile.name} |"))
        for extension in profile.extensions:
            assert f"`.{extension}`" in row
        for rule in profile.containers:
            assert f"`{rule.kind}`" in row
