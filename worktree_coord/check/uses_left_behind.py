"""The uses a branch leaves behind, as findings of `wtc check`.

Stage: after the boundary (and the dry-run merge) of `check.check`. Input: the repository, the merge
base with the target (`since`), the branch head, the branch's changes, the target tip, and the
left-behind mode (the target tip's `left-behind`, or `--left-behind`). Output: one finding per file
and name: a place, in code the branch left as it was, that still uses a name the branch removed or
renamed (left_behind.py reads them at the head: what the branch's own tree keeps and no longer
defines), less those the target has since taken out.

Why: the semantic check of the dry-run merge compares one side's removals with the other side's new
lines; a use no side wrote is invisible to it. Found driving pydantic: a branch removing
`unique_list` from pydantic/_internal/_utils.py, which tests/test_utils.py still imports, came back
clean from `wtc check` while `task finish` and `land` block the same change.

Invariants: read-only (git grep and blob reads); mode `block` makes each use an error (`left_behind`,
exit 1), `warn` a warning (`left_behind_warning`, exit 0), `off` reads nothing; a lookup too large to
make (more changed source files than it reads) or one that failed inside is an error
(`left_behind_failed`, exit 6: no answer), a look made in part a warning (`left_behind_unchecked`),
never a silent clean.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from ..gitrepo import Change, GitRepo
from ..merge.result import SemanticMode, name_word
from .report import Finding
from .rules import Severity

NAMES_UNREAD = "names_unread"   # the rule of the changed files whose names no check reads (no use of a name)
NOT_USES = ("left_behind_unchecked", "left_behind_failed", NAMES_UNREAD)   # this look's findings that name no use
MAX_MENTIONING = 400   # files mentioning a removed name read at most (a finish reads 100; more are named as unread)


def left_behind_findings(git: GitRepo, changes: Iterable[Change], since: str, head: str, target_tip: str,
                         mode: SemanticMode) -> list[Finding]:
    """The uses `head` keeps, in files it did not take a name out of, of names it removed or renamed
    since `since`, as findings by `mode`; a use the target tip no longer holds is left out (the
    merge takes the target's version of a file the branch did not change)."""
    if mode is SemanticMode.OFF:
        return []
    changes = list(changes)
    # Before the import: left_behind.py loads the semantic check (tree-sitter, the profiles).
    if not any(c.old_oid is not None for c in changes):
        return []
    return _names_unread(changes, git.read_blob) + _uses_found(git, changes, since, head, target_tip, mode)


def _names_unread(changes: list[Change], read_blob: Callable[[str], bytes]) -> list[Finding]:
    """A warning naming the changed files' languages no check reads names in (names_unread.py):
    what the look below cannot have looked for, said, never a bare clean."""
    from .names_unread import names_unread

    unread = names_unread(changes, read_blob)
    return [Finding(NAMES_UNREAD, "", unread.note(), Severity.WARNING, details=unread.to_json())] if unread else []


def _uses_found(git: GitRepo, changes: list[Change], since: str, head: str, target_tip: str,
                mode: SemanticMode) -> list[Finding]:
    """The look itself (left_behind_findings' docstring)."""
    from .left_behind import MAX_RUN_CHANGED, look_for_uses

    # A CI step runs once a push, like `wtc report` once a run: it reads as many changed files as the
    # report, and more of the files that mention a removed name than a finish does.
    partial: list[str] = []   # what a look made in part says (a computed star list): a warning
    unread: list[str] = []    # more files mentioning a removed name than it reads: no answer (exit 6)
    failed: list[str] = []
    found, not_looked = look_for_uses(git, changes, since, at=head, max_changed=MAX_RUN_CHANGED,
                                      max_files=MAX_MENTIONING, partial=unread, unread=partial, failed=failed)
    if not_looked:
        # An error inside the look, or a look too large to make, is no answer: the check exits 6 for
        # it (rules.py), never 0 (a branch too large to look at is not known to leave none behind).
        how = "the look failed: " if failed else ""
        return [Finding("left_behind_failed", "", f"uses of names the branch removed were not looked for: {how}"
                        f"{not_looked}", Severity.ERROR, details={"reason": not_looked})]
    blocking = mode is SemanticMode.BLOCK
    written = _written_by_branch(git, changes, head, found)
    # Files left unread may hold a use: as "too many changed files", no clean answer (exit 6, unless
    # a use found blocks first); the uses read are named all the same.
    out = [Finding("left_behind_failed", "", f"uses of names the branch removed were not all looked for: {line}",
                   Severity.ERROR, details={"reason": line}) for line in unread]
    out += [Finding("left_behind_unchecked", "", f"uses of names the branch removed were looked for in part: {line}",
                    Severity.WARNING, details={"reason": line}) for line in partial]
    for use in found:
        lines = f"line {use.lines}" if len(use.use_lines) == 1 else f"lines {use.lines}"
        if use.kind == "own_import":
            # The branch's own file (own_imports.py): the merge takes the branch's version of it.
            before = f"from {use.moved_from}, where the branch moved the file from" if use.moved_from else \
                "before the branch"
            message = (f"{use.use_path} ({lines}) imports {use.name}, which named {use.definition_path} {before}, "
                       f"and names no file now, so the merged tree would not load it: {use.keep}")
            out.append(Finding("left_behind" if blocking else "left_behind_warning", use.use_path, message,
                               Severity.ERROR if blocking else Severity.WARNING, use.use_lines[0], use.use_lines[0],
                               details={"kind": "left_behind", "lines_in": "head"} | use.to_json()))
            continue
        if not _still_used_on_target(git, since, target_tip, use.use_path, use.name, whole=use.kind == "module"):
            continue
        instead = f"use {use.replacement} (what replaced it, it seems)" if use.replacement else \
            f"use what replaced {use.name}"
        count = f"{use.arguments} argument{'' if use.arguments == 1 else 's'}"
        if use.kind == "signature":
            # A call of a function the branch reshaped, passing what the old shape took.
            by_branch = use.use_path in written.get("added", ()) or set(use.use_lines) & written.get(use.use_path, set())
            message = (f"{use.use_path} ({lines}) {'calls' if by_branch else 'still calls'} {use.name} the old way "
                       f"({count}), which the branch {use.what_happened}; "
                       + ("the branch writes this call" if by_branch else "the branch does not change that call")
                       + f", so the merged tree's call would fail: {use.keep}, or update the call on the branch")
        elif use.use_path in written.get("added", ()):
            # Its own new file: "does not change that use" would send the reader looking for old code.
            message = (f"{use.use_path} ({lines}), a file the branch adds, uses {use.name}, which the branch "
                       f"{use.what_happened}; the branch adds this use, so the merged tree would not resolve it: "
                       f"{instead}, or {use.keep}")
        elif set(use.use_lines) & written.get(use.use_path, set()):
            message = (f"{use.use_path} ({lines}) uses {use.name}, which the branch {use.what_happened}; the branch "
                       f"writes this use, so the merged tree would not resolve it: {instead}, or {use.keep}")
        else:
            message = (f"{use.use_path} ({lines}) still uses {use.name}, which the branch {use.what_happened}; "
                       f"the branch does not change that use, so the merged tree would not resolve it: {use.keep}, "
                       f"or update the use on the branch")
        out.append(Finding("left_behind" if blocking else "left_behind_warning", use.use_path, message,
                           Severity.ERROR if blocking else Severity.WARNING, use.use_lines[0], use.use_lines[0],
                           details={"kind": "left_behind", "lines_in": "head"} | use.to_json()))
    return out


def _written_by_branch(git: GitRepo, changes: list[Change], head: str, found: list) -> dict[str, set]:
    """Of the files holding a use in `found`: under "added", those the branch adds; under each path
    it changed, the use lines (numbers in the head's version) its change added or rewrote."""
    paths = {use.use_path for use in found}
    out: dict[str, set] = {"added": set()}
    for change in changes:
        if change.path not in paths or change.new_oid is None:
            continue
        if change.old_oid is None:
            out["added"].add(change.path)
            continue
        from ..merge.lines.linediff import added_lines

        out[change.path] = set(added_lines(git.read_blob(change.old_oid), git.read_blob(change.new_oid)))
    return out


def _still_used_on_target(git: GitRepo, since: str, target_tip: str, path: str, name: str, *,
                          whole: bool = False) -> bool:
    """Does the target tip's `path` still name `name` as a word (`whole`: all of it, a module's path,
    not its last part)? When the target left the file as it was at `since`, the use stands as the
    head has it."""
    now = git.file_id_at(target_tip, path)
    if now == git.file_id_at(since, path):
        return True
    data = git.file_at(target_tip, path) if now is not None else None
    word = re.escape((name if whole else name_word(name)).encode())
    return data is not None and re.search(rb"(?<![\w$])" + word + rb"(?![\w$])", data) is not None
