"""Every grammar wheel the project depends on loads with the installed tree-sitter and parses,
offline: a wheel built for another tree-sitter ABI, or one that fetches its grammar at run time,
fails here rather than at a user's first merge of that language."""

from __future__ import annotations

import importlib

import pytest
import tree_sitter

# (module, language function, a snippet of the language that must parse without errors)
WHEELS = [
    ("tree_sitter_c", "language", b"int f(int x) { return x; }\n"),
    ("tree_sitter_cpp", "language", b"namespace n { class C { int f(); }; }\n"),
    ("tree_sitter_c_sharp", "language", b"class C { void F() {} }\n"),
    ("tree_sitter_kotlin", "language", b"fun f(x: Int): Int = x\n"),
    ("tree_sitter_swift", "language", b"func f(x: Int) -> Int { return x }\n"),
    ("tree_sitter_ruby", "language", b"def f(x)\n  x\nend\n"),
    ("tree_sitter_php", "language_php", b"<?php function f($x) { return $x; }\n"),
    ("tree_sitter_php", "language_php_only", b"function f($x) { return $x; }\n"),
    ("tree_sitter_scala", "language", b"object O { def f(x: Int): Int = x }\n"),
    ("tree_sitter_bash", "language", b"f() { echo \"$1\"; }\n"),
    ("tree_sitter_lua", "language", b"local function f(x) return x end\n"),
    ("tree_sitter_elixir", "language", b"defmodule M do\n  def f(x), do: x\nend\n"),
    ("tree_sitter_haskell", "language", b"f :: Int -> Int\nf x = x\n"),
    ("tree_sitter_hcl", "language", b'resource "a" "b" {\n  x = 1\n}\n'),
    ("tree_sitter_html", "language", b"<p class=\"a\">hi</p>\n"),
    ("tree_sitter_css", "language", b"a { color: red; }\n"),
    ("tree_sitter_xml", "language_xml", b"<a><b x=\"1\"/></a>\n"),
    ("tree_sitter_xml", "language_dtd", b"<!ELEMENT a (b)>\n"),
    ("tree_sitter_markdown", "language", b"# Title\n\n- item\n"),
    ("tree_sitter_markdown", "inline_language", b"some *emphasis*\n"),
]


@pytest.mark.parametrize("module, function, snippet", WHEELS, ids=[f"{m}.{f}" for m, f, _ in WHEELS])
def test_grammar_wheel_loads_and_parses(module: str, function: str, snippet: bytes) -> None:
    language = tree_sitter.Language(getattr(importlib.import_module(module), function)())
    assert tree_sitter.MIN_COMPATIBLE_LANGUAGE_VERSION <= language.abi_version <= tree_sitter.LANGUAGE_VERSION
    tree = tree_sitter.Parser(language).parse(snippet)
    assert not tree.root_node.has_error, tree.root_node
