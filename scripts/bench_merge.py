#!/usr/bin/env python3
"""Benchmark: merge N task branches into an integration ref with `merge_into`, against a baseline.

Generates (with `git fast-import`) two repositories, ~5,000 and ~50,000 files
(`packages/pNNN/src/subK/modJJJ.py`, 200 packages x 25 / x 250 files by default), and N task
branches off the base commit. Task i works in package i mod 200 (round i div 200 uses other files of
that package, so no two tasks touch one file): it edits 3 files, adds 1 and deletes 1.

Each method runs on its own copy of the repository (so no method finds the objects another wrote):
  engine        a drain as `wtc merge` runs one: worktree_coord.integrate.Integrator.drain, each task
                merged onto the last one's commit (fast path, merge-tree fallback), the ref moved
                once at the end by one compare-and-swap (counted in the total); told how many tasks
                it drains, it holds its objects in memory and writes one pack at publish when they
                are HOLD_FROM or more (integrate/engine.py; the pack is counted in the total)
  engine-loose  engine with WTC_HOLD_OBJECTS=0: every object a loose file as it is written
  engine-one    Integrator.merge_into per task, each with its own compare-and-swap of the ref (what
                a `wtc task finish` that merges its own task does)
  engine-mt     engine-one with the fast path off: every merge through the persistent
                `git merge-tree --stdin` process
  engine-sem    engine plus the merge queue's semantic check (queue.semantic_check: every file
                either side changed, parsed and checked for names one side removed), as
                `wtc merge` runs it, the merge index's disk writes held for the drain's end
                (counted); `--methods engine,engine-sem` shows its cost
  engine-sem-loose  engine-sem with WTC_HOLD_OBJECTS=0 (held against not held, side by side)
  engine-run    engine-sem plus the left-behind look (check/left_behind.left_behind_at_merge: uses,
                in code no side changed, of what the task removed): both checks a run's merge
                makes by default (the checks alone: the queue's own work around them, leases,
                records, ports, is wtc-merge's). The pin's word index the look
                reads is built before the timing, in a process of its own as `wtc run start`
                builds it, and loaded from disk by the drain (as wtc-merge's drain loads the one its
                run start wrote); its build's CPU is printed apart (paths: pin_index_cpu_s)
  engine-run-finished  engine-run after each task's finish-side facts (check/task_facts.py: its
                changed files' versions extracted, as `wtc task finish` does before its merge) were
                computed in another process and written to the merge index, which the drain loads
                them from; their CPU for all tasks is printed apart (paths: finish_facts_cpu_s):
                work moved off the serial section to the agents' finishes, not removed
  wtc-merge     the product's `wtc merge` (Coordinator.merge) of a run whose N tasks were started
                (sparse) and finished with --no-merge on a clone of the repository (each task's
                files written by task_change, the finish computing its facts): everything a drain
                of the queue pays besides its merges and checks (task leases, store reads and
                writes, the boundary checked again, the records, events). The finishes are made
                once per generated repository (gen-...-wtc, not timed); the timing is the merge
                call (its Coordinator opened inside it), per-merge figures are its total / N. Its
                state folder (the run's port leases) is given the facts the machine's holds for
                later processes (kept_on_disk.py), which the engine children read there
  baseline      per merge: `git merge-tree --write-tree` + `git commit-tree` + `git update-ref`
All methods must end on the same tree (checked). Printed: per-merge median / p95 / mean of the
first and last 10, totals (wall and CPU incl. children), and the two target ratios:
  engine total / baseline total at the large size    target <= 0.5 (engine-sem too: issue 36)
  engine median at large / engine median at small    target <= 1.5 (engine-sem: <= 1.2, issue 36)
Runs are repeated (--repeat, default 3) with repetition outermost, then size, then method, and each
ratio is the median of per-repetition ratios: this VM is shared and its load swings from 1 to 15,
so only runs made close together are compared. CPU ratios are printed next to wall ratios.
Each run is a fresh Python process (this script with --child), as each `wtc merge` is: no run
inherits another's caches, collector state or memory. Each run's line ends with `speed`: the CPU
milliseconds of one fixed piece of work measured in that process around the run (the mean of before and after) (lower is a
faster machine at that moment; runs whose speed differs by a third are not comparable).

Usage:
  python scripts/bench_merge.py                      # 200 tasks x 3 runs, 5k and 50k files (~2 min)
  python scripts/bench_merge.py --tasks 1000         # the full-size run
  python scripts/bench_merge.py --tasks 50 --sizes 25,250 --json out.json
  python scripts/bench_merge.py --sizes 100 --methods engine-sem,baseline --repeat 1   # issue 36: 20,000 files
  python scripts/bench_merge.py --sizes 100 --methods engine-sem,engine-sem-loose,baseline --repeat 5
      # the drain's objects held in memory or not (WTC_HOLD_OBJECTS), against the git loop
  python scripts/bench_merge.py --sizes 25,250 --methods engine-sem --repeat 1         # per merge 50k / 5k
  python scripts/bench_merge.py --sizes 100 --methods engine-sem,baseline --imports    # files that import, as a real run's
  python scripts/bench_merge.py --sizes 100 --methods engine-run-finished,wtc-merge,baseline --repeat 3 \
      --baseline /tmp/main-code   # the queue's own cost (wtc-merge less engine-run-finished), against main's code
engine-sem checks each merge with the merge index (merge/checks/merge_index.py) in the repository's
`<git dir>/wtc/merge-index/`, which starts empty on each run's fresh copy: its numbers include
building it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pygit2

# --baseline DIR: a child measuring the other code imports worktree_coord from DIR (WTC_BENCH_CODE).
sys.path.insert(0, os.environ.get("WTC_BENCH_CODE") or str(Path(__file__).resolve().parents[1]))

from worktree_coord.integrate import IntegrationState, Integrator  # noqa: E402
from worktree_coord.integrate.engine import HOLD_ENV  # noqa: E402
from worktree_coord.coordinator.merge_queue import semantic_check  # noqa: E402
from worktree_coord.gitrepo.repository import GitRepo  # noqa: E402
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)

PACKAGES = 200
SUBDIR_FILES = 50
SIG = pygit2.Signature("bench", "bench@worktree-coord.invalid", 1_700_000_000, 0)
INTEG = "refs/heads/integration"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@x", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@x", GIT_AUTHOR_DATE="1700000000 +0000",
               GIT_COMMITTER_DATE="1700000000 +0000")
    return env


def _file_path(p: int, j: int) -> str:
    return f"packages/p{p:03d}/src/sub{j // SUBDIR_FILES}/mod{j:03d}.py"


IMPORTS = False   # --imports: every file imports, as a real run's files do (set by main())


def _file_text(p: int, j: int, tag: str = "") -> bytes:
    lines = [f"# package {p} module {j}\n"]
    first = (j // SUBDIR_FILES) * SUBDIR_FILES if j < 1000 else 0   # its folder's first module (sub0's: a new file)
    if IMPORTS:
        # A whole module and a name of the folder's first module (which no task deletes): what the
        # check's import steps read in a run whose files import (a task's files, the tip's).
        lines += ["import os\n"] + ([f"from .mod{first:03d} import f0 as first_f0\n"] if j != first else [])
    lines += [f"def f{k}(x):\n    return x * {k} + {p + j}{tag}\n\n" for k in range(24)]
    if IMPORTS and j != first:
        lines += ["def use(x):\n    return first_f0(x) + len(os.sep)\n"]
    return "".join(lines).encode()


def _data(fh, payload: bytes) -> None:
    fh.write(b"data %d\n" % len(payload))
    fh.write(payload)
    fh.write(b"\n")


def task_change(p: int, r: int, files: int, i: int) -> tuple[dict[str, bytes], list[str]]:
    """What task i (package p, round r) writes and deletes: 3 edits, 1 new file, 1 deletion."""
    first = r * 5
    writes = {_file_path(p, j % files): _file_text(p, j % files, f"  # task {i}") for j in range(first, first + 3)}
    writes[f"packages/p{p:03d}/src/sub0/task_{i:04d}.py"] = _file_text(p, 1000 + i, "  # new")
    return writes, [_file_path(p, (first + 3) % files)]


def generate(repo_dir: Path, files: int, tasks: int) -> None:
    """A bare repository with the base commit on `main` and `task/NNNN` branches, via fast-import."""
    if tasks > PACKAGES * (files // 5):
        raise SystemExit(f"--tasks {tasks} is more than {PACKAGES * (files // 5)} disjoint tasks at {files} files per package")
    subprocess.run(["git", "init", "-q", "--bare", str(repo_dir)], check=True, env=_env())
    proc = subprocess.Popen(["git", "-C", str(repo_dir), "fast-import", "--quiet"],
                            stdin=subprocess.PIPE, env=_env())
    fh = proc.stdin
    assert fh is not None
    fh.write(b"commit refs/heads/main\nmark :1\ncommitter bench <bench@x> 1700000000 +0000\n")
    _data(fh, b"base")
    for p in range(PACKAGES):
        for j in range(files):
            fh.write(f"M 100644 inline {_file_path(p, j)}\n".encode())
            _data(fh, _file_text(p, j))
    for i in range(tasks):
        p, r = i % PACKAGES, i // PACKAGES
        fh.write(f"commit refs/heads/task/{i:04d}\ncommitter bench <bench@x> 1700000000 +0000\n".encode())
        _data(fh, f"task {i}".encode())
        fh.write(b"from :1\n")
        writes, deletes = task_change(p, r, files, i)
        for path, payload in writes.items():
            fh.write(f"M 100644 inline {path}\n".encode())
            _data(fh, payload)
        for path in deletes:
            fh.write(f"D {path}\n".encode())
    fh.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run_engine(repo_dir: Path, tasks: int, fast_path: bool, semantic: bool = False, drain: bool = True,
               left_behind: bool = False, finished: bool = False) -> dict:
    # The left-behind look reads the drain's merged trees through the GitRepo whose repository the
    # engine writes them into (as the coordinator's Integrator and its checks share one).
    git = GitRepo(str(repo_dir)) if left_behind else None
    repo = git.repo if git is not None else pygit2.Repository(str(repo_dir))
    base = repo.references["refs/heads/main"].target
    repo.references.create(INTEG, base, force=True)
    task_ids = [repo.references[f"refs/heads/task/{i:04d}"].target for i in range(tasks)]
    times, paths, phases = [], {}, {}
    packs_before = len(list((repo_dir / "objects" / "pack").glob("*.pack")))
    pin_index = {}
    if left_behind:
        # What `wtc run start` does for a run that looks (coordinator/runs.py): the pin's word index
        # built and written to disk, outside the drain, in another process, so the drain loads it
        # from disk as a `wtc merge` process does (wtc-merge's run start was in prepare_run's
        # process). Built in this one, it left the drain warm caches the wtc-merge child's drain
        # fills itself (the pin's trees in libgit2's object cache, the words' modules): ~140 M
        # instructions the engine's figure did not pay. Its cost is printed apart.
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--pin-words", str(repo_dir)],
                              capture_output=True, text=True, check=True)
        pin_index = json.loads(done.stdout.splitlines()[-1])
    if finished:
        # What each task's `wtc task finish` computes before its merge (check/task_facts.py, the
        # finish's own code path), in another process, as the agents' finishes run: the drain
        # loads it from disk. Its CPU is printed apart (paths: finish_facts_cpu_s, for all tasks):
        # work moved off the drain's serial section, not removed.
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--facts", str(repo_dir),
                               "--tasks", str(tasks)], capture_output=True, text=True, check=True)
        pin_index |= json.loads(done.stdout.splitlines()[-1])
    cpu0, wall0 = _cpu(), time.perf_counter()
    with Integrator(repo, fast_path=fast_path) as engine, _held_writes(repo, semantic and drain):
        batch = engine.drain(INTEG, signature=SIG, tasks=len(task_ids)) if drain else None
        for i, task in enumerate(task_ids):
            t = time.perf_counter()
            check = {"check": semantic_check(f"task-{i}", git=git, left_behind=left_behind)} if semantic else {}
            if batch is not None:
                result = batch.merge(task, base, message=f"merge task {i}", author=SIG, **check)
            else:
                result = engine.merge_into(INTEG, task, base, message=f"merge task {i}", author=SIG, **check)
            times.append((time.perf_counter() - t) * 1000)
            if result.state is not IntegrationState.MERGED:
                raise SystemExit(f"task {i}: {result.state.value} {result.fallback_reason}")
            paths[result.path.value] = paths.get(result.path.value, 0) + 1
            for name, ms in result.timings_ms.items():
                phases.setdefault(name, []).append(ms)
        if batch is not None:
            t = time.perf_counter()
            batch.publish()
            phases["publish"] = [(time.perf_counter() - t) * 1000]
    wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    tree = str(repo[repo.references[INTEG].target].tree_id)
    paths["packs written"] = len(list((repo_dir / "objects" / "pack").glob("*.pack"))) - packs_before
    return _summary(times, wall, cpu, tree, paths=paths | pin_index,
                    phases={k: round(statistics.median(v), 2) for k, v in phases.items()})


def pin_words(repo_dir: Path) -> dict:
    """The pin's word index (pin_words.keep_pin_words), as `wtc run start` builds it, written to the
    repository's merge index; the CPU it took, apart."""
    from worktree_coord.merge.checks.merge_index import MergeIndex, index_folder
    from worktree_coord.merge.checks.pin_words import keep_pin_words

    repo = pygit2.Repository(str(repo_dir))
    cpu0 = _cpu()
    keep_pin_words(repo, repo.references["refs/heads/main"].target, MergeIndex(index_folder(repo)))
    return {"pin_index_cpu_s": round(_cpu() - cpu0, 3)}


def finish_facts(repo_dir: Path, tasks: int) -> dict:
    """Each task's finish-side facts (check/task_facts.keep_task_facts), as `wtc task finish` computes
    them, written to the repository's merge index; the CPU they took (all tasks), apart."""
    from worktree_coord.check.task_facts import keep_task_facts
    from worktree_coord.merge.checks.merge_index import index_folder, shared_index

    git = GitRepo(str(repo_dir))
    base = str(git.repo.references["refs/heads/main"].target)
    kept = shared_index(index_folder(git.repo))
    cpu0 = _cpu()
    for i in range(tasks):
        keep_task_facts(git, base, str(git.repo.references[f"refs/heads/task/{i:04d}"].target), kept)
        kept.settle()   # each finish writes its own
    return {"finish_facts_cpu_s": round(_cpu() - cpu0, 3)}


RUN = "bench"   # the wtc-merge method's run


def _wtc_work(prepared: Path) -> Path:
    """Where the prepared run is built and where each wtc-merge run works on its copy: one path, so
    the store's path (which the port registry's leases name) is the one its tasks were started in."""
    return prepared.with_name(prepared.name + ".work")


def _own_state(repo_dir: Path) -> None:
    """The machine's port registry (user_state_dir) kept inside the repository for this process, so
    the prepared tasks' port leases travel with each copy and the machine's registry is untouched."""
    os.environ["WTC_STATE_DIR"] = str(repo_dir / ".git" / "bench-state")


def _kept_facts_from(machine: Path, repo_dir: Path) -> None:
    """The facts kept on disk for later processes (kept_on_disk.py: the words a query needs, the
    profiles' index...) copied from the machine's state folder, which the engine children read, into
    the run's own (_own_state): both children then find the same ones. Without them the wtc-merge
    child derived, inside its timing, what every process on a machine that ran `wtc` before reads
    (the star-names query's words: a tree-sitter query compiled, 92 M instructions), which the
    prepared run's finishes never needed and the engine children read from the machine's folder."""
    own = repo_dir / ".git" / "bench-state"
    for entry in machine.iterdir() if machine.is_dir() else ():
        # (not the port leases: port_registry.LEASES_FOLDER, named here so that the timed call, not
        # this copy, imports the registry's module, as the merge call of a `wtc merge` process does)
        if entry.is_dir() and entry.name != "ports":
            shutil.copytree(entry, own / entry.name, dirs_exist_ok=True)


def prepare_run(gen: Path, out: Path, files: int, tasks: int) -> None:
    """A clone of `gen` with a wtc run whose `tasks` tasks are started (sparse, owning their package)
    and finished with --no-merge through the Coordinator, each writing what its task branch holds:
    the queue `wtc merge` drains (method wtc-merge). Built at `_wtc_work(out)`, renamed when done."""
    from worktree_coord import Coordinator

    partial = _wtc_work(out)
    shutil.rmtree(partial, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "-b", "main", str(gen), str(partial)], check=True, env=_env())
    _own_state(partial)
    with Coordinator(partial) as coordinator:
        coordinator.start_run(RUN)
        for i in range(tasks):
            p, r = i % PACKAGES, i // PACKAGES
            started = coordinator.start_task(RUN, f"t{i:04d}", [f"packages/p{p:03d}/**"], sparse=True)
            writes, deletes = task_change(p, r, files, i)
            for path, payload in writes.items():
                target = Path(started.worktree) / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(payload)
            for path in deletes:
                (Path(started.worktree) / path).unlink()
            finished = coordinator.finish_task(RUN, f"t{i:04d}", merge=False)
            if finished.state != "finished":
                raise SystemExit(f"task {i}: finished as {finished.state}")
    partial.rename(out)


def run_wtc_merge(repo_dir: Path, tasks: int) -> dict:
    """`wtc merge` of the prepared run (prepare_run), timed around the call with its Coordinator."""
    from worktree_coord import Coordinator

    cpu0, wall0 = _cpu(), time.perf_counter()
    with Coordinator(repo_dir) as coordinator:
        report = coordinator.merge(RUN)
    wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    states = {}
    for row in report.tasks:
        states[row["state"]] = states.get(row["state"], 0) + 1
    if states != {"merged": tasks}:
        raise SystemExit(f"wtc merge: {states}")
    repo = pygit2.Repository(str(repo_dir))
    tree = str(repo[repo.references[f"refs/heads/wtc/{RUN}/integration"].target].tree_id)
    return _summary([wall * 1000 / tasks] * tasks, wall, cpu, tree, paths=states, phases={})


def _held_writes(repo: pygit2.Repository, hold: bool):
    """The merge index's disk writes held for the drain's end, as `wtc merge` holds them."""
    import contextlib

    if not hold:
        return contextlib.nullcontext()
    from worktree_coord.merge.checks.merge_index import index_folder, shared_index

    return shared_index(index_folder(repo)).held()


def run_baseline(repo_dir: Path, tasks: int) -> dict:
    env = _env()
    git = ["git", "-C", str(repo_dir)]

    def out(*args: str) -> str:
        return subprocess.run([*git, *args], check=True, capture_output=True, env=env).stdout.decode().strip()

    base = out("rev-parse", "refs/heads/main")
    out("update-ref", INTEG, base)
    tip = base
    times, phases = [], {"merge-tree": [], "commit-tree": [], "update-ref": []}
    cpu0, wall0 = _cpu(), time.perf_counter()
    for i in range(tasks):
        task = f"refs/heads/task/{i:04d}"
        t0 = time.perf_counter()
        tree = out("merge-tree", "--write-tree", tip, task).split()[0]
        t1 = time.perf_counter()
        new = out("commit-tree", tree, "-p", tip, "-p", task, "-m", f"merge task {i}")
        t2 = time.perf_counter()
        out("update-ref", INTEG, new, tip)
        t3 = time.perf_counter()
        tip = new
        times.append((t3 - t0) * 1000)
        for name, a, b in (("merge-tree", t0, t1), ("commit-tree", t1, t2), ("update-ref", t2, t3)):
            phases[name].append((b - a) * 1000)
    wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    tree = out("rev-parse", f"{tip}^{{tree}}")
    return _summary(times, wall, cpu, tree, paths={"git-cli": tasks},
                    phases={k: round(statistics.median(v), 2) for k, v in phases.items()})


def _summary(times: list[float], wall: float, cpu: float, tree: str, **extra) -> dict:
    ordered = sorted(times)
    return {
        "merges": len(times),
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "first10_ms": round(statistics.mean(times[:10]), 2),
        "last10_ms": round(statistics.mean(times[-10:]), 2),
        "total_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "tree": tree,
        **extra,
    }


def _combine(runs: list[dict]) -> dict:
    """Median over repeated runs of each number (the trees must all agree)."""
    if len({r["tree"] for r in runs}) != 1:
        raise SystemExit("repeated runs of one method ended on different trees")
    out = dict(runs[0])
    for key in ("median_ms", "p95_ms", "first10_ms", "last10_ms", "total_s", "cpu_s", "speed_ms"):
        out[key] = round(statistics.median(r[key] for r in runs), 2)
    out["runs"] = len(runs)
    return out


def _speed() -> float:
    """CPU milliseconds of one fixed piece of work, measured in a run's process just before and just
    after it: the machine's speed at that moment. This 2-vCPU VM shares its host: the same code's
    CPU time moves by up to half between runs minutes apart, in fresh processes alike (a drain's
    libgit2 merge phase 0.47 or 0.72 ms a merge), so a run whose number stands out is read against
    this column before it is blamed on the code. The work is what a drain's own is made of:
    bytecode, and lookups spread over a 16 MB dict (memory latency, which a neighbour on the shared
    caches slows first), not arithmetic a core's own cache holds."""
    import random

    table = dict.fromkeys(range(1 << 18), 1)
    keys = list(range(1 << 18))
    random.Random(36).shuffle(keys)
    t = time.process_time()
    total = 0
    for key in keys[:200_000]:
        total += table[key]
    assert total == 200_000
    return round((time.process_time() - t) * 1000, 1)


def _run(method: str, gen: Path, work: Path, tasks: int, code: str | None = None) -> dict:
    """One run of `method` in a fresh Python process, as `wtc merge` is one: nothing an earlier run
    of this bench loaded, cached or left in memory (the checks' caches keyed by blob ids find the
    same contents on every run's copy; the collector's generations, the allocator's arenas) carries
    into its numbers, and no method's figure depends on which one ran before it."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", method, "--gen", str(gen),
           "--work", str(work), "--tasks", str(tasks)] + (["--imports"] if IMPORTS else [])
    env = dict(os.environ, WTC_BENCH_CODE=code) if code else None
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{method} run failed ({done.returncode}):\n{done.stderr or done.stdout}")
    return json.loads(done.stdout.splitlines()[-1])


def _run_here(method: str, gen: Path, work: Path, tasks: int) -> dict:
    """The child's side of _run: a fresh copy of the repository, the speed probe, the method."""
    machine = None
    if method == "wtc-merge":
        from worktree_coord.config import user_state_dir

        machine = user_state_dir()   # the engine children's, with the facts kept there
        gen = gen.with_name(gen.name + "-wtc")   # the prepared run (prepare_run), a clone with its store
        work = _wtc_work(gen)
        _own_state(work)
    shutil.rmtree(work, ignore_errors=True)
    # A fresh copy (symlinks as links: a run's worktree folders hold none): no method finds objects
    # another one wrote. `cp -a` keeps hard links: the wtc-merge run's port leases (bench-state/ports)
    # are one file a lease with a name a port, as wtc writes them; shutil.copytree made each name a
    # file of its own, and the drain's release read ten files a task where wtc reads one.
    subprocess.run(["cp", "-a", str(gen), str(work)], check=True)
    if machine is not None:
        _kept_facts_from(machine, work)
    before = _speed()
    try:
        res = _method(method, work, tasks)
        # The process's resident memory when the drain has published (the bench's imports and the
        # run's): a drain that grows with its length shows here (--tasks 1000 against 200).
        rss = next(int(line.split()[1]) // 1024 for line in open("/proc/self/status") if line.startswith("VmRSS"))
        return {**res, "speed_ms": round((before + _speed()) / 2, 1), "rss_mb": rss, "pid": os.getpid()}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _method(method: str, work: Path, tasks: int) -> dict:
    held = os.environ.pop(HOLD_ENV, None)
    if method.endswith("-loose"):
        os.environ[HOLD_ENV] = "0"   # the product's switch: the same drain, its objects loose files
        method = method.removesuffix("-loose")
    try:
        if method == "engine":
            return run_engine(work, tasks, fast_path=True)
        if method == "engine-one":
            return run_engine(work, tasks, fast_path=True, drain=False)
        if method == "engine-mt":
            return run_engine(work, tasks, fast_path=False, drain=False)
        if method == "engine-sem":
            return run_engine(work, tasks, fast_path=True, semantic=True)
        if method == "engine-run":
            return run_engine(work, tasks, fast_path=True, semantic=True, left_behind=True)
        if method == "engine-run-finished":
            return run_engine(work, tasks, fast_path=True, semantic=True, left_behind=True, finished=True)
        if method == "wtc-merge":
            return run_wtc_merge(work, tasks)
        if method == "baseline":
            return run_baseline(work, tasks)
        raise SystemExit(f"unknown method {method!r}")
    finally:
        os.environ.pop(HOLD_ENV, None)
        if held is not None:
            os.environ[HOLD_ENV] = held


def _ratio(runs: dict, a: tuple[str, str], b: tuple[str, str], key: str) -> float:
    """Median over repetitions of the paired ratio a/b (pairs ran back to back, under one load)."""
    pairs = zip(runs[a[0]][a[1]], runs[b[0]][b[1]])
    return round(statistics.median(x[key] / y[key] for x, y in pairs), 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=200, help="task branches to merge (full size: 1000)")
    parser.add_argument("--sizes", default="25,250",
                        help="files per package for the small and the large repository (x200 packages)")
    parser.add_argument("--methods", default="engine,engine-mt,baseline")
    parser.add_argument("--repeat", type=int, default=3, help="runs per method and size; medians are reported")
    parser.add_argument("--workdir", help="keep the generated repositories here (default: a temp dir)")
    parser.add_argument("--json", help="also write the results as JSON to this file")
    parser.add_argument("--imports", action="store_true",
                        help="every file imports a module (`import os`) and a name of its folder's first module, "
                             "as a real run's files do (the default files import nothing)")
    parser.add_argument("--baseline", help="a folder holding another code's worktree_coord/ (e.g. `git archive "
                                               "main | tar -x -C DIR`): each method also runs with it, as "
                                               "METHOD@base, right after this code's run (paired ratios printed)")
    parser.add_argument("--prepare", help=argparse.SUPPRESS)   # prepare_run into this folder, in this process
    parser.add_argument("--files", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)   # one run of this method, in this process (_run)
    parser.add_argument("--gen", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--facts", help=argparse.SUPPRESS)   # finish_facts of this repository, in this process
    parser.add_argument("--pin-words", help=argparse.SUPPRESS)   # pin_words of this repository, in this process
    args = parser.parse_args()
    global IMPORTS
    IMPORTS = args.imports
    if args.pin_words:
        print(json.dumps(pin_words(Path(args.pin_words))))
        return 0
    if args.facts:
        print(json.dumps(finish_facts(Path(args.facts), args.tasks)))
        return 0
    if args.prepare:
        prepare_run(Path(args.gen), Path(args.prepare), args.files, args.tasks)
        return 0
    if args.child:
        print(json.dumps(_run_here(args.child, Path(args.gen), Path(args.work), args.tasks)))
        return 0
    # Bytecode as an install has it, outside the timings (scripts/bytecode.py): with
    # PYTHONDONTWRITEBYTECODE set, each run's process would compile the modules a drain loads on
    # its first merge (the checks, ~0.12 s of CPU) and time that.
    compile_package(str(Path(__file__).resolve().parents[1]), *([args.baseline] if args.baseline else []))
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = args.methods.split(",")
    codes = {m: None for m in methods}
    if args.baseline:   # each method, then the same with the other code (one pair under one load)
        methods = [v for m in methods for v in ((m, f"{m}@base") if m != "baseline" else (m,))]
        codes |= {f"{m}@base": str(Path(args.baseline).resolve()) for m in codes if m != "baseline"}
    root = Path(args.workdir or tempfile.mkdtemp(prefix="wtc-bench-merge-"))
    root.mkdir(parents=True, exist_ok=True)
    labels = {files: f"{files * PACKAGES / 1000:g}k" for files in sizes}
    print(f"# bench_merge: {args.tasks} tasks, sizes {sizes} files/package x {PACKAGES} packages, "
          f"{args.repeat} runs, git {subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.split()[-1]}, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, dict[str, list[dict]]] = {labels[f]: {m: [] for m in methods} for f in sizes}
    try:
        for files in sizes:
            gen = root / f"gen-{files}-{args.tasks}{'-imports' if IMPORTS else ''}"
            t = time.perf_counter()
            if not gen.exists():
                generate(gen, files, args.tasks)
            prepared = gen.with_name(gen.name + "-wtc")
            if "wtc-merge" in methods and not prepared.exists():   # this code's finishes, in a process of its own
                subprocess.run([sys.executable, str(Path(__file__).resolve()), "--prepare", str(prepared),
                                "--gen", str(gen), "--files", str(files), "--tasks", str(args.tasks)]
                               + (["--imports"] if IMPORTS else []), check=True)
            print(f"{labels[files]}: {files * PACKAGES} files + {args.tasks} task branches ready in "
                  f"{time.perf_counter() - t:.1f} s", flush=True)
        # Repetition outermost, then size, then method: the runs compared in a ratio ran close
        # together, so the load of other jobs on the machine hits both sides alike.
        for rep in range(args.repeat):
            for files in sizes:
                label = labels[files]
                # Each repetition starts with the next method: the first run of a process pays its
                # warm-up (imports, grammars, the page cache), which no method should always carry.
                # (a method and its @base run stay side by side, the first of them swapped each
                # repetition: the rotation moves by pairs)
                order = [m for m in methods if not m.endswith("@base")]
                for first in order[rep % len(order):] + order[:rep % len(order)]:
                    pair = (first, f"{first}@base")[::1 if rep % 2 == 0 else -1]
                    for method in [m for m in pair if m in methods]:
                        res = _run(method.removesuffix("@base"), root / f"gen-{files}-{args.tasks}{'-imports' if IMPORTS else ''}",
                                   root / f"run-{files}-{method}", args.tasks, codes[method])
                        runs[label][method].append(res)
                        print(f"  run {rep + 1} {label:>4} {method:10s} median {res['median_ms']:7.2f} ms  "
                              f"p95 {res['p95_ms']:7.2f}  first10 {res['first10_ms']:6.2f} -> last10 "
                              f"{res['last10_ms']:6.2f}  total {res['total_s']:6.2f} s  cpu {res['cpu_s']:6.2f} s  "
                              f"paths {res['paths']}  phases {res['phases']}  speed {res['speed_ms']:5.1f} ms  "
                              f"rss {res['rss_mb']} MB  "
                              f"load {os.getloadavg()[0]:.1f}",
                              flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(root, ignore_errors=True)
    results = {label: {m: _combine(r) for m, r in by_method.items()} for label, by_method in runs.items()}
    print(f"medians over {args.repeat} runs:")
    for label, by_method in results.items():
        trees = {r["tree"] for r in by_method.values()}
        if len(trees) != 1:
            raise SystemExit(f"{label}: methods ended on different trees: {trees}")
        for method, res in by_method.items():
            print(f"  {label:>4} {method:10s} per-merge median {res['median_ms']:6.2f} ms  p95 {res['p95_ms']:6.2f}  "
                  f"first10 {res['first10_ms']:6.2f} -> last10 {res['last10_ms']:6.2f}  total {res['total_s']:6.2f} s  "
                  f"cpu {res['cpu_s']:6.2f} s  cpu/merge {1000 * res['cpu_s'] / res['merges']:5.2f} ms  "
                  f"speed {res['speed_ms']:5.1f} ms")
        print(f"  {label:>4} all methods end on tree {trees.pop()[:12]}")
    small, large = labels[sizes[0]], labels[sizes[-1]]
    ratios = {}
    for method in [m for m in ("engine", "engine-loose", "engine-one", "engine-sem", "engine-sem-loose", "engine-run",
                               "engine-run-finished", "wtc-merge") for m in (m, f"{m}@base")
                   if m in methods and "baseline" in methods]:
        for label in (small, large) if small != large else (large,):
            ratios[f"{method} total / baseline total @{label}"] = _ratio(runs, (label, method), (label, "baseline"), "total_s")
            ratios[f"{method} cpu / baseline cpu @{label}"] = _ratio(runs, (label, method), (label, "baseline"), "cpu_s")
    for held, loose in (("engine", "engine-loose"), ("engine-sem", "engine-sem-loose")):
        if held in methods and loose in methods:
            for label in (small, large) if small != large else (large,):
                ratios[f"{held} total / {loose} total @{label}"] = _ratio(runs, (label, held), (label, loose), "total_s")
                ratios[f"{held} cpu / {loose} cpu @{label}"] = _ratio(runs, (label, held), (label, loose), "cpu_s")
    for method in [m for m in methods if f"{m}@base" in methods]:   # this code against the other, pair by pair
        for label in (small, large) if small != large else (large,):
            ratios[f"{method} cpu / {method}@base cpu @{label}"] = _ratio(runs, (label, method), (label, f"{method}@base"),
                                                                         "cpu_s")
    if small != large:
        for method in [m for m in ("engine", "engine-one", "engine-mt", "engine-sem", "engine-run", "engine-run-finished")
                       if m in methods]:
            ratios[f"{method} median {large} / {small}"] = _ratio(runs, (large, method), (small, method), "median_ms")
            ratios[f"{method} cpu/merge {large} / {small}"] = _ratio(runs, (large, method), (small, method), "cpu_s")
    print("ratios, median of paired runs (targets: engine[-sem] total / baseline total <= 0.5; "
          "engine median large / small <= 1.5, engine-sem <= 1.2):")
    for name, value in ratios.items():
        print(f"  {name} = {value}")
    if args.json:
        Path(args.json).write_text(json.dumps({"tasks": args.tasks, "repeat": args.repeat, "results": results,
                                               "runs": runs, "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
