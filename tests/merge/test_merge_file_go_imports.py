"""`wtc merge-file` on a Go file reads no go.mod: an import path names no file by its last part.

A one-file merge (the command, a git merge driver) sees one file and no manifest, so which module
an import path is, and which folder it names, is unknown. Matched by its last part, an external
test package's `import "example.com/m/foo"` in foo/foo_test.go was the file itself: `foo.Helper()`
added on one side was taken for a use of the test file's own `Helper`, which the other side renamed,
and the clean merge was reported as a semantic conflict. Now nothing is said of such a path; a
name of the file's own package (a bare call) is still checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BASE = """package foo_test

import (
\t"testing"

\t"example.com/m/foo"
)

func Helper() int {
\treturn 1
}

func TestA(t *testing.T) {
\t_ = Helper() + foo.Value()
}
"""
LEFT = BASE.replace("Helper", "Helper2")


def _merge_file(tmp_path: Path, right: str) -> dict:
    for name, text in (("base.go", BASE), ("left.go", LEFT), ("right.go", right)):
        (tmp_path / name).write_text(text)
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "merge-file", "base.go", "left.go", "right.go",
                           "--path", "foo/foo_test.go", "--json"], cwd=tmp_path, capture_output=True, text=True)
    body = json.loads(done.stdout)
    assert done.returncode == body["exit_code"], done.stderr
    return body


def test_a_member_of_the_imported_package_is_not_the_files_own_renamed_name(tmp_path: Path) -> None:
    body = _merge_file(tmp_path, BASE + "\nfunc TestB(t *testing.T) {\n\t_ = foo.Helper()\n}\n")
    assert body["exit_code"] == 0 and body["clean"] is True and body["conflicts"] == [], body


def test_a_bare_use_of_the_files_own_renamed_name_is_still_a_conflict(tmp_path: Path) -> None:
    body = _merge_file(tmp_path, BASE + "\nfunc TestB(t *testing.T) {\n\t_ = Helper()\n}\n")
    assert body["exit_code"] == 1 and [(c["kind"], c["semantic"]["name"]) for c in body["conflicts"]] == \
        [("semantic", "Helper")], body
