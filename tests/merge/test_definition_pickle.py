"""symbols.Definition as a drain loads it: a finished task's row (merge_index.MergeIndex.keep_task)
holds ~200 of them a merge of bench_merge's drain, and each was rebuilt by the unpickler setting a
state dict on a new object; now each is one tuple, rebuilt in C. Its value semantics are the
frozen dataclass's it was: fields by name, equal and hashed as the tuple of its fields, equal to
no plain tuple, immutable."""

from __future__ import annotations

import dataclasses
import pickle
import pickletools

import pytest

from worktree_coord.merge.checks.semantic import semantic_profile
from worktree_coord.merge.checks.symbols import Definition, Symbols, extract

SOURCE = b"import os\n\n\nclass Store:\n    def put(self, k):\n        return k\n\n\ndef f0(x):\n    return x\n"


def _extracted() -> Symbols:
    profile = semantic_profile("m.py")
    return extract(profile, SOURCE, profile.parse(SOURCE), uses=False)


def test_a_definition_pickles_as_its_tuple_with_no_state_set_per_object() -> None:
    found = _extracted()
    assert len(found.definitions) >= 3
    data = pickle.dumps(found.definitions, protocol=pickle.HIGHEST_PROTOCOL)
    ops = [op.name for op, _arg, _pos in pickletools.genops(data)]
    # One BUILD (a state dict set on the new object) a definition before; none now.
    assert "BUILD" not in ops, ops
    back = pickle.loads(data)
    assert back == found.definitions and all(type(d) is Definition for d in back)


def test_a_definition_keeps_the_dataclass_value_semantics() -> None:
    d = Definition("put", "method", ("Store",), 5, 30, 60)
    assert (d.name, d.kind, d.container, d.line, d.start_byte, d.end_byte) == ("put", "method", ("Store",), 5, 30, 60)
    assert d == Definition("put", "method", ("Store",), 5, 30, 60) and d != Definition("put", "method", ("Store",), 5, 30, 61)
    assert hash(d) == hash(("put", "method", ("Store",), 5, 30, 60))   # (sets of them order as before)
    assert d != ("put", "method", ("Store",), 5, 30, 60)   # (as a dataclass: no plain tuple equals it)
    assert repr(d) == "Definition(name='put', kind='method', container=('Store',), line=5, start_byte=30, end_byte=60)"
    with pytest.raises(AttributeError):
        d.name = "get"  # type: ignore[misc]
    # (dataclasses.asdict of a Symbols, which tests compare extractions by, reads them as it
    # reads a named tuple's fields)
    assert dataclasses.asdict(_extracted()) == dataclasses.asdict(_extracted())
