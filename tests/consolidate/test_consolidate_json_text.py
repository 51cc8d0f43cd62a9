"""package.json edits rewrite only what changed: the rest of the file keeps its bytes."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.consolidate import declare_intent
from worktree_coord.consolidate.edits import edit_manifest
from worktree_coord.consolidate.edits.json_text import rewrite_json, same
from worktree_coord.consolidate.textformat import json_style

HAND_WRITTEN = (
    '{\r\n\t"name":"root",  "private": true,\r\n'
    '\t"workspaces": ["packages/*"],\r\n'
    '\t"scripts": {"build": "tsc -b", "test":"vitest"},\r\n'
    '\t"dependencies": {\r\n\t\t"left-pad": "^1.3.0"\r\n\t}\r\n}'
).encode()


def intent(op, name, spec=None, group="dependencies"):
    return declare_intent("package.json", HAND_WRITTEN, task="t", op=op, name=name, spec=spec, group=group)


def test_an_added_dependency_touches_only_its_object():
    out = edit_manifest("package.json", HAND_WRITTEN, intent("add_dep", "zod", "^3.0.0"))
    assert out == HAND_WRITTEN.replace(b'"left-pad": "^1.3.0"\r\n', b'"left-pad": "^1.3.0",\r\n\t\t"zod": "^3.0.0"\r\n')


def test_a_new_member_keeps_a_one_line_array_on_one_line_and_the_odd_spacing_elsewhere():
    out = edit_manifest("package.json", HAND_WRITTEN, intent("add_member", "tools/*", group="workspaces"))
    assert out == HAND_WRITTEN.replace(b'["packages/*"]', b'["packages/*", "tools/*"]')


def test_a_new_group_is_written_as_npm_writes_it_at_its_depth_with_the_files_end_of_line():
    out = edit_manifest("package.json", HAND_WRITTEN, intent("add_dep", "vitest", "^2.0.0", group="devDependencies"))
    assert out.endswith(b'\t},\r\n\t"devDependencies": {\r\n\t\t"vitest": "^2.0.0"\r\n\t}\r\n}')
    assert out.startswith(HAND_WRITTEN[:HAND_WRITTEN.index(b'\t"dependencies"')]), "untouched members keep their bytes"


def test_removing_the_last_dependency_drops_the_group_and_nothing_else():
    out = edit_manifest("package.json", HAND_WRITTEN, intent("remove_dep", "left-pad"))
    assert out == HAND_WRITTEN.replace(b',\r\n\t"dependencies": {\r\n\t\t"left-pad": "^1.3.0"\r\n\t}', b"")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
documents = st.dictionaries(st.text(max_size=6), json_values, max_size=6)


@settings(max_examples=300, deadline=None)
@given(old=documents, new=documents, indent=st.sampled_from(["  ", "    ", "\t"]),
       eol=st.sampled_from(["\n", "\r\n"]), compact=st.booleans(), final=st.booleans())
def test_any_rewrite_parses_to_the_new_document_and_keeps_unchanged_top_level_values(old, new, indent, eol,
                                                                                    compact, final):
    text = json.dumps(old, indent=None if compact else indent, ensure_ascii=False)
    text = text.replace("\n", eol) + (eol if final else "")
    data = text.encode()
    # Keep some old members in the new document, so unchanged values exist.
    merged = {**{k: v for i, (k, v) in enumerate(old.items()) if i % 2 == 0}, **new}
    out = rewrite_json(data, merged, json_style(data))
    assert same(json.loads(out), merged)
    assert out.endswith(eol.encode()) == final or not merged
    if not compact:
        for key, value in merged.items():
            if key in old and same(old[key], value):
                piece = json.dumps({key: value}, indent=indent, ensure_ascii=False)[1:-1].strip().replace("\n", eol)
                assert piece.encode() in out, f"{key!r} lost its bytes"
