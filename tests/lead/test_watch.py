"""`wtc watch`: one frame (`--once`, `--json`) of a run with a task in every state, and the live view on
a real terminal, which shows a merge landing while it watches, takes no lease and leaves on Ctrl-C
with exit 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import make_repo, write, wtc
from worktree_coord.coordinator import Coordinator

ROOT = Path(__file__).resolve().parents[2]
MODULE = "def alpha():\n    return 1\n\n\ndef omega():\n    return 2\n"
STATES = ("started", "finished", "merged", "conflict", "rejected", "abandoned", "empty", "failed")


@pytest.fixture
def every_state(tmp_path: Path) -> Path:
    """Run r1 with one task in each state (named after it)."""
    repo = make_repo(tmp_path / "repo", {"pkg/mod.py": MODULE, "pkg/b.txt": "b\n", "docs/d.md": "d\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        trees = {state: Path(coord.start_task("r1", state, ["pkg/**"]).worktree) for state in STATES}
        write(trees["merged"], {"pkg/mod.py": MODULE.replace("return 1", "return 10")})
        write(trees["conflict"], {"pkg/mod.py": MODULE.replace("return 1", "return 11")})
        write(trees["finished"], {"pkg/new.txt": "n\n"})
        write(trees["rejected"], {"docs/d.md": "outside\n"})
        write(trees["failed"], {"pkg/b.txt": "fails verification\n"})
        assert coord.finish_task("r1", "merged").state == "merged"
        assert coord.finish_task("r1", "conflict").state == "conflict"
        assert coord.finish_task("r1", "finished", merge=False).state == "finished"
        assert coord.finish_task("r1", "rejected").state == "rejected"
        assert coord.finish_task("r1", "empty").state == "empty"
        coord.abandon_task("r1", "abandoned")
        assert coord.finish_task("r1", "failed", verify="! grep -q fails pkg/b.txt").state == "failed"
        assert {t.task_id: t.state.value for t in coord.store.list_tasks("r1")} == {s: s for s in STATES}
    return repo


def test_once_shows_every_task_state_the_latest_merge_and_the_conflict_with_its_declaration(every_state):
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "watch", "--run", "r1", "--once"],
                          cwd=every_state, env=dict(os.environ, COLUMNS="120"), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "\x1b[" not in text, "not a terminal: plain text"
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in text.splitlines()
            if line.count("│") >= 7 and line.split("│")[1].strip() in STATES}
    assert rows == {state: state for state in STATES}, text
    assert "1 abandoned, 1 conflict, 1 empty, 1 failed, 1 finished, 1 merged, 1 rejected, 1 started" in text
    assert "merged 1:" in text and "admission queue: 0 running" in text and "intents: none" in text
    merges = text[text.index("latest merges"):]
    assert "merged" in merges.split("conflicts")[0]
    conflicts = text[text.index("\nconflicts"):]
    assert "conflict" in conflicts and "pkg/mod.py" in conflicts and "alpha" in conflicts and "merged" in conflicts


def test_json_is_one_frame_matching_its_schema(every_state):
    code, frame = wtc(every_state, "watch", "--run", "r1")
    assert code == 0
    jsonschema.validate(frame, json.loads((ROOT / "docs" / "schemas" / "watch.schema.json").read_text()))
    assert frame["counts"] == {state: 1 for state in STATES}
    assert [m["task"] for m in frame["merges"]] == ["merged"] and frame["throughput"]["merged"] == 1
    [conflict] = [c for c in frame["conflicts"] if c["path"] == "pkg/mod.py"]
    assert conflict["task"] == "conflict" and "alpha" in conflict["declaration"]
    assert conflict["last_changed_by"] == ["merged"]
    assert frame["admission"]["waiting"] == 0 and frame["run"]["tip"]


def test_live_view_follows_merges_takes_no_lease_and_exits_0_on_ctrl_c(tmp_path):
    assert shutil.which("script"), "util-linux `script` provides the pseudo-terminal"
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        late = Path(coord.start_task("r1", "late", ["b/**"]).worktree)
        errors = tmp_path / "watch.stderr"
        # `exec`: the view itself is the pseudo-terminal's foreground process (no shell between it and the
        # Ctrl-C); its stderr goes to a file, so a message it prints on the way out is read whole even
        # when `script` drops the pseudo-terminal's last bytes.
        line = f"exec {sys.executable} -m worktree_coord watch --run r1 --interval 0.2 --repo {repo} 2>{errors}"
        view = subprocess.Popen(["script", "-qec", line, "/dev/null"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=dict(os.environ, TERM="xterm", COLUMNS="100"))
        chunks: list[bytes] = []
        reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: view.stdout.read1(4096), b"")),
                                  daemon=True)
        reader.start()

        def drawn(word: str) -> bool:   # wait for the view to draw `word` (its start-up is slow on a loaded machine)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and word not in b"".join(chunks).decode("utf-8", "replace"):
                time.sleep(0.1)
            return word in b"".join(chunks).decode("utf-8", "replace")

        try:
            assert drawn("started"), b"".join(chunks)[-2000:]            # the first frame, before the merge
            assert coord.store.list_leases() == [] and coord.store.queue_entries() == []
            write(late, {"b/y.txt": "2\n"})
            assert coord.finish_task("r1", "late").state == "merged"   # not held up by the view
            assert drawn("latest merges"), b"".join(chunks)[-2000:]
            view.stdin.write(b"\x03")                                  # Ctrl-C, typed
            view.stdin.flush()
            view.wait(timeout=60)
            reader.join(timeout=30)
            err = view.stderr.read() + errors.read_bytes()
        finally:
            if view.poll() is None:
                view.kill()
    text = b"".join(chunks).decode("utf-8", "replace")
    assert view.returncode == 0, (text[-2000:], err)
    assert "late" in text and "started" in text          # the first frame
    assert "latest merges" in text                        # a later frame: the merge landed while watching
    assert "Traceback" not in text and "interrupted" not in text
    assert b"Traceback" not in err and b"interrupted" not in err, err
