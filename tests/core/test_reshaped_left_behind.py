"""A call, in code no task changed, of a function a task reshaped, called the old way, blocks.

Found driving wtc on pydata/xarray: a task owning `xarray/core/utils.py` gave `result_name(objects)`
a second required parameter, `result_name(objects, default)`. `dataarray.py`, `apply_ufunc.py`
and `datatree_mapping.py` still called it with one argument; task check and finish were clean,
the run landed, and `DataArray + DataArray` raised TypeError. The post-merge signature check
(merge/checks/signatures.py) reads only calls a side added; the left-behind look now reads the
calls the landed tree keeps, in files the task did not change, of each function whose count of
required parameters the task changed (check/left_behind.py).
"""

from __future__ import annotations

import json

from tests.conftest import make_repo, wtc_in_process
from tests.core.test_uses_left_behind import _task_edited

UTILS = ("def result_name(objects):\n    names = {getattr(o, 'name', None) for o in objects}\n"
         "    return names.pop() if len(names) == 1 else None\n\n\n"
         "def other(value):\n    return value\n")
USER = ("from pkg.utils import result_name\n\n\n"
        "def combine(a, b):\n    return result_name([a, b])\n")
FILES = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/user.py": USER}


def _reshape_refused(tmp_path, files, own, edits):
    """A task owning `own` writes `edits`: its check fails (exit 1), its finish is a conflict; the
    finish's "still call(s)" notes."""
    repo = _task_edited(tmp_path, files, "rs", (own,), edits, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 1, check
    code, body = wtc_in_process(repo, "task", "finish", "rs", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    return [note for note in body["notes"] if "still call" in note]


RESHAPED = UTILS.replace("def result_name(objects):", "def result_name(objects, default):") \
    .replace("else None", "else default")


def test_a_required_parameter_added_while_an_unchanged_file_calls_the_old_way_is_refused(tmp_path):
    left = _reshape_refused(tmp_path, FILES, "/pkg/utils.py", {"pkg/utils.py": RESHAPED})
    assert len(left) == 1, left
    assert left[0].startswith("pkg/user.py:5 still calls result_name the old way (1 argument)"), left
    assert "result_name(objects, default)" in left[0], left
    assert "give what it added a default" in left[0] and "wtc task widen" in left[0], left


def test_the_check_names_the_call_and_the_finish_conflict_says_what_the_call_passes(tmp_path):
    repo = _task_edited(tmp_path, FILES, "rs", ("/pkg/utils.py",), {"pkg/utils.py": RESHAPED}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 1, check
    from tests.ci.ci_helpers import run_wtc

    text = run_wtc(repo, "task", "check", "rs", "--run", "r1").stdout
    assert "WOULD BE REFUSED at its merge: it leaves uses of names it removed or calls of functions it reshaped" \
        in text, text
    rows = check["left_behind"]
    assert [(r["use_path"], r["use_lines"], r["name"], r["signature"]) for r in rows] == \
        [("pkg/user.py", [5], "result_name", True)], rows
    code, body = wtc_in_process(repo, "task", "finish", "rs", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    [conflict] = [c for c in body["conflicts"] if c["kind"] == "left_behind"]
    message = conflict["semantic"]["message"]
    assert message.startswith("pkg/user.py:5 calls result_name with 1 argument(s), as its base shape "
                              "result_name(objects) takes, which rs changed to result_name(objects, default)"), message


def test_a_default_for_the_added_parameter_merges(tmp_path):
    repo = _task_edited(tmp_path, FILES, "rs", ("/pkg/utils.py",),
                        {"pkg/utils.py": RESHAPED.replace("objects, default)", "objects, default=None)")}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 0 and not check["left_behind"], check
    code, body = wtc_in_process(repo, "task", "finish", "rs", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body


def test_calls_whose_count_is_unknown_or_already_new_are_not_named(tmp_path):
    """A keyword argument or a spread makes a call's count unknown (never a block on a guess); a call
    that already passes the new count, and a local function of the same name, are not the old way."""
    files = dict(FILES)
    files["pkg/user.py"] = ("from pkg.utils import result_name\n\n\n"
                            "def by_keyword(a):\n    return result_name(objects=[a])\n\n\n"
                            "def spread(args):\n    return result_name(*args)\n\n\n"
                            "def new_way(a):\n    return result_name([a], None)\n")
    files["pkg/local.py"] = ("def result_name(objects):\n    return None\n\n\n"
                             "VALUE = result_name([1])\n")
    repo = _task_edited(tmp_path, files, "rs", ("/pkg/utils.py",), {"pkg/utils.py": RESHAPED}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 0 and not check["left_behind"], check


def test_a_typescript_call_the_old_way_is_named(tmp_path):
    files = {"src/util.ts": "export function pad(text: string): string {\n  return text + ' ';\n}\n",
             "src/user.ts": 'import { pad } from "./util";\n\nexport const x = pad("a");\n'}
    edits = {"src/util.ts": files["src/util.ts"].replace("pad(text: string)", "pad(text: string, width: number)")}
    left = _reshape_refused(tmp_path, files, "/src/util.ts", edits)
    assert len(left) == 1 and left[0].startswith("src/user.ts:3 still calls pad the old way (1 argument)"), left


def test_wtc_check_names_the_call_left_behind(tmp_path):
    from tests.ci.ci_helpers import commit_all, run_wtc
    from tests.conftest import git, write

    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": RESHAPED})
    commit_all(repo, "feature: reshape result_name")
    done = run_wtc(repo, "check", "--own", "pkg/utils.py", "--head", "feature", "--target", "main", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    body = json.loads(done.stdout)
    assert [(u["use_path"], u["use_lines"], u["name"], u["signature"]) for u in body["left_behind"]] == \
        [("pkg/user.py", [5], "result_name", True)], body["left_behind"]
    text = run_wtc(repo, "check", "--own", "pkg/utils.py", "--head", "feature", "--target", "main").stdout
    assert "pkg/user.py (line 5) still calls result_name the old way (1 argument), which the branch changed to " \
        "result_name(objects, default) in pkg/utils.py" in text, text
    assert text.strip().splitlines()[-1].startswith(
        "wtc check: 1 use left behind of a removed name or a reshaped function:"), text


def test_a_parameter_inserted_on_a_line_of_its_own_is_a_reshape_and_code_added_elsewhere_is_not(tmp_path):
    """A parameter list written one parameter a line takes a new one as an inserted line (the diff
    touches no line): still a reshape. Lines added after a line ending in a comma elsewhere (a dict
    literal) reshape nothing."""
    multi = UTILS.replace("def result_name(objects):", "def result_name(\n    objects,\n):") \
        + "\n\nTABLE = {\n    'a': 1,\n}\n"
    files = dict(FILES, **{"pkg/utils.py": multi})
    left = _reshape_refused(tmp_path / "one", files, "/pkg/utils.py",
                            {"pkg/utils.py": multi.replace("    objects,\n", "    objects,\n    default,\n")})
    assert len(left) == 1 and left[0].startswith("pkg/user.py:5 still calls result_name the old way"), left
    repo = _task_edited(tmp_path / "two", files, "rs", ("/pkg/utils.py",),
                        {"pkg/utils.py": multi.replace("    'a': 1,\n", "    'a': 1,\n    'b': 2,\n")}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 0 and not check["left_behind"], check


def test_a_go_function_reshaped_is_not_advised_a_default_go_has_none(tmp_path):
    """Found driving wtc on spf13/cobra: `CheckErr(msg interface{})` given a `code int` parameter while
    command.go and doc/ still call `CheckErr(x)`; the refusal said "give what it added a default",
    which Go cannot do. It says what Go can: keep the old shape under its name, the new one beside it."""
    files = {"go.mod": "module example.com/m\n\ngo 1.21\n",
             "cobra.go": "package cobra\n\nimport \"os\"\n\nfunc CheckErr(msg interface{}) {\n\tif msg != nil {\n"
                         "\t\tos.Exit(1)\n\t}\n}\n",
             "command.go": "package cobra\n\nfunc (c *Command) Usage() {\n\tCheckErr(c.run())\n}\n"}
    reshaped = files["cobra.go"].replace("CheckErr(msg interface{})", "CheckErr(msg interface{}, code int)") \
        .replace("os.Exit(1)", "os.Exit(code)")
    left = _reshape_refused(tmp_path, files, "/cobra.go", {"cobra.go": reshaped})
    assert len(left) == 1 and left[0].startswith("command.go:4 still calls CheckErr the old way (1 argument)"), left
    assert "a default" not in left[0].split("gives no parameter")[0], left
    assert "keep CheckErr taking its old parameters, calling the new shape under a new name (go gives no " \
           "parameter a default)" in left[0], left
