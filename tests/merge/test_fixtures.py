"""Data-driven fixtures: fixtures/merge/<language>/<case>/{Base,Left,Right,Expected}.<ext> + README.

Each case merges Base/Left/Right as the file `Base.<ext>` (or as the path its `PATH` file names: a
.gitignore, a CODEOWNERS) and must produce Expected byte for byte;
an Expected holding conflict markers must come back as a conflict, one without as clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from worktree_coord.merge import merge_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "merge"
CASES = sorted(path for path in FIXTURES.glob("*/*") if path.is_dir())


def _read(case: Path, stem: str) -> tuple[bytes, str]:
    (found,) = case.glob(f"{stem}.*")
    return found.read_bytes(), found.suffix


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_fixture(case: Path) -> None:
    base, ext = _read(case, "Base")
    left, _ = _read(case, "Left")
    right, _ = _read(case, "Right")
    expected, _ = _read(case, "Expected")
    assert (case / "README").read_text().strip(), "every case says what it proves"
    path = (case / "PATH").read_text().strip() if (case / "PATH").exists() else f"Base{ext}"
    result = merge_file(base, left, right, path)
    assert result.merged == expected, result.notes
    assert result.clean == (expected.count(b"<<<<<<<") == left.count(b"<<<<<<<"))


def test_at_least_twelve_cases_per_language() -> None:
    languages = {path.name: len([c for c in path.iterdir() if c.is_dir()]) for path in FIXTURES.iterdir() if path.is_dir()}
    assert set(languages) >= {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "json", "toml", "yaml"}
    assert all(count >= 12 for count in languages.values()), languages
