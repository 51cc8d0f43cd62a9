"""A finish says what each reserved file's edit became, so an agent can see that nothing it wrote
was dropped (pydantic/pydantic-ai, driven as a user: a `[tool.uv.sources]` line the root edit held
was carried by no intent and vanished at consolidation, while the finish said only "kept aside")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, write
from tests.lead.helpers import cli

ROOT = ('[project]\nname = "app"\nversion = "0.1.0"\ndependencies = ["lib-a"]\n\n[dependency-groups]\n'
        'dev = [\n    "pytest>=8",\n]\n\n[tool.uv.sources]\nlib-a = { workspace = true }\n\n'
        '[tool.uv.workspace]\nmembers = ["lib-a"]\n')


def test_the_finish_lists_the_intents_of_each_reserved_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": ROOT, "uv.lock": "version = 1\n",
                                         "lib-a/pyproject.toml": '[project]\nname = "lib-a"\nversion = "0.1.0"\n',
                                         "lib-b/pyproject.toml": '[project]\nname = "lib-b"\nversion = "0.1.0"\n'})
    cli(repo, "run", "start", "--run", "r", expect=0)
    _, started = cli(repo, "task", "start", "b", "--run", "r", "--own", "lib-b/**", expect=0)
    write(Path(started["worktree"]), {"pyproject.toml": ROOT.replace(
        'members = ["lib-a"]', 'members = ["lib-a", "lib-b"]').replace(
        "lib-a = { workspace = true }\n", "lib-a = { workspace = true }\nlib-b = { workspace = true }\n").replace(
        '    "pytest>=8",\n', '    "pytest>=8",\n    "pytest-timeout",\n'),
        "lib-b/src/lib_b/__init__.py": ""})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "b", "--run", "r"], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ("  reserved  pyproject.toml (modified): kept aside for consolidation as add_dep pytest-timeout, "
            "add_member lib-b, set_key tool.uv.sources.lib-b") in done.stdout.splitlines(), done.stdout


def test_an_owned_manifest_beside_its_own_lockfile_asks_for_its_relock(tmp_path: Path) -> None:
    """Found driving wtc on pydantic: pydantic-core/pyproject.toml (not reserved: only the root's is)
    stands beside pydantic-core/uv.lock; a task added a dependency to it, the finish asked for no
    relock and consolidation had nothing to do, so the landed lock was stale (`uv lock --check`)."""
    api = '[project]\nname = "api"\nversion = "0.1.0"\ndependencies = []\n'
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "services/api/pyproject.toml": api,
                                         "services/api/uv.lock": "version = 1\n"})
    cli(repo, "run", "start", "--run", "r", expect=0)
    _, started = cli(repo, "task", "start", "dep", "--run", "r", "--own", "services/api/**", expect=0)
    write(Path(started["worktree"]), {"services/api/pyproject.toml": api.replace("[]", '["lib-b>=1"]')})
    _, done = cli(repo, "task", "finish", "dep", "--run", "r", expect=0)
    assert [(i["op"], i["root"], i["manifest"]) for i in done["intents"]] == \
        [("relock", "services/api", "services/api/pyproject.toml")], done["intents"]
