"""Port blocks are the machine's, not one repository's (issue 35, 1.5): two clones on one machine
never hand out the same block while both tasks live, a block comes free when its task ends or its
repository is gone, and a port some other program listens on is never handed out."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

from tests.conftest import make_repo, write, wtc

FILES = {"pkg/a.py": "a = 1\n", "lib/b.py": "b = 1\n"}


def _clone(root: Path, config: str = "") -> Path:
    repo = make_repo(root, FILES | ({".wtc.toml": config} if config else {}))
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    return repo


def _start(repo: Path, task: str, own: str = "pkg/**") -> tuple[Path, tuple[int, int]]:
    code, body = wtc(repo, "task", "start", task, "--run", "r", "--own", own)
    assert code == 0, body
    ports = body["prepared"]["ports"]
    env = (Path(body["worktree"]) / ".wtc" / "env").read_text()
    assert f"WTC_PORT_BASE={ports['base']}\n" in env
    return Path(body["worktree"]), (ports["base"], ports["last"])


def test_two_repositories_hand_out_distinct_blocks_and_reuse_one_freed(tmp_path):
    one, two = _clone(tmp_path / "one"), _clone(tmp_path / "two")
    first_worktree, first = _start(one, "api")
    _, second = _start(two, "web")
    assert first[1] < second[0] or second[1] < first[0], f"blocks overlap: {first} and {second}"
    registry = json.loads((Path(os.environ["WTC_STATE_DIR"]) / "ports.json").read_text())   # tests/conftest.py
    assert sorted((lease["first"], lease["last"]) for lease in registry["leases"]) == sorted([first, second])
    # The status of each repository still shows its own task's block (the store's record).
    assert wtc(one, "status", "--run", "r")[1]["tasks"][0]["ports"]["base"] == first[0]

    # The first repository's task ends: its block is free again for the other repository.
    write(first_worktree, {"pkg/a.py": "a = 2\n"})
    assert wtc(one, "task", "finish", "api", "--run", "r")[1]["state"] == "merged"
    _, third = _start(two, "docs", own="lib/**")
    assert third == first


def test_a_block_of_a_repository_that_is_gone_is_free_again(tmp_path):
    one, two = _clone(tmp_path / "one"), _clone(tmp_path / "two")
    _, first = _start(one, "api")
    shutil.rmtree(one)      # the clone deleted with its task still started: nothing of it runs any more
    _, second = _start(two, "web")
    assert second == first


def test_a_port_another_program_listens_on_is_skipped(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        busy = listener.getsockname()[1]
        assert busy <= 65000, "port-base takes 1024-65000; the kernel's ephemeral range lies inside it"
        repo = _clone(tmp_path / "one", f"[worktree-setup]\nports = 2\nport-base = {busy}\n")
        _, block = _start(repo, "api")
        assert block[0] >= busy + 2, f"block {block} starts at the port a listener holds ({busy})"
        listener.close()
        _, freed = _start(repo, "web", own="lib/**")
    assert freed == (busy, busy + 1), "a port nothing listens on any more is handed out"


def test_another_repositorys_range_is_checked_when_a_block_meets_it(tmp_path):
    """A start asks another repository's store about its tasks only when one of its ranges meets a
    block the start considers (store/port_registry.py): an ended task's range elsewhere on the
    port line stays recorded until then, and is handed out again once a start meets it."""
    far = _clone(tmp_path / "far", "[worktree-setup]\nports = 4\nport-base = 41000\n")
    near = _clone(tmp_path / "near", "[worktree-setup]\nports = 4\nport-base = 31000\n")
    worktree, held = _start(far, "api")
    write(worktree, {"pkg/a.py": "a = 2\n"})
    assert wtc(far, "task", "finish", "api", "--run", "r")[1]["state"] == "merged"
    _start(near, "web")
    registry = json.loads((Path(os.environ["WTC_STATE_DIR"]) / "ports.json").read_text())
    assert (held[0], held[1]) in [(lease["first"], lease["last"]) for lease in registry["leases"]], \
        "the far range was not in the way: its store was not asked"
    other = _clone(tmp_path / "other", "[worktree-setup]\nports = 4\nport-base = 41000\n")
    _, again = _start(other, "docs")
    assert again == held, "the ended task's range, met by this start, is free again"


def test_a_stores_mark_moves_with_every_write_to_it(tmp_path):
    """The registry skips reopening a store whose mark has not moved since its entries were checked
    (store/port_registry.py): that is sound only if every write to the store moves the mark,
    including writes that end a task, one after another within the same instant."""
    from worktree_coord.store.port_registry import _store_mark
    from worktree_coord.store.sqlite import SQLiteStore

    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)
    marks = [_store_mark(str(path))]
    for number in range(20):
        store.beat(f"owner-{number}", 30.0, renew=False)
        marks.append(_store_mark(str(path)))
    store.close()
    assert all(mark is not None for mark in marks)
    assert len({tuple(mark) for mark in marks}) == len(marks), "a write left the store's mark where it was"


def test_which_leases_meet_a_range_is_the_scans_answer() -> None:
    """`PortRegistry.blocks` finds the other stores' leases meeting a range by bisecting their sorted
    ranges (a start asks block after block): the same answer as looking at every lease, for ranges
    of mixed widths, overlapping ones, the reader's own leases, and after the leases change."""
    import random

    from worktree_coord.store.port_registry import PortLease, PortRegistry

    rng = random.Random(7)
    leases = []
    for i in range(150):
        first = rng.randrange(20000, 21000)
        leases.append(PortLease(store=rng.choice(["/a/s", "/b/s", "/mine/s"]), run="r", task=f"t{i}", worktree="",
                                first=first, last=first + rng.choice([0, 3, 9, 40])))
    registry = PortRegistry(list(leases))      # every store counted as checked: no store is opened

    def scanned(first: int, last: int) -> bool:
        return any(lease.store != "/mine/s" and lease.overlaps(first, last) for lease in registry.leases)

    for first in range(19950, 21100, 7):
        assert registry.blocks("/mine/s", first, first + 9) == scanned(first, first + 9), first
    registry.hold(PortLease(store="/a/s", run="r", task="new", worktree="", first=21050, last=21060))
    registry.release("/b/s", "r", "t3")
    for first in range(20990, 21100, 3):
        assert registry.blocks("/mine/s", first, first + 4) == scanned(first, first + 4), first
