"""`wtc status` reads the store without opening the repository through libgit2: the plain layouts are
found from a few files (gitrepo.locate), anything else falls back to the Coordinator, and both show
the same thing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo, write
from tests.core.test_git_reads_without_libgit2 import libgit2_folders
from worktree_coord.gitrepo.locate import locate_plain


def wtc(cwd: Path, *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "worktree_coord", *args], cwd=cwd, capture_output=True,
                          text=True, env=dict(os.environ, COLUMNS="200"))


def test_the_plain_layouts_are_found_where_gitrepo_finds_them(tmp_path):
    repo = make_repo(tmp_path / "main", {"pkg/a.py": "a = 1\n"})
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    for start in (repo, repo / "pkg", tmp_path / "linked", tmp_path / "linked" / "pkg"):
        # libgit2's own answer (GitRepo opens a plain layout through locate_plain now)
        found, (toplevel, common, _) = locate_plain(start), libgit2_folders(start)
        assert found is not None, start
        assert (found.toplevel, found.common_dir) == (toplevel, common), start


def test_layouts_that_are_not_plain_are_left_to_libgit2(tmp_path):
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "bare.git"))
    git(tmp_path, "init", "-q", "--separate-git-dir", str(tmp_path / "elsewhere.git"), str(tmp_path / "separate"))
    assert locate_plain(tmp_path / "bare.git") is None
    assert locate_plain(repo / ".git") is None
    assert locate_plain(tmp_path / "separate") is None
    assert locate_plain(tmp_path) is None                       # no repository at all
    git(repo, "config", "core.worktree", str(repo))
    assert locate_plain(repo) is None


def test_status_loads_no_libgit2_and_shows_what_the_coordinator_shows(tmp_path):
    repo = make_repo(tmp_path / "main", {"pkg/a.py": "a = 1\n"})
    assert wtc(repo, "run", "start", "--run", "r").returncode == 0
    started = json.loads(wtc(repo, "task", "start", "t", "--run", "r", "--own", "pkg/**", "--json").stdout)
    write(Path(started["worktree"]), {"pkg/a.py": "a = 2\n"})
    assert wtc(repo, "task", "finish", "t", "--run", "r").returncode == 0
    fast = wtc(repo, "status", "--run", "r", "--json", importtime=True)
    assert fast.returncode == 0, fast.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in fast.stderr.splitlines() if line.startswith("import time:")}
    assert "pygit2" not in loaded and "worktree_coord.integrate" not in loaded and "libcst" not in loaded
    assert "pydantic" not in loaded, "the command line itself must not load pydantic (typer 0.29 does)"
    assert "worktree_coord.coordinator.status_view" in loaded, "the reader is broken, not the command light"
    from worktree_coord.coordinator import Coordinator

    with Coordinator(repo) as coordinator:
        full = coordinator.status("r").to_json()
    shown = json.loads(fast.stdout)
    for row in (*shown["tasks"], *full["tasks"]):
        row.pop("age_seconds")
        row.pop("state_seconds")
    assert {k: shown[k] for k in ("runs", "tasks", "counts", "intents")} == \
        {k: full[k] for k in ("runs", "tasks", "counts", "intents")}
    assert shown["tasks"][0]["state"] == "merged"


def test_status_of_a_missing_run_a_fresh_repository_and_a_bare_one(tmp_path):
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    fresh = wtc(repo, "status")
    assert fresh.returncode == 0 and "no runs yet" in fresh.stdout
    assert not (repo / ".git" / "wtc" / "state.sqlite3").exists(), "a read created the store"
    missing = wtc(repo, "status", "--run", "nope")
    assert missing.returncode == 5 and "no run 'nope'" in missing.stderr and "wtc run start --run nope" in missing.stderr
    bad = wtc(repo, "status", "--run", "-x")
    assert bad.returncode == 2
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "bare.git"))
    bare = wtc(tmp_path / "bare.git", "status", "--json")
    assert bare.returncode == 0 and json.loads(bare.stdout)["runs"] == []
    outside = wtc(tmp_path, "status")
    assert outside.returncode == 5 and "not inside a git repository" in outside.stderr


def test_status_shows_ports_only_for_tasks_that_still_hold_them(tmp_path):
    repo = make_repo(tmp_path / "main", {"pkg/a.py": "a = 1\n", "lib/b.py": "b = 1\n"})
    assert wtc(repo, "run", "start", "--run", "r").returncode == 0
    done = json.loads(wtc(repo, "task", "start", "done", "--run", "r", "--own", "pkg/**", "--json").stdout)
    assert wtc(repo, "task", "start", "live", "--run", "r", "--own", "lib/**").returncode == 0
    write(Path(done["worktree"]), {"pkg/a.py": "a = 2\n"})
    assert wtc(repo, "task", "finish", "done", "--run", "r").returncode == 0
    text = wtc(repo, "status", "--run", "r").stdout
    rows = text.splitlines()
    live_at = next(i for i, line in enumerate(rows) if line.split()[:2] == ["live", "started"])
    assert rows[live_at + 1].strip().startswith("ports ")
    assert sum(line.strip().startswith("ports ") for line in rows) == 1, text
    shown = json.loads(wtc(repo, "status", "--run", "r", "--json").stdout)
    assert all("ports" in t for t in shown["tasks"])      # the JSON keeps them for both
