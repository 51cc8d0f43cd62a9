"""Provenance (merge/precision/provenance.py): for each place git's line merge conflicts, the rule of the
structured merge that settled it, and what the two sides did there."""

from __future__ import annotations

from worktree_coord.merge import merge_file
from worktree_coord.merge.lines.line import line_merge
from worktree_coord.merge.precision.provenance import SEPARATE, conflict_regions, regions


def _one(base: bytes, left: bytes, right: bytes, path: str):  # type: ignore[no-untyped-def]
    result = merge_file(base, left, right, path)
    assert result.clean, result.notes
    found = regions(base, left, right, result)
    assert len(found) == 1, found
    return found[0]


def test_regions_are_where_git_conflicts() -> None:
    base = b"a\nb\nc\nd\ne\nf\ng\n"
    left = b"a\nB\nc\nd\ne\nf\nG1\n"
    right = b"a\nb2\nc\nd\ne\nf\nG2\n"
    assert not line_merge(base, left, right).clean
    found = conflict_regions(base, left, right)
    assert [(start, end) for start, end, *_ in found] == [(1, 2), (6, 7)]
    assert found[1][2:] == (("g",), ("G1",), ("G2",))


def test_the_same_edit_on_both_sides_is_no_region() -> None:
    base = b"a\nb\nc\n"
    assert conflict_regions(base, b"a\nB\nc\n", b"a\nB\nc\n") == []
    assert conflict_regions(base, b"a\nB\nc\n", b"a\nb\nc\nd\n") == []   # apart: git merges it


def test_union_of_new_members() -> None:
    base = b"import a\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n"
    left = base.replace(b"def g", b"def h():\n    return 3\n\ndef g")
    right = base.replace(b"def g", b"def k():\n    return 4\n\ndef g")
    region = _one(base, left, right, "m.py")
    assert region.rules == ("union of members: insert/insert",)
    assert region.shape == "insert/insert"


def test_delete_next_to_insert() -> None:
    base = b"def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef k():\n    return 5\n"
    left = base.replace(b"def g():\n    return 2\n\n\n", b"")
    right = base.replace(b"def k", b"def h():\n    return 3\n\n\ndef k")
    region = _one(base, left, right, "m.py")
    assert region.rules == ("union of members: delete next to insert",)
    assert region.shape == "delete next to insert"


def test_separate_members_when_no_rule_was_needed() -> None:
    # Each side edits its own function; git sees one hunk because the edits touch.
    base = b"def f():\n    return 1\ndef g():\n    return 2\n"
    left = b"def f():\n    return 10\ndef g():\n    return 2\n"
    right = b"def f():\n    return 1\ndef g(x):\n    return 2\n"
    assert not line_merge(base, left, right).clean
    region = _one(base, left, right, "m.py")
    assert region.rules == (SEPARATE,)
    assert region.shape == "edit/edit"


def test_data_rules_are_named_apart() -> None:
    base = b'{\n  "a": 1,\n  "z": 9\n}\n'
    left = b'{\n  "a": 1,\n  "b": 2,\n  "z": 9\n}\n'
    right = b'{\n  "a": 1,\n  "c": 3,\n  "z": 9\n}\n'
    region = _one(base, left, right, "settings.json")
    assert region.rules == ("data: union of members: insert/insert",)


def test_a_line_result_has_no_trace() -> None:
    base, left, right = b"a\nb\n", b"a\nB\n", b"a\nC\n"
    result = merge_file(base, left, right, "notes.txt")
    assert not result.clean and result.trace == ()
    assert "trace" not in result.to_json()


def test_both_sides_edit_one_function_apart() -> None:
    # One function, each side edits its own statement on neighbouring lines: git conflicts, the
    # function's statements merge with no rule needed inside.
    base = b"def f():\n    a = 1\n    b = 2\n    return a + b\n"
    left = b"def f():\n    a = 10\n    b = 2\n    return a + b\n"
    right = b"def f():\n    a = 1\n    b = 20\n    return a + b\n"
    assert not line_merge(base, left, right).clean
    region = _one(base, left, right, "m.py")
    assert region.rules == ("both edited one member: merged inside",)


def test_a_rule_inside_a_member_names_the_region() -> None:
    base = b"class C:\n    def f(self):\n        return 1\n"
    left = b"class C:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    right = b"class C:\n    def f(self):\n        return 1\n\n    def h(self):\n        return 3\n"
    region = _one(base, left, right, "m.py")
    assert region.rules == ("union of members: insert/insert",)


def _eval_script():  # type: ignore[no-untyped-def]
    import importlib.util
    import sys
    from pathlib import Path

    scripts = Path(__file__).resolve().parents[2] / "scripts"
    spec = importlib.util.spec_from_file_location("eval_merge_quality_for_tests", scripts / "eval_merge_quality.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(scripts))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(scripts))
    return module


def test_region_verdict_compares_only_the_region() -> None:
    verdict = _eval_script().region_verdict
    base = b"a\nb\nc\nd\ne\nf\n"
    ours = b"a\nX\nY\nc\nd\ne\nf\n"          # our resolution of base line 1 ("b")
    assert verdict(base, ours, ours, 1, 2, {}) == "exact"
    assert verdict(base, ours, b"a\nY\nX\nc\nd\ne\nf\n", 1, 2, {}) == "order"
    assert verdict(base, ours, b"a\nX\nc\nd\ne\nf\n", 1, 2, {}) == "differs"
    # The committed file differs elsewhere (a line git merged cleanly): the region still agrees.
    assert verdict(base, ours, b"a\nX\nY\nc\nd\nE\nf\n", 1, 2, {}) == "exact"
