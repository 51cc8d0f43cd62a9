"""Every face of the check reads the rules from the target tip's committed configuration: `wtc check`
always did (check/pipeline.py); the Python API (`Coordinator.check`) and the MCP `check` tool read
the main checkout's working files, so a dirty checkout, or the branch under review checked out,
relaxed what the target's committed configuration says (left-behind mode, reserved files)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.conftest import git, make_repo, write
from worktree_coord import Coordinator

STRICT = '[tool.worktree-coord]\nleft-behind = "block"\n'
LAX = '[tool.worktree-coord]\nleft-behind = "off"\nreserved-remove = ["/package.json"]\n'
FILES = {"pyproject.toml": STRICT, "package.json": '{\n  "name": "app",\n  "version": "1.0.0"\n}\n',
         "util.py": "def helper(text):\n    return text.strip()\n\n\ndef keep(text):\n    return text\n",
         "use.py": "from util import helper\n\n\ndef clean(text):\n    return helper(text)\n"}


def _branch(repo: Path) -> None:
    """Branch `rm`: removes `helper` (use.py still calls it) and edits the reserved root package.json."""
    git(repo, "checkout", "-q", "-b", "rm")
    write(repo, {"util.py": "def keep(text):\n    return text\n",
                 "package.json": '{\n  "name": "app",\n  "version": "1.1.0"\n}\n'})
    git(repo, "commit", "-qam", "remove helper")
    git(repo, "checkout", "-q", "main")


@pytest.fixture(params=["dirty main checkout", "branch checked out"])
def repo(request, tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", FILES)
    _branch(repo)
    if request.param == "dirty main checkout":
        write(repo, {"pyproject.toml": LAX})          # uncommitted
    else:                                             # the branch relaxes the rules it is checked against
        git(repo, "checkout", "-q", "rm")
        write(repo, {"pyproject.toml": LAX})
        git(repo, "commit", "-qam", "relax the rules")
    return repo


def _rules(report) -> set[str]:
    return {f.rule for f in report.findings}


def test_the_api_check_reads_the_targets_committed_configuration(repo: Path) -> None:
    report = Coordinator(repo).check(head="rm", target="main", own=["util.py", "pyproject.toml"])
    assert report.left_behind_mode == "block"
    assert {"left_behind", "reserved_edit"} <= _rules(report), report.to_json()
    assert report.exit_code != 0


def test_the_mcp_check_tool_reads_the_targets_committed_configuration(repo: Path) -> None:
    from worktree_coord.mcp.calls import Served
    from worktree_coord.mcp.tools import check

    served = Served(repo=repo, limiter=anyio.CapacityLimiter(1))
    result = anyio.run(lambda: check(served, head="rm", target="main", own=["util.py", "pyproject.toml"]))
    body = result.structured_content
    assert body["left_behind_mode"] == "block", body
    assert {"left_behind", "reserved_edit"} <= {f["rule"] for f in body["findings"]}, body
    assert body["exit_code"] != 0


def test_wtc_check_agrees(repo: Path) -> None:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "worktree_coord", "check", "--head", "rm", "--target", "main",
                           "--own", "util.py", "--own", "pyproject.toml", "--json"], cwd=repo, capture_output=True,
                          text=True)
    body = json.loads(done.stdout)
    assert body["left_behind_mode"] == "block" and done.returncode == body["exit_code"] != 0, body
    assert {"left_behind", "reserved_edit"} <= {f["rule"] for f in body["findings"]}, body


# ---- the per-call overrides `wtc check --semantic/--left-behind` take, on the API and MCP faces ----------

def _user_of_removed(tmp_path: Path) -> Path:
    """`main` (committed rules: block) removed `helper` after branch `use` started, which adds new code
    calling it (a semantic finding of the dry-run merge); branch `rm`, off main, removes `keep`, which
    other.py (not changed by the branch) still calls (a use left behind)."""
    repo = make_repo(tmp_path / "repo", {**FILES, "other.py": "from util import keep\n\n\ndef same(text):\n"
                                                              "    return keep(text)\n"})
    git(repo, "checkout", "-q", "-b", "use")
    write(repo, {"more.py": "from util import helper\n\n\ndef twice(text):\n    return helper(helper(text))\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "use helper more")
    git(repo, "checkout", "-q", "main")
    write(repo, {"util.py": "def keep(text):\n    return text\n", "use.py": "def clean(text):\n    return text.strip()\n"})
    git(repo, "commit", "-qam", "main: helper goes")
    git(repo, "checkout", "-q", "-b", "rm")
    write(repo, {"util.py": "def other(text):\n    return text\n"})
    git(repo, "commit", "-qam", "remove keep")
    git(repo, "checkout", "-q", "main")
    return repo


def _api(repo: Path, **kwargs):  # type: ignore[no-untyped-def]
    return Coordinator(repo).check(**kwargs).to_json()


def _mcp(repo: Path, **kwargs):  # type: ignore[no-untyped-def]
    from worktree_coord.mcp.calls import Served
    from worktree_coord.mcp.tools import check

    served = Served(repo=repo, limiter=anyio.CapacityLimiter(1))
    return anyio.run(lambda: check(served, **kwargs)).structured_content


@pytest.mark.parametrize("face", [_api, _mcp], ids=["api", "mcp"])
def test_the_semantic_and_left_behind_overrides_mean_what_wtc_checks_do(tmp_path: Path, face) -> None:  # type: ignore[no-untyped-def]
    repo = _user_of_removed(tmp_path)
    semantic = dict(head="use", target="main", own=["more.py"])
    assert [f["rule"] for f in face(repo, **semantic)["findings"]] == ["semantic_conflict"]
    warned = face(repo, **semantic, semantic="warn")
    assert [f["rule"] for f in warned["findings"]] == ["semantic_warning"] and warned["exit_code"] == 0, warned
    assert face(repo, **semantic, semantic="off")["findings"] == []

    left = dict(head="rm", target="main", own=["util.py"])
    blocked = face(repo, **left)
    assert [f["rule"] for f in blocked["findings"]] == ["left_behind"] and blocked["left_behind_mode"] == "block"
    warned = face(repo, **left, left_behind="warn")
    assert [f["rule"] for f in warned["findings"]] == ["left_behind_warning"] and warned["exit_code"] == 0, warned
    off = face(repo, **left, left_behind="off")
    assert off["findings"] == [] and off["left_behind_mode"] == "off", off


def test_a_bad_mode_is_refused_on_the_api_naming_the_values(tmp_path: Path) -> None:
    from worktree_coord.errors import UsageError

    repo = _user_of_removed(tmp_path)
    with pytest.raises(UsageError, match="block, warn, off"):
        Coordinator(repo).check(head="rm", target="main", own=["util.py"], left_behind="loud")


def test_the_mcp_check_tool_lists_the_modes_in_its_schema() -> None:
    import asyncio

    from worktree_coord.mcp.server import build_server

    tools = {tool.name: tool for tool in asyncio.run(build_server(Path(__file__).parent).list_tools())}
    properties = tools["check"].input_schema["properties"]
    for name in ("semantic", "left_behind"):
        assert {"enum": ["block", "warn", "off"], "type": "string"} in properties[name]["anyOf"], properties[name]
