"""What the shipped TOML files parse to (each language profile, the appended files' kinds) is kept
on disk as JSON (kept_on_disk.kept_json): a later process reads it without tomllib, gets what
tomllib gives, and a damaged or altered file is parsed and written again."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from worktree_coord.config import user_state_dir
from worktree_coord.merge.appended import appendable
from worktree_coord.merge.languages import profile_index


def _damage(folder: str, text: str) -> int:
    files = list((user_state_dir() / folder).glob("*.json"))
    for file in files:
        file.write_text(text)
    return len(files)


def test_each_shipped_profile_reads_back_as_tomllib_parses_it() -> None:
    shipped = profile_index._shipped()
    assert len(shipped) > 20
    for name, text in shipped:
        expected = tomllib.loads(text)
        assert profile_index.shipped_toml(name, text) == expected, name      # parsed, and kept
        assert profile_index.shipped_toml(name, text) == expected, name      # read back
    kept = list((user_state_dir() / profile_index.PARSED_CACHE).glob("*.json"))
    assert len(kept) == len(shipped)
    altered = json.loads(kept[0].read_text())
    altered["value"]["name"] = "someone else"        # the digest no longer holds: parsed again
    kept[0].write_text(json.dumps(altered))
    for text in ("not json", "null", "{}", '{"digest": "x", "value": {}}', json.dumps(altered)):
        assert _damage(profile_index.PARSED_CACHE, text) == len(shipped)
        for name, source in shipped:
            assert profile_index.shipped_toml(name, source) == tomllib.loads(source), (name, text)


def test_the_appended_kinds_read_back_as_tomllib_parses_them() -> None:
    appendable.kinds.cache_clear()
    import worktree_coord.grammars as grammars

    text = (Path(next(iter(grammars.__path__))) / "append" / "kinds.toml").read_text(encoding="utf-8")
    expected = appendable.load_kinds(text, "grammars/append/kinds.toml")
    assert appendable.kinds() == expected and len(expected) > 3
    appendable.kinds.cache_clear()
    assert appendable.kinds() == expected                                     # read back
    for damaged in ("not json", '{"digest": "x", "value": {"kinds": []}}'):
        assert _damage(appendable.KINDS_CACHE, damaged) == 1
        appendable.kinds.cache_clear()
        assert appendable.kinds() == expected
    appendable.kinds.cache_clear()
