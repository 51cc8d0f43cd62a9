"""The suite keeps its user state (the machine's port registry, kept profile facts) out of the
developer's own state folder (tests/conftest.py, `_user_state_of_the_session`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import USER_STATE_VARIABLE, make_repo

RESOLVE = "from worktree_coord.config import user_state_dir; print(user_state_dir())"


def _users_own() -> Path:
    """The state folder the developer's own `wtc` uses (as resolved before the session chose its own)."""
    chosen = os.environ.get(USER_STATE_VARIABLE)
    return Path(chosen) if chosen else Path.home() / ".local" / "state" / "worktree-coord"


def _without_wtc_variables() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("WTC_")}


def test_a_tool_started_without_the_wtc_variables_keeps_its_state_in_the_session_s_folder(tmp_path: Path) -> None:
    users = _users_own().resolve()
    assert Path(os.environ["WTC_STATE_DIR"]).resolve() != users     # the test's own folder
    resolved = subprocess.run([sys.executable, "-c", RESOLVE], env=_without_wtc_variables(),
                              capture_output=True, text=True, check=True).stdout.strip()
    assert Path(resolved).resolve() != users, f"a child without WTC_STATE_DIR keeps its state in the user's {users}"

    # The real CLI, as tests/serve/test_fast_path_fuzz.py runs it: its task's ports are leased there.
    repo = make_repo(tmp_path / "repo")
    for args in (["run", "start", "--run", "r1"], ["task", "start", "t1", "--run", "r1", "--own", "packages/api/**"]):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo, check=True,
                       env=dict(_without_wtc_variables(), WTC_NO_SERVE="1"), capture_output=True)
    from worktree_coord.store.port_registry import recorded_leases

    leases = recorded_leases(Path(resolved))
    assert [lease.task for lease in leases if lease.store.startswith(str(repo))] == ["t1"]
