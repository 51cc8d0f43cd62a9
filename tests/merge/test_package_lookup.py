"""A function one side deletes and the other side's new code calls, in one file, never merges clean
through `merge-file` (the git merge driver) (issue 35, 1.11).

In Go a function of one file is used by every file of its package (its folder), so one file cannot
tell whether a name it lost is still defined in another: the one-file check let all such merges
through clean (15 of 15 agent-style Go collisions), while the merge queue, which sees the whole
tree, caught them. Now the driver reads the package's other files from its repository (the working
tree, and the commit git is merging in); standalone, where nothing can tell, the use is reported
(a conflict, or a warning with --semantic warn) with a note saying the package was not read.
The agent-style cases below are the shapes agents write: one side deletes `helper`, the other adds
a new function (method, closure, goroutine, test helper...) calling it, in the same file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from worktree_coord.merge import merge_file
from worktree_coord.merge.result import name_word

WTC = str(Path(sys.executable).parent / "wtc")

GO_HEAD = "package util\n\nimport \"strings\"\n\n"
GO_BASE = GO_HEAD + "func helper(s string) string {\n\treturn strings.TrimSpace(s)\n}\n\nfunc Clean(s string) string {\n\treturn helper(s)\n}\n"
GO_DELETED = GO_HEAD + "func Clean(s string) string {\n\treturn strings.TrimSpace(s)\n}\n"
GO_METHODS = (GO_HEAD + "type Server struct {\n\tname string\n}\n\nfunc (s *Server) helper() string {\n\treturn strings.ToUpper(s.name)\n}\n\n"
              "func (s *Server) Name() string {\n\treturn s.helper()\n}\n")
GO_METHOD_DELETED = GO_HEAD + "type Server struct {\n\tname string\n}\n\nfunc (s *Server) Name() string {\n\treturn strings.ToUpper(s.name)\n}\n"
GO_GENERIC = GO_HEAD + "func helper[T any](x T) []T {\n\treturn []T{x}\n}\n\nfunc One(s string) []string {\n\treturn helper(s)\n}\n"
GO_PAIR = GO_HEAD + "func helper(s string) (string, error) {\n\treturn strings.TrimSpace(s), nil\n}\n\nfunc Clean(s string) string {\n\tv, _ := helper(s)\n\treturn v\n}\n"

# name: (base, the side that deletes helper, the side that adds a call)
GO_CASES = {
    "call_in_new_function": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc Words(s string) []string {\n\treturn strings.Fields(helper(s))\n}\n"),
    "new_function_first": (GO_BASE, GO_DELETED, GO_HEAD + "func Words(s string) []string {\n\treturn strings.Fields(helper(s))\n}\n\n" + GO_BASE[len(GO_HEAD):]),
    "method_call": (GO_METHODS, GO_METHOD_DELETED, GO_METHODS + "\nfunc (s *Server) Loud() string {\n\treturn s.helper() + \"!\"\n}\n"),
    "method_other_receiver_name": (GO_METHODS, GO_METHOD_DELETED, GO_METHODS + "\nfunc (v *Server) Loud() string {\n\treturn v.helper() + \"!\"\n}\n"),
    "closure": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc All(xs []string) []string {\n\tout := []string{}\n\tfor _, x := range xs {\n\t\tfunc() { out = append(out, helper(x)) }()\n\t}\n\treturn out\n}\n"),
    "goroutine": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc Async(s string, ch chan string) {\n\tgo func() { ch <- helper(s) }()\n}\n"),
    "defer": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc Later(s string) {\n\tdefer helper(s)\n}\n"),
    "if_initializer": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc Empty(s string) bool {\n\tif t := helper(s); t == \"\" {\n\t\treturn true\n\t}\n\treturn false\n}\n"),
    "package_var": (GO_BASE, GO_DELETED, GO_BASE + "\nvar Default = helper(\"  x  \")\n"),
    "generic": (GO_GENERIC, GO_HEAD + "func One(s string) []string {\n\treturn []string{strings.TrimSpace(s)}\n}\n",
                GO_GENERIC + "\nfunc Two(n int) []int {\n\treturn helper(n)\n}\n"),
    "two_results": (GO_PAIR, GO_DELETED, GO_PAIR + "\nfunc Must(s string) string {\n\tv, err := helper(s)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\treturn v\n}\n"),
    "switch_on_call": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc Kind(s string) int {\n\tswitch helper(s) {\n\tcase \"\":\n\t\treturn 0\n\t}\n\treturn 1\n}\n"),
    "test_style_helper": (GO_BASE, GO_DELETED, GO_BASE + "\nfunc check(t interface{ Fatal(...any) }) {\n\tif helper(\" a \") != \"a\" {\n\t\tt.Fatal(\"trim\")\n\t}\n}\n"),
}

RS_BASE = "fn helper(x: i32) -> i32 {\n    x + 1\n}\n\npub fn run(x: i32) -> i32 {\n    helper(x)\n}\n"
RS_DELETED = "pub fn run(x: i32) -> i32 {\n    x + 1\n}\n"
RS_IMPL = "pub struct S {\n    n: i32,\n}\n\nimpl S {\n    fn helper(&self) -> i32 {\n        self.n + 1\n    }\n\n    pub fn run(&self) -> i32 {\n        self.helper()\n    }\n}\n"
RS_IMPL_DELETED = "pub struct S {\n    n: i32,\n}\n\nimpl S {\n    pub fn run(&self) -> i32 {\n        self.n + 1\n    }\n}\n"
RS_TESTS = "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn runs() {\n        assert_eq!(run(1), 2);\n    }\n}\n"

RUST_CASES = {
    "call_in_new_function": (RS_BASE, RS_DELETED, RS_BASE + "\npub fn twice(x: i32) -> i32 {\n    helper(helper(x))\n}\n"),
    "pub_helper": (RS_BASE.replace("fn helper", "pub fn helper"), RS_DELETED,
                   RS_BASE.replace("fn helper", "pub fn helper") + "\npub fn twice(x: i32) -> i32 {\n    helper(x) * 2\n}\n"),
    "method_call": (RS_IMPL, RS_IMPL_DELETED, RS_IMPL.replace("    }\n}\n", "    }\n\n    pub fn twice(&self) -> i32 {\n        self.helper() * 2\n    }\n}\n")),
    "associated_call": (RS_IMPL.replace("&self) -> i32 {\n        self.n + 1", "n: i32) -> i32 {\n        n + 1").replace("self.helper()", "Self::helper(self.n)"),
                        RS_IMPL_DELETED,
                        RS_IMPL.replace("&self) -> i32 {\n        self.n + 1", "n: i32) -> i32 {\n        n + 1").replace("self.helper()", "Self::helper(self.n)")
                        .replace("    }\n}\n", "    }\n\n    pub fn twice(&self) -> i32 {\n        Self::helper(self.n) * 2\n    }\n}\n")),
    "closure": (RS_BASE, RS_DELETED, RS_BASE + "\npub fn all(v: &[i32]) -> Vec<i32> {\n    v.iter().map(|x| helper(*x)).collect()\n}\n"),
    "inside_a_macro": (RS_BASE, RS_DELETED, RS_BASE + "\npub fn show(x: i32) -> String {\n    format!(\"{}\", helper(x))\n}\n"),
    "new_test_in_test_module": (RS_BASE + RS_TESTS, RS_DELETED + RS_TESTS,
                                RS_BASE + RS_TESTS.replace("    }\n}\n", "    }\n\n    #[test]\n    fn helps() {\n        assert_eq!(helper(1), 2);\n    }\n}\n")),
    "generic": ("fn helper<T: Clone>(x: &T) -> T {\n    x.clone()\n}\n\npub fn run(x: &String) -> String {\n    helper(x)\n}\n",
                "pub fn run(x: &String) -> String {\n    x.clone()\n}\n",
                "fn helper<T: Clone>(x: &T) -> T {\n    x.clone()\n}\n\npub fn run(x: &String) -> String {\n    helper(x)\n}\n"
                "\npub fn twice(x: &String) -> (String, String) {\n    (helper(x), helper(x))\n}\n"),
    "async_await": (RS_BASE.replace("fn ", "async fn ").replace("helper(x)\n", "helper(x).await\n"),
                    RS_DELETED.replace("fn ", "async fn "),
                    RS_BASE.replace("fn ", "async fn ").replace("helper(x)\n", "helper(x).await\n")
                    + "\npub async fn twice(x: i32) -> i32 {\n    helper(x).await * 2\n}\n"),
    "question_mark": ("fn helper(x: &str) -> Result<i32, std::num::ParseIntError> {\n    x.parse()\n}\n\npub fn run(x: &str) -> i32 {\n    helper(x).unwrap_or(0)\n}\n",
                      "pub fn run(x: &str) -> i32 {\n    x.parse().unwrap_or(0)\n}\n",
                      "fn helper(x: &str) -> Result<i32, std::num::ParseIntError> {\n    x.parse()\n}\n\npub fn run(x: &str) -> i32 {\n    helper(x).unwrap_or(0)\n}\n"
                      "\npub fn sum(a: &str, b: &str) -> Result<i32, std::num::ParseIntError> {\n    Ok(helper(a)? + helper(b)?)\n}\n"),
    "match_arm": (RS_BASE, RS_DELETED, RS_BASE + "\npub fn pick(x: Option<i32>) -> i32 {\n    match x {\n        Some(v) => helper(v),\n        None => 0,\n    }\n}\n"),
    "method_of_another_type": (RS_BASE, RS_DELETED, RS_BASE + "\npub struct T;\n\nimpl T {\n    pub fn go(&self, x: i32) -> i32 {\n        helper(x)\n    }\n}\n"),
    "crate_path_from_a_module": (RS_BASE, RS_DELETED, RS_BASE + "\npub fn twice(x: i32) -> i32 {\n    crate::util::helper(x) * 2\n}\n"),
}


def _both_orders(base: str, deleting: str, calling: str, path: str):  # type: ignore[no-untyped-def]
    for left, right in ((deleting, calling), (calling, deleting)):
        yield merge_file(base.encode(), left.encode(), right.encode(), path)


@pytest.mark.parametrize("case", sorted(GO_CASES))
def test_go_delete_against_a_new_call_conflicts_in_one_file(case: str) -> None:
    for result in _both_orders(*GO_CASES[case], "pkg/util/util.go"):
        assert not result.clean, result.merged.decode()
        if any(c.kind == "delete_use" for c in result.conflicts):
            continue   # the structured merge met the deletion beside the new call itself: markers there
        assert {name_word(f.name) for f in result.semantic} == {"helper"}
        assert result.notes == ("the other files of this file's package were not read: "
                                f"{result.semantic[0].name} may still be defined in one of them",)


@pytest.mark.parametrize("case", sorted(RUST_CASES))
def test_rust_delete_against_a_new_call_conflicts_in_one_file(case: str) -> None:
    path = "src/util.rs"
    for result in _both_orders(*RUST_CASES[case], path):
        assert not result.clean, result.merged.decode()
        assert {name_word(f.name) for f in result.semantic} == {"helper"}


def test_another_file_of_the_package_that_defines_it_settles_it() -> None:
    base, deleting, calling = GO_CASES["call_in_new_function"]
    moved_there = b"package util\n\nfunc helper(s string) string {\n\treturn s\n}\n"
    other = b"package util\n\nfunc Other() {}\n"
    asked: list[str] = []

    def package(path: str) -> list[tuple[str, bytes]]:
        asked.append(path)
        return [("pkg/util/other.go", other), ("pkg/util/other.go", moved_there), ("pkg/util/util.go", b"")]

    result = merge_file(base.encode(), deleting.encode(), calling.encode(), "pkg/util/util.go", package_files=package)
    assert result.clean and asked == ["pkg/util/util.go"], "theirs' version of other.go defines it"
    nowhere = merge_file(base.encode(), deleting.encode(), calling.encode(), "pkg/util/util.go",
                         package_files=lambda path: [("pkg/util/other.go", other), ("pkg/util/x.py", moved_there)])
    assert not nowhere.clean and nowhere.notes == (), "read, and no other Go file of the package defines it"
    unread = merge_file(base.encode(), deleting.encode(), calling.encode(), "pkg/util/util.go",
                        package_files=lambda path: None)
    assert not unread.clean and "were not read" in unread.notes[0]


def _files(tmp_path: Path, base: str, left: str, right: str) -> list[str]:
    out = []
    for name, text in (("base.go", base), ("left.go", left), ("right.go", right)):
        (tmp_path / name).write_text(text)
        out.append(str(tmp_path / name))
    return out


def test_merge_file_standalone_reports_what_it_cannot_check(tmp_path: Path) -> None:
    outside = tmp_path / "not-a-repository"
    outside.mkdir()
    files = _files(tmp_path, *GO_CASES["call_in_new_function"])
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(tmp_path))
    block = subprocess.run([WTC, "merge-file", *files, "--path", "pkg/util/util.go"], cwd=outside, env=env,
                           capture_output=True, check=False)
    assert block.returncode == 1
    stderr = block.stderr.decode()
    assert "semantic conflict: pkg/util/util.go:10 uses helper" in stderr
    assert "note: the other files of this file's package were not read: helper may still be defined" in stderr
    warn = subprocess.run([WTC, "merge-file", *files, "--path", "pkg/util/util.go", "--semantic", "warn"], cwd=outside,
                          env=env, capture_output=True, check=False)
    assert warn.returncode == 0 and b"semantic warning: pkg/util/util.go:10 uses helper" in warn.stderr
    no_path = subprocess.run([WTC, "merge-file", *files], cwd=outside, env=env, capture_output=True, check=False)
    assert no_path.returncode == 1, "without --path nothing is looked up either"


GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}
OTHER = "package util\n\nfunc Other() int {\n\treturn 1\n}\n"
OTHER_WITH_HELPER = OTHER + "\nfunc helper(s string) string {\n\treturn s\n}\n"


def _repo(tmp_path: Path, deleting_branch: dict[str, str], calling_branch: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """main holds `calling_branch`'s files, branch `other` `deleting_branch`'s (or the other way by the caller)."""
    env = dict(os.environ, HOME=str(tmp_path / "home"), **GIT_ENV)
    repo = tmp_path / "repo"
    (repo / "pkg/util").mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)

    git("init", "-q", "-b", "main")
    base, _, _ = GO_CASES["call_in_new_function"]
    (repo / "pkg/util/util.go").write_text(base)
    (repo / "pkg/util/other.go").write_text(OTHER)
    git("add", "-A")
    git("commit", "-qm", "base")
    for branch, files in (("other", deleting_branch), ("main", calling_branch)):
        git("checkout", "-q", "-B", branch, "main" if branch == "other" else "main")
        for path, text in files.items():
            (repo / path).write_text(text)
        git("commit", "-qam", branch)
    assert subprocess.run([WTC, "driver", "install", "--repo", str(repo)], env=env, capture_output=True).returncode == 0
    return repo, env


def test_git_merge_through_the_driver_conflicts_on_a_removed_function_still_called(tmp_path: Path) -> None:
    _, deleting, calling = GO_CASES["call_in_new_function"]
    repo, env = _repo(tmp_path, {"pkg/util/util.go": deleting}, {"pkg/util/util.go": calling})
    done = subprocess.run(["git", "merge", "--no-edit", "other"], cwd=repo, env=env, capture_output=True)
    assert done.returncode != 0, "git reports the file conflicted: the driver exited 1"
    assert b"semantic conflict: pkg/util/util.go:10 uses helper" in done.stderr
    assert b"were not read" not in done.stderr, "the driver read the package: nothing else defines it"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, env=env, capture_output=True).stdout
    assert b"UU pkg/util/util.go" in status


@pytest.mark.parametrize("mover", ["theirs", "ours"])
def test_git_merge_through_the_driver_finds_a_function_moved_to_another_file(tmp_path: Path, mover: str) -> None:
    _, deleting, calling = GO_CASES["call_in_new_function"]
    moving = {"pkg/util/util.go": deleting, "pkg/util/other.go": OTHER_WITH_HELPER}
    using = {"pkg/util/util.go": calling}
    repo, env = _repo(tmp_path, moving, using) if mover == "theirs" else _repo(tmp_path, using, moving)
    done = subprocess.run(["git", "merge", "--no-edit", "other"], cwd=repo, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    merged = (repo / "pkg/util/util.go").read_text()
    assert "func helper" not in merged and "strings.Fields(helper(s))" in merged
    assert "func helper" in (repo / "pkg/util/other.go").read_text()


def test_merge_file_inside_the_repository_reads_the_working_tree(tmp_path: Path) -> None:
    base, deleting, calling = GO_CASES["call_in_new_function"]
    repo, env = _repo(tmp_path, {"pkg/util/util.go": deleting}, {"pkg/util/other.go": OTHER_WITH_HELPER})
    files = _files(tmp_path, base, deleting, calling)
    done = subprocess.run([WTC, "merge-file", *files, "--path", "pkg/util/util.go"], cwd=repo, env=env,
                          capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    (repo / "pkg/util/other.go").write_text(OTHER)
    again = subprocess.run([WTC, "merge-file", *files, "--path", "pkg/util/util.go"], cwd=repo, env=env,
                           capture_output=True, check=False)
    assert again.returncode == 1 and b"semantic conflict" in again.stderr


def test_git_rebase_through_the_driver_reads_the_commit_it_applies(tmp_path: Path) -> None:
    """A rebase names the commit it applies only in rebase-merge/done while the driver runs: the
    moving commit, replayed onto a branch that calls the function, is no conflict."""
    _, deleting, calling = GO_CASES["call_in_new_function"]
    repo, env = _repo(tmp_path, {"pkg/util/util.go": deleting, "pkg/util/other.go": OTHER_WITH_HELPER},
                      {"pkg/util/util.go": calling})
    subprocess.run(["git", "checkout", "-q", "other"], cwd=repo, env=env, check=True)
    done = subprocess.run(["git", "rebase", "main"], cwd=repo, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert "strings.Fields(helper(s))" in (repo / "pkg/util/util.go").read_text()
