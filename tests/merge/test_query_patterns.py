"""The bounds of a semantic query's patterns are kept on disk (symbols._pattern_texts): the split
of the query into patterns is tree-sitter's own, a later process compiles only the subsets it runs
(not the full query it would compile only to split it), and a damaged file is computed again."""

from __future__ import annotations

import pytest

from worktree_coord.config import user_state_dir
from worktree_coord.merge.checks import symbols
from worktree_coord.merge.languages.profiles import profile_for_path

PATHS = ["a.py", "a.ts", "a.go", "a.rs", "A.java"]


def _profiles():
    found = [profile_for_path(path) for path in PATHS]
    return [p for p in found if p is not None and p.semantic.enabled]


def _forget() -> None:
    for cached in (symbols._pattern_texts, symbols._query):   # query_for keeps its queries in _query
        cached.cache_clear()


def _compiled_split(profile) -> tuple[bytes, ...]:
    full = symbols._compile(profile, symbols._extraction_text(profile))
    encoded = symbols._extraction_text(profile).encode("utf-8")
    return tuple(encoded[full.start_byte_for_pattern(i):full.end_byte_for_pattern(i)] for i in range(full.pattern_count))


def test_kept_bounds_are_tree_sitters_and_spare_the_full_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    profiles = _profiles()
    assert len(profiles) >= 4
    for profile in profiles:
        _forget()
        first = symbols._pattern_texts(profile)            # computed (or read) and kept
        assert first == _compiled_split(profile)
        _forget()
        compiled: list[str] = []
        real = symbols._compile
        monkeypatch.setattr(symbols, "_compile", lambda p, text: compiled.append(text) or real(p, text))
        symbols.query_for(profile, False)
        symbols.query_for(profile, True, True)
        monkeypatch.undo()
        assert symbols._extraction_text(profile) not in compiled, profile.name    # only the subsets
        assert len(compiled) == 2
        assert symbols._pattern_texts(profile) == first


def test_a_damaged_file_is_computed_again() -> None:
    profile = profile_for_path("a.py")
    _forget()
    expected = symbols._pattern_texts(profile)
    folder = user_state_dir() / symbols.PATTERNS_CACHE
    for text in ("not json", "[[5, 2]]", "[[0, 999999999]]", "{}", "[]"):
        for file in folder.glob("*.json"):
            file.write_text(text)
        _forget()
        assert symbols._pattern_texts(profile) == expected, text


def test_the_tags_queries_read_from_the_wheels_folders_are_importlib_resources_texts() -> None:
    """symbols._tags_text reads each grammar wheel's queries/tags.scm with a plain read (no
    importlib.resources readers in a finish): the same text, for every wheel a profile names."""
    import importlib.resources

    from worktree_coord.merge.languages.profiles import load_profiles

    wheels = sorted({wheel for profile in load_profiles() if profile.semantic.enabled for wheel in profile.semantic.tags})
    assert len(wheels) >= 5
    symbols._tags_text.cache_clear()
    for wheel in wheels:
        expected = (importlib.resources.files(wheel) / "queries" / "tags.scm").read_text(encoding="utf-8")
        assert symbols._tags_text(wheel) == expected, wheel
