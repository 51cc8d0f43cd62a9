"""A change to a language wtc reads no names of is never called clean without saying so.

Found driving wtc on lua/lua before C had a semantic profile: a task renaming `luaL_checknumber` in
lauxlib.c and lauxlib.h (36 uses in 10 other files) was "merges cleanly" at `task check`, merged at
finish, and `wtc check` passed: no check had read a C file, and nothing said so. Every face that
looks for names left behind (`wtc check`, `task check`, `task finish`, `wtc report`, `land`) now
names the languages it did not read and counts their changed files: a field in JSON
(`names_unread`: `languages`, `files`) and the words in text. Swift and Ruby stand for them here
(no `[semantic]` profile); a document (Markdown) and languages the check reads (Python, C#, PHP and
Kotlin since they have a profile) do not count.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc_in_process

FILES = {
    "Sources/Util.swift": "func parse(_ s: String) -> Int { Int(s)! }\n",
    "Sources/main.swift": "print(parse(\"1\"))\n",
    "lib/util.rb": "def parse(s)\n  s.to_i\nend\n",
    "README.md": "# demo\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "def f():\n    return 1\n",
    "src/Calc.cs": "namespace App { static class Calc { public static int Add(int a, int b) => a + b; } }\n",
    "src/Calc.php": "<?php\nnamespace App;\n\nfunction add(int $a, int $b): int { return $a + $b; }\n",
    "src/Calc.kt": "package app\n\nfun add(a: Int, b: Int): Int = a + b\n",
}
RENAMED = {
    "Sources/Util.swift": "func parseInt(_ s: String) -> Int { Int(s)! }\n",
    "lib/util.rb": "def parse_int(s)\n  s.to_i\nend\n",
    "README.md": "# demo, renamed\n",
    "pkg/core.py": "def f():\n    return 2\n",
    "src/Calc.cs": "namespace App { static class Calc { public static int Sum(int a, int b) => a + b; } }\n",
    "src/Calc.php": "<?php\nnamespace App;\n\nfunction sum(int $a, int $b): int { return $a + $b; }\n",
    "src/Calc.kt": "package app\n\nfun sum(a: Int, b: Int): Int = a + b\n",
}
EXPECTED = {"languages": ["ruby", "swift"], "files": 2}


def test_wtc_check_warns_of_the_languages_it_did_not_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, RENAMED)
    commit_all(repo, "rename parse")
    code, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    assert code == 0 and body["names_unread"] == EXPECTED, body
    [finding] = [f for f in body["findings"] if f["rule"] == "names_unread"]
    assert finding["severity"] == "warning" and finding["details"] == EXPECTED
    assert body["left_behind"] == [], "the caveat is no use left behind"
    text = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main").stdout
    assert "names_unread" in text and "2 changed files of ruby, swift were NOT looked for" in text, text


def test_a_python_only_change_says_nothing_of_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/core.py": "def f():\n    return 2\n", "README.md": "# changed\n"})
    commit_all(repo, "python and a document")
    code, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    assert code == 0 and body["names_unread"] == {} and not [f for f in body["findings"] if f["rule"] == "names_unread"]


def test_task_check_finish_report_and_land_say_what_they_did_not_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "**")
    assert code == 0, started
    write(Path(started["worktree"]), RENAMED)

    code, checked = wtc_in_process(repo, "task", "check", "t", "--run", "r")
    assert code == 0 and checked["clean"] and checked["names_unread"] == EXPECTED, checked
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "check", "t", "--run", "r"], cwd=repo,
                          capture_output=True, text=True).stdout
    assert "merges cleanly onto integration, but NOT CHECKED for uses of names it removed in ruby, swift" in text
    assert "NOT CHECKED: names removed or renamed in 2 changed files of ruby, swift" in text, text

    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert code == 0 and finished["state"] == "merged" and finished["names_unread"] == EXPECTED, finished
    assert any("2 changed files of ruby, swift were NOT looked for" in note for note in finished["notes"])

    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert code == 0 and report["names_unread"] == EXPECTED, report
    assert any(w.startswith("left behind: names removed or renamed in 2 changed files of ruby, swift")
               for w in report["warnings"]), report["warnings"]

    code, landed = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 0 and landed["names_unread"] == EXPECTED, landed


def test_a_change_that_only_added_lines_removed_no_name_and_is_not_called_unchecked(tmp_path: Path) -> None:
    """Found driving wtc on Ruby and PHP projects: a task that only added a method was told "NOT
    CHECKED: names removed or renamed in 2 changed files of php, ruby": it had removed none. A file
    whose change only adds lines is not counted; a changed line is a removal and still is."""
    files = {"lib/util.rb": "def parse(s)\n  s.to_i\nend\n", "src/Util.php": "<?php\nfunction parse($s) { return 1; }\n",
             "lib/fmt.rb": "def fmt(s)\n  s.to_s\nend\n"}
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "add", "--run", "r", "--own", "**")
    assert code == 0, started
    write(Path(started["worktree"]), {
        "lib/util.rb": "# parsing\ndef parse(s)\n  s.to_i\nend\n\ndef parse_all(xs)\n  xs.map { |s| parse(s) }\nend\n",
        "src/Util.php": files["src/Util.php"] + "function parse_all($xs) { return array_map('parse', $xs); }\n"})
    code, checked = wtc_in_process(repo, "task", "check", "add", "--run", "r")
    assert code == 0 and checked["names_unread"] == {}, checked
    code, finished = wtc_in_process(repo, "task", "finish", "add", "--run", "r")
    assert code == 0 and finished["names_unread"] == {}, finished
    assert not any("NOT looked for" in note for note in finished["notes"]), finished["notes"]
    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert code == 0 and report["names_unread"] == {}, report

    code, started = wtc_in_process(repo, "task", "start", "edit", "--run", "r", "--own", "**")
    # (PHP is read now: Ruby is the language no check reads)
    write(Path(started["worktree"]), {"lib/fmt.rb": "def fmt_one(s)\n  s.to_s\nend\n"})
    code, finished = wtc_in_process(repo, "task", "finish", "edit", "--run", "r")
    assert code == 0 and finished["names_unread"] == {"languages": ["ruby"], "files": 1}, finished
