"""An empty base is a file with no members: both sides filling it merge like inserts anywhere.

Two tasks each writing functions (keys, exports) into one tracked empty file conflicted as a whole
("both sides added this file, each its own way"), while one docstring line in the base made the same
change merge. The base's container is empty, so each side's members are insertions at one place,
settled by the profile's rules as in a base that held members: both kept where members commute, one
declaration written two ways a conflict of its own. A base of blank lines is empty too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from worktree_coord.merge import merge_file

WTC = str(Path(sys.executable).parent / "wtc")
EMPTY_BASES = [b"", b"\n", b"  \n\n"]

# path, left, right, the merge of both into an empty file
CASES = {
    "pkg/mod.py": (b"def a():\n    return 1\n", b"def b():\n    return 2\n",
                   b"def a():\n    return 1\ndef b():\n    return 2\n"),
    "pkg/imports.py": (b"import os\n\n\ndef a():\n    return os.sep\n",
                       b"import os\nimport re\n\n\ndef b():\n    return re.escape('x')\n",
                       b"import os\n\n\ndef a():\n    return os.sep\n\n\nimport re\n\n\ndef b():\n    return re.escape('x')\n"),
    "src/extra.ts": (b"export const A = 1;\n", b"export function b(): number {\n  return 2;\n}\n",
                     b"export const A = 1;\nexport function b(): number {\n  return 2;\n}\n"),
    "src/extra.js": (b"export const A = 1;\n", b"export const B = 2;\n", b"export const A = 1;\nexport const B = 2;\n"),
    "src/extra.rs": (b"pub fn a() -> i32 {\n    1\n}\n", b"pub fn b() -> i32 {\n    2\n}\n",
                     b"pub fn a() -> i32 {\n    1\n}\npub fn b() -> i32 {\n    2\n}\n"),
    "conf/settings.json": (b'{\n  "a": 1\n}\n', b'{\n  "b": 2\n}\n', b'{\n  "a": 1,\n  "b": 2\n}\n'),
    "conf/settings.yaml": (b"a: 1\n", b"b: 2\n", b"a: 1\nb: 2\n"),
    "conf/settings.toml": (b"a = 1\n", b"b = 2\n", b"a = 1\nb = 2\n"),
}


@pytest.mark.parametrize("base", EMPTY_BASES, ids=["empty", "newline", "blank-lines"])
@pytest.mark.parametrize("path", sorted(CASES))
def test_both_sides_filling_an_empty_file_keep_both(path: str, base: bytes) -> None:
    left, right, both = CASES[path]
    result = merge_file(base, left, right, path)
    assert result.clean, (result.notes, result.merged)
    assert result.merged == both


def test_it_merges_as_a_base_holding_one_docstring_does() -> None:
    left, right, both = CASES["pkg/mod.py"]
    doc = b'"""Helpers."""\n'
    assert merge_file(doc, doc + left, doc + right, "pkg/mod.py").merged == doc + both
    assert merge_file(b"", left, right, "pkg/mod.py").merged == both


def test_one_side_runs_show_the_separator_layout_for_the_other() -> None:
    # An empty list both sides filled: the second run is not glued to the first ("a", "c","b").
    result = merge_file(b"__all__ = []\n", b'__all__ = ["a", "c"]\n', b'__all__ = ["b"]\n', "pkg/__init__.py")
    assert result.clean and result.merged == b'__all__ = ["a", "c", "b"]\n'


def test_an_empty_object_both_sides_filled_keeps_both_keys() -> None:
    base = b'{\n  "dependencies": {},\n  "name": "x"\n}\n'
    left = base.replace(b"{},", b'{\n    "a": "^1.0.0"\n  },')
    right = base.replace(b"{},", b'{\n    "b": "^2.0.0"\n  },')
    result = merge_file(base, left, right, "package.json")
    assert result.clean
    assert result.merged == base.replace(b"{},", b'{\n    "a": "^1.0.0",\n    "b": "^2.0.0"\n  },')


def test_the_same_rules_keep_a_declaration_written_two_ways_a_conflict() -> None:
    result = merge_file(b"", b"def a():\n    return 1\n", b"def a():\n    return 2\n\n\ndef b():\n    return 3\n",
                        "pkg/mod.py")
    assert not result.clean
    assert [(c.declaration, c.kind) for c in result.conflicts] == [("def a", "insert_insert")]
    assert result.merged.endswith(b">>>>>>> theirs\n\n\ndef b():\n    return 3\n")


@pytest.mark.parametrize("path", ["pkg/mod.py", "src/extra.ts", "conf/settings.json"])
def test_merge_file_on_an_empty_base_exits_0_with_both(tmp_path: Path, path: str) -> None:
    left, right, both = CASES[path]
    suffix = Path(path).suffix
    files = []
    for name, data in (("base", b""), ("left", left), ("right", right)):
        (tmp_path / f"{name}{suffix}").write_bytes(data)
        files.append(str(tmp_path / f"{name}{suffix}"))
    done = subprocess.run([WTC, "merge-file", *files], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == both
