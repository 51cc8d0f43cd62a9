"""`wtc task check`'s text: the left-behind rows worded as finish words them."""

from __future__ import annotations

from worktree_coord.output.render import task_check
from worktree_coord.results import TaskCheck


def _row(path: str, lines: list[int]) -> dict:
    return {"use_path": path, "use_lines": lines, "name": "isObject", "definition_path": "src/utils.ts",
            "replacement": "isPlainObject", "note": f"{path}: one note per file"}


def test_one_name_several_files_still_use_is_one_line_with_one_widen_command() -> None:
    check = TaskCheck(run="t4", task="ren", state="started", clean=True,
                      left_behind=[_row("src/a.ts", [30, 31]), _row("src/b.ts", [50]),
                                   {"note": "uses of removed names were not looked for: too many"}])
    lines = [line for line in task_check(check).splitlines() if line.startswith("  left behind:")]
    assert lines == [
        "  left behind: uses of removed names were not looked for: too many",
        "  left behind: src/a.ts (lines 30, 31), src/b.ts:50 still use isObject, which this task removed or renamed "
        "(to isPlainObject, it seems) in src/utils.ts; those files are outside the task's changes, so the landed "
        "tree would not resolve them: keep the old name too (an alias), or the lead widens the task (`wtc task widen "
        "ren --run t4 --own '/src/a.ts' --own '/src/b.ts' --why '...'`) and it updates the uses"]
