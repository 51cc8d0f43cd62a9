"""The semantic check in the merge queue: a task whose new code uses a name another task's merge
removed (in another file) is a conflict of kind `semantic`, naming both tasks; `--semantic warn`
merges it with a warning, `off` merges it silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc
from worktree_coord.output.render import task_updated
from worktree_coord.coordinator import Coordinator

UTIL = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
APP = "from pkg.util import render\n\n\ndef main(items):\n    return render(items)\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/app.py": APP})


def _two_tasks(coordinator: Coordinator, run: str, **start: str):
    coordinator.start_run(run, **start)
    remover = Path(coordinator.start_task(run, "remove-parse", ["pkg/util.py"]).worktree)
    user = Path(coordinator.start_task(run, "use-parse", ["pkg/app.py"]).worktree)
    write(remover, {"pkg/util.py": "def render(items):\n    return ', '.join(items)\n"})
    write(user, {"pkg/app.py": APP.replace("import render", "import parse, render")
                 .replace("return render(items)", "return render(parse(items))")})
    first = coordinator.finish_task(run, "remove-parse")
    second = coordinator.finish_task(run, "use-parse")
    return first, second


def test_cross_file_finding_blocks_the_merge_and_names_both_tasks(repo: Path) -> None:
    with Coordinator(repo) as coordinator:
        first, second = _two_tasks(coordinator, "r1")
        tip_before = git(repo, "rev-parse", "wtc/r1/integration")
        assert first.state == "merged"
        assert second.state == "conflict" and second.exit_code == 1
        [conflict] = second.conflicts
        assert conflict["kind"] == "semantic" and conflict["path"] == "pkg/app.py"
        finding = conflict["semantic"]
        assert finding["name"] == "parse"
        assert (finding["definition_path"], finding["definition_line"]) == ("pkg/util.py", 1)
        assert (finding["use_path"], finding["use_line"]) == ("pkg/app.py", 5)
        assert finding["removed_by_task"] == "remove-parse" and finding["used_by_task"] == "use-parse"
        assert any("semantic conflict" in note for note in second.notes)
        assert git(repo, "rev-parse", "wtc/r1/integration") == tip_before, "a blocked merge leaves the ref alone"
        # The agent fixes its use and finishes again: it merges.
        worktree = Path(coordinator.update_task("r1", "use-parse").worktree)
        write(worktree, {"pkg/app.py": APP.replace("return render(items)", "return render(items.split())")})
        assert coordinator.finish_task("r1", "use-parse").state == "merged"


def test_warn_merges_and_reports_the_finding(repo: Path) -> None:
    with Coordinator(repo) as coordinator:
        _, second = _two_tasks(coordinator, "r2", semantic="warn")
        assert second.state == "merged" and second.exit_code == 0
        [finding] = second.merge["semantic"]
        assert finding["name"] == "parse" and finding["removed_by_task"] == "remove-parse"
        assert any(note.startswith("semantic warning: pkg/app.py:5 uses parse") for note in second.notes)
        report = coordinator.report("r2")
        assert any("parse" in warning for warning in report.warnings)


def test_off_merges_silently(repo: Path) -> None:
    with Coordinator(repo) as coordinator:
        _, second = _two_tasks(coordinator, "r3", semantic="off")
        assert second.state == "merged" and "semantic" not in second.merge


def test_run_start_rejects_an_unknown_mode_and_config_sets_the_default(repo: Path) -> None:
    code, body = wtc(repo, "run", "start", "--run", "bad", "--semantic", "loud")
    assert code == 2 and "block, warn, off" in body["error"]["message"]
    write(repo, {".wtc.toml": 'semantic-check = "warn"\n'})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the semantic check warns")   # a run reads its rules from its pinned commit
    with Coordinator(repo) as coordinator:
        _, second = _two_tasks(coordinator, "r4")
        assert second.state == "merged" and second.merge["semantic"]


def test_task_update_reports_a_name_integration_removed_that_the_task_uses(repo: Path) -> None:
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r5")
        remover = Path(coordinator.start_task("r5", "remove-parse", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r5", "use-parse", ["pkg/app.py"]).worktree)
        write(remover, {"pkg/util.py": "def render(items):\n    return ', '.join(items)\n"})
        coordinator.finish_task("r5", "remove-parse")
        write(user, {"pkg/app.py": APP.replace("import render", "import parse, render")
                     .replace("return render(items)", "return render(parse(items))")})
        updated = coordinator.update_task("r5", "use-parse")
        assert updated.exit_code == 1 and updated.merged_cleanly and not updated.conflicted_paths
        [finding] = updated.semantic
        assert (finding["name"], finding["use_path"], finding["used_by_task"], finding["removed_by_task"]) == \
            ("parse", "pkg/app.py", "use-parse", "remove-parse")


def test_finishing_after_update_without_fixing_is_still_a_conflict(repo: Path) -> None:
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r6")
        remover = Path(coordinator.start_task("r6", "remove-parse", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r6", "use-parse", ["pkg/app.py"]).worktree)
        write(remover, {"pkg/util.py": "def render(items):\n    return ', '.join(items)\n"})
        coordinator.finish_task("r6", "remove-parse")
        write(user, {"pkg/app.py": APP.replace("import render", "import parse, render")
                     .replace("return render(items)", "return render(parse(items))")})
        assert coordinator.update_task("r6", "use-parse").exit_code == 1
        # The update merged integration into the branch: the removal is now behind the merge base,
        # yet finishing without a fix must not land the broken use.
        again = coordinator.finish_task("r6", "use-parse")
        assert again.state == "conflict" and again.conflicts[0]["semantic"]["name"] == "parse"
        # An update with nothing new to merge keeps the finding pending, and says so (it said
        # "merged cleanly; finish again" while the finish would refuse).
        again = coordinator.update_task("r6", "use-parse")
        assert again.exit_code == 1 and [f["name"] for f in again.semantic] == ["parse"]
        user = Path(again.worktree)
        with (user / "pkg/app.py").open("a") as handle:
            handle.write("# still not fixed\n")
        assert coordinator.update_task("r6", "use-parse").exit_code == 1
        assert coordinator.finish_task("r6", "use-parse").state == "conflict"
        user = Path(coordinator.update_task("r6", "use-parse").worktree)
        write(user, {"pkg/app.py": APP.replace("return render(items)", "return render(items.split())")})
        # An update checks the fix the same way the finish will: it holds.
        fixed = coordinator.update_task("r6", "use-parse")
        assert fixed.exit_code == 0 and fixed.semantic == []
        assert fixed.notes == ["nothing new to merge; the names an earlier update found broken resolve now"]
        assert coordinator.finish_task("r6", "use-parse").state == "merged"


def test_a_declaration_two_tasks_both_add_blocks_with_a_note_that_says_keep_one(repo: Path) -> None:
    # Git merges the two additions cleanly (they sit apart); the merge would declare it twice.
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        first = Path(coordinator.start_task("r1", "first", ["pkg/**"]).worktree)
        second = Path(coordinator.start_task("r1", "second", ["pkg/**"]).worktree)
        write(first, {"pkg/util.py": "def words(text):\n    return len(text.split())\n\n\n" + UTIL})
        write(second, {"pkg/util.py": UTIL + "\n\ndef words(text):\n    return text.count(' ') + 1\n"})
        assert coordinator.finish_task("r1", "first").state == "merged"
        done = coordinator.finish_task("r1", "second")
        assert done.state == "conflict"
        [conflict] = done.conflicts
        assert conflict["semantic"]["problem"] == "duplicate" and conflict["semantic"]["name"] == "words"
        [note] = [n for n in done.notes if "semantic conflict" in n]
        assert "holds it twice" in note and "keep one of the two" in note and "removed or renamed" not in note


def test_a_duplicate_names_the_task_that_wrote_the_integration_copy_not_the_last_to_touch_the_file(
        repo: Path) -> None:
    """Task `add-count` adds `count` to util.py, `add-size` then adds another function to the same
    file; `add-count-again` declares `count` too: the copy on integration is add-count's (the user
    drive on psf/black named the last task to change the file instead)."""
    count = "def count(items):\n    return len(items)\n\n\n"
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r9")
        first = Path(coordinator.start_task("r9", "add-count", ["pkg/util.py"]).worktree)
        second = Path(coordinator.start_task("r9", "add-size", ["pkg/util.py"]).worktree)
        third = Path(coordinator.start_task("r9", "add-count-again", ["pkg/util.py"]).worktree)
        write(first, {"pkg/util.py": UTIL.replace("def render", count + "def render")})
        write(second, {"pkg/util.py": UTIL + "\n\ndef size(items):\n    return len(items) * 8\n"})
        write(third, {"pkg/util.py": count.replace("return len(items)", "return sum(1 for _ in items)") + UTIL})
        assert coordinator.finish_task("r9", "add-count").state == "merged"
        assert coordinator.finish_task("r9", "add-size").state == "merged"
        outcome = coordinator.finish_task("r9", "add-count-again")
        assert outcome.state == "conflict"
        [conflict] = outcome.conflicts
        finding = conflict["semantic"]
        assert finding["problem"] == "duplicate" and finding["name"] == "count"
        assert finding["removed_by_task"] == "add-count" and finding["used_by_task"] == "add-count-again"
        assert conflict["last_changed_by"] == ["add-size", "add-count"]


def test_the_removing_task_hears_the_use_is_outside_its_boundary_and_its_ways_out(repo: Path) -> None:
    # Found driving wtc on google/gson: the renaming task finished after another task's new call of
    # the old name; finish and update told it to "fix the use(s)" in a file it may not change.
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r7")
        remover = Path(coordinator.start_task("r7", "rename-parse", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r7", "use-parse", ["pkg/app.py"]).worktree)
        write(user, {"pkg/app.py": APP.replace("import render", "import parse, render")
                     .replace("return render(items)", "return render(parse(items))")})
        assert coordinator.finish_task("r7", "use-parse").state == "merged"
        write(remover, {"pkg/util.py": UTIL.replace("def parse(", "def split_words(")})
        finished = coordinator.finish_task("r7", "rename-parse")
        assert finished.state == "conflict"
        [outside] = [note for note in finished.notes if "outside this task's boundary" in note]
        assert outside.startswith("pkg/app.py:5 is outside this task's boundary (use-parse wrote the use)")
        assert "keep parse too (an alias of split_words)" in outside
        # The import the rename leaves behind is in the same file: the widen is said once, for both notes.
        command = "`wtc task widen rename-parse --run r7 --own '/pkg/app.py' --why '...'`"
        assert outside.endswith("or the lead widens the task (the command below) and it updates the use")
        assert [note for note in finished.notes if "wtc task widen" in note] == \
            [f"the lead's one widen for the uses above: {command}"]
        updated = coordinator.update_task("r7", "rename-parse")
        alone = outside.replace("(the command below)", f"({command})")   # the update's one note says it inline
        assert updated.exit_code == 1 and updated.notes == [alone]
        assert f"  note: {alone}" in task_updated(updated).splitlines()
        # The way out it names works: the alias, and the finish merges.
        write(Path(updated.worktree), {"pkg/util.py": UTIL.replace("def parse(", "def split_words(")
                                       + "\n\nparse = split_words\n"})
        assert coordinator.finish_task("r7", "rename-parse").state == "merged"


def test_a_use_inside_the_task_boundary_gets_no_outside_note(repo: Path) -> None:
    with Coordinator(repo) as coordinator:
        _, second = _two_tasks(coordinator, "r8")
        assert second.state == "conflict"
        assert not [note for note in second.notes if "outside this task's boundary" in note]


WS = ("import { isAsyncIterable, isObject } from './utils';\nimport { Unpromise } from './unpromise';\n\n"
      "export function handle(value: unknown): boolean {\n  return isObject(value) && !isAsyncIterable(value);\n}\n")


def test_a_hand_resolved_update_that_imports_a_name_twice_is_checked_at_finish(tmp_path: Path) -> None:
    """Found driving wtc on trpc/trpc: two tasks import `isFunction` into ws.ts (one in the import
    list, one as a new import statement) and each appends a function at the end. The structured
    merge declines (it would import isFunction twice), the update leaves markers at the end, and
    the agent keeps both functions; git's line merge outside the markers kept both imports. The
    finish merged that (its base is integration's tip once the branch holds the update), a file
    that does not compile."""
    repo = make_repo(tmp_path / "repo", {"src/utils.ts": "export function isFunction(x: unknown) {\n  return "
                                         "typeof x === 'function';\n}\n", "src/ws.ts": WS})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        listed = Path(coordinator.start_task("r1", "listed", ["src/ws.ts"]).worktree)
        separate = Path(coordinator.start_task("r1", "separate", ["src/ws.ts"]).worktree)
        write(separate, {"src/ws.ts": WS.replace("import { Unpromise } from './unpromise';\n",
                                                 "import { Unpromise } from './unpromise';\n"
                                                 "import { isFunction } from './utils';\n")
                         + "\nexport function call(fn: unknown): void {\n  if (isFunction(fn)) (fn as () => void)();\n}\n"})
        write(listed, {"src/ws.ts": WS.replace("{ isAsyncIterable, isObject }", "{ isAsyncIterable, isFunction, isObject }")
                       + "\nexport function isHandler(fn: unknown): boolean {\n  return isFunction(fn);\n}\n"})
        assert coordinator.finish_task("r1", "separate").state == "merged"
        first = coordinator.finish_task("r1", "listed")
        assert first.state == "conflict"
        updated = coordinator.update_task("r1", "listed")
        assert updated.conflicted_paths == ["src/ws.ts"]
        assert any(note.startswith("src/ws.ts keeps conflict markers because") and "isFunction" in note
                   for note in updated.notes), updated.notes
        # The agent keeps both sides of the markers, as the update's output invites.
        text = (listed / "src/ws.ts").read_text()
        ours, theirs = text.split("<<<<<<< ")[1].split("\n", 1)[1].split("=======\n")
        ours = ours.split("||||||| ")[0]
        theirs = theirs.split(">>>>>>> ")[0]
        start, end = text.index("<<<<<<< "), text.index("\n", text.index(">>>>>>> ")) + 1
        write(listed, {"src/ws.ts": text[:start] + ours + theirs + text[end:]})
        assert (listed / "src/ws.ts").read_text().count("isFunction } from") + \
            (listed / "src/ws.ts").read_text().count("isFunction, isObject }") == 2
        finished = coordinator.finish_task("r1", "listed")
        assert finished.state == "conflict", "a resolution that imports isFunction twice must not merge"
        [conflict] = finished.conflicts
        assert conflict["semantic"]["problem"] == "duplicate" and conflict["semantic"]["name"] == "isFunction"
        # The agent keeps one import: it merges, holding both functions and one import.
        fixed = Path(coordinator.update_task("r1", "listed").worktree)
        text = (fixed / "src/ws.ts").read_text().replace("import { isFunction } from './utils';\n", "")
        write(fixed, {"src/ws.ts": text})
        assert coordinator.finish_task("r1", "listed").state == "merged"
        landed = git(repo, "show", "wtc/r1/integration:src/ws.ts")
        assert "isHandler" in landed and "function call" in landed and landed.count("isFunction") == 3


def test_a_hand_resolution_that_drops_what_integration_added_and_still_uses_is_a_conflict(tmp_path: Path) -> None:
    """Task `adds-helper` changes `parse` and adds `helper`, which app.py now calls; task `edits`
    changes the same line of `parse`. Its update leaves markers there, and the agent keeps only its
    own version of util.py: `helper` is gone while app.py calls it. No merge check saw it (the name
    was at no merge base; the finish's own view, based on integration's tip, sees the task remove
    it), so the finish merged a tree that fails on import."""
    util = "def parse(text):\n    return text.split()\n"
    app = "from util import parse\n\n\ndef main(t):\n    return parse(t)\n"
    repo = make_repo(tmp_path / "repo", {"util.py": util, "app.py": app})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        adds = Path(coordinator.start_task("r1", "adds-helper", ["**"]).worktree)
        edits = Path(coordinator.start_task("r1", "edits", ["util.py"]).worktree)
        write(adds, {"util.py": util.replace("split()", "split(' ')") + "\n\ndef helper(x):\n    return x.strip()\n",
                     "app.py": app.replace("import parse", "import helper, parse").replace("parse(t)", "parse(helper(t))")})
        mine = util.replace("split()", "split(',')")
        write(edits, {"util.py": mine})
        assert coordinator.finish_task("r1", "adds-helper").state == "merged"
        assert coordinator.finish_task("r1", "edits").state == "conflict"
        assert coordinator.update_task("r1", "edits").conflicted_paths == ["util.py"]
        write(edits, {"util.py": mine})   # the agent keeps its own side, whole
        # An update with nothing new to merge checks the resolution as the finish will.
        checked = coordinator.update_task("r1", "edits")
        # Every use is named, the import first: it is what fails on import.
        assert checked.exit_code == 1 and [(f["name"], f["problem"], f["use_line"]) for f in checked.semantic] == \
            [("helper", "dropped", 1), ("helper", "dropped", 5)]
        assert not any("outside this task's boundary" in note for note in checked.notes), checked.notes
        done = coordinator.finish_task("r1", "edits")
        assert done.state == "conflict"
        findings = [c["semantic"] for c in done.conflicts]
        assert {(f["name"], f["problem"], f["use_path"]) for f in findings} == {("helper", "dropped", "app.py")}
        assert "dropped when it resolved an update's conflict markers by hand" in findings[0]["message"]
        assert any("put it back" in note for note in done.notes), done.notes
        # The agent puts helper back: it merges.
        fixed = Path(coordinator.update_task("r1", "edits").worktree)
        write(fixed, {"util.py": mine + "\n\ndef helper(x):\n    return x.strip()\n"})
        assert coordinator.finish_task("r1", "edits").state == "merged"
        assert "def helper" in git(repo, "show", "wtc/r1/integration:util.py")


def test_a_hand_resolution_that_removes_a_name_on_purpose_is_not_called_dropped(tmp_path: Path) -> None:
    """The task's own side removed `render` (nothing uses it): resolving the markers its way is its
    removal, not a definition the resolution lost. The resolution is the task's own version whole,
    so the merge's tree is the branch's: finish committed nothing (git had nothing staged), the
    branch never held integration's tip, and every finish conflicted again."""
    util = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
    repo = make_repo(tmp_path / "repo", {"util.py": util, "app.py": "from util import parse\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        other = Path(coordinator.start_task("r1", "other", ["util.py"]).worktree)
        mine = Path(coordinator.start_task("r1", "mine", ["util.py"]).worktree)
        write(other, {"util.py": util.replace("split()", "split(' ')")})
        write(mine, {"util.py": "def parse(text):\n    return text.split(',')\n"})
        assert coordinator.finish_task("r1", "other").state == "merged"
        assert coordinator.finish_task("r1", "mine").state == "conflict"
        assert coordinator.update_task("r1", "mine").conflicted_paths == ["util.py"]
        write(mine, {"util.py": "def parse(text):\n    return text.split(',')\n"})
        done = coordinator.finish_task("r1", "mine")
        assert done.state == "merged", done.conflicts


def test_a_hand_resolution_that_deletes_a_file_integration_added_a_used_function_to_is_a_conflict(tmp_path: Path) -> None:
    """Delete/modify: the task deletes legacy.py (nothing used it); integration added `extra` to it
    and a call in app.py. The agent resolves the update by deleting the file: `extra` is gone."""
    legacy = "def old():\n    return 1\n"
    app = "def main():\n    return 0\n"
    repo = make_repo(tmp_path / "repo", {"legacy.py": legacy, "app.py": app})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        adds = Path(coordinator.start_task("r1", "adds", ["**"]).worktree)
        deletes = Path(coordinator.start_task("r1", "deletes", ["legacy.py"]).worktree)
        write(adds, {"legacy.py": legacy + "\n\ndef extra():\n    return 2\n",
                     "app.py": "from legacy import extra\n\n\n" + app.replace("return 0", "return extra()")})
        (deletes / "legacy.py").unlink()
        assert coordinator.finish_task("r1", "adds").state == "merged"
        assert coordinator.finish_task("r1", "deletes").state == "conflict"
        assert coordinator.update_task("r1", "deletes").conflicted_paths == ["legacy.py"]
        git(deletes, "rm", "-q", "legacy.py")
        done = coordinator.finish_task("r1", "deletes")
        assert done.state == "conflict"
        assert {(c["semantic"]["name"], c["semantic"]["problem"]) for c in done.conflicts} == {("extra", "dropped")}


def test_the_task_that_moved_a_definition_away_is_named_not_the_last_to_edit_the_file(tmp_path: Path) -> None:
    """Found driving wtc on trpc/trpc: `mover` moved formatter.ts, `editor` then edited it (the merge
    followed the move), and a third task's new import of the old path was "removed by task editor",
    the last task to change the file, whose own version still defines the name."""
    util = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": util,
                                         "pkg/app.py": "from pkg.util import render\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        mover = Path(coordinator.start_task("r1", "mover", ["pkg/**"]).worktree)
        editor = Path(coordinator.start_task("r1", "editor", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r1", "user", ["pkg/main.py"]).worktree)
        git(mover, "mv", "pkg/util.py", "pkg/helpers.py")
        write(mover, {"pkg/app.py": "from pkg.helpers import render\n"})
        write(editor, {"pkg/util.py": util.replace("return text.split()", "return text.split(',')")})
        write(user, {"pkg/main.py": "from pkg.util import parse\n\n\ndef main(text):\n    return parse(text)\n"})
        assert coordinator.finish_task("r1", "mover").state == "merged"
        assert coordinator.finish_task("r1", "editor").state == "merged"
        assert "split(',')" in git(repo, "show", "wtc/r1/integration:pkg/helpers.py")
        done = coordinator.finish_task("r1", "user")
        assert done.state == "conflict"
        found = {(c["semantic"]["name"], c["semantic"]["removed_by_task"]) for c in done.conflicts}
        assert ("parse", "mover") in found and {task for _, task in found} == {"mover"}, found


def test_a_task_that_took_a_removal_in_with_update_is_not_named_as_removing_it(tmp_path: Path) -> None:
    """Found driving wtc on vuejs/core: `rename` renamed looseToNumber, `same-line-2` then ran
    `task update` (for a conflict elsewhere in the file) and finished, and a third task's new use
    of the old name was "removed by task same-line-2": its version no longer names it, but only
    because it merged the integration tip in. The removal is named on the task whose own change
    made it, in the merge queue and in the report's left-behind warnings."""
    util = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": util,
                                         "pkg/cli.py": "from pkg.util import parse\n\nARGS = parse('a b')\n"})
    with Coordinator(repo) as coordinator:
        # cli.py keeps using the old name: a use left behind, which this run lets merge (the report warns)
        coordinator.start_run("r1", left_behind="warn")
        remover = Path(coordinator.start_task("r1", "remover", ["pkg/util.py"]).worktree)
        later = Path(coordinator.start_task("r1", "later", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r1", "user", ["pkg/main.py"]).worktree)
        write(remover, {"pkg/util.py": util.replace("def parse(", "def parse_words(")})
        write(user, {"pkg/main.py": "from pkg.util import parse\n\n\ndef main(text):\n    return parse(text)\n"})
        assert coordinator.finish_task("r1", "remover").state == "merged"
        coordinator.update_task("r1", "later")       # takes the rename in
        edited = (later / "pkg/util.py").read_text().replace("', '.join(items)", "'; '.join(items)")
        assert "parse_words" in edited
        write(later, {"pkg/util.py": edited})
        assert coordinator.finish_task("r1", "later").state == "merged"
        done = coordinator.finish_task("r1", "user")
        assert done.state == "conflict"
        found = {(c["semantic"]["name"], c["semantic"]["removed_by_task"]) for c in done.conflicts}
        assert found == {("parse", "remover")}, found
        report = coordinator.report("r1")
        [row] = [r for r in report.left_behind if r["use_path"] == "pkg/cli.py"]
        assert row["tasks"] == ["remover"], row
        assert any("pkg/cli.py" in w and "task remover " in w for w in report.warnings), report.warnings


def test_a_conflict_names_the_task_that_wrote_the_integration_side_not_one_that_updated_past_it(tmp_path: Path) -> None:
    """The same rule for a content conflict's `written_by`: `later` took `comma`'s line in with
    `task update`, so the line is in its commit, but it did not write it."""
    util = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": util})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        comma, later, semi = (Path(coordinator.start_task("r1", name, ["pkg/util.py"]).worktree)
                              for name in ("comma", "later", "semi"))
        write(comma, {"pkg/util.py": util.replace("text.split()", "text.split(',')")})
        write(semi, {"pkg/util.py": util.replace("text.split()", "text.split(';')")})
        assert coordinator.finish_task("r1", "comma").state == "merged"
        coordinator.update_task("r1", "later")
        write(later, {"pkg/util.py": (later / "pkg/util.py").read_text().replace("', '.join", "'; '.join")})
        assert coordinator.finish_task("r1", "later").state == "merged"
        done = coordinator.finish_task("r1", "semi")
        assert done.state == "conflict"
        [block] = [c for c in done.conflicts if c["kind"] == "content"]
        assert block["written_by"] == ["comma"], block


def test_a_new_call_through_a_crates_name_of_a_function_another_task_renamed_is_a_conflict(tmp_path: Path) -> None:
    """Rust: `my_cli::parse_size(v)` needs no `use` (every dependency's name is in scope). One task
    renames parse_size behind the crate root's `pub use`, another adds that call in another crate:
    the second merge was clean and the workspace did not build (found driving wtc on ripgrep)."""
    repo = make_repo(tmp_path / "repo", {
        "Cargo.toml": '[workspace]\nmembers = ["cli", "app"]\n',
        "cli/Cargo.toml": '[package]\nname = "my-cli"\nversion = "0.1.0"\n',
        "cli/src/lib.rs": "mod human;\n\npub use crate::human::parse_size;\n",
        "cli/src/human.rs": "pub fn parse_size(s: &str) -> u64 {\n    s.len() as u64\n}\n",
        "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nmy-cli = { path = "../cli" }\n',
        "app/src/lib.rs": "pub fn run() -> u64 {\n    1\n}\n",
    })
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        renamer = Path(coordinator.start_task("r1", "rename", ["cli/**"]).worktree)
        user = Path(coordinator.start_task("r1", "call", ["app/**"]).worktree)
        write(renamer, {"cli/src/lib.rs": "mod human;\n\npub use crate::human::parse_human_size;\n",
                        "cli/src/human.rs": "pub fn parse_human_size(s: &str) -> u64 {\n    s.len() as u64\n}\n"})
        write(user, {"app/src/lib.rs": "pub fn run() -> u64 {\n    my_cli::parse_size(\"2M\")\n}\n"})
        assert coordinator.finish_task("r1", "rename").state == "merged"
        second = coordinator.finish_task("r1", "call")
        assert second.state == "conflict", second
        [conflict] = second.to_json()["conflicts"]
        assert (conflict["kind"], conflict["path"], conflict["semantic"]["name"]) == ("semantic", "app/src/lib.rs", "parse_size")


def test_uses_outside_the_boundary_in_two_files_give_the_widen_command_once(repo: Path) -> None:
    """Two other tasks wrote new calls of the old name, in two files: the notes repeated the whole
    `wtc task widen` command on each use's line. Each use gets its line and the way to keep the name;
    the one widen, owning both files, is said once."""
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r8")
        remover = Path(coordinator.start_task("r8", "rename-parse", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r8", "use-parse", ["pkg/app.py"]).worktree)
        other = Path(coordinator.start_task("r8", "use-parse-too", ["pkg/cli.py"]).worktree)
        write(user, {"pkg/app.py": APP.replace("import render", "import parse, render")
                     .replace("return render(items)", "return render(parse(items))")})
        write(other, {"pkg/cli.py": "from pkg.util import parse\n\n\ndef run(text):\n    return parse(text)\n"})
        assert coordinator.finish_task("r8", "use-parse").state == "merged"
        assert coordinator.finish_task("r8", "use-parse-too").state == "merged"
        write(remover, {"pkg/util.py": UTIL.replace("def parse(", "def split_words(")})
        finished = coordinator.finish_task("r8", "rename-parse")
        assert finished.state == "conflict"
        outside = [note for note in finished.notes if "outside this task's boundary" in note or "wtc task widen" in note]
        assert outside == [
            "pkg/app.py:5 is outside this task's boundary (use-parse wrote the use): keep parse too (an alias of "
            "split_words), or the lead widens the task (the command below) and it updates the use",
            "pkg/cli.py:5 is outside this task's boundary (use-parse-too wrote the use): keep parse too (an alias of "
            "split_words), or the lead widens the task (the command below) and it updates the use",
            "the lead's one widen for the uses above: `wtc task widen rename-parse --run r8 --own '/pkg/app.py' "
            "--own '/pkg/cli.py' --why '...'`"], "\n".join(finished.notes)


def test_a_drain_s_warning_names_the_task_merged_before_it_in_the_same_drain(repo: Path) -> None:
    """`wtc merge` records the merges of one drain together, but a merge whose warnings name the
    tasks they met is recorded after the ones before it: its warning names the remover, merged
    earlier in the same drain."""
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r3", semantic="warn")
        remover = Path(coordinator.start_task("r3", "remove-parse", ["pkg/util.py"]).worktree)
        user = Path(coordinator.start_task("r3", "use-parse", ["pkg/app.py"]).worktree)
        write(remover, {"pkg/util.py": "def render(items):\n    return ', '.join(items)\n"})
        write(user, {"pkg/app.py": APP.replace("import render", "import parse, render")
                     .replace("return render(items)", "return render(parse(items))")})
        assert coordinator.finish_task("r3", "remove-parse", merge=False).state == "finished"
        assert coordinator.finish_task("r3", "use-parse", merge=False).state == "finished"
        report = coordinator.merge("r3")
        assert [(row["task"], row["state"]) for row in report.tasks] == [("remove-parse", "merged"),
                                                                         ("use-parse", "merged")]
        [warning] = coordinator.store.get_task("r3", "use-parse").result["merge"]["semantic"]
        assert warning["removed_by_task"] == "remove-parse" and warning["name"] == "parse"
