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
from typing import Callable, Iterable

from ..gitrepo.repository import Change
from ..merge.checks.fixtures import PLUGINS, below, bound, defined_above, fixtures, request_finding, requests
from ..merge.checks.semantic import semantic_profile
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding


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
        kept = fixtures(profile, read_blob(change.new_oid)) if change.new_oid is not None else {}
        if lost := {name: line for name, line in before.items() if name not in kept}:
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
        seen = {path: names for path, names in gone.items() if below(user, posixpath.dirname(path))
                and semantic_profile(path) is profile}
        text = file_at(where, user) if seen else None
        if profile is None or text is None or len(text) > MAX_BYTES:
            continue
        asked = {name for names in seen.values() for name in names}
        asking = list(requests(profile, text, asked))
        if not asking or PLUGINS.search(text):
            continue
        known = bound(profile, text)
        answered = defined_above(profile, user, asked, after)
        for name, line, use in asking:
            if name not in known and name not in answered:
                path = min(path for path, names in seen.items() if name in names)
                found.append(request_finding(name, path, seen[path][name], user, line, use, ("task", "unchanged")))
    return found
