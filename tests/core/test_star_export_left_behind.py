"""A name a task keeps defining but its star import no longer takes blocks the uses that reach it so.

Found driving wtc on encode/httpx: httpx/__init__.py does `from ._urls import *` and lists
"QueryParams" in its own `__all__`. A task renamed `class QueryParams` in _urls.py (and in _urls'
`__all__`), then followed the advice "keep the old name too (an alias)" with `QueryParams =
QueryParameters` at the end of the file, outside `__all__`: `task check` was clean, the finish
merged, and `import httpx` failed (a star import takes only the names of its module's `__all__`).
So a name still defined but no longer star-exported is gone for every use that reaches it through
a star import; a string of a package's `__all__` naming a name it no longer has is a use; and the
alias advice says to list the alias in `__all__` too.
"""

from __future__ import annotations

import pytest

from tests.conftest import wtc
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

URLS = '__all__ = ["URL", "QueryParams"]\n\n\nclass URL:\n    pass\n\n\nclass QueryParams:\n    pass\n'
RENAMED = URLS.replace("QueryParams", "QueryParameters")
ALIAS = "QueryParams = QueryParameters\n"
INIT = 'from ._urls import *\n\n__all__ = ["URL"]\n'
USER = "import pkg\n\n\ndef make():\n    return pkg.QueryParams()\n"
FILES = {"pkg/__init__.py": INIT, "pkg/_urls.py": URLS, "user.py": USER}


@pytest.mark.parametrize("user, lines", [
    (USER, "user.py:5"),
    ("from pkg import QueryParams\n\n\ndef make():\n    return QueryParams()\n", "user.py (lines 1, 5: 2 uses)"),
], ids=["through-the-package", "imported-from-the-package"])
def test_an_alias_kept_outside_all_is_left_behind_for_a_use_through_a_star_import(tmp_path, user, lines):
    files = FILES | {"user.py": user}
    repo, left = _removal_refused(tmp_path, files, "pkg/_urls.py", {"pkg/_urls.py": RENAMED + ALIAS})
    assert len(left) == 1 and left[0].startswith(f"{lines} still uses QueryParams, which this task no longer lists in "
                                                 "the __all__ of pkg/_urls.py"), left
    assert "list QueryParams in the __all__ of pkg/_urls.py again, or the lead widens the task" in left[0], left
    code, check = wtc(repo, "task", "check", "rm", "--run", "r1")
    rows = check["left_behind"]
    assert code == 1 and [(row["use_path"], row["unexported"], row["star_list"]) for row in rows] == \
        [("user.py", True, "__all__")], rows


@pytest.mark.parametrize("urls", [
    RENAMED.replace('"QueryParameters"]', '"QueryParameters", "QueryParams"]') + ALIAS,
    URLS + "\n\nQueryParameters = QueryParams\n",
], ids=["alias-listed-too", "new-name-added-beside"])
def test_an_alias_the_star_import_still_takes_is_not_left_behind(tmp_path, urls):
    _removal_merged(tmp_path, FILES, {"pkg/_urls.py": urls})


def test_a_direct_import_of_an_alias_kept_outside_all_is_not_left_behind(tmp_path):
    """`from pkg._urls import QueryParams` reads the module's names, not its star list."""
    files = FILES | {"user.py": "from pkg._urls import QueryParams\n\n\ndef make():\n    return QueryParams()\n"}
    _removal_merged(tmp_path, files, {"pkg/_urls.py": RENAMED + ALIAS})


NO_LIST = URLS.split("\n\n\n", 1)[1]   # the module's classes, no `__all__`


def test_a_name_dropped_from_all_while_still_defined_is_left_behind(tmp_path):
    """The definition stays untouched: only the list a star import reads changed."""
    after = URLS.replace('["URL", "QueryParams"]', '["URL"]')
    _, left = _removal_refused(tmp_path, FILES, "pkg/_urls.py", {"pkg/_urls.py": after})
    assert len(left) == 1 and left[0].startswith("user.py:5 still uses QueryParams, which this task no longer lists "
                                                 "in the __all__ of pkg/_urls.py"), left


# -- the advice: an alias a star import takes is one listed in `__all__` too -----------------------

def test_a_rename_used_through_a_star_import_advises_an_alias_listed_in_all(tmp_path):
    said = ("user.py:5 still uses QueryParams, which this task removed or renamed (to QueryParameters, it seems) in "
            "pkg/_urls.py; user.py is outside the task's changes, so the landed tree would not resolve it: keep the old "
            "name too (an alias, listed in the __all__ of pkg/_urls.py too), or the lead widens the task "
            "(`wtc task widen rm --run r1 --own '/user.py' --why '...'`) and it updates the use")
    repo, left = _removal_refused(tmp_path, FILES, "pkg/_urls.py", {"pkg/_urls.py": RENAMED})
    assert left == [said + ", then finish again"], left
    code, check = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and [row["note"] for row in check["left_behind"]] == [said], check["left_behind"]


@pytest.mark.parametrize("files", [
    FILES | {"user.py": "from pkg._urls import QueryParams\n\n\ndef make():\n    return QueryParams()\n"},
    FILES | {"pkg/_urls.py": NO_LIST},
], ids=["imported-directly", "module-without-all"])
def test_a_rename_not_used_through_a_listed_star_advises_a_plain_alias(tmp_path, files):
    urls = files["pkg/_urls.py"].replace("QueryParams", "QueryParameters")
    _, left = _removal_refused(tmp_path, files, "pkg/_urls.py", {"pkg/_urls.py": urls})
    assert len(left) == 1 and ": keep the old name too (an alias), or the lead widens the task" in left[0], left


# -- a package's `__all__` strings are uses of the names they list --------------------------------

LISTED = FILES | {"pkg/__init__.py": 'from ._urls import *\n\n__all__ = ["QueryParams", "URL"]\n'}


@pytest.mark.parametrize("urls, gone", [
    (RENAMED, "removed or renamed (to QueryParameters, it seems) in pkg/_urls.py"),
    (RENAMED + ALIAS, "no longer lists in the __all__ of pkg/_urls.py"),
], ids=["renamed", "alias-outside-all"])
def test_a_package_all_string_naming_a_name_its_star_import_no_longer_takes_is_left_behind(tmp_path, urls, gone):
    """The brief's repro: pkg/__init__.py lists "QueryParams" in its own `__all__` (httpx's
    `import httpx` reads each listed name; `from pkg import *` fails on it)."""
    _, left = _removal_refused(tmp_path, LISTED, "pkg/_urls.py", {"pkg/_urls.py": urls})
    assert len(left) == 1 and left[0].startswith(f"pkg/__init__.py:3, user.py:5 still use QueryParams, which this "
                                                 f"task {gone}"), left


def test_a_package_all_string_of_a_name_still_passed_on_is_not_left_behind(tmp_path):
    _removal_merged(tmp_path, LISTED, {"pkg/_urls.py": RENAMED.replace('"QueryParameters"]', '"QueryParameters", '
                                                                       '"QueryParams"]') + ALIAS})


def test_an_all_string_alone_is_a_use_of_the_listed_name(tmp_path):
    """No other file uses the name: the package's `__all__` entry alone blocks."""
    files = LISTED | {"user.py": "import pkg\n\n\ndef make():\n    return pkg.URL()\n"}
    _, left = _removal_refused(tmp_path, files, "pkg/_urls.py", {"pkg/_urls.py": RENAMED})
    assert len(left) == 1 and left[0].startswith("pkg/__init__.py:3 still uses QueryParams, which this task removed "
                                                 "or renamed"), left


def test_uses_through_the_star_and_by_the_module_share_one_note_advising_the_listed_alias(tmp_path):
    """httpx: httpx/_client.py imports QueryParams from ._urls, the tests use httpx.QueryParams: one
    note, whose alias (listed in `__all__`) serves both."""
    files = FILES | {"direct.py": "from pkg._urls import QueryParams\n\n\ndef make():\n    return QueryParams()\n"}
    _, left = _removal_refused(tmp_path, files, "pkg/_urls.py", {"pkg/_urls.py": RENAMED})
    assert len(left) == 1 and left[0].startswith("direct.py (lines 1, 5), user.py:5 still use QueryParams"), left
    assert "keep the old name too (an alias, listed in the __all__ of pkg/_urls.py too)" in left[0], left
