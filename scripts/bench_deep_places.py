"""Benchmark symbols.extract on deeply nested input: each (node, side) placed once, against the old walk.

A reference chain `X.a.a...a` DEPTH long (one expression nested DEPTH deep) and DEPTH nested classes:
symbols._Placer.place walked every parent of each reference to the root, and tree-sitter finds each
parent from the root, so one file cost about DEPTH^3 steps (114 s at DEPTH 1500 and load 15, in a
`task check`). Times, each REPEAT times, in this one run:

  placed    symbols.extract as it is (place answers each node from its parent's answer)
  baseline  the same with place() swapped for the old walk (copied below)

and prints medians and the ratio placed / baseline per input.

    python scripts/bench_deep_places.py [--depth 800] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from worktree_coord.merge.checks import symbols  # noqa: E402
from worktree_coord.merge.checks.semantic import semantic_profile  # noqa: E402


def old_place(self, node):   # the walk before: every parent of `node`, every call
    containers, functions, path = [], [], []
    current = node
    while current is not None:
        owner = self.owner(current)
        if owner is not None:
            role, name = owner
            path.append(f"{self.defs.get(current.id, (current.type,))[0]} {name}")
            if role == "function":
                functions.append(current.id)
                if current.type in self.member_of and not containers:
                    receiver = self.type_name(current, self.member_of[current.type])
                    if receiver:
                        containers.append(receiver)
            else:
                containers.append(name)
        current = current.parent
    return tuple(reversed(containers)), frozenset(functions), " > ".join(reversed(path)), bool(functions)


def timed(source: bytes, repeat: int) -> float:
    profile = semantic_profile("pkg/user.py")
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        symbols.extract(profile, source)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=800)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    inputs = {
        "chain": ("from pkg.utils import parse\nX = parse\n" + "X" + ".a" * args.depth + "\n").encode(),
        "classes": ("from pkg.utils import parse\n" + "".join(" " * i + f"class C{i}:\n" for i in range(args.depth))
                    + " " * args.depth + "x = parse(1)\n").encode(),
    }
    new_place = symbols._Placer.place
    for name, source in inputs.items():
        placed = timed(source, args.repeat)
        symbols._Placer.place = old_place
        try:
            baseline = timed(source, args.repeat)
        finally:
            symbols._Placer.place = new_place
        print(f"{name:8} depth {args.depth}: placed {placed * 1000:.1f} ms, baseline {baseline * 1000:.1f} ms, "
              f"ratio {placed / baseline:.3f} (medians of {args.repeat})")


if __name__ == "__main__":
    main()
