"""Real repositories for the `wtc check` tests: a main branch and a feature branch that breaks
things on purpose, plus the real command line with any --format."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

SCHEMAS = Path(__file__).resolve().parents[2] / "fixtures" / "schemas"

BASE_FILES: dict[str, str | bytes] = {
    "package.json": '{\n  "name": "root",\n  "private": true\n}\n',
    "packages/api/src/index.py": "def health():\n    return 'ok'\n\n\ndef version():\n    return 1\n",
    "packages/web/app.ts": "export const title = 'web';\nexport const items = [];\nexport const footer = '';\n",
    "docs/guide.md": "# guide\n\nintro\n",
}


@dataclass(frozen=True)
class Scenario:
    repo: Path
    base: str
    main_tip: str
    head: str


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def clean_branch(tmp_path: Path) -> Scenario:
    """feature owns packages/api and changes only it; main moved elsewhere meanwhile."""
    repo = make_repo(tmp_path / "repo", dict(BASE_FILES))
    base = git(repo, "rev-parse", "HEAD")
    write(repo, {"docs/guide.md": "# guide\n\nintro, longer\n"})
    main_tip = commit_all(repo, "main: docs")
    git(repo, "checkout", "-q", "-b", "feature", base)
    write(repo, {"packages/api/src/index.py": "def health():\n    return 'ok'\n\n\ndef version():\n    return 2\n"})
    head = commit_all(repo, "feature: api version 2")
    return Scenario(repo, base, main_tip, head)


def messy_branch(tmp_path: Path) -> Scenario:
    """feature owns packages/api, but also edits web (outside), the root package.json (reserved),
    and the same line of index.py that main changed (conflict)."""
    repo = make_repo(tmp_path / "repo", dict(BASE_FILES))
    base = git(repo, "rev-parse", "HEAD")
    write(repo, {"packages/api/src/index.py": "def health():\n    return 'fine'\n\n\ndef version():\n    return 1\n",
                 "package.json": '{\n  "name": "root",\n  "private": true,\n  "license": "MIT"\n}\n'})
    main_tip = commit_all(repo, "main: health says fine")
    git(repo, "checkout", "-q", "-b", "feature", base)
    write(repo, {
        "packages/api/src/index.py": "def health():\n    return 'great'\n\n\ndef version():\n    return 1\n",
        "packages/web/app.ts": "export const title = 'web';\nexport const items = [1, 2];\nexport const footer = '';\n",
        "package.json": '{\n  "name": "root",\n  "private": true,\n  "dependencies": {"left-pad": "1.3.0"}\n}\n',
    })
    head = commit_all(repo, "feature: many things")
    return Scenario(repo, base, main_tip, head)


def run_wtc(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real `wtc` (python -m worktree_coord) with exactly these arguments."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120)


def repo_state(repo: Path) -> tuple[str, str, str, str]:
    """Everything a read-only check must leave alone: refs, index, worktrees, working tree status."""
    return (git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
            git(repo, "ls-files", "-s"),
            git(repo, "worktree", "list", "--porcelain"),
            git(repo, "status", "--porcelain", "--untracked-files=all"))


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


def wtc_main(repo: Path, *args: str) -> Done:
    """The real command line (`worktree_coord.cli.main`) in this process, on `repo`: the same code
    path as the `wtc` script, minus a Python start-up per call (the formats tests run it often)."""
    import contextlib
    import io

    from worktree_coord.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--repo", str(repo)])
    return Done(code, out.getvalue(), err.getvalue())


def feature_branch(tmp_path: Path, files: dict[str, str], changed: dict[str, str], deleted: tuple[str, ...] = ()) -> Path:
    """A repository whose main holds `files`; the branch `feature` writes `changed` and deletes `deleted`."""
    repo = make_repo(tmp_path / "repo", files)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, changed)
    for path in deleted:
        (repo / path).unlink()
    commit_all(repo, "feature")
    return repo


def left_behind_uses(repo: Path) -> tuple[int, list[tuple[str, list[int], str, str]]]:
    """`wtc check --own '**'` of `feature` onto main: its exit code and each use left behind as
    (use path, lines, name, definition path), sorted."""
    code, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    return code, sorted((u["use_path"], u["use_lines"], u["name"], u["definition_path"]) for u in body["left_behind"])



def rename_through_the_faces(tmp_path: Path, files: dict[str, str], owner: str, renamed: dict[str, str],
                             dropped: dict[str, str], user: str, added: dict[str, str], name: str, use_path: str) -> None:
    """The lead's faces over a language's rename left behind: `task check` of a task owning `owner`
    that writes `renamed` (a name still used in `use_path`) says it would be refused and its finish
    does not merge; a task writing `dropped` (a name nobody uses renamed) merges, and a task owning
    `user` that writes `added` (a new use of that old name) is a semantic conflict naming `name` at
    its finish, and at `wtc merge` (the queue after `finish --no-merge`)."""
    repo = make_repo(tmp_path / "repo", dict(files))
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "rename", "--run", "r", "--own", owner)
    assert code == 0, started
    write(Path(started["worktree"]), renamed)
    code, checked = wtc_in_process(repo, "task", "check", "rename", "--run", "r")
    assert code == 1 and checked["left_behind_blocks"], checked
    assert [u["use_path"] for u in checked["left_behind"] if "use_path" in u] == [use_path], checked
    code, finished = wtc_in_process(repo, "task", "finish", "rename", "--run", "r")
    assert code == 1 and finished["state"] != "merged", finished
    for queued in (False, True):
        if queued:
            repo = make_repo(tmp_path / "queue", dict(files))
            assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
        code, drop = wtc_in_process(repo, "task", "start", "drop", "--run", "r", "--own", owner)
        write(Path(drop["worktree"]), dropped)
        code, using = wtc_in_process(repo, "task", "start", "user", "--run", "r", "--own", user)
        write(Path(using["worktree"]), added)
        if not queued:
            code, finished = wtc_in_process(repo, "task", "finish", "drop", "--run", "r")
            assert code == 0 and finished["state"] == "merged", finished
            code, finished = wtc_in_process(repo, "task", "finish", "user", "--run", "r")
            assert code == 1 and finished["state"] == "conflict", finished
            conflicts = finished["conflicts"]
        else:
            for task in ("drop", "user"):
                code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r", "--no-merge")
                assert code == 0, finished
            code, merged = wtc_in_process(repo, "merge", "--run", "r")
            assert code == 1, merged
            conflicts = [c for task in merged["tasks"] for c in task.get("conflicts", [])] if "tasks" in merged \
                else merged["conflicts"]
        [conflict] = conflicts
        assert conflict["semantic"]["name"] == name and conflict["semantic"]["use_path"] == use_path, conflict
