#!/usr/bin/env python3
"""An orchestrator written against the worktree_coord Python API.

It does what a lead agent's harness does, end to end, on a scratch monorepo (or on --repo):

1. pins a run (`Coordinator.start_run`),
2. fans out N tasks, each owning one package (`start_task`, idempotency keys `<run>-start-<task>`),
3. runs N fake agents in parallel *processes*; each edits files in its own worktree and finishes its
   task (`finish_task(..., merge=False)`, key `<run>-finish-<task>`); one agent also edits the root
   package.json (a reserved file: it makes package p1 a dependency of the workspace root), so its
   edit becomes an intent instead of a text merge,
4. merges every finished task into the integration branch in dependency order (`merge`),
5. consolidates the reserved-file intents (`consolidate`: applied in dependency order, relocked
   offline, verified, one commit per ecosystem root) when the installed version has it,
6. prints the run's status and exits 0 when every task landed and consolidation applied cleanly.

    python examples/orchestrator.py                 # scratch repo in a temp dir, 6 tasks
    python examples/orchestrator.py --tasks 12 --parallel 4 --json

Running it twice with the same --run on the same --repo is safe: every call replays its stored result.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from worktree_coord import Coordinator, WtcError

GIT_IDENTITY = {"GIT_AUTHOR_NAME": "orchestrator", "GIT_AUTHOR_EMAIL": "orchestrator@example.invalid",
                "GIT_COMMITTER_NAME": "orchestrator", "GIT_COMMITTER_EMAIL": "orchestrator@example.invalid"}


def build_scratch_repo(root: Path, packages: int) -> Path:
    """A small monorepo: a root package.json and its package-lock.json, and `packages/pN/src/index.js`
    for N packages."""
    repo = root / "repo"
    (repo / "packages").mkdir(parents=True)
    (repo / "package.json").write_text('{\n  "name": "scratch",\n  "private": true,\n  "workspaces": ["packages/*"]\n}\n')
    for index in range(packages):
        source = repo / "packages" / f"p{index}" / "src"
        source.mkdir(parents=True)
        (source / "index.js").write_text(f"export function p{index}() {{\n  return {index};\n}}\n")
        (source.parent / "package.json").write_text(f'{{\n  "name": "p{index}",\n  "version": "1.0.0"\n}}\n')
    env = dict(os.environ, **GIT_IDENTITY)
    # The monorepo commits its lockfile, as most do: consolidation keeps it current (a project that
    # commits none gets its manifest edited and no lockfile). Workspace packages only: no network.
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit",
                    "--no-fund"], cwd=repo, check=True, capture_output=True)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "scratch monorepo"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def plan(packages: int) -> list[dict[str, Any]]:
    """One task per package; task 0 also adds a dependency to the root package.json (reserved)."""
    tasks = []
    for index in range(packages):
        tasks.append({"task": f"p{index}-feature", "own": [f"packages/p{index}/**"], "package": f"p{index}",
                      "touch_root_manifest": index == 0})
    return tasks


def fake_agent(repo: str, run: str, spec: dict[str, Any], worktree: str) -> dict[str, Any]:
    """What a coding agent does in its own process: edit its worktree, then finish the task."""
    root = Path(worktree)
    module = root / "packages" / spec["package"] / "src" / "index.js"
    module.write_text(module.read_text() + f"\nexport function {spec['package']}Twice() {{\n"
                      f"  return 2 * {spec['package']}();\n}}\n")
    (module.parent / "util.js").write_text(f"export const name = '{spec['package']}';\n")
    if spec["touch_root_manifest"]:
        manifest = root / "package.json"
        data = json.loads(manifest.read_text())
        data.setdefault("dependencies", {})["p1"] = "1.0.0"  # a workspace member: relocks offline
        manifest.write_text(json.dumps(data, indent=2) + "\n")
    with Coordinator(repo) as coordinator:
        done = coordinator.finish_task(run, spec["task"], message=f"{spec['task']}: add {spec['package']}Twice",
                                       merge=False, key=f"{run}-finish-{spec['task']}")
    return {"task": spec["task"], "state": done.state, "reserved": [r["path"] for r in done.reserved],
            "violations": done.violations}


def orchestrate(repo: Path, run: str, tasks: int, parallel: int) -> dict[str, Any]:
    specs = plan(tasks)
    with Coordinator(repo) as coordinator:
        pinned = coordinator.start_run(run, key=f"{run}-run-start")
        worktrees = {}
        for spec in specs:
            started = coordinator.start_task(run, spec["task"], spec["own"], key=f"{run}-start-{spec['task']}")
            worktrees[spec["task"]] = started.worktree
    # Agents run in their own processes, as real agents do; each opens its own Coordinator.
    # A re-run skips finished tasks: a start of one answers its state (merged, no worktree).
    pending = [s for s in specs if worktrees[s["task"]]]
    with ProcessPoolExecutor(max_workers=parallel) as pool:
        finished = list(pool.map(fake_agent, [str(repo)] * len(pending), [run] * len(pending), pending,
                                 [worktrees[s["task"]] for s in pending]))
    with Coordinator(repo) as coordinator:
        merged = coordinator.merge(run, key=f"{run}-merge-all")
        consolidated = None
        if hasattr(coordinator, "consolidate"):  # the consolidation phase (issue 5), when installed
            consolidated = coordinator.consolidate(run).to_json()
        status = coordinator.status(run)
    return {"repo": str(repo), "run": run, "base": pinned.base, "agents": finished, "merge": merged.to_json(),
            "consolidate": consolidated, "status": status.to_json()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="existing repository (default: build a scratch monorepo)")
    parser.add_argument("--run", default="orchestrated", help="run id (default: orchestrated)")
    parser.add_argument("--tasks", type=int, default=6, help="how many tasks to fan out (default 6)")
    parser.add_argument("--parallel", type=int, default=4, help="agent processes at once (default 4)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    repo = args.repo or build_scratch_repo(Path(tempfile.mkdtemp(prefix="wtc-orchestrator-")), args.tasks)
    try:
        result = orchestrate(repo, args.run, args.tasks, args.parallel)
    except WtcError as error:
        print(f"orchestrator: {error}", file=sys.stderr)
        return error.exit_code
    states = {row["task"]: row["state"] for row in result["status"]["tasks"]}
    roots = (result["consolidate"] or {}).get("roots", [])
    landed = all(state == "merged" for state in states.values()) and all(
        root["state"] in ("applied", "unchanged") for root in roots)
    if args.json:
        print(json.dumps(result | {"landed": landed}))
    else:
        print(f"run {args.run} in {repo}: {len(states)} tasks, integration at {result['merge']['tip'][:12]}")
        for task, state in sorted(states.items()):
            print(f"  {task:<20} {state}")
        for agent in result["agents"]:
            for path in agent["reserved"]:
                print(f"  {agent['task']} edited reserved {path}: kept for consolidation")
        if result["consolidate"] is None:
            print("  consolidation: not in this version of worktree_coord (Coordinator.consolidate missing)")
        for root in roots:
            where = root["root"] or "(repository root)"
            print(f"  consolidation of {root['ecosystem']} root {where}: {root['state']}"
                  + (f" as {root['commit'][:12]}" if root.get("commit") else "")
                  + (f" ({root['error']['message']})" if root.get("error") else ""))
    return 0 if landed else 1


if __name__ == "__main__":
    raise SystemExit(main())
