"""`wtc demo`: the main job on a built-in example, end to end, with real processes.

Builds a scratch repository from `fixtures/demo` (a small JS/TS/Python monorepo), starts a run,
then fans out agents in parallel processes. Each agent does what a real one does from its shell:
`wtc task start`, real edits in its worktree, `wtc task finish`. The plan includes two agents
editing the same module, one editing a reserved root manifest, one breaking its boundary and one
doing nothing. The demo reports what happened to each task and what the run holds afterwards.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import field
from pathlib import Path
from typing import Any

from ..frozen import value_class

RUN_ID = "demo"


@value_class
class Edit:
    """One change an agent makes: append to, replace inside, or write a file."""

    path: str
    kind: str            # append | replace | write
    text: str
    old: str = ""

    def apply(self, worktree: Path) -> None:
        target = worktree / self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if self.kind == "write":
            target.write_text(self.text)
        elif self.kind == "append":
            target.write_text(target.read_text() + self.text)
        elif self.kind == "replace":
            current = target.read_text()
            if self.old not in current:
                raise ValueError(f"{self.path}: {self.old!r} not found")
            target.write_text(current.replace(self.old, self.text, 1))
        else:
            raise ValueError(self.kind)


@value_class
class DemoTask:
    task: str
    story: str
    own: tuple[str, ...]
    edits: tuple[Edit, ...] = ()
    sparse: bool = True
    expect: str = "landed"   # landed = finished or merged; else the exact final state


DEMO_TASKS: tuple[DemoTask, ...] = (
    DemoTask("api-auth", "appends login() to the API module", ("packages/api/**",), (
        Edit("packages/api/src/index.js", "append",
             "\nexport function login(store, name) {\n  return store.users.find((user) => user.name === name) ?? null;\n}\n"),
    )),
    DemoTask("api-metrics", "appends metrics() to the same API module (a line merge would conflict)",
             ("packages/api/src/**",), (
        Edit("packages/api/src/index.js", "append",
             "\nexport function metrics(store) {\n  return { users: store.users.length };\n}\n"),
    )),
    DemoTask("charts-pkg", "creates a new workspace package @demo/charts", ("packages/charts/**",), (
        Edit("packages/charts/package.json", "write",
             '{\n  "name": "@demo/charts",\n  "version": "1.0.0",\n  "main": "src/index.js"\n}\n'),
        Edit("packages/charts/src/index.js", "write", "export function bar(values) {\n  return values.map((v) => \"#\".repeat(v));\n}\n"),
    )),
    DemoTask("web-footer", "adds a footer to the web page and depends on @demo/charts (made by another task)",
             ("packages/web/**",), (
        Edit("packages/web/src/app.ts", "replace", "  body: string;\n  footer?: string;\n}\n", old="  body: string;\n}\n"),
        Edit("packages/web/package.json", "replace", '    "@demo/charts": "1.0.0",\n    "@demo/ui": "1.0.0"\n',
             old='    "@demo/ui": "1.0.0"\n'),
    )),
    DemoTask("ui-link", "adds a link component", ("packages/ui/**",), (
        Edit("packages/ui/src/link.ts", "write",
             "export function link(href: string, label: string): string {\n  return `<a href=\"${href}\">${label}</a>`;\n}\n"),
    )),
    DemoTask("core-delete", "adds Store.delete()", ("libs/core/*.py",), (
        Edit("libs/core/store.py", "replace",
             "    def put(self, key, value):\n        self.values[key] = value\n\n    def delete(self, key):\n"
             "        self.values.pop(key, None)\n",
             old="    def put(self, key, value):\n        self.values[key] = value\n"),
    )),
    DemoTask("core-cache", "adds a cache setting to the core config", ("libs/core/config.json",), (
        Edit("libs/core/config.json", "replace", '  "timeout": 30,\n  "cache": true\n', old='  "timeout": 30\n'),
    )),
    DemoTask("tools-cli", "adds a CLI package under tools/ and lists tools/* in the root package.json (reserved)",
             ("tools/cli/**",), (
        Edit("tools/cli/package.json", "write", '{\n  "name": "@demo/cli",\n  "version": "0.1.0"\n}\n'),
        Edit("tools/cli/index.js", "write", "console.log(\"demo cli\");\n"),
        Edit("package.json", "replace", '    "packages/*",\n    "tools/*"\n', old='    "packages/*"\n'),
    ), sparse=False),
    DemoTask("docs-guide", "writes a guide page", ("docs/**",), (
        Edit("docs/guide.md", "write", "# Guide\n\nStart a run, fan out tasks, finish them.\n"),
    )),
    DemoTask("ui-rogue", "owns packages/ui but also edits docs/index.md (a boundary violation)", ("packages/ui/src/**",), (
        Edit("packages/ui/src/theme.ts", "write", "export const theme = \"dark\";\n"),
        Edit("docs/index.md", "append", "\nEdited by the ui agent, outside its boundary.\n"),
    ), sparse=False, expect="rejected"),
    DemoTask("noop", "looks around and changes nothing", ("packages/web/**",), (), expect="empty"),
)


def fixture_dir() -> Path:
    """The demo project's files: fixtures/demo in a source checkout (the README installs editable)."""
    here = Path(__file__).resolve().parents[1]  # the worktree_coord package
    for candidate in (here.parent / "fixtures" / "demo", here / "_demo_project"):
        if (candidate / "package.json").is_file():
            return candidate
    from ..errors import NotFoundError

    raise NotFoundError("the demo project files (fixtures/demo) are not installed",
                        fix="install from a source checkout: pip install -e .")


def build_repository(target: Path) -> Path:
    """A fresh git repository holding the demo project in one commit."""
    shutil.copytree(fixture_dir(), target)
    env = dict(os.environ, GIT_AUTHOR_NAME="demo", GIT_AUTHOR_EMAIL="demo@example.invalid",
               GIT_COMMITTER_NAME="demo", GIT_COMMITTER_EMAIL="demo@example.invalid")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "demo monorepo"]):
        subprocess.run(["git", *args], cwd=target, env=env, check=True, capture_output=True)
    return target


def wtc_json(repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """Call the real command line, as an agent does from its shell."""
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo,
                          capture_output=True, text=True)
    try:
        return done.returncode, json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return done.returncode, {"error": {"message": done.stderr.strip() or done.stdout.strip()}}


def run_agent(repo: str, spec: DemoTask) -> dict[str, Any]:
    """One agent process: start, edit, finish. Returns what the coordinator answered."""
    started_at = time.monotonic()
    args = ["task", "start", spec.task, "--run", RUN_ID, *sum((["--own", g] for g in spec.own), [])]
    if spec.sparse:
        args.append("--sparse")
    code, started = wtc_json(Path(repo), *args)
    if code != 0:
        return {"task": spec.task, "start_exit": code, "start": started}
    worktree = Path(started["worktree"])
    try:
        for edit in spec.edits:
            edit.apply(worktree)
    except (OSError, ValueError) as error:
        return {"task": spec.task, "start_exit": 0, "start": started, "finish_exit": None,
                "finish": {"error": {"message": f"the agent's edit failed: {error}"}}}
    code, finished = wtc_json(Path(repo), "task", "finish", spec.task, "--run", RUN_ID,
                              "--message", f"{spec.task}: {spec.story}")
    return {"task": spec.task, "start_exit": 0, "start": started, "finish_exit": code, "finish": finished,
            "seconds": round(time.monotonic() - started_at, 2)}


@value_class(frozen=False)
class DemoReport:
    repo: str
    base: str
    agents: list[dict[str, Any]] = field(default_factory=list)
    consolidation: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "base": self.base, "agents": self.agents, "consolidation": self.consolidation,
                "report": self.report, "status": self.status, "seconds": self.seconds}




def run_demo(directory: Path | None = None, *, parallel: int = 8) -> DemoReport:
    """Build the scratch repository and fan the agents out in parallel processes."""
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="wtc-demo-")) if directory is None else directory
    repo = build_repository(root / "repo")
    code, run = wtc_json(repo, "run", "start", "--run", RUN_ID)
    if code != 0:
        raise RuntimeError(f"run start failed: {run}")
    with ProcessPoolExecutor(max_workers=parallel) as pool:
        agents = list(pool.map(run_agent, [str(repo)] * len(DEMO_TASKS), DEMO_TASKS))
    _, consolidation = wtc_json(repo, "consolidate", "--run", RUN_ID)
    _, report = wtc_json(repo, "report", "--run", RUN_ID, "--onto", "main")
    _, status = wtc_json(repo, "status", "--run", RUN_ID)
    return DemoReport(repo=str(repo), base=run["base"], agents=agents, consolidation=consolidation, report=report,
                      status=status, seconds=round(time.monotonic() - started, 1))


def surprises(report: DemoReport) -> list[str]:
    """Tasks that did not end as the plan expects (the demo fails when there are any)."""
    expected = {t.task: t.expect for t in DEMO_TASKS}
    out = []
    for agent in report.agents:
        state = agent.get("finish", {}).get("state") if not agent.get("start_exit") else "start failed"
        want = expected[agent["task"]]
        if not (state == want or (want == "landed" and state in ("finished", "merged"))):
            out.append(f"task {agent['task']} ended {state}, expected {want}")
    roots = report.consolidation.get("roots", [])
    if not roots or any(r["state"] != "applied" for r in roots):
        out.append(f"consolidation did not apply: {[(r['root'], r['state']) for r in roots] or report.consolidation}")
    return out


def render_report(report: DemoReport, wtc: str | None = None) -> str:
    """The demo's story for a person. Its closing commands name `wtc` by the absolute path of the
    one running (a venv that is not activated puts no `wtc` on PATH: `wtc status` would not be found)."""
    from .executable import wtc_executable

    wtc = wtc or wtc_executable()
    stories = {t.task: t for t in DEMO_TASKS}
    lines = [f"demo repository: {report.repo}", f"run {RUN_ID} pinned at {report.base[:12]}; "
             f"{len(report.agents)} agents in parallel processes", ""]
    for agent in report.agents:
        spec = stories[agent["task"]]
        lines.append(f"- {agent['task']}: {spec.story}")
        if agent.get("start_exit"):
            lines.append(f"    start failed (exit {agent['start_exit']}): {agent['start'].get('error')}")
            continue
        start, finish = agent["start"], agent["finish"]
        for overlap in start.get("overlaps", []):
            lines.append(f"    started while overlapping task {overlap['task']} (shared globs reported, allowed)")
        if "error" in finish:
            lines.append(f"    finish failed (exit {agent['finish_exit']}): {finish['error'].get('message')}")
            continue
        lines.append(f"    -> {finish['state']} (exit {agent['finish_exit']}), {len(finish.get('changed', []))} file(s)"
                     + (f", commit {finish['commit'][:12]}" if finish.get("commit") else ""))
        for path in (finish.get("merge") or {}).get("resolved", []):
            lines.append(f"       {path}: git's line merge conflicted; the structured merge resolved it")
        for violation in finish.get("violations", []):
            lines.append(f"       violation {violation['rule']}: {violation['path']} ({violation['detail']})")
        for reserved in finish.get("reserved", []):
            lines.append(f"       reserved file {reserved['path']} kept aside for consolidation")
        for conflict in finish.get("conflicts", []):
            lines.append(f"       conflict in {conflict.get('path')} {conflict.get('declaration', '')}")
    lines += ["", "consolidation (reserved files, applied once on integration):"]
    for root in report.consolidation.get("roots", []):
        commit = f", commit {root['commit'][:12]}" if root.get("commit") else ""
        lines.append(f"  {root['ecosystem']} root '{root['root'] or '.'}': {root['state']}{commit}; "
                     f"files {', '.join(root['files_changed']) or '-'}")
        for change in root.get("applied", []):
            intent = change["intent"]
            lines.append(f"    applied {intent['op']} {intent['name']} (from {', '.join(change['tasks'])})")
    if "error" in report.consolidation:
        lines.append(f"  failed: {report.consolidation['error'].get('message')}")
    counts = report.status.get("counts", {})
    target = report.report.get("target") or {}
    lines += ["", "run status: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())),
              f"integration {report.report.get('integration')} at {str(report.report.get('tip'))[:12]}: "
              f"{len(report.report.get('files', []))} file change(s); landing onto main would "
              + ("be a fast-forward" if target.get("fast_forward") else "need a sync"),
              f"took {report.seconds} s", ""]
    lines.append(f"explore: cd {shlex.quote(report.repo)} && {wtc} status --run {RUN_ID} && "
                 f"{wtc} report --run {RUN_ID} --onto main")
    lines.append(f"land it: {wtc} land --run {RUN_ID} --onto main")
    return "\n".join(lines)
