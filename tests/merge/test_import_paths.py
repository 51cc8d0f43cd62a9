"""The import-path check (merge/import_paths.py) on real repositories: one side moves an import path
throughout (javax -> jakarta, a Go module path bumped), the other side's new code imports the old one."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.conftest import git, make_repo, write
from worktree_coord.merge import check_tree_merge

REQ = "package app;\n\nimport javax.servlet.http.HttpServletRequest;\n\nclass {name} {{\n    HttpServletRequest r;\n}}\n"
COOKIE = "package app;\n\nimport javax.servlet.http.Cookie;\n\nclass New {\n    Cookie c;\n}\n"


def _merge(tmp_path: Path, base: dict[str, str], ours: dict[str, str | None], theirs: dict[str, str | None]):
    repo = make_repo(tmp_path / "repo", base)
    base_id = git(repo, "rev-parse", "HEAD")
    for path, text in ours.items():
        if text is None:
            (repo / path).unlink()
        else:
            write(repo, {path: text})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "ours")
    ours_id = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "theirs", base_id)
    for path, text in theirs.items():
        if text is None:
            (repo / path).unlink()
        else:
            write(repo, {path: text})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "theirs")
    theirs_id = git(repo, "rev-parse", "HEAD")
    handle = pygit2.Repository(str(repo))
    # Without rename detection, as the check's own diffs see a tree (a move is a deletion and an addition).
    index = handle.merge_commits(ours_id, theirs_id, flags=pygit2.enums.MergeFlag(0))
    assert not index.conflicts
    return check_tree_merge(handle, base_id, ours_id, theirs_id, index.write_tree(handle),
                            labels=("integration", "base", "t1"))


def _jakarta(text: str) -> str:
    return text.replace("javax.servlet", "jakarta.servlet")


BASE = {"src/app/A.java": REQ.format(name="A"), "src/app/B.java": REQ.format(name="B"), "README": "x\n"}


def test_a_new_import_of_a_path_the_other_side_moved_everywhere_is_reported_with_both_places(tmp_path: Path) -> None:
    found = _merge(tmp_path, BASE, {p: _jakarta(t) for p, t in BASE.items() if p.endswith(".java")},
                   {"src/app/New.java": COOKIE})
    [finding] = [f for f in found if f.problem == "import_path"]
    assert (finding.name, finding.definition_path, finding.definition_line) == ("javax.servlet.http", "src/app/A.java", 3)
    assert (finding.use_path, finding.use_line, finding.use) == ("src/app/New.java", 3, "import javax.servlet.http.Cookie;")
    assert (finding.removed_by, finding.used_by) == ("integration", "t1")
    assert "src/app/New.java:3 imports javax.servlet.http" in finding.message and "src/app/A.java:3" in finding.message
    assert finding.as_conflict().kind == "semantic"


def test_no_finding_while_a_file_of_that_side_still_imports_the_old_path(tmp_path: Path) -> None:
    base = BASE | {"src/app/C.java": REQ.format(name="C")}   # ours leaves C alone: javax is still there
    found = _merge(tmp_path, base, {p: _jakarta(t) for p, t in BASE.items() if p.endswith(".java")},
                   {"src/app/New.java": COOKIE})
    assert [f for f in found if f.problem == "import_path"] == []


def test_no_finding_when_the_other_side_dropped_the_import_without_a_replacement(tmp_path: Path) -> None:
    plain = {p: t.replace("import javax.servlet.http.HttpServletRequest;\n", "").replace("HttpServletRequest r;", "int r;")
             for p, t in BASE.items() if p.endswith(".java")}
    found = _merge(tmp_path, BASE, plain, {"src/app/New.java": COOKIE})
    assert [f for f in found if f.problem == "import_path"] == []


def test_a_go_module_path_bumped_with_an_alias_is_reported_and_the_new_path_is_not_the_old(tmp_path: Path) -> None:
    old = 'package a\n\nimport (\n\tclientv3 "example.com/etcd/clientv3"\n)\n\nvar C clientv3.Client\n'
    new_use = 'package b\n\nimport (\n\tclientv3 "example.com/etcd/clientv3"\n)\n\nvar D clientv3.Client\n'
    bumped = old.replace("example.com/etcd/clientv3", "example.com/etcd/client/v3")
    base = {"a/a.go": old, "a/b.go": old.replace("var C", "var E"), "go.mod": "module example.com/x\n"}
    ours = {"a/a.go": bumped, "a/b.go": bumped.replace("var C", "var E")}
    [finding] = [f for f in _merge(tmp_path, base, ours, {"b/b.go": new_use}) if f.problem == "import_path"]
    assert (finding.name, finding.use_path, finding.use_line) == ("example.com/etcd/clientv3", "b/b.go", 4)
    # the other side importing the new path (a prefix of nothing old) is fine
    assert [f for f in _merge(tmp_path / "again", base, ours, {"b/b.go": new_use.replace("etcd/clientv3", "etcd/client/v3")})
            if f.problem == "import_path"] == []


def test_a_file_the_using_side_moved_brings_no_new_imports(tmp_path: Path) -> None:
    """The check's diffs do not pair renames: a file moved to another folder reads as added, and its
    old imports are not taken for the using side's new ones (precision first: the moved file is not
    read, whatever it imports)."""
    old = COOKIE.replace("class New", "class Old")
    base = BASE | {"src/app/Old.java": old}
    ours = {p: _jakarta(t) for p, t in BASE.items() if p.endswith(".java")} | {"src/app/Old.java": None}
    found = _merge(tmp_path, base, ours, {"src/app/Old.java": None, "lib/app/Old.java": old})
    assert [f for f in found if f.problem == "import_path"] == []
    moved_and_new = _merge(tmp_path / "again", base, ours, {"src/app/Old.java": None, "lib/app/Old.java": old,
                                                            "src/app/New.java": COOKIE})
    assert [f.use_path for f in moved_and_new if f.problem == "import_path"] == ["src/app/New.java"]
