"""The rules `wtc check` reports on: one catalog shared by every output format.

Each finding names one of these rules. The catalog gives each rule its severity, the exit code a
finding of it implies, and the words a person reads in SARIF rule metadata, JUnit test names and
GitHub annotation titles. Boundary rule ids are the ones `boundary.check_changes` produces, so a
finding and a rejected `wtc task finish` speak the same language.
"""

from __future__ import annotations

import enum

from ..errors import EXIT_BOUNDARY, EXIT_CONFLICT, EXIT_INTERNAL, EXIT_OK
from ..frozen import value_class


class Severity(str, enum.Enum):
    """How bad a finding is; SARIF levels and GitHub annotation commands use the same three words."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Category(str, enum.Enum):
    BOUNDARY = "boundary"
    RESERVED = "reserved"
    MERGE = "merge"
    LEFT_BEHIND = "left_behind"


@value_class
class RuleInfo:
    id: str
    title: str
    category: Category
    severity: Severity
    exit_code: int
    description: str
    fix: str


def _rule(id: str, title: str, category: Category, severity: Severity, exit_code: int, description: str,
          fix: str) -> RuleInfo:
    return RuleInfo(id, title, category, severity, exit_code, description, fix)


RULES: dict[str, RuleInfo] = {r.id: r for r in (
    _rule("outside_own", "Path outside the boundary", Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
          "The branch adds, modifies or deletes a path that none of the task's --own globs match.",
          "Move the change into a path the task owns, drop it, or widen the task's boundary."),
    _rule("git_dir", "Path under .git", Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
          "The branch changes a path under a .git folder; that is never allowed.",
          "Remove the path from the branch."),
    _rule("submodule", "Submodule change outside the boundary", Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
          "The branch changes a gitlink or .gitmodules outside --own.",
          "Leave submodules alone, or own them explicitly."),
    _rule("embedded_repository", "Folder with a repository of its own", Category.BOUNDARY, Severity.ERROR,
          EXIT_BOUNDARY,
          "The branch records a folder holding its own git repository as a gitlink that no .gitmodules declares:"
          " a commit id only that folder has, where the files were meant.",
          "Remove the folder's .git and `git rm --cached` it to commit its files, or add it with `git submodule add`."),
    _rule("large_file", "File over max-file-size", Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
          "The branch adds a file over max-file-size (default 50 MiB), or grows one past it: once merged it is "
          "in the history every clone downloads, and hosts refuse pushes holding files over 100 MiB.",
          "Name it in .gitignore and take it out of the branch's commits, or raise max-file-size in "
          "[tool.worktree-coord] if it belongs in the repository (or track it with git LFS)."),
    _rule("reserved_type", "Reserved file changes type", Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
          "A reserved manifest or lockfile became, or stopped being, a symlink.",
          "Keep reserved files regular files; express the change as an edit."),
    _rule("symlink_outside_repo", "Symlink escapes the repository", Category.BOUNDARY, Severity.ERROR,
          EXIT_BOUNDARY, "A symlink the branch adds points outside the repository.",
          "Point the link at a path inside the task's boundary, or commit the file itself."),
    _rule("symlink_outside_own", "Symlink escapes the boundary", Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
          "A symlink the branch adds points to a path the task does not own.",
          "Point the link at a path inside the task's boundary."),
    _rule("reserved_edit", "Edit to a reserved file", Category.RESERVED, Severity.NOTE, EXIT_OK,
          "The branch edits a root manifest or lockfile. It is not merged as text: the edit becomes an "
          "intent applied in the consolidation phase.",
          "Nothing to do if the intent is what you meant; it is applied by `wtc consolidate`."),
    _rule("reserved_unexpressible", "Reserved edit consolidation cannot carry", Category.RESERVED, Severity.ERROR,
          EXIT_BOUNDARY, "The branch edits a reserved file in a way no intent can express (a TOML or YAML date "
          "value, a requirements option line, a go.mod directive other than require, "
          "replace, go and toolchain, a comment no intent writes); `wtc task finish` refuses it, since the edit would otherwise be lost. "
          "Other keys of a root package.json, Cargo.toml, pyproject.toml or pnpm-workspace.yaml are "
          "carried as set_key intents.",
          "Make the change in a member manifest, declare an intent (`wtc intent add`), or have the lead unreserve "
          "the file (`reserved-remove` in `.wtc.toml` or `[tool.worktree-coord]`)."),
    _rule("reserved_invalid", "Reserved file does not parse", Category.RESERVED, Severity.ERROR, EXIT_BOUNDARY,
          "The branch leaves a reserved manifest that does not parse strictly, so no intent can be derived from it.",
          "Fix the file's syntax."),
    _rule("disjoint_workspace_range", "Range no version shares with another member's", Category.RESERVED,
          Severity.ERROR, EXIT_BOUNDARY, "The branch gives a workspace member a range of a package that no "
          "version shares with the range another member under the same lock declares on the integration branch, "
          "where the package manager locks one version per package for the whole workspace (uv); `wtc task "
          "finish` refuses it, since the relock could not meet both (`wtc check` and `wtc task check` say so "
          "first).",
          "Choose a range the other member's also accepts, or change that member in the same task after "
          "bringing the integration branch in (`wtc task update`)."),
    _rule("manifest_changed", "Boundary manifest changed", Category.BOUNDARY, Severity.WARNING, EXIT_OK,
          "The branch changes the committed boundary manifest that this check read its boundary from.",
          "Have a reviewer confirm the new boundary: a branch should not widen its own boundary unseen."),
    _rule("merge_conflict", "Merge conflict with the target", Category.MERGE, Severity.ERROR, EXIT_CONFLICT,
          "A dry-run structured merge of the branch into the target branch tip leaves this region conflicted.",
          "Bring the target into the branch (or `wtc task update`), resolve the region, and push again."),
    _rule("semantic_conflict", "Name removed on one side, used on the other", Category.MERGE, Severity.ERROR,
          EXIT_CONFLICT, "The dry-run merge is clean line by line, but new code of one side uses a name (a function, "
          "class, method, import) that the other side removed or renamed, and the merged result does not define it.",
          "Use the name that replaced it (or restore the definition), after bringing the target into the branch."),
    _rule("semantic_warning", "Name removed on one side, used on the other (warning)", Category.MERGE,
          Severity.WARNING, EXIT_OK, "As semantic_conflict, reported as a warning (`--semantic warn` or "
          "`semantic-check = \"warn\"`): the merge is not held back.",
          "Check the use: it most likely needs the name that replaced the removed one."),
    _rule("left_behind", "Removed name still used where the branch did not change it", Category.LEFT_BEHIND,
          Severity.ERROR, EXIT_CONFLICT, "The branch removes or renames a name (a function, class, method) that "
          "code it leaves as it was still uses (an import, a call): no line of either side shows it to the merge, "
          "and the merged tree would not resolve it. Blocks by the target's `left-behind` setting (block, the "
          "default).",
          "Keep the old name too (an alias, or a re-export at a moved module's old path), or update the use on "
          "the branch."),
    _rule("left_behind_warning", "Removed name still used where the branch did not change it (warning)",
          Category.LEFT_BEHIND, Severity.WARNING, EXIT_OK, "As left_behind, reported as a warning (`--left-behind "
          "warn` or `left-behind = \"warn\"` on the target): the check does not fail.",
          "Keep the old name too (an alias), or update the use."),
    _rule("left_behind_unchecked", "Uses of removed names not all looked for", Category.LEFT_BEHIND, Severity.WARNING,
          EXIT_OK, "The check looked for uses of the names the branch removed in part (more files mention the "
          "removed names than it reads, or a star list it changed is computed): the branch is not known to "
          "leave none behind in the files it did not read.",
          "Split the branch, or check the uses of what it removes by hand."),
    _rule("names_unread", "Removed names not looked for in languages wtc does not read", Category.LEFT_BEHIND,
          Severity.WARNING, EXIT_OK, "The branch changes files of a language wtc has no semantic check for "
          "(`details` names the languages and counts the files): a name it removed or renamed there was not looked "
          "for in the rest of the repository, so the check's silence about uses left behind covers only the other "
          "files.", "Check the uses of what those files remove by hand (a build, a grep)."),
    _rule("left_behind_failed", "The look for uses of removed names gave no answer", Category.LEFT_BEHIND,
          Severity.ERROR, EXIT_INTERNAL, "The look for uses of the names the branch removed stopped at an error of "
          "wtc's, or was not made: the branch changed more source files than it reads (the message says which): "
          "the check has no answer, never a clean verdict.",
          "Split the branch, or (an error) report it with the message (WTC_DEBUG=1 prints the traceback); "
          "meanwhile check the uses of what the branch removes by hand."),
)}

BOUNDARY_RULES = tuple(r.id for r in RULES.values() if r.category is Category.BOUNDARY)


def rule_info(rule_id: str) -> RuleInfo:
    """The catalog entry of a rule; an unknown id (a newer boundary rule) gets a generic boundary entry."""
    known = RULES.get(rule_id)
    if known is not None:
        return known
    return _rule(rule_id, rule_id.replace("_", " ").capitalize(), Category.BOUNDARY, Severity.ERROR, EXIT_BOUNDARY,
                 f"Boundary rule {rule_id}.", "Fix the path so the boundary check accepts it.")
