"""A file a task moves carries its relative imports along: each must still name a file from its new folder.

Found driving wtc on socket.io: a task moved packages/socket.io-adapter/lib/memory/in-memory-adapter.ts to
lib/a/b/ and left a stub `export * from "./a/b/in-memory-adapter"` at the old path; `wtc check` was clean,
yet the moved file's `import { yeast } from "../contrib/yeast"` now named lib/a/contrib/yeast, which does not
exist, and tsc failed. The use is in the task's own file, so every face names it as an import to fix
(`own_import`), not a boundary to widen: `task check` (exit 1), the finish's merge (a conflict),
`wtc check` (exit 1, `--json` fields). A specifier already broken at the pin, or a package's name, is not
named; nor is a move that keeps every relative import answering.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, wtc_in_process
from tests.core.test_uses_left_behind import _task_edited

LIB = "packages/socket.io-adapter/lib"
ADAPTER = ('import { yeast } from "../contrib/yeast";\nimport { EventEmitter } from "events";\n'
           'import { missing } from "./not-generated-yet";\n\n'
           'export class Adapter extends EventEmitter {\n  id(): string {\n    return yeast() + missing;\n  }\n}\n')
TS_FILES = {
    f"{LIB}/contrib/yeast.ts": "export function yeast(): string {\n  return 'y';\n}\n",
    f"{LIB}/memory/in-memory-adapter.ts": ADAPTER,
    f"{LIB}/index.ts": 'export { Adapter } from "./memory/in-memory-adapter";\n',
}
OLD, NEW = f"{LIB}/memory/in-memory-adapter.ts", f"{LIB}/a/b/in-memory-adapter.ts"
STUB = 'export * from "../a/b/in-memory-adapter";\n'

PY_FILES = {
    "pkg/__init__.py": "",
    "pkg/sibling.py": "def x():\n    return 1\n",
    "pkg/helpers/__init__.py": "",
    "pkg/helpers/y.py": "def y():\n    return 2\n",
    "pkg/core/__init__.py": "",
    "pkg/core/mod.py": "from ..sibling import x\nfrom ..helpers.y import y\nfrom .gone_long_ago import z\n\n\n"
                       "def both():\n    return x() + y()\n",
}


def _ts_branch(tmp_path: Path, stub: str = STUB, target: str = NEW) -> Path:
    """main holds the socket.io-shaped tree; the branch `feature` moves the adapter to `target` with `git
    mv` and leaves `stub` at the old path."""
    repo = make_repo(tmp_path / "repo", TS_FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / target).parent.mkdir(parents=True, exist_ok=True)
    git(repo, "mv", OLD, target)
    (repo / OLD).write_text(stub)
    commit_all(repo, "move the adapter")
    return repo


def test_wtc_check_names_a_moved_files_relative_import_that_names_nothing_now(tmp_path: Path) -> None:
    repo = _ts_branch(tmp_path)
    done = run_wtc(repo, "check", "--base", "main", "--head", "feature", "--own", f"{LIB}/**", "--target", "main")
    assert done.returncode == 1, done.stdout + done.stderr
    assert (f"{NEW}:1: error: left_behind: {NEW} (line 1) imports ../contrib/yeast, which named "
            f"{LIB}/contrib/yeast.ts from {OLD}, where the branch moved the file from, and names no file now") \
        in done.stdout, done.stdout
    assert f"fix the import in {NEW}" in done.stdout
    # The import already broken at the pin (a generated file) and the package's name are not the branch's doing.
    assert "not-generated-yet" not in done.stdout and '"events"' not in done.stdout
    body = json.loads(run_wtc(repo, "check", "--base", "main", "--head", "feature", "--own", f"{LIB}/**",
                              "--target", "main", "--json").stdout)
    assert body["exit_code"] == 1
    [use] = body["left_behind"]
    assert (use["use_path"], use["use_lines"], use["name"], use["definition_path"], use["own_import"],
            use["moved_from"]) == (NEW, [1], "../contrib/yeast", f"{LIB}/contrib/yeast.ts", True, OLD)


def test_a_move_that_keeps_each_relative_import_answering_is_clean(tmp_path: Path) -> None:
    # lib/memory -> lib/other: `../contrib/yeast` names lib/contrib/yeast.ts from there too.
    target = f"{LIB}/other/in-memory-adapter.ts"
    repo = _ts_branch(tmp_path, stub='export * from "../other/in-memory-adapter";\n', target=target)
    done = run_wtc(repo, "check", "--base", "main", "--head", "feature", "--own", f"{LIB}/**", "--target", "main")
    assert done.returncode == 0, done.stdout + done.stderr


def test_task_check_and_finish_name_a_moved_python_modules_relative_imports(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, PY_FILES, "mv", ("pkg/**",), {"pkg/core/mod.py": "from .deep.mod import *\n"},
                        {"pkg/core/mod.py": "pkg/core/deep/mod.py"})
    (repo.parent / "repo").exists()
    code, check = wtc_in_process(repo, "task", "check", "mv", "--run", "r1")
    assert code == 1, check
    rows = sorted((row["use_path"], tuple(row["use_lines"]), row["name"], row["definition_path"])
                  for row in check["left_behind"] if row.get("own_import"))
    assert rows == [("pkg/core/deep/mod.py", (1,), "..sibling", "pkg/sibling.py"),
                    ("pkg/core/deep/mod.py", (2,), "..helpers.y", "pkg/helpers/y.py")], check["left_behind"]
    note = next(row["note"] for row in check["left_behind"] if row.get("name") == "..sibling")
    assert "fix the import in pkg/core/deep/mod.py" in note and "widen" not in note, note
    code, body = wtc_in_process(repo, "task", "finish", "mv", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    messages = [c["semantic"]["message"] for c in body["conflicts"] if c.get("semantic")]
    assert any("pkg/core/deep/mod.py:1 imports ..sibling, which named pkg/sibling.py from pkg/core/mod.py" in m
               and "fix the import in pkg/core/deep/mod.py" in m for m in messages), messages
