"""Which names a module `__getattr__` answers (merge/languages/python_getattr.py)."""

from __future__ import annotations

import pytest

from worktree_coord.merge.languages.python_getattr import answered_names


@pytest.mark.parametrize("source, names", [
    ("def __getattr__(name):\n    if name == '__version__':\n        return '1'\n    raise AttributeError(name)\n",
     {"__version__"}),
    ("def __getattr__(attr):\n    if attr in ('a', 'b'):\n        return 1\n    elif 'c' == attr or attr == 'd':\n"
     "        return 2\n    raise AttributeError\n", {"a", "b", "c", "d"}),
    ("def __getattr__(name):\n    if name == 'a':\n        try:\n            return f()\n        except OSError:\n"
     "            return None\n    raise AttributeError(name)\n", {"a"}),
], ids=["one", "several", "nested-returns"])
def test_a_getattr_comparing_its_parameter_answers_those_names(source, names):
    assert answered_names(source.encode()) == frozenset(names)


@pytest.mark.parametrize("source", [
    "def __getattr__(name):\n    return lookup(name)\n",
    "def __getattr__(name):\n    if name in _LAZY:\n        return load(name)\n    raise AttributeError(name)\n",
    "def __getattr__(name):\n    if name == 'a':\n        return 1\n    return 2\n",
    "def __getattr__(name):\n    if name == 'a':\n        return 1\n    raise ImportError(name)\n",
    "def __getattr__(name):\n    for n in NAMES:\n        return n\n    raise AttributeError(name)\n",
    "def __getattr__(name):\n    match name:\n        case 'a':\n            return 1\n    raise AttributeError(name)\n",
    "def __getattr__(name):\n    if name == 'a' and flag:\n        return 1\n    raise AttributeError(name)\n",
    "def __getattr__(name):\n    if name != 'a':\n        return 1\n    raise AttributeError(name)\n",
    "def __getattr__(:\n",
], ids=["lookup", "table", "fallthrough", "other-error", "loop", "match", "and", "not-equal", "unparsed"])
def test_a_getattr_that_may_answer_anything_answers_any(source):
    assert answered_names(source.encode()) is None
