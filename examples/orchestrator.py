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
   offline, verified, one commit per ecosystem root),
6. reads the change manifest (`report`) and lands it onto --onto (`land`, key `<run>-land-<onto>`,
   bound to the manifest's tip) once the person approved: `--yes` says they did; without it, the
   orchestrator asks on a terminal and lands nothing otherwise,
7. prints the integration tip after consolidation, each task's state and what landed, and exits 0
   when the run landed whole (every task merged, every intent applied, the target fast-forwarded),
   1 when it did not (the output says why and what to do).

    python examples/orchestrator.py --yes           # scratch repo in a temp dir, 6 tasks, landed onto main
    python examples/orchestrator.py --tasks 12 --parallel 4 --json

Running it again with the same --run on the same --repo replays instead of redoing: the run start
(pinned at the first run's commit) and the land return their stored results through their
idempotency keys (`replayed` in --json says so), a task that finished gets no agent (its start
answers that it is done), and the merge and consolidation find nothing left to do; no branch moves.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from worktree_coord import Coordinator, Landed, NotFoundError, RunReport, WtcError

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
            "violations": [f"{v.path}: {v.rule}" for v in done.violation_records]}


def ask_approval(report: RunReport) -> bool:
    """The person's approval of the change manifest: asked on a terminal, never assumed."""
    if not sys.stdin.isatty():
        return False
    print(f"run {report.run}: {len(report.files)} file(s) change, integration at {report.tip[:12]}")
    for warning in report.warnings:
        print(f"  warning: {warning}")
    answer = input(f"land onto {(report.target or {}).get('branch', 'the target')}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def first_base(coordinator: Coordinator, run: str) -> str:
    """What the run pins: HEAD the first time; on a rerun the commit the first run pinned (HEAD has
    moved once the run landed, and the same key with another base is another request, refused)."""
    try:
        runs = coordinator.status(run).runs
    except NotFoundError:
        return "HEAD"
    return str(runs[0]["base"]) if runs else "HEAD"


def orchestrate(repo: Path, run: str, tasks: int, parallel: int, onto: str, approve: bool) -> dict[str, Any]:
    specs = plan(tasks)
    with Coordinator(repo) as coordinator:
        pinned = coordinator.start_run(run, first_base(coordinator, run), key=f"{run}-run-start")
        worktrees: dict[str, str] = {}
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
        consolidated = coordinator.consolidate(run)
        report = coordinator.report(run, onto=onto)           # the change manifest the person approves
        landed: Landed | None = None
        not_landed = ""
        if approve or ask_approval(report):
            try:
                landed = coordinator.land(run, onto, approved=True, key=f"{run}-land-{onto}",
                                          expected_tip=report.tip)
            except WtcError as error:                         # leftovers, a target that moved, ...
                not_landed = str(error)
        else:
            not_landed = f"not approved: review the change manifest, then run again with --yes to land onto {onto}"
        status = coordinator.status(run)
    return {"repo": str(repo), "run": run, "base": pinned.base, "onto": onto, "agents": finished,
            "merge": merged.to_json(), "consolidate": consolidated.to_json(),
            "tip": report.tip,                                 # the integration tip after consolidation
            "leftovers": [dataclasses.asdict(item) for item in report.leftover_records],
            "land": landed.to_json() if landed else None, "landed": landed is not None, "not_landed": not_landed,
            "replayed": {"run_start": pinned.replayed, "land": bool(landed and landed.replayed)},
            "status": status.to_json()}


def current_branch(repo: Path) -> str:
    done = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"], cwd=repo, capture_output=True,
                          text=True)
    return done.stdout.strip() or "main"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="existing repository (default: build a scratch monorepo)")
    parser.add_argument("--run", default="orchestrated", help="run id (default: orchestrated)")
    parser.add_argument("--tasks", type=int, default=6, help="how many tasks to fan out (default 6)")
    parser.add_argument("--parallel", type=int, default=4, help="agent processes at once (default 4)")
    parser.add_argument("--onto", help="the branch to land onto (default: the branch checked out in the repository)")
    parser.add_argument("--yes", action="store_true",
                        help="the person approved landing (default: ask on a terminal, else do not land)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    repo = args.repo or build_scratch_repo(Path(tempfile.mkdtemp(prefix="wtc-orchestrator-")), args.tasks)
    try:
        result = orchestrate(repo, args.run, args.tasks, args.parallel, args.onto or current_branch(repo), args.yes)
    except WtcError as error:
        print(f"orchestrator: {error}", file=sys.stderr)
        return error.exit_code
    if args.json:
        print(json.dumps(result))
    else:
        states = {row["task"]: row["state"] for row in result["status"]["tasks"]}
        print(f"run {args.run} in {repo}: {len(states)} tasks, integration at {result['tip'][:12]} after consolidation")
        for task, state in sorted(states.items()):
            print(f"  {task:<20} {state}")
        for agent in result["agents"]:
            for path in agent["reserved"]:
                print(f"  {agent['task']} edited reserved {path}: kept for consolidation")
        for root in result["consolidate"]["roots"]:
            where = root["root"] or "(repository root)"
            print(f"  consolidation of {root['ecosystem']} root {where}: {root['state']}"
                  + (f" as {root['commit'][:12]}" if root.get("commit") else "")
                  + (f" ({root['error']['message']})" if root.get("error") else ""))
        if result["landed"]:
            again = " (replayed: landed by an earlier run)" if result["replayed"]["land"] else ""
            print(f"landed onto {result['onto']} at {result['land']['new'][:12]}{again}")
        else:
            print(f"not landed onto {result['onto']}: {result['not_landed']}")
    return 0 if result["landed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
