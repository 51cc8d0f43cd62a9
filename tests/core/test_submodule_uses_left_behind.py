"""A Python module read through its package's import (`import click`, then `click.utils.f()`) is
a use of what the submodule defines, as `import click.utils` is.

Found driving `wtc fanout` on pallets/click: a task renamed `_make_default_short_help` in
src/click/utils.py; the check named tests/test_deprecations.py (`import click.utils`) but not
tests/test_utils/test_make_default_short_help.py (`import click` ...
`click.utils._make_default_short_help(value, max_length)`), and the landed tree failed its tests.
The package's own `from .utils import ...` makes `utils` its attribute, so the path works at run
time and breaks with the rename. symbols.py records such paths (`Symbols.submodules`) so that what
may reach the submodule reads the file, and semantic.py's `targets` follows them.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _second_finish

UTILS = "def rfcformat(x):\n    return x\n\n\ndef other(x):\n    return x\n"
RENAMED = UTILS.replace("def rfcformat", "def format_rfc")
PACKAGE = "from .utils import other\n"


@pytest.mark.parametrize("nested, user, line", [
    (False, "import pkg\n\n\ndef test_it():\n    assert pkg.utils.rfcformat(1) == 1\n", 5),
    (False, "import pkg\n\nA = pkg.utils.rfcformat\n", 3),
    (False, "import pkg as p\n\nA = p.utils.rfcformat(2)\n", 3),
    (True, "import top\n\nA = top.pkg.utils.rfcformat(2)\n", 3),
    (True, "from top import pkg\n\nA = pkg.utils.rfcformat(2)\n", 3),
], ids=["package-call-in-function", "package-value", "package-alias", "two-levels", "from-import-package"])
def test_a_removed_name_read_through_the_package_import_is_left_behind(tmp_path, nested, user, line):
    where = "top/pkg" if nested else "pkg"
    files = {f"{where}/__init__.py": PACKAGE, f"{where}/utils.py": UTILS, "app/__init__.py": "", "app/user.py": user}
    if nested:
        files["top/__init__.py"] = ""
    _, left = _removal_refused(tmp_path, files, f"{where}/utils.py", {f"{where}/utils.py": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"app/user.py:{line} still uses rfcformat"), left


def test_the_package_read_as_click_reads_it(tmp_path):
    # click's layout: src/ layout, the test at tests/test_utils/ (a package of its own), `import click`.
    files = {"src/click/__init__.py": "from .utils import echo\n",
             "src/click/utils.py": "def echo(x):\n    return x\n\n\ndef _short_help(h, n=45):\n    return h[:n]\n",
             "tests/test_utils/__init__.py": "",
             "tests/test_utils/test_short_help.py": "import click\n\n\ndef test_it():\n"
                                                    "    assert click.utils._short_help('a', 3) == 'a'\n"}
    renamed = files["src/click/utils.py"].replace("def _short_help", "def _help_short")
    _, left = _removal_refused(tmp_path, files, "src/click/utils.py", {"src/click/utils.py": renamed})
    assert len(left) == 1 and left[0].startswith("tests/test_utils/test_short_help.py:5 still uses _short_help"), left


@pytest.mark.parametrize("user", [
    "import pkg\n\n\ndef g(pkg):\n    return pkg.utils.rfcformat\n",     # a parameter hides the package
    "import pkg\n\nA = pkg.utils.other\n",                                # another name of the module
    "import pkg\n\n# pkg.utils.rfcformat was here\nA = 1\n",            # a comment
    "import json\n\nA = json.utils.rfcformat\n",                          # a module of no file of the tree
    "import pkg\n\nA = pkg.other.rfcformat\n",                            # an attribute, not the module
], ids=["parameter", "other-name", "comment", "other-module", "other-attribute"])
def test_a_path_that_is_not_the_removed_name_is_not_left_behind(tmp_path, user):
    files = {"pkg/__init__.py": PACKAGE, "pkg/utils.py": UTILS, "pkg/fields.py": user}
    _removal_merged(tmp_path, files, {"pkg/utils.py": RENAMED})


def test_a_use_another_task_added_through_the_package_is_caught_at_its_merge(tmp_path):
    files = {"pkg/__init__.py": PACKAGE, "pkg/utils.py": UTILS, "app/__init__.py": "", "app/main.py": "A = 1\n"}
    code, body = _second_finish(tmp_path, files, ("rename", "pkg/**", {"pkg/utils.py": RENAMED}),
                                ("use", "app/**", {"app/main.py": "import pkg\n\nA = pkg.utils.rfcformat(1)\n"}))
    assert code == 1 and body["state"] == "conflict", body
    assert any("rfcformat" in str(conflict) for conflict in body.get("conflicts", []) + body.get("notes", [])), body
