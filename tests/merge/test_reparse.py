"""A version parsed from the tree of another version of its file (languages/reparse.py, Profile.parse's
`like`) is the tree a fresh parse gives: the same nodes and the same captures of the language's
semantic query, over every fixture of every language (each case's versions parsed from one another)
and over random line edits (insertions, deletions, changed lines, edits inside a line, at the file's
start and end, a last line without its newline). Hunks that are not the pair's diff, and a similar
version whose tree is not kept, give a fresh parse."""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worktree_coord.merge.checks.symbols import query_for
from worktree_coord.merge.languages import profiles
from worktree_coord.merge.languages.profiles import Profile, profile_for_path
from worktree_coord.merge.languages.reparse import edits, inverted, reparse
from worktree_coord.merge.lines.linediff import hunks

ROOT = Path(__file__).resolve().parents[2] / "fixtures"


def _cases() -> list[tuple[Profile, list[bytes]]]:
    """Each fixture case's versions of one file (Base, Left, Right, Expected), by language."""
    out = []
    for folder in sorted({p.parent for p in (ROOT / "merge").rglob("*") if p.is_file()}
                         | {p.parent for p in (ROOT / "semantic").rglob("*") if p.is_file()}):
        by_ending: dict[str, list[bytes]] = {}
        for file in sorted(folder.iterdir()):
            if file.is_file() and file.stem in ("Base", "Left", "Right", "Expected"):
                by_ending.setdefault(file.suffix, []).append(file.read_bytes())
        for ending, versions in by_ending.items():
            profile = profile_for_path("a" + ending)
            if profile is not None and len(versions) > 1:
                out.append((profile, versions))
    return out


CASES = _cases()
LANGUAGES = sorted({profile.name for profile, _ in CASES})


def _nodes(tree: tree_sitter.Tree) -> list[tuple]:
    """Every node of the tree with its kind, place and flags, in document order."""
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        out.append((node.type, node.start_byte, node.end_byte, tuple(node.start_point), tuple(node.end_point),
                    node.is_missing, node.has_error, node.is_named))
        stack.extend(reversed(node.children))
    return out


def _captures(profile: Profile, tree: tree_sitter.Tree) -> list[tuple]:
    """The semantic query's matches on the tree (pattern, capture names and byte ranges)."""
    if not profile.semantic.enabled:
        return []
    matches = tree_sitter.QueryCursor(query_for(profile)).matches(tree.root_node)
    return [(index, sorted((name, [(n.start_byte, n.end_byte) for n in nodes]) for name, nodes in captures.items()))
            for index, captures in matches]


def _same_as_fresh(profile: Profile, old: bytes, new: bytes) -> bool:
    """Parse `new` from `old`'s tree; check it is the fresh parse. Returns whether the old tree was used."""
    parser = tree_sitter.Parser(profile.language)
    old_tree = parser.parse(old)
    diff = hunks(old, new)
    found = edits(old, new, diff)
    assert found is not None, "a line diff's hunks describe their pair"
    replayed = bytearray(old)
    for start, old_end, new_end, *_ in found:   # the edits, applied in order, turn old into new
        replayed[start:old_end] = new[start:new_end]
    assert bytes(replayed) == new
    tree = reparse(parser, old_tree.copy(), old, new, diff)
    fresh = parser.parse(new)
    if tree is None:   # the incremental tree held an error: the caller parses afresh
        return False
    assert _nodes(tree) == _nodes(fresh)
    assert _captures(profile, tree) == _captures(profile, fresh)
    return True


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_fixtures_versions_parsed_from_one_another_read_as_fresh_parses(language: str) -> None:
    used = 0
    for profile, versions in CASES:
        if profile.name != language:
            continue
        for old in versions:
            for new in versions:
                if old != new:
                    used += _same_as_fresh(profile, old, new)
    assert used, f"no {language} fixture version was parsed from another one"


def _edited(data: bytes, steps: list[tuple[str, int, int, bytes]]) -> bytes:
    lines = data.split(b"\n")
    for op, at, column, text in steps:
        i = at % (len(lines) + 1)
        if op == "insert":
            lines.insert(i, text)
        elif lines and op == "delete":
            lines.pop(min(i, len(lines) - 1))
        elif lines and op == "replace":
            lines[min(i, len(lines) - 1)] = text
        elif lines and op == "inside":
            line = lines[min(i, len(lines) - 1)]
            cut = column % (len(line) + 1)
            lines[min(i, len(lines) - 1)] = line[:cut] + text + line[cut:]
    return b"\n".join(lines)


TEXTS = st.sampled_from([b"", b"x", b"    return 1", b"}", b"{", b"(", b"'", b'"', b"# note", b"// note",
                         b"def g(a):", b"function g(a) {", b"import os", b"fn g() {}", b"  ", b"\t", b"end"])
STEPS = st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace", "inside"]), st.integers(0, 10_000),
                           st.integers(0, 200), TEXTS), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), pick=st.integers(0, 3), steps=STEPS, where=st.sampled_from(["any", "start", "end"]),
       strip=st.booleans())
def test_random_line_edits_parse_as_a_fresh_parse(case, pick, steps, where, strip) -> None:
    profile, versions = case
    old = versions[pick % len(versions)]
    if where != "any":   # the edits at the file's first or last line
        count = old.count(b"\n") + 1
        steps = [(op, 0 if where == "start" else count, column, text) for op, _, column, text in steps]
    new = _edited(old, steps)
    if strip:
        new = new.rstrip(b"\n")
    _same_as_fresh(profile, old, new)
    _same_as_fresh(profile, new, old)


def test_hunks_of_another_pair_are_refused_and_inverted_hunks_read_back() -> None:
    old = b"a\nb\nc\nd\n"
    new = b"a\nB\nc\nd\ne\n"
    assert edits(old, new, hunks(old, new)) is not None
    assert edits(new, old, inverted(hunks(old, new))) is not None
    assert edits(new, old, hunks(old, new)) is None          # the other direction's hunks
    assert edits(old, b"a\nB\nc\nD\ne\n", hunks(old, new)) is None   # a change outside them
    assert edits(old, old, []) == [] and edits(old, new, []) is None


def _forget_kept() -> None:
    with profiles._parsed_lock:
        profiles._PARSED.clear()
        profiles._parsed_bytes = 0


def test_parse_like_a_kept_version_equals_a_fresh_parse_and_falls_back_when_none_is_kept() -> None:
    python = profile_for_path("a.py")
    old = b"import os\n\n\ndef f(x):\n    return os.path.join(x, 'a')\n" * 3
    new = old.replace(b"'a'", b"'b'", 1) + b"def g():\n    pass\n"
    fresh = str(tree_sitter.Parser(python.language).parse(new).root_node)
    _forget_kept()
    assert str(python.parse(new, like=(old, lambda: hunks(old, new), None)).root_node) == fresh   # old's tree not kept
    _forget_kept()
    python.parse(old)
    assert str(python.parse(new, like=(old, lambda: hunks(old, new), None)).root_node) == fresh   # parsed from old's tree
    assert str(python.parse(new).root_node) == fresh                                 # and kept as it is
    _forget_kept()
    python.parse(old)
    wrong = hunks(new, old)   # not old -> new: parsed afresh
    assert str(python.parse(new, like=(old, lambda: wrong, None)).root_node) == fresh


def test_a_source_too_big_to_keep_is_parsed_from_the_tree_its_caller_holds() -> None:
    python = profile_for_path("a.py")
    old = b"".join(b"def f%d(x):\n    return x + %d\n\n" % (i, i) for i in range(profiles.PARSED_KEPT_SOURCE // 30 + 10))
    new = old.replace(b"return x + 7\n", b"return x - 7\n    # changed\n", 1)
    assert len(new) > profiles.PARSED_KEPT_SOURCE
    held = python.parse(old)
    before = len(profiles._PARSED)
    tree = python.parse(new, like=(old, lambda: hunks(old, new), held))
    assert _nodes(tree) == _nodes(tree_sitter.Parser(python.language).parse(new))
    assert len(profiles._PARSED) == before   # not kept: too big


def _count_reparses(monkeypatch) -> list[bool]:
    """Forget the kept trees, then record, for each version parsed from another's tree from here on,
    whether the incremental parse answered (True) or the caller had to parse afresh (False)."""
    _forget_kept()
    reparsed: list[bool] = []

    def counted(*args):
        tree = reparse(*args)
        reparsed.append(tree is not None)
        return tree

    monkeypatch.setattr(profiles, "reparse", counted)
    return reparsed


def test_the_resolver_and_the_check_parse_a_files_other_versions_from_the_tree_of_one(monkeypatch) -> None:
    """A conflicted file's sides are parsed from its base's tree (cascade), and its merged result,
    checked by the semantic check, from a side's: the same result as before, fewer fresh parses."""
    from worktree_coord.merge import merge_file

    folder = ROOT / "merge" / "python" / "add_members_same_place"
    base, left, right, expected = ((folder / f"{name}.py").read_bytes() for name in ("Base", "Left", "Right", "Expected"))
    reparsed = _count_reparses(monkeypatch)
    result = merge_file(base, left, right, "mod.py")
    assert result.clean and result.merged == expected
    assert reparsed.count(True) >= 2, reparsed   # left and right from the base's tree, at least


def test_the_check_parses_a_files_next_version_from_the_tree_of_the_one_before(monkeypatch) -> None:
    """The semantic check reads several versions of a file (here what each side defines and imports);
    the ones after the first are parsed from its tree, and the finding is the same."""
    from worktree_coord.merge import FileVersions, find_broken_names

    a_base = b"import os\n\n\ndef helper():\n    return os.sep\n\n\ndef g():\n    return 1\n"
    a_left = b"import os\n\n\ndef g():\n    return 1\n"
    b_base = b"from a import g\n\nprint(g())\n"
    b_right = b"from a import g, helper\n\nprint(g(), helper())\n"
    files = [FileVersions("a.py", a_base, a_left, a_base, a_left), FileVersions("b.py", b_base, b_base, b_right, b_right)]
    reparsed = _count_reparses(monkeypatch)
    found = find_broken_names(files)
    assert [(f.name, f.use_path) for f in found] == [("helper", "b.py")]
    assert True in reparsed, reparsed


def test_the_duplicate_check_parses_the_inputs_from_the_trees_of_the_versions_before(monkeypatch) -> None:
    """The duplicate check reads the inputs of a merged file that holds a declaration twice: the base
    is parsed from the merged file's tree, each side from the base's. The findings are the ones
    fresh parses give (every incremental parse refused: each version parsed afresh)."""
    from worktree_coord.merge import FileVersions
    from worktree_coord.merge.checks.duplicates import find_duplicates
    from worktree_coord.merge.lines.line import line_merge

    base = b"class Store:\n" + b"".join(b"    def get%d(self, key):\n        return key + %d\n\n" % (i, i)
                                          for i in range(40))
    added = b"    def drop(self, key):\n        return None\n\n"
    left = base.replace(b"    def get3(", added + b"    def get3(", 1)
    right = base + added
    merged = line_merge(base, left, right)
    assert merged.clean
    files = [FileVersions("store.py", base, left, right, merged.merged)]
    reparsed = _count_reparses(monkeypatch)
    found = find_duplicates(files)
    assert [(f.name, f.definition_line, f.use_line) for f in found] == [("Store.drop", 11, 125)], found
    assert reparsed == [True, True, True], reparsed        # base, left and right: none afresh
    _forget_kept()
    monkeypatch.setattr(profiles, "reparse", lambda *args: None)
    assert find_duplicates(files) == found
