"""Go: an import path names a folder of the repository only through a module's path.

`import "github.com/spf13/cobra"` is the external module, not a folder `cobra/` of a repository whose
go.mod says `module example.com/m`; `import "example.com/devtools/util"` is the folder util/ of the
module whose go.mod (the nearest above that folder) says `module example.com/devtools`, wherever that
module's folder stands, and a go.work's `use` lines make its modules' paths name their folders too.
Each case: a real repository, a task's `task check` and `task finish`.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

UTIL = "package {name}\n\nfunc F() int {{\n\treturn 1\n}}\n\nfunc G() int {{\n\treturn 2\n}}\n"
WITHOUT_F = "package {name}\n\nfunc G() int {{\n\treturn 2\n}}\n"


def _user(package: str, path: str, name: str) -> str:
    return f"package {package}\n\nimport \"{path}\"\n\nfunc use() int {{\n\treturn {name}.F() + {name}.G()\n}}\n"


def test_an_external_module_whose_last_part_names_a_local_folder_is_not_left_behind(tmp_path):
    """A local folder cobra/ of module example.com/m loses F; app/main.go calls F of the external
    github.com/spf13/cobra, which nothing here changed: no use left behind (a false block before)."""
    files = {"go.mod": "module example.com/m\n\ngo 1.21\n", "cobra/cobra.go": UTIL.format(name="cobra"),
             "app/main.go": _user("app", "github.com/spf13/cobra", "cobra")}
    _removal_merged(tmp_path, files, {"cobra/cobra.go": WITHOUT_F.format(name="cobra")})


NESTED = {"go.mod": "module example.com/m\n\ngo 1.21\n\nrequire example.com/tools v1.0.0\n",
          "tools/go.mod": "module example.com/tools\n\ngo 1.21\n", "tools/util/util.go": UTIL.format(name="util"),
          "app/main.go": _user("app", "example.com/tools/util", "util")}


def test_a_nested_module_the_root_module_requires_published_is_not_the_local_folder(tmp_path):
    """The root module imports example.com/tools/util at a published version: the nested module's
    folder tools/util/ changing does not change what it builds against (a false block before: the
    path's last parts are the folder's)."""
    _removal_merged(tmp_path, NESTED, {"tools/util/util.go": WITHOUT_F.format(name="util")})


@pytest.mark.parametrize("replace", [
    "replace example.com/tools => ./tools\n",
    "replace (\n\texample.com/tools v1.0.0 => ./tools // local\n)\n",
], ids=["line", "block"])
def test_a_nested_module_the_root_module_replaces_with_its_folder_leaves_its_removal_behind(tmp_path, replace):
    files = NESTED | {"go.mod": NESTED["go.mod"] + "\n" + replace}
    _, left = _removal_refused(tmp_path, files, "tools/util/**", {"tools/util/util.go": WITHOUT_F.format(name="util")})
    assert len(left) == 1 and left[0].startswith("app/main.go:6 still uses F, which this task removed"), left


@pytest.mark.parametrize("user, path", [
    ("tools/cmd/main.go", "example.com/devtools/util"),
    ("tools/main.go", "example.com/devtools/util"),
], ids=["below-the-module", "at-the-module-root"])
def test_a_nested_module_whose_path_is_not_its_folder_leaves_its_removal_behind(tmp_path, user, path):
    """tools/go.mod says `module example.com/devtools`: its files' `import "example.com/devtools/util"`
    names tools/util/ (missed before: the import's parts do not end in the folder's)."""
    files = {"go.mod": "module example.com/root\n\ngo 1.21\n",
             "tools/go.mod": "module example.com/devtools\n\ngo 1.21\n", "tools/util/util.go": UTIL.format(name="util"),
             user: _user("main", path, "util")}
    _, left = _removal_refused(tmp_path, files, "tools/util/**", {"tools/util/util.go": WITHOUT_F.format(name="util")})
    assert len(left) == 1 and left[0].startswith(f"{user}:6 still uses F, which this task removed"), left


def test_a_module_a_go_work_uses_leaves_its_removal_behind_in_another_module(tmp_path):
    """go.work uses ./a and ./b: b's `import "example.com/alpha/util"` builds against a/util/."""
    files = {"go.work": "go 1.21\n\nuse (\n\t./a\n\t./b\n)\n",
             "a/go.mod": "module example.com/alpha\n\ngo 1.21\n", "a/util/util.go": UTIL.format(name="util"),
             "b/go.mod": "module example.com/beta\n\ngo 1.21\n", "b/main.go": _user("main", "example.com/alpha/util", "util")}
    _, left = _removal_refused(tmp_path, files, "a/util/**", {"a/util/util.go": WITHOUT_F.format(name="util")})
    assert len(left) == 1 and left[0].startswith("b/main.go:6 still uses F, which this task removed"), left


def test_a_module_no_go_work_uses_is_not_the_one_another_module_builds_against(tmp_path):
    """Without a go.work, b requires example.com/alpha at a published version: a/util/ changing
    does not change what b builds against."""
    files = {"a/go.mod": "module example.com/alpha\n\ngo 1.21\n", "a/util/util.go": UTIL.format(name="util"),
             "b/go.mod": "module example.com/beta\n\ngo 1.21\n\nrequire example.com/alpha v1.0.0\n",
             "b/main.go": _user("main", "example.com/alpha/util", "util")}
    _removal_merged(tmp_path, files, {"a/util/util.go": WITHOUT_F.format(name="util")})


def test_the_root_package_of_a_nested_module_named_otherwise_leaves_its_removal_behind(tmp_path):
    """tools/go.mod says `module example.com/helpers`: tools/h.go is package helpers, imported as
    "example.com/helpers", a text that does not hold the folder's name `tools` (missed before: the
    importer was passed over for not spelling it)."""
    helpers = UTIL.format(name="helpers")
    files = {"go.mod": "module example.com/root\n\ngo 1.21\n", "tools/go.mod": "module example.com/helpers\n\ngo 1.21\n",
             "tools/h.go": helpers, "tools/cmd/main.go": _user("main", "example.com/helpers", "helpers")}
    _, left = _removal_refused(tmp_path, files, "tools/h.go", {"tools/h.go": WITHOUT_F.format(name="helpers")})
    assert len(left) == 1 and left[0].startswith("tools/cmd/main.go:6 still uses F, which this task removed"), left


def test_a_nested_go_mod_the_task_adds_is_read_from_its_tree(tmp_path):
    """The task makes tools/ a module of its own (`module example.com/devtools`, a go.mod it adds)
    and removes F from tools/util: tools/cmd/main.go, which it did not change, imports
    "example.com/devtools/util", now the folder tools/util/ of its own module, and calls F. `task
    check` read go.mod files from the base tree (no tools/go.mod there: the path named a published
    module) and said nothing; the finish's merge blocked."""
    util = UTIL.format(name="util")
    files = {"go.mod": "module example.com/m\n\ngo 1.21\n\nrequire example.com/devtools v1.0.0\n",
             "tools/util/util.go": util, "tools/cmd/main.go": _user("main", "example.com/devtools/util", "util")}
    _, left = _removal_refused(tmp_path, files, ("tools/go.mod", "tools/util/**"),
                               {"tools/go.mod": "module example.com/devtools\n\ngo 1.21\n",
                                "tools/util/util.go": WITHOUT_F.format(name="util")})
    assert len(left) == 1 and left[0].startswith("tools/cmd/main.go:6 still uses F, which this task removed"), left
