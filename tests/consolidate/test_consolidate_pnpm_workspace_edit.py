"""The pnpm-workspace.yaml line editor: only the changed entry's lines move, everything else is kept
byte for byte, and the result parses to exactly the intended document."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.consolidate.edits import EditError, edit_manifest
from worktree_coord.consolidate.intent import Intent

BASE = """\
# workspace of the demo
packages:
  # apps first
  - "apps/*"   # the apps
  - 'packages/a'

catalog:
  react: ^18.2.0 # pinned
  '@types/node': "20.1.0"

catalogs:
  legacy:
    lodash: ^3.0.0
"""


def intent(op: str, name: str, group: str = "", spec: str | None = None) -> Intent:
    if op in ("add_member", "remove_member"):
        group, spec = "workspace.members", name if op == "add_member" else None
    return Intent(intent_id=f"t:{op}:{name}", task="t", ecosystem="pnpm", root="", manifest="pnpm-workspace.yaml",
                  op=op, group=group, name=name, spec=spec)


def apply(text: str, *intents: Intent) -> str:
    data = text.encode()
    for one in intents:
        data = edit_manifest("pnpm-workspace.yaml", data, one)
    return data.decode()


def test_a_member_is_added_after_its_siblings_in_their_quoting():
    assert apply(BASE, intent("add_member", "packages/b")) == BASE.replace(
        "  - 'packages/a'\n", "  - 'packages/a'\n  - \"packages/b\"\n")


def test_removing_a_member_removes_only_its_line():
    assert apply(BASE, intent("remove_member", "packages/a")) == BASE.replace("  - 'packages/a'\n", "")


def test_catalog_set_keeps_the_trailing_comment_and_a_new_key_is_quoted_only_when_it_must_be():
    out = apply(BASE, intent("set_spec", "react", "catalog", "^18.3.0"), intent("add_dep", "zed", "catalog", "*"),
                intent("add_dep", "@scope/x", "catalog", "~2.0.0"))
    assert out == BASE.replace("  react: ^18.2.0 # pinned\n  '@types/node': \"20.1.0\"\n",
                               "  react: ^18.3.0 # pinned\n  '@types/node': \"20.1.0\"\n  zed: '*'\n"
                               "  '@scope/x': ~2.0.0\n")


def test_named_catalogs_and_overrides_are_created_and_emptied_sections_go():
    out = apply(BASE, intent("add_dep", "y", "catalog:new", "^1.0.0"), intent("set_override", "foo", "overrides", "1.0.0"))
    assert out == BASE + "  new:\n    y: ^1.0.0\n\noverrides:\n  foo: 1.0.0\n"
    emptied = apply(BASE, intent("remove_dep", "lodash", "catalog:legacy"))
    assert emptied == BASE.replace("\ncatalogs:\n  legacy:\n    lodash: ^3.0.0\n", "")


def test_crlf_flow_lists_and_sequences_at_the_keys_column_are_kept():
    assert apply("packages:\r\n  - a\r\n", intent("add_member", "c")) == "packages:\r\n  - a\r\n  - c\r\n"
    assert apply("packages: [a, 'b']  # x\n", intent("add_member", "c")) == "packages: [a, 'b', c]  # x\n"
    assert apply("packages:\n- a\nx: 1\n", intent("add_member", "c")) == "packages:\n- a\n- c\nx: 1\n"
    assert apply("", intent("add_member", "c")) == "packages:\n  - c\n"


def test_an_inline_mapping_it_cannot_edit_is_refused_not_mangled():
    with pytest.raises(EditError, match="inline"):
        apply("catalog: {react: ^18.0.0}\n", intent("add_dep", "vue", "catalog", "^3.0.0"))


member_names = st.from_regex(r"(packages|apps|libs)/[a-z][a-z0-9-]{0,8}", fullmatch=True)


@settings(max_examples=25, deadline=None)
@given(st.lists(member_names, min_size=1, max_size=5, unique=True), st.sampled_from(["", "'", '"']))
def test_adding_members_keeps_every_original_line_in_order(names, quote):
    base = f"# top\npackages:\n  # keep\n  - {quote}packages/a{quote}  # first\n\ncatalog:\n  x: ^1.0.0\n"
    out = apply(base, *(intent("add_member", n) for n in names))
    lines = out.splitlines()
    position = 0
    for original in base.splitlines():
        position = lines.index(original, position) + 1      # every original line survives, in order
    assert yaml.safe_load(out)["packages"] == ["packages/a", *[n for n in names if n != "packages/a"]]
    assert yaml.safe_load(out)["catalog"] == {"x": "^1.0.0"}
