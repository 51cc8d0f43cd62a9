"""Which yarn relocked, against the one the root pins (`packageManager`): the Yarn adapter picks no
version (the `yarn` on PATH runs: corepack's shim runs the pinned one, a global yarn its own), so a
relock by any other version, a same-major one included, says so in its warnings, as pnpm's relock
does of a pnpm other than the pinned version. Runs without yarn: the decision itself, and the
adapter reading the version of the `yarn` PATH gives (a stand-in that only answers `--version`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from worktree_coord.consolidate.adapters import YarnAdapter
from worktree_coord.consolidate.adapters.yarn import pinned_version_warning


def test_a_same_major_yarn_is_not_the_pinned_one():
    assert pinned_version_warning("package.json", "4.5.0", "4.5.0") is None
    assert pinned_version_warning("package.json", None, "4.9.2") is None            # nothing pinned
    assert pinned_version_warning("package.json", "4.5.0", "") is None               # the version did not read
    for used in ("4.9.2", "4.5.1", "1.22.22"):
        warning = pinned_version_warning("web/package.json", "4.5.0", used)
        assert warning is not None and f"relocked with yarn {used}" in warning, used
        assert "web/package.json pins yarn@4.5.0" in warning and "corepack enable yarn" in warning


def _yarn_on_path(tmp_path: Path, version: str) -> dict[str, str]:
    folder = tmp_path / f"yarn-{version}"
    folder.mkdir()
    stand_in = folder / "yarn"
    stand_in.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo {version} && exit 0\nexit 1\n')
    stand_in.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_the_adapter_warns_when_paths_yarn_is_not_the_pinned_version(tmp_path):
    workdir = tmp_path / "repo"
    (workdir / "web").mkdir(parents=True)
    (workdir / "web/package.json").write_text(json.dumps({"name": "web", "packageManager": "yarn@4.5.0+sha224.abc"}))
    same_major = YarnAdapter(workdir, "web", env=_yarn_on_path(tmp_path, "4.9.2"))
    [warning] = same_major.relock_warnings()
    assert "relocked with yarn 4.9.2, but web/package.json pins yarn@4.5.0" in warning, warning
    assert YarnAdapter(workdir, "web", env=_yarn_on_path(tmp_path, "4.5.0")).relock_warnings() == []
    (workdir / "web/package.json").write_text(json.dumps({"name": "web"}))
    assert YarnAdapter(workdir, "web", env=_yarn_on_path(tmp_path, "9.9.9")).relock_warnings() == []
