"""`wtc check` with the left-behind check: a branch removing a name that code it did not change still
uses fails the check (`left_behind`, exit 1) naming each use, in every format; the target's
`left-behind` setting (never the branch's) makes it a warning or turns it off; a use updated, an
alias kept, or a use the target already took out leaves nothing behind. Found driving pydantic: a
branch removing `unique_list` from pydantic/_internal/_utils.py, which tests/test_utils.py still
imports, came back clean from `wtc check`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, repo_state, run_wtc
from tests.conftest import git, make_repo, write

UTILS = ("def unique_list(items):\n    return list(dict.fromkeys(items))\n\n\n"
         "def flatten(rows):\n    return [x for row in rows for x in row]\n")
USES = ("from pkg.utils import unique_list\n\n\n"
        "def test_unique_list():\n    assert unique_list([1, 1]) == [1]\n")
WITHOUT = "def flatten(rows):\n    return [x for row in rows for x in row]\n"


def removing_branch(tmp_path: Path, utils: str = WITHOUT, more: dict[str, str] | None = None) -> Path:
    """main holds pkg/utils.py and tests/test_utils.py (which imports unique_list); the branch
    `feature` rewrites pkg/utils.py to `utils` (and writes `more`) and leaves the test as it was."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "tests/test_utils.py": USES})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": utils} | (more or {}))
    commit_all(repo, "feature: drop unique_list")
    return repo


def check(repo: Path, *args: str):
    return run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", *args)


def on_main(repo: Path, files: dict[str, str], message: str) -> None:
    git(repo, "checkout", "-q", "main")
    write(repo, files)
    commit_all(repo, message)
    git(repo, "checkout", "-q", "feature")


def test_a_removed_function_another_file_imports_fails_the_check_naming_the_use(tmp_path: Path) -> None:
    repo = removing_branch(tmp_path)
    before = repo_state(repo)
    done = check(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("tests/test_utils.py:1: error: left_behind: tests/test_utils.py (lines 1, 5) still uses unique_list, "
            "which the branch removed or renamed in pkg/utils.py") in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("wtc check: 1 use left behind of a removed name:")
    body = json.loads(check(repo, "--json").stdout)
    assert body["exit_code"] == 1 and body["ok"] is False and body["merge"]["clean"] is True
    assert body["left_behind_mode"] == "block" and body["counts"]["left_behind"] == 1
    assert body["counts"]["conflicts"] == 0, "a use left behind is not a merge conflict"
    assert [(u["use_path"], u["use_lines"], u["name"], u["definition_path"]) for u in body["left_behind"]] == \
        [("tests/test_utils.py", [1, 5], "unique_list", "pkg/utils.py")]
    [finding] = body["findings"]
    assert (finding["rule"], finding["category"], finding["severity"], finding["path"], finding["start_line"]) == \
        ("left_behind", "left_behind", "error", "tests/test_utils.py", 1)
    assert repo_state(repo) == before, "the check is read-only"


@pytest.mark.parametrize("fmt, needle", [
    ("junit", 'classname="wtc.left_behind.left_behind" name="tests/test_utils.py"'),
    ("sarif", '"ruleId": "left_behind"'),
    ("github", "::error file=tests/test_utils.py,line=1,endLine=1,title=wtc left_behind::tests/test_utils.py"),
])
def test_every_format_carries_the_use(tmp_path: Path, fmt: str, needle: str) -> None:
    done = check(removing_branch(tmp_path), "--format", fmt)
    assert done.returncode == 1 and needle in done.stdout, done.stdout
    if fmt == "junit":
        assert ET.fromstring(done.stdout).get("failures") == "1"
    if fmt == "github":
        assert "1 use(s) left behind of a removed name" in done.stdout.splitlines()[-1]


def test_the_same_branch_updating_the_use_is_clean(tmp_path: Path) -> None:
    repo = removing_branch(tmp_path, more={"tests/test_utils.py": "from pkg.utils import flatten\n\n\n"
                                           "def test_flatten():\n    assert flatten([[1], [2]]) == [1, 2]\n"})
    done = check(repo, "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 0 and body["left_behind"] == [] and body["findings"] == [], done.stdout


def test_a_rename_that_keeps_the_old_name_as_an_alias_is_clean(tmp_path: Path) -> None:
    repo = removing_branch(tmp_path, utils=UTILS.replace("def unique_list", "def dedupe") + "\n\nunique_list = dedupe\n")
    done = check(repo)
    assert done.returncode == 0 and "left_behind" not in done.stdout, done.stdout


def test_a_use_the_target_already_took_out_is_not_named(tmp_path: Path) -> None:
    repo = removing_branch(tmp_path)
    on_main(repo, {"tests/test_utils.py": "def test_nothing():\n    pass\n"}, "main: the test no longer uses it")
    done = check(repo)
    assert done.returncode == 0 and "left_behind" not in done.stdout, done.stdout


def test_the_targets_configuration_makes_it_a_warning_or_turns_it_off(tmp_path: Path) -> None:
    repo = removing_branch(tmp_path)
    on_main(repo, {".wtc.toml": 'left-behind = "warn"\n'}, "main: left-behind warns")
    done = check(repo, "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 0 and body["ok"] is True and body["left_behind_mode"] == "warn"
    assert [f["rule"] for f in body["findings"]] == ["left_behind_warning"]
    assert [u["name"] for u in body["left_behind"]] == ["unique_list"]
    on_main(repo, {".wtc.toml": 'left-behind = "off"\n'}, "main: left-behind off")
    body = json.loads(check(repo, "--json").stdout)
    assert body["exit_code"] == 0 and body["findings"] == [] and body["left_behind"] == []
    assert body["left_behind_mode"] == "off"
    junit = ET.fromstring(check(repo, "--format", "junit").stdout)
    [suite] = [s for s in junit if s.get("name") == "wtc.left_behind"]
    assert suite.get("skipped") == suite.get("tests") == "5"   # (its rules: names_unread among them)
    # The CI step's own flag (the workflow's author, not the branch) wins over the setting.
    assert check(repo, "--left-behind", "block").returncode == 1
    assert check(repo, "--left-behind", "maybe").returncode == 2


def test_a_branch_cannot_relax_the_mode_by_its_own_configuration(tmp_path: Path) -> None:
    repo = removing_branch(tmp_path, more={".wtc.toml": 'left-behind = "off"\n'})
    done = check(repo)
    assert done.returncode == 1 and "left_behind: tests/test_utils.py (lines 1, 5) still uses unique_list" in done.stdout


def test_a_tasks_check_takes_its_runs_mode(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "tests/test_utils.py": USES})
    for mode, code in (("warn", 0), ("block", 1)):
        run = f"r-{mode}"
        assert run_wtc(repo, "run", "start", "--run", run, "--left-behind", mode).returncode == 0
        started = run_wtc(repo, "task", "start", "utils", "--run", run, "--own", "pkg/utils.py", "--json")
        write(Path(json.loads(started.stdout)["worktree"]), {"pkg/utils.py": WITHOUT})
        assert run_wtc(repo, "task", "finish", "utils", "--run", run, "--no-merge").returncode == 0
        done = run_wtc(repo, "check", "--run", run, "--task", "utils", "--json")
        body = json.loads(done.stdout)
        assert done.returncode == code and body["left_behind_mode"] == mode, done.stdout + done.stderr
        assert [u["use_path"] for u in body["left_behind"]] == ["tests/test_utils.py"]


def test_a_removed_class_whose_member_names_are_everywhere_does_not_hide_a_use(tmp_path: Path) -> None:
    """pydantic's shape: the branch removed a class (its `value` and `merge` went along) and
    `unique_list`; the files mentioning `value` filled the files read before tests/test_utils.py."""
    klass = "class Items:\n    def value(self):\n        return 1\n\n    def merge(self, other):\n        return other\n\n\n"
    common = {f"app/m{i:03}.py": f"value = {i}\nmerge = None\n" for i in range(120)}
    repo = removing_branch(tmp_path, utils=WITHOUT)
    git(repo, "checkout", "-q", "main")
    write(repo, {"pkg/utils.py": klass + UTILS} | common)
    commit_all(repo, "main: a class and many files")
    git(repo, "branch", "-f", "feature", "main")
    git(repo, "checkout", "-q", "feature")
    write(repo, {"pkg/utils.py": WITHOUT})
    commit_all(repo, "feature: drop Items and unique_list")
    body = json.loads(check(repo, "--json").stdout)
    assert [(u["use_path"], u["name"]) for u in body["left_behind"]] == [("tests/test_utils.py", "unique_list")]


def test_more_files_mentioning_a_removed_name_than_are_read_is_no_answer_beside_the_uses_read(tmp_path: Path,
                                                                                               monkeypatch) -> None:
    from worktree_coord.check import check as run_check
    from worktree_coord.check import uses_left_behind

    repo = removing_branch(tmp_path)
    git(repo, "checkout", "-q", "main")
    write(repo, {f"tests/test_more{i}.py": USES for i in range(2)})
    commit_all(repo, "main: more tests use it")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "main", "-m", "take main in")
    monkeypatch.setattr(uses_left_behind, "MAX_MENTIONING", 2)   # the cap, at a size a test can pass
    report = run_check(repo, head="feature", target="main", own=["**"])
    assert report.exit_code == 1 and len(report.left_behind) == 2
    # The file left unread may hold a use too: no answer for it (exit 6 once no use read blocks).
    [unread] = [f for f in report.findings if f.rule == "left_behind_failed"]
    assert unread.severity.value == "error" and "2 of the 3 files mentioning 1 of the 1 removed names" in unread.message


def test_a_branch_deleting_a_module_another_file_requires_by_path_fails_the_check(tmp_path: Path) -> None:
    """The module look reads the branch's head (`wtc check`, as `wtc report` reads a run's tip): a
    `require` of a file the branch deleted is left behind, as a removed name's import is."""
    repo = make_repo(tmp_path / "repo", {
        "package.json": '{"name": "cli"}\n',
        "lib/utils/format-bytes.js": "module.exports = (n) => `${n} B`\n",
        "lib/commands/view.js": "const fb = require('../utils/format-bytes.js')\n\nmodule.exports = fb\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", "lib/utils/format-bytes.js")
    commit_all(repo, "feature: drop format-bytes")
    done = check(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("lib/commands/view.js:1: error: left_behind: lib/commands/view.js (line 1) still uses "
            "../utils/format-bytes.js, which the branch deleted (the file lib/utils/format-bytes.js)") in done.stdout
    body = json.loads(check(repo, "--json").stdout)
    assert [(u["use_path"], u["use_lines"], u["module"], u["definition_path"]) for u in body["left_behind"]] == \
        [("lib/commands/view.js", [1], True, "lib/utils/format-bytes.js")]


def test_a_name_a_branch_stops_exporting_that_another_module_imports_fails_the_check(tmp_path: Path) -> None:
    """An ES module's `export { a, b }` made `export { a }` (b stays in the file): the importer of b
    no longer loads; the check names it and the way to keep it."""
    module = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nexport { a, b };\n"
    user = 'import { b } from "./m.js";\n\nexport const v = b();\n'
    repo = make_repo(tmp_path / "repo", {"src/m.js": module, "src/user.js": user})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"src/m.js": module.replace("export { a, b }", "export { a }")})
    commit_all(repo, "feature: b is private")
    done = check(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("src/user.js:1: error: left_behind: src/user.js (lines 1, 3) still uses b, which the branch no longer "
            "exports from src/m.js; the branch does not change that use, so the merged tree would not resolve it: "
            "keep b exported, or update the use on the branch") in done.stdout, done.stdout
