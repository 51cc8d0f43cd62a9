"""`npm ci --prefix tools` installs the test tools from their lock as it is: the lock is in sync with
tools/package.json. It was not: it held pnpm's Linux glibc binaries only, and `npm ci` refuses a lock
that lacks any optional dependency of a locked package ("Missing: @pnpm/exe.darwin-arm64@ from lock
file"), so only `npm install --prefix tools`, which rewrites the lock, set a checkout up. `npm ci`
checks the lock before it fetches anything: a dry run, offline, with an empty cache, says whether
it would install, with no network."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def test_npm_ci_accepts_the_tools_lock(tmp_path: Path) -> None:
    npm = shutil.which("npm")
    assert npm is not None, "the test set-up installs the tools with npm (README)"
    for name in ("package.json", "package-lock.json"):
        shutil.copy(TOOLS / name, tmp_path / name)
    done = subprocess.run([npm, "ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund",
                           "--cache", str(tmp_path / "cache")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_optional_dependency_of_a_locked_package_is_in_the_lock() -> None:
    """What `npm ci` checks, read from the lock: each platform's binary pnpm may take has its entry
    (os and cpu, so npm skips the others' without fetching them)."""
    packages = json.loads((TOOLS / "package-lock.json").read_text())["packages"]
    for name in (name for entry in packages.values() for name in entry.get("optionalDependencies", {})):
        entry = packages.get(f"node_modules/{name}")
        assert entry is not None and entry.get("optional") and entry.get("os") and entry.get("cpu"), name
