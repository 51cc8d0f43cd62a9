"""`wtc task update` re-merges each file git's merge left conflicted with the structured merge:
a file it resolves is written and staged, a file it cannot keeps git's markers for the agent."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, write
from worktree_coord.coordinator import Coordinator

OWN = ["packages/api/**", "packages/core/**"]


def test_update_resolves_what_the_structured_merge_can_and_leaves_markers_in_the_rest(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt_a = Path(coord.start_task("r1", "a", OWN).worktree)
        wt_b = Path(coord.start_task("r1", "b", OWN).worktree)
        write(wt_a, {"packages/api/index.js": "export function api() {\n  return 'a';\n}\n",
                     "packages/core/lib.py": "def core():\n    return 3\n\n\ndef alpha():\n    return core() + 1\n"})
        write(wt_b, {"packages/api/index.js": "export function api() {\n  return 'b';\n}\n",
                     "packages/core/lib.py": "def core():\n    return 3\n\n\ndef beta():\n    return core() + 2\n"})
        assert coord.finish_task("r1", "a").state == "merged"
        assert coord.finish_task("r1", "b").state == "conflict"

        updated = coord.update_task("r1", "b")

        assert updated.exit_code == 1 and updated.conflicted_paths == ["packages/api/index.js"]
        worktree = Path(updated.worktree)
        assert "<<<<<<<" in (worktree / "packages/api/index.js").read_text()
        lib = (worktree / "packages/core/lib.py").read_text()
        assert "<<<<<<<" not in lib and "def alpha():" in lib and "def beta():" in lib
        unmerged = git(worktree, "ls-files", "--unmerged").split("\n")
        assert any(line.endswith("packages/api/index.js") for line in unmerged)
        assert not any(line.endswith("packages/core/lib.py") for line in unmerged), "the resolved file is staged"


def test_a_finish_with_a_message_that_conflicted_can_be_finished_again_without_it(repo):
    # The conflict's fix says `wtc task finish b --run r1`: no message. The first finish's default key
    # must not refuse that as "the same key with other arguments" (found driving `wtc mcp`).
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt_a = Path(coord.start_task("r1", "a", OWN).worktree)
        wt_b = Path(coord.start_task("r1", "b", OWN).worktree)
        write(wt_a, {"packages/api/index.js": "export const api = 'a';\n"})
        write(wt_b, {"packages/api/index.js": "export const api = 'b';\n"})
        assert coord.finish_task("r1", "a", message="a: api").state == "merged"
        first = coord.finish_task("r1", "b", message="b: api")
        assert first.state == "conflict"
        repeat = coord.finish_task("r1", "b", message="b: api")   # the same call again: the same answer
        assert (repeat.state, repeat.commit) == ("conflict", first.commit)
        worktree = Path(coord.update_task("r1", "b").worktree)
        write(worktree, {"packages/api/index.js": "export const api = 'a and b';\n"})
        again = coord.finish_task("r1", "b")
        assert again.state == "merged" and not again.replayed
        assert git(repo, "show", "wtc/r1/integration:packages/api/index.js") == "export const api = 'a and b';"
