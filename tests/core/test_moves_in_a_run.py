"""A file one task moves, in the rest of the run: the report and another task's boundary.

Found driving wtc on spf13/cobra: a task moved `doc/util.go` to `internal/docutil/util.go` (a new
package, its helpers exported) while another task, owning `/doc/util.go`, changed a line of
`forceMultiLine` next to the header the move renamed. The second task's finish conflicted (the
merge followed the move, as git's does), `task update` put the markers in the moved file, the
agent resolved them there, and the finish rejected its own resolution as `outside_own`: the task
had done what wtc asked. And `wtc report` listed the move as `deleted doc/util.go` and `added
internal/docutil/util.go`, two unrelated rows to a reviewer.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import git, make_repo, write
from worktree_coord.coordinator import Coordinator
from worktree_coord.output.render import run_report

UTIL = """package doc

import "strings"

// Temporary workaround for long strings.
func forceMultiLine(s string) string {
\tif len(s) > 60 && !strings.Contains(s, "\\n") {
\t\ts = s + "\\n"
\t}
\treturn s
}

func hasSeeAlso(n int) bool {
\treturn n > 0
}

type byName []string

func (s byName) Len() int           { return len(s) }
func (s byName) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s byName) Less(i, j int) bool { return s[i] < s[j] }
"""
MOVED = (UTIL.replace("package doc", "package docutil").replace("func forceMultiLine", "func ForceMultiLine")
         .replace("// Temporary workaround", "// ForceMultiLine is a temporary workaround")
         .replace("func hasSeeAlso", "func HasSeeAlso"))
DOCS = """package doc

func Gen(s string) string {
\treturn forceMultiLine(s)
}
"""
MOVED_DOCS = DOCS.replace("package doc\n", 'package doc\n\nimport "example.com/m/internal/docutil"\n') \
    .replace("forceMultiLine(", "docutil.ForceMultiLine(")
FILES = {"go.mod": "module example.com/m\n\ngo 1.21\n", "doc/util.go": UTIL, "doc/docs.go": DOCS}


def _move(coord: Coordinator) -> None:
    """Task `move` moves doc/util.go into internal/docutil and updates its caller."""
    tree = Path(coord.start_task("r", "move", ["/doc/**", "/internal/**"]).worktree)
    (tree / "internal/docutil").mkdir(parents=True)
    git(tree, "mv", "doc/util.go", "internal/docutil/util.go")
    write(tree, {"internal/docutil/util.go": MOVED, "doc/docs.go": MOVED_DOCS})
    assert coord.finish_task("r", "move", message="move doc's helpers to internal/docutil").state == "merged"


def test_the_report_names_a_moved_file_once_as_moved_from_its_old_path(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        _move(coord)
        report = coord.report("r", onto="main")
    rows = {row["path"]: row for row in report.files}
    assert "doc/util.go" not in rows   # not a deletion of its own
    moved = rows["internal/docutil/util.go"]
    assert (moved["status"], moved["from"], moved["task"]) == ("moved", "doc/util.go", "move")
    assert rows["doc/docs.go"]["status"] == "modified" and "from" not in rows["doc/docs.go"]
    assert report.to_json()["files"] == report.files
    text = run_report(report)
    assert re.search(r"^ +moved +doc/util\.go -> internal/docutil/util\.go +\(task move\)$", text, re.M), text
    assert "deleted" not in text and "added" not in text


def test_a_task_whose_owned_file_the_run_moved_finishes_its_resolution_in_the_new_place(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        edit = Path(coord.start_task("r", "edit", ["/doc/util.go"]).worktree)
        write(edit, {"doc/util.go": UTIL.replace("len(s) > 60", "len(s) > 72")})
        _move(coord)
        first = coord.finish_task("r", "edit", message="wrap at 72")
        assert first.state == "conflict" and first.conflicts[0]["path"] == "internal/docutil/util.go"
        updated = coord.update_task("r", "edit")
        assert updated.conflicted_paths == ["internal/docutil/util.go"]
        resolved = re.sub(r"<<<<<<< task edit\n.*?>>>>>>> integration r\n",
                          'func ForceMultiLine(s string) string {\n\tif len(s) > 72 && !strings.Contains(s, "\\n") {\n',
                          (edit / "internal/docutil/util.go").read_text(), flags=re.S)
        write(edit, {"internal/docutil/util.go": resolved})
        checked = coord.check_task("r", "edit")
        assert checked.exit_code == 0 and not checked.violations, checked.to_json()
        done = coord.finish_task("r", "edit")
        assert done.state == "merged" and not done.violations, done.to_json()
        assert any("internal/docutil/util.go: owned as doc/util.go, which the run moved there" in n for n in done.notes)
        landed = git(repo, "show", "wtc/r/integration:internal/docutil/util.go")
        assert "func ForceMultiLine" in landed and "len(s) > 72" in landed
        # The move is followed, not the boundary widened: a file the run did not move stays outside.
        other = Path(coord.start_task("r", "edit2", ["/doc/util.go"]).worktree)
        write(other, {"doc/docs.go": MOVED_DOCS + "\n// more\n"})
        assert coord.finish_task("r", "edit2").state == "rejected"
