"""Swarm stress harness: many concurrent agents drive tasks through the real `wtc` command line, with
retries under one key, SIGKILLs at random moments, then a drain and a gc; invariants checked from git.

Stage: reliability harness (issue 7, part 1); not part of the product. Input: the flags below (or a
`SwarmConfig` from Python). Output: a report printed to stdout (throughput, p50/p99 latency per
command, the verdict of every invariant) and a `SwarmReport` for callers; exit 1 when an invariant
fails.

What one run does:
  1. generate a repository (`scripts/monorepo.py`: PACKAGES packages of small modules, plus two shared
     modules under libs/common: `shared.py` with one line per "slot", `hot.py` with a few hot lines);
  2. `wtc run start`;
  3. WORKERS worker processes (the agents) take the TASKS planned tasks and drive each through
     `wtc task start` -> edit -> `wtc task finish`. Every edit carries the task's token `STRESS[tNNNN]`:
       - one line of one module in the task's own package, plus one new file there;
       - a share of tasks change their own line ("slot") of libs/common/shared.py (different lines:
         these must merge cleanly);
       - a few tasks change one line of libs/common/hot.py that another task changes too (same lines:
         one of them merges, the others must end `conflict` and leave integration untouched);
       - a few edit the reserved root package.json (kept out of integration for consolidation);
       - a few finish with --no-merge (the lead's periodic `wtc merge` drains them);
     RETRY_RATE of the calls are repeated with the same --key, half after the first returned, half
     concurrently while it runs; KILL_RATE of the wtc processes get SIGKILL at a random moment (the
     process alone, or its whole process group) and the call is repeated with its key, as an agent
     would. A share of the killed finishes (REMOVAL_KILL_SHARE) die instead at a crash point during
     the removal of their worktree (`remove.after_rename`, `remove.half_deleted`), a window too
     narrow for random moments to hit often. A lead thread calls `wtc merge` and `wtc status` every
     DRAIN_INTERVAL seconds meanwhile, and `wtc gc` every other round (unless --no-gc-during), or in
     a loop of its own every GC_INTERVAL seconds when that is given.
  4. a final `wtc merge` drains, `wtc gc` cleans;
  5. invariants, read from git itself (not from wtc's reports): see `check_invariants`.

`--sweep STEPS` runs the targeted variant instead: task start, finish and merge are each killed at
STEPS moments spread over an unkilled call's duration (after interpreter start-up), and at every named
crash point (`WTC_CRASH_AT`; for finish this includes the two points during the worktree's removal),
one fresh task per kill, one at a time; after each kill a `wtc gc` runs before the repeat (unless
--no-gc-during), as the lead's gc may; then the same drain, gc and invariants. It finds windows a
random swarm rarely hits.

`--serve` takes the warm path: a `wtc serve` for the repository runs every call in a process forked
from it (the same kills apply: a killed caller takes its served call, and its process group, with it),
and the report adds the CPU-seconds of every process waited for (on the warm path, the server's too).

`--cpu-by-process` adds where that CPU went, by kind of process: the `wtc` processes (their rusage),
the server's start-up and its calls, the harness's own work, and each git subcommand (a compiled
`git` wrapper first on PATH logs every git's rusage: scripts/cpu_accounting.py).

A call log (`calls.jsonl`, one JSON object per wtc process) is written next to the repository.

Invariants are deterministic given the final repository; the plan (which task edits what, which call
is retried or killed) is deterministic given --seed, the timing is not.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)
import monorepo  # noqa: E402  (scripts/ is not a package)
import cpu_accounting  # noqa: E402  (scripts/ is not a package)

RUN_ID = "stress"
TOKEN_RE = re.compile(rb"STRESS\[(t\d{4,})\]")
SHARED_FILE = "libs/common/shared.py"
HOT_FILE = "libs/common/hot.py"
HOT_GROUP = 3                    # tasks per hot line: one merges, the others conflict
EXPECTED_EXITS = {"task.start": {0}, "task.finish": {0, 1}, "merge": {0, 1}, "status": {0}, "gc": {0},
                  "run.start": {0}}
BUSY = 4
# How long an agent keeps retrying busy answers (besides at least 20 retries): past the 120 s after
# which finish clears an index.lock a killed git left where no process list says no git holds it
# (coordinator/tasks.py STALE_INDEX_LOCK_SECONDS; with /proc it is cleared in seconds),
# which it answers with busy until then. A budget of 20 retries of <= 7.5 s alone ran out at ~113 s.
BUSY_BUDGET_SECONDS = 180.0


# ---- configuration and plan ------------------------------------------------------------------------

@dataclass(frozen=True)
class SwarmConfig:
    workers: int = 64
    tasks: int = 1000
    retry_rate: float = 0.20
    kill_rate: float = 0.05
    seed: int = 1
    packages: int = 200
    files: int = 8                # files per package (package.json + FILES-1 modules)
    shared_rate: float = 0.20     # tasks that change their own line of the shared module
    hot_rate: float = 0.03        # tasks that change a line another task changes too
    reserved_rate: float = 0.02   # tasks that also edit the reserved root package.json
    no_merge_rate: float = 0.05   # tasks finished with --no-merge (drained by `wtc merge`)
    sparse_rate: float = 0.9      # tasks started with --sparse
    kill_scope: str = "mixed"     # process | group | mixed
    removal_kill_share: float = 0.3  # of killed finishes: die at a crash point during the worktree removal
    drain_interval: float = 5.0   # seconds between the lead's `wtc merge` calls during the swarm
    gc_interval: float = 0.0      # > 0: `wtc gc` in its own loop every GC_INTERVAL s (not the lead's every other round)
    gc_during: bool = True        # the lead also runs `wtc gc` every other round while agents work
    call_timeout: float = 900.0   # a wtc call that runs longer is a hang (killed, reported)
    workdir: str | None = None
    keep: bool = False
    serve: bool = False           # the warm path: a `wtc serve` for the repository takes every call
    cpu_by_process: bool = False  # account CPU by kind of process (a git wrapper on PATH: cpu_accounting.py)


@dataclass(frozen=True)
class TaskPlan:
    task: str
    index: int
    package: str
    module: str                   # the module whose line the task changes
    added: str                    # the file the task adds
    slot: int | None              # line of shared.py it changes (unique to it)
    hot: int | None               # line of hot.py it changes (shared with HOT_GROUP-1 other tasks)
    reserved: bool
    no_merge: bool
    sparse: bool
    seed: int

    @property
    def token(self) -> str:
        return f"STRESS[{self.task}]"

    @property
    def own(self) -> list[str]:
        globs = [f"{self.package}/**"]
        if self.slot is not None:
            globs.append(SHARED_FILE)
        if self.hot is not None:
            globs.append(HOT_FILE)
        return globs

    @property
    def expected_tokens(self) -> int:
        """How often the token must appear in integration once the task is merged."""
        return 2 + (self.slot is not None) + (self.hot is not None)


def plan_tasks(config: SwarmConfig) -> list[TaskPlan]:
    """The same seed gives the same plan. Tasks in one package edit different modules."""
    rng = random.Random(config.seed)
    modules_per_package = config.files - 1
    per_package: dict[int, int] = {}
    hot_count = int(config.tasks * config.hot_rate)
    hot_count -= hot_count % HOT_GROUP
    hot_tasks = set(rng.sample(range(config.tasks), hot_count)) if hot_count else set()
    hot_order = sorted(hot_tasks)
    rng.shuffle(hot_order)
    hot_line = {t: i // HOT_GROUP for i, t in enumerate(hot_order)}
    plans = []
    next_slot = 0
    for i in range(config.tasks):
        p = i % config.packages
        n = per_package.get(p, 0)
        per_package[p] = n + 1
        if n >= modules_per_package:
            raise SystemExit(f"--files {config.files} is too few: package p{p:03d} gets more than "
                             f"{modules_per_package} tasks; raise --files or --packages")
        slot = None
        if rng.random() < config.shared_rate:
            slot, next_slot = next_slot, next_slot + 1
        name = f"t{i:04d}"
        plans.append(TaskPlan(
            task=name, index=i, package=f"packages/p{p:03d}",
            module=f"packages/p{p:03d}/src/sub{n % 10}/mod{n:03d}.py",
            added=f"packages/p{p:03d}/stress/{name}.py",
            slot=slot, hot=hot_line.get(i), reserved=rng.random() < config.reserved_rate,
            no_merge=rng.random() < config.no_merge_rate, sparse=rng.random() < config.sparse_rate,
            seed=rng.randrange(1 << 30),
        ))
    return plans


def slot_line(slot: int, value: str = "0") -> str:
    return f"SLOT_{slot:04d} = {value}"


def build_repo(path: Path, config: SwarmConfig, plans: Sequence[TaskPlan]) -> str:
    """The monorepo plus libs/common/{shared,hot}.py, committed on main; returns the commit id."""
    monorepo.generate(path, config.packages, config.files, checkout=True)
    slots = max([p.slot for p in plans if p.slot is not None], default=0) + 1
    hots = max([p.hot for p in plans if p.hot is not None], default=0) + 1
    # Every slot line sits between two unique comment lines nobody edits, so edits of different
    # slots are never adjacent (git's line merge treats adjacent edits as one conflict).
    shared = ['"""Shared module: one line per stress slot."""', ""]
    for s in range(slots):
        shared += [f"# ---- slot {s} ----", slot_line(s)]
    shared.append("# ---- end ----")
    hot = ['"""Hot module: lines several tasks change."""', ""]
    for h in range(hots):
        hot += [f"# ---- hot {h} ----", f"HOT_{h:03d} = 0"]
    hot.append("# ---- end ----")
    (path / "libs/common").mkdir(parents=True, exist_ok=True)
    (path / SHARED_FILE).write_text("\n".join(shared) + "\n")
    (path / HOT_FILE).write_text("\n".join(hot) + "\n")
    _git(path, "add", "-A")
    _git(path, "-c", "user.name=stress", "-c", "user.email=stress@example.invalid", "commit", "-q", "-m",
         "stress: shared modules")
    return _git(path, "rev-parse", "HEAD").strip()


def apply_edits(worktree: Path, plan: TaskPlan) -> None:
    """The agent's work: every change carries the task's token exactly once."""
    module = worktree / plan.module
    text = module.read_text()
    old = "    return x * 1 + "
    at = text.index(old)
    end = text.index("\n", at)
    module.write_text(text[:end] + f"  # {plan.token}" + text[end:])
    added = worktree / plan.added
    added.parent.mkdir(parents=True, exist_ok=True)
    added.write_text(f'"""Added by {plan.token}."""\n\nVALUE = {plan.index}\n')
    if plan.slot is not None:
        _replace_line(worktree / SHARED_FILE, slot_line(plan.slot), slot_line(plan.slot, f'"{plan.token}"'))
    if plan.hot is not None:
        _replace_line(worktree / HOT_FILE, f"HOT_{plan.hot:03d} = 0", f'HOT_{plan.hot:03d} = "{plan.token}"')
    if plan.reserved:
        root = worktree / "package.json"
        data = json.loads(root.read_text())
        # a dependency added the way an agent adds one: an intent for consolidation, never merged
        data.setdefault("devDependencies", {})[f"stress-{plan.task}"] = "^1.0.0"
        root.write_text(json.dumps(data, indent=2) + "\n")


def _replace_line(path: Path, old: str, new: str) -> None:
    lines = path.read_text().split("\n")
    lines[lines.index(old)] = new
    path.write_text("\n".join(lines))


# ---- calling wtc -----------------------------------------------------------------------------------

@dataclass
class Call:
    """One wtc process: what ran, how it ended, how long it took."""
    op: str
    key: str | None
    task: str | None
    exit: int | None              # None: killed by us (or a hang we killed)
    seconds: float
    body: dict[str, Any] | None
    stderr_tail: str = ""
    killed: str = ""              # "", "process", "group", "hang"
    role: str = "first"           # first | repeat-after | repeat-concurrent | after-kill | busy-retry
    at: float = 0.0               # wall-clock start (time.time()), to line calls up with git and store events
    cpu: float | None = None      # user + sys seconds of the wtc process and what it waited for (--cpu-by-process)


def wtc_command(repo: Path, args: Sequence[str], key: str | None) -> list[str]:
    return [sys.executable, "-m", "worktree_coord", *args, "--repo", str(repo), "--json",
            *(["--key", key] if key else [])]


# Last observed duration per command, shared by every Caller of one process (a pool worker drives many
# tasks): kill moments are drawn over 1.5x that, so they spread over the whole call at any load,
# not only over the interpreter's start-up.
_RECENT: dict[str, float] = {}


class Caller:
    """Runs wtc processes for one agent, deciding retries and kills from the task's own RNG."""

    def __init__(self, repo: Path, config: SwarmConfig, rng: random.Random, task: str | None):
        self.repo = repo
        self.config = config
        self.rng = rng
        self.task = task
        self.calls: list[Call] = []
        self.mismatches: list[dict[str, Any]] = []
        self.recent = _RECENT

    def _spawn(self, args: Sequence[str], key: str | None, env: dict[str, str] | None = None
               ) -> subprocess.Popen[bytes]:
        popen = cpu_accounting.AccountedPopen if self.config.cpu_by_process else subprocess.Popen
        return popen(wtc_command(self.repo, args, key), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     start_new_session=True, env=dict(os.environ, **env) if env else None)

    def killed_at(self, op: str, args: Sequence[str], key: str | None, delay: float, scope: str) -> Call:
        """One call SIGKILLed `delay` seconds after it started (if it still runs then)."""
        started = time.monotonic()
        return self._finish(self._spawn(args, key), op, key, started, "first", started + delay, scope)

    def crashed_at(self, op: str, args: Sequence[str], key: str | None, point: str, role: str = "first") -> Call:
        """One call that kills itself at the named crash point (WTC_CRASH_AT); it runs to its end
        (killed stays "") when it never reaches the point."""
        started = time.monotonic()
        return self._finish(self._spawn(args, key, {"WTC_CRASH_AT": point}), op, key, started, role, crash_point=True)

    def _finish(self, proc: subprocess.Popen[bytes], op: str, key: str | None, started: float, role: str,
                kill_at: float | None = None, kill_scope: str = "", crash_point: bool = False) -> Call:
        killed = ""
        if kill_at is not None:
            try:
                proc.wait(timeout=max(0.0, kill_at - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill(proc, kill_scope)
                killed = kill_scope
        try:
            out, err = proc.communicate(timeout=self.config.call_timeout)
        except subprocess.TimeoutExpired:
            _kill(proc, "group")
            out, err = proc.communicate()
            killed = "hang"
        if crash_point and not killed and proc.returncode == -signal.SIGKILL:
            killed = "crash-point"
        seconds = time.monotonic() - started
        body = None
        lines = [line for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
        if len(lines) == 1:
            try:
                body = json.loads(lines[0])
            except ValueError:
                body = None
        code = None if killed else proc.returncode
        if killed == "hang":
            code = None
        call = Call(op, key, self.task, code, seconds, body, err.decode("utf-8", "replace")[-2000:], killed, role,
                    time.time() - seconds, getattr(proc, "cpu", None))
        self.calls.append(call)
        if not killed:
            self.recent[op] = seconds
        return call

    def run(self, op: str, args: Sequence[str], key: str | None, *, compare: bool = True) -> Call:
        """Run one logical call to completion: kills and repeats as planned, busy answers retried."""
        role = "first"
        busy_retries = 0
        busy_since: float | None = None
        while True:
            if self.rng.random() < self.config.kill_rate:
                if op == "task.finish" and self.rng.random() < self.config.removal_kill_share:
                    # dies while removing its worktree; a finish that removes none (a rejection, a
                    # replay) never reaches the point and answers as usual
                    done = self.crashed_at(op, args, key, self.rng.choice(REMOVAL_POINTS), role)
                else:
                    window = max(0.05, 1.5 * self.recent.get(op, 1.0))
                    scope = self.config.kill_scope
                    if scope == "mixed":
                        scope = self.rng.choice(["process", "group"])
                    started = time.monotonic()
                    proc = self._spawn(args, key)
                    done = self._finish(proc, op, key, started, role, started + self.rng.uniform(0.0, window), scope)
                if done.killed:
                    role = "after-kill"
                    continue
                result = done
            elif self.rng.random() < self.config.retry_rate:
                if self.rng.random() < 0.5:
                    started = time.monotonic()
                    first = self._finish(self._spawn(args, key), op, key, started, role)
                    started = time.monotonic()
                    second = self._finish(self._spawn(args, key), op, key, started, "repeat-after")
                else:
                    started = time.monotonic()
                    proc_a = self._spawn(args, key)
                    time.sleep(self.rng.uniform(0.0, max(0.05, self.recent.get(op, 0.5))))
                    started_b = time.monotonic()
                    proc_b = self._spawn(args, key)
                    first = self._finish(proc_a, op, key, started, role)
                    second = self._finish(proc_b, op, key, started_b, "repeat-concurrent")
                if compare:
                    self._compare(op, first, second)
                result = first if first.exit != BUSY else second
            else:
                started = time.monotonic()
                result = self._finish(self._spawn(args, key), op, key, started, role)
            if result.exit == BUSY:
                busy_since = time.monotonic() if busy_since is None else busy_since
            if result.exit == BUSY and (busy_retries < 20
                                        or time.monotonic() - busy_since < BUSY_BUDGET_SECONDS):
                busy_retries += 1
                hint = (result.body or {}).get("error", {}).get("retry_after") or 1.0
                time.sleep(min(float(hint), 5.0) * (0.5 + self.rng.random()))
                role = "busy-retry"
                continue
            return result

    def _compare(self, op: str, a: Call, b: Call) -> None:
        """Two calls with one key must agree on the outcome."""
        if BUSY in (a.exit, b.exit) or a.killed or b.killed:
            return
        fields = {"task.start": ("worktree", "branch", "base"), "task.finish": ("state", "commit")}.get(op, ())
        sa = (a.exit,) + tuple((a.body or {}).get(f) for f in fields)
        sb = (b.exit,) + tuple((b.body or {}).get(f) for f in fields)
        if sa != sb:
            self.mismatches.append({"op": op, "key": a.key, "task": self.task, "first": sa, "repeat": sb,
                                    "repeat_role": b.role})


def _kill(proc: subprocess.Popen[bytes], scope: str) -> None:
    try:
        if scope == "group":
            os.killpg(proc.pid, signal.SIGKILL)  # the process and the git children it started
        else:
            os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# ---- one agent -------------------------------------------------------------------------------------

@dataclass
class TaskOutcome:
    task: str
    calls: list[Call]
    mismatches: list[dict[str, Any]]
    final_state: str | None = None     # the last finish answer's state
    commit: str | None = None
    problems: list[str] = field(default_factory=list)
    started_at: float = 0.0
    ended_at: float = 0.0
    harness_cpu: float = 0.0           # the pool worker's own CPU for this task (edits, checks), --cpu-by-process


def drive_task(repo: str, config: SwarmConfig, plan: TaskPlan) -> TaskOutcome:
    """An agent: start, edit, finish; every call may be repeated or killed as planned."""
    rng = random.Random(plan.seed)
    caller = Caller(Path(repo), config, rng, plan.task)
    outcome = TaskOutcome(plan.task, caller.calls, caller.mismatches, started_at=time.time())
    own = resource.getrusage(resource.RUSAGE_SELF)
    try:
        return _drive_task(caller, outcome, config, plan)
    finally:
        done = resource.getrusage(resource.RUSAGE_SELF)
        outcome.harness_cpu = done.ru_utime - own.ru_utime + done.ru_stime - own.ru_stime


def _drive_task(caller: Caller, outcome: TaskOutcome, config: SwarmConfig, plan: TaskPlan) -> TaskOutcome:
    args = ["task", "start", plan.task, "--run", RUN_ID, *sum((["--own", g] for g in plan.own), [])]
    if plan.sparse:
        args.append("--sparse")
    start = caller.run("task.start", args, f"k-start-{plan.task}")
    if start.exit != 0 or not start.body:
        outcome.problems.append(f"task start ended {start.exit}: {_brief(start)}")
        outcome.ended_at = time.time()
        return outcome
    worktree = Path(start.body["worktree"])
    try:  # an agent whose worktree is broken or gone still calls finish: that is what we test next
        outcome.problems += worktree_problems(worktree, plan)
        apply_edits(worktree, plan)
    except (OSError, ValueError) as exc:
        outcome.problems.append(f"editing {worktree} failed: {exc!r}")
    finish_args = ["task", "finish", plan.task, "--run", RUN_ID, "-m", f"stress {plan.task}"]
    if plan.no_merge:
        finish_args.append("--no-merge")
    finish = caller.run("task.finish", finish_args, f"k-finish-{plan.task}")
    if finish.exit not in (0, 1) or not finish.body:
        outcome.problems.append(f"task finish ended {finish.exit}: {_brief(finish)}")
    else:
        outcome.final_state = finish.body.get("state")
        outcome.commit = finish.body.get("commit")
    outcome.ended_at = time.time()
    return outcome


def worktree_problems(worktree: Path, plan: TaskPlan) -> list[str]:
    """A started worktree is complete and clean: on its branch, the task's files present, nothing
    staged or changed (a half-made worktree would make finish commit the deletion of every file)."""
    problems = []
    if not worktree.is_dir():
        return [f"worktree {worktree} returned by start does not exist"]
    if not (worktree / plan.module).is_file():
        problems.append(f"worktree {worktree} after start lacks {plan.module}")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=worktree,
                            capture_output=True, text=True, env=dict(os.environ, WTC_ACCT_ROLE="harness"))
    if status.returncode != 0 or status.stdout.strip():
        lines = status.stdout.splitlines()
        problems.append(f"worktree {worktree} after start is not clean ({len(lines)} entries: {lines[:3]}"
                        f"{' ' + status.stderr.strip() if status.returncode else ''})")
    return problems


def _brief(call: Call) -> str:
    if call.body and "error" in call.body:
        return json.dumps(call.body["error"])[:400]
    return (json.dumps(call.body)[:300] if call.body else "") + " stderr: " + call.stderr_tail[-400:]


class Lead:
    """The lead agent: drains and looks at status while the swarm runs."""

    def __init__(self, repo: Path, config: SwarmConfig):
        self.caller = Caller(repo, config, random.Random(config.seed ^ 0x5EED), None)
        self.gc_caller = Caller(repo, config, random.Random(config.seed ^ 0x6C), None)  # callers are per thread
        self.interval = config.drain_interval
        self.gc_interval = config.gc_interval if config.gc_during else 0.0
        self.gc_during = config.gc_during and not self.gc_interval
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.gc_thread = threading.Thread(target=self._gc_loop, daemon=True)
        self.rounds = 0

    def start(self) -> None:
        self.thread.start()
        if self.gc_interval:
            self.gc_thread.start()

    def join(self) -> None:
        self.stop.set()
        self.thread.join()
        if self.gc_interval:
            self.gc_thread.join()

    def _loop(self) -> None:
        while not self.stop.wait(self.interval):
            self.rounds += 1
            self.caller.run("merge", ["merge", "--run", RUN_ID], f"k-merge-{self.rounds}", compare=False)
            self.caller.run("status", ["status", "--run", RUN_ID], None, compare=False)
            if self.gc_during and self.rounds % 2 == 0:
                self.caller.run("gc", ["gc"], None, compare=False)

    def _gc_loop(self) -> None:
        while not self.stop.wait(self.gc_interval):
            self.gc_caller.run("gc", ["gc"], None, compare=False)


# ---- reading git -----------------------------------------------------------------------------------

def _git(repo: Path, *args: str, input: bytes | None = None, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=repo, input=input, capture_output=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8", "surrogateescape")


def tree_tokens(repo: Path, rev: str) -> dict[str, int]:
    """How often each task token appears in the files of `rev` (one `cat-file --batch` pass)."""
    listing = _git(repo, "ls-tree", "-r", "-z", rev).split("\0")
    oids = [line.split()[2] for line in listing if line and line.split()[1] == "blob"]
    data = subprocess.run(["git", "cat-file", "--batch"], cwd=repo, input=("\n".join(oids) + "\n").encode(),
                          capture_output=True, check=True).stdout
    counts: dict[str, int] = {}
    for match in TOKEN_RE.finditer(data):
        name = match.group(1).decode()
        counts[name] = counts.get(name, 0) + 1
    return counts


def first_parent_merges(repo: Path, tip: str, base: str) -> list[tuple[str, list[str]]]:
    """(commit, parents) along the first-parent chain from base (exclusive) to tip, oldest first."""
    out = _git(repo, "rev-list", "--first-parent", "--reverse", "--parents", f"{base}..{tip}")
    rows = []
    for line in out.splitlines():
        ids = line.split()
        rows.append((ids[0], ids[1:]))
    return rows


def derived_without_reserved(repo: Path, tip: str, pin: str) -> str:
    """The task tip with the root package.json put back as at the pin (what consolidation waits for),
    built here with plain git plumbing, independently of wtc's own derived commit."""
    entries = _git(repo, "ls-tree", tip).splitlines()
    pin_entry = [e for e in _git(repo, "ls-tree", pin, "package.json").splitlines() if e]
    kept = [e for e in entries if e.split("\t", 1)[1] != "package.json"] + pin_entry
    tree = _git(repo, "mktree", input=("\n".join(kept) + "\n").encode()).strip()
    return _git(repo, "commit-tree", tree, "-p", tip, "-m", "replay: without reserved edits").strip()


def replay_tree(repo: Path, pin: str, commits: Sequence[str]) -> tuple[str, list[str]]:
    """Merge each commit, in order, onto an accumulator that starts at the pin (merge base: the pin).
    Returns the final tree and the commits git could not merge cleanly."""
    acc = pin
    tree = _git(repo, "rev-parse", f"{pin}^{{tree}}").strip()
    failed = []
    for commit in commits:
        done = subprocess.run(["git", "merge-tree", "--write-tree", "--no-messages", acc, commit], cwd=repo,
                              capture_output=True)
        if done.returncode != 0:
            failed.append(commit)
            continue
        tree = done.stdout.decode().split()[0]
        acc = _git(repo, "commit-tree", tree, "-p", acc, "-m", "replay").strip()
    return tree, failed


# ---- invariants ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    name: str
    ok: bool
    detail: str
    examples: tuple[str, ...] = ()


def sqlite_leftovers(admin: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, str]], list[tuple[str, str]]]:
    """The SQLite store's integrity check, held leases and running claims (read-only)."""
    store = admin / "wtc" / "state.sqlite3"
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        integrity = db.execute("PRAGMA integrity_check").fetchall()
        leases = db.execute("SELECT name, owner FROM leases").fetchall()
        running = db.execute("SELECT key, owner FROM idempotency WHERE state = 'running'").fetchall()
    return integrity, leases, running


# The event each state's write carries (store/core.py: a task's record and its event are one write).
STATE_EVENTS = {"started": "task.started", "finished": "task.finished", "empty": "task.empty",
                "merged": "task.merged", "conflict": "task.conflict", "rejected": "task.rejected",
                "failed": "task.failed_verification", "abandoned": "task.abandoned"}


def sqlite_task_events(admin: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The SQLite store's task states and each task's event kinds in order (read-only)."""
    store = admin / "wtc" / "state.sqlite3"
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        states = dict(db.execute("SELECT task_id, state FROM tasks WHERE run_id = ?", (RUN_ID,)).fetchall())
        kinds: dict[str, list[str]] = {}
        for task, kind in db.execute("SELECT task_id, kind FROM events WHERE run_id = ? AND task_id IS NOT NULL"
                                     " ORDER BY id", (RUN_ID,)):
            kinds.setdefault(task, []).append(kind)
    return states, kinds


def check_invariants(repo: Path, pin: str, plans: Sequence[TaskPlan], outcomes: dict[str, TaskOutcome],
                     all_calls: Sequence[Call], worktree_root: Path,
                     store_leftovers: Callable[[Path], tuple[list, list, list]] | None = None,
                     task_events: Callable[[Path], tuple[dict[str, str], dict[str, list[str]]]] | None = None,
                     ) -> list[Verdict]:
    """The swarm's invariants from `repo` (git is the truth) and the store. `store_leftovers(admin)`
    reads the store's integrity, held leases and running claims, `task_events(admin)` its task states
    and their events (default: the SQLite file in the git common dir; scripts/stress_remote.py passes
    its PostgreSQL reader for the first and no events reader: that invariant is then not checked)."""
    verdicts: list[Verdict] = []
    by_task = {p.task: p for p in plans}
    integration = f"refs/heads/wtc/{RUN_ID}/integration"
    tip = _git(repo, "rev-parse", integration).strip()
    branch_tips = {}
    refs = _git(repo, "for-each-ref", "--format=%(objectname) %(refname)", f"refs/heads/wtc/{RUN_ID}/")
    for line in refs.splitlines():
        oid, ref = line.split()
        name = ref.rsplit("/", 1)[1]
        # A task branch still at the pin (started, nothing committed) brings nothing in: left in,
        # it would name every merge of a gc'd branch whose tip's parent is the pin (read below
        # as a derived commit's parent) as that task's.
        if name != "integration" and oid != pin:
            branch_tips[oid] = name

    # 1. Every task that finished is merged exactly once: one first-parent merge commit brings it in.
    chain = first_parent_merges(repo, tip, pin)
    merged_by: dict[str, list[str]] = {}
    merged_order: list[str] = []
    stray = []
    for commit, parents in chain:
        if len(parents) != 2:
            stray.append(f"{commit[:12]} has {len(parents)} parent(s): not a task merge")
            continue
        second = parents[1]
        task = branch_tips.get(second)
        if task is None:  # a derived commit: its parent is the task tip
            parent = _git(repo, "rev-parse", "--verify", "-q", f"{second}^", check=False).strip()
            task = branch_tips.get(parent)
        if task is None:  # its branch was deleted by `wtc gc` once merged (a remote run): its finish's author names it
            # the task's tip is the merged commit, or the parent of a derived one (set aside reserved edits)
            for tip_commit in (_git(repo, "rev-parse", "--verify", "-q", f"{second}^", check=False).strip(), second):
                author = _git(repo, "log", "-1", "--format=%an", tip_commit, check=False).strip() if tip_commit else ""
                if author.startswith("wtc task ") and author[len("wtc task "):] in by_task:
                    task = author[len("wtc task "):]
                    branch_tips.setdefault(tip_commit, task)
                    break
        if task is None:
            stray.append(f"{commit[:12]} merges {second[:12]}, which is no task's branch tip")
            continue
        merged_by.setdefault(task, []).append(commit)
        if len(merged_by[task]) == 1:
            merged_order.append(task)
    twice = {t: c for t, c in merged_by.items() if len(c) > 1}
    # Every planned task changes files: any answered finish (empty and rejected included) counts as
    # ended, and every ended task without a same-lines collision must be merged.
    ended = {t for t, o in outcomes.items() if o.final_state is not None}
    expected_merged = {t for t in ended if by_task[t].hot is None}
    missing = sorted(t for t in expected_merged if t not in merged_by)
    verdicts.append(Verdict(
        "merged exactly once (git)", not twice and not missing and not stray,
        f"{len(merged_by)} tasks merged by {len(chain)} first-parent commits; {len(twice)} merged twice, "
        f"{len(missing)} finished non-conflicting tasks not merged, {len(stray)} stray commits",
        tuple([f"{t} merged by {', '.join(c[:12] for c in cs)}" for t, cs in list(twice.items())[:5]]
              + [f"{t} not merged (last answer {outcomes[t].final_state})" for t in missing[:5]] + stray[:5])))

    # 2. Its change is present once: token counts in the integration tree.
    counts = tree_tokens(repo, tip)
    wrong = []
    for task, plan in by_task.items():
        want = plan.expected_tokens if task in merged_by else 0
        if counts.get(task, 0) != want:
            wrong.append(f"{task}: {counts.get(task, 0)} token(s) in integration, expected {want}")
    verdicts.append(Verdict("each merged change present once (tree)", not wrong,
                            f"{len(counts)} tasks' tokens found; {len(wrong)} wrong counts", tuple(wrong[:8])))

    # 3. No task both merged and reported failed or conflict in its final state.
    status = _status(repo)
    states = {row["task"]: row["state"] for row in status.get("tasks", [])}
    both = []
    for task in by_task:
        final = outcomes[task].final_state if task in outcomes else None
        if task in merged_by and (states.get(task) != "merged" or final in ("conflict", "failed", "rejected")):
            both.append(f"{task}: merged in git, status says {states.get(task)}, last finish answer {final}")
        if task not in merged_by and states.get(task) == "merged":
            both.append(f"{task}: status says merged, git has no merge of it")
    verdicts.append(Verdict("no task both merged and failed/conflict", not both,
                            f"{len(both)} disagreements between git and the final states", tuple(both[:8])))

    # 4. Conflicts are legitimate: only tasks sharing a hot line with a merged task end `conflict`.
    hot_winners: dict[int, list[str]] = {}
    for task in merged_by:
        if by_task[task].hot is not None:
            hot_winners.setdefault(by_task[task].hot, []).append(task)
    bad = []
    for task, plan in by_task.items():
        state = states.get(task)
        if state == "conflict" and (plan.hot is None or not hot_winners.get(plan.hot)):
            bad.append(f"{task}: conflict without a merged task sharing its lines")
    for line, winners in hot_winners.items():
        if len(winners) > 1:
            bad.append(f"hot line {line}: {len(winners)} tasks changing it all merged ({', '.join(winners)})")
    for line in sorted({by_task[t].hot for t in ended if by_task[t].hot is not None}):
        if not hot_winners.get(line):
            bad.append(f"hot line {line}: none of the tasks changing it merged")
    for task in sorted(t for t in ended if by_task[t].hot is not None and t not in merged_by):
        if states.get(task) != "conflict":
            bad.append(f"{task}: changed a hot line, not merged, but ends {states.get(task)}")
    verdicts.append(Verdict("conflicts only where lines collide", not bad,
                            f"{sum(1 for s in states.values() if s == 'conflict')} tasks in conflict", tuple(bad[:8])))

    # 5. The integration tree equals a sequential replay of its merged tasks.
    commits = []
    for task in merged_order:
        tip_commit = next(oid for oid, name in branch_tips.items() if name == task)
        commits.append(derived_without_reserved(repo, tip_commit, pin) if by_task[task].reserved else tip_commit)
    replayed, failed = replay_tree(repo, pin, commits)
    actual = _git(repo, "rev-parse", f"{tip}^{{tree}}").strip()
    verdicts.append(Verdict("integration tree == sequential replay", replayed == actual and not failed,
                            f"replayed {len(commits)} merges: tree {replayed[:12]} vs integration {actual[:12]}; "
                            f"{len(failed)} did not replay cleanly", tuple(failed[:5])))

    # 6. One commit per task branch: retries and kills never committed twice.
    multi = []
    for oid, task in branch_tips.items():
        if task in ended:
            authors = _git(repo, "log", "--format=%an", f"{pin}..{oid}").splitlines()
            if len(authors) != 1:
                multi.append(f"{task}: {len(authors)} commits on its branch (authors {authors[:4]})")
            elif authors[0] != f"wtc task {task}":
                multi.append(f"{task}: its commit was made by {authors[0]!r}, not by the task's finish")
    verdicts.append(Verdict("one commit per finished task branch, made by its finish", not multi,
                            f"{len(branch_tips)} task branches", tuple(multi[:8])))

    # 7. Nothing left behind: worktrees, admin entries, lock files, leases, running claims.
    left = []
    if worktree_root.exists():
        left += [f"worktree folder {p}" for p in worktree_root.iterdir()]
    entries = [b for b in _git(repo, "worktree", "list", "--porcelain").split("\n\n") if b.strip()]
    if len(entries) != 1:
        left.append(f"{len(entries) - 1} extra `git worktree list` entries")
    admin = Path(_git(repo, "rev-parse", "--git-common-dir").strip())
    admin = admin if admin.is_absolute() else repo / admin
    if (admin / "worktrees").exists():
        left += [f"admin entry {p.name}" for p in (admin / "worktrees").iterdir()]
    left += [f"lock file {p.relative_to(admin)}" for p in admin.rglob("*.lock")]
    integrity, leases, running = (store_leftovers or sqlite_leftovers)(admin)
    left += [f"lease {name} held by {owner}" for name, owner in leases]
    left += [f"idempotency key {key} still 'running' ({owner})" for key, owner in running]
    verdicts.append(Verdict("nothing left behind", not left, f"{len(left)} leftovers", tuple(sorted(set(left))[:10])))

    # 8. The store is sound and agrees with git.
    problems = []
    if integrity != [("ok",)]:
        problems.append(f"integrity_check: {integrity[:3]}")
    status_counts = status.get("counts", {})
    if status_counts.get("merged", 0) != len(merged_by):
        problems.append(f"status counts {status_counts.get('merged', 0)} merged, git has {len(merged_by)}")
    if sum(status_counts.values()) != len(plans):
        problems.append(f"status counts {sum(status_counts.values())} tasks, {len(plans)} were started")
    live = {k: v for k, v in status_counts.items() if k in ("started", "finished")}
    if live:
        problems.append(f"tasks still {live} after the drain")
    verdicts.append(Verdict("store integrity and counts agree with git", not problems,
                            f"integrity {integrity[0][0] if integrity else '?'}; counts {status_counts}",
                            tuple(problems)))

    # 9. Every agent got an answer, and no call failed in a way the contract does not allow.
    unexpected = []
    for call in all_calls:
        if call.killed:
            continue
        if call.exit not in EXPECTED_EXITS.get(call.op, {0}) and call.exit != BUSY:
            unexpected.append(f"{call.op} {call.task or ''} ({call.role}) exit {call.exit}: {_brief(call)[:300]}")
        elif "Traceback" in call.stderr_tail:
            unexpected.append(f"{call.op} {call.task or ''} ({call.role}) traceback: {call.stderr_tail[-300:]}")
    for outcome in outcomes.values():
        unexpected += [f"{outcome.task}: {p}" for p in outcome.problems]
    verdicts.append(Verdict("every call answered within the contract", not unexpected,
                            f"{len(unexpected)} unexpected answers", tuple(unexpected[:10])))

    # 10. Repeats with one key agree with the first call.
    mismatches = [m for o in outcomes.values() for m in o.mismatches]
    verdicts.append(Verdict("repeats with one key agree", not mismatches, f"{len(mismatches)} disagreements",
                            tuple(json.dumps(m) for m in mismatches[:8])))

    # 11. Every task's state is told by its events, through every kill: the record and its event are
    # one write, so a SIGKILL between them cannot leave a state the log does not tell; a merge is told once.
    reader = task_events or (sqlite_task_events if store_leftovers is None else None)
    if reader is not None:
        states, kinds = reader(admin)
        untold = []
        for task, state in sorted(states.items()):
            said = kinds.get(task, [])
            want = STATE_EVENTS.get(state)
            if want is not None and want not in said:
                untold.append(f"{task}: {state}, no {want} among its events {said[-4:]}")
            if said.count("task.merged") > (state == "merged"):
                untold.append(f"{task}: {state}, {said.count('task.merged')} task.merged events")
        verdicts.append(Verdict("every task's state told by its events", not untold,
                                f"{len(states)} tasks, {sum(map(len, kinds.values()))} task events; "
                                f"{len(untold)} untold", tuple(untold[:8])))
    return verdicts


def _status(repo: Path) -> dict[str, Any]:
    done = subprocess.run(wtc_command(repo, ["status", "--run", RUN_ID], None), capture_output=True)
    return json.loads(done.stdout)


# ---- kill sweep: one fresh task per kill moment -------------------------------------------------------

# During a worktree's removal (gitrepo.remove_worktree): renamed to its tombstone, admin entry not yet
# pruned; the tombstone half deleted. Before tombstones a kill here left a half-deleted worktree that
# `wtc gc` committed as "uncommitted work" (issue 19).
REMOVAL_POINTS = ["remove.after_rename", "remove.half_deleted"]

CRASH_POINTS = {
    "task.start": ["start.after_record", "task.written.started"],
    "task.finish": ["finish.after_commit", "finish.after_record", "merge.after_commit_written", "ref.locked",
                    "merge.after_ref_moved", "merge.after_record", "task.written.merged", *REMOVAL_POINTS],
    "merge": ["merge.after_commit_written", "merge.before_pack_written", "merge.after_pack_written",
              "ref.locked", "merge.after_ref_moved", "merge.after_record", "task.written.merged"],
    # (the pack points fire in a held drain: WTC_HOLD_OBJECTS=1 holds a drain of one; the task.written
    # points right after a task's record and its event are written: invariant 11 reads what they leave)
}


def sweep_task(repo: Path, config: SwarmConfig, plan: TaskPlan, phase: str, delay: float | None,
               scope: str = "process", point: str | None = None) -> TaskOutcome:
    """Drive one task sequentially; the `phase` call is killed once (after `delay` seconds, or at the
    crash point), then repeated with its key until it answers; the task is then taken to its end."""
    caller = Caller(repo, replace_config(config, retry_rate=0.0, kill_rate=0.0), random.Random(plan.seed), plan.task)
    outcome = TaskOutcome(plan.task, caller.calls, caller.mismatches, started_at=time.time())
    steps = [
        ("task.start", ["task", "start", plan.task, "--run", RUN_ID, *sum((["--own", g] for g in plan.own), []),
                        *(["--sparse"] if plan.sparse else [])], f"k-start-{plan.task}"),
        ("task.finish", ["task", "finish", plan.task, "--run", RUN_ID, "-m", f"stress {plan.task}",
                         *(["--no-merge"] if phase == "merge" else [])], f"k-finish-{plan.task}"),
    ]
    if phase == "merge":
        steps.append(("merge", ["merge", "--run", RUN_ID], f"k-merge-{plan.task}"))
    for op, args, key in steps:
        if op == phase:
            killed = None
            if point is not None:
                killed = caller.crashed_at(op, args, key, point)
            elif delay is not None:
                killed = caller.killed_at(op, args, key, delay, scope)
            if killed is not None and killed.killed and config.gc_during:
                # The lead's gc may run between a kill and the agent's repeat: what the kill left
                # must not look like work to it (issue 19 was a gc in exactly this window).
                caller.run("gc", ["gc"], None, compare=False)
        call = caller.run(op, args, key, compare=False)
        if call.exit not in EXPECTED_EXITS[op] or not call.body:
            outcome.problems.append(f"{op} after a kill in {phase} "
                                    f"({point or f'{delay:.2f} s, {scope}'}) ended {call.exit}: {_brief(call)}")
            break
        if op == "task.start":
            try:
                outcome.problems += worktree_problems(Path(call.body["worktree"]), plan)
                apply_edits(Path(call.body["worktree"]), plan)
            except (OSError, ValueError) as exc:
                outcome.problems.append(f"editing after a kill in {phase} failed: {exc!r}")
        elif op == "task.finish":
            outcome.final_state, outcome.commit = call.body.get("state"), call.body.get("commit")
        else:
            rows = {r["task"]: r["state"] for r in call.body.get("tasks", [])}
            outcome.final_state = rows.get(plan.task, outcome.final_state)
    outcome.ended_at = time.time()
    return outcome


def replace_config(config: SwarmConfig, **changes: Any) -> SwarmConfig:
    return SwarmConfig(**(asdict(config) | changes))


SWEEP_OPS = ("task.start", "task.finish", "merge")


def run_sweep(config: SwarmConfig, steps: int, log: Any = print, ops: Sequence[str] = SWEEP_OPS,
              points: Sequence[str] | None = None) -> SwarmReport:
    """Kill each of task start, task finish and merge at `steps` moments spread over an unkilled
    call's duration (alternating process and process-group kills), and at every named crash point
    (only those in `points` when given); each on a fresh task, one at a time, with a `wtc gc` between
    the kill and the repeat (unless gc_during is off); then drain, gc and check every invariant."""
    probes: list[tuple[str, float | None, str, str | None]] = []
    scopes = ("process", "group") if config.kill_scope == "mixed" else (config.kill_scope,)
    for phase in ops:
        probes.append((phase, None, "", None))               # the unkilled reference: measures the duration
        probes += [(phase, float(i), scopes[i % len(scopes)], None) for i in range(steps)]
        probes += [(phase, None, "", point) for point in CRASH_POINTS[phase] if points is None or point in points]
    config = replace_config(config, tasks=len(probes), hot_rate=0.0, packages=max(config.packages, 1),
                            files=max(config.files, len(probes) // max(config.packages, 1) + 2))
    plans = plan_tasks(config)
    workdir = Path(config.workdir) if config.workdir else Path(tempfile.mkdtemp(prefix="wtc-sweep-"))
    repo = workdir / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    pin = build_repo(repo, config, plans)
    server = start_server(repo) if config.serve else None
    setup = Caller(repo, config, random.Random(0), None)
    if setup.run("run.start", ["run", "start", "--run", RUN_ID], "k-run-start").exit != 0:
        raise SystemExit("wtc run start failed")
    outcomes: dict[str, TaskOutcome] = {}
    duration: dict[str, float] = {}
    # Kills during interpreter start-up test nothing: spread the kill moments over the time after it.
    t = time.monotonic()
    if server is None:
        subprocess.run([sys.executable, "-c", "import worktree_coord.cli, worktree_coord.coordinator"], check=True)
    else:   # served: the caller's own start-up, and the fork
        subprocess.run([sys.executable, "-m", "worktree_coord", "version"], cwd=repo, check=True, capture_output=True)
    startup = time.monotonic() - t
    log(f"  interpreter and imports: {startup:.2f} s; kill moments are spread over the rest of each call")
    started = time.monotonic()
    for plan, (phase, index, scope, point) in zip(plans, probes):
        span = max(0.05, duration.get(phase, 1.0) - startup)
        delay = None if index is None else startup + span * (index + 0.5) / steps
        outcome = sweep_task(repo, config, plan, phase, delay, scope, point)
        if index is None and point is None:
            duration[phase] = max(c.seconds for c in outcome.calls if c.op == phase)
        outcomes[plan.task] = outcome
        what = point or (f"{delay:.2f} s ({scope})" if delay is not None else "no kill")
        killed = sum(1 for c in outcome.calls if c.killed)
        log(f"  {plan.task} {phase:<12} kill {what:<28} -> {outcome.final_state} "
            f"{'(killed)' if killed else '(ran out before the kill)' if delay is not None else ''}"
            + (f" PROBLEM {outcome.problems}" if outcome.problems else ""))
    sweep_seconds = time.monotonic() - started
    final = Caller(repo, config, random.Random(1), None)
    drained = final.run("merge", ["merge", "--run", RUN_ID], "k-merge-final", compare=False)
    final.run("gc", ["gc"], None, compare=False)
    if server is not None:
        stop_server(repo, server)
    for row in (drained.body or {}).get("tasks", []):
        if row.get("task") in outcomes:
            outcomes[row["task"]].final_state = row.get("state")
    all_calls = setup.calls + final.calls + [c for o in outcomes.values() for c in o.calls]
    write_call_log(workdir / "calls.jsonl", all_calls)
    verdicts = check_invariants(repo, pin, plans, outcomes, all_calls, repo / ".wtc" / "worktrees")
    counts = {"calls": len(all_calls), "killed": sum(1 for c in all_calls if c.killed), "probes": len(probes)}
    report = SwarmReport(ok=all(v.ok for v in verdicts), verdicts=verdicts, tasks=len(plans), workers=1,
                         swarm_seconds=sweep_seconds, drain_seconds=0.0,
                         tasks_per_minute=len(plans) / (sweep_seconds / 60.0), latency=latency_table(all_calls),
                         counts=counts, repo=str(repo), path="served" if config.serve else "cli")
    if not config.keep and report.ok and not config.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return report


# ---- the run ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SwarmReport:
    ok: bool
    verdicts: list[Verdict]
    tasks: int
    workers: int
    swarm_seconds: float
    drain_seconds: float
    tasks_per_minute: float
    latency: dict[str, dict[str, float]]
    counts: dict[str, int]
    repo: str
    cpu_seconds: dict[str, float] = field(default_factory=dict)   # user, sys, per_task (every process we waited on)
    cpu_by_process: list[tuple[str, float, int | None]] = field(default_factory=list)  # --cpu-by-process
    path: str = "cli"             # cli | served

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def latency_table(calls: Iterable[Call]) -> dict[str, dict[str, float]]:
    by_op: dict[str, list[float]] = {}
    for call in calls:
        if not call.killed:
            by_op.setdefault(call.op, []).append(call.seconds)
    table = {}
    for op, values in sorted(by_op.items()):
        values.sort()
        table[op] = {"n": len(values), "p50": statistics.median(values),
                     "p99": values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))], "max": values[-1]}
    return table


def run_swarm(config: SwarmConfig, log: Any = print) -> SwarmReport:
    plans = plan_tasks(config)
    workdir = Path(config.workdir) if config.workdir else Path(tempfile.mkdtemp(prefix="wtc-stress-"))
    repo = workdir / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    t0 = time.monotonic()
    pin = build_repo(repo, config, plans)
    log(f"repository: {repo} ({config.packages} packages x {config.files} files, pin {pin[:12]}) "
        f"in {time.monotonic() - t0:.1f} s")
    accounting = cpu_accounting.install_git_wrapper(workdir / "acct") if config.cpu_by_process else None
    saved_env = {k: os.environ.get(k) for k in accounting or {}}
    os.environ.update(accounting or {})     # the swarm's processes (pool, server, wtc) find the wrapper
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = start_server(repo) if config.serve else None
    server_ready = cpu_accounting.proc_cpu(server.pid) if server is not None and accounting else None
    setup = Caller(repo, config, random.Random(config.seed), None)
    started = setup.run("run.start", ["run", "start", "--run", RUN_ID], "k-run-start")
    if started.exit != 0:
        raise SystemExit(f"wtc run start failed: {_brief(started)}")
    lead = Lead(repo, config)
    outcomes: dict[str, TaskOutcome] = {}
    swarm_start = time.monotonic()
    lead.start()
    with concurrent.futures.ProcessPoolExecutor(max_workers=config.workers) as pool:
        futures = {pool.submit(drive_task, str(repo), config, plan): plan for plan in plans}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            plan = futures[future]
            try:
                outcomes[plan.task] = future.result()
            except Exception as exc:  # the harness itself failed for this task: report, never hide
                outcomes[plan.task] = TaskOutcome(plan.task, [], [], problems=[f"harness error: {exc!r}"])
            if done % max(1, len(plans) // 10) == 0:
                log(f"  {done}/{len(plans)} tasks done after {time.monotonic() - swarm_start:.0f} s")
    swarm_seconds = time.monotonic() - swarm_start
    lead.join()
    drain_start = time.monotonic()
    final = Caller(repo, config, random.Random(config.seed + 1), None)
    drained = final.run("merge", ["merge", "--run", RUN_ID], "k-merge-final", compare=False)
    cleaned = final.run("gc", ["gc"], None, compare=False)
    drain_seconds = time.monotonic() - drain_start
    server_cpu = cpu_accounting.proc_cpu(server.pid) if server is not None and accounting else None
    if server is not None:
        stop_server(repo, server)
    git_cpu = cpu_accounting.read_git_log(accounting["WTC_ACCT_GIT_LOG"]) if accounting else None
    for name, value in saved_env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    # Every process we waited for, with what it waited for: the pool's workers and their wtc
    # processes, the lead's, and on the warm path the server with every call it forked.
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_user, cpu_sys = cpu_after.ru_utime - cpu_before.ru_utime, cpu_after.ru_stime - cpu_before.ru_stime
    log(f"swarm {swarm_seconds:.1f} s; final drain {_count_rows(drained)} task(s), gc exit {cleaned.exit} "
        f"({drain_seconds:.1f} s)")
    all_calls = (setup.calls + lead.caller.calls + lead.gc_caller.calls + final.calls
                 + [c for o in outcomes.values() for c in o.calls])
    # The final merge outcome is the definitive state of --no-merge tasks.
    for row in (drained.body or {}).get("tasks", []):
        if row.get("task") in outcomes:
            outcomes[row["task"]].final_state = row.get("state")
    write_call_log(workdir / "calls.jsonl", all_calls)
    verdicts = check_invariants(repo, pin, plans, outcomes, all_calls, repo / ".wtc" / "worktrees")
    counts = {
        "calls": len(all_calls),
        "killed": sum(1 for c in all_calls if c.killed in ("process", "group")),
        "crash_points": sum(1 for c in all_calls if c.killed == "crash-point"),
        "hangs": sum(1 for c in all_calls if c.killed == "hang"),
        "repeats": sum(1 for c in all_calls if c.role.startswith("repeat")),
        "busy": sum(1 for c in all_calls if c.exit == BUSY),
        "lead_merge_rounds": lead.rounds,
        # what the gc calls met: worktrees of ended tasks removed unread, tombstones of killed removals
        "gc_calls": sum(1 for c in all_calls if c.op == "gc" and not c.killed),
        "gc_worktrees_removed": sum(len((c.body or {}).get("worktrees_removed", [])) for c in all_calls if c.op == "gc"),
        "gc_tombstones_removed": sum(len((c.body or {}).get("tombstones_removed", [])) for c in all_calls if c.op == "gc"),
    }
    ended = sum(1 for o in outcomes.values() if o.final_state in ("merged", "conflict", "finished"))
    report = SwarmReport(
        ok=all(v.ok for v in verdicts), verdicts=verdicts, tasks=len(plans), workers=config.workers,
        swarm_seconds=swarm_seconds, drain_seconds=drain_seconds,
        tasks_per_minute=ended / ((swarm_seconds + drain_seconds) / 60.0) if swarm_seconds else 0.0,
        latency=latency_table(all_calls), counts=counts, repo=str(repo),
        cpu_seconds={"user": round(cpu_user, 1), "sys": round(cpu_sys, 1),
                     "per_task": round((cpu_user + cpu_sys) / max(1, len(plans)), 3)},
        path="served" if config.serve else "cli",
        cpu_by_process=(cpu_by_process(all_calls, outcomes, server_cpu, git_cpu, cpu_user + cpu_sys, server_ready)
                        if git_cpu is not None else []),
    )
    if not config.keep and report.ok and not config.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return report


def cpu_by_process(calls: Sequence[Call], outcomes: dict[str, TaskOutcome], server_cpu: tuple[float, float] | None,
                   git: cpu_accounting.GitCpu, total: float, server_ready: tuple[float, float] | None = None
                   ) -> list[tuple[str, float, int | None]]:
    """The run's CPU by kind of process (see cpu_accounting.py for how each is measured)."""
    rows: list[tuple[str, float, int | None]] = []
    wtc_git = git.total("wtc")
    clients = [c for c in calls if c.cpu is not None]
    client_cpu = sum(c.cpu or 0.0 for c in clients)
    served_cpu = server_cpu[1] if server_cpu else 0.0
    if server_cpu:
        rows.append(("wtc client processes (hand the call over)", client_cpu, len(clients)))
        rows.append(("served calls' python (forked by wtc serve)", served_cpu - wtc_git, None))
        rows.append(("wtc serve itself", server_cpu[0], 1))
        if server_ready:
            rows.append(("  its start-up (imports, preload: once a server)", server_ready[0], None))
            rows.append(("  its calls (accept, fork, reap)", server_cpu[0] - server_ready[0], None))
    else:
        by_op: dict[str, list[float]] = {}
        for c in clients:
            by_op.setdefault(c.op, []).append(c.cpu or 0.0)
        # the interpreter's share: what the clients cost without their git (split by command below)
        rows.append(("wtc processes' python (all commands)", client_cpu - wtc_git, len(clients)))
        for op, values in sorted(by_op.items()):
            rows.append((f"  {op} (with its git), median {statistics.median(values):.3f} s", sum(values), len(values)))
    ranked = sorted(((k, v) for k, v in git.seconds.items() if k[0] == "wtc"), key=lambda kv: -kv[1])
    rows.append(("git processes started by wtc", wtc_git, sum(n for (r, _), n in git.calls.items() if r == "wtc")))
    for (role, sub), seconds in ranked:
        rows.append((f"  git {sub}", seconds, git.calls[(role, sub)]))
    harness = sum(o.harness_cpu for o in outcomes.values()) + git.total("harness")
    rows.append(("harness (pool workers' edits and checks)", harness, None))
    accounted = (client_cpu + (sum(server_cpu) if server_cpu else 0.0) + harness)
    rows.append(("rest (harness's pool start, lead threads)", total - accounted, None))
    # the nested lines ("  ...") are parts of the line above them, not extra CPU
    return rows


def start_server(repo: Path, env: dict[str, str] | None = None, python: str | None = None) -> subprocess.Popen[str]:
    """`wtc serve` for the repository (the warm path), returned once it listens (also used by
    bench_startup.py and bench_scale.py; `env`: the server's environment, default this process's;
    `python`: the interpreter, default this one)."""
    server = subprocess.Popen([python or sys.executable, "-m", "worktree_coord", "serve", "--repo", str(repo)], cwd=repo, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert server.stderr is not None
    line = server.stderr.readline()
    if "serving" not in line:
        raise SystemExit(f"wtc serve did not start: {line}{server.stderr.read()}")
    return server


def stop_server(repo: Path, server: subprocess.Popen[str]) -> None:
    subprocess.run([sys.executable, "-m", "worktree_coord", "serve", "--stop", "--repo", str(repo)],
                   capture_output=True, check=False)
    try:
        server.wait(timeout=120)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def write_call_log(path: Path, calls: Sequence[Call]) -> None:
    """Every wtc call, one JSON object a line, for post-mortems (kept with --keep or on failure)."""
    with path.open("w") as handle:
        for call in calls:
            handle.write(json.dumps(asdict(call), default=str) + "\n")


def _count_rows(call: Call) -> int:
    return len((call.body or {}).get("tasks", []))


def print_report(report: SwarmReport, config: SwarmConfig) -> None:
    if "probes" in report.counts:
        print(f"\n== kill sweep: {report.tasks} tasks, one at a time, each with one call killed "
              f"({config.kill_scope}) or crashed at a named point, seed {config.seed}")
    else:
        print(f"\n== swarm: {report.workers} workers x {report.tasks} tasks, retry {config.retry_rate:.0%}, "
              f"kill {config.kill_rate:.0%} ({config.kill_scope}), seed {config.seed}")
    print(f"path: {report.path} ({'a wtc serve takes every call' if report.path == 'served' else 'one process per call'})")
    print(f"throughput: {report.tasks_per_minute:.1f} tasks/minute (swarm {report.swarm_seconds:.1f} s + "
          f"drain/gc {report.drain_seconds:.1f} s)")
    if report.cpu_seconds:
        print(f"cpu: {report.cpu_seconds['user']} s user + {report.cpu_seconds['sys']} s sys = "
              f"{report.cpu_seconds['per_task']} CPU-seconds per task")
    if report.cpu_by_process:
        print("cpu by kind of process (indented rows are parts of the row above):")
        for line in cpu_accounting.format_table(report.cpu_by_process, report.tasks):
            print("  " + line)
    print("calls: " + ", ".join(f"{k} {v}" for k, v in report.counts.items()))
    print(f"{'command':<14}{'n':>7}{'p50 s':>9}{'p99 s':>9}{'max s':>9}")
    for op, row in report.latency.items():
        print(f"{op:<14}{int(row['n']):>7}{row['p50']:>9.2f}{row['p99']:>9.2f}{row['max']:>9.2f}")
    print("invariants:")
    for verdict in report.verdicts:
        print(f"  [{'PASS' if verdict.ok else 'FAIL'}] {verdict.name}: {verdict.detail}")
        for example in verdict.examples:
            print(f"         - {example}")
    print(f"repository: {report.repo}" + ("" if config.keep or not report.ok or config.workdir else " (removed)"))
    print("RESULT: " + ("all invariants hold" if report.ok else "INVARIANT FAILED"))


def parse_args(argv: Sequence[str] | None = None) -> tuple[SwarmConfig, argparse.Namespace]:
    """The configuration, and the flags that choose what to run (--sweep, --sweep-ops, --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    defaults = SwarmConfig()
    parser.add_argument("--workers", type=int, default=defaults.workers)
    parser.add_argument("--tasks", type=int, default=defaults.tasks)
    parser.add_argument("--retry-rate", type=float, default=defaults.retry_rate)
    parser.add_argument("--kill-rate", type=float, default=defaults.kill_rate)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--packages", type=int, default=defaults.packages)
    parser.add_argument("--files", type=int, default=defaults.files)
    parser.add_argument("--kill-scope", choices=["process", "group", "mixed"], default=defaults.kill_scope)
    parser.add_argument("--removal-kill-share", type=float, default=defaults.removal_kill_share,
                        help="share of killed finishes that die during their worktree's removal (crash points)")
    parser.add_argument("--drain-interval", type=float, default=defaults.drain_interval)
    parser.add_argument("--gc-interval", type=float, default=defaults.gc_interval,
                        help="run `wtc gc` in its own loop every N seconds (default: the lead's every other round)")
    parser.add_argument("--no-gc-during", action="store_true", help="no `wtc gc` while the agents work")
    parser.add_argument("--workdir", help="where to build the repository (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the repository even when all invariants hold")
    parser.add_argument("--json", action="store_true", help="also print the report as one JSON object")
    parser.add_argument("--serve", action="store_true",
                        help="the warm path: start `wtc serve` for the repository, so every wtc call is handed to it")
    parser.add_argument("--cpu-by-process", action="store_true",
                        help="also report the CPU by kind of process: wtc's python, each git subcommand, the server "
                             "(puts a compiled git wrapper first on PATH: scripts/cpu_accounting.py)")
    parser.add_argument("--sweep", type=int, default=0, metavar="STEPS",
                        help="instead of the swarm: kill start, finish and merge at STEPS moments each and at "
                             "every named crash point, one fresh task per kill, sequentially")
    parser.add_argument("--sweep-ops", default=",".join(SWEEP_OPS),
                        help=f"commands the sweep kills (comma-separated, of {','.join(SWEEP_OPS)})")
    parser.add_argument("--sweep-points", default=None,
                        help="crash points the sweep uses (comma-separated; default all of them, e.g. "
                             + ",".join(REMOVAL_POINTS) + ")")
    ns = parser.parse_args(argv)
    ns.sweep_ops = tuple(op for op in ns.sweep_ops.split(",") if op)
    if ns.sweep_points is not None:
        ns.sweep_points = tuple(p for p in ns.sweep_points.split(",") if p)
        known = {p for points in CRASH_POINTS.values() for p in points}
        if set(ns.sweep_points) - known:
            parser.error(f"--sweep-points: unknown {sorted(set(ns.sweep_points) - known)}; use some of "
                         + ",".join(sorted(known)))
    unknown = set(ns.sweep_ops) - set(SWEEP_OPS)
    if unknown:
        parser.error(f"--sweep-ops: unknown {sorted(unknown)}; use some of {','.join(SWEEP_OPS)}")
    for name in ("workers", "tasks", "packages"):
        if getattr(ns, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if ns.files < 2:
        parser.error("--files must be at least 2 (package.json plus one module)")
    for name in ("retry_rate", "kill_rate", "removal_kill_share"):
        if not 0.0 <= getattr(ns, name) <= 1.0:
            parser.error(f"--{name.replace('_', '-')} must be between 0 and 1")
    config = SwarmConfig(workers=ns.workers, tasks=ns.tasks, retry_rate=ns.retry_rate, kill_rate=ns.kill_rate,
                         seed=ns.seed, packages=ns.packages, files=ns.files, kill_scope=ns.kill_scope,
                         removal_kill_share=ns.removal_kill_share,
                         drain_interval=ns.drain_interval, gc_interval=ns.gc_interval,
                         gc_during=not ns.no_gc_during, workdir=ns.workdir,
                         keep=ns.keep, serve=ns.serve, cpu_by_process=ns.cpu_by_process)
    return config, ns


def main(argv: Sequence[str] | None = None) -> int:
    config, options = parse_args(argv)
    compile_package()   # bytecode as an install has it, outside the timings (scripts/bytecode.py)
    if options.sweep:
        report = run_sweep(config, options.sweep, ops=options.sweep_ops, points=options.sweep_points)
    else:
        report = run_swarm(config)
    print_report(report, config)
    if options.json:
        print(json.dumps(report.to_json(), default=str))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
