"""Helpers for the lead's-path tests: the real `wtc` as a subprocess, its contract checked on every
call (one JSON object, `schema` and `exit_code` at the top level, the exit code the process returned
and one of the documented codes), and a repository with a uv root and an npm root whose relocks run
offline from a local wheel folder and an empty npm cache."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from tests.conftest import git, write
from worktree_coord.errors import EXIT_CODES

DOCUMENTED = {row.code for row in EXIT_CODES}
TIMINGS: list[tuple[float, str]] = []   # (seconds, command) of every call, for finding slow steps


def wheel(folder: Path, name: str, version: str) -> None:
    """A minimal valid pure-Python wheel, so uv resolves `name` offline from a find-links folder."""
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": f"VERSION = {version!r}\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=').decode()},"
              f"{len(t)}" for p, t in files.items()]
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), text)


def tool_env(tmp_path: Path) -> dict[str, str]:
    """Caches in tmp, nothing from the network: uv reads wheels from `wheels/`, npm an empty cache."""
    return {"UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_FIND_LINKS": str(tmp_path / "wheels"),
            "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never",
            "npm_config_cache": str(tmp_path / "npm-cache"), "npm_config_update_notifier": "false",
            "npm_config_audit": "false", "npm_config_fund": "false", "XDG_CACHE_HOME": str(tmp_path / "xdg")}


PYPROJECT = '''[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []
'''

UTIL = '''def helper(text):
    return text.strip()


def keep(text):
    return text
'''

USE = '''from app.util import helper


def clean(text):
    return helper(text)
'''

CORE = '''def alpha():
    return 1


def beta():
    return 2


def gamma():
    return 3
'''


def lead_repo(tmp_path: Path, env: dict[str, str]) -> Path:
    """A Python root (pyproject.toml + uv.lock) and an npm root (package.json + package-lock.json)
    side by side at the top, locked offline, plus some code."""
    from worktree_coord.consolidate.adapters.base import find_tool

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, {"pyproject.toml": PYPROJECT, "app/__init__.py": "", "app/core.py": CORE,
                 "app/util.py": UTIL, "app/use.py": USE,
                 "app/v.py": "OK = True\n",
                 "package.json": json.dumps({"name": "web", "version": "1.0.0", "private": True}, indent=2) + "\n",
                 "web/index.js": "module.exports = 1;\n", "README.md": "# app\n"})
    full = dict(os.environ, **env)
    subprocess.run([find_tool("uv"), "lock", "--offline", "-q"], cwd=repo, env=full, check=True, capture_output=True)
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=repo, env=full,
                   check=True, capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "initial")
    return repo


def cli(repo: Path, *args: str, env: dict[str, str] | None = None, json_mode: bool = True,
        expect: int | None = None) -> tuple[int, dict | str]:
    """Run `wtc ARGS` in `repo`; under --json check the contract and return (exit code, the object),
    else (exit code, stdout + stderr)."""
    full = dict(os.environ, **(env or {}))
    argv = [sys.executable, "-m", "worktree_coord", *args] + (["--json"] if json_mode else [])
    started = time.monotonic()
    done = subprocess.run(argv, cwd=repo, env=full, capture_output=True, text=True, timeout=180)
    TIMINGS.append((time.monotonic() - started, " ".join(args[:3])))
    assert done.returncode in DOCUMENTED, f"wtc {' '.join(args)}: undocumented exit {done.returncode}: {done.stderr}"
    if expect is not None:
        assert done.returncode == expect, (f"wtc {' '.join(args)} exited {done.returncode}, not {expect}:\n"
                                           f"{done.stdout}\n{done.stderr}")
    if not json_mode:
        return done.returncode, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"wtc {' '.join(args)}: expected one JSON line, got {done.stdout!r} ({done.stderr!r})"
    body = json.loads(lines[0])
    assert body["schema"].startswith("wtc.") and body["schema"].endswith("/1"), body
    assert body["exit_code"] == done.returncode, (args, body)
    if body["schema"] == "wtc.error/1":
        assert body["error"]["exit_code"] == done.returncode and body["error"]["message"]
    return done.returncode, body
