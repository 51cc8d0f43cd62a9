"""Lock diff audit and the formatting-preserving editors on their own."""

from worktree_coord.consolidate.edits import EditError, edit_manifest
from worktree_coord.consolidate.intent import Intent
from worktree_coord.consolidate.planning import Change
from worktree_coord.consolidate.verify import lock_diff

import pytest


def change(name: str, op: str = "add_dep") -> Change:
    intent = Intent(intent_id=f"t:{name}", task="t", ecosystem="npm", root="", manifest="package.json", op=op,
                    group="dependencies", name=name, spec="^1.0.0")
    return Change(intent, (intent,))


def test_lock_diff_flags_changes_no_intent_explains():
    before = {"a": {"1.0.0"}, "react": {"17.0.2"}, "old": {"0.1.0"}, "member": {"1.0.0"}}
    after = {"a": {"1.1.0"}, "react": {"18.2.0"}, "member": {"2.0.0"}, "new": {"1.0.0"}, "dep-of-new": {"3.0.0"}}
    diff = lock_diff(before, after, (change("a"), change("new")), members={"member"})
    assert diff.added == (("dep-of-new", ("3.0.0",)), ("new", ("1.0.0",)))
    assert diff.removed == (("old", ("0.1.0",)),)
    assert [n for n, *_ in diff.changed] == ["a", "member", "react"]
    assert diff.unexplained == ("react: 17.0.2 -> 18.2.0", "old: removed (0.1.0)")
    quiet = lock_diff(before, after, (change("a"), change("old", "remove_dep"), change("react")), members={"member"})
    assert quiet.unexplained == ()


CARGO = b"""# top comment
[package]
name = "app"   # the app
version = "0.1.0"

[dependencies]
serde = { version = "1", features = ["derive"] }  # keep
"""


def test_cargo_edits_keep_comments_and_inline_tables():
    set_spec = Intent(intent_id="t:1", task="t", ecosystem="cargo", root="", manifest="Cargo.toml", op="set_spec",
                      group="dependencies", name="serde", spec="1.0.200", features=["derive"])
    out = edit_manifest("Cargo.toml", CARGO, set_spec)
    assert out == CARGO.replace(b'version = "1"', b'version = "1.0.200"')
    target = Intent(intent_id="t:2", task="t", ecosystem="cargo", root="", manifest="Cargo.toml", op="add_dep",
                    group="target:cfg(unix):dependencies", name="libc", spec="0.2")
    out2 = edit_manifest("Cargo.toml", CARGO, target)
    assert out2.startswith(CARGO) and out2.endswith(b"[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n")
    bump = Intent(intent_id="t:3", task="t", ecosystem="cargo", root="", manifest="Cargo.toml", op="bump_version",
                  group="version", name="app", spec="0.2.0")
    assert edit_manifest("Cargo.toml", CARGO, bump) == CARGO.replace(b'version = "0.1.0"', b'version = "0.2.0"')
    with pytest.raises(EditError, match="does not exist"):
        edit_manifest("Cargo.toml", None, bump)


def test_pyproject_array_edit_keeps_comments_and_sorted_order():
    text = b'[project]\nname = "p"\ndependencies = [\n    "attrs>=22",  # why attrs\n    "rich",\n]\n'
    add = Intent(intent_id="t:1", task="t", ecosystem="uv", root="", manifest="pyproject.toml", op="add_dep",
                 group="dependencies", name="httpx", spec=">=0.27", extras=["http2"])
    out = edit_manifest("pyproject.toml", text, add)
    assert out == text.replace(b'    "rich",\n', b'    "httpx[http2]>=0.27",\n    "rich",\n')
    remove = Intent(intent_id="t:2", task="t", ecosystem="uv", root="", manifest="pyproject.toml", op="remove_dep",
                    group="dependencies", name="rich", expected_before="")
    assert b'"rich"' not in edit_manifest("pyproject.toml", text, remove)
    assert b"# why attrs" in edit_manifest("pyproject.toml", text, remove)
