#!/usr/bin/env python3
"""Where one `wtc task start` goes: its imports (`python -X importtime`), its own work (cProfile of
the whole call in its process, grouped by stage), and every git process it runs (a `git` shim first
on PATH logs each argv with its wall time).

A small repository with one run; each measured call starts a new task (so it does its real work) as
the `wtc` script runs it (`python -m worktree_coord`), with `WTC_STATE_DIR` set to a copy of `--state`
or to a fresh folder, made once: the calls meet the machine as the previous call left it, after one
start that is not measured (an earlier version's registry is migrated there).

    python scripts/profile_start.py [--calls 5] [--state DIR] [--src DIR] [--top 25]

A measuring tool, not a benchmark: one call at a time on whatever load the machine has (say it).
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)

SHIM = """#!/bin/sh
start=$(date +%s%N)
"{git}" "$@"
code=$?
end=$(date +%s%N)
printf '%s\\t%s\\n' "$(( (end - start) / 1000 ))" "$*" >> "{log}"
exit $code
"""

# The profile is written by an atexit handler: a `wtc` process ends by os._exit after its atexit
# handlers (entry.leave), so the profile covers the whole call, imports included.
PROFILED = ("import atexit, cProfile, runpy, sys; out = sys.argv[1]; sys.argv = ['wtc'] + sys.argv[2:]; "
            "p = cProfile.Profile(); atexit.register(lambda: (p.disable(), p.dump_stats(out))); p.enable(); "
            "runpy.run_module('worktree_coord', run_name='__main__')")

# cProfile's cumulative time of these functions: the stages of a start (a name may nest in another).
STAGES = {
    "imports (module bodies)": "<module>",
    "port block (registry + store + bind test)": "_port_block",
    "store open": "_open_store",
    "worktree add (git)": "add_worktree",
    "prepare worktree": "_prepare_worktree",
    "manifest": "_write_manifest",
    "subprocess waits": "communicate",
    "sqlite commits": "commit",
    "connection close": "close",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--state", type=Path, help="a user state folder to start each call from (copied)")
    parser.add_argument("--src", help="a checkout whose worktree_coord to measure (first on PYTHONPATH)")
    parser.add_argument("--top", type=int, default=25, help="cProfile rows (cumulative) of the last call")
    args = parser.parse_args()
    compile_package(*([args.src] if args.src else []))  # bytecode as an install has it (scripts/bytecode.py)
    real_git = shutil.which("git")
    if real_git is None:
        parser.error("git is needed on PATH")
    with tempfile.TemporaryDirectory(prefix="wtc-profile-start-") as tmp_name:
        tmp = Path(tmp_name)
        shim, log = tmp / "shim", tmp / "git.log"
        shim.mkdir()
        (shim / "git").write_text(SHIM.format(git=real_git, log=log))
        (shim / "git").chmod(0o755)
        repo = tmp / "repo"
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        (repo / "README.md").write_text("profile\n")
        for number in range(args.calls):
            (repo / "packages" / f"t{number}").mkdir(parents=True)
            (repo / "packages" / f"t{number}" / "a.py").write_text("a = 1\n")
        identity = ["-c", "user.name=p", "-c", "user.email=p@example.invalid"]
        subprocess.run(["git", *identity, "-C", str(repo), "add", "-A"], check=True)
        subprocess.run(["git", *identity, "-C", str(repo), "commit", "-q", "-m", "init"], check=True)
        env = dict(os.environ, WTC_NO_SERVE="1", PATH=f"{shim}{os.pathsep}{os.environ['PATH']}")
        env.pop("PYTHONPROFILEIMPORTTIME", None)
        if args.src:
            env["PYTHONPATH"] = os.pathsep.join([args.src] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        state = tmp / "state"

        def fresh_state() -> None:
            shutil.rmtree(state, ignore_errors=True)
            if args.state is not None:
                shutil.copytree(args.state, state)
            else:
                state.mkdir()

        fresh_state()
        env["WTC_STATE_DIR"] = str(state)
        subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, env=env,
                       check=True, capture_output=True)
        subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", "warm", "--run", "r1", "--own",
                        "packages/warm/**"], cwd=repo, env=env, check=True, capture_output=True)
        walls, imports, stages, gits = [], [], {name: [] for name in STAGES}, []
        last: pstats.Stats | None = None
        for number in range(args.calls):
            task = ["task", "start", f"t{number}", "--run", "r1", "--own", f"packages/t{number}/**", "--json"]
            # One timed call, plain (its wall), then the same kind of call traced twice, each a new task.
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "worktree_coord", *task], cwd=repo, env=env, check=True,
                           capture_output=True)
            walls.append((time.perf_counter() - started) * 1000)
            traced = [arg.replace(f"t{number}", f"i{number}") for arg in task]
            done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", *traced], cwd=repo,
                                  env=env, check=True, capture_output=True, text=True)
            imports.append(sum(int(m.group(1)) for m in re.finditer(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$",
                                                                     done.stderr, re.M)) / 1000)
            log.unlink(missing_ok=True)
            profile = tmp / f"p{number}.prof"
            profiled = [arg.replace(f"t{number}", f"p{number}") for arg in task]
            subprocess.run([sys.executable, "-c", PROFILED, str(profile), *profiled], cwd=repo, env=env, check=True,
                           capture_output=True)
            calls = [line.split("\t", 1) for line in log.read_text().splitlines()] if log.exists() else []
            gits.append([(int(us) / 1000, argv) for us, argv in calls])
            last = pstats.Stats(str(profile))
            for name, function in STAGES.items():
                stages[name].append(sum(stat[3] for (_, _, fn), stat in last.stats.items() if fn == function) * 1000
                                    if function != "<module>" else
                                    max((stat[3] for (_, _, fn), stat in last.stats.items() if fn == function),
                                        default=0) * 1000)
    print(f"task start, {args.calls} calls, state {'fresh' if args.state is None else args.state}; "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"  wall (plain call)                          median {statistics.median(walls):7.1f} ms")
    print(f"  top-level imports (-X importtime, sum)     median {statistics.median(imports):7.1f} ms")
    for name, values in stages.items():
        print(f"  {name:42} median {statistics.median(values):7.1f} ms (cProfile, cumulative)")
    print(f"  git processes per call: {[len(g) for g in gits]}; last call's:")
    for ms, argv in gits[-1]:
        print(f"    {ms:7.1f} ms  git {argv[:110]}")
    if last is not None and args.top:
        last.sort_stats("cumulative").print_stats(args.top)
    print(json.dumps({"wall_ms": walls, "imports_ms": imports}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
