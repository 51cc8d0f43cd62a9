"""A finish says what each reserved file's edit became, so an agent can see that nothing it wrote
was dropped (pydantic/pydantic-ai, driven as a user: a `[tool.uv.sources]` line the root edit held
was carried by no intent and vanished at consolidation, while the finish said only "kept aside")."""

from __future__ import annotations

import json
import os
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


def test_a_workspace_members_relock_is_named_by_the_workspace_root_everywhere(tmp_path: Path) -> None:
    """Found driving wtc on pydantic: pydantic-core, a member of the root's uv workspace, holds a uv.lock
    of its own; a dependency added to its pyproject.toml was announced by the finish as `relock uv
    root pydantic-core` while consolidation relocked (rightly) the workspace at the root. Every face
    names the root that is actually relocked: the finish's text and JSON, `intent list`, the
    consolidation's result and the report (real uv, offline from a wheel folder)."""
    from tests.lead.helpers import tool_env, wheel
    from worktree_coord.consolidate.adapters.base import find_tool

    env = tool_env(tmp_path)
    wheel(tmp_path / "wheels", "lib_b", "1.0.0")
    root = ('[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = ["core"]\n\n'
            '[tool.uv.sources]\ncore = { workspace = true }\n\n[tool.uv.workspace]\nmembers = ["packages/*"]\n')
    core = '[project]\nname = "core"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n'
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": root, "packages/core/pyproject.toml": core,
                                         "packages/core/core.py": "X = 1\n"})
    full = dict(os.environ, **env)
    subprocess.run([find_tool("uv"), "lock", "--offline", "-q"], cwd=repo, env=full, check=True, capture_output=True)
    (repo / "packages/core/uv.lock").write_bytes((repo / "uv.lock").read_bytes())   # a lockfile of its own
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "locks"], cwd=repo, check=True)

    cli(repo, "run", "start", "--run", "r", expect=0)
    _, started = cli(repo, "task", "start", "dep", "--run", "r", "--own", "packages/core/**", expect=0)
    write(Path(started["worktree"]), {"packages/core/pyproject.toml": core.replace("[]", '["lib-b>=1"]')})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "dep", "--run", "r"], cwd=repo,
                          capture_output=True, text=True, env=full)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines() if "relock" in line] == \
        ["  relock    uv root . (packages/core/pyproject.toml changed)"], done.stdout
    _, listed = cli(repo, "intent", "list", "--run", "r", expect=0)
    assert [(i["data"]["op"], i["data"]["root"], i["data"]["manifest"]) for i in listed["intents"]] == \
        [("relock", "", "packages/core/pyproject.toml")], listed
    _, pending = cli(repo, "report", "--run", "r", expect=0)
    assert [i["intent"] for i in pending["intents_pending"]] == ["dep:.:relock:uv"], pending["intents_pending"]
    _, consolidated = cli(repo, "consolidate", "--run", "r", env=env, expect=0)
    assert [(r["ecosystem"], r["root"], r["state"]) for r in consolidated["roots"]] == [("uv", "", "applied")], \
        consolidated
    _, report = cli(repo, "report", "--run", "r", expect=0)
    # The relock was the task's: the report names it (not only "consolidation uv root .").
    assert [f["origin"] for f in report["files"] if f["path"] == "uv.lock"] == ["consolidation uv root . for task dep"], \
        report
    integration = subprocess.run(["git", "show", "wtc/r/integration:uv.lock"], cwd=repo, capture_output=True,
                                 text=True, check=True).stdout
    assert 'name = "lib-b"' in integration


def test_an_owned_setuptools_manifest_beside_another_tools_lockfile_asks_for_no_relock(tmp_path: Path) -> None:
    """Found driving wtc on dask: a setuptools pyproject.toml asked its root for a relock because a
    lockfile of another tool stood beside it, and consolidation then ran `uv lock`, which writes a
    uv.lock the project never had. Only the manifest's own tool's lockfile asks for a relock: the
    package.json beside it still does."""
    from tests.conftest import wtc_in_process

    api = ('[build-system]\nrequires = ["setuptools>=80"]\nbuild-backend = "setuptools.build_meta"\n\n'
           '[project]\nname = "api"\nversion = "0.1.0"\ndependencies = []\n')
    npm = '{\n  "name": "api-docs",\n  "version": "1.0.0"\n}\n'
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "services/api/pyproject.toml": api,
                                         "services/api/package.json": npm,
                                         "services/api/package-lock.json": '{"lockfileVersion": 3}\n'})
    wtc_in_process(repo, "run", "start", "--run", "r")
    code, started = wtc_in_process(repo, "task", "start", "dep", "--run", "r", "--own", "services/api/**")
    assert code == 0, started
    write(Path(started["worktree"]), {"services/api/pyproject.toml": api.replace("[]", '["tomli>=2"]')})
    code, done = wtc_in_process(repo, "task", "finish", "dep", "--run", "r")
    assert code == 0, done
    assert done["intents"] == []
    code, started = wtc_in_process(repo, "task", "start", "docs", "--run", "r", "--own", "services/api/**")
    write(Path(started["worktree"]), {"services/api/package.json": npm.replace(
        '"1.0.0"', '"1.0.0",\n  "devDependencies": {\n    "vitepress": "^1"\n  }')})
    code, done = wtc_in_process(repo, "task", "finish", "docs", "--run", "r")
    assert [(i["op"], i["ecosystem"], i["root"]) for i in done["intents"]] == [("relock", "npm", "services/api")]
