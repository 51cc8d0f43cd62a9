"""symbols.extract(imports_only=True), what the check reads of a file it asks only what it imports
(semantic._Check.imports), holds the same imports as a whole extraction, in every language
profile the fixtures have files of: scopes (an import inside a function), star re-exports, aliases."""

from __future__ import annotations

from pathlib import Path

from worktree_coord.merge.checks.semantic import semantic_profile
from worktree_coord.merge.checks import symbols
from worktree_coord.merge.checks.symbols import extract

ROOT = Path(__file__).resolve().parents[2] / "fixtures"


def test_imports_only_extraction_holds_the_imports_of_a_whole_one() -> None:
    seen: set[str] = set()
    compared = 0
    for path in sorted(ROOT.rglob("*")):
        profile = semantic_profile(path.name) if path.is_file() else None
        if profile is None:
            continue
        data = path.read_bytes()
        if len(data) > 200_000 or b"\x00" in data[:8000]:
            continue
        tree = profile.parse(data)
        if tree.root_node.has_error:
            continue
        whole, only = extract(profile, data, tree, uses=False), extract(profile, data, tree, imports_only=True)
        assert [(i.bound, i.module, i.name, i.line) for i in only.imports] == \
            [(i.bound, i.module, i.name, i.line) for i in whole.imports], path
        # Scopes are node ids of one parse: compared as "top level or not", and equal by position.
        assert [i.scope is None for i in only.imports] == [i.scope is None for i in whole.imports], path
        assert (only.wildcard, only.star_modules, only.star_spans) == \
            (whole.wildcard, whole.star_modules, whole.star_spans), path
        # The names the imports bind, bound where the whole extraction binds them.
        assert all(names <= whole.bound.get(container, set()) for container, names in only.bound.items()), path
        assert [d for d in whole.definitions if d.kind == "import"] == only.definitions, path
        compared += 1
        seen.add(profile.name)
    assert compared > 100 and {"python", "typescript", "go", "rust", "java"} <= seen, seen


def test_an_import_inside_a_function_keeps_its_scope() -> None:
    profile = semantic_profile("m.py")
    data = b"import os\nfrom .util import parse as p\n\ndef f():\n    import json\n    return json\n\nfrom x import *\n"
    tree = profile.parse(data)
    only = extract(profile, data, tree, imports_only=True)
    whole = extract(profile, data, tree, uses=False)
    assert [(i.bound, i.scope) for i in only.imports] == [(i.bound, i.scope) for i in whole.imports]
    assert [i.bound for i in only.imports if i.scope is not None] == ["json"]
    assert only.wildcard and only.star_modules == whole.star_modules == ["x"]


def _forget_queries() -> None:
    for cached in (symbols._query, symbols._import_places):
        cached.cache_clear()
    symbols._IMPORTS_COMPILED.clear()


def test_the_defining_query_answers_whether_a_file_imports_as_the_imports_query_does() -> None:
    """An imports-only extraction asks the defining query's import patterns in a process that did not compile
    the imports-only query: the same answer for every fixture file of every language, importing
    or not (guarded imports included)."""
    answers: dict[bool, int] = {True: 0, False: 0}
    seen: set[str] = set()
    snippets = {"m.py": [b"x = 1\n", b"try:\n    import gone\nexcept ImportError:\n    gone = None\n",
                         b"def f():\n    import json\n    return json\n"],
                "m.ts": [b"export const x = 1;\n", b"import { a } from './a';\n"],
                "m.go": [b"package m\n\nfunc F() {}\n"], "m.rs": [b"fn f() {}\n"], "M.java": [b"class M {}\n"]}
    sources = [(path.name, path.read_bytes()) for path in sorted(ROOT.rglob("*")) if path.is_file()]
    sources += [(name, text) for name, texts in snippets.items() for text in texts]
    for name, data in sources:
        profile = semantic_profile(name)
        if profile is None or len(data) > 200_000 or b"\x00" in data[:8000]:
            continue
        tree = profile.parse(data)
        assert symbols._import_places(profile) is not None, profile.name   # one pattern per defining text
        by_defining = symbols._no_import_matches(profile, tree, by_defining=True)
        assert by_defining == symbols._no_import_matches(profile, tree, by_defining=False), name
        answers[by_defining] += 1
        seen.add(profile.name)
    assert answers[True] > 10 and answers[False] > 100, answers
    assert {"python", "typescript", "go", "rust", "java"} <= seen, seen


def test_an_imports_only_extraction_compiles_one_query() -> None:
    """A CLI finish extracts a file's imports (the post-merge check) and its definitions (what it
    removed): the defining query serves both; the imports-only query was a second compile
    (~10 ms of Python's). A process that compiled it (`wtc serve`'s preload) still uses it."""
    profile = semantic_profile("m.py")
    data = b"import os\nfrom .util import parse\n\ndef f():\n    return parse(os.sep)\n"
    symbols._pattern_texts(profile)       # the patterns' bounds, kept on disk by an earlier process
    _forget_queries()
    only = extract(profile, data, imports_only=True)
    assert [i.bound for i in only.imports] == ["os", "parse"]
    assert symbols._query.cache_info().currsize == 1
    extract(profile, data, uses=False)
    assert symbols._query.cache_info().currsize == 1
    _forget_queries()
    symbols.compile_queries(profile)
    assert profile in symbols._IMPORTS_COMPILED
    assert [i.bound for i in extract(profile, data, imports_only=True).imports] == ["os", "parse"]


def test_an_imports_only_extraction_runs_the_defining_query_once(monkeypatch) -> None:
    """Where the defining query answers whether a file imports (no imports-only query compiled),
    the extraction reads the same matches: a file that imports, most of a real run's, ran the
    query twice (to ask, then to extract). The imports are those of a whole extraction."""
    import tree_sitter

    profile = semantic_profile("m.py")
    data = b"import os\nfrom .util import parse as p\n\ndef f():\n    import json\n    return json\n"
    tree = profile.parse(data)
    _forget_queries()
    real = tree_sitter.QueryCursor
    runs: list[int] = []

    class Counting:
        def __init__(self, query: tree_sitter.Query) -> None:
            self._cursor = real(query)

        def matches(self, node: tree_sitter.Node) -> list:
            runs.append(1)
            return self._cursor.matches(node)

    monkeypatch.setattr(tree_sitter, "QueryCursor", Counting)
    only = extract(profile, data, tree, imports_only=True)
    assert len(runs) == 1
    assert extract(profile, b"x = 1\n", imports_only=True).imports == []
    assert len(runs) == 2
    monkeypatch.setattr(tree_sitter, "QueryCursor", real)
    whole = extract(profile, data, tree, uses=False)
    assert [(i.bound, i.module, i.name, i.line, i.scope is None) for i in only.imports] == \
        [(i.bound, i.module, i.name, i.line, i.scope is None) for i in whole.imports] != []
