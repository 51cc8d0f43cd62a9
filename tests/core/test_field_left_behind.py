"""A field a Python class binds on its instances (`self.item_limit = n`), renamed or dropped, is a
member gone: a read of it through an instance (`s.item_limit`, `self.item_limit`) fails with
AttributeError where it runs, as a call of a renamed method does (merge/checks/fields.py).

Written down as left last session: attribute bindings on `self` were no definitions, so renaming
`self.item_limit` in `__init__` to `self.max_items` merged clean with `s.item_limit` still read
elsewhere, the receiver typed, constructed, or read by the one definer's reading. A dataclass's
annotated field (`x: int`) renamed is the same. Never a block where something else may still give
it: another binding, `__slots__`, setattr, `obj.x = ` from outside, `__getattr__`, a base class.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _drained, _removal_merged, _removal_refused, _second_finish

STORE = ("class Store:\n    def __init__(self, n):\n        self.item_limit = n\n\n"
         "    def full(self, items):\n        return len(items) >= self.item_limit\n")
RENAMED = STORE.replace("item_limit", "max_items")
POINT = "from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n    y: int = 0\n"


def _files(user: str, **more: str) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/store.py": STORE, "pkg/use.py": user}
    files.update({path + ".py": text for path, text in more.items()})
    return files


@pytest.mark.parametrize("user, line", [
    ("from .store import Store\n\n\ndef f():\n    s = Store(3)\n    return s.item_limit\n", 6),   # typed local
    ("from .store import Store\n\n\ndef f(s: Store):\n    return s.item_limit > 2\n", 5),    # annotated parameter
    ("from .store import Store\n\nLIMIT = Store(3).item_limit\n", 3),                          # constructed
    ("from .store import Store\n\n\ndef f(s):\n    return s.item_limit\n", 5),                 # the one definer's
    # a forward reference (rich's `def __rich_console__(self, console: "Console", ...)`, then `console.safe_box`)
    ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .store import Store\n\n\n"
     "def f(s: \"Store\"):\n    return s.item_limit\n", 8),
], ids=["typed-local", "annotated", "constructed", "one-definer", "string-annotation"])
def test_a_renamed_instance_field_still_read_is_left_behind(tmp_path, user, line):
    _, left = _removal_refused(tmp_path, _files(user), "pkg/store.py", {"pkg/store.py": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"pkg/use.py:{line} still uses Store.item_limit"), left


def test_a_string_annotation_tells_the_class_where_another_class_binds_the_field_too(tmp_path):
    files = _files("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .store import Store\n\n\n"
                   "def f(s: \"Store\"):\n    return s.item_limit\n",
                   **{"pkg/queue": "class Queue:\n    def __init__(self):\n        self.item_limit = 1\n"})
    _, left = _removal_refused(tmp_path, files, "pkg/store.py", {"pkg/store.py": RENAMED})
    assert len(left) == 1 and left[0].startswith("pkg/use.py:8 still uses Store.item_limit"), left


def test_a_renamed_dataclass_field_still_read_is_left_behind(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/point.py": POINT,
             "pkg/use.py": "from .point import Point\n\n\ndef f(p: Point):\n    return p.x\n"}
    _, left = _removal_refused(tmp_path, files, "pkg/point.py", {"pkg/point.py": POINT.replace("x: int", "xx: int")})
    assert len(left) == 1 and left[0].startswith("pkg/use.py:5 still uses Point.x"), left


@pytest.mark.parametrize("store, more", [
    # another method still binds it
    (RENAMED + "\n    def reset(self):\n        self.item_limit = 0\n", {}),
    # `__slots__` names it, setattr binds it
    (RENAMED.replace("class Store:\n", "class Store:\n    __slots__ = ('max_items', 'item_limit')\n\n"), {}),
    (RENAMED.replace("self.max_items = n", "self.max_items = n\n        setattr(self, 'item_limit', n)"), {}),
    # `__getattr__` answers any name
    (RENAMED + "\n    def __getattr__(self, name):\n        return 0\n", {}),
    # a base class may bind it
    (RENAMED.replace("class Store:", "from framework import Base\n\n\nclass Store(Base):"), {}),
    # a class attribute of that name answers a read through an instance
    (RENAMED.replace("class Store:\n", "class Store:\n    item_limit = 10\n\n"), {}),
    # code outside the class sets it on the instance
    (RENAMED, {"pkg/setup": "from .store import Store\n\n\ndef make():\n    s = Store(3)\n    s.item_limit = 3\n    return s\n"}),
], ids=["bound-elsewhere", "slots", "setattr", "getattr", "base-class", "class-attribute", "assigned-outside"])
def test_a_field_something_else_may_still_give_is_no_use(tmp_path, store, more):
    files = _files("from .store import Store\n\n\ndef f():\n    s = Store(3)\n    return s.item_limit\n", **more)
    _removal_merged(tmp_path, files, {"pkg/store.py": store})


def test_a_read_another_task_adds_blocks_its_merge(tmp_path):
    code, body = _second_finish(tmp_path, _files("from .store import Store\n"),
                                ("a", "pkg/store.py", {"pkg/store.py": RENAMED}),
                                ("b", "pkg/use.py", {"pkg/use.py": "from .store import Store\n\n\ndef f(s: Store):\n"
                                                                   "    return s.item_limit\n"}))
    assert code == 1 and body["state"] == "conflict", body
    assert [(c["kind"], c["semantic"]["name"]) for c in body["conflicts"]] == [("semantic", "Store.item_limit")]


def test_a_drain_blocks_a_read_of_a_field_renamed_before_it(tmp_path):
    code, tasks = _drained(tmp_path, _files("from .store import Store\n"), [
        ("a", "pkg/store.py", {"pkg/store.py": RENAMED}),
        ("b", "pkg/use.py", {"pkg/use.py": "from .store import Store\n\n\ndef f():\n    return Store(1).item_limit\n"})])
    assert tasks["a"][0] == "merged" and tasks["b"] == ("conflict", [("semantic", "pkg/use.py", "Store.item_limit")]), tasks
