"""The shipped profiles' index (what `profile_for_path` matches on: each profile's file names,
extensions and claims) is kept on disk (profile_index.INDEX_CACHE), so a process asking a path's
profile (every CLI finish) does not parse 27 TOML heads again: the kept index is the parsed one, a
damaged file is parsed again, a changed profile text is never answered from an older index, and
the profiles are read from the package's folder as importlib.resources reads them."""

from __future__ import annotations

import importlib.resources

import pytest

from worktree_coord.config import user_state_dir
from worktree_coord.merge.languages import profile_index


def _plain(index) -> list:
    return [(name, filenames, extensions, None if claims is None else (claims[0], claims[1].pattern))
            for name, filenames, extensions, claims in index]


def _forget() -> None:
    profile_index._shipped.cache_clear()
    profile_index._shipped_index.cache_clear()


def _index_counting_heads(monkeypatch: pytest.MonkeyPatch) -> tuple[list, int]:
    parsed: list[str] = []
    real = profile_index._head
    with monkeypatch.context() as counting:
        counting.setattr(profile_index, "_head", lambda text, source: parsed.append(source) or real(text, source))
        _forget()
        index = _plain(profile_index._shipped_index())
    _forget()
    return index, len(parsed)


def test_the_kept_index_is_the_parsed_one_and_spares_the_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    first, parsed = _index_counting_heads(monkeypatch)     # this test's own state folder: parsed, then kept
    assert parsed == len(first) >= 20
    assert any(claims is not None for *_, claims in first)
    again, parsed = _index_counting_heads(monkeypatch)
    assert again == first and parsed == 0
    assert list((user_state_dir() / profile_index.INDEX_CACHE).glob("*.json"))


def test_a_damaged_kept_index_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    expected, _ = _index_counting_heads(monkeypatch)
    for text in ("not json", "{}", "[]", '[["python.toml", ["x"], ["py"], ["bad"]]]', '[[1, [], [], null]]',
                 '[["a.toml", [], [], ["h", "(unclosed"]]]', '[["a.toml", [], [], [["h"], "(unclosed"]]]'):
        for file in (user_state_dir() / profile_index.INDEX_CACHE).glob("*.json"):
            file.write_text(text)
        found, parsed = _index_counting_heads(monkeypatch)
        assert found == expected and parsed == len(expected), text


def test_a_changed_profile_is_not_answered_from_an_older_index(monkeypatch: pytest.MonkeyPatch) -> None:
    _index_counting_heads(monkeypatch)     # the shipped texts' index, kept
    shipped = profile_index._shipped()
    changed = tuple((name, text.replace('extensions = ["py"', 'extensions = ["pyx2", "py"', 1))
                    if name == "python.toml" else (name, text) for name, text in shipped)
    assert changed != shipped
    _forget()
    monkeypatch.setattr(profile_index, "_shipped", lambda: changed)
    profile_index._shipped_index.cache_clear()
    python = next(row for row in profile_index._shipped_index() if row[0] == "python.toml")
    assert "pyx2" in python[2]
    profile_index._shipped_index.cache_clear()


def test_the_profiles_are_read_as_importlib_resources_reads_them() -> None:
    _forget()
    root = importlib.resources.files("worktree_coord.grammars")
    expected = tuple((entry.name, entry.read_text(encoding="utf-8"))
                     for entry in sorted(root.iterdir(), key=lambda item: item.name) if entry.name.endswith(".toml"))
    assert profile_index._shipped() == expected and len(expected) >= 20
