"""The conflict forecast on real repositories: live tasks' worktrees read as they are (uncommitted
edits, deletions, binary files), pairs that would conflict named, pairs that would merge predicted
clean, and nothing written to a worktree, its index or a ref."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from worktree_coord import Coordinator

SERVICE = '''def alpha(x):
    return x + 1


def beta(x):
    return x * 2


def gamma(x):
    return x - 3
'''

FILES = {"app/service.py": SERVICE, "app/other.py": "VALUE = 1\n", "README.md": "# demo\n",
         "assets/logo.bin": b"\x00\x01\x02logo\x00" * 8, "app/old.py": "def old():\n    return 0\n"}


@pytest.fixture
def coordinator(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        yield coordinator


def start(coordinator: Coordinator, task: str) -> Path:
    return Path(coordinator.start_task("r1", task, ["**"]).worktree)


def edit(worktree: Path, path: str, old: str, new: str) -> None:
    file = worktree / path
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new))


def fingerprint(worktree: Path) -> tuple[str, str]:
    """The worktree's index bytes and HEAD: what the forecast must never change."""
    admin = Path(git(worktree, "rev-parse", "--git-dir"))
    admin = admin if admin.is_absolute() else worktree / admin
    return hashlib.sha256((admin / "index").read_bytes()).hexdigest(), git(worktree, "rev-parse", "HEAD")


def row(forecast, task):
    return next(r for r in forecast.tasks if r["task"] == task)


def test_two_tasks_editing_one_function_are_a_predicted_conflict_naming_both(coordinator):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    edit(a, "app/service.py", "return x * 2", "return x * 20")      # uncommitted
    edit(b, "app/service.py", "return x * 2", "return x * 200")
    before = fingerprint(a), fingerprint(b)
    forecast = coordinator.forecast("r1")
    assert [(c["left"], c["right"], c["path"], c["declaration"]) for c in forecast.conflicts] == [
        ("a", "b", "app/service.py", "def beta")]
    assert row(forecast, "a")["forecast"] == "conflict" and row(forecast, "a")["conflicts_with"] == ["b"]
    assert row(forecast, "a")["source"] == "worktree" and row(forecast, "a")["uncommitted"] == 1
    [overlap] = forecast.overlaps
    assert overlap["path"] == "app/service.py" and overlap["declarations"] == {"a": ["def beta"], "b": ["def beta"]}
    assert forecast.exit_code == 0
    assert (fingerprint(a), fingerprint(b)) == before    # read-only: index bytes and HEAD unchanged
    assert git(a, "status", "--porcelain") == "M app/service.py"
    check = coordinator.check_task("r1", "a")
    assert check.exit_code == 1 and not check.clean
    assert [(o["target"], o["clean"]) for o in check.onto] == [("integration", True), ("b", False)]
    assert check.onto[1]["conflicts"][0]["declaration"] == "def beta"


def test_two_tasks_editing_different_functions_of_one_file_are_predicted_clean(coordinator):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    edit(a, "app/service.py", "return x + 1", "return x + 10")
    edit(b, "app/service.py", "return x - 3", "return x - 30")
    git(b, "commit", "-qam", "b commits its edit")                    # committed and uncommitted alike
    forecast = coordinator.forecast("r1")
    assert forecast.conflicts == []
    assert [r["forecast"] for r in forecast.tasks] == ["overlap", "overlap"]
    assert forecast.overlaps[0]["declarations"] == {"a": ["def alpha"], "b": ["def gamma"]}
    assert coordinator.check_task("r1", "b").exit_code == 0


def test_an_untracked_file_both_tasks_add_differently_conflicts_and_ignored_files_do_not_count(coordinator):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    write(a, {"app/new.py": "def new():\n    return 'a'\n", "build/out.o": "x"})
    write(b, {"app/new.py": "def new():\n    return 'b'\n"})
    (a / ".gitignore").write_text("build/\n")
    forecast = coordinator.forecast("r1")
    assert {(c["path"], c["kind"]) for c in forecast.conflicts} == {("app/new.py", "add_add")}
    assert "build/out.o" not in {o["path"] for o in forecast.overlaps}
    assert row(forecast, "a")["files"] == 2                         # app/new.py and .gitignore


def test_a_deleted_file_against_an_edit_of_it_is_a_conflict_and_two_deletions_are_not(coordinator):
    a, b, c = start(coordinator, "a"), start(coordinator, "b"), start(coordinator, "c")
    (a / "app/old.py").unlink()                                      # deleted on disk, not staged
    edit(b, "app/old.py", "return 0", "return 1")
    git(c, "rm", "-q", "app/old.py")                                 # deleted and staged
    forecast = coordinator.forecast("r1")
    pairs = {(x["left"], x["right"], x["kind"]) for x in forecast.conflicts}
    assert pairs == {("a", "b", "delete_modify"), ("b", "c", "delete_modify")}
    assert forecast.overlaps[0]["declarations"]["a"] == [""]         # the whole file


def test_a_file_one_task_renamed_and_another_edited_merges_into_the_renamed_file_as_git_does(coordinator):
    """git's rename detection carries an edit of the old path into the moved file at merge time: the
    forecast and `task check` say the same (never a delete/modify conflict), and an edit that
    collides with the mover's own edit is a conflict named at the new path, as the finish reports."""
    mover, editor, clasher = start(coordinator, "mover"), start(coordinator, "editor"), start(coordinator, "clasher")
    git(mover, "mv", "app/service.py", "app/services.py")
    edit(mover, "app/services.py", "return x + 1", "return x + 10")
    edit(editor, "app/service.py", "return x - 3", "return x - 30")
    edit(clasher, "app/service.py", "return x + 1", "return x + 11")
    forecast = coordinator.forecast("r1")
    assert {(c["left"], c["right"], c["path"], c["kind"]) for c in forecast.conflicts} == {
        ("mover", "clasher", "app/services.py", "content")}
    assert row(forecast, "editor")["forecast"] == "overlap"
    assert coordinator.check_task("r1", "editor").exit_code == 0
    assert coordinator.finish_task("r1", "mover").state == "merged"
    check = coordinator.check_task("r1", "editor")
    assert check.exit_code == 0 and check.onto[0]["target"] == "integration", check.onto
    check = coordinator.check_task("r1", "clasher")
    assert check.exit_code == 1 and [c["path"] for c in check.onto[0]["conflicts"]] == ["app/services.py"]
    assert coordinator.finish_task("r1", "editor").state == "merged"
    repo = mover.parents[3]                                  # <repo>/.wtc/worktrees/r1/mover
    assert "return x - 30" in git(repo, "show", "wtc/r1/integration:app/services.py")
    assert coordinator.finish_task("r1", "clasher").state == "conflict"
    # A deletion that is no rename (nothing similar added) stays a delete/modify conflict.
    deleter, other = start(coordinator, "deleter"), start(coordinator, "other")
    git(deleter, "rm", "-q", "app/other.py")
    edit(other, "app/other.py", "VALUE = 1", "VALUE = 2")
    assert [c["kind"] for c in coordinator.forecast("r1").conflicts if c["left"] == "deleter"] == ["delete_modify"]


def test_a_binary_file_two_tasks_change_conflicts_and_one_side_alone_does_not(coordinator):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    (a / "assets/logo.bin").write_bytes(b"\x00new logo a\x00")
    assert coordinator.forecast("r1").conflicts == []
    (b / "assets/logo.bin").write_bytes(b"\x00new logo b\x00")
    forecast = coordinator.forecast("r1")
    assert [(c["path"], c["left"], c["right"]) for c in forecast.conflicts] == [("assets/logo.bin", "a", "b")]


def test_a_task_is_checked_onto_the_integration_tip_after_another_merged(coordinator):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    edit(a, "app/service.py", "return x + 1", "return x + 100")
    edit(b, "app/service.py", "return x + 1", "return x + 200")
    assert coordinator.finish_task("r1", "a").state == "merged"
    check = coordinator.check_task("r1", "b")
    assert check.exit_code == 1
    assert check.onto[0]["target"] == "integration" and not check.onto[0]["clean"]
    assert check.onto[0]["conflicts"][0]["declaration"] == "def alpha"
    forecast = coordinator.forecast("r1")
    assert [(c["left"], c["right"]) for c in forecast.conflicts] == [("integration", "b")]


def test_a_name_removed_in_one_file_and_used_in_another_is_predicted_by_task_check(coordinator):
    # No file is shared: only the queue's tree-level semantic check sees it, and task check runs it.
    renamer, user, bystander = start(coordinator, "renamer"), start(coordinator, "user"), start(coordinator, "bystander")
    edit(renamer, "app/service.py", "def beta(x):", "def beta_times_two(x):")
    edit(user, "app/other.py", "VALUE = 1\n", "from app.service import beta\n\nVALUE = beta(1)\n")
    edit(bystander, "app/old.py", "return 0", "return 1")
    check = coordinator.check_task("r1", "user")
    assert check.exit_code == 1
    rows = {r["target"]: r for r in check.onto}
    assert rows["integration"]["clean"], "nothing merged yet"
    assert "bystander" not in rows, "a task sharing no file and no name is not checked"
    [found] = rows["renamer"]["conflicts"]
    assert (found["kind"], found["path"], found["left"], found["right"]) == ("semantic", "app/other.py", "renamer", "user")
    assert "beta" in found["detail"] and rows["renamer"]["files"] == []
    # Once the rename merged, the prediction is onto integration, which is what finish then meets.
    assert coordinator.finish_task("r1", "renamer").state == "merged"
    onto = coordinator.check_task("r1", "user").onto[0]
    assert onto["target"] == "integration" and [c["kind"] for c in onto["conflicts"]] == ["semantic"]
    again = coordinator.check_task("r1", "user")
    assert again.onto[0]["conflicts"] == onto["conflicts"] and again.stats["cache_hits"] >= 1
    assert coordinator.finish_task("r1", "user").state == "conflict"


def test_a_second_use_of_a_name_the_file_already_uses_is_predicted_after_its_rename_merged(tmp_path):
    """Found driving wtc on mobxjs/mobx: eq.ts already called `hasProp`; a task added another call
    while another renamed it. `task check` said clean (the pair was skipped: no word new to the
    file), then finish reported the semantic conflict. The words of the added lines count."""
    files = dict(FILES, **{"app/other.py": "from app.service import beta\n\nVALUE = beta(1)\n"})
    with Coordinator(make_repo(tmp_path / "repo", files)) as coordinator:
        # The rename leaves other.py's first use behind: this run lets it merge (the report warns).
        coordinator.start_run(run_id="r1", left_behind="warn")
        renamer, user = start(coordinator, "renamer"), start(coordinator, "user")
        edit(renamer, "app/service.py", "def beta(x):", "def beta_times_two(x):")
        assert coordinator.finish_task("r1", "renamer").state == "merged"
        edit(user, "app/other.py", "VALUE = beta(1)\n", "VALUE = beta(1)\nLIMIT = beta(2)\n")
        check = coordinator.check_task("r1", "user")
        assert check.exit_code == 1, check.onto
        assert [c["kind"] for c in check.onto[0]["conflicts"]] == ["semantic"]
        assert coordinator.finish_task("r1", "user").state == "conflict"


def test_the_run_wide_forecast_predicts_a_name_broken_across_files(coordinator):
    renamer, user, bystander = start(coordinator, "renamer"), start(coordinator, "user"), start(coordinator, "bystander")
    edit(renamer, "app/service.py", "def beta(x):", "def beta_times_two(x):")
    edit(user, "app/other.py", "VALUE = 1\n", "from app.service import beta\n\nVALUE = beta(1)\n")
    edit(bystander, "app/old.py", "return 0", "return 1")
    forecast = coordinator.forecast("r1")
    [found] = forecast.conflicts
    assert (found["kind"], found["path"], found["left"], found["right"]) == ("semantic", "app/other.py", "renamer", "user")
    assert [(r["task"], r["forecast"], r["conflicts_with"]) for r in forecast.tasks] == [
        ("renamer", "conflict", ["user"]), ("user", "conflict", ["renamer"]), ("bystander", "clean", [])]
    assert coordinator.forecast_column("r1", max_age=0)["tasks"]["user"]["forecast"] == "conflict"
    # Once the rename merged, the run-wide forecast meets it onto integration, as finish will.
    assert coordinator.finish_task("r1", "renamer").state == "merged"
    again = coordinator.forecast("r1")
    assert [(c["kind"], c["left"], c["right"]) for c in again.conflicts] == [("semantic", "integration", "user")]


def test_the_run_wide_forecast_names_a_break_inside_a_shared_file_once(coordinator):
    renamer, user = start(coordinator, "renamer"), start(coordinator, "user")
    edit(renamer, "app/service.py", "def beta(x):\n    return x * 2", "def beta_times_two(x):\n    return x * 2")
    edit(user, "app/service.py", "def gamma(x):\n    return x - 3", "def gamma(x):\n    return beta(x) - 3")
    forecast = coordinator.forecast("r1")
    assert [(c["kind"], c["path"]) for c in forecast.conflicts] == [("semantic", "app/service.py")]


def test_a_deleted_file_is_paired_only_with_tasks_that_use_what_it_defined(coordinator):
    # Deleting a file takes every word it had (return, x, def): pairs are found by the names whose
    # definitions went, so a task writing an unrelated new module is never checked against it.
    deleter, writer, user = start(coordinator, "deleter"), start(coordinator, "writer"), start(coordinator, "user")
    (deleter / "app/old.py").unlink()
    (writer / "app/fresh.py").write_text("def fresh(x):\n    return x + 1\n")
    first = coordinator.forecast("r1")
    assert first.conflicts == [] and first.stats["pairs_merged"] == 0
    (user / "app/caller.py").write_text("from app.old import old\n\n\ndef call():\n    return old()\n")
    second = coordinator.forecast("r1")
    assert second.stats["pairs_merged"] == 1
    assert [(c["kind"], c["left"], c["right"], c["path"]) for c in second.conflicts] == [
        ("semantic", "deleter", "user", "app/caller.py")]


def test_a_go_import_a_deleted_file_held_pairs_it_with_nobody(tmp_path):
    # Go files of one directory share their top-level names, not their imports: a deleted file's
    # `import "fmt"` is no name another task's new `fmt.Println` could lose.
    repo = make_repo(tmp_path / "go", {
        "go.mod": "module example.com/m\n\ngo 1.21\n",
        "pkg/a.go": 'package pkg\n\nimport "fmt"\n\nfunc Hello() { fmt.Println("a") }\n',
        "pkg/b.go": "package pkg\n\nfunc B() int { return 1 }\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        deleter = Path(coordinator.start_task("r1", "deleter", ["**"]).worktree)
        writer = Path(coordinator.start_task("r1", "writer", ["**"]).worktree)
        (deleter / "pkg/a.go").unlink()
        (writer / "pkg/c.go").write_text('package pkg\n\nimport "fmt"\n\nfunc C() { fmt.Println(B()) }\n')
        quiet = coordinator.forecast("r1")
        assert quiet.conflicts == [] and quiet.stats["pairs_merged"] == 0
        # A use of what the deleted file defined is checked, and found.
        (writer / "pkg/c.go").write_text('package pkg\n\nfunc C() { Hello() }\n')
        found = coordinator.forecast("r1")
        assert [(c["kind"], c["path"]) for c in found.conflicts] == [("semantic", "pkg/c.go")]


def test_a_removed_name_nobody_uses_is_not_predicted(coordinator):
    renamer, user = start(coordinator, "renamer"), start(coordinator, "user")
    edit(renamer, "app/service.py", "def beta(x):", "def beta_times_two(x):")
    edit(user, "app/other.py", "VALUE = 1\n", "from app.service import alpha\n\nVALUE = alpha(1)\n")
    check = coordinator.check_task("r1", "user")
    assert check.exit_code == 0 and [r["target"] for r in check.onto] == ["integration"]


def test_a_finished_unmerged_branch_takes_part_and_repeat_calls_hit_the_cache(coordinator):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    edit(a, "app/service.py", "return x * 2", "return x * 3")
    edit(b, "app/service.py", "return x * 2", "return x * 4")
    assert coordinator.finish_task("r1", "a", merge=False).state == "finished"
    first = coordinator.forecast("r1")
    assert row(first, "a")["source"] == "branch"
    assert [(c["left"], c["right"]) for c in first.conflicts] == [("a", "b")]
    again = coordinator.forecast("r1")
    assert again.conflicts == first.conflicts
    assert again.stats["files_merged"] == 0 and again.stats["cache_hits"] >= 1


def test_checking_an_unknown_task_names_it(coordinator):
    from worktree_coord.errors import NotFoundError

    with pytest.raises(NotFoundError, match="no task 'nope'"):
        coordinator.check_task("r1", "nope")


def test_a_worktree_missing_from_disk_is_named_and_its_branch_stands_in(coordinator, tmp_path):
    a, b = start(coordinator, "a"), start(coordinator, "b")
    edit(a, "app/service.py", "return x * 2", "return x * 5")
    git(a, "commit", "-qam", "a's committed edit")
    edit(b, "app/service.py", "return x * 2", "return x * 6")
    a.rename(tmp_path / "moved-away")
    forecast = coordinator.forecast("r1")
    assert row(forecast, "a")["source"] == "branch" and "is missing" in row(forecast, "a")["error"]
    assert [(c["left"], c["right"]) for c in forecast.conflicts] == [("a", "b")]   # its commit still counts


def test_two_tasks_setting_one_root_manifest_key_differently_are_predicted_as_a_consolidation_conflict(tmp_path):
    """A reserved root manifest is never text-merged, so the forecast listed two tasks editing it as
    an overlap only; consolidation then found their intents in conflict after both had finished."""
    import json

    manifest = {"name": "root", "private": True, "scripts": {"build": "tsc"}, "dependencies": {"a": "^1.0.0"}}
    repo = make_repo(tmp_path / "repo", {"package.json": json.dumps(manifest, indent=2) + "\n", "src/x.js": "x\n"})

    def edited(**changes) -> str:
        doc = json.loads(json.dumps(manifest))
        for key, value in changes.items():
            group, name = key.split("__")
            doc[group][name] = value
        return json.dumps(doc, indent=2) + "\n"

    with Coordinator(repo) as coord:
        coord.start_run(run_id="r1")
        worktrees = {t: Path(coord.start_task("r1", t, ["src/**"]).worktree) for t in ("t", "v", "u", "w")}
        write(worktrees["t"], {"package.json": edited(scripts__test="node --test")})
        write(worktrees["v"], {"package.json": edited(scripts__test="vitest")})
        write(worktrees["u"], {"package.json": edited(scripts__lint="eslint .")})
        write(worktrees["w"], {"package.json": edited(dependencies__a="^2.0.0")})
        check = coord.check_task("r1", "t")
        assert not check.clean and check.exit_code == 1
        by_target = {row["target"]: row for row in check.onto}
        [conflict] = by_target["v"]["conflicts"]
        assert (conflict["path"], conflict["declaration"], conflict["kind"]) == ("package.json", "scripts.test",
                                                                              "consolidation")
        assert 'task t wants "node --test", task v wants "vitest"' in conflict["detail"]
        assert by_target["u"]["clean"] and by_target["u"]["reserved"] == ["package.json"]
        assert by_target["integration"]["clean"]
        forecast = coord.forecast("r1")
        assert [(c["left"], c["right"], c["declaration"]) for c in forecast.conflicts] == [("t", "v", "scripts.test")]
        assert row(forecast, "u")["forecast"] == "overlap" and row(forecast, "w")["forecast"] == "overlap"

        # Once t has merged, its intent waits for consolidation: v's check onto integration says so.
        assert coord.finish_task("r1", "t").state == "merged"
        onto = {row["target"]: row for row in coord.check_task("r1", "v").onto}
        [waiting] = onto["integration"]["conflicts"]
        assert (waiting["left"], waiting["right"], waiting["declaration"]) == ("integration", "v", "scripts.test")
        assert coord.check_task("r1", "u").clean


def test_two_tasks_each_moving_a_different_module_are_no_import_path_conflict(tmp_path):
    """Found driving wtc on npm/cli: two tasks each moved a different file and updated its
    importers; `wtc task check` said WOULD CONFLICT (an import of a module "the other task replaced
    throughout"). Task B moves lib/util/b.js and replaces `./b` in lib/util/x.js; task A moves
    lib/old.js to lib/cmd/new.js, whose `require('./b')` names lib/cmd/b.js: the same spelling from
    another folder, another file. Both share lib/main.js (each updates its own line), so the
    forecast compares them; the check and the merge both say clean."""
    from tests.conftest import wtc

    files = {
        "package.json": '{"name": "m"}\n',
        "lib/util/b.js": "const bf = () => 1\n\nmodule.exports = { bf }\n",
        "lib/util/x.js": "const { bf } = require('./b')\n\nmodule.exports = { x: () => bf() }\n",
        "lib/cmd/b.js": "const cf = () => 2\n\nmodule.exports = { cf }\n",
        "lib/old.js": "const { cf } = require('./cmd/b')\n\nmodule.exports = { old: () => cf() }\n",
        "lib/main.js": "const { old } = require('./old')\n\n\n\n\nconst { x } = require('./util/x')\n\nmodule.exports = { old, x }\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, b = wtc(repo, "task", "start", "B", "--run", "r", "--own", "lib/util/**", "--own", "lib/main.js")
    assert code == 0, b
    code, a = wtc(repo, "task", "start", "A", "--run", "r", "--own", "lib/old.js", "--own", "lib/cmd/new.js",
                  "--own", "lib/main.js")
    assert code == 0, a
    b_tree, a_tree = Path(b["worktree"]), Path(a["worktree"])
    git(b_tree, "mv", "lib/util/b.js", "lib/util/bytes.js")
    write(b_tree, {"lib/util/x.js": files["lib/util/x.js"].replace("'./b'", "'./bytes'"),
                   "lib/main.js": files["lib/main.js"].replace("'./util/x'", "'./util/x.js'")})
    git(a_tree, "mv", "lib/old.js", "lib/cmd/new.js")
    write(a_tree, {"lib/cmd/new.js": files["lib/old.js"].replace("'./cmd/b'", "'./b'"),
                   "lib/main.js": files["lib/main.js"].replace("'./old'", "'./cmd/new'")})
    code, check = wtc(repo, "task", "check", "A", "--run", "r")
    assert [row["task"] for row in check["not_compared"]] == [], check
    assert (code, check["clean"]) == (0, True), check
    assert wtc(repo, "task", "finish", "B", "--run", "r")[1]["state"] == "merged"
    code, done = wtc(repo, "task", "finish", "A", "--run", "r")
    assert (code, done["state"]) == (0, "merged"), done
