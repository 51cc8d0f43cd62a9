"""`wtc report` names each declaration the landed tree holds twice in one scope where the pin did
not (`declared_twice`, also a warning): the last net under every merge of a run, for a merge made
with `--semantic warn` and for a hand resolution no merge check saw."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, wtc_in_process

UTIL = ("package util\n\nimport \"strings\"\n\n// Words splits text.\nfunc Words(text string) []string {\n"
        "\treturn strings.Fields(text)\n}\n")


def _run(tmp_path: Path, semantic: str) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "repo", {"go.mod": "module example.com/m\n\ngo 1.22\n", "util/util.go": UTIL,
                                         "util/other.go": "package util\n\n// Other is one.\nfunc Other() int {\n\treturn 1\n}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r1", "--semantic", semantic)[0] == 0
    for task in ("first", "second", "elsewhere"):
        assert wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", "util/**")[0] == 0
    return repo, repo / ".wtc" / "worktrees" / "r1"


def test_a_function_two_tasks_both_added_under_semantic_warn_is_named(tmp_path: Path) -> None:
    repo, worktrees = _run(tmp_path, "warn")
    count = "\n// Count counts words.\nfunc Count(text string) int {\n\treturn len(Words(text))\n}\n"
    (worktrees / "first" / "util/util.go").write_text(UTIL + count)
    (worktrees / "second" / "util/util.go").write_text(UTIL.replace("// Words splits", count.lstrip("\n") + "\n// Words splits"))
    (worktrees / "elsewhere" / "util/other.go").write_text(
        "package util\n\n// Other is one.\nfunc Other() int {\n\treturn 1\n}\n\n// Two is two.\nfunc Two() int {\n\treturn 2\n}\n")
    for task in ("first", "second", "elsewhere"):
        code, body = wtc_in_process(repo, "task", "finish", task, "--run", "r1")
        assert code == 0 and body["state"] == "merged", body
    code, report = wtc_in_process(repo, "report", "--run", "r1")
    assert code == 0
    assert [(row["path"], row["name"], row["tasks"]) for row in report["declared_twice"]] == \
        [("util/util.go", "Count", ["first", "second"])]
    [row] = report["declared_twice"]
    assert len(set(row["lines"])) == 2
    assert any(w.startswith("declared twice: util/util.go declares Count at lines") and "tasks first, second" in w
               for w in report["warnings"]), report["warnings"]


def test_a_run_that_declares_nothing_twice_names_nothing(tmp_path: Path) -> None:
    repo, worktrees = _run(tmp_path, "block")
    (worktrees / "first" / "util/util.go").write_text(UTIL.replace("strings.Fields(text)", "strings.Fields(strings.TrimSpace(text))"))
    (worktrees / "second" / "util/util.go").write_text(UTIL + "\n// Lines splits lines.\nfunc Lines(text string) []string {\n"
                                                      "\treturn strings.Split(text, \"\\n\")\n}\n")
    for task in ("first", "second"):
        code, body = wtc_in_process(repo, "task", "finish", task, "--run", "r1")
        assert code == 0 and body["state"] == "merged", body
    code, report = wtc_in_process(repo, "report", "--run", "r1")
    assert code == 0 and report["declared_twice"] == []
    assert not any(w.startswith("declared twice") for w in report["warnings"])
