"""The imports a task's deleted or moved module leaves behind in files it did not change.

Stage: beside the removed-names look of left_behind.py (its `_broken_uses` adds these findings),
so `task check`, `task finish`, the merge, `wtc check` and `wtc report` all see them. Input: the
task's changes, the tree before it (`since`) and after it (the task's side, or `at`), a grep.
Output: `SemanticFinding`s of kind "module" (problem "broken", `name`: the module as the importer
writes it, `definition_path`: the file it named), one per import line.

Why: the names look follows the names a changed file no longer defines; an import that binds none
of them names the file by its path alone (`const fb = require('../utils/format-bytes.js')`,
`import fb from`, `import './setup.js'`, `import pkg.sub`). Found driving wtc on npm/cli: a task
moved lib/utils/format-bytes.js, lib/commands/view.js still required the old path; check and
finish said nothing, and the landed tree's `require` threw.

How: the module word of each file the task deleted (its name: `format-bytes`, `mod`; a package's
folder for its `__init__.py` or `index.js`); the files of the tree that mention it and the task
did not change; each one's specifiers (profile `specifiers`, symbols.module_specifiers). A
specifier that names a deleted file in the tree before the task, and no file in the tree after it,
is left behind. Both trees are read by the semantic check's own resolution
(semantic.tree_module_files), so a folder whose index.js replaces foo.js, a module made a package,
or a tsconfig alias to a file that still stands still answer, and a package's name (`semver`,
`os`) names no file of the tree before or after. `from pkg import f` is a name of the package
before it is a module below it: where the file `pkg` names after the task binds `f` (defines or
imports it, or star-imports a file that spells it, through a chain of star imports), deleting
pkg/f.py leaves the import loading.
An import the profile's `guards` cover (`try:` / `except ImportError:`) is no specifier at all
(symbols.module_specifiers). At most `max_files` files are read.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable, Iterable

from ..gitrepo.repository import Change
from ..merge.checks.semantic import PATH_FACTS, declares_type, semantic_profile, tree_module_files, whole_packages
from ..merge.checks.reach import spelling
from ..merge.checks.symbols import extract, module_specifiers, star_names
from ..merge.languages.profiles import Profile
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding

_WORD = re.compile(r"[A-Za-z_$][\w$]*")
MAX_STAR_DEPTH = 4   # star imports followed from a package's file (reexports.MAX_DEPTH's count)


def _star_takes(profile: Profile, text: bytes, name: str) -> bool:
    """Whether a star import of the module `text` takes `name`: its list says so (Python's
    `__all__`), or it writes none and `name` is not hidden (a `_name`); unreadable: it may."""
    try:
        listed = star_names(profile, text)
    except (ValueError, UnicodeDecodeError):
        return True
    if listed is not None:
        return name in listed
    hidden = profile.semantic.star_hidden
    return not (hidden and name.startswith(hidden))


def module_resolvers(changes: Iterable[Change], read_blob: Callable[[str], bytes], since: str,
                     file_at: Callable[[str, str], bytes | None], *, at: str | None = None,
                     folders_at: Callable[[str, str], list[str] | None] | None = None,
                     ) -> tuple[Callable[[str, str], list[str]], Callable[[str, str], list[str]],
                                Callable[[str, str], bytes | None]]:
    """`named_before(module, importer)` and `named_after(...)`: the files a module, as an importer
    writes it, names in the tree before the task (`since`) and after it (the task's own versions of
    the files it changed over `since`, or the tree `at`), by the semantic check's own resolution
    (semantic.tree_module_files); and `after(which, path)`, the after tree's reader."""
    after_oids = {c.path: c.new_oid for c in changes}

    def before(_which: str, path: str) -> bytes | None:
        return file_at(since, path)

    def after(_which: str, path: str) -> bytes | None:
        if at is not None:
            return file_at(at, path)
        if path in after_oids:   # the task's own version of a file it changed (None: deleted)
            oid = after_oids[path]
            return None if oid is None else read_blob(oid)
        return file_at(since, path)

    def folders(commit: str) -> Callable[[str, str], list[str] | None] | None:
        return None if folders_at is None else lambda _which, folder: folders_at(commit, folder)

    return (tree_module_files(before, folders(since)), tree_module_files(after, folders(since if at is None else at)),
            after)


def module_word(path: str) -> str:
    """The longest word of the name an import gives the file `path` (`format-bytes.js`: `format`; a
    package's `__init__.py` or `index.js`: its folder's), for a word grep; "" when it has none. The
    importer's text holds the whole name too."""
    token = PATH_FACTS.module_token(path).decode("utf-8", "replace")
    return max(_WORD.findall(token), key=len) if _WORD.search(token) else ""


def loads_modules(path: str) -> bool:
    """Whether a profile lists the modules a file of `path`'s kind loads (its `specifiers`)."""
    profile = semantic_profile(path)
    return profile is not None and bool(profile.semantic.specifiers)


def modules_left_behind(changes: Iterable[Change], read_blob: Callable[[str], bytes], since: str,
                        grep: Callable[[str, list[str]], list[str]],
                        file_at: Callable[[str, str], bytes | None], *, at: str | None = None,
                        folders_at: Callable[[str, str], list[str] | None] | None = None,
                        max_files: int = 100, unread: list[str] | None = None) -> list[SemanticFinding]:
    """Each import, in a file the task did not change (with `at`, a whole run's changes up to `at`:
    in any file of `at`), of a module the task deleted or moved and that no file answers any more.
    An importer left unread (larger than MAX_BYTES, or past the first `max_files` read) is said in
    `unread`, when given: never a silent clean."""
    changes = list(changes)
    deleted = {c.path for c in changes if c.old_oid is not None and c.new_oid is None and loads_modules(c.path)}
    if not deleted:
        return []
    tokens = {path: PATH_FACTS.module_token(path).decode("utf-8", "replace") for path in deleted}
    words = sorted({word for path in deleted if (word := module_word(path))})
    if not words:
        return []
    where = since if at is None else at
    changed = {c.path for c in changes} if at is None else set()
    importers = [path for path in grep(where, words) if path not in changed and loads_modules(path)]
    named_before, named_after, after = module_resolvers(changes, read_blob, since, file_at, at=at,
                                                        folders_at=folders_at)
    # One answer per module and importing folder: what a specifier names depends on the folder it
    # is written in, and many files of one folder import the same module (8 candidate paths a tree).
    answers: dict[tuple[str, str, str], str | None] = {}

    def left_behind(module: str, importer: str, member: str) -> str | None:
        """The deleted file `module` named before the task, when no file answers it after (nor, for
        `member` of a module, `from pkg import f`, a file of that module that binds the name, nor,
        a Java class, a Kotlin file the task wrote declaring it in its package: converted)."""
        key = (module, posixpath.dirname(importer), member)
        if key not in answers:
            gone = [path for path in named_before(module, importer) if path in deleted]
            answers[key] = gone[0] if gone and not named_after(module, importer) \
                and not (member and _binds(module[:len(module) - len(member)], member, importer)) \
                and not _converted(module, importer) else None
        return answers[key]

    def _converted(module: str, importer: str) -> bool:
        """Whether `module` names a class (Java's `import okhttp3.DelegatingSSLSocket;`, profile
        `package_types`) that a file the task added or changed of a language reached by package
        (Kotlin) declares in that package, wherever it stands (okhttp c1a6dec5 converted it and
        moved it to another module: okhttp-testing-support/src/main/kotlin)."""
        rules = semantic_profile(importer).semantic   # type: ignore[union-attr]
        package, _, name = module.rpartition(rules.module_separator)
        return rules.package_types and any(
            declares_type(c.path, read_blob(c.new_oid), package, name)  # type: ignore[arg-type]
            for c in changes if c.new_oid is not None and whole_packages(c.path))

    def _binds(parent: str, member: str, importer: str) -> bool:
        """Whether a file `parent` names after the task binds `member` itself (defined or imported
        there: `from pkg import f` still loads when pkg/__init__.py has its own `f`), or passes on
        a star import from a file that spells it, through a chain of star imports (`from .a import
        *` in the package, `from .b import *` in a.py, f in b.py); not knowing which, the import is
        taken as found."""
        separator = semantic_profile(importer).semantic.module_separator  # type: ignore[union-attr]
        word = spelling([member.encode()])
        parent = parent[:-len(separator)] if parent.endswith(separator) and parent.strip(separator) else parent
        return any(_passes(path, member, word, True, set(), after, named_after) for path in named_after(parent, importer))

    names = set(tokens.values())
    found: list[SemanticFinding] = []
    read = 0
    too_big: list[str] = []
    for importer in importers:
        text = file_at(where, importer)
        if text is None or not any(name.encode() in text for name in names):
            continue
        if len(text) > MAX_BYTES:
            too_big.append(importer)
            continue
        read += 1
        if read > max_files:
            if unread is not None:
                unread.append(f"more than {max_files} files may import a module this task deleted or moved: "
                              f"the first {max_files} were read")
            break
        profile = semantic_profile(importer)
        assert profile is not None
        lines = text.split(b"\n")
        for module, line, member in module_specifiers(profile, text):
            if not any(name in module for name in names):
                continue   # names none of the deleted modules (cheap: most imports of the file)
            gone = left_behind(module, importer, member)
            if gone is None:
                continue   # it named no deleted file, or a file still answers it (a folder's index.js)
            found.append(SemanticFinding(
                name=module, kind="module", definition_path=gone, definition_line=1, use_path=importer,
                use_line=line, removed_by="task", used_by="unchanged", definition=f"{gone} (the file)",
                use=lines[line - 1].decode("utf-8", "replace").strip() if line <= len(lines) else ""))
    if too_big and unread is not None:
        unread.append(f"{len(too_big)} file{'s' if len(too_big) > 1 else ''} that may import a module this task "
                      f"deleted or moved {'are' if len(too_big) > 1 else 'is'} larger than the {MAX_BYTES} bytes read "
                      f"and {'were' if len(too_big) > 1 else 'was'} not read: {', '.join(too_big[:5])}"
                      + (", ..." if len(too_big) > 5 else ""))
    return found


def _passes(path: str, member: str, word: re.Pattern[bytes], top: bool, seen: set[str],
            after: Callable[[str, str], bytes | None], named_after: Callable[[str, str], list[str]]) -> bool:
    """Whether the file `path` after the task binds `member` (`top`: the package's own file) or,
    reached by a star import, spells it, or passes a star import on from a file that does. At
    each star the module's list decides (its `__all__`, its `_` names: symbols.star_names), each
    file once, at most MAX_STAR_DEPTH files deep. `after(which, path)` reads the tree after the task,
    `named_after(module, importer)` the files a module names there (module_resolvers). (Here, not
    nested in modules_left_behind: a nested function calling itself holds itself, and with it every
    reader of the look, until the collector finds the cycle.)"""
    if path in seen or len(seen) > MAX_STAR_DEPTH:
        return False
    seen.add(path)
    text = after("", path)
    profile = semantic_profile(path)
    if text is None or profile is None or len(text) > MAX_BYTES:
        return False
    if not top and not _star_takes(profile, text, member):
        return False   # `from <this module> import *` does not take the name
    if not top and word.search(text):
        return True
    symbols = extract(profile, text, uses=False)
    if top and symbols.binds((), member):
        return True
    return any(_passes(other, member, word, False, seen, after, named_after)
               for star in symbols.star_modules for other in named_after(star, path))
