"""Uses a task's removal or rename leaves behind in files it did not change.

Stage: `task finish`, after the boundary check passed, before the merge. Input: the repository,
the commit the task's work is measured from (`since`), the task's tip, and its changes. Output:
notes (never a rejection) naming each place outside the task's changes that still uses a name the
task removed or renamed.

Why: a task owns a few files. When it renames `util.parse` in the file it owns, the imports of
`parse` in files it does not own still name the old function; every merge is clean (no other task
touched those lines, so the post-merge semantic check has nothing to say), and the landed tree does
not import. Found driving wtc on psf/requests: a task that owned `utils.py` renamed `guess_filename`,
`models.py` still imported it, the run landed, `import requests` failed. The task cannot fix those
files itself (they are outside its boundary), so finish says where they are and what the ways out
are: keep the old name, or the lead widens the task.

How: the top-level names the task's version of a changed file no longer defines (symbols.py), `git
grep -w` at `since` for files that mention one, and the post-merge check itself
(semantic.find_broken_names) over a merge where one side is the task and the other "adds" those
files whole: its import resolution and its precision rules (shadowing, star imports, a name still
defined elsewhere) decide what counts as a use. At most MAX_FILES files are read.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any, Callable, Iterable

import tree_sitter

from ..boundary.globs import matches
from ..frozen import value_class
from ..gitrepo.repository import GIT_MODE_GITLINK, Change, GitRepo
from ..merge.lines.linediff import added_lines, added_text, ranges_text, touched_lines
from ..merge.result import SemanticFinding, name_word
from ..merge.checks import sole_members
from ..merge.checks.linked import LINKED, body_lost, is_linked, package_key, reading_profile
from ..merge.checks.semantic import PATH_FACTS, find_broken_names, semantic_profile, tree_module_files
from ..merge.checks.reach import spelling, star_list_added
from ..merge.checks.signatures import reshaped
from ..merge.checks.syntax import first_error
from ..merge.checks.symbols import EXPORTS, computed_star_list, extract, import_statements_query, module_specifiers, star_names
from ..merge.checks.versions import MAX_BYTES, FileVersions
from .left_fixtures import fixtures_left_behind
from .left_includes import includes_left_behind
from .left_modules import loads_modules, module_word, modules_left_behind
from .left_namespaces import still_declared
from .own_imports import KIND as OWN_IMPORT, own_imports_broken
from .own_members import own_member_calls
from .own_uses import own_file_uses, package_top
from .root_imports import use_words

MAX_FILES = 100          # files that mention a removed name, read at most (finish stays quick)
MAX_NAMES = 64           # removed names searched for at most (a file deleted whole can remove many)
MAX_NOTES = 20           # uses named one by one; the rest are counted
MAX_CHANGED = 100        # changed files whose removed names are read (about 20 ms each)
MAX_RUN_CHANGED = 400    # the same for a whole run's changes (`wtc report`, which the lead asks for once)
DEFER_DELETED = True     # a deleted module's definitions read only where a file spells its word (_read_deleted);
                         # tests turn it off to compare the look with one that reads them all


class LookupTooLarge(Exception):
    """The task changed too many files to read them all at finish: the caller says so in a note."""


@value_class
class LeftBehind:
    """One file's uses of one name the task removed or renamed."""

    use_path: str
    use_lines: tuple[int, ...]
    name: str
    definition_path: str
    replacement: str
    moved_to: str = ""   # the file the task moved `definition_path` to (its definitions went along)
    kind: str = ""       # "module": `name` is a module the use imports, the file `definition_path` the task deleted;
                         # "export": the file still defines `name`, but no longer exports it (a module language);
                         # "deleted": `name` went with its file, which the task deleted, no file answering its path
    star_list: str = ""  # the use reaches `name` only through a star import, and `definition_path`
                         # (the task's version) writes the list that star takes (`__all__`): a kept name is listed there
    arguments: int = 0   # kind "signature": the use calls the function `name` with this many arguments, what its
                         # base shape took; the task's version (`replacement`, its name and parameters) takes another count
    moved_from: str = "" # kind "own_import": the path the task moved `use_path` from ("" when it did not move it)
    star_line: str = ""  # the star re-export line of `definition_path` the task dropped (`export * from './intl.js';`),
                         # through which the use reached `name`: keeping that line keeps the name
    keyword: str = ""    # kind "signature": the keyword the call passes that the task's version no longer names

    @property
    def keep(self) -> str:
        """The way out that leaves the use alone, as the notes say it."""
        if self.kind == "signature" and self.keyword:
            return f"keep taking {self.keyword}= too (the old name beside the new, or **kwargs)"
        if self.kind == "signature":
            profile = semantic_profile(self.definition_path)
            rules = profile.semantic.signatures if profile is not None else None
            if rules is not None and not (rules.optional or rules.defaults):
                # Go, Rust, Java: no parameter takes a default, so "give it one" is advice nobody can follow.
                return (f"keep {self.name} taking its old parameters, calling the new shape under a new name "
                        f"({profile.name} gives no parameter a default)")
            return "give what it added a default (or keep the old shape beside the new one)"
        if self.kind == OWN_IMPORT:
            return f"fix the import in {self.use_path} to name the file where it stands now"
        if self.moved_to:
            profile = semantic_profile(self.definition_path)
            if profile is not None and profile.semantic.package_types:
                # Java re-exports nothing: a class its package's files use unimported stays in that package.
                return "keep the class in its old package"
            return "keep a re-export at the old path"
        if self.star_line:
            return f"keep the line `{self.star_line}` in {self.definition_path}"
        if self.kind in ("module", "deleted"):
            return "keep a file at the old path (a stub that re-exports what replaced it)"
        if self.kind == "export":
            if self.star_list:
                return f"list {self.name} in the {self.star_list} of {self.definition_path} again"
            return f"keep {self.name} exported"
        if self.star_list:
            # A star import takes only what the list names: an alias outside it reaches no use.
            return f"keep the old name too (an alias, listed in the {self.star_list} of {self.definition_path} too)"
        return "keep the old name too (an alias)"

    @property
    def lines(self) -> str:
        """The use lines as a note shows them: the first eight, then "...". """
        return ", ".join(str(line) for line in self.use_lines[:8]) + (", ..." if len(self.use_lines) > 8 else "")

    @property
    def renamed(self) -> str:
        return f" (to {self.replacement}, it seems)" if self.replacement else ""

    @property
    def what_happened(self) -> str:
        """What the task did to the definition, as the notes say it."""
        if self.kind == OWN_IMPORT:
            return (f"moved the importing file from {self.moved_from}" if self.moved_from
                    else f"deleted or moved what it named")
        if self.moved_to:
            return f"moved from {self.definition_path} to {self.moved_to}"
        if self.star_line:
            return f"no longer passes on from {self.definition_path} (it dropped the line `{self.star_line}`)"
        if self.kind == "module":
            return f"deleted (the file {self.definition_path})"
        if self.kind == "export":
            instead = f" (it exports {self.replacement} instead, it seems)" if self.replacement else ""
            if self.star_list:
                return (f"no longer lists in the {self.star_list} of {self.definition_path}{instead}, so the star "
                        f"import the use reaches it through no longer takes it")
            return f"no longer exports from {self.definition_path}{instead}"
        if self.kind == "deleted":
            return f"deleted with its file {self.definition_path}{self.renamed} (no file stands at its path now)"
        if self.kind == "signature":
            return f"changed to {self.replacement} in {self.definition_path}"
        return f"removed or renamed{self.renamed} in {self.definition_path}"

    def note(self, task: str, run: str, own: Iterable[str] = ()) -> str:
        """The note for this use alone; `own`: the task's own globs (a use in a file they hold
        is updated by the task itself, not after a widen)."""
        own = tuple(own)
        return _note_writer(self)([self], 0, task, run, bool(own) and matches(own, self.use_path))

    def to_json(self) -> dict[str, Any]:
        return {"use_path": self.use_path, "use_lines": list(self.use_lines), "name": self.name,
                "definition_path": self.definition_path, "replacement": self.replacement, "moved_to": self.moved_to,
                "module": self.kind == "module", "unexported": self.kind == "export",
                "file_deleted": self.kind == "deleted", "star_list": self.star_list,
                "signature": self.kind == "signature", "arguments": self.arguments,
                "own_import": self.kind == OWN_IMPORT, "moved_from": self.moved_from, "star_line": self.star_line,
                "keyword": self.keyword}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "LeftBehind":
        return cls(row["use_path"], tuple(row["use_lines"]), row["name"], row["definition_path"],
                   row.get("replacement", ""), row.get("moved_to", ""),
                   OWN_IMPORT if row.get("own_import") else "module" if row.get("module")
                   else "export" if row.get("unexported") else "deleted" if row.get("file_deleted")
                   else "signature" if row.get("signature") else "",
                   row.get("star_list", ""), row.get("arguments", 0), row.get("moved_from", ""),
                   row.get("star_line", ""), row.get("keyword", ""))


def grouped_notes(found: Iterable[LeftBehind], task: str, run: str, limit: int,
                  own: Iterable[str] = ()) -> list[str]:
    """One note per name the task removed or renamed, naming every file that still uses it, and one
    per file it moved, for all of its names (found driving wtc on trpc: renaming `sleep` gave four
    notes of the same advice, and `rootConfig.ts` imports two names of the moved `formatter.ts`);
    at most `limit` files are named in all, then a count of the uses left out. `own`: the task's
    own globs; a note whose files the task owns already advises updating them, not a widen."""
    own = tuple(own)
    groups: dict[tuple[str, str, str, str, bool], list[LeftBehind]] = {}
    for item in found:
        key = (item.use_path, item.name, item.definition_path, OWN_IMPORT) if item.kind == OWN_IMPORT else \
            ("", item.definition_path, item.moved_to, "") if item.moved_to else \
            (item.name, item.definition_path, item.replacement, item.kind)
        # The uses in files the task owns and those outside it in notes of their own: each says its own
        # way out (found driving wtc fanout on commander.js: "lib/help.js:445, tests/help.padWidth.test.js
        # ... are outside the task's changes ... or the lead widens", lib/help.js the renaming file itself).
        groups.setdefault(key + (bool(own) and matches(own, item.use_path),), []).append(item)
    notes: list[str] = []
    left = limit
    skipped = 0
    for items in groups.values():
        files = list(dict.fromkeys(item.use_path for item in items))
        shown_files = set(files[:max(left, 0)])
        left -= len(shown_files)
        skipped += sum(len(item.use_lines) for item in items if item.use_path not in shown_files)
        shown = [item for item in items if item.use_path in shown_files]
        if shown:
            owned = bool(own) and all(matches(own, item.use_path) for item in shown)
            notes.append(_note_writer(items[0])(shown, len(files) - len(shown_files), task, run, owned))
    if skipped:
        notes.append(f"and {skipped} more uses, outside this task's changes, of names it removed or renamed")
    return widen_once(notes, task, run)


def _note_writer(item: LeftBehind) -> Callable[[list[LeftBehind], int, str, str, bool], str]:
    if item.kind == "signature":
        return _reshaped_note
    if item.kind == OWN_IMPORT:
        return _own_import_note
    return _moved_note if item.moved_to else _module_note if item.kind == "module" else _renamed_note


def _reshaped_note(items: list[LeftBehind], more: int, task: str, run: str, owned: bool = False) -> str:
    """One note for the calls, in files the task did not change, of one function whose parameters it
    changed, that still pass what the old shape took (`more`: files left unnamed)."""
    first = items[0]
    where = ", ".join(f"{item.use_path}:{item.use_lines[0]}" if len(item.use_lines) == 1
                      else f"{item.use_path} (lines {item.lines})" for item in items)
    more_files = f" and {more} more file{'s' if more > 1 else ''}" if more else ""
    one = len(items) == 1 and not more
    count = f"the keyword {first.keyword}=" if first.keyword else f"{first.arguments} argument{'' if first.arguments == 1 else 's'}"
    calls = "call" if one else "calls"
    return (f"{where}{more_files} still call{'s' if one else ''} {first.name} the old way ({count}), which this task "
            f"{first.what_happened}; {'that file is' if one else 'those files are'} {_outside(owned)}, so "
            f"the landed tree's {calls} would fail: {first.keep}, "
            f"{_or_update(task, run, [item.use_path for item in items], calls, owned)}")


def _outside(owned: bool) -> str:
    """Where the uses stand, as a note says it: outside the task's changes, or (`owned`) in files of
    its boundary, which it may have changed elsewhere and left the use in (found driving wtc on
    Leaflet: "PolyUtil.js is outside the task's changes" of a file the task had changed)."""
    return "in the task's boundary, the use left as it was" if owned else "outside the task's changes"


def _or_update(task: str, run: str, paths: list[str], what: str, owned: bool) -> str:
    """The way out besides keeping the name: the lead widens the task to `paths`, or (`owned`: the
    task's boundary holds them already) the task updates them itself (found driving wtc on scrapy:
    a widen was advised for a file the task had been widened to)."""
    if owned:
        files = ", ".join(dict.fromkeys(paths))
        return f"or update the {what} in {files}: the task's boundary holds {'it' if len(set(paths)) == 1 else 'them'}"
    return f"or the lead widens the task ({widen_command(task, run, paths)}) and it updates the {what}"


def _module_note(items: list[LeftBehind], more: int, task: str, run: str, owned: bool = False) -> str:
    """One note for the imports of one module the task deleted (not moved), in files it did not
    change (`more`: files left unnamed)."""
    first = items[0]
    where = ", ".join(f"{item.use_path}:{item.lines}" for item in items)
    more_files = f" and {more} more file{'s' if more > 1 else ''}" if more else ""
    those = "that file is" if len(items) == 1 and not more else "those files are"
    return (f"{where}{more_files} still import{'s' if len(items) == 1 and not more else ''} {first.name}, the file "
            f"{first.definition_path}, which this task deleted; {those} {_outside(owned)}, so the landed tree "
            f"would not load it: {first.keep}, {_or_update(task, run, [item.use_path for item in items], 'imports', owned)}")


def _own_import_note(items: list[LeftBehind], more: int, task: str, run: str, owned: bool = False) -> str:
    """One note for one relative import, in a file of the task's own, that its move or deletion
    left naming nothing (own_imports.py): the task fixes it in its own file, no widen needed."""
    first = items[0]
    where = ", ".join(f"{item.use_path}:{item.lines}" for item in items)
    before = f"from {first.moved_from}, where this task moved the file from" if first.moved_from else \
        "before this task"
    return (f"{where} imports {first.name}, which named {first.definition_path} {before}, and names no file now, "
            f"so the landed tree would not load it: {first.keep} ({first.use_path} is this task's own file)")


def _renamed_note(items: list[LeftBehind], more: int, task: str, run: str, owned: bool = False) -> str:
    """One note for the uses of one name the task removed or renamed, in files it did not change
    (one item a file; `more`: files left unnamed)."""
    first = items[0]
    # An alias that a star import takes serves every use, the ones through an import of the module too.
    starred = next((item for item in items if item.star_list), first)
    # A name the file keeps but no longer exports: exporting it again is the way to keep it.
    keep = f"export {first.name} again" if first.kind == "export" and not starred.star_list else starred.keep
    if len(items) == 1 and not more:
        where = f"{first.use_path}:{first.use_lines[0]}" if len(first.use_lines) == 1 else \
            f"{first.use_path} (lines {first.lines}: {len(first.use_lines)} uses)"
        return (f"{where} still uses {first.name}, which this task {first.what_happened}; {first.use_path} is "
                f"{_outside(owned)}, so the landed tree would not resolve it: {keep}, "
                f"{_or_update(task, run, [first.use_path], 'use', owned)}")
    where = ", ".join(f"{item.use_path}:{item.use_lines[0]}" if len(item.use_lines) == 1
                      else f"{item.use_path} (lines {item.lines})" for item in items)
    more_files = f" and {more} more file{'s' if more > 1 else ''}" if more else ""
    return (f"{where}{more_files} still use {first.name}, which this task {first.what_happened}; those files are "
            f"{_outside(owned)}, so the landed tree would not resolve them: {keep}, "
            f"{_or_update(task, run, [item.use_path for item in items], 'uses', owned)}")


def _moved_note(items: list[LeftBehind], more: int, task: str, run: str, owned: bool = False) -> str:
    """One note for the uses of the names of one file the task moved, in files it did not change
    (`more`, files left unnamed, is counted by the caller's last note)."""
    first = items[0]
    lines: dict[str, set[int]] = {}
    for item in items:
        lines.setdefault(item.use_path, set()).update(item.use_lines)
    where = ", ".join(f"{path}:{min(found)}" if len(found) == 1 else f"{path} (lines {', '.join(map(str, sorted(found)[:8]))})"
                      for path, found in lines.items())
    names = ", ".join(dict.fromkeys(item.name for item in items))
    those = "that file is" if len(lines) == 1 else "those files are"
    return (f"{where} still use{'s' if len(lines) == 1 else ''} {names} from {first.definition_path}, which this task "
            f"moved to {first.moved_to}; {those} {_outside(owned)}, so the landed tree would not resolve "
            f"them: {first.keep}, {_or_update(task, run, list(lines), 'imports', owned)}")


def widen_command(task: str, run: str, paths: Iterable[str]) -> str:
    """The lead's command that gives the task the files `paths` (repo-relative), as the notes quote it."""
    owns = " ".join(f"--own '/{path}'" for path in dict.fromkeys(paths))
    return f"`wtc task widen {task} --run {run} {owns} --why '...'`"


WIDEN_ONCE = "the lead's one widen for the uses above: "


def widen_once(notes: list[str], task: str, run: str) -> list[str]:
    """The notes with the task's widen command said once: where several notes each quote one (a use
    per file, a name per note, the semantic and the left-behind notes of one merge), each says "the
    command below" instead, and one note after the last of them quotes one command owning every file
    they named. An agent (and the lead) read one command per task, not one per use line."""
    command = re.compile(r"`wtc task widen " + re.escape(task) + " --run " + re.escape(run)
                         + r"((?: --own '[^']*')+) --why '\.\.\.'`")
    if sum(len(command.findall(note)) for note in notes) <= 1:
        return notes
    paths: list[str] = []
    out: list[str] = []
    last = 0
    for note in notes:
        found = list(command.finditer(note))
        for match in found:
            paths += [p.lstrip("/") for p in re.findall(r"--own '([^']*)'", match.group(1))]
        if note.startswith(WIDEN_ONCE):
            continue       # an earlier pass's: its files join this one's
        out.append(re.sub(r"\(" + command.pattern + r"\)", "(the command below)", note))
        if found:
            last = len(out)
    out.insert(last, WIDEN_ONCE + widen_command(task, run, paths))
    return out


def uses_outside_boundary(task: str, run: str, own: Iterable[str], findings: Iterable[dict]) -> list[str]:
    """Notes for the semantic findings of a task's merge whose fix is in a file the task does not own.

    A finding's advice is "fix the use": but when this task renamed `isWrapperType` and another task
    wrote the new call in its own file, the agent cannot edit that file (finish would reject it for
    the boundary) and needs the ways it does have. Found driving wtc on google/gson: `task update`
    said "fix the use(s)" for two uses in files two other tasks owned. `findings` are the semantic
    dicts of a finish's conflicts or an update's findings (merge_queue.semantic_report); a duplicate,
    and a definition the task's hand resolution dropped, are fixed in the task's own file, so they
    are left out.
    """
    own = tuple(own)
    notes: list[str] = []
    for finding in findings:
        path = finding.get("use_path", "")
        if not path or finding.get("problem") in ("duplicate", "dropped") or matches(own, path):
            continue
        writer = finding.get("used_by_task") or finding.get("used_by") or "another task"
        name = finding.get("name")
        if finding.get("problem") == "signature":
            kept = f"keep {name}'s old shape too (an overload, or defaults for what it added)"
        elif finding.get("problem") == "import_path":
            kept = f"keep the old import of {name} working too (a re-export)"
        elif finding.get("replacement"):
            kept = f"keep {name} too (an alias of {finding['replacement']})"
        else:
            kept = f"keep {name} as the base had it"
        notes.append(f"{path}:{finding.get('use_line')} is outside this task's boundary ({writer} wrote the use): "
                     f"{kept}, or the lead widens the task "
                     f"({widen_command(task, run, [path])}) and it updates the use")
    return widen_once(list(dict.fromkeys(notes)), task, run)


def _removed_names(profile_path: str, before: bytes, after: bytes | None) -> set[str]:
    """The names of the definitions `before` holds and `after` no longer does, top-level and members
    alike (a member by its owner: `Primitives.isWrapperType` renamed, or moved to another class).
    Java and C# have no top-level functions: a renamed static method used as
    `Primitives.isWrapperType(...)` elsewhere is a member (found driving wtc on google/gson); the
    post-merge check below decides which mentions are uses of it."""
    return {name for _container, name in _removed(profile_path, before, after)}


def _removed(profile_path: str, before: bytes, after: bytes | None, *,
             symbols: tuple[Any, Any] | None = None) -> set[tuple[tuple[str, ...], str]]:
    """The (container, name) of each definition `before` holds and `after` no longer does
    (`symbols`: both versions' extraction, uses=False, where the caller made it already)."""
    if symbols is None:
        symbols = (_extracted(profile_path, before, uses=False),
                   None if after is None else _extracted(profile_path, after, uses=False))
    old, new = _members(symbols[0], fields=True), set() if after is None else _members(symbols[1], fields=False)
    if old is None or new is None:
        return set()
    profile = semantic_profile(profile_path)
    if after is not None and profile is not None and any(((), name) in new for name in profile.semantic.any_name):
        # its module's `__getattr__` (profile `any_name`) answers the top-level names it answers:
        # any, or the few it compares its parameter with (merge/languages/python_getattr.py)
        from ..merge.languages.python_getattr import answers

        extracted = symbols[1] if symbols is not None else _extracted(profile_path, after, uses=False)
        spans = [after[d.start_byte:d.end_byte] for d in (extracted.definitions if extracted else ())
                 if not d.container and d.name in profile.semantic.any_name]
        return {(container, name) for container, name in old - new
                if container or not any(answers(span, name) for span in spans)}
    if after is not None and package_key(profile_path) == LINKED:
        # C: a function's body gone under the file's own prototype of it is gone (linked.body_lost)
        olds, news = symbols if symbols is not None else (_extracted(profile_path, before, uses=False),
                                                           _extracted(profile_path, after, uses=False))
        if olds is not None and news is not None:
            return (old - new) | {((), d.name) for d in olds.definitions if ((), d.name) in new and body_lost(before, d, after, news)}
    return old - new


def _members(found: Any, *, fields: bool) -> set[tuple[tuple[str, ...], str]] | None:
    """The (container, name) of each definition `found` (an extraction, None: unreadable) holds, and
    (`fields`) each field its classes bind on their instances (`self.item_limit = n`: a removal when
    gone); without `fields`, every name a class binds (any binding of a field keeps it)."""
    if found is None:
        return None
    pairs = {(d.container, d.name) for d in found.definitions}
    if fields:
        return pairs | {(d.container, d.name) for d in found.fields}
    return pairs | {(container, name) for container, names in found.bound.items() if container for name in names}


def _inherited(profile_path: str, found_before: Any, pairs: set[tuple[tuple[str, ...], str]]) -> set[tuple[tuple[str, ...], str]]:
    """The members among `pairs` of a class that declares bases in the version before (`found_before`):
    a base may give the member, so the check never takes one as gone (semantic.broken), and the look
    does not search the tree for it. Found on laravel 0b125e6a: `setUp` and `tearDown` dropped from
    test classes (which extend TestCase) were 441 files' words, past the files the look reads: no answer.
    (Not where a class whose bases give nothing loses what it stops defining: sole_members.py.)"""
    profile = semantic_profile(profile_path)
    if profile is None or sole_members.applies(profile_path):
        return set()
    own = profile.semantic.own_kinds
    kinds = {(d.container, d.name): d.kind for d in found_before.definitions}
    return {(container, name) for container, name in pairs
            if container and container in found_before.heritage and kinds.get((container, name)) not in own}


def _unstarred(profile_path: str, before: bytes, after: bytes | None, *,
               symbols: tuple[Any, Any] | None = None) -> set[tuple[tuple[str, ...], str]]:
    """The ((), name) of each top-level definition both versions hold that a star import of the file
    took before and no longer takes (dropped from its `__all__`, or an `__all__` written that leaves
    it out: profile `star_names`, `star_hidden`): gone for every use that reaches it through a star
    import. Found driving wtc on httpx: `QueryParams` renamed, an alias kept outside `__all__`, and
    the package's `from ._urls import *` no longer took it."""
    profile = semantic_profile(profile_path)
    if after is None or profile is None or not (profile.semantic.star_names or profile.semantic.star_hidden):
        return set()
    if symbols is not None:
        old, new = (None if found is None else {(d.container, d.name) for d in found.definitions} for found in symbols)
    else:
        old, new = _definitions(profile_path, before), _definitions(profile_path, after)
    if not old or not new:
        return set()
    kept = {name for container, name in old & new if not container}
    if not kept:
        return set()
    try:
        listed_before, listed_after = star_names(profile, before), star_names(profile, after)
    except (ValueError, UnicodeDecodeError):
        return set()
    if listed_before == listed_after:
        return set()   # (the same list, or none in either: a star import takes each name as it did)

    def takes(listed: frozenset[str] | None, name: str) -> bool:
        hidden = profile.semantic.star_hidden
        return name in listed if listed is not None else not (hidden and name.startswith(hidden))
    return {((), name) for name in kept if takes(listed_before, name) and not takes(listed_after, name)}


def _unpassed(profile_path: str, before: bytes, after: bytes | None,
              files_named: Callable[[str, str], list[str]],
              read: Callable[[str], bytes | None], *,
              symbols: tuple[Any, Any] | None = None,
              imports: Callable[[bytes], Any] | None = None,
              lines: dict[str, str] | None = None) -> tuple[set[tuple[tuple[str, ...], str]], bytes]:
    """The ((), name) of each name a star re-export `before` holds and `after` dropped passed on
    (`export * from './intl.js'`, `from .intl import *`): the top-level names the starred file
    defines (those its star list takes) that `after` does not define itself (`lines`, when given,
    receives each such name's star line, as text); and `before` with each
    such `*` written as those names (profile `star_named`: `export {formatNumber} from
    './intl.js'`), which the post-merge check reads as a re-export the task dropped, as it reads a
    name dropped from an `export {...} from` list. Found driving wtc on Chart.js: a barrel lost
    `export * from './helpers.intl.js'` while a file imported `formatNumber` through it; the barrel
    defines nothing, so nothing counted as removed, and the landed tree did not type-check."""
    profile = semantic_profile(profile_path)
    if after is None or profile is None or not profile.semantic.star_named \
            or b"*" not in ranges_text(before, touched_lines(before, after)):
        return set(), before   # (a star line dropped or rewritten is a touched line holding its `*`)
    new = symbols[1] if symbols is not None and symbols[1] is not None else _extracted(profile_path, after, uses=False)
    old = imports(before) if imports is not None else _extracted(profile_path, before, imports_only=True)
    if old is None or new is None or len(old.star_spans) != len(old.star_modules):
        return set(), before
    defined = {d.name for d in new.definitions if not d.container}
    out: set[tuple[tuple[str, ...], str]] = set()
    named = bytearray(before)
    # Last first, so that the earlier spans still hold.
    for module, (start, end) in sorted(zip(old.star_modules, old.star_spans), key=lambda pair: -pair[1][0]):
        if module in new.star_modules:
            continue
        names = {name for path in files_named(module, profile_path)
                 for name in _star_passes(path, files_named, read, set())} - defined
        if names:
            out |= {((), name) for name in names}
            if lines is not None:   # the whole line the `*` stands on, as the note quotes it
                line_end = before.find(b"\n", end)
                line = before[before.rfind(b"\n", 0, start) + 1:len(before) if line_end < 0 else line_end]
                lines.update(dict.fromkeys(names, line.decode("utf-8", "replace").strip()))
            named[start:end] = (profile.semantic.star_named % ", ".join(sorted(names))).encode()
    return out, bytes(named)


MAX_STAR_DEPTH = 8   # star re-exports followed from a dropped one, at most (a barrel of barrels)


def _star_passes(path: str, files_named: Callable[[str, str], list[str]], read: Callable[[str], bytes | None],
                 seen: set[str]) -> set[str]:
    """The top-level names a star import of the file `path` takes: its definitions (those its star
    list takes: `__all__`, no `_name`), and what its own star re-exports pass on in turn (a barrel
    of barrels: Chart.js's src/index.ts `export * from './helpers/index.js'`, itself all `export *`
    lines), each file once, at most MAX_STAR_DEPTH deep."""
    if path in seen or len(seen) >= MAX_STAR_DEPTH:
        return set()
    seen.add(path)
    text, profile = read(path), semantic_profile(path)
    if text is None or profile is None or len(text) > MAX_BYTES:
        return set()
    try:
        listed = star_names(profile, text)
    except (ValueError, UnicodeDecodeError):
        return set()
    hidden = profile.semantic.star_hidden

    def takes(name: str) -> bool:
        return name in listed if listed is not None else not (hidden and name.startswith(hidden))
    definitions = _definitions(path, text) or set()
    exported = {name for container, name in definitions if container == EXPORTS}
    if exported and profile.semantic.default_export:
        # An ES module's star passes its exports (`export {default as BarController} from`, `export
        # function f`), never its default nor what it keeps unexported.
        names = exported - {profile.semantic.default_export}
    else:
        names = {name for container, name in definitions if not container and takes(name)}
    symbols = _extracted(path, text, imports_only=True)
    for module in symbols.star_modules if symbols is not None else ():
        for target in files_named(module, path):
            names |= {name for name in _star_passes(target, files_named, read, seen) if takes(name)}
    return names


def _computed_star_list(profile_path: str, before: bytes, after: bytes) -> str:
    """What to say when the task changed the star list of a file (a line spelling profile
    `star_list`, `__all__`, touched or added) and that list is computed (symbols.computed_star_list:
    `__all__ += [...]`): the names a star import takes from it cannot be read, so a use through one
    is neither named nor ruled out (never a block on a guess). "" when there is nothing to say."""
    profile = semantic_profile(profile_path)
    if profile is None or not profile.semantic.star_names or not profile.semantic.star_list:
        return ""
    word = profile.semantic.star_list.encode()
    if word not in after:
        return ""
    changed = ranges_text(before, touched_lines(before, after)) + b"\n" + added_text(before, after)
    if not re.search(rb"(?<![\w$])" + re.escape(word) + rb"(?![\w$])", changed):
        return ""
    try:
        line = computed_star_list(profile, after)
    except (ValueError, UnicodeDecodeError):
        return ""
    return "" if line is None else (f"what a star import takes from {profile_path} could not be read: computed "
                                    f"{profile.semantic.star_list} at {profile_path}:{line}")


def _lists_anew(profile_path: str, before: bytes, after: bytes) -> bool:
    """Whether `after` writes the list a star import of the file takes (profile `star_list`,
    `__all__`) more often than `before`: an `__all__` inserted into a module that had none changes
    what `from m import *` takes with added lines alone."""
    profile = semantic_profile(profile_path)
    if profile is None or not profile.semantic.star_names or not profile.semantic.star_list:
        return False
    return star_list_added(profile.semantic.star_list.encode(), before, after)


def _to_look_for(gone: set[tuple[tuple[str, ...], str]],
                 removed: set[tuple[tuple[str, ...], str]] | None = None) -> set[tuple[tuple[str, ...], str]]:
    """The removed definitions whose word (semantic.use_word) a use must spell: a member of a class
    removed with it (`removed`: every definition the file lost, `gone` when not told) is reached
    through the class's name (an import, a call, `Owner.member`), and is left out of the search.
    Found driving pydantic: a branch removing a class took its `__init__`, `value` and `merge` along; the
    files mentioning those words filled the MAX_FILES read before tests/test_utils.py, whose import of
    the removed `unique_list` went unnamed. So too a nested class of a class with bases, which the
    check does not take as gone (`_inherited`: a base may give it): its members are still reached
    through it (okhttp 8956946b37b0: the members of the nested classes a class lost were grepped by
    their own words, `build`, `get`..., 163 files read against 44)."""
    whole = gone if removed is None else removed
    return {(container, name) for container, name in gone if not container or (container[:-1], container[-1]) not in whole}


def _extracted(profile_path: str, data: bytes, **options: Any) -> Any:
    """symbols.py's extraction of a version of a file (`options`: extract's); None when no profile
    reads the file, it is too big, or it does not decode."""
    profile = semantic_profile(profile_path)
    if profile is None or len(data) > MAX_BYTES:
        return None
    try:
        return extract(reading_profile(profile_path, data, profile), data, **options)
    except (ValueError, UnicodeDecodeError):
        return None


def _definitions_reader(kept: Any, *, on_disk: bool = False) -> Callable[[str, str, bytes], Any]:
    """`read(path, blob id, data)`: the definitions of one version (`_extracted`, uses=False), taken
    from the merge index `kept` where the merge's own check extracted that blob already, or the
    task's finish did (check/task_facts.py: kept on disk, loaded for the merge with its task's
    changes, merge.tree._prefetch), else extracted. A kept None (a version that does not parse
    cleanly, which the check reads as nothing) is extracted here as before: the look reads what
    the parser did read of it. Inside a drain (`kept.draining`) only this process's memory is
    asked: the prefetch put there what the disk keeps of the task's versions, and a question of
    the disk per version answered almost never (a SQLite read a version, 8 a merge of
    bench_merge's drain). What the look extracts is kept under its own mode (LOOK_DEFINITIONS: it
    reads a version the check would take as unreadable, so it never answers the check), in
    memory (`on_disk`: on disk too, the finish's): a later look reads it again (a file two
    tasks edit has one pin version)."""
    known: dict[tuple[str, str], Any] = {}   # one look reads a version at most once (moves, stubs, removals)

    def read(path: str, oid: str, data: bytes) -> Any:
        if (path, oid) not in known:
            known[(path, oid)] = extracted(path, oid, data)
        return known[(path, oid)]

    def extracted(path: str, oid: str, data: bytes) -> Any:
        if kept is None or len(data) > MAX_BYTES or (profile := semantic_profile(path)) is None:
            return _extracted(path, data, uses=False)
        from ..merge.checks.merge_index import LOOK_DEFINITIONS, MISSING
        from ..merge.checks.symbols import fingerprint

        key, blob_id = fingerprint(profile), bytes.fromhex(oid)
        for mode in (True, False, LOOK_DEFINITIONS):
            found = kept.kept_symbols(key, blob_id, mode)
            if found is not MISSING and found is not None:
                return found
        if not kept.draining:
            found = kept.known_symbols(key, blob_id, (True, False, LOOK_DEFINITIONS))
            if found is not MISSING and found is not None:
                return found
        found = _extracted(path, data, uses=False)
        kept.keep_symbols(key, blob_id, LOOK_DEFINITIONS, found, disk=on_disk)
        return found
    return read


def _imports_reader(kept: Any) -> Callable[[str, str, bytes], Any]:
    """`read(path, blob id, data)`: the imports of one version (`_extracted`, imports_only=True),
    taken from the merge index `kept` where the merge's own check, or the task's finish, extracted
    that blob (a definitions' extraction of a clean parse holds the imports whole: symbols.extract), else
    extracted. A kept None (a version that does not parse cleanly) is extracted here as before."""
    def read(path: str, oid: str, data: bytes) -> Any:
        if kept is not None and len(data) <= MAX_BYTES and (profile := semantic_profile(path)) is not None:
            from ..merge.checks.merge_index import MISSING
            from ..merge.checks.symbols import IMPORTS_ONLY, fingerprint

            key, blob_id = fingerprint(profile), bytes.fromhex(oid)
            for mode in (IMPORTS_ONLY, True, False):
                found = kept.kept_symbols(key, blob_id, mode)
                if found is not MISSING and found is not None:
                    return found
        return _extracted(path, data, imports_only=True)
    return read


def _reshapes_reader(kept: Any, *, on_disk: bool = False) -> Callable[..., set[tuple[tuple[str, ...], str]]]:
    """`read(path, old id, new id, before, after, symbols)`: signatures.reshaped of one edit (both
    versions given), kept in the merge index `kept` by the two blobs (pure in them: a pair fact)
    where the task's finish computed it (check/task_facts.py; `on_disk`: the finish's, written
    there), else computed. It parses both versions (a parameter list is read from the tree), which
    the look's extractions did just before, so each merge of a drain paid those parses again."""
    def read(path: str, old: str, new: str, before: bytes, after: bytes, symbols: Any) -> set:
        profile = semantic_profile(path) if kept is not None else None
        if profile is None:
            return reshaped(path, before, after, symbols=symbols)
        from ..merge.checks.symbols import fingerprint

        return kept.pair_fact("reshaped", fingerprint(profile), bytes.fromhex(old), bytes.fromhex(new),
                              lambda: reshaped(path, before, after, symbols=symbols), disk=on_disk)
    return read


def _specifiers_reader(kept: Any) -> Callable[[Any, bytes], list[tuple[str, int, str]]]:
    """`read(profile, data)`: symbols.module_specifiers of one version (own_imports.py's reading of
    the task's files), kept in the merge index `kept` by content (mode SPECIFIERS) where the task's
    finish read it (check/task_facts.py), else read (a parse and a query) and kept."""
    def read(profile: Any, data: bytes) -> list[tuple[str, int, str]]:
        if kept is None:
            return module_specifiers(profile, data)
        from ..merge.checks.merge_index import SPECIFIERS
        from ..merge.checks.symbols import fingerprint

        return kept.symbols(fingerprint(profile), data, SPECIFIERS, lambda: module_specifiers(profile, data))
    return read


def _import_names(profile_path: str, data: bytes, imports: Callable[[bytes], Any] | None = None) -> set[str]:
    """The names a version of a file binds by importing them at its top level (`imports`: the
    look's reader of a version's imports, `_imports_reader`)."""
    symbols = imports(data) if imports is not None else _extracted(profile_path, data, imports_only=True)
    return set() if symbols is None else {item.bound for item in symbols.imports if item.scope is None}


def _definitions(profile_path: str, data: bytes, *, imports: bool = True) -> set[tuple[str, str]] | None:
    """The (container, name) of each definition a version of a file holds (`imports`: its import
    bindings too); None when it cannot be read."""
    symbols = _extracted(profile_path, data, uses=False)
    return None if symbols is None else {(d.container, d.name) for d in symbols.definitions
                                         if imports or d.kind != "import"}


def uses_left_behind(changes: Iterable[Change], read_blob: Callable[[str], bytes], since: str,
                     grep: Callable[[str, list[str]], list[str]],
                     file_at: Callable[[str, str], bytes | None], *, at: str | None = None,
                     max_changed: int = MAX_CHANGED,
                     folders_at: Callable[[str, str], list[str] | None] | None = None,
                     max_files: int = MAX_FILES, partial: list[str] | None = None,
                     unread: list[str] | None = None) -> list[LeftBehind]:
    """Each use, in a file the task did not change, of a name the task removed or renamed.
    `grep(commit, names)` lists the files of `commit` that mention one of `names` as a word.
    With `at` (a whole run: `changes` from its pin `since` to its integration tip `at`), the uses
    are read at `at` in every file that removed no name, changed or not: what the landed tree
    still uses and no longer defines. `folders_at(commit, folder)` lists a folder's subfolders (a
    workspace's packages, for a use importing `@acme/core`). At most `max_files` files mentioning a
    removed name are read; `partial`, when given, receives a line saying how many were left unread,
    and `unread` one for each star list the task changed that is computed (`__all__ += [...]`:
    what a star import takes from that file cannot be read, _computed_star_list)."""
    changes = list(changes)
    found = _broken_uses(changes, read_blob, since, grep, file_at, at=at, max_changed=max_changed,
                         folders_at=folders_at, max_files=max_files, partial=partial, unread=unread)
    grouped: dict[tuple[str, str], list] = {}
    for finding in found:
        grouped.setdefault((finding.use_path, finding.name), []).append(finding)
    others = {key: uses for key, uses in grouped.items() if uses[0].kind != OWN_IMPORT}
    moved = moved_files(changes, read_blob, {uses[0].definition_path for uses in others.values()})
    went = moved_names(changes, read_blob, {(uses[0].definition_path, name) for (_, name), uses in others.items()
                                            if uses[0].definition_path not in moved
                                            and uses[0].kind not in ("module", "signature")})
    deleted = deleted_unanswered(changes)
    out: list[LeftBehind] = []
    for (path, name), uses in grouped.items():
        where = uses[0].definition_path
        if uses[0].kind == OWN_IMPORT:
            # The task's own file (own_imports.py): `definition` holds the path it was moved from.
            out.append(LeftBehind(path, tuple(f.use_line for f in uses), name, where, "", "", OWN_IMPORT,
                                  moved_from=uses[0].definition))
            continue
        # (a reshaped function stays where it is: its calls are what is left behind)
        moved_to = "" if uses[0].kind == "signature" else moved.get(where) or went.get((where, name), "")
        out.append(LeftBehind(path, tuple(f.use_line for f in uses), name, where, uses[0].replacement or "",
                              moved_to, left_kind(uses[0].kind, where, moved_to, deleted),
                              uses[0].star_list if all(f.star_list for f in uses) else "", uses[0].arguments,
                              star_line="" if moved_to else uses[0].star_line, keyword=uses[0].keyword))
    return out


def left_kind(finding_kind: str, definition_path: str, moved_to: str, deleted: set[str]) -> str:
    """A LeftBehind's `kind` for a finding of `finding_kind` (SemanticFinding.kind): a module or an
    export as found; a name whose file the task deleted (`deleted`: deleted_unanswered) and moved
    nowhere, "deleted"; else ""."""
    if finding_kind in ("module", "export", "signature", OWN_IMPORT):
        return finding_kind
    return "deleted" if definition_path in deleted and not moved_to else ""


def deleted_unanswered(changes: Iterable[Change]) -> set[str]:
    """The files the task deleted whose module path no file it added or changed answers (pkg/fast.py
    gone, no pkg/fast/__init__.py added): a name used from one went with its file, and the note says
    so, not "removed or renamed". Not in a language whose directories are packages (Go): the rest of
    the folder, which the task did not change, may still be the package."""
    answered: set[str] = set()
    gone: list[str] = []
    for change in changes:
        profile = semantic_profile(change.path)
        if profile is None or profile.semantic.package == "directory":
            continue
        if change.new_oid is not None:
            answered.add(PATH_FACTS.module_path(change.path))
        elif change.old_oid is not None:
            gone.append(change.path)
    return {path for path in gone if PATH_FACTS.module_path(path) not in answered}


def moved_names(changes: list[Change], read_blob: Callable[[str], bytes],
                wanted: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Where the task moved single names whose file stays: for each (file, name) in `wanted`, the one
    other file of the same kind, added or changed by the task, that newly defines `name` (its base
    version did not). Found on a report: a function moved to a new file while its old file kept
    the rest had no `moved_to`, and the advice was an alias, as for a rename."""
    if not wanted:
        return {}
    changed = [c for c in changes if c.new_oid is not None and semantic_profile(c.path) is not None][:MAX_FILES]
    new_names: dict[str, set[str]] = {}
    for change in changed:
        # (a file that newly imports the name uses it from elsewhere: the name did not move there)
        after = _definitions(change.path, read_blob(change.new_oid), imports=False) or set()
        before = (_definitions(change.path, read_blob(change.old_oid), imports=False) or set()) if change.old_oid else set()
        new_names[change.path] = {name for container, name in after - before if not container}
    out: dict[tuple[str, str], str] = {}
    for path, name in wanted:
        suffix = path.rsplit(".", 1)[-1]
        places = [other for other, names in new_names.items()
                  if other != path and other.endswith("." + suffix) and name in names]
        if len(places) == 1:
            out[(path, name)] = places[0]
    return out


def moved_files(changes: list[Change], read_blob: Callable[[str], bytes], deleted: set[str], *,
                stubs: bool = False, definitions: Callable[[str, str, bytes], Any] | None = None) -> dict[str, str]:
    """Which of the `deleted` files the task moved, and where: a file it added, of the same kind,
    that defines at least four in five of the deleted file's names (`git mv` and a few edits; git's
    own rename detection reads the text, this the definitions, which is what the uses need). With
    `stubs`, a file of `deleted` the task kept but rewrote counts too (a stub left at the old path,
    `export * from "./new/place"`), when its new version holds none of the moved names itself, or
    its old text is the added file's whole."""
    gone = {c.path: c for c in changes if c.old_oid is not None and c.path in deleted
            and (c.new_oid is None or stubs)}
    added = [c for c in changes if c.old_oid is None and c.new_oid is not None][:MAX_FILES]
    if not gone or not added:
        return {}

    def names(path: str, oid: str) -> set[str]:
        if definitions is not None:   # the look's own reader: each version extracted once a look
            found = definitions(path, oid, read_blob(oid))
            return set() if found is None else {d.name for d in found.definitions}
        return {name for _container, name in _definitions(path, read_blob(oid)) or set()}

    moved: dict[str, str] = {}
    candidates: dict[str, set[str]] | None = None   # read when a file is not moved whole nor kept (a
    # task that edits files and adds one, deleting none, reads no added file's definitions)
    for path, change in gone.items():
        same = [c.path for c in added if c.new_oid == change.old_oid]
        if len(same) == 1:
            moved[path] = same[0]   # `git mv` and no edit (a file that defines nothing: `import './setup.js'`)
            continue
        if change.new_oid is not None and len(changes) > MAX_FILES:
            continue   # a stub is looked for among a few changes only (each costs two parses)
        old = names(path, change.old_oid)
        if change.new_oid is not None and old & names(path, change.new_oid):
            continue   # it still defines what it did: a file kept, not a stub left behind
        if not old:
            continue   # nothing to find elsewhere
        if candidates is None:
            candidates = {c.path: names(c.path, c.new_oid) for c in added if semantic_profile(c.path) is not None}
        suffix = path.rsplit(".", 1)[-1]
        best = max(((len(old & new), other) for other, new in candidates.items() if other.endswith("." + suffix)),
                   default=(0, ""))
        if old and best[0] * 5 >= len(old) * 4:
            moved[path] = best[1]
    return moved


def dropped_by_resolution(git: GitRepo, merge: dict[str, str], paths: Iterable[str], merged: str,
                          task: str) -> list[SemanticFinding]:
    """Uses, anywhere in the tree `merged`, of a definition the integration side of a `task update`
    merge holds (`merge`: its base, ours = the task, theirs = integration) that the agent's hand
    resolution of `paths` (the files that update left markers in) dropped: the agent kept its own
    side of a block and lost a function integration added, which another file of integration calls.
    The merge checks cannot see it (the name was never at any merge base), and the queue's three-way
    view of the finish, based on integration's tip, sees only the task removing it. A name the task
    removed on purpose (its base had it, its own side did not) is not counted: that is a removal
    the other checks and the left-behind notes answer for."""
    changes: list[Change] = []
    on_purpose: set[str] = set()
    for path in paths:
        theirs, now = git.file_id_at(merge["theirs"], path), git.file_id_at(merged, path)
        if theirs is None or theirs == now:
            continue   # (now None: the resolution deleted the file, and every name in it)
        changes.append(Change(path, None, None, theirs, now))
        base, ours = git.file_at(merge["base"], path), git.file_at(merge["ours"], path)
        if base is not None:
            on_purpose |= _removed_names(path, base, ours)
    if not changes:
        return []
    found = _broken_uses(changes, git.read_blob, merge["theirs"], git.files_mentioning, git.file_at, at=merged,
                         ignore=on_purpose, folders_at=git.folders_at, own_imports=False)
    return [dataclasses.replace(f, removed_by=task, used_by="integration", problem="dropped") for f in found]


def readable_changes(changes: Iterable[Change]) -> list[Change]:
    """The changed files a removed name is looked for in: each that existed before and that a
    profile's semantic check reads, but a file moved whole (its blob added at another path) of a
    language whose names are reached by package, not by path (the linked ones: C, C++, C#, Kotlin):
    it removes no name (okhttp 3ad1912f: 246 files moved from src/main/kotlin to src/jvmMain/kotlin,
    their packages the same; each use of a name of one the look did not reach was said left behind)."""
    changes = list(changes)
    added = {c.new_oid for c in changes if c.old_oid is None and c.new_oid is not None}
    return [c for c in changes if c.old_oid is not None and semantic_profile(c.path) is not None
            and not (c.new_oid is None and c.old_oid in added and is_linked(package_key(c.path)))]


def _broken_uses(changes: Iterable[Change], read_blob: Callable[[str], bytes], since: str,
                 grep: Callable[[str, list[str]], list[str]],
                 file_at: Callable[[str, str], bytes | None], *, at: str | None = None,
                 max_changed: int = MAX_CHANGED, ignore: set[str] | frozenset[str] = frozenset(),
                 folders_at: Callable[[str, str], list[str] | None] | None = None,
                 max_files: int = MAX_FILES, partial: list[str] | None = None,
                 unread: list[str] | None = None, own_imports: bool = True,
                 kept: Any = None) -> list[SemanticFinding]:
    """The post-merge check's findings behind `uses_left_behind` (its docstring), one per use;
    names in `ignore` are not counted as removed. Then the imports of a module the task deleted or
    moved that no file answers any more (left_modules.py), in a file no name's finding names for it;
    and (`own_imports`) the relative imports of the task's own files that its moves left naming
    nothing (own_imports.py). `kept`: the merge index the merge's own check extracted the same
    versions into (merge_index.py)."""
    changes = list(changes)
    definitions = _definitions_reader(kept)
    grep = _asked_once(grep)
    found = _broken_names(changes, read_blob, since, grep, file_at, at=at, max_changed=max_changed, ignore=ignore,
                          folders_at=folders_at, max_files=max_files, partial=partial, unread=unread,
                          definitions=definitions, imports=_imports_reader(kept), reshapes=_reshapes_reader(kept))
    # An import line already named for a name of the deleted file (`const { f } = require('./gone')`)
    # is not named again for the module; one that binds none of them (`import a.b.C;` before
    # `C.f()`, the line that stops compiling first) is.
    named = {(f.use_path, f.definition_path, f.use_line) for f in found}
    found += [f for f in modules_left_behind(changes, read_blob, since, grep, file_at, at=at,
                                             folders_at=folders_at, max_files=max_files, unread=unread)
              + includes_left_behind(changes, since, grep, file_at, at=at, max_files=max_files)
              + fixtures_left_behind(changes, read_blob, since, grep, file_at, at=at, max_files=max_files)
              if (f.use_path, f.definition_path, f.use_line) not in named]
    # The task's own files: a relative import its move or deletion left naming nothing
    # (own_imports.py), on a line no finding above names already.
    if not own_imports:
        return found
    lines = {(f.use_path, f.use_line) for f in found}

    def moved() -> dict[str, str]:
        return moved_files(changes, read_blob, {c.path for c in changes if c.old_oid is not None}, stubs=True,
                           definitions=definitions)
    return found + [f for f in own_imports_broken(changes, read_blob, since, file_at, moved, at=at,
                                                  folders_at=folders_at, max_files=max_files,
                                                  specifiers=_specifiers_reader(kept))
                    if (f.use_path, f.use_line) not in lines]


def _asked_once(grep: Callable[[str, list[str]], list[str]]) -> Callable[[str, list[str]], list[str]]:
    """`grep`, each (tree, words) asked once a look: the module words of a deleted file are looked
    for by the removed names' search and again by the deleted modules' (left_modules.py)."""
    answers: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def ask(where: str, words: list[str]) -> list[str]:
        key = (where, tuple(words))
        if key not in answers:
            answers[key] = list(grep(where, words))
        return list(answers[key])
    return ask


def _broken_names(changes: list[Change], read_blob: Callable[[str], bytes], since: str,
                  grep: Callable[[str, list[str]], list[str]],
                  file_at: Callable[[str, str], bytes | None], *, at: str | None,
                  max_changed: int, ignore: set[str] | frozenset[str],
                  folders_at: Callable[[str, str], list[str] | None] | None,
                  max_files: int, partial: list[str] | None, unread: list[str] | None,
                  definitions: Callable[[str, str, bytes], Any],
                  imports: Callable[[str, str, bytes], Any],
                  reshapes: Callable[..., set[tuple[tuple[str, ...], str]]] | None = None) -> list[SemanticFinding]:
    """The uses of removed names (`_broken_uses`; `definitions` and `imports`: its readers of a
    version's definitions and of its imports; `reshapes`: of an edit's reshaped functions). A use of a name a star re-export line the task
    dropped passed on carries that line (`star_line`)."""
    star_lines: dict[tuple[str, str], str] = {}   # (file, name) -> the dropped star line that passed it on
    removed: set[str] = set()
    words: set[str] = set()
    imported: set[str] = set()   # removed names that were imports of the changed file, not its own definitions
    files: list[FileVersions] = []
    # The task's version of each file it changed or added that removed no name (`task check`, `at`
    # None): read as a user, every line of it, as the look at a merge reads it in the merged tree (a
    # use left on an untouched line of a file the task touched elsewhere was read by neither side).
    own_users: dict[str, bytes] = {}
    own_uses: list[SemanticFinding] = []   # uses left in the file the name was removed from (own_uses.py)
    readable = readable_changes(changes)
    # What a dropped star re-export named, read as the tree stood at `since`.
    files_named = tree_module_files(lambda _which, path: file_at(since, path),
                                    None if folders_at is None else lambda _which, folder: folders_at(since, folder))
    if len(readable) > max_changed:
        raise LookupTooLarge(f"{len(readable)} files with a semantic check changed, more than the "
                             f"{max_changed} read for removed names")
    reshaped_any = False   # a function whose required parameters changed: its old-way calls are read too
    # A file deleted whose path nothing answers now, in a language whose imports name files: its names
    # are looked for only in the files that spell its module (`modules`: their words), not in every
    # file that spells one of them. A use that reaches it without spelling it goes through a file that
    # imports it (a barrel, a star import), and that import no file answers is left behind itself
    # (left_modules.py, read beside this); found measuring a drain: a deleted module defining `get`,
    # `f0`..., made each merge grep and read a hundred of the 20,000 files that spell those words.
    by_module = {path for path in deleted_unanswered(changes) if loads_modules(path)}
    modules: set[str] = set()
    gone_from: dict[str, set[str]] = {}   # the names read as removed from each changed file

    declared_elsewhere: set[tuple[str, str]] = set()   # (file, namespace) it stopped declaring that others declare
    # The changed files whose classes lost members: their own calls of them through an instance are
    # read once every file spelling the names is (own_members.py).
    own_members: list[tuple[str, bytes, set[tuple[tuple[str, ...], str]], Any]] = []
    # A changed file's version as the task leaves it (None: deleted), read only when asked.
    new_versions = {c.path: (lambda oid=c.new_oid: read_blob(oid) if oid is not None else None) for c in changes}

    read_since = functools.partial(file_at, at or since)   # (a manifest beside a root module: root_imports.py)

    def read_change(change: Change) -> None:
        """What one changed file removed (or reshaped), taken into the sets above."""
        nonlocal reshaped_any
        before = read_blob(change.old_oid)
        after = read_blob(change.new_oid) if change.new_oid is not None else None
        if unread is not None and after is not None and (computed := _computed_star_list(change.path, before, after)):
            unread.append(computed)
        edited = after is None or bool(touched_lines(before, after))
        # Both versions' definitions, extracted once for the removed names and the reshaped functions.
        symbols = (definitions(change.path, change.old_oid, before), None if after is None
                   else definitions(change.path, change.new_oid, after)) if edited else None
        shapes = {pair for pair in (reshapes(change.path, change.old_oid, change.new_oid, before, after, symbols)
                                    if reshapes is not None else reshaped(change.path, before, after, symbols=symbols))
                  if pair[1] not in ignore} if after is not None else set()
        if shapes:
            reshaped_any = True
            words.update(word for pair in shapes for word in use_words(change.path, *pair, read_since))
        if after is not None and not edited and not _lists_anew(change.path, before, after) and not shapes:
            # Lines added only: no definition can have gone (nothing to parse for that). The file
            # still stands in the merge as the task wrote it: a name it now defines answers a use
            # that reaches it (f moved from c.py up to a.py, which `pkg/__init__.py` star-imports).
            # (Unless the lines write the list a star import takes, `__all__`: that hides the names
            # it leaves out without touching a line of theirs, _unstarred.)
            if at is None:
                own_users[change.path] = after
            return
        read_imports = functools.partial(imports, change.path, change.old_oid)   # (of `before`)
        if symbols is not None and symbols[0] is not None:
            # Its definitions' extraction holds its imports whole (the same query's matches:
            # symbols.extract, tests/merge/test_imports_only.py): not extracted a second time.
            read_imports = lambda _data, found=symbols[0]: found   # noqa: E731
        passed_by: dict[str, str] = {}
        passed, named = _unpassed(change.path, before, after, files_named, lambda path: file_at(since, path),
                                  symbols=symbols, imports=read_imports, lines=passed_by)
        star_lines.update({(change.path, name): line for name, line in passed_by.items()})
        pairs = {pair for pair in _removed(change.path, before, after, symbols=symbols)
                 | _unstarred(change.path, before, after, symbols=symbols) | passed if pair[1] not in ignore}
        removed_whole = set(pairs)   # (a class a base may give is kept from the check, yet its members are reached through it)
        if pairs and symbols is not None and symbols[0] is not None:
            pairs -= _inherited(change.path, symbols[0], pairs)
        if pairs and symbols is not None:
            # (C#: a namespace another file still declares is not gone: neither looked for, nor a
            # finding of the check, which reads the file as removing it)
            kept = still_declared(change.path, before, symbols[0], pairs, lambda names: grep(at or since, names),
                                  lambda path: new_versions[path]() if path in new_versions else file_at(at or since, path))
            declared_elsewhere.update((change.path, name) for _container, name in pairs - kept)
            pairs = kept
        gone = {name for _container, name in pairs}
        removed.update(gone)
        gone_from[change.path] = gone
        if change.path in by_module and gone and (word := module_word(change.path)):
            modules.add(word)
        else:
            words.update(word for pair in _to_look_for(pairs, removed_whole) for word in use_words(change.path, *pair, read_since))
        if gone:
            imported.update(gone & _import_names(change.path, before, read_imports))
            if after is not None:
                own_uses.extend(own_file_uses(change.path, after, pairs,
                                              symbols[0] if symbols is not None else None,
                                              symbols[1] if symbols is not None else None, before,
                                              package_top(change.path, after, new_versions)))
                if any(container for container, _name in pairs):
                    own_members.append((change.path, after, pairs, symbols))
        if gone or shapes or (at is None and after is None):
            # The task is one side; the other side kept the file as it was (a dropped star
            # re-export written as the names it passed on: _unpassed).
            files.append(FileVersions(change.path, base=named, left=after, right=named, merged=after))
        elif at is None:
            own_users[change.path] = after

    # A deleted module's names matter only where a file could use them: read here (both of its
    # extraction's parse and placing) only when a file the look would read spells its module word
    # or a removed name (_read_deleted). Else the look answers the same with or without them: its
    # word finds no file, and no other file is read. A task file's own users (`at` None) are read
    # whatever the greps say, so a `task check` reads every deleted file as before.
    deferred = [change for change in readable if DEFER_DELETED and at is not None and change.new_oid is None
                and change.path in by_module and module_word(change.path)]
    for change in readable:
        if change not in deferred:
            read_change(change)
    if deferred and _read_deleted(deferred, words, modules, {f.path for f in files}, grep, at or since):
        for change in deferred:
            read_change(change)
        order = {change.path: number for number, change in enumerate(readable)}
        files.sort(key=lambda f: order[f.path])   # (in the changes' order, as they were read before)
    if not removed and not reshaped_any:
        return []
    touched = {c.path for c in changes} if at is None else {f.path for f in files}
    # The files the task added stand in the merge too: a module made a package (errors.py moved to
    # errors/__init__.py, which re-exports) still answers every import of it, as the landed tree does.
    # So does the task's version of every file it added or changed of a package a removal's file
    # shares (Go's folder, Kotlin's and C's linked files): a name moved there is not gone, though it
    # spells none of the words the look greps for (okhttp ab055862: `toCanonicalHost` moved to the
    # added -HostnamesJvm.kt, 299 names removed and 64 looked for; each use was said left behind).
    shared = {key for f in files if (key := package_key(f.path)) is not None}
    added = [c for c in changes if c.new_oid is not None and semantic_profile(c.path) is not None and (
        c.old_oid is None and c.path in touched
        or at is not None and c.path not in touched and package_key(c.path) in shared)][:MAX_FILES]
    if at is None:
        own_users.update((c.path, text) for c in added if len(text := read_blob(c.new_oid)) <= MAX_BYTES)
    else:
        files += [FileVersions(c.path, base=None, left=text, right=None, merged=text) for c in added
                  if len(text := read_blob(c.new_oid)) <= MAX_BYTES]
    where = since if at is None else at
    looked_for = sorted(words)
    mentioning = [path for path in (grep(where, looked_for[:MAX_NAMES]) if looked_for else [])
                  if path not in touched and semantic_profile(path) is not None]
    if modules:
        # (first: each may import a definition of the deleted module, as a file naming one of the
        # task's own definitions may use it)
        spelling_module = [path for path in grep(where, sorted(modules))
                           if path not in touched and semantic_profile(path) is not None]
        seen = set(spelling_module)
        mentioning = spelling_module + [path for path in mentioning if path not in seen]
    own = sorted(words - imported)
    # The files that may hold a use of a definition of the task's own (not only of a name a changed
    # file imported and no longer does): the ones that must all be read for an answer.
    crucial = len(mentioning) if own or modules else 0
    if len(mentioning) > max_files and own and len(own) < len(looked_for):
        # Too many to read: the files naming one of the task's own definitions first. Found driving
        # npm/cli: a moved module took its `const { log, output } = require('proc-log')` along, and the
        # hundreds of files saying `log` (its committed node_modules first) filled the read before
        # test/lib/utils/tar.js, whose require of the moved `getContents` went unnamed.
        first = [path for path in grep(where, own[:MAX_NAMES]) if path not in touched and semantic_profile(path) is not None]
        seen = set(first)
        mentioning = first + [path for path in mentioning if path not in seen]
        crucial = len(first)
    # Files left unread that mention one of the task's own definitions may hold a use: `partial`
    # (its callers make it no answer, exit 6). Files that mention only a name a moved file imported
    # (`log` of proc-log, in hundreds of files), and names left unsearched (a file deleted whole can
    # remove hundreds), are said in `unread` (a note): a task that moves a module must not need a
    # person's word to merge for the words its imports spell.
    said = partial if crucial > max_files else \
        unread if len(mentioning) > max_files or len(looked_for) > MAX_NAMES else None
    if said is not None:
        said.append(f"{min(len(mentioning), max_files)} of the {len(mentioning)} files mentioning "
                    f"{min(len(looked_for), MAX_NAMES)} of the {len(looked_for)} removed names were read")
    # Every file spelling a removed name read: a member called on a receiver of unknown class is then the
    # one class's that defines it, where sure (merge/checks/sole_members.py).
    whole = len(mentioning) <= max_files and len(looked_for) <= MAX_NAMES
    mentioning = mentioning[:max_files]
    # The other side "adds" each such file whole: each of its uses is a use the task's side did not see.
    texts = {path: text for path in mentioning if (text := file_at(where, path)) is not None}
    too_big = sorted(path for path, text in texts.items() if len(text) > MAX_BYTES)
    if too_big and unread is not None:
        # Not read (the check reads no file that big): said, never a silent clean.
        unread.append(f"{len(too_big)} file{'s' if len(too_big) > 1 else ''} mentioning a removed name "
                      f"{'are' if len(too_big) > 1 else 'is'} larger than the {MAX_BYTES} bytes read and "
                      f"{'were' if len(too_big) > 1 else 'was'} not read: {', '.join(too_big[:5])}"
                      + (", ..." if len(too_big) > 5 else ""))
    whole = whole and not too_big
    unchanged = [FileVersions(path, base=None, left=None, right=text, merged=text)
                 for path, text in texts.items() if len(text) <= MAX_BYTES]
    if own_members and whole:
        # (the changed files as the task leaves them: one may override the name in a subclass)
        others = dict(texts)
        others.update((path, text) for path, read_new in new_versions.items()
                      if path not in others and (text := read_new()) is not None and len(text) <= MAX_BYTES)
        said = {(finding.use_path, finding.name.rsplit(".", 1)[-1], finding.use_line) for finding in own_uses}
        for path, after, pairs, symbols in own_members:
            own_uses.extend(own_member_calls(path, after, pairs, symbols[0] if symbols is not None else None,
                                             symbols[1] if symbols is not None else None, others,
                                             {(name, line) for used_in, name, line in said if used_in == path}))
    spelled = spelling(word.encode("utf-8", "surrogateescape") for word in words | modules) if words | modules else None
    unchanged += [FileVersions(path, base=None, left=None, right=text, merged=text) for path, text in own_users.items()
                  if len(text) <= MAX_BYTES and spelled is not None and spelled.search(text) is not None]
    if not unchanged:
        return [finding for finding in own_uses if finding.name not in ignore]
    # Files neither "side" holds (a barrel the uses import through: `from "../internal"`, a workspace
    # package's entry: `from "@acme/core"`) are read there too.
    # The task's side of a file it changed is its own version (a crate root that now re-exports a
    # module it moved out); every other read is the tree at `where`.
    after_oids = {c.path: c.new_oid for c in changes} if at is None else {}
    # The base of a file the task changed is its version at `since` (a composer.json whose new
    # requirement may now define what the task deleted: composer_requires.py).
    changed_paths = {c.path for c in changes}
    before: dict[str, bytes | None] = {}

    # Each file of the tree read once per look: a star hub's chains ask for the same package files
    # thousands of times (networkx's `nx.find_cycle` through two `__init__.py` of 60 star imports
    # each: 26,000 reads, 10 CPU-s a `task check`, before this).
    read: dict[str, bytes | None] = {}

    def tree_file(which: str, path: str) -> bytes | None:
        if which == "left" and path in after_oids:
            oid = after_oids[path]
            return None if oid is None else read_blob(oid)
        if which == "base" and path in changed_paths and semantic_profile(path) is not None:
            # A source file the task changed that the check does not hold (it lost no name) is read, as
            # a file no side changed is, the way the merged tree holds it: the task's version (found
            # driving wtc on commander.js: lib/error.js moved to lib/errors.js with index.js's import,
            # and the tests' `commander.CommanderError` through `import * as commander from
            # '../index.js'` was said left behind, the re-export read through index.js before the task).
            return new_versions[path]()
        if which == "base" and path in changed_paths and where != since:
            if path not in before:
                before[path] = file_at(since, path)
            return before[path]
        if path not in read:
            read[path] = file_at(where, path)
        return read[path]

    folders = None if folders_at is None else lambda _which, path: folders_at(where, path)
    unreadable: set[str] = set()
    # Modules are read in the task's tree (`manifests="left"`): a go.mod it adds makes its folder a
    # module of its own, whose import path its folder's files then use.
    found = find_broken_names(files + unchanged, labels=("task", "base", "unchanged"), complete=False,
                              tree_file=tree_file, every_use=True, tree_folders=folders, unreadable=unreadable,
                              manifests="left", whole_words=whole)
    # A changed file whose version before the task does not parse cleanly: the check read nothing of
    # it, so no removal from it was seen. Read again with its base in pieces; else no answer.
    if (broken_bases := [f for f in files if f.path in unreadable and f.base is not None
                         and _does_not_parse(f.path, f.base)]):
        mended = _mended_bases(broken_bases, gone_from, removed | words, partial if partial is not None else unread)
        if mended:
            seen = {(f.use_path, f.use_line, f.name) for f in found}
            replaced = {f.path: f for f in mended}
            found += tuple(finding for finding in find_broken_names(
                [replaced.get(f.path, f) for f in files] + unchanged, labels=("task", "base", "unchanged"),
                complete=False, tree_file=tree_file, every_use=True, tree_folders=folders, manifests="left",
                whole_words=whole)
                if (finding.use_path, finding.use_line, finding.name) not in seen)
    # A file the parser does not read cleanly is read again in pieces (_read_in_pieces: the code
    # outside its ERROR nodes), else by its import statements alone (_imports_alone).
    pieces: dict[str, tuple[bytes, bytes]] = {}
    for f in unchanged:
        if f.path in unreadable and (piece := _read_in_pieces(f.path, f.merged or b"", removed | words)) is not None:
            pieces[f.path] = (f.merged or b"", piece)
    again = [FileVersions(f.path, base=None, left=None, right=kept, merged=kept) for f in unchanged
             if f.path in unreadable and (kept := pieces[f.path][1] if f.path in pieces
                                          else _imports_alone(f.path, f.merged or b"")) is not None]
    if again:
        # With the files read whole beside them: a piece's import of a file the task added
        # (`./measure.mjs`, moved from measure.js) resolves to it, not to the file it replaced (immer's
        # 2ef9a421, the false block hunt: add-data.mjs, read in pieces for its import assertion, was
        # checked without measure.mjs and its import named the deleted measure.js).
        seen = {(f.use_path, f.use_line, f.name) for f in found}
        whole = [f for f in unchanged if f.path not in unreadable]
        found += tuple(finding for finding in find_broken_names(files + whole + again,
                                                                labels=("task", "base", "unchanged"), complete=False,
                                                                tree_file=tree_file, every_use=True,
                                                                tree_folders=folders, manifests="left",
                                                                whole_words=whole)
                       if (finding.use_path, finding.use_line, finding.name) not in seen
                       and (finding.use_path not in pieces or _read_there(finding, pieces[finding.use_path][0])))
    # A call of a reshaped function the old way (signatures.py's finding) is a use left behind of its
    # own kind: the name stands, its shape does not.
    kept = [_with_star_line(finding if finding.problem == "broken"
                            else dataclasses.replace(finding, problem="broken", kind="signature"), star_lines)
            for finding in found
            if finding.problem in ("broken", "signature") and (finding.use_path not in touched or finding.use_path in own_users)
            and finding.removed_by == "task" and name_word(finding.name) not in ignore
            and (finding.definition_path, finding.name) not in declared_elsewhere]
    # A use in the renaming file itself names what replaced the name where another use's finding does.
    replaced = {(f.definition_path, f.name): f.replacement for f in kept if f.replacement and f.kind != "signature"}
    return kept + [dataclasses.replace(finding, replacement=replaced.get((finding.definition_path, finding.name), ""))
                   for finding in own_uses if finding.name not in ignore]


def _read_deleted(deferred: list[Change], words: set[str], modules: set[str], touched: set[str],
                  grep: Callable[[str, list[str]], list[str]], where: str) -> bool:
    """Whether a file the look reads at `where` spells a removed name (`words`) or the module word
    of a deleted file (`modules`, and those of `deferred`, whose names are not read yet): only
    then can the deferred files' definitions change the look's answer (_broken_names). `grep` is
    the look's own (each question asked once: the same ones follow)."""
    looked_for = sorted(words)[:MAX_NAMES]
    spelled = sorted(modules | {module_word(change.path) for change in deferred})
    return any(path not in touched and semantic_profile(path) is not None
               for asked in (looked_for, spelled) if asked for path in grep(where, asked))


def _with_star_line(finding: SemanticFinding, star_lines: dict[tuple[str, str], str]) -> SemanticFinding:
    """`finding` carrying the dropped star line that passed its name on (`star_line`), if one did."""
    line = star_lines.get((finding.definition_path, finding.name))
    return finding if line is None else dataclasses.replace(finding, star_line=line)


def _mended_bases(broken: list[FileVersions], gone_from: dict[str, set[str]], names: set[str],
                  said: list[str] | None) -> list[FileVersions]:
    """The changed files whose version before the task does not parse cleanly (`broken`: the check
    reads nothing of such a version, so it saw no name the task removed there), each with that
    version read in pieces (_read_in_pieces: the code outside its ERROR nodes) where that answers.
    Where it does not, the look has no answer for the file, said in `said` (the caller's no-answer
    list: exit 6), unless nothing was read as removed from it and the task's own version parses
    (it is then read as the landed tree has it, a file that uses names, and lost none of its own)."""
    mended: list[FileVersions] = []
    for f in broken:
        base = f.base or b""
        own_parses = f.left is None or not _does_not_parse(f.path, f.left)
        if not gone_from.get(f.path) and own_parses:
            continue
        piece = _read_in_pieces(f.path, base, names) if own_parses else None
        if piece is not None:
            mended.append(FileVersions(f.path, base=piece, left=f.left, right=piece, merged=f.merged))
            continue
        if said is not None:
            profile, root = _parsed(f.path, base)
            place = first_error(root) if root is not None else None
            line = place[0] + 1 if place is not None else 1
            what = "neither its version before this task nor the task's own parses" if not own_parses else \
                "its version before this task does not parse"
            # A project's own file that does not parse is mostly valid code the grammar lags behind
            # (immer's TypeScript call signatures): "fix the syntax" alone sent the reader to code
            # that compiles.
            grammar = f"wtc's {profile.name} grammar" if profile is not None else "wtc's grammar"
            said.append(f"{f.path}: {what} ({f.path}:{line} first), so the names the task removed from it "
                        f"could not be read: fix the syntax there, or, where it is valid syntax {grammar} does "
                        "not read, approve the merge unchecked")
    return mended


def _does_not_parse(path: str, text: bytes) -> bool:
    """Whether the parser reads `text` (a version of `path`) with an error: the check reads nothing of it."""
    _profile, root = _parsed(path, text)
    return root is not None and root.has_error


def _parsed(path: str, text: bytes) -> tuple[Any, Any]:
    """The profile that reads `path` and the root of its parse of `text`: (None, None) for a file no
    profile reads, (profile, None) for one its parser cannot take at all (nothing more to read)."""
    profile = semantic_profile(path)
    if profile is None:
        return None, None
    try:
        return profile, profile.parse(text).root_node
    except Exception:   # noqa: BLE001 - unreadable: nothing more to read
        return profile, None


def _read_in_pieces(path: str, text: bytes, names: set[str]) -> bytes | None:
    """A file the parser does not read cleanly as the code outside its ERROR nodes: each ERROR
    node's bytes made spaces (newlines kept: lines stay where they were), when that text then parses
    cleanly and no ERROR node held one of `names` (the removed names: what an ERROR node holds is
    unknown, a binding of one there might shadow the import a use outside it would be taken for);
    else None. Found driving wtc on headlessui: a test file whose JSX text holds `Toggle A & B`,
    which the TSX grammar does not parse, used a renamed name through a namespace import
    (`<P.Portal/>`), which its import lines alone do not name. The uses found are kept only where
    the whole file's own parse reads the same name outside its ERROR nodes (_read_there)."""
    profile, root = _parsed(path, text)
    if profile is None or root is None:
        return None
    errors = list(_error_nodes(root))
    if not errors:
        return None
    held = re.compile(r"(?<![\w$])(?:" + "|".join(map(re.escape, sorted(names))) + r")(?![\w$])") if names else None
    out = bytearray(text)
    for node in errors:
        if held is not None and held.search(text[node.start_byte:node.end_byte].decode("utf-8", "replace")):
            return None
        out[node.start_byte:node.end_byte] = bytes(byte if byte == 0x0A else 0x20 for byte in text[node.start_byte:node.end_byte])
    try:
        if profile.parse(bytes(out)).root_node.has_error:
            return None
    except Exception:   # noqa: BLE001
        return None
    return bytes(out)


def _error_nodes(node: Any) -> Any:
    """The outermost ERROR nodes below `node` (a MISSING node is one too: the text lacks a token), in
    the order of the text. A walk with a stack of its own, not a recursion: a syntax error 1500
    brackets deep nests that far, past Python's recursion limit."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            yield node
        elif node.has_error:
            stack.extend(reversed(node.children))


def _read_there(finding: SemanticFinding, text: bytes) -> bool:
    """Whether the file's own parse (with its ERROR nodes) holds, on the finding's line and outside
    any ERROR node, an identifier spelling the finding's name: the use read in pieces is the use
    the whole file has there, not text the piece's parse read another way."""
    profile = semantic_profile(finding.use_path)
    if profile is None:
        return False
    word = name_word(finding.name).encode()
    row = finding.use_line - 1
    stack = [profile.parse(text).root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.start_point[0] > row or node.end_point[0] < row:
            continue
        if not node.children:
            if node.type.endswith("identifier") and text[node.start_byte:node.end_byte] == word:
                return True
            continue
        stack.extend(node.children)
    return False


def _imports_alone(path: str, text: bytes) -> bytes | None:
    """A file the parser does not read cleanly (the check reads nothing of it) as its top-level import
    statements alone, each in its place (every other byte a space, newlines kept: the lines stay
    where they were); None when it has none the parser reads cleanly. Found driving wtc on
    headlessui: portal.test.tsx holds `Toggle A & B` in JSX text, which the TSX grammar does not
    parse; its `import { Portal } from './portal'` went unnamed when a task renamed Portal, and the
    landed tree did not type-check. An import of a name its module no longer exports fails whatever
    the rest of the file holds."""
    profile, root = _parsed(path, text)
    if root is None or not profile.semantic.import_statements:
        return None
    statements = {(node.start_byte, node.end_byte, node.type) for node in tree_sitter.QueryCursor(
        import_statements_query(profile)).captures(root).get("import", ())}
    kept = [(node.start_byte, node.end_byte) for node in root.children
            if not node.has_error and (node.start_byte, node.end_byte, node.type) in statements]
    if not kept:
        return None
    out = bytearray(byte if byte == 0x0A else 0x20 for byte in text)
    for start, end in kept:
        out[start:end] = text[start:end]
    return bytes(out)


def left_behind_at_merge(git: GitRepo, base: str, task_commit: str, merged: str, task: str, *,
                         unanswered: Callable[[str], Exception] | None = None) -> list[SemanticFinding]:
    """Uses, in the merged tree `merged` (a tree or commit id), of names the task's side removed or
    renamed since `base` (the merge base), where no side changed the use: the landed tree would not
    resolve them, and no line of either side shows it to the post-merge check (which reads new
    lines). Each is a finding of its own problem, `left_behind`, removed by `task`. Read on the
    merged tree, so a use another task already updated is gone, and a use in a file the task
    changed and left is counted too (its own file no longer resolves). A task that changed more
    files than the lookup reads (MAX_CHANGED), or whose removed names more files mention than it
    reads (MAX_FILES, MAX_NAMES), is not looked at in full: a merge must not cost the repository's
    size. No answer is not "none left behind": `unanswered(reason)` is raised then (the finish
    refuses to merge, exit 6, as `task check` exits); without it (a person said to merge unchecked)
    the merge goes on with what was read."""
    from ..merge.checks.merge_index import index_folder, shared_index

    kept = shared_index(index_folder(git.repo))
    changes = task_changes_kept(git, base, task_commit, kept)
    partial: list[str] = []
    try:
        found = _broken_uses(changes, git.read_blob, base, _mentioning_from_tables(git, base),
                             _merged_reader(git, base, merged, kept), at=merged, folders_at=git.folders_at,
                             partial=partial, kept=kept)
    except LookupTooLarge as too_large:
        if unanswered is not None:
            raise unanswered(str(too_large)) from None
        return []
    if partial and unanswered is not None and not found:
        raise unanswered(partial[0])   # (a use found blocks the merge anyway: the conflict says which)
    own = _lines_written(changes, git.read_blob, {f.use_path for f in found})
    # A use on a line the task wrote itself (in a file it changed, or moved and changed) is the
    # task's own: `used_by` names it, and the message says so instead of "no task changed that use".
    return [dataclasses.replace(f, removed_by=task, problem="left_behind",
                                used_by=task if f.use.strip() and f.use.strip() in own.get(f.use_path, ()) else "")
            for f in found]


def task_changes_kept(git: GitRepo, base: str, task_commit: str, kept: Any) -> list[Change]:
    """`git.changes(base, task_commit)`, from the walk of the same two trees the merge's own check
    makes (merge.tree.task_changes, kept in the merge index `kept`): one walk of the task's trees a
    merge, not three (the queue's boundary checked again, the check, this look). A path whose kind the task changed (a file made a symlink), which that walk
    lists as added alone, sends the whole question to `git.changes`, which lists both sides."""
    import pygit2

    from ..merge.tree import task_changes

    repo = git.repo
    trees = [repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree) for commit in (base, task_commit)]
    out: list[Change] = []
    for path, ((old_id, old_mode), (new_id, new_mode)) in task_changes(repo, trees[0], trees[1], kept).items():
        if old_id is None and _file_in(trees[0], path):
            return git.changes(base, task_commit)
        out.append(Change(path, old_mode if old_id is not None else None, new_mode if new_id is not None else None,
                          str(old_id) if old_id is not None else None, str(new_id) if new_id is not None else None))
    out.sort(key=lambda change: change.path)
    return out


def _file_in(tree: Any, path: str) -> bool:
    """Whether `tree` holds something other than a folder at `path`."""
    try:
        return tree[path].type_str != "tree"
    except KeyError:
        return False


def source_reader(git: GitRepo) -> Callable[[str, str], bytes | None]:
    """`git.file_at`, less the files the commit's attributes mark binary (GitRepo.marked_binary): a
    file the project says is not text is not read for uses, whatever its name; a NUL byte in a file
    a profile reads does not make it binary (semantic.py reads it). A lone CR ends a line (old Mac
    line endings, which Python, JavaScript and Java read as newlines), where the parser counts only
    LF: each is read as LF (same length, so every byte stays where it was), else three uses on
    three lines were one use on line 1."""
    def file_at(commit: str, path: str) -> bytes | None:
        if git.marked_binary(commit, path):
            return None
        return lone_cr_as_lf(git.file_at(commit, path))
    return file_at


def _merged_reader(git: GitRepo, base: str, merged: str, kept: Any) -> Callable[[str, str], bytes | None]:
    """`source_reader(git)`, with a changed file of the merged tree `merged` read by its blob id
    from the tree's changes from `base` (the pin), which the merge's own check left in the merge
    index `kept`: one lookup, where a path looked up in the tree walks its folders (held in memory
    by a drain, each read a call into Python). Any other path, commit or tree is read as before."""
    read = source_reader(git)
    import pygit2

    try:
        trees = [str(git.repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree).id) for commit in (base, merged)]
    except (KeyError, ValueError):
        return read
    changes = kept.kept_changes(*trees)
    if changes is None:
        return read

    def file_at(commit: str, path: str) -> bytes | None:
        if commit != merged or path not in changes:
            return read(commit, path)
        if git.marked_binary(commit, path):
            return None
        oid, mode = changes[path][1]
        if oid is None or mode == GIT_MODE_GITLINK:
            return None   # (no file there, or a submodule: no blob, as GitRepo.file_at answers)
        return lone_cr_as_lf(git.read_blob(str(oid)))
    return file_at


_LONE_CR = re.compile(rb"\r(?!\n)")


def lone_cr_as_lf(text: bytes | None) -> bytes | None:
    """`text` with each CR that no LF follows made an LF (a line end the parser counts)."""
    return text if text is None or b"\r" not in text else _LONE_CR.sub(b"\n", text)


def _lines_written(changes: list[Change], read_blob: Callable[[str], bytes], paths: set[str]) -> dict[str, set[str]]:
    """For each of `paths` the task changed, the text (stripped) of the lines its change wrote: against
    the file's base version, a moved file's against the file it was moved from (its other lines
    moved as they were), a new file's all of them."""
    wanted = [c for c in changes if c.path in paths and c.new_oid is not None]
    if not wanted:
        return {}
    moved_from = {new: old for old, new in moved_files(
        changes, read_blob, {c.path for c in changes if c.new_oid is None}).items()}
    deleted = {c.path: c.old_oid for c in changes if c.new_oid is None}
    out: dict[str, set[str]] = {}
    for change in wanted:
        new = read_blob(change.new_oid)
        source = change.old_oid or deleted.get(moved_from.get(change.path, ""))
        old = read_blob(source) if source else b""
        lines = new.decode("utf-8", "replace").splitlines()
        out[change.path] = {lines[n - 1].strip() for n in added_lines(old, new) if 0 < n <= len(lines)}
    return out


def _mentioning_from_tables(git: GitRepo, base: str) -> Callable[[str, list[str]], list[str]]:
    """`git.files_mentioning` answered from the word index of `base` (the pin: built once per pin
    and kept with the merge index, merge/checks/pin_words.py) and the paths the merged tree
    changed from it, instead of a `git grep` over every file of the merged tree on every merge;
    the grep where the tables do not answer (merge.tree.files_mentioning)."""
    def grep(where: str, words: list[str]) -> list[str]:
        from ..merge.checks.merge_index import index_folder, shared_index
        from ..merge.tree import files_mentioning

        found = files_mentioning(git.repo, base, where, words, index=shared_index(index_folder(git.repo)))
        return git.files_mentioning(where, words) if found is None else found
    return grep


def advice_notes(git: GitRepo, changes: Iterable[Change], since: str, task: str, run: str) -> list[str]:
    """The uses a task's removals leave behind, read at `since`, as notes: what a finish whose merge
    stopped at a content conflict (before any check of the merged tree) says, so the agent learns
    of them while it resolves."""
    found, not_looked = look_for_uses(git, changes, since)
    if not_looked:
        return [f"uses of removed names in files outside this task's changes were not looked for: {not_looked}"]
    return grouped_notes(found, task, run, MAX_NOTES)


def look_for_uses(git: GitRepo, changes: Iterable[Change], since: str, *, at: str | None = None,
                  max_changed: int = MAX_CHANGED, max_files: int = MAX_FILES,
                  partial: list[str] | None = None, unread: list[str] | None = None,
                  failed: list[str] | None = None,
                  read_blob: Callable[[str], bytes] | None = None) -> tuple[list[LeftBehind], str | None]:
    """`uses_left_behind` on the repository, and why they were not looked for (None: they were).
    A look that failed (an error inside it, not the documented limit of LookupTooLarge) also puts
    its reason in `failed`, when given: the check that asked must not read as clean then (a check
    exits EXIT_INTERNAL, as the merge's own look would stop the finish), while a report or `land`
    still says it in a warning. `read_blob`: the caller's reader of the changed files' versions
    (a report shares one among its looks), else the repository's."""
    try:
        return uses_left_behind(changes, read_blob or git.read_blob, since, git.files_mentioning, source_reader(git), at=at,
                                max_changed=max_changed, folders_at=git.folders_at, max_files=max_files,
                                partial=partial, unread=unread), None
    except LookupTooLarge as too_large:
        return [], str(too_large)
    except Exception as problem:   # noqa: BLE001 - said by the caller (`failed`), never a traceback
        reason = f"{type(problem).__name__}: {problem}"
        if failed is not None:
            failed.append(reason)
        return [], reason
