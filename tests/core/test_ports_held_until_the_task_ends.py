"""A task's port block is held until the task ends, not until its finish: a finish whose merge
conflicts (or one that waits for `wtc merge`) may bring the task back, and its agent's servers may
still bind the block, so no other start, of this repository or of another on the machine, is handed
it meanwhile; once the task merges or is abandoned its block is free again. A lease file that cannot
be read, left long enough that no claim can be writing it, is a leftover: reclaimed, not a port held
for ever. Real repositories, the real `wtc` command line, the machine's registry in the test's own
state folder (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import make_repo, write, wtc

FILES = {"pkg/a.py": "a = 1\n", "lib/b.py": "b = 1\n", "docs/c.md": "c\n"}
PORTS = "[worktree-setup]\nports = 2\nport-base = {base}\n"


def _free_base(blocks: int = 4) -> int:
    """A port base whose first `blocks` blocks nothing on the machine listens on, above the range
    the kernel hands out to outgoing connections (ip_local_port_range): the tests assert which
    block a start is given, and a fixed base failed once in a fresh-clone CI (43306 for 43304: a
    connection of something else on the machine held 43304 at that moment). Above that range no
    connection takes a port between this check and the starts; the product's own probe checks
    listeners."""
    from worktree_coord.coordinator.worktree_setup import port_in_use

    try:
        last = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        last = 43000
    for base in range(last + 1, 65536 - 2 * blocks, 2 * blocks):
        if not any(port_in_use(base + 2 * block) for block in range(blocks)):
            return base
    raise AssertionError(f"no {blocks} free blocks of 2 ports above {last} on this machine")


def _clone(root: Path, base: int) -> Path:
    repo = make_repo(root, FILES | {".wtc.toml": PORTS.format(base=base)})
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    return repo


def _start(repo: Path, task: str, own: str) -> tuple[Path, int]:
    code, body = wtc(repo, "task", "start", task, "--run", "r", "--own", own)
    assert code == 0, body
    return Path(body["worktree"]), body["prepared"]["ports"]["base"]


def _ports_of(repo: Path) -> dict[str, int]:
    return {task["task"]: task["ports"]["base"] for task in wtc(repo, "status", "--run", "r")[1]["tasks"]
            if task.get("ports")}


def test_a_conflicted_tasks_block_is_not_handed_to_another_repository_until_it_ends(tmp_path: Path) -> None:
    one = _clone(tmp_path / "one", base := _free_base())
    first_worktree, first = _start(one, "first", "pkg/**")
    second_worktree, second = _start(one, "second", "pkg/**")
    write(first_worktree, {"pkg/a.py": "a = 2\n"})
    write(second_worktree, {"pkg/a.py": "a = 3\n"})
    assert wtc(one, "task", "finish", "first", "--run", "r")[1]["state"] == "merged"
    code, body = wtc(one, "task", "finish", "second", "--run", "r")
    assert (code, body["state"]) == (1, "conflict"), body
    _, third = _start(one, "third", "lib/**")          # the merged task's block, free again
    assert third == first

    two = _clone(tmp_path / "two", base)
    _, other = _start(two, "other", "pkg/**")
    assert other not in (second, third), f"block {other} handed out while task 'second' ({second}) may come back"

    # The conflicted task comes back: `task update` re-creates its worktree with its own block.
    code, body = wtc(one, "task", "update", "second", "--run", "r")
    assert code in (0, 1), body
    assert _ports_of(one)["second"] == second
    # Abandoned, it has ended: its block goes to the next start on the machine that wants it.
    assert wtc(one, "task", "abandon", "second", "--run", "r")[0] == 0
    _, freed = _start(two, "later", "lib/**")
    assert freed == second


def test_a_finished_task_waiting_for_its_merge_keeps_its_block(tmp_path: Path) -> None:
    """`--no-merge`: the task's merge, later, may conflict and bring it back with its block."""
    repo = _clone(tmp_path / "one", base := _free_base())
    _, held = _start(repo, "live", "pkg/**")
    waiting_worktree, waiting = _start(repo, "waiting", "lib/**")
    write(waiting_worktree, {"lib/b.py": "b = 2\n"})
    code, body = wtc(repo, "task", "finish", "waiting", "--run", "r", "--no-merge")
    assert (code, body["state"]) == (0, "finished"), body
    _, later = _start(repo, "later", "docs/**")
    assert later not in (held, waiting), f"block {later} handed out while task 'waiting' ({waiting}) may come back"
    other = _clone(tmp_path / "two", base)
    _, elsewhere = _start(other, "elsewhere", "pkg/**")
    assert elsewhere not in (held, waiting, later)
    # Merged, it has ended: its block is free again.
    assert wtc(repo, "merge", "--run", "r")[0] == 0
    assert _ports_of(repo)["waiting"] == waiting
    _, freed = _start(other, "freed", "lib/**")
    assert freed == waiting


def _state() -> Path:
    return Path(os.environ["WTC_STATE_DIR"])


def test_an_unreadable_lease_file_left_long_ago_is_reclaimed_and_a_fresh_one_is_not(tmp_path: Path) -> None:
    """A claim writes its lease whole under a temporary name and only then links it at its ports
    (store/port_registry.py), so a port's name that does not read as a lease is no claim at work:
    a torn write (a full disk, a power cut). Left long enough, it is reclaimed by the start that
    meets it and by `wtc gc`; a fresh one is left alone (the claim may be another version's)."""
    from worktree_coord.store.port_registry import UNREADABLE_LEASE_SECONDS

    base = _free_base(3)
    repo = _clone(tmp_path / "one", base)
    folder = _state() / "ports"
    folder.mkdir(parents=True, exist_ok=True)
    old, fresh = folder / str(base), folder / str(base + 2)
    old.write_text('{"schema":"wtc.port-lease/1","store":"/gone')     # half a lease
    fresh.write_text("")
    past = time.time() - UNREADABLE_LEASE_SECONDS - 60
    os.utime(old, (past, past))
    _, first = _start(repo, "first", "pkg/**")
    assert first == base, "the torn lease left long ago no longer holds its port"
    assert json.loads(old.read_text())["task"] == "first"
    _, second = _start(repo, "second", "lib/**")
    assert second == base + 4, "a fresh unreadable lease is kept: its port is not handed out"
    assert fresh.read_text() == ""

    # `wtc gc`'s sweep: the fresh one, once old, goes too.
    os.utime(fresh, (past, past))
    assert wtc(repo, "gc")[0] == 0
    assert not fresh.exists()


def test_a_task_whose_verification_failed_keeps_its_block_until_it_ends(tmp_path: Path) -> None:
    """A failed verification ejects the task (state failed), and `task update` brings it back to
    its agent, whose servers may still bind its block: held as a conflicted task's is, in this
    repository and on the machine, until the task ends."""
    base = _free_base()
    config = 'verify = "test ! -e pkg/fail"\n' + PORTS.format(base=base)
    repo = make_repo(tmp_path / "one", FILES | {".wtc.toml": config})
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    worktree, failing = _start(repo, "failing", "pkg/**")
    write(worktree, {"pkg/fail": "the verify command fails on this\n"})
    code, body = wtc(repo, "task", "finish", "failing", "--run", "r")
    assert (code, body["state"]) == (1, "failed"), body
    _, later = _start(repo, "later", "lib/**")
    assert later != failing, f"block {later} handed out while task 'failing' may come back"
    other = _clone(tmp_path / "two", base)
    _, elsewhere = _start(other, "elsewhere", "pkg/**")
    assert elsewhere not in (failing, later)
    # It comes back with its own block; abandoned, it has ended and its block is free again.
    code, body = wtc(repo, "task", "update", "failing", "--run", "r")
    assert code in (0, 1), body
    assert _ports_of(repo)["failing"] == failing
    assert wtc(repo, "task", "abandon", "failing", "--run", "r")[0] == 0
    _, freed = _start(other, "freed", "lib/**")
    assert freed == failing
