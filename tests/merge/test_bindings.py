"""bindings.py: names a Python statement binds and uses (real tree-sitter-python parses)."""

from __future__ import annotations

import pytest
import tree_sitter

from worktree_coord.merge.syntax.bindings import names_bound, names_used
from worktree_coord.merge.languages.profiles import profile_for_path


def _statement(code: str) -> tuple[bytes, tree_sitter.Node]:
    profile = profile_for_path("x.py")
    assert profile is not None
    source = code.encode()
    root = tree_sitter.Parser(profile.language).parse(source).root_node
    assert not root.has_error
    return source, root.named_children[0]


def _used(source: bytes, node: tree_sitter.Node, **options: bool) -> frozenset[str]:
    """names_used as the structured merge calls it for Python (python.toml's `deferred` kinds)."""
    profile = profile_for_path("x.py")
    assert profile is not None and profile.deferred == {"function_definition", "lambda"}
    return names_used(source, node, deferred_kinds=profile.deferred, **options)


@pytest.mark.parametrize(("code", "bound"), [
    ("DOCS = ROOT / 'docs'\n", {"DOCS"}),
    ("a, (b, *c) = f()\n", {"a", "b", "c"}),
    ("x = y = 1\n", {"x", "y"}),
    ("total += 1\n", {"total"}),
    ("obj.attr = 1\n", set()),
    ("table[key] = 1\n", set()),
    ("import os.path\n", {"os"}),
    ("import numpy as np\n", {"np"}),
    ("from pathlib import Path, PurePath as PP\n", {"Path", "PP"}),
    ("def run(x=DEFAULT):\n    return helper(x)\n", {"run"}),
    ("@decorate\nclass Thing(Base):\n    pass\n", {"Thing"}),
])
def test_names_bound(code: str, bound: set[str]) -> None:
    source, node = _statement(code)
    assert names_bound(source, node) == bound


def test_names_used_skips_function_bodies_but_not_defaults_or_decorators() -> None:
    source, node = _statement("@register(REGISTRY)\ndef run(x=DEFAULT):\n    return helper(LATER)\n")
    used = _used(source, node)
    assert {"register", "REGISTRY", "DEFAULT"} <= used
    assert "helper" not in used and "LATER" not in used


def test_names_used_enters_class_bodies_which_run_at_definition() -> None:
    source, node = _statement("class Config:\n    path = DOCS / 'conf.py'\n")
    assert "DOCS" in _used(source, node)


def test_names_used_sees_lambda_bodies_as_deferred() -> None:
    source, node = _statement("handler = lambda: LATER + 1\n")
    assert "LATER" not in _used(source, node)
    assert "handler" in _used(source, node)


def test_annotations_can_be_left_out_for_stubs_and_future_annotations() -> None:
    source, node = _statement("def store(self, new: Store = DEFAULT) -> Builder: ...\n")
    assert {"Store", "Builder", "DEFAULT"} <= _used(source, node)
    lazy = _used(source, node, annotations=False)
    assert "DEFAULT" in lazy and "Store" not in lazy and "Builder" not in lazy
    source, node = _statement("LIMIT: Bound = start()\n")
    assert _used(source, node, annotations=False) >= {"LIMIT", "start"}
    assert "Bound" not in _used(source, node, annotations=False)


def test_without_deferred_kinds_every_body_counts() -> None:
    """A C function's body needs its callees declared above it: nothing is deferred there."""
    source, node = _statement("def run(x=DEFAULT):\n    return helper(LATER)\n")
    assert {"DEFAULT", "helper", "LATER"} <= names_used(source, node)
