"""A new extra lands where its task wrote it among the others: httpx, driven as a user, a task wrote
`trio = [` between `socks` and `zstd` in [project.optional-dependencies] and consolidation appended
it after `zstd` (the landed file was not the task's). Real repository, `wtc task finish` and
`wtc consolidate`; a hatch project commits no lockfile, so nothing is relocked (offline)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

HATCH = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "httpx-like"
version = "1.0"
dependencies = [
  "idna",
]

[project.optional-dependencies]
socks = [
  "socksio==1.*",
]
zstd = [
  "zstandard>=0.18.0",
]

[project.scripts]
httpx = "httpx:main"
"""


def test_a_new_extra_lands_between_the_extras_it_was_written_between(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": HATCH, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    written = HATCH.replace("zstd = [\n", 'trio = [\n  "trio>=0.22",\n]\nzstd = [\n')
    code, started = wtc_in_process(repo, "task", "start", "trio", "--run", "r", "--own", "src/**")
    write(Path(started["worktree"]), {"pyproject.toml": written})
    code, done = wtc_in_process(repo, "task", "finish", "trio", "--run", "r")
    assert code == 0 and done["state"] == "merged", done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert git(repo, "show", "wtc/r/integration:pyproject.toml") + "\n" == written
