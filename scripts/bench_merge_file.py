#!/usr/bin/env python3
"""Benchmark: per-file time of merge_file (and of its structured stage alone) against `git merge-file`.

Inputs: every case under fixtures/merge/, plus a generated 5,000-line Python module with 300
functions where each side changes 20 functions and appends 20 new ones at the same place (so the
line merge conflicts and the structured stage runs). Baseline: `git merge-file -p --diff3` as a
subprocess, measured in the same run. Targets (issue 3): median <= 50 ms and p95 <= 500 ms for
files under 2,000 lines; <= 1 s for the 5,000-line module. Wall times on a loaded machine swing
several-fold; the CPU time of the big merge is printed too, and the git baseline shows the load.
The cascade runs with its semantic check (the default); the same files with the check off show its
cost, and the check alone is timed on the big module with one side deleting 20 functions the
other side's new code calls (its slow path: every version parsed and queried).

With `--language L` (repeatable) only those fixture folders are timed, and every run prints each
language's own median and p95 (the targets hold per language). With `--history REPO` (repeatable)
the files of the real-merge corpus mined from those repositories (scripts/history_corpus.py, its
cache) are timed too, per language, files under 2,000 lines only: fixtures are small, real files
are not.

Usage: python scripts/bench_merge_file.py [--repeat N] [--language L]... [--history REPO]...
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tree_sitter  # noqa: E402

from worktree_coord.merge import merge_file  # noqa: E402
from worktree_coord.merge.lines.line import git_merge_file  # noqa: E402
from worktree_coord.merge.languages.profiles import profile_for_path  # noqa: E402
from worktree_coord.merge.checks.semantic import check_file  # noqa: E402
from worktree_coord.merge.syntax.structured import StructuredMerge, Version  # noqa: E402


def generated_module(seed: int = 3) -> tuple[bytes, bytes, bytes]:
    rng = random.Random(seed)

    def function(name: str, salt: int) -> str:
        body = "".join(f"    value_{i} = x * {salt + i} + {i}\n" for i in range(12))
        return f"def {name}(x):\n    \"\"\"Compute {name}.\"\"\"\n{body}    return value_11\n"

    names = [f"func_{i:03d}" for i in range(300)]
    base = {name: function(name, i) for i, name in enumerate(names)}
    sides = []
    chosen = rng.sample(names, 40)  # disjoint: the first 20 change on the left, the rest on the right
    for side, salt in (("left", 1000), ("right", 2000)):
        changed = dict(base)
        for name in chosen[:20] if side == "left" else chosen[20:]:
            changed[name] = function(name, salt)
        extra = {f"{side}_new_{i:02d}": function(f"{side}_new_{i:02d}", salt + i) for i in range(20)}
        sides.append("import os\n\n\n" + "\n\n".join(list(changed.values()) + list(extra.values())))
    base_text = "import os\n\n\n" + "\n\n".join(base.values())
    return base_text.encode(), sides[0].encode(), sides[1].encode()


def fixture_cases() -> list[tuple[str, bytes, bytes, bytes]]:
    cases = []
    for case in sorted((ROOT / "fixtures" / "merge").glob("*/*")):
        if not case.is_dir():
            continue
        files = {path.stem: path for path in case.iterdir() if path.stem in ("Base", "Left", "Right")}
        ext = files["Base"].suffix
        cases.append((f"{case.parent.name}/{case.name}{ext}", files["Base"].read_bytes(),
                      files["Left"].read_bytes(), files["Right"].read_bytes()))
    return cases


def timed(function, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best.append(time.perf_counter() - started)
    return statistics.median(best)


def structured_only(path: str, base: bytes, left: bytes, right: bytes) -> None:
    """The structured stage alone (parse three versions + merge), whatever the line merge says."""
    profile = profile_for_path(path)
    if profile is None:
        return
    parser = tree_sitter.Parser(profile.language)
    versions = [Version(data, parser.parse(data).root_node) for data in (base, left, right)]
    try:
        StructuredMerge(profile, marker_size=7, labels=("ours", "base", "theirs"), deadline=time.monotonic() + 10).merge(*versions)
    except Exception:  # noqa: BLE001 - an Unmergeable input still costs its time
        pass


def _deleting_side(base: bytes, other: bytes) -> tuple[bytes, list[str]]:
    """`base` without 20 functions that `other` left as they were, and their names."""
    chunks = base.split(b"\n\n\n")
    unchanged = set(other.split(b"\n\n\n"))
    doomed = [c for c in chunks[1:] if c in unchanged][::7][:20]
    names = [c.split(b"(", 1)[0][4:].decode() for c in doomed]
    return b"\n\n\n".join(c for c in chunks if c not in doomed), names


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--language", action="append", default=[],
                        help="time only these fixture folders (fixtures/merge/<language>); repeatable")
    parser.add_argument("--history", action="append", default=[],
                        help="also time the real-merge corpus files of this repository (under 2,000 lines); repeatable")
    args = parser.parse_args()
    merge_file(b"a\n", b"b\n", b"c\n", "warm.py")  # load the binding and grammars once
    cascade, unchecked, structured, git = [], [], [], []
    per_language: dict[str, list[float]] = {}
    for name, base, left, right in fixture_cases():
        if max(data.count(b"\n") for data in (base, left, right)) >= 2000:
            continue
        if args.language and name.split("/", 1)[0] not in args.language:
            continue
        cascade.append(timed(lambda: merge_file(base, left, right, name), args.repeat))
        per_language.setdefault(name.split("/", 1)[0], []).append(cascade[-1])
        unchecked.append(timed(lambda: merge_file(base, left, right, name, semantic="off"), args.repeat))
        structured.append(timed(lambda: structured_only(name, base, left, right), args.repeat))
        git.append(timed(lambda: git_merge_file(base, left, right), args.repeat))
    print(f"fixtures: {len(cascade)} files under 2,000 lines, median of {args.repeat} runs each")
    for label, values in (("merge_file (cascade)", cascade), ("  semantic check off", unchecked),
                          ("structured stage only", structured), ("git merge-file", git)):
        print(f"  {label:<22} median {statistics.median(values) * 1000:7.2f} ms   p95 {percentile(values, 0.95) * 1000:7.2f} ms")
    print(f"  ratio merge_file / git merge-file (medians): {statistics.median(cascade) / statistics.median(git):.2f}")
    for language, values in sorted(per_language.items()):
        print(f"  {language:<12} {len(values):3d} files   median {statistics.median(values) * 1000:7.2f} ms"
              f"   p95 {percentile(values, 0.95) * 1000:7.2f} ms")
    history: dict[str, list[float]] = {}
    if args.history:
        sys.path.insert(0, str(ROOT / "scripts"))
        from history_corpus import load_cases  # noqa: PLC0415 - a script beside this one

        for cases in load_cases([Path(repo) for repo in args.history]):
            for case in cases:
                if args.language and case.language not in args.language:
                    continue
                versions = [case.read(which) for which in ("base", "left", "right")]
                if max(data.count(b"\n") for data in versions) >= 2000:
                    continue
                history.setdefault(case.language, []).append(
                    timed(lambda: merge_file(*versions, case.path), args.repeat))
        for language, values in sorted(history.items()):
            print(f"  history {language:<10} {len(values):3d} files   median {statistics.median(values) * 1000:7.2f} ms"
                  f"   p95 {percentile(values, 0.95) * 1000:7.2f} ms")
    languages_ok = all(statistics.median(values) <= 0.05 and percentile(values, 0.95) <= 0.5
                       for values in [*per_language.values(), *history.values()])
    base, left, right = generated_module()
    lines = base.count(b"\n")
    big = timed(lambda: merge_file(base, left, right, "big.py"), args.repeat)
    started_cpu = time.process_time()
    for _ in range(args.repeat):
        merge_file(base, left, right, "big.py")
    big_cpu = (time.process_time() - started_cpu) / args.repeat
    big_git = timed(lambda: git_merge_file(base, left, right), args.repeat)
    result = merge_file(base, left, right, "big.py")
    print(f"generated module: {lines} lines, 300 functions, 20 changed + 20 added per side")
    print(f"  merge_file {big * 1000:.1f} ms ({result.strategy.value}, clean={result.clean}); "
          f"git merge-file {big_git * 1000:.1f} ms; ratio {big / big_git:.1f}; merge_file CPU time {big_cpu * 1000:.1f} ms")
    deleted, names = _deleting_side(base, right)
    calling = right + "".join(f"\n\ndef caller_{i}(x):\n    return {name}(x)\n" for i, name in enumerate(names)).encode()
    merged = merge_file(base, deleted, calling, "big.py", semantic="off").merged
    check = timed(lambda: check_file(base, deleted, calling, merged, "big.py"), args.repeat)
    found = len(check_file(base, deleted, calling, merged, "big.py"))
    print(f"  semantic check alone, 20 functions deleted and called: {check * 1000:.1f} ms ({found} findings)")
    ok = statistics.median(cascade) <= 0.05 and percentile(cascade, 0.95) <= 0.5 and big <= 1.0 and languages_ok
    print("targets (median <= 50 ms, p95 <= 500 ms, 5,000 lines <= 1 s):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
