#!/usr/bin/env python3
"""Play Claude Code's part, for a machine without it: wtc as the worktree provider, end to end.

On a scratch repository (or --repo) this does what a user and Claude Code do:

1. `wtc hooks install claude` (the local scope), then a plan: agent `health-<svc>` owns
   `packages/<svc>/**`;
2. reads the two hook commands back from `.claude/settings.local.json` and runs them the way Claude
   Code runs a workflow's `isolation: 'worktree'` agents: all at once, a shell per hook, the JSON
   payload on stdin, the session's folder as working directory, the worktree taken from the last
   non-empty line of stdout;
3. each "agent" writes its endpoint in its worktree (uncommitted: the remove hook commits), reading
   its port from `.wtc/env`; the agent of the first service also strays outside its package, so its
   remove hook keeps the worktree and says why (exit 3), and it is fixed and handed back again;
4. runs the WorktreeRemove hooks the same way (working directory: inside each worktree);
5. lands the session's run: `wtc report`, then `wtc land --yes`.

    python examples/claude-code/play_harness.py [--agents 6] [--repo DIR] [--json]

Exit code 0 when every agent's work landed on main.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

GIT_IDENTITY = {"GIT_AUTHOR_NAME": "you", "GIT_AUTHOR_EMAIL": "you@example.invalid",
                "GIT_COMMITTER_NAME": "you", "GIT_COMMITTER_EMAIL": "you@example.invalid"}
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
WTC = [sys.executable, "-m", "worktree_coord"]


def scratch_repo(root: Path, services: list[str]) -> Path:
    """A small monorepo with a git-ignored .env that .worktreeinclude brings into each worktree."""
    repo = root / "repo"
    files = {".gitignore": ".env\n.wtc/\n", ".worktreeinclude": ".env\n",
             "package.json": '{\n  "name": "shop",\n  "private": true,\n  "workspaces": ["packages/*"]\n}\n',
             ".wtc.toml": '[worktree-setup]\nrun = "test -f .env && echo env ready"\nports = 10\n'}
    for service in services:
        files[f"packages/{service}/index.js"] = f"export const name = '{service}';\n"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    env = dict(os.environ, **GIT_IDENTITY)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "shop"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    (repo / ".env").write_text("DATABASE_URL=postgres://localhost/shop\n")   # ignored: never committed
    return repo


def wtc(repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(WTC + list(args) + ["--json"], cwd=repo, capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout)


def hook_commands(repo: Path) -> dict[str, str]:
    """The commands Claude Code would run, read from the settings file install wrote."""
    settings = json.loads((repo / ".claude" / "settings.local.json").read_text())
    return {event: settings["hooks"][event][0]["hooks"][0]["command"] for event in ("WorktreeCreate", "WorktreeRemove")}


def run_hook(command: str, payload: dict[str, Any], cwd: Path, project: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=env, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=600)


def worktree_of(done: subprocess.CompletedProcess[str]) -> Path:
    """Claude Code's reading of a WorktreeCreate hook: the last non-empty line, ANSI codes stripped."""
    lines = [ANSI.sub("", line).strip() for line in done.stdout.splitlines()]
    lines = [line for line in lines if line]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"WorktreeCreate failed (exit {done.returncode}): {done.stderr}")
    return Path(lines[-1])


def agent_work(worktree: Path, service: str, stray: bool) -> None:
    env = dict(line.split("=", 1) for line in (worktree / ".wtc" / "env").read_text().splitlines()
               if "=" in line and not line.startswith("#"))
    port = int(env["WTC_PORT_BASE"])
    assert (worktree / ".env").is_file(), ".worktreeinclude brought .env"
    (worktree / "packages" / service / "health.js").write_text(
        f"export const port = {port};\nexport function health() {{\n  return {{ ok: true }};\n}}\n")
    if stray:
        (worktree / "README.md").write_text("written by an agent that strayed\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=6)
    parser.add_argument("--repo", type=Path, default=None, help="work here instead of a scratch repository")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    services = [f"svc{i}" for i in range(options.agents)]
    repo = options.repo or scratch_repo(Path(tempfile.mkdtemp(prefix="wtc-claude-")), services)
    log: list[str] = []

    assert wtc(repo, "hooks", "install", "claude")[0] == 0
    for service in services:
        assert wtc(repo, "plan", "add", f"health-{service}", "--own", f"packages/{service}/**")[0] == 0
    commands = hook_commands(repo)
    session = str(uuid.uuid4())
    log.append(f"hooks installed; session {session}; {len(services)} agents")

    def create(service: str) -> Path:
        payload = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(repo),
                   "hook_event_name": "WorktreeCreate", "name": f"health-{service}"}
        return worktree_of(run_hook(commands["WorktreeCreate"], payload, repo, repo))

    def remove(worktree: Path) -> subprocess.CompletedProcess[str]:
        payload = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(worktree),
                   "hook_event_name": "WorktreeRemove", "worktree_path": str(worktree)}
        return run_hook(commands["WorktreeRemove"], payload, worktree, repo)

    with ThreadPoolExecutor(max_workers=len(services)) as pool:
        worktrees = dict(zip(services, pool.map(create, services)))
        for index, service in enumerate(services):
            agent_work(worktrees[service], service, stray=index == 0)
        removed = dict(zip(services, pool.map(remove, worktrees.values())))
    strayed = removed[services[0]]
    log.append(f"{sum(r.returncode == 0 for r in removed.values())} of {len(services)} worktrees handed back; "
               f"the stray one exited {strayed.returncode}: {strayed.stderr.splitlines()[0] if strayed.stderr else ''}")
    if strayed.returncode == 3:   # the boundary kept it: fix it where it is, hand it back again
        worktree = worktrees[services[0]]
        (worktree / "README.md").unlink()   # the rejected commit holds it; the next one removes it
        again = remove(worktree)
        log.append(f"fixed and handed back again: exit {again.returncode}")

    code, listing = wtc(repo, "status")
    run = next(r["run"] for r in listing["runs"] if r.get("session", {}).get("id") == session)
    code, report = wtc(repo, "report", "--run", run, "--onto", "main")
    code, landed = wtc(repo, "land", "--run", run, "--onto", "main", "--yes")
    landed_files = subprocess.run(["git", "ls-tree", "-r", "--name-only", "main"], cwd=repo, capture_output=True,
                                  text=True).stdout.split()
    ok = code == 0 and all(f"packages/{s}/health.js" in landed_files for s in services) \
        and "README.md" not in [f["path"] for f in report.get("files", [])] and ".env" not in landed_files
    summary = {"repo": str(repo), "run": run, "landed": ok, "log": log,
               "status": wtc(repo, "status", "--run", run)[1], "land": landed}
    if options.json:
        print(json.dumps(summary))
    else:
        print("\n".join(log + [f"run {run}: {'landed on main' if ok else 'NOT landed'} ({repo})"]))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
