"""The changed files whose language no semantic check reads, said beside every look for names left behind.

Stage: beside the left-behind look of `task check`, `task finish`, `wtc check`, `wtc report` and
`land`. Input: a change's files (gitrepo Change). Output: `NamesUnread`, the languages and the count
of the changed files that took a line out (a file that existed before, its change more than added
lines), whose language is code with no `[semantic]` profile (profile_index.names_unread_language):
a name such a file removed or renamed was not looked for.

Why: "merges cleanly" over a change that renamed a Swift function still called elsewhere is a verdict
nobody made; found driving wtc on lua/lua before C had a profile: a task renaming
`luaL_checknumber` (36 uses in 10 other files) was called clean and would have landed a tree that
does not link. Every face says what was not read, as a field and in words, never a bare clean.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ..frozen import value_class
from ..gitrepo.repository import Change


@value_class
class NamesUnread:
    """Changed files whose names no check read: their languages (profile names, sorted) and count."""

    languages: tuple[str, ...] = ()
    files: int = 0

    def __bool__(self) -> bool:
        return self.files > 0

    def note(self) -> str:
        """The caveat in words ("" when every changed file was read)."""
        if not self.files:
            return ""
        plural = "s" if self.files > 1 else ""
        return (f"names removed or renamed in {self.files} changed file{plural} of {', '.join(self.languages)} were "
                f"NOT looked for in the rest of the repository: wtc has no semantic check for "
                f"{'that language' if len(self.languages) == 1 else 'those languages'}; check their uses by hand "
                f"(a build, a grep)")

    def to_json(self) -> dict[str, Any]:
        return {"languages": list(self.languages), "files": self.files}


def unread_note(row: dict[str, Any]) -> str:
    """The caveat of a result's `names_unread` field (NamesUnread.to_json; "" when empty)."""
    return NamesUnread(tuple(row["languages"]), row["files"]).note() if row else ""


def names_unread(changes: Iterable[Change], read_blob: Callable[[str], bytes]) -> NamesUnread:
    """The changed files of a language whose names no semantic check reads that removed a line
    (`removes_lines`): a file that is new, or whose change only added lines, took no name out."""
    from ..merge.languages.profile_index import names_unread_language

    found: dict[str, int] = {}
    for change in changes:
        if change.old_oid is not None and (language := names_unread_language(change.path)) is not None \
                and removes_lines(change, read_blob):
            found[language] = found.get(language, 0) + 1
    return NamesUnread(tuple(sorted(found)), sum(found.values()))


def removes_lines(change: Change, read_blob: Callable[[str], bytes]) -> bool:
    """Whether the change takes out or changes a line of the file (a changed line is a removal):
    false only when every line it had is still there, in order, with lines added between. Found
    driving wtc on Ruby and PHP projects: a task that only added a method was told its removed
    names were NOT looked for, where it had removed none."""
    if change.old_oid is None:
        return False
    if change.new_oid is None:
        return True
    kept = iter(read_blob(change.new_oid).splitlines())
    # `line in kept` advances the iterator to the line's match: the old lines are a subsequence of
    # the new ones exactly when each is found after the one before.
    return not all(line in kept for line in read_blob(change.old_oid).splitlines())
