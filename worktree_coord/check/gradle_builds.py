"""What a task's edit of a Gradle build script's dependency lines becomes: text, said at finish.

Stage: finish-time notes. Input: the task's changed files and blob access. Output: one note per
`build.gradle` or `build.gradle.kts` whose dependency declarations (`implementation("g:a:1.0")`,
`testImplementation libs.truth`, `api(project(":core"))`) the task added or removed.
Why: a build script is Groovy or Kotlin code, not data; it is not reserved and its edits merge as
text with the task's other changes (two tasks adding a line at one place conflict as git would).
What consolidation carries for Gradle is the version catalog, gradle/libs.versions.toml: a task
that writes its version there and refers to it as `libs.ALIAS` has it consolidated with the other
tasks' entries. The note says which lines took which road, so nobody expects the first to be
consolidated like the second.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable, Sequence

from ..gitrepo import Change

BUILD_SCRIPTS = frozenset({"build.gradle", "build.gradle.kts"})
# A dependency declaration: a configuration name, then its notation (in parentheses or not).
_DECLARATION = re.compile(
    r"^\s*(implementation|api|compileOnly|runtimeOnly|annotationProcessor|kapt|ksp|classpath|platform|"
    r"(?:test|androidTest|debug|release)(?:Implementation|Api|CompileOnly|RuntimeOnly|AnnotationProcessor))"
    r"\b\s*[(\s'\"]")


def _declarations(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return [line.strip() for line in data.decode("utf-8", "replace").splitlines() if _DECLARATION.match(line)]


def gradle_build_notes(changes: Sequence[Change], read_blob: Callable[[str], bytes]) -> list[str]:
    """A note per Gradle build script whose dependency lines the task changed (module docstring)."""
    notes: list[str] = []
    for change in changes:
        if posixpath.basename(change.path) not in BUILD_SCRIPTS:
            continue
        before = _declarations(read_blob(change.old_oid) if change.old_oid else None)
        after = _declarations(read_blob(change.new_oid) if change.new_oid else None)
        added = [line for line in after if line not in before]
        removed = [line for line in before if line not in after]
        if not added and not removed:
            continue
        lines = [f"+ {line}" for line in added[:4]] + [f"- {line}" for line in removed[:4]]
        more = len(added) + len(removed) - len(lines)
        notes.append(f"{change.path}: dependency lines changed ({'; '.join(lines)}{f'; {more} more' if more > 0 else ''}): "
                     "a build script is code, so they merge as text with the task's other edits, not through "
                     "consolidation; only gradle/libs.versions.toml entries are consolidated (declare the version "
                     "there and use libs.ALIAS to have tasks' additions consolidated together)")
    return notes
