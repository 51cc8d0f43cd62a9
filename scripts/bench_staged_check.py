"""Benchmark the pre-commit check (`wtc check --staged`, worktree_coord.check.check_staged): what the
look for uses left behind adds to it.

Builds a synthetic monorepo (scripts/monorepo.py), fills its index from `main` (no files on disk:
the staged check reads the index and HEAD), and stages one of two changes:

  add       FILES modules each gain a function (nothing removed: nothing to look for)
  remove    one module loses a function whose name other modules hold (the look greps and parses)

Each is timed REPEAT times in process with `left_behind="off"` (the staged check as it was: the
boundary and reserved files only; the baseline) and `"block"` (with the look), and the script prints
medians and the ratio look/baseline per change.

    python scripts/bench_staged_check.py [--packages 200] [--files-per-package 250] [--files 20] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from monorepo import generate, module_text  # noqa: E402

from worktree_coord.check import check_staged  # noqa: E402


def module(package: int, index: int) -> str:
    return f"packages/p{package:03d}/src/sub{index % 10}/mod{index:03d}.py"


def stage(path: Path, files: dict[str, bytes]) -> None:
    """The index reset to HEAD, then `files` staged (written as blobs, never checked out)."""
    subprocess.run(["git", "read-tree", "HEAD"], cwd=path, check=True)
    for rel, data in files.items():
        blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=path, input=data, check=True,
                              capture_output=True).stdout.decode().strip()
        subprocess.run(["git", "update-index", "--cacheinfo", f"100644,{blob},{rel}"], cwd=path, check=True)


def timed(path: Path, mode: str, repeat: int) -> tuple[float, object]:
    times, report = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        report = check_staged(path, own=["**"], left_behind=mode)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000, report


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", type=int, default=200)
    parser.add_argument("--files-per-package", type=int, default=250)
    parser.add_argument("--files", type=int, default=20, help="modules the `add` change edits")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    path = generate(Path(tempfile.mkdtemp(prefix="wtc-bench-staged-")) / "repo", args.packages,
                    args.files_per_package)
    changes = {
        "add": {module(1, i): module_text(1, i) + b"\n\ndef added():\n    return 1\n" for i in range(args.files)},
        # f0_5 is defined in mod005 of every package: the look finds the name in every one of them.
        "remove": {module(1, 5): module_text(1, 5).replace(b"def f0_5(x):\n    return x * 1 + 1\n\n\n", b"")},
    }
    assert changes["remove"][module(1, 5)] != module_text(1, 5)
    print(f"repo: {args.packages * args.files_per_package} files; repeat {args.repeat}; medians")
    for name, files in changes.items():
        stage(path, files)
        check_staged(path, own=["**"], left_behind="block")   # warm: imports, the first parse of a profile
        off, _ = timed(path, "off", args.repeat)
        block, report = timed(path, "block", args.repeat)
        assert report.exit_code == 0, report.to_json()   # nothing uses the removed name
        print(f"{name:7s} baseline (left-behind off) {off:8.1f} ms   with the look {block:8.1f} ms   "
              f"ratio {block / off:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
