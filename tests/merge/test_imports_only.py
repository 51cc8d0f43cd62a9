"""symbols.extract(imports_only=True), what the check reads of a file it asks only what it imports
(semantic._Check.imports), holds the same imports as a whole extraction, in every language
profile the fixtures have files of: scopes (an import inside a function), star re-exports, aliases."""

from __future__ import annotations

from pathlib import Path

from worktree_coord.merge.checks.semantic import semantic_profile
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
        assert (only.wildcard, only.star_modules) == (whole.wildcard, whole.star_modules), path
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
