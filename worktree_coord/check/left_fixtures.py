"""The tests a task's removed or renamed test fixture leaves asking for it.

Stage: beside left_includes.py in the left-behind look (left_behind._broken_uses adds these
findings), so `task check`, `task finish`, the merge's look, `wtc check` and `wtc report` all see
them. Input: the task's changes, the tree before it (`since`) and after it (`at`, or the task's own
versions), a grep. Output: `SemanticFinding`s (problem "broken"), one per request of a fixture no
file the requester sees defines any more.

Why: a test framework's fixture (pytest's) is asked for by name, never imported: a test's
parameter (`def test_home(client):`), another fixture's, or a string (`usefixtures("db")`,
`request.getfixturevalue("db")`). The semantic check resolves imports and bare names, so a fixture
renamed in `conftest.py` left every test asking for the old one unnamed, and the landed suite
errored ("fixture 'no_trio_support' not found": starlette ab70211f0e1f dropped it from
tests/conftest.py, tests/test_database.py's `pytestmark = pytest.mark.usefixtures(...)` kept it).

How (precision first; profile keys `fixture_*`, python.toml): the fixtures a `fixture_files` file
(`conftest.py`) defines at its top level (a function under a `fixture_decorator`, by its name or
the decorator's `name="..."`) before the task and no longer after it; the files at or below its
folder that spell one (`git grep -w`); in each, the parameters of a requester (a function named
by `fixture_requesters`, or a fixture) and the string arguments of a `fixture_calls` callee that
name it. A request is answered, and nothing said, where the requesting file binds the name itself
(a fixture of its own, an import of one), a `fixture_files` file of its folder or one above still
defines it after the task, a `fixture_supplied` decorator (`parametrize`) of the function names it,
or a `pytest_plugins` list in the file or such a conftest may bring it from elsewhere.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Callable, Iterable, Iterator

from ..gitrepo.repository import Change
from ..merge.checks.semantic import semantic_profile
from ..merge.checks.symbols import extract
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding

_NAMED = re.compile(r"""\bname\s*=\s*(['"])(\w+)\1""")
_PLUGINS = re.compile(rb"^pytest_plugins\s*[:=]", re.MULTILINE)


def fixtures_left_behind(changes: Iterable[Change], read_blob: Callable[[str], bytes], since: str,
                         grep: Callable[[str, list[str]], list[str]],
                         file_at: Callable[[str, str], bytes | None], *, at: str | None = None,
                         max_files: int = 100) -> list[SemanticFinding]:
    """Each request, in a file the task did not change (with `at`: any file of `at`), of a fixture
    the task's fixture files stopped defining that no file the request sees defines (module docstring)."""
    changes = list(changes)
    gone: dict[str, dict[str, int]] = {}   # fixture file -> fixture name -> its line at the base
    for change in changes:
        profile = semantic_profile(change.path)
        if profile is None or change.old_oid is None \
                or posixpath.basename(change.path) not in profile.semantic.fixture_files:
            continue
        before = fixtures(profile, read_blob(change.old_oid))
        after = fixtures(profile, read_blob(change.new_oid)) if change.new_oid is not None else {}
        if lost := {name: line for name, line in before.items() if name not in after}:
            gone[change.path] = lost
    if not gone:
        return []
    where = since if at is None else at
    new_oids = {c.path: c.new_oid for c in changes}
    changed = set(new_oids) if at is None else set()

    def after(path: str) -> bytes | None:   # a file as the task leaves it
        if at is None and path in new_oids:
            oid = new_oids[path]
            return read_blob(oid) if oid is not None else None
        return file_at(where, path)

    found: list[SemanticFinding] = []
    words = sorted({name for names in gone.values() for name in names})
    for user in [path for path in grep(where, words) if path not in changed][:max_files]:
        profile = semantic_profile(user)
        seen = {path: names for path, names in gone.items() if _below(user, posixpath.dirname(path))
                and semantic_profile(path) is profile}
        text = file_at(where, user) if seen else None
        if profile is None or text is None or len(text) > MAX_BYTES:
            continue
        asked = {name for names in seen.values() for name in names}
        requests = list(_requests(profile, text, asked))
        if not requests or _PLUGINS.search(text):
            continue
        bound = _bound(profile, text)
        answered = _defined_above(profile, user, asked, after)
        for name, line, use in requests:
            if name in bound or name in answered:
                continue
            path = min(path for path, names in seen.items() if name in names)
            found.append(SemanticFinding(
                name=name, kind="function", definition_path=path, definition_line=seen[path][name], use_path=user,
                use_line=line, removed_by="task", used_by="unchanged", definition=f"{path}:{seen[path][name]} (a fixture)",
                use=use))
    return found


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


def _requests(profile: Any, data: bytes, names: set[str]) -> Iterator[tuple[str, int, str]]:
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


def _bound(profile: Any, data: bytes) -> set[str]:
    """The names a requesting file binds itself: any function it defines (a fixture of its own, at
    any depth: a test class's), any name it imports or assigns at its top level."""
    found = extract(profile, data, uses=False)
    if found is None:
        return set()
    return {d.name for d in found.definitions} | {item.bound for item in found.imports}


def _defined_above(profile: Any, user: str, names: set[str], read: Callable[[str], bytes | None]) -> set[str]:
    """Of `names`, those a fixture file of `user`'s folder or one above defines after the task (one
    listing `pytest_plugins` answers them all: a plugin may define them)."""
    answered: set[str] = set()
    folder = posixpath.dirname(user)
    while True:
        for file_name in profile.semantic.fixture_files:
            data = read(posixpath.join(folder, file_name) if folder else file_name)
            if data is not None and _PLUGINS.search(data):
                return set(names)
            answered |= names & set(fixtures(profile, data))
        if not folder:
            return answered
        folder = posixpath.dirname(folder)


def _below(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")
