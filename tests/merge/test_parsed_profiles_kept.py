"""A shipped profile's parsed TOML is kept on disk (profiles.PARSED_PROFILES), so a process that
validates a profile (every CLI finish that reads a changed Python file) neither imports tomllib nor
parses the profile: the kept value is tomllib's, a damaged file is parsed again, and a changed
text is never answered from another text's file."""

from __future__ import annotations

import tomllib

import pytest

from worktree_coord.config import user_state_dir
from worktree_coord.merge.languages import profile_index, profiles


def _counting(monkeypatch: pytest.MonkeyPatch, text: str, name: str) -> tuple[dict, int]:
    parsed: list[str] = []
    real = profiles._toml
    with monkeypatch.context() as counting:
        counting.setattr(profiles, "_toml", lambda text, source: parsed.append(source) or real(text, source))
        raw = profiles._kept_toml(text, name)
    return raw, len(parsed)


def test_every_shipped_profile_reads_back_as_tomllib_parses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = profile_index._shipped()
    assert len(shipped) >= 20
    for name, text in shipped:
        first, parsed = _counting(monkeypatch, text, name)         # this test's own state folder: parsed, kept
        assert parsed == 1 and first == tomllib.loads(text), name
        again, parsed = _counting(monkeypatch, text, name)
        assert parsed == 0 and again == tomllib.loads(text), name
    assert len(list((user_state_dir() / profiles.PARSED_PROFILES).glob("*.json"))) == len(shipped)


def test_a_kept_profile_validates_as_the_parsed_one() -> None:
    name, text = next((n, t) for n, t in profile_index._shipped() if n == "python.toml")
    profiles._kept_toml(text, name)                                # kept
    assert profiles._validate(profiles._kept_toml(text, name), name) == profiles.load_profile_text(text, name)


def test_a_damaged_or_other_kept_file_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    name, text = next((n, t) for n, t in profile_index._shipped() if n == "python.toml")
    expected, _ = _counting(monkeypatch, text, name)
    for damaged in ("not json", "{}", "[]", "null", '"text"'):
        for file in (user_state_dir() / profiles.PARSED_PROFILES).glob("*.json"):
            file.write_text(damaged)
        found, parsed = _counting(monkeypatch, text, name)
        assert found == expected and parsed == 1, damaged
    changed = text.replace('extensions = ["py"', 'extensions = ["pyx2", "py"', 1)
    assert changed != text
    found, parsed = _counting(monkeypatch, changed, name)
    assert parsed == 1 and found == tomllib.loads(changed)
