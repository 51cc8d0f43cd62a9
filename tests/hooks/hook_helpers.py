"""Driving wtc's Claude Code hooks exactly as the harness does: one process per call, the JSON
payload on stdin, the working directory and CLAUDE_PROJECT_DIR set as Claude Code sets them, and
the create hook's stdout read by its last non-empty line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WTC = [sys.executable, "-m", "worktree_coord"]


@dataclass
class Hooked:
    returncode: int
    stdout: str
    stderr: str

    @property
    def path(self) -> Path:
        """What Claude Code takes as the worktree: the last non-empty line of stdout."""
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert lines, f"no path on stdout (exit {self.returncode}, stderr {self.stderr!r})"
        return Path(lines[-1])


def hook_env(project: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "WTC_RUN"}
    env["CLAUDE_PROJECT_DIR"] = str(project)
    env.update(extra or {})
    return env


def create_payload(shape: str, name: str, *, session: str, cwd: Path, source_ref: str | None = None) -> dict[str, Any]:
    """The payload of one WorktreeCreate, in one of the shapes seen in the field."""
    common = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(cwd),
              "hook_event_name": "WorktreeCreate"}
    if shape == "workflow":          # the workflow runtime (2.1.165)
        payload = common | {"name": name}
    elif shape == "documented":      # the hooks reference
        payload = common | {"worktree_name": name, "base_path": str(cwd)}
    elif shape == "legacy":          # older hooks read worktree_path
        payload = common | {"worktree_path": str(cwd / ".claude" / "worktrees" / name)}
    else:
        raise ValueError(shape)
    if source_ref is not None:
        payload["source_ref"] = source_ref
    return payload


def remove_payload(worktree: Path, *, session: str) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(worktree),
            "hook_event_name": "WorktreeRemove", "worktree_path": str(worktree)}


def start_hook(event: str, payload: dict[str, Any], *, cwd: Path, project: Path,
               env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    verb = {"WorktreeCreate": "worktree-create", "WorktreeRemove": "worktree-remove"}[event]
    process = subprocess.Popen(WTC + ["hook", "claude", verb], cwd=cwd, env=hook_env(project, env),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None
    process.stdin.write(json.dumps(payload))
    process.stdin.close()   # the payload is all the harness sends
    process.stdin = None    # so communicate() only reads
    return process


def finish_hook(process: subprocess.Popen[str], timeout: float = 600) -> Hooked:
    out, err = process.communicate(timeout=timeout)
    return Hooked(process.returncode, out, err)


def run_hook(event: str, payload: dict[str, Any], *, cwd: Path, project: Path,
             env: dict[str, str] | None = None) -> Hooked:
    return finish_hook(start_hook(event, payload, cwd=cwd, project=project, env=env))


def create(repo: Path, name: str, *, session: str = "session-1", shape: str = "workflow",
           env: dict[str, str] | None = None, **options: Any) -> Hooked:
    return run_hook("WorktreeCreate", create_payload(shape, name, session=session, cwd=repo, **options),
                    cwd=repo, project=repo, env=env)


def remove(repo: Path, worktree: Path, *, session: str = "session-1", env: dict[str, str] | None = None) -> Hooked:
    # The harness runs the remove hook inside the worktree being removed.
    cwd = worktree if worktree.is_dir() else repo
    return run_hook("WorktreeRemove", remove_payload(worktree, session=session), cwd=cwd, project=repo, env=env)


def assert_contract(done: Hooked) -> Path:
    """A successful create: exit 0, exactly one line on stdout, an absolute, enterable folder."""
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, f"stdout must hold the path alone, got {done.stdout!r}"
    path = done.path
    assert path.is_absolute() and path.is_dir(), path
    return path
