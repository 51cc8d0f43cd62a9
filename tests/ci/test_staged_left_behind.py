"""The pre-commit hook (`wtc check --staged`, .pre-commit-hooks.yaml) looks for uses left behind, as
`wtc check` does: a commit removing a function that files it does not change still use is refused
(`left_behind`, exit 1, the same wording), a warning under `left-behind = "warn"`, not looked for
under "off". Before, the staged check looked at the boundary only, and such a commit passed it."""

from __future__ import annotations

import shlex
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.ci.test_examples import ROOT, env_with_wtc
from tests.conftest import git, make_repo, write

UTILS = ("def unique_list(items):\n    return list(dict.fromkeys(items))\n\n\n"
         "def flatten(rows):\n    return [x for row in rows for x in row]\n")
USES = "from pkg.utils import unique_list\n\n\ndef test_unique_list():\n    assert unique_list([1, 1]) == [1]\n"
WITHOUT = "def flatten(rows):\n    return [x for row in rows for x in row]\n"


def _repo_with_hook(tmp_path: Path, config: str = "") -> Path:
    """A repository whose .git/hooks/pre-commit runs the wtc-boundary hook's entry (as pre-commit would)."""
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "tests/test_utils.py": USES}
    if config:
        files["pyproject.toml"] = f"[tool.worktree-coord]\n{config}\n"
    repo = make_repo(tmp_path / "repo", files)
    [hook] = [h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "wtc-boundary"]
    script = repo / ".git" / "hooks" / "pre-commit"
    script.write_text("#!/bin/sh\nexec " + hook["entry"] + " " + shlex.join(["--own", "pkg/**"]) + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return repo


def _commit(repo: Path) -> subprocess.CompletedProcess:
    git(repo, "add", "-A")
    return subprocess.run(["git", "commit", "-qm", "drop unique_list"], cwd=repo, env=env_with_wtc(),
                          capture_output=True, text=True, timeout=120)


def test_a_commit_removing_a_function_other_files_use_is_refused(tmp_path: Path) -> None:
    repo = _repo_with_hook(tmp_path)
    head = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"pkg/utils.py": WITHOUT})
    refused = _commit(repo)
    assert refused.returncode != 0, refused.stdout + refused.stderr
    said = refused.stdout + refused.stderr   # git hands a hook's output to stderr
    assert ("tests/test_utils.py:1: error: left_behind: tests/test_utils.py (lines 1, 5) still uses unique_list, "
            "which the branch removed or renamed in pkg/utils.py") in said, said
    assert git(repo, "rev-parse", "HEAD").strip() == head   # nothing committed
    # The use updated in the same commit: nothing left behind, the commit goes through.
    write(repo, {"tests/test_utils.py": "def test_nothing():\n    assert True\n"})
    git(repo, "add", "-A")
    fixed = subprocess.run([*shlex.split("wtc check --staged"), "--own", "**"], cwd=repo, env=env_with_wtc(),
                           capture_output=True, text=True, timeout=120)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


def test_a_commit_adding_code_only_passes(tmp_path: Path) -> None:
    repo = _repo_with_hook(tmp_path)
    write(repo, {"pkg/utils.py": UTILS + "\n\ndef first(items):\n    return items[0]\n"})
    done = _commit(repo)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("mode,passes,word", [("warn", True, "warning: left_behind_warning"), ("off", True, None)])
def test_the_configurations_left_behind_mode_decides(tmp_path: Path, mode: str, passes: bool, word: str | None) -> None:
    repo = _repo_with_hook(tmp_path, f'left-behind = "{mode}"')
    write(repo, {"pkg/utils.py": WITHOUT})
    done = _commit(repo)
    assert (done.returncode == 0) is passes, done.stdout + done.stderr
    said = done.stdout + done.stderr
    if word:
        assert word in said and "still uses unique_list" in said, said
    else:
        assert "unique_list" not in said, said


def test_a_commit_deleting_a_module_another_file_imports_by_path_is_refused(tmp_path: Path) -> None:
    """`import pkg.extra` binds no name of pkg/extra.py: the staged check names it as a module left behind."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/extra.py": "READY = True\n",
                                         "tests/test_extra.py": "import pkg.extra  # noqa: F401\n"})
    git(repo, "rm", "-q", "pkg/extra.py")
    done = subprocess.run([*shlex.split("wtc check --staged"), "--own", "pkg/**"], cwd=repo, env=env_with_wtc(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("tests/test_extra.py:1: error: left_behind: tests/test_extra.py (line 1) still uses pkg.extra, which the "
            "branch deleted (the file pkg/extra.py)") in done.stdout, done.stdout
