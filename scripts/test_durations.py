#!/usr/bin/env python3
"""Where the test suite's time goes: the slowest tests, the slowest files, and the totals.

The suite must stay well inside its CI budget (about 15 minutes on two cores, install included);
every round adds tests, so watch this before it grows over. The script runs pytest as CI does
(`addopts` in pyproject.toml: two xdist workers) with a JUnit XML report in a temporary folder,
or reads a report a run already wrote (`--xml`), and prints:

- the session's wall time (from the report) and the sum of every test's time (setup + call +
  teardown: what the two workers share out, so about twice the wall time when they stay busy);
- the time of the tests marked `heavy` (tests/conftest.py runs each with no other test beside it,
  so one worker idles through them: they count in full against the wall time);
- the N slowest tests and the N slowest files.

A test's setup includes its wait for the heavy-test lock under xdist (tests/conftest.py), so a test
queued behind a heavy one can look slow in setup; `--durations=0` of pytest itself splits the
phases. The machine's load moves every number: say it (`uptime`) beside any figure you report.

Usage:
    python scripts/test_durations.py [--top N] [-- PYTEST ARGS...]   # run the suite (or a part), then report
    python scripts/test_durations.py --xml report.xml [--top N]      # report a run made with --junitxml
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class TestTime:
    file: str
    name: str
    seconds: float
    outcome: str


def read_report(path: Path) -> tuple[float, list[TestTime]]:
    """The session's wall time and each test's time, from a pytest JUnit XML report."""
    root = ElementTree.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    wall = sum(float(suite.get("time", 0)) for suite in suites)
    tests = []
    for case in root.iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        # classname is the dotted module path (plus a class); the file is what a reader opens
        module = case.get("classname", "")
        file = module.replace(".", "/")
        while file and not (ROOT / f"{file}.py").is_file() and "/" in file:
            file = file.rsplit("/", 1)[0]
        tests.append(TestTime(f"{file}.py", case.get("name", ""), float(case.get("time", 0)), outcome))
    return wall, tests


def heavy_test_names(tests: list[TestTime]) -> set[tuple[str, str]]:
    """The (file, test name) of the tests marked heavy, found by collecting the suite (no test runs)."""
    files = sorted({t.file for t in tests})
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "--collect-only", "-m", "heavy",
                           "-p", "no:cacheprovider", *files], cwd=ROOT, capture_output=True, text=True)
    heavy = set()
    for line in done.stdout.splitlines():
        if "::" in line:
            file, _, name = line.strip().partition("::")
            heavy.add((file, name.split("::")[-1]))
    return heavy


def print_report(wall: float, tests: list[TestTime], top: int) -> None:
    total = sum(t.seconds for t in tests)
    heavy = heavy_test_names(tests)
    heavy_seconds = sum(t.seconds for t in tests if (t.file, t.name) in heavy)
    print(f"{len(tests)} tests; wall {wall:.0f} s ({wall / 60:.1f} min); sum of test times {total:.0f} s; "
          f"heavy tests (each alone) {heavy_seconds:.0f} s; load now {os.getloadavg()[0]:.1f}")
    print(f"\nslowest {top} tests (setup + call + teardown):")
    for t in sorted(tests, key=lambda t: -t.seconds)[:top]:
        mark = " [heavy]" if (t.file, t.name) in heavy else ""
        print(f"{t.seconds:8.1f} s  {t.file}::{t.name}{mark}" + ("" if t.outcome == "passed" else f"  ({t.outcome})"))
    by_file: dict[str, list[float]] = defaultdict(list)
    for t in tests:
        by_file[t.file].append(t.seconds)
    print(f"\nslowest {top} files:")
    for file, times in sorted(by_file.items(), key=lambda item: -sum(item[1]))[:top]:
        print(f"{sum(times):8.1f} s  {len(times):4d} tests  {file}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=60, help="how many tests and files to list (default 60)")
    parser.add_argument("--xml", type=Path, help="read this JUnit XML report instead of running pytest")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    if args.xml:
        wall, tests = read_report(args.xml)
        print_report(wall, tests, args.top)
        return 0
    with tempfile.TemporaryDirectory(prefix="wtc-durations-") as folder:
        report = Path(folder) / "report.xml"
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", f"--junitxml={report}", *args.pytest_args],
                              cwd=ROOT)
        if not report.is_file():
            return done.returncode or 1
        wall, tests = read_report(report)
        print_report(wall, tests, args.top)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
