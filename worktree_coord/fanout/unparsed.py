"""Before a fanout task's finish: the files its work leaves that no longer parse, so its agent
repairs them before they merge.

Stage: the driver's finish step, while the task has attempts left (driver.py). Input: the task's
worktree (what the agent committed and what it left uncommitted) and the version of each changed
file where the task last took in integration (the pin, unless `task update` merged integration in:
what `task finish` measures the task's own work from). Output: a `BrokenSyntax` per file whose new
version its language's grammar does not parse where the old one parsed or was absent
(merge/checks/syntax.py), and the repair report naming them.

Why: `task finish` only notes such a file (a note, never a block), and the merge and its checks read
it as nothing, so it merged and the integrated tree did not load (found on pydata/xarray: a stray
line in xarray/core/dtypes.py). Caught here, before the finish, it is repaired like a failed
verification, with the note as the report, up to `attempts`; the last attempt finishes as it is and
merges with the note, which the summary names for the lead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..coordinator import Coordinator
    from ..merge.checks.syntax import BrokenSyntax


def unparsed_in_worktree(c: "Coordinator", run_id: str, task_id: str) -> str:
    """The repair report of the files of the task's work that do not parse where their version
    before the task did; "" when none does, without a worktree, or when no changed file is one a
    grammar reads."""
    run, task = c.store.get_run(run_id), c.store.get_task(run_id, task_id)
    if run is None or task is None or not task.worktree or not Path(task.worktree).is_dir():
        return ""
    worktree = Path(task.worktree)
    head, uncommitted = c.git.working_changes(worktree)
    head = head or run.base
    integration = c.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
    # As the finish measures it: the task's own work is what changed since it last took in integration.
    since = c.git.merge_base(head, integration) if c.git.is_ancestor(run.base, integration) else run.base
    paths = {change.path for change in c.git.changes(since, head)} | set(uncommitted)
    from ..merge.languages.profile_index import profile_name_for_path

    readable = sorted(path for path in paths if profile_name_for_path(path) is not None)
    if not readable:
        return ""   # before the import: the grammars load only for a file one of them reads
    from ..merge.checks.syntax import broken_syntax

    def now(path: str) -> bytes | None:
        file = worktree / path
        return file.read_bytes() if file.is_file() else None

    from ..merge.lines.markers import has_markers

    # A file holding the conflict markers `task update` wrote is not the agent's syntax: the finish says
    # which blocks are left to resolve (unresolved_markers). Found driving wtc fanout on commander.js: a
    # repair that left the markers was told "lib/help.js:15:2: does not parse", and the next attempt the markers.
    current = {path: now(path) for path in readable}
    readable = [path for path in readable if not (current[path] is not None and has_markers(current[path]))]
    before = {path: c.git.file_at(since, path) for path in readable}
    found = broken_syntax((path, before[path], current[path]) for path in readable)
    return unparsed_report(found, {path for path, old in before.items() if old is None}) if found else ""


def unparsed_report(found: list["BrokenSyntax"], added: set[str]) -> str:
    """The repair run's report: each file and where its parse first fails, in the finish note's words."""
    lines = ["wtc did not finish this task: a file it changed no longer parses, so the merged tree would not "
             "load it (the merge and its checks read nothing of it):"]
    lines += [f"  {b.path}:{b.line}:{b.column}: does not parse as {b.language} "
              f"({'a file this task added' if b.path in added else 'it did before this task'})" for b in found]
    lines.append("  fix the syntax there; if it is syntax newer than wtc's grammar for the language, leave it: the "
                 "last attempt merges it as it is, with a note for the lead")
    return "\n".join(lines)
