"""The tomlkit/json semantic check: merged data files hold exactly the key-level three-way merge."""

from __future__ import annotations

from worktree_coord.merge import merge_file
from worktree_coord.merge.languages.data_semantics import _UNDECIDED, accepts, merge_values

BASE = b'[tool.app]\nname = "demo"  # keep this comment\nretries = 3\n\n[deps]\nalpha = "1.0"\n'


def test_key_level_merge_of_values():
    assert merge_values({"a": 1}, {"a": 1, "b": 2}, {"a": 1, "c": 3}) == {"a": 1, "b": 2, "c": 3}
    assert merge_values({"a": 1, "b": 2}, {"a": 1}, {"a": 1, "b": 2}) == {"a": 1}
    assert merge_values({"a": 1}, {"a": 2}, {"a": 3}) is _UNDECIDED


def test_toml_additions_on_both_sides_merge_and_pass_the_check():
    left = BASE.replace(b'alpha = "1.0"\n', b'alpha = "1.0"\nbeta = "2.0"\n')
    right = BASE.replace(b"retries = 3\n", b"retries = 3\ntimeout = 30\n")
    result = merge_file(BASE, left, right, "config.toml")
    assert result.clean
    assert b"# keep this comment" in result.merged and b'beta = "2.0"' in result.merged
    assert b"timeout = 30" in result.merged
    assert accepts("toml", BASE, left, right, result.merged)


def test_a_result_that_drops_or_alters_a_value_is_refused():
    left = BASE.replace(b'alpha = "1.0"\n', b'alpha = "1.0"\nbeta = "2.0"\n')
    right = BASE.replace(b"retries = 3\n", b"retries = 4\n")
    good = BASE.replace(b'alpha = "1.0"\n', b'alpha = "1.0"\nbeta = "2.0"\n').replace(b"retries = 3\n", b"retries = 4\n")
    assert accepts("toml", BASE, left, right, good)
    assert not accepts("toml", BASE, left, right, left), "right's change is missing"
    moved = good.replace(b'beta = "2.0"\n', b"").replace(b"[tool.app]\n", b'[tool.app]\nbeta = "2.0"\n')
    assert not accepts("toml", BASE, left, right, moved), "beta landed in the wrong table"
    assert accepts("json", b'{"a": 1}', b'{"a": 1, "b": 2}', b'{"a": 1, "c": 3}', b'{"a": 1, "b": 2, "c": 3}')
    assert not accepts("json", b'{"a": 1}', b'{"a": 1, "b": 2}', b'{"a": 1, "c": 3}', b'{"a": 1, "b": 2}')
