"""The `#include "x.h"` lines a task's deleted or moved header leaves naming no file.

Stage: beside left_modules.py in the left-behind look (left_behind._broken_uses adds these
findings), so `task check`, `task finish`, the merge, `wtc check` and `wtc report` all see them.
Input: the task's changes, the tree before it (`since`) and after it (`at`, or the task's own
versions), a grep. Output: `SemanticFinding`s of kind "module" (`name`: the header as the line
writes it, `definition_path`: the file it named), one per include line.

Why: C and C++ load a header by its path, not by a module name the semantic check resolves
(left_modules.py reads the languages whose profiles list `specifiers`); a header deleted or moved
while a file the task did not touch still includes it stops that file compiling before any of
its names matters.

How: for each header of a linked language (profile `package = "linked"`) the task deleted, the
files at `since` that spell its name's word; in each, the quoted includes (`#include "x.h"`,
not `<x.h>`: a system or library header the tree need not hold) that name it, as the compiler
looks first: beside the includer, then (an include path) by the end of its path. One that named the
deleted file and names no file after the task (beside the includer, or a file the task added or
changed whose path ends so) is left behind.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable, Iterable

from ..gitrepo.repository import Change
from ..merge.checks.linked import LINKED, package_key
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_]\w*")


def includes_left_behind(changes: Iterable[Change], since: str, grep: Callable[[str, list[str]], list[str]],
                         file_at: Callable[[str, str], bytes | None], *, at: str | None = None,
                         max_files: int = 100) -> list[SemanticFinding]:
    """Each quoted include, in a file the task did not change (with `at`: any file of `at`), of a
    header the task deleted that no file answers after it (module docstring)."""
    changes = list(changes)
    deleted = {c.path for c in changes if c.old_oid is not None and c.new_oid is None and package_key(c.path) == LINKED}
    if not deleted:
        return []
    kept = [c.path for c in changes if c.new_oid is not None]   # added or changed: it may answer an include
    words = sorted({max(found, key=len) for path in deleted if (found := _WORD.findall(posixpath.basename(path)))})
    where = since if at is None else at
    changed = {c.path for c in changes} if at is None else set()
    found: list[SemanticFinding] = []
    for importer in [path for path in grep(where, words) if path not in changed and package_key(path) == LINKED][:max_files]:
        text = file_at(where, importer)
        if text is None or len(text) > MAX_BYTES:
            continue
        for match in _INCLUDE.finditer(text):
            written = match.group(1).decode("utf-8", "replace")
            gone = _named(written, importer, deleted)
            if gone is None or _answered(written, importer, kept, deleted, file_at, where):
                continue
            line = text.count(b"\n", 0, match.start()) + 1
            found.append(SemanticFinding(
                name=written, kind="module", definition_path=gone, definition_line=1, use_path=importer,
                use_line=line, removed_by="task", used_by="unchanged", definition=f"{gone} (the file)",
                use=match.group(0).decode("utf-8", "replace").strip()))
    return found


def _named(written: str, importer: str, deleted: set[str]) -> str | None:
    """The deleted file the include named before the task: beside the includer, else one whose
    path ends in what it writes (found through an include path)."""
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), written))
    if beside in deleted:
        return beside
    ending = sorted(path for path in deleted if path == written or path.endswith("/" + written))
    return ending[0] if len(ending) == 1 else None


def _answered(written: str, importer: str, kept: list[str], deleted: set[str],
              file_at: Callable[[str, str], bytes | None], where: str) -> bool:
    """Whether a file after the task answers the include: one beside the includer (one the task
    added or changed, or one of the tree `where` it did not delete), or one the task added or
    changed whose path ends so."""
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), written))
    if beside in kept or (beside not in deleted and file_at(where, beside) is not None):
        return True
    return any(path == written or path.endswith("/" + written) for path in kept)
