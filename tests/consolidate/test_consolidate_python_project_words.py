"""A pyproject.toml root is consolidated as uv's ecosystem (its `--json` and intents say `uv`), but
the words name what the project uses: a setuptools or flit project's consolidation says setuptools or
flit (the text, the commit's subject, its warning, `wtc report`'s origins), never "uv root" and
"commit a uv.lock" alone; a uv project's words are uv's as before. Real repositories, the real `wtc`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc

PYPROJECT = """{system}[project]
name = "pkg"
version = "0.1.0"
dependencies = ["requests>=2"]
{extra}"""
SETUPTOOLS = '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
FLIT = '[build-system]\nrequires = ["flit_core>=3.4"]\nbuild-backend = "flit_core.buildapi"\n\n'


def _text(cwd: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=cwd, env=dict(os.environ),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done
    return done.stdout


@pytest.mark.parametrize("system, extra, word", [
    (SETUPTOOLS, "", "setuptools"),
    (FLIT, "", "flit"),
    ("", "\n[tool.uv]\ndev-dependencies = []\n", "uv"),
], ids=["setuptools", "flit", "uv"])
def test_consolidation_names_what_the_project_uses(tmp_path: Path, system: str, extra: str, word: str) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT.format(system=system, extra=extra),
                                         "src/pkg/__init__.py": "x = 1\n"})
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc(repo, "task", "start", "dep", "--run", "r")
    assert code == 0, body
    manifest = Path(body["worktree"]) / "pyproject.toml"
    manifest.write_text(manifest.read_text().replace('["requests>=2"]', '["requests>=2", "attrs>=23"]'))
    code, body = wtc(repo, "task", "finish", "dep", "--run", "r")
    assert (code, body["state"]) == (0, "merged"), body

    text = _text(repo, "consolidate", "--run", "r")
    root_line = next(line for line in text.splitlines() if line.split()[1:3] == [".", "applied"])
    assert root_line.split()[0] == word, text
    warning = next(line for line in text.splitlines() if "warning:" in line)
    subject = git(repo, "log", "-1", "--format=%s", "wtc/r/integration")
    assert subject == f"wtc: consolidate {word} root '.' for run r"
    if word == "uv":
        assert "has no uv.lock" in warning and "commit a uv.lock" in warning, warning
    else:
        assert f"is a {word} project that commits no lockfile" in warning, warning
        assert "uv root" not in text and "has no uv.lock" not in text, text

    report = wtc(repo, "report", "--run", "r")[1]
    origins = next(f["origins"] for f in report["files"] if f["path"] == "pyproject.toml")
    consolidation = next(o for o in origins if o["kind"] == "consolidation")
    assert consolidation["ecosystem"] == "uv", "the ecosystem in --json is uv's, whatever the project uses"
    assert consolidation.get("tool") == (None if word == "uv" else word)
    assert f"consolidation {word} root ." in _text(repo, "report", "--run", "r")
    # The consolidation's own row and its warning name the same tool (the warning said "uv" for any).
    [row] = report["consolidation"]
    assert row.get("tool") == (None if word == "uv" else word), row
    assert any(w.startswith(f"consolidation of {word} root .: ") for w in report["warnings"]), report["warnings"]


def test_a_finish_says_no_relock_of_a_setuptools_project_beside_another_tools_lockfile(tmp_path: Path) -> None:
    """An owned pyproject.toml of a setuptools service beside its UI's package-lock.json: the finish
    asked for the relock of its root (its line named it "uv root", then "setuptools root"), and
    consolidation would have run `uv lock` for a project that locks nothing. The package-lock.json is
    npm's, not the pyproject's: no relock is asked (the JSON face: tests/consolidation/
    test_finish_names_reserved_intents.py), and the text says none."""
    api = SETUPTOOLS + '[project]\nname = "api"\nversion = "0.1.0"\ndependencies = []\n'
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "services/api/pyproject.toml": api,
                                         "services/api/package.json": '{"name": "api-ui", "version": "1.0.0"}\n',
                                         "services/api/package-lock.json": '{"name": "api-ui", "lockfileVersion": 3}\n'})
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc(repo, "task", "start", "text", "--run", "r", "--own", "services/api/**")
    assert code == 0, body
    (Path(body["worktree"]) / "services/api/pyproject.toml").write_text(api.replace("[]", '["text-dep>=1"]'))
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "text", "--run", "r"], cwd=repo,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done
    assert not [line for line in done.stdout.splitlines() if "relock" in line], done.stdout


API = SETUPTOOLS + '[project]\nname = "api"\nversion = "0.1.0"\ndependencies = []\n'
UI = {"services/api/package.json": '{"name": "api-ui", "version": "1.0.0"}\n',
      "services/api/package-lock.json": '{"name": "api-ui", "lockfileVersion": 3}\n'}


@pytest.mark.parametrize("locked", [False, True], ids=["setuptools-beside-npm-lock", "uv-locked-beside-npm-lock"])
def test_an_owned_pyproject_asks_a_relock_only_of_a_lockfile_of_its_own_tool(tmp_path: Path, locked: bool) -> None:
    """An owned pyproject.toml of a setuptools service beside its UI's package-lock.json: no lockfile
    of a Python tool covers it, so its change asks for no relock (it asked one, and consolidation's
    relock of that root would write the setuptools project a uv.lock: user-drive12). The same service
    with a uv.lock asks the relock of its root, named uv (its text and `tool` in its JSON)."""
    files = {"README.md": "# r\n", "services/api/pyproject.toml": API, **UI}
    if locked:
        files["services/api/uv.lock"] = 'version = 1\n'
    repo = make_repo(tmp_path / "repo", files)
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc(repo, "task", "start", "dep", "--run", "r", "--own", "services/api/**")
    assert code == 0, body
    (Path(body["worktree"]) / "services/api/pyproject.toml").write_text(API.replace("[]", '["json-dep>=1"]'))
    code, body = wtc(repo, "task", "finish", "dep", "--run", "r")
    assert (code, body["state"]) == (0, "merged"), body
    assert [(i["op"], i["root"], i.get("tool")) for i in body["intents"]] == \
        ([("relock", "services/api", "uv")] if locked else []), body
