"""Test fixtures (pytest's) a side removed while the other side's new lines still ask for them.

Stage: the post-merge semantic check (semantic.find_broken_names adds these findings). Input: the
check's files (each file's base, sides and merged versions) and its tree reader. Output: one
SemanticFinding (problem "broken") per request, on a line a side added, of a fixture the other side's
fixture file (`conftest.py`) stopped defining, that nothing the request sees defines in the merged tree.
Also the readers check/left_fixtures.py (the look, for uses no side changed) shares.

Why: a fixture is asked for by name, never imported (a test's parameter, `usefixtures("db")`), so the
check's resolution of imports and names never reaches it: one task renamed `client` in conftest.py,
another added `def test_b(client):`, and the merge was clean while the landed suite errored.

How: the rules of check/left_fixtures.py (its docstring; profile keys `fixture_*`), read in the merged
versions: the other side's added lines (followed into the merged file) below the fixture file's folder.
Where the check has no tree reader (a git merge driver), a fixture file of an ancestor folder no side
changed cannot be read, and nothing is said.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Callable, Iterator

from ..lines.linediff import added_lines, follow
from ..result import SemanticFinding
from .symbols import extract
from .versions import MAX_BYTES

_NAMED = re.compile(r"""\bname\s*=\s*(['"])(\w+)\1""")
PLUGINS = re.compile(rb"^pytest_plugins\s*[:=]", re.MULTILINE)
_SIDES = ("left", "right")


def fixture_requests(check: Any, semantic_profile: Callable[[str], Any]) -> list[SemanticFinding]:
    """The requests one side added of fixtures the other side's fixture files stopped defining, that
    no file they see defines in the merged tree (module docstring). `check`: semantic.py's _Check;
    `semantic_profile(path)`: its reading profile (semantic.py's, passed down: no import back up)."""
    holders = _holders(check, semantic_profile)
    if not holders or check._tree_file is None:
        return []

    def merged(path: str) -> bytes | None:
        versions = check.files.get(path)
        return versions.merged if versions is not None else check._tree_file("base", path)

    found: list[SemanticFinding] = []
    for path, versions, profile in holders:
        before = fixtures(profile, versions.base)
        kept = fixtures(profile, versions.merged)
        for side in _SIDES:
            if versions.same(side, "base"):
                continue
            after = fixtures(profile, versions.version(side))
            gone = {name: line for name, line in before.items() if name not in after and name not in kept}
            other = _SIDES[1 - _SIDES.index(side)]
            for user, used in check.in_order() if gone else ():
                data = used.version(other)
                if semantic_profile(user) is not profile or not below(user, posixpath.dirname(path)) \
                        or used.same(other, "base") or data is None or used.merged is None or len(used.merged) > MAX_BYTES \
                        or not any(name.encode() in data for name in gone):
                    continue
                lines = follow(data, used.merged, added_lines(used.base or b"", data))
                asked = [request for request in requests(profile, used.merged, set(gone)) if request[1] in lines]
                if not asked or PLUGINS.search(used.merged):
                    continue
                answered = bound(profile, used.merged) | defined_above(profile, user, set(gone), merged)
                found += [request_finding(name, path, gone[name], user, line, use, (check.labels[side], check.labels[other]))
                          for name, line, use in asked if name not in answered]
    return found


def _holders(check: Any, semantic_profile: Callable[[str], Any]) -> list[tuple[str, Any, Any]]:
    """(path, versions, profile) of the check's fixture files that existed at the base, in the check's
    order. Their names are those of the profiles of the files the check walks: in a drain's merge
    (`check.tip`) the task's (`check.loose`), since a tip's fixture file matters only to a request a
    task file of its language added; its thousands of other files (every file the run changed so far)
    are matched by one C-level suffix test each, not a profile lookup and two path splits each (500 a
    merge of a 200-task drain, and growing with the run)."""
    walked = check.loose if check.tip is not None else check.files
    names: set[str] = set()
    seen: set[str] = set()   # extensions asked (a merge has thousands of paths, a handful of extensions)
    for path in walked:
        extension = path[path.rfind("."):] if "." in path.rpartition("/")[2] else ""
        if extension not in seen:
            seen.add(extension)
            profile = semantic_profile(path)
            if profile is not None:
                names.update(profile.semantic.fixture_files)
    if not names:
        return []
    suffixes = tuple("/" + name for name in names)
    named = [path for path in check.files if path.endswith(suffixes) or path in names]
    holders = []
    for path in sorted(named) if check._sorted else named:
        versions = check.files[path]
        profile = semantic_profile(path)
        if profile is not None and posixpath.basename(path) in profile.semantic.fixture_files and versions.exists("base"):
            holders.append((path, versions, profile))
    return holders


def request_finding(name: str, path: str, line: int, user: str, use_line: int, use: str,
                    by: tuple[str, str]) -> SemanticFinding:
    """The finding of a request (`user:use_line`, its line's text `use`) of the fixture `name` gone from
    `path` (defined at `line` at the base); `by`: (who removed it, who asks)."""
    return SemanticFinding(name=name, kind="function", definition_path=path, definition_line=line, use_path=user,
                           use_line=use_line, removed_by=by[0], used_by=by[1], definition=f"{path}:{line} (a fixture)", use=use)


def fixtures(profile: Any, data: bytes | None) -> dict[str, int]:
    """The fixtures a version of a fixture file defines at its top level: name -> line."""
    rules = profile.semantic
    if not data or not rules.fixture_decorator or len(data) > MAX_BYTES:
        return {}
    out: dict[str, int] = {}
    for node in profile.parse(data).root_node.children:
        if node.type != "decorated_definition":
            continue
        definition = node.child_by_field_name("definition")
        if definition is None or definition.type != "function_definition":
            continue
        for decorator in (child for child in node.children if child.type == "decorator"):
            text = decorator.text.decode("utf-8", "replace")
            if re.search(rules.fixture_decorator, text):
                named = _NAMED.search(text)
                name = named.group(2) if named else _name(definition)
                if name:
                    out.setdefault(name, definition.start_point[0] + 1)
    return out


def requests(profile: Any, data: bytes, names: set[str]) -> Iterator[tuple[str, int, str]]:
    """(name, line, the line's text) of each request in `data` of one of `names`: a requester's
    parameter (a function `fixture_requesters` names or a fixture, not a parameter its
    `fixture_supplied` decorator names) or a string argument of a `fixture_calls` callee."""
    rules = profile.semantic
    lines = data.split(b"\n")

    def said(node: Any) -> str:
        return lines[node.start_point[0]].decode("utf-8", "replace").strip()

    stack = [profile.parse(data).root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type == "function_definition":
            decorators = [child.text.decode("utf-8", "replace") for child in (node.parent.children if node.parent is not None
                          and node.parent.type == "decorated_definition" else []) if child.type == "decorator"]
            if not (re.search(rules.fixture_requesters, _name(node) or "")
                    or any(re.search(rules.fixture_decorator, text) for text in decorators)):
                continue
            supplied = {word for text in decorators if re.search(rules.fixture_supplied, text)
                        for word in re.findall(r"\w+", text)}
            for parameter in _parameters(node):
                name = parameter.text.decode("utf-8", "replace")
                if name in names and name not in supplied:
                    yield name, parameter.start_point[0] + 1, said(parameter)
        elif node.type == "call":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if callee is None or arguments is None or re.sub(r".*\.", "", callee.text.decode("utf-8", "replace")
                                                               .replace(" ", "")) not in rules.fixture_calls:
                continue
            for argument in arguments.children:
                if argument.type == "string":
                    content = "".join(part.text.decode("utf-8", "replace") for part in argument.children
                                      if part.type == "string_content")
                    if content in names:
                        yield content, argument.start_point[0] + 1, said(argument)


def _parameters(function: Any) -> Iterator[Any]:
    """The name node of each parameter of a function definition (plain, typed, with a default)."""
    parameters = function.child_by_field_name("parameters")
    for parameter in parameters.children if parameters is not None else ():
        if parameter.type == "identifier":
            yield parameter
        elif parameter.type in ("default_parameter", "typed_default_parameter"):
            if (name := parameter.child_by_field_name("name")) is not None and name.type == "identifier":
                yield name
        elif parameter.type == "typed_parameter":
            if parameter.children and parameter.children[0].type == "identifier":
                yield parameter.children[0]


def _name(node: Any) -> str:
    name = node.child_by_field_name("name")
    return name.text.decode("utf-8", "replace") if name is not None else ""


def bound(profile: Any, data: bytes) -> set[str]:
    """The names a requesting file binds itself: any function it defines (a fixture of its own, at
    any depth: a test class's), any name it imports or assigns at its top level."""
    found = extract(profile, data, uses=False)
    if found is None:
        return set()
    return {d.name for d in found.definitions} | {item.bound for item in found.imports}


def defined_above(profile: Any, user: str, names: set[str], read: Callable[[str], bytes | None]) -> set[str]:
    """Of `names`, those a fixture file of `user`'s folder or one above defines after the task (one
    listing `pytest_plugins` answers them all: a plugin may define them)."""
    answered: set[str] = set()
    folder = posixpath.dirname(user)
    while True:
        for file_name in profile.semantic.fixture_files:
            data = read(posixpath.join(folder, file_name) if folder else file_name)
            if data is not None and PLUGINS.search(data):
                return set(names)
            answered |= names & set(fixtures(profile, data))
        if not folder:
            return answered
        folder = posixpath.dirname(folder)


def below(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")
