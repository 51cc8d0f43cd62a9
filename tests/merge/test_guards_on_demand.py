"""The import guards of a profile (Python's `try: import x` / `except ImportError:`, `if
find_spec(...)`) are a query of their own (symbols.guards_query), run by an extraction only where
an import may stand inside one of their roots (symbols._may_be_guarded): the same symbols as when
the guards rode along in the extraction's query, and a merge of a file whose imports stand outside
any `try`/`if` compiles no guard pattern (Python's six took 12 of the 17 ms of its defining query).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import tree_sitter

from worktree_coord.merge.checks import symbols
from worktree_coord.merge.checks.semantic import check_file, semantic_profile

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

GUARDED = [
    b"try:\n    import fast\nexcept ImportError:\n    fast = None\n",
    b"try:\n    from pkg import speed as s\nexcept (ImportError, ValueError):\n    s = None\n",
    b"try:\n    import fast\nexcept ImportError as error:\n    raise SystemExit(error)\n",
    b"try:\n    import fast\nexcept ImportError:\n    if strict:\n        raise\n    fast = None\n",
    b"try:\n    import fast\nexcept ImportError:\n    def later():\n        raise RuntimeError\n",
    b"try:\n    import fast\nexcept:\n    pass\n",
    b"try:\n    import fast\nexcept Exception:\n    pass\nelse:\n    import slow\n",
    b"import importlib.util\nif importlib.util.find_spec('fast'):\n    import fast\n",
    b"if importlib.util.find_spec('fast') is None:\n    import slow\n",
    b"def f():\n    try:\n        import fast\n    except ImportError:\n        return None\n    return fast\n",
    b"class C:\n    try:\n        from fast import go\n    except ModuleNotFoundError:\n        go = None\n",
    b"import os\ntry:\n    x = 1\nexcept ImportError:\n    pass\n",
    b"import os\nraise SystemExit\n",
    b"import os\n\n\ndef alpha(x):\n    return x + 1\n",
    b"x = 1\n",
]


def _forget() -> None:
    for name in ("_query", "_pattern_texts", "guards_query", "_guard_roots"):
        cached = getattr(symbols, name, None)   # (so the compile tests run against the code before it too)
        if cached is not None:
            cached.cache_clear()


def _combined_spans(profile, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    """The guarded spans as they were read when the guards rode along in the extraction's query."""
    guards = symbols._Guards(profile.deferred)
    combined = tree_sitter.Query(profile.language, symbols._query_text(profile))
    for _, captures in tree_sitter.QueryCursor(combined).matches(tree.root_node):
        guards.add(captures)
    return sorted(guards.spans())


def _sources() -> list[bytes]:
    found = list(GUARDED)
    for path in sorted(FIXTURES.rglob("*.py")):
        data = path.read_bytes()
        if len(data) < 200_000:
            found.append(data)
    return found


def test_the_guards_query_finds_what_the_combined_query_found() -> None:
    profile = semantic_profile("m.py")
    compared = 0
    for data in _sources():
        tree = profile.parse(data)
        assert sorted(symbols.guarded_ranges(profile, tree)) == _combined_spans(profile, tree), data[:200]
        compared += 1
    assert compared > len(GUARDED)


def test_an_extraction_reads_the_same_symbols_with_the_guards_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the guards where no import stands inside one of their roots changes no symbol:
    each source's extraction (whole, defining, imports only) equals the one that always runs them."""
    profile = semantic_profile("m.py")
    guarded_seen = skipped = 0
    for data in _sources():
        tree = profile.parse(data)
        if tree.root_node.has_error:
            continue
        asked = [symbols._may_be_guarded(profile, [{"n": node}]) for node in _import_nodes(profile, tree)]
        skipped += not any(asked)
        on_demand = [symbols.extract(profile, data, tree, uses=uses, imports_only=only)
                     for uses, only in ((True, False), (False, False), (False, True))]
        with monkeypatch.context() as forced:
            forced.setattr(symbols, "_may_be_guarded", lambda profile, imports: True)
            always = [symbols.extract(profile, data, tree, uses=uses, imports_only=only)
                      for uses, only in ((True, False), (False, False), (False, True))]
        assert [_plain(s) for s in on_demand] == [_plain(s) for s in always], data[:200]
        guarded_seen += any(_plain(s)["bound"] != _plain(s)["imports"] for s in on_demand)
    assert skipped > 0 and guarded_seen > 0


def _import_nodes(profile, tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    query = symbols.query_for(profile, False, True)
    return [nodes[0] for _, captures in tree_sitter.QueryCursor(query).matches(tree.root_node)
            for key, nodes in captures.items() if key.startswith("import.")]


def _plain(found: symbols.Symbols) -> dict[str, object]:
    # Scopes are node ids of one parse: the same tree for both, so they compare as they are.
    plain = dataclasses.asdict(found)
    plain["bound"] = {container: sorted(names) for container, names in found.bound.items()}
    plain["imports"] = sorted(i.bound for i in found.imports)
    return plain


def test_a_guarded_import_is_no_import_and_a_raising_handler_takes_the_guard_back() -> None:
    profile = semantic_profile("m.py")
    expected = {GUARDED[0]: [], GUARDED[2]: ["fast"], GUARDED[3]: ["fast"], GUARDED[4]: [], GUARDED[7]: [],
                GUARDED[8]: ["slow"], GUARDED[9]: [], GUARDED[13]: ["os"]}
    for data, imports in expected.items():
        found = symbols.extract(profile, data, uses=False)
        assert [i.bound for i in found.imports if i.bound != "importlib.util"] == imports, data


def _compiled_in_a_check(monkeypatch: pytest.MonkeyPatch, base: bytes, left: bytes, right: bytes) -> list[str]:
    _forget()
    compiled: list[str] = []
    real = symbols._compile
    monkeypatch.setattr(symbols, "_compile", lambda profile, text: compiled.append(text) or real(profile, text))
    check_file(base, left, right, left, "m.py")
    monkeypatch.undo()
    _forget()
    return compiled


BASE = b"import os\n\n\ndef alpha(x):\n    return x + 1\n\n\ndef beta(x):\n    return x * 2\n\n\ndef gamma(x):\n    return x - 3\n"


def test_a_merge_of_a_file_whose_imports_stand_outside_any_guard_compiles_no_guard_pattern(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape of scripts/bench_startup.py's `merge-file .py`: one side edits a line the other
    side's new line shares a word with, so the check parses the base and compiles its defining
    query; that query no longer holds the guards, and nothing asks for them."""
    compiled = _compiled_in_a_check(monkeypatch, BASE, BASE.replace(b"x + 1", b"x + 10"),
                                    BASE.replace(b"x - 3", b"x - 30"))
    assert compiled, "the check compiled no query: the merge no longer exercises the extraction"
    assert not any("@guarded" in text or "@raises" in text for text in compiled), compiled


def test_a_merge_of_a_file_with_a_guarded_import_still_reads_the_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    base = b"try:\n    import fast\nexcept ImportError:\n    fast = None\n\n\ndef alpha(x):\n    return x + 1\n"
    compiled = _compiled_in_a_check(monkeypatch, base, base.replace(b"x + 1", b"x + 10"),
                                    base.replace(b"return x + 1", b"return x + 1\n\n\ndef beta(x):\n    return x"))
    assert any("@guarded" in text for text in compiled), compiled


@pytest.mark.parametrize(("guards", "roots"), [
    ("(try_statement body: (block) @guarded) (raise_statement) @raises", {"try_statement", "raise_statement"}),
    ("; a comment (with_statement)\n(if_statement consequence: (block) @guarded (#match? @guarded \"(x\"))",
     {"if_statement"}),
    ("(try_statement) @a\n[(if_statement) (while_statement)] @guarded", None),     # an alternation at the top
    ("(_ (block) @guarded)", None),                                                  # a wildcard root
    ("((try_statement) @guarded (#eq? @guarded \"x\"))", None),                     # a group
    ("(expression) @guarded", None),                                                 # a supertype
    ("(no_such_node) @guarded", None),
])
def test_the_guards_roots_are_read_from_the_query_text(guards: str, roots: set[str] | None) -> None:
    profile = semantic_profile("m.py")
    changed = dataclasses.replace(profile, semantic=dataclasses.replace(profile.semantic, guards=guards))
    found = symbols._guard_roots(changed)
    assert (None if found is None else set(found)) == roots


@pytest.mark.parametrize("source", [b"x = 1\n", b"from .pkg import mod\nimport os\n\n\ndef f():\n    return os\n"],
                         ids=["no-import", "imports-outside-any-guard"])
def test_module_specifiers_compiles_no_guard_where_no_import_may_be_guarded(source: bytes) -> None:
    """The look at a task's own imports (check/own_imports.py) reads every file a task adds or edits:
    a file with no import, or none under a `try`/`if`, compiles no guard pattern there either."""
    profile = semantic_profile("pkg/m.py")
    _forget()
    found = symbols.module_specifiers(profile, source)
    assert symbols.guards_query.cache_info().currsize == 0, "the guards were compiled"
    assert found == ([] if source == b"x = 1\n" else [(".pkg", 1, ""), (".pkg.mod", 1, "mod"), ("os", 2, "")])


def test_module_specifiers_leave_out_guarded_imports_as_before() -> None:
    profile = semantic_profile("pkg/m.py")
    for source in GUARDED:
        _forget()
        tree = profile.parse(source)
        every = [s for _, captures in tree_sitter.QueryCursor(symbols.specifiers_query(profile)).matches(tree.root_node)
                 for s in captures.get("module", [])]
        spans = symbols.guarded_ranges(profile, tree)
        kept = sorted({(n.start_byte, n.text.decode()) for n in every
                       if not any(start <= n.start_byte and n.end_byte <= end for start, end in spans)})
        assert [module for module, _, member in symbols.module_specifiers(profile, source) if not member] == \
            [text for _, text in kept], source
