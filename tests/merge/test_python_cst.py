"""The libcst stage for Python (python_cst.py) and the blank lines of chained insertions.

End to end through `merge_file` where the cascade decides, and on the stage's functions where a
refinement must decline (precision beats reach).
"""

from __future__ import annotations

import ast

import libcst
from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.merge import Strategy, merge_file
from worktree_coord.merge.languages.python_cst import accepts, combine_from_imports

TAIL = "\n\ndef main():\n    return 0\n"


def _merge(base: str, left: str, right: str):  # type: ignore[no-untyped-def]
    return merge_file(base.encode(), left.encode(), right.encode(), "pkg/mod.py")


def test_new_from_imports_of_one_module_become_one_statement_without_duplicates() -> None:
    result = _merge("import os\n" + TAIL, "import os\nfrom m import a, b\n" + TAIL, "import os\nfrom m import a, c\n" + TAIL)
    assert result.clean and result.strategy is Strategy.PYTHON
    assert result.merged.decode() == "import os\nfrom m import a, b, c\n" + TAIL
    libcst.parse_module(result.merged)


def test_aliases_are_kept_and_unsorted_lists_keep_first_seen_order() -> None:
    result = _merge("import os\n" + TAIL, "import os\nfrom m import z as zed, y\n" + TAIL,
                    "import os\nfrom m import x as ex\n" + TAIL)
    assert result.clean
    assert result.merged.decode() == "import os\nfrom m import z as zed, y, x as ex\n" + TAIL


def test_names_added_by_both_sides_to_different_lines_are_combined_after_a_clean_line_merge() -> None:
    base = "import os\nimport sys\n" + TAIL
    result = _merge(base, "from m import b\nimport os\nimport sys\n" + TAIL, "import os\nimport sys\nfrom m import a\n" + TAIL)
    assert result.clean and result.strategy is Strategy.PYTHON
    assert result.merged.decode().count("from m import") == 1
    assert "from m import b, a\n" in result.merged.decode() or "from m import a, b\n" in result.merged.decode()


def test_a_file_that_already_imports_from_one_module_twice_is_left_alone() -> None:
    base = "from m import a\nfrom m import b\n" + TAIL
    merged = "from m import a\nfrom m import b\nfrom m import c\n" + TAIL
    assert combine_from_imports(base.encode(), base.encode(), merged.encode(), merged.encode()) is None


def test_a_commented_import_is_never_rewritten() -> None:
    merged = b"import os\nfrom m import b  # noqa\nfrom m import a\n"
    assert combine_from_imports(b"import os\n", b"import os\nfrom m import b  # noqa\n", b"import os\nfrom m import a\n",
                                merged) is None


def test_resort_on_one_side_and_an_addition_on_the_other_give_the_sorted_union() -> None:
    base = "import sys\nimport os\n" + TAIL
    result = _merge(base, "import os\nimport sys\n" + TAIL, "import sys\nimport os\nimport json\n" + TAIL)
    # The structured merge takes it first since issue 13 round 5 (a move next to the other side's
    # insertion, kept sorted as the moving side sorted it); the import union gave the same text.
    assert result.clean and result.strategy in (Strategy.PYTHON, Strategy.STRUCTURED)
    assert result.merged.decode() == "import json\nimport os\nimport sys\n" + TAIL


def test_an_import_removed_by_one_side_stays_removed_in_the_union() -> None:
    base = "import sys\nimport os\nimport re\n" + TAIL
    result = _merge(base, "import os\nimport sys\n" + TAIL, "import sys\nimport os\nimport re\nimport json\n" + TAIL)
    assert result.clean
    text = result.merged.decode()
    assert "import re\n" not in text and "import json\n" in text and "import os\n" in text and "import sys\n" in text


def test_a_conflict_holding_code_is_not_touched_by_the_import_union() -> None:
    base = "import os\n\nX = 1\n"
    result = _merge(base, "import os\n\nX = 2\n", "import os\n\nX = 3\n")
    assert not result.clean
    assert result.strategy is not Strategy.PYTHON
    assert b"<<<<<<<" in result.merged


def test_crlf_is_kept_when_imports_are_combined() -> None:
    base = "import os\r\n\r\n\r\ndef a():\r\n    pass\r\n"
    result = merge_file(base.encode(), base.replace("import os\r\n", "import os\r\nfrom m import b\r\n").encode(),
                        base.replace("import os\r\n", "import os\r\nfrom m import a\r\n").encode(), "x.py")
    assert result.clean
    assert b"from m import b, a\r\n" in result.merged
    assert result.merged.count(b"\n") == result.merged.count(b"\r\n")


def test_the_strict_python_check_is_the_interpreters_own_parser() -> None:
    """validate.py's `ast` refuses a result the inputs' grammar does not take; accepts() asks only
    what `ast` cannot (the kind of `__all__`), without a second parser."""
    from worktree_coord.merge.languages import validate

    good = b"x = 1\n"
    assert validate.accepts("python", (good, good, good), good)
    assert not validate.accepts("python", (good, good, good), b"def f(:\n")
    # an input the parser refuses itself: no opinion
    assert validate.accepts("python", (b"def f(:\n", good, good), b"def f(:\n")
    assert accepts((good, good, good), good)


def test_functions_both_sides_insert_before_a_successor_keep_pep8_spacing() -> None:
    base = "def a():\n    pass\n\n\nif __name__ == '__main__':\n    a()\n"
    left = base.replace("\nif", "\ndef b():\n    pass\n\n\nif")
    right = base.replace("\nif", "\ndef c():\n    pass\n\n\nif")
    result = _merge(base, left, right)
    assert result.clean
    assert result.merged.decode() == ("def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n\n\n"
                                      "if __name__ == '__main__':\n    a()\n")


def test_one_insertion_split_between_sides_keeps_its_blank_lines() -> None:
    """What a line concatenation of the two insertions gives: left's lines, then right's."""
    base = "X = 1\n\n\nif True:\n    pass\n"
    left = "X = 1\n\n\nY = 2\nif True:\n    pass\n"
    right = "X = 1\n\n\n\n\ndef f():\n    return Y\n\n\nif True:\n    pass\n"
    result = _merge(base, left, right)
    assert result.clean
    assert result.merged.decode() == "X = 1\n\n\nY = 2\n\n\ndef f():\n    return Y\n\n\nif True:\n    pass\n"
    ast.parse(result.merged)


NAMES = ["alpha", "beta", "gamma", "delta", "Epsilon", "ZETA", "eta"]


@settings(max_examples=40, deadline=None)
@given(base_names=st.lists(st.sampled_from(NAMES), unique=True, max_size=2),
       left_new=st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3),
       right_new=st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3),
       module=st.sampled_from(["m", "pkg.sub", ".rel"]))
def test_import_merges_bind_exactly_the_union_and_parse(base_names, left_new, right_new, module) -> None:  # type: ignore[no-untyped-def]
    def version(names: list[str]) -> str:
        line = f"from {module} import {', '.join(names)}\n" if names else ""
        return "import os\n" + line + TAIL
    left = base_names + [n for n in left_new if n not in base_names]
    right = base_names + [n for n in right_new if n not in base_names]
    result = _merge(version(base_names), version(left), version(right))
    if not result.clean:
        return  # a reported conflict is allowed; a wrong clean merge is not
    tree = ast.parse(result.merged)
    libcst.parse_module(result.merged)
    bound = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert bound == set(left) | set(right)
    names = [alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names]
    assert len(names) == len(set(names)), "a name imported twice"


def test_a_merged_all_that_stops_being_a_tuple_is_refused() -> None:
    inputs = (b'__all__ = ("a",)\n', b'__all__ = ("a", "b")\n', b"__all__ = ()\n")
    assert not accepts(inputs, b'__all__ = ("b")\n')
    assert accepts(inputs, b'__all__ = ("b",)\n')


def test_tuple_all_additions_on_both_sides_union() -> None:
    result = _merge('__all__ = ("a",)\n' + TAIL, '__all__ = ("a", "b")\n' + TAIL, '__all__ = ("a", "c")\n' + TAIL)
    assert result.clean
    assert result.merged.decode().startswith('__all__ = ("a", "b", "c")\n')


def test_import_union_declines_in_a_block_that_follows_no_order() -> None:
    from worktree_coord.merge.languages.python_cst import _union_imports
    base = ["import zlib", "import abc", "import os"]
    assert _union_imports(base, base + ["import json"], base + ["import re"]) is None
    # a single statement on ours' side is no evidence of any order: theirs' addition follows it
    assert _union_imports([], ["import os"], ["import re"]) == ["import os", "import re"]


def test_import_union_knows_the_case_blind_isort_order() -> None:
    from worktree_coord.merge.languages.python_cst import _union_imports
    base = ["from typing import Type", "from typing import TYPE_CHECKING", "from typing import Union"]
    merged = _union_imports(base, base, base + ["from typing import TypeVar"])
    assert merged == ["from typing import Type", "from typing import TYPE_CHECKING", "from typing import TypeVar",
                      "from typing import Union"]


def test_import_union_takes_the_order_theirs_block_also_follows() -> None:
    from worktree_coord.merge.languages.python_cst import _union_imports
    # Ours' block holds from-imports only: isort's default and force_sort_within_sections both fit.
    # Theirs put `import pytest` after them, which only force_sort_within_sections does.
    base = ["from _pytest.config import Config", "from _pytest.terminal import TerminalReporter"]
    ours = ["from _pytest.config import Config", "from _pytest.config import ExitCode",
            "from _pytest.terminal import TerminalReporter"]
    theirs = base + ["import pytest"]
    assert _union_imports(base, ours, theirs) == ours + ["import pytest"]
    # When theirs' block tells nothing and the fitting orders disagree, no guess is made.
    theirs_unsorted = ["import pytest", "from _pytest.terminal import TerminalReporter", "from _pytest.config import Config"]
    assert _union_imports(base, ours, theirs_unsorted) is None


TRICKY_IMPORTS = (
    b'"""Doc.\n\nfrom a import b\n"""\nfrom a import b\nfrom a import (c,\n    d)\nfrom . import e\nfrom .a import f as g\n'
    b"from ..x.y import *\nimport os.path as p, sys\nx = 1; from a import h\nfrom a import i;\n"
    b"if x:\n    from a import j\nfrom\\\n  a import k\n"
)


def test_the_ast_readings_of_from_imports_and_bindings_are_libcsts() -> None:
    """The quick gates read imports through `ast` and must see what libcst's readers see: a
    statement sharing its line, a star import, a docstring holding an import, a nested import, a
    backslash continuation, relative levels and aliases."""
    from worktree_coord.merge.languages.python_cst import _all_bindings, _ast_bindings, _ast_counts, _counts

    module = libcst.parse_module(TRICKY_IMPORTS)
    assert _ast_counts(TRICKY_IMPORTS) == _counts(module) == {(0, "a"): 4, (1, ""): 1, (1, "a"): 1}
    assert _ast_bindings(TRICKY_IMPORTS) == _all_bindings(module)
    assert _ast_counts(b"from a import (\n") is None and _ast_bindings(b"def f(:\n") is None


def test_a_duplicate_only_the_inputs_had_costs_no_libcst_parse_and_one_the_merge_made_is_combined() -> None:
    from worktree_coord.merge.languages import python_cst

    own = b"from a import b\nfrom a import c\n\n\nx = 1\n"
    left, right = own.replace(b"x = 1", b"x = 2"), own + b"\n\ny = 3\n"
    merged = own.replace(b"x = 1", b"x = 2") + b"\n\ny = 3\n"
    python_cst._parsed.cache_clear()
    assert combine_from_imports(own, left, right, merged) is None
    assert python_cst._parsed.cache_info().currsize == 0   # decided by the ast gate alone
    base = b"import os\n\n\nx = 1\n"
    left, right = base.replace(b"os\n", b"os\nfrom a import c\n"), base.replace(b"os\n", b"os\nfrom a import d\n")
    made = b"import os\nfrom a import c\nfrom a import d\n\n\nx = 1\n"
    assert b"from a import c, d\n" in combine_from_imports(base, left, right, made)  # type: ignore[operator]
