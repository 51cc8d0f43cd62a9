"""The merge laws for the files every task appends to (grammars/append/kinds.toml), with hypothesis.

Per kind: a file of entries built from (index, value) pairs. The laws: `merge(b, x, b) == x`,
`merge(b, b, y) == y`, `merge(b, x, x) == x` (clean); both sides' new entries at the end are a
union (each once, left's then right's, or in the file's order when it is sorted); a side's
deletions and the other side's additions both hold; and, for kinds whose entries have a key
beyond their text, both sides changing one entry differently is a conflict while changes to
different entries both hold. `test_every_kind_has_laws` keeps the table whole.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from worktree_coord.merge import merge_file
from worktree_coord.merge.appended.appendable import kind_for_path, kinds
from worktree_coord.merge.appended.entries import cut

_PO_HEAD = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'

# path -> (head, entry template with {i} (two digits) and {v}, whether a value edit keeps the key)
KINDS: dict[str, tuple[str, str, bool]] = {
    ".gitignore": ("# build output\n", "dir{i}/\n", False),
    "CODEOWNERS": ("# owners\n", "/dir{i}/ @team{v}\n", True),
    ".gitattributes": ("", "dir{i}/** linguist-vendored={v}\n", True),
    "dev-requirements.txt": ("", "pkg{i}=={v}.0\n", True),
    "AUTHORS": ("", "Person {i}\n", False),
    "de.po": (_PO_HEAD, '\n#: a.py:{i}\nmsgid "m{i}"\nmsgstr "t{v}"\n', True),
    "ui.properties": ("# strings\n", "k{i}=v{v}\n", True),
}


def _file(path: str, entries: list[tuple[int, int]]) -> bytes:
    head, template, _ = KINDS[path]
    return (head + "".join(template.format(i=f"{i:02d}", v=v) for i, v in entries)).encode()


def test_every_kind_has_laws() -> None:
    covered = {kind_for_path(path).name for path in KINDS}  # type: ignore[union-attr]
    assert covered == {kind.name for kind in kinds()}


values = st.integers(0, 9)


@pytest.mark.parametrize("path", sorted(KINDS))
@settings(max_examples=10, deadline=None)
@given(base=st.lists(st.tuples(st.integers(0, 40), values), max_size=6, unique_by=lambda e: e[0]),
       other=st.lists(st.tuples(st.integers(0, 40), values), max_size=6, unique_by=lambda e: e[0]))
def test_identity_laws(path: str, base: list[tuple[int, int]], other: list[tuple[int, int]]) -> None:
    b, x = _file(path, base), _file(path, other)
    assert merge_file(b, x, b, path).merged == x
    assert merge_file(b, b, x, path).merged == x
    same = merge_file(b, x, x, path)
    assert same.clean and same.merged == x


@pytest.mark.parametrize("path", sorted(KINDS))
@settings(max_examples=25, deadline=None)
@given(base=st.lists(st.integers(0, 30), min_size=1, max_size=8, unique=True),
       left=st.lists(st.integers(31, 60), min_size=1, max_size=4, unique=True),
       right=st.lists(st.integers(45, 80), min_size=1, max_size=4, unique=True),
       sort=st.booleans())
def test_additions_at_one_place_are_a_union(path: str, base: list[int], left: list[int], right: list[int],
                                           sort: bool) -> None:
    """Both sides append: every entry once; sorted files stay sorted, others get left's then right's."""
    if sort:
        base, left, right = sorted(base), sorted(left), sorted(right)
        assume(len(base) >= 3)
        expected = base + sorted(set(left) | set(right))
    else:
        assume(base != sorted(base))
        expected = base + left + [i for i in right if i not in left]

    def entries(items: list[int]) -> list[tuple[int, int]]:
        return [(i, i % 10) for i in items]
    result = merge_file(_file(path, entries(base)), _file(path, entries(base + left)),
                        _file(path, entries(base + right)), path)
    assert result.clean, result.merged.decode()
    assert result.merged == _file(path, entries(expected)), result.merged.decode()
    keys = [entry.key for entry in cut(result.merged, kind_for_path(path).format)]  # type: ignore[union-attr]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("path", sorted(KINDS))
@settings(max_examples=25, deadline=None)
@given(base=st.lists(st.integers(0, 40), min_size=2, max_size=8, unique=True), data=st.data())
def test_deletions_and_additions_both_hold(path: str, base: list[int], data: st.DataObject) -> None:
    gone = data.draw(st.sets(st.sampled_from(base), max_size=len(base) - 1))
    added = data.draw(st.lists(st.integers(50, 60), min_size=1, max_size=3, unique=True))
    entries = [(i, 1) for i in base]
    result = merge_file(_file(path, entries), _file(path, [e for e in entries if e[0] not in gone]),
                        _file(path, entries + [(i, 1) for i in added]), path)
    assert result.clean, result.merged.decode()
    assert result.merged == _file(path, [e for e in entries if e[0] not in gone] + [(i, 1) for i in added])


@pytest.mark.parametrize("path", sorted(path for path, (_, _, keyed) in KINDS.items() if keyed))
@settings(max_examples=25, deadline=None)
@given(base=st.lists(st.integers(0, 40), min_size=2, max_size=8, unique=True), data=st.data())
def test_edits_of_one_entry_conflict_and_of_two_entries_hold(path: str, base: list[int], data: st.DataObject) -> None:
    first, second = data.draw(st.lists(st.sampled_from(base), min_size=2, max_size=2, unique=True))
    entries = [(i, 1) for i in base]

    def edited(changes: dict[int, int]) -> bytes:
        return _file(path, [(i, changes.get(i, v)) for i, v in entries])
    both = merge_file(_file(path, entries), edited({first: 2}), edited({first: 3}), path)
    assert not both.clean and both.merged.count(b"<<<<<<<") == 1
    apart = merge_file(_file(path, entries), edited({first: 2}), edited({second: 3}), path)
    assert apart.clean and apart.merged == edited({first: 2, second: 3})
    deleted = merge_file(_file(path, entries), _file(path, [e for e in entries if e[0] != first]),
                         edited({first: 3}), path)
    assert not deleted.clean


# Registries in code: path -> (head, element template with {i}, tail). Elements one a line.
REGISTRIES: dict[str, tuple[str, str, str]] = {
    "routes.js": ("export const routes = [\n", "  {{ path: '/p{i}', component: P{i} }},\n", "];\n"),
    "plugins.ts": ("export default defineConfig({\n  plugins: [\n", "    plugin{i}(),\n", "  ],\n});\n"),
    "settings.py": ("INSTALLED_APPS = [\n", "    'app{i}',\n", "]\n"),
    "pkg/__init__.py": ("__all__ = [\n", '    "Name{i}",\n', "]\n"),
}


def _registry(path: str, items: list[int]) -> bytes:
    head, element, tail = REGISTRIES[path]
    return (head + "".join(element.format(i=f"{i:02d}") for i in items) + tail).encode()


@pytest.mark.parametrize("path", sorted(REGISTRIES))
@settings(max_examples=20, deadline=None)
@given(base=st.lists(st.integers(0, 30), min_size=1, max_size=6, unique=True),
       left=st.lists(st.integers(31, 60), min_size=1, max_size=3, unique=True),
       right=st.lists(st.integers(61, 90), min_size=1, max_size=3, unique=True))
def test_registry_appends_on_both_sides_are_a_union(path: str, base: list[int], left: list[int],
                                                    right: list[int]) -> None:
    """Both sides append elements to a registry list in code: both kept, left's first (`__all__`
    sorts when it is sorted: its unsorted case is the one asserted here)."""
    assume(base != sorted(base) or len(base) < 2)
    result = merge_file(_registry(path, base), _registry(path, base + left), _registry(path, base + right), path)
    assert result.clean, result.merged.decode()
    assert result.merged == _registry(path, base + left + right)
