"""Data-driven semantic check cases: fixtures/semantic/<language>/<case>/ (see its README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worktree_coord.merge import FileVersions, check_file, find_broken_names, merge_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "semantic"
CASES = sorted(p for p in FIXTURES.glob("*/*") if p.is_dir())


def _versions(case: Path) -> list[FileVersions]:
    if (case / "base").is_dir() or (case / "left").is_dir():
        paths = sorted({str(f.relative_to(case / side)) for side in ("base", "left", "right") if (case / side).is_dir()
                        for f in (case / side).rglob("*") if f.is_file()})
        read = lambda side, path: (case / side / path).read_bytes() if (case / side / path).is_file() else None  # noqa: E731
        return [_merged(path, read("base", path), read("left", path), read("right", path)) for path in paths]
    base = next(case.glob("Base.*"))
    ext = base.suffix
    return [_merged(f"main{ext}", base.read_bytes(), (case / f"Left{ext}").read_bytes(),
                    (case / f"Right{ext}").read_bytes())]


def _merged(path: str, base: bytes | None, left: bytes | None, right: bytes | None) -> FileVersions:
    if left == right or right == base:
        merged = left
    elif left == base:
        merged = right
    else:
        assert base is not None and left is not None and right is not None, f"{path}: deleted and modified"
        result = merge_file(base, left, right, path, semantic="off")
        assert result.clean, f"{path} must merge cleanly for a semantic case:\n{result.merged.decode()}"
        merged = result.merged
    return FileVersions(path, base, left, right, merged)


def _expected(case: Path) -> set[tuple[str, str, str, str, str]]:
    return {(f["name"], f["definition"], f["use"], f["removed_by"], f["used_by"])
            for f in json.loads((case / "findings.json").read_text())}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_semantic_case(case: Path) -> None:
    assert (case / "README").read_text().strip(), "every case says what it proves"
    files = _versions(case)
    if len(files) == 1 and files[0].path.startswith("main."):
        # One file alone, as `merge_file` checks it: the rest of the merge is unknown.
        [only] = files
        found = check_file(only.base, only.left, only.right, only.merged, only.path)
    else:
        found = find_broken_names(files)   # every file either side changed, as a tree merge gives
    got = {(f.name, f"{f.definition_path}:{f.definition_line}", f"{f.use_path}:{f.use_line}", f.removed_by, f.used_by)
           for f in found}
    assert got == _expected(case), [f.message for f in found]
    if len(files) == 1 and files[0].path.startswith("main."):
        [only] = files
        assert only.base is not None and only.left is not None and only.right is not None
        blocked = merge_file(only.base, only.left, only.right, only.path)
        assert blocked.merged == only.merged, "the check never changes the merged bytes"
        assert blocked.clean == (not got)
        assert {c.finding.name for c in blocked.conflicts if c.finding} == {g[0] for g in got}
        warned = merge_file(only.base, only.left, only.right, only.path, semantic="warn")
        assert warned.clean and {w.finding.name for w in warned.warnings if w.finding} == {g[0] for g in got}


def test_every_language_with_a_semantic_query_has_positive_and_negative_cases() -> None:
    from worktree_coord.merge.languages.profiles import load_profiles

    for profile in load_profiles():
        if not profile.semantic.enabled:
            continue
        cases = [c for c in CASES if c.parent.name == profile.name]
        flagged = [c for c in cases if _expected(c)]
        assert flagged and len(flagged) < len(cases), f"{profile.name}: needs flagged and unflagged cases"
