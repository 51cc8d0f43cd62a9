"""What a file merge returns: the merged bytes, whether they are clean, and each conflict left.

This is the contract between the merge engine and its callers (the merge queue, `wtc merge-file`,
the CI check): callers never parse conflict markers to learn what conflicted, they read
`FileMerge.conflicts`.

A semantic finding (a name one side removed that the other side's new code uses, semantic.py) is
a `MergeConflict` of kind `semantic` that carries a `SemanticFinding` and has no marker block: the
merged bytes stay as merged. Blocking (the default), it is one of `conflicts` and the result is not
`clean`; as a warning it is one of `warnings` and the result stays clean. `has_markers` tells a
caller whether the merged bytes hold conflict blocks.
"""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any

from ..frozen import value_class


class Strategy(str, enum.Enum):
    """Which stage of the cascade produced a result."""

    LINE = "line"                # diff3 line merge (git's xdiff), taken as is
    STRUCTURED = "structured"    # tree-sitter declaration-level merge
    PYTHON = "python"            # libcst refinements on top of the structured merge
    DATA = "data"                # JSON / TOML / YAML key-level merge
    TRIVIAL = "trivial"          # one side unchanged, or both sides identical
    BINARY = "binary"            # not text: no merge attempted, conflict unless trivial


class SemanticMode(str, enum.Enum):
    """What a semantic finding does to a merge: block it (a conflict), warn, or no check at all."""

    BLOCK = "block"
    WARN = "warn"
    OFF = "off"

    @classmethod
    def parse(cls, value: "SemanticMode | str", *, option: str = "--semantic",
              key: str = "semantic-check") -> "SemanticMode":
        try:
            return cls(value)
        except ValueError:
            from ..errors import UsageError
            raise UsageError(f"{option.removeprefix('--')} mode {value!r} is not one of block, warn, off",
                             fix=f"pass {option} block|warn|off (or {key} = \"block\" in the config)") from None


def name_word(name: str) -> str:
    """The last word of a finding's name, the one a use spells: `RED` of `Color.RED`, `Red` of Rust's
    `Color::Red` (names are spelled as their language writes them)."""
    return name.replace("::", ".").rsplit(".", 1)[-1]


@value_class
class SemanticFinding:
    """A name the merge broke: defined at the base (`definition_path`, `definition_line`), no longer
    defined by the side `removed_by`, used by a line the side `used_by` added (`use_path`,
    `use_line`, in the merged result), and not defined in the merged result. `name` is qualified by
    its class for a member (`Store.get`); `declaration` is where the use stands."""

    name: str
    kind: str               # what the definition was: function, class, method, constant, import..., or "module": a file (check/left_modules.py),
                            # or "own_import": a relative import of the task's own file naming no file now (check/own_imports.py)
    definition_path: str
    definition_line: int
    use_path: str
    use_line: int
    removed_by: str         # the sides' labels (ours/theirs, integration/task, or task names)
    used_by: str
    declaration: str = ""
    definition: str = ""    # the definition's first lines at the base
    use: str = ""           # the line that uses it, in the merged result
    # "broken" (above); "import_path": `name` is a module `removed_by` replaced throughout (one of
    # its base imports at `definition_path:definition_line`) and `used_by` imports at the use; or
    # "duplicate": the merged file declares `name` twice in one scope, at
    # `definition_line` and `use_line` (`definition`: the first copy, `use`: the second's line),
    # where the base and each side declare it at most once (merge/checks/duplicates.py); or "misplaced":
    # the merged file holds the member `name` in `declaration` (at `use_line`), while `used_by` added it
    # to `definition` (that container's path), which `removed_by` moved (merge/checks/misplaced.py); or "dropped": the
    # side `removed_by` resolved an update's conflict markers by hand and lost `name`, which the
    # side `used_by` defines (`definition_path:definition_line` there) and the merged tree still
    # uses (check/left_behind.dropped_by_resolution); or "left_behind": `removed_by` removed or
    # renamed `name`, and code no side changed (`use_path:use_line` in the merged result) still uses
    # it (check/left_behind.left_behind_at_merge; `used_by` is ""); with `kind` "signature", the removing
    # side changed the parameters of the function `name` and the use calls it as the base took it
    # (`definition`, `replacement` and `arguments` as for "signature" below)
    problem: str = "broken"
    # For "broken": the one definition of the same kind, in the same place, that the removing side
    # added to that file (a likely new name: `defaultPort` for `portOrDefault`); "" when none or several.
    # For "signature" (merge/checks/signatures.py): `removed_by` reshaped the function `name` (its parameters)
    # and `used_by` added a call at the use that passes `arguments`, what the base's shape takes:
    # `definition` is that old shape, `replacement` the new one, `definition_line` where the merged
    # result defines it.
    replacement: str = ""
    arguments: int = 0
    # For "signature": the keyword the call passes that the new shape no longer names (a parameter
    # renamed or dropped: `render(s, max_width=2)` after `max_width` became `width`); "" when it is
    # the count of arguments that no longer fits.
    keyword: str = ""
    # The name of the list a star import takes (`__all__`: profile `star_list`) where the use reaches
    # the definition only through a star import and the removing side's file writes that list: a
    # name kept for the use must be listed there too. "" otherwise.
    star_list: str = ""
    # The star re-export line the removing side dropped from `definition_path` (`export * from
    # './intl.js';`), through which the use reached `name` (check/left_behind.py): keeping that
    # line is the way out, not an alias. "" otherwise.
    star_line: str = ""

    @property
    def message(self) -> str:
        where = f"{self.definition_path}:{self.definition_line}"
        if self.problem == "import_path":
            return (f"{self.use_path}:{self.use_line} imports {self.name}, which {self.removed_by} replaced in every "
                    f"file (as at {where} in the base) while {self.used_by} added this import")
        if self.problem == "signature" and self.keyword:
            return (f"{self.use_path}:{self.use_line} calls {self.name} with the keyword {self.keyword}=, which its base "
                    f"shape {self.definition} takes, while {self.removed_by} changed it to {self.replacement} "
                    f"({where} in the merge), which does not, and {self.used_by} added this call")
        if self.problem == "signature":
            return (f"{self.use_path}:{self.use_line} calls {self.name} with {self.arguments} argument(s), as its base "
                    f"shape {self.definition} takes, while {self.removed_by} changed it to {self.replacement} "
                    f"({where} in the merge) and {self.used_by} added this call")
        if self.problem == "dropped":
            return (f"{self.use_path}:{self.use_line} uses {self.name} ({self.kind} at {where} on the {self.used_by} "
                    f"side), which {self.removed_by} dropped when it resolved an update's conflict markers by hand")
        # A left-behind use on a line the removing side wrote itself: `used_by` is that side (else "").
        own = self.problem == "left_behind" and bool(self.used_by)
        if self.problem == "left_behind" and self.kind == "own_import":
            # A relative import of the task's own file (check/own_imports.py): `definition` is the path
            # the task moved that file from ("" when it did not move it).
            before = f"from {self.definition}, where {self.removed_by} moved the file from" if self.definition \
                else f"before {self.removed_by}"
            return (f"{self.use_path}:{self.use_line} imports {self.name}, which named {self.definition_path} "
                    f"{before}, and names no file now, so the landed tree would not load it: fix the import "
                    f"in {self.use_path}")
        if self.problem == "left_behind" and self.kind == "module":
            changed = f"{self.used_by} changed that import itself" if own else "no task changed that import"
            return (f"{self.use_path}:{self.use_line} imports {self.name}, the file {self.definition_path}, which "
                    f"{self.removed_by} deleted or moved; {changed} and no file answers it now, so "
                    "the landed tree would not load it")
        if self.problem == "left_behind" and self.kind == "signature":
            # A call of a function the removing side reshaped (check/left_behind.py, signatures.reshaped).
            changed = f"{self.used_by} changed that line itself" if own else "no task changed that call"
            if self.keyword:
                return (f"{self.use_path}:{self.use_line} calls {self.name} with the keyword {self.keyword}=, which its "
                        f"base shape {self.definition} takes and {self.removed_by}'s {self.replacement} "
                        f"({self.definition_path}) does not; {changed}, so the landed tree's call would fail")
            return (f"{self.use_path}:{self.use_line} calls {self.name} with {self.arguments} argument(s), as its base "
                    f"shape {self.definition} takes, which {self.removed_by} changed to {self.replacement} "
                    f"({self.definition_path}); {changed}, so the landed tree's call would fail")
        if self.kind == "export":
            # The file still defines the name; it no longer exports it (a module language).
            instead = f" (it exports {self.replacement} instead, it seems)" if self.replacement else ""
            gone = f"no longer exports{instead}"
        else:
            gone = "removed or renamed" + (f" (to {self.replacement}, it seems)" if self.replacement else "")
        if self.problem == "left_behind":
            changed = f"{self.used_by} changed that line itself and kept the old name" if own else \
                "no task changed that use"
            return (f"{self.use_path}:{self.use_line} uses {self.name} ({self.kind} at {where} in the base), which "
                    f"{self.removed_by} {gone}; {changed}, so the landed tree would not resolve it")
        if self.problem == "misplaced":
            return (f"{self.use_path}:{self.use_line} holds {self.name} in {self.declaration or 'the top level'}, "
                    f"where the merge put it: {self.used_by} added it to {self.definition}, which {self.removed_by} "
                    "moved (a line merge keeps added lines where the lines around them stood)")
        if self.problem == "duplicate":
            return (f"{where} and {self.use_path}:{self.use_line} both declare {self.name} ({self.kind}): the merge "
                    f"holds it twice in one scope, where {self.removed_by} and {self.used_by} each hold it once")
        if self.kind != "export":
            gone = "removed or renamed" + (f" (to {self.replacement}, it seems: the one {self.kind} it added there)"
                                           if self.replacement else "")
        return (f"{self.use_path}:{self.use_line} uses {self.name} ({self.kind} at {where} in the base), "
                f"which {self.removed_by} {gone} while {self.used_by} added this use")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "definition_path": self.definition_path,
                "definition_line": self.definition_line, "use_path": self.use_path, "use_line": self.use_line,
                "removed_by": self.removed_by, "used_by": self.used_by, "declaration": self.declaration,
                "definition": self.definition, "use": self.use, "problem": self.problem,
                "replacement": self.replacement, "arguments": self.arguments, "keyword": self.keyword,
                "star_list": self.star_list,
                "star_line": self.star_line, "message": self.message}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SemanticFinding":
        return cls(**{k: data[k] for k in ("name", "kind", "definition_path", "definition_line", "use_path",
                                           "use_line", "removed_by", "used_by")},
                   declaration=data.get("declaration", ""), definition=data.get("definition", ""),
                   use=data.get("use", ""), problem=data.get("problem", "broken"),
                   replacement=data.get("replacement", ""), arguments=data.get("arguments", 0),
                   keyword=data.get("keyword", ""),
                   star_list=data.get("star_list", ""), star_line=data.get("star_line", ""))

    def as_conflict(self) -> "MergeConflict":
        """The finding as a conflict of kind `semantic` (lines: the use, in the merged result)."""
        return MergeConflict(start_line=self.use_line, end_line=self.use_line, declaration=self.declaration,
                             kind="semantic", base=self.definition, ours="", theirs=self.use, finding=self)


@value_class
class ProblemWords:
    """How one kind of semantic finding (`SemanticFinding.problem`) is worded for people: by
    `wtc merge-file`, `task update` and the landing report (cli/render.py, coordinator/landing.py)
    and the queue's conflict note (coordinator/merging.py), from this one table."""

    removed_role: str   # what the side named `removed_by` did ("removed by" task t1)
    used_role: str      # what the side named `used_by` did
    other: str          # the landing report: the other task, seen from the task that landed
    fix: str            # what to do, a short clause (`task update`, `merge-file`)
    note: str           # the queue's note on the conflict; `{update}` is the command that brings the tip in


PROBLEM_WORDS: dict[str, ProblemWords] = {
    "broken": ProblemWords(
        "removed by", "used by", "removed by", "fix the use(s)",
        "the task's new code uses a name the other side removed or renamed (or the other way round): "
        "after {update}, use the name that replaced it (or restore it)"),
    "duplicate": ProblemWords(
        "one copy from", "the other from", "the other copy from", "keep one copy of each declaration held twice",
        "both sides declare the same thing, so the merge holds it twice: after {update}, "
        "keep one of the two (merging what each adds)"),
    "misplaced": ProblemWords(
        "moved by", "added by", "the container moved by", "move each member back where its side put it",
        "one side moved a class or impl block and the other added a member to it, and the line merge put that "
        "member in another block: after {update}, move it into the block its task added it to"),
    "dropped": ProblemWords(
        "dropped by", "still used on", "dropped by", "put back what the resolution dropped",
        "the task's resolution of an update's conflict markers dropped a definition the integration side holds "
        "and other code still uses: after {update}, put it back (keep both sides' work in each block)"),
    "import_path": ProblemWords(
        "replaced throughout by", "imported again by", "replaced throughout by", "import the new path",
        "one side moved an import path everywhere and the other imports the old one: after {update}, "
        "import the new path"),
    "left_behind": ProblemWords(
        "removed by", "still used by", "removed by", "keep the old name too, or update the use(s)",
        "the task removed or renamed a name that code no task changed still uses, so the landed tree would not "
        "resolve it: keep the old name too (an alias), or the lead widens the task (`wtc task widen`) and it "
        "updates the uses; when a live task owns that code, let it finish first"),
    "signature": ProblemWords(
        "reshaped by", "called the old way by", "reshaped by", "pass what the new shape takes at each call",
        "one side changed a function's parameters and the other side's new code calls it the old way: "
        "after {update}, call it with its new parameters (or keep an overload of the old shape)"),
}


def problem_words(problem: str) -> ProblemWords:
    """The words for a kind of finding (an unknown kind, from a newer store: the broken name's)."""
    return PROBLEM_WORDS.get(problem, PROBLEM_WORDS["broken"])


@value_class
class MergeConflict:
    """One region left conflicted.

    `declaration` is the path of the smallest enclosing declaration, outermost first, joined with
    " > " (e.g. "class Store > def get"); empty when the conflict is at file level or unknown.
    Lines are 1-based and inclusive, in the merged output (the marker block itself); 0 for a
    conflict with no marker block in the text (a binary file, of kind `binary`).
    """

    start_line: int
    end_line: int
    declaration: str = ""
    kind: str = "content"        # content, delete_modify, duplicate_key, insert_insert, ...
    base: str = ""               # the three versions of the conflicted region, as text
    ours: str = ""
    theirs: str = ""
    finding: SemanticFinding | None = None   # kind `semantic`: what broke (no marker block)

    @property
    def place(self) -> str:
        """Where it stands, for people: `class Store > def get (lines 3-9)`, `file (lines 1-12)`, or
        `binary file` (no markers were written, so no lines: its lines are 0)."""
        if self.kind == "binary":
            return "binary file"
        return f"{self.declaration or 'file'} (lines {self.start_line}-{self.end_line})"

    def to_json(self) -> dict[str, Any]:
        out = {
            "start_line": self.start_line,
            "end_line": self.end_line,
            "declaration": self.declaration,
            "kind": self.kind,
            "base": self.base,
            "ours": self.ours,
            "theirs": self.theirs,
        }
        if self.finding is not None:
            out["semantic"] = self.finding.to_json()
        return out


@value_class
class FileMerge:
    """The result of `merge_file`: `merged` holds conflict markers exactly where `conflicts` of a
    kind other than `semantic` say; semantic conflicts (blocking) and warnings have none."""

    merged: bytes
    clean: bool
    strategy: Strategy
    conflicts: tuple[MergeConflict, ...] = ()
    language: str | None = None
    notes: tuple[str, ...] = field(default=())   # why a stage was skipped or a fallback taken
    warnings: tuple[MergeConflict, ...] = ()     # semantic findings reported, not blocking
    # Provenance: (rule, base start byte, base end byte) for each place where both sides edited and
    # a rule of the structured merge settled it; (rule, -1, -1) for a rule of the whole file.
    # Internal, for measurement (provenance.py); never part of the JSON contract.
    trace: tuple[tuple[str, int, int], ...] = field(default=(), compare=False, repr=False)
    # Which steps of the structured merge left conflicts, when it ran and did not resolve (a member
    # both sides edited, a region of an ordered container, a delete/modify...): a diagnosis for
    # measurement (the history eval's `--why-unresolved`), not a reason shown to users.
    steps: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def has_markers(self) -> bool:
        """Whether `merged` holds conflict blocks (a semantic conflict alone adds none)."""
        return any(c.kind != "semantic" for c in self.conflicts)

    @property
    def semantic(self) -> tuple[SemanticFinding, ...]:
        """Every semantic finding, blocking or not."""
        return tuple(c.finding for c in self.conflicts + self.warnings if c.finding is not None)

    @property
    def conflict_mass(self) -> int:
        """Bytes inside conflict blocks: the measure the cascade minimises."""
        return sum(len(c.ours) + len(c.theirs) + len(c.base) for c in self.conflicts)

    def to_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "strategy": self.strategy.value,
            "language": self.language,
            "conflicts": [c.to_json() for c in self.conflicts],
            "warnings": [c.to_json() for c in self.warnings],
            "notes": list(self.notes),
        }
