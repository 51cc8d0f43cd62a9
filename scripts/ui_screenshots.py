"""Screenshots of `wtc ui` for docs/ui.md, and the page's load time and memory with many tasks.

Builds a real run in a temporary repository (ten packages; each task edits one function of its
package's module through its own worktree; a few edit a function an earlier task already changed and
conflict, a few write outside their boundary and are rejected, a few are abandoned, the rest of the
live ones keep uncommitted edits the forecast reads), starts the real `wtc ui` and opens it in
headless Chromium with the code path of tests/ui (tests/ui/browser.py, tests/ui/live_server.py): the
page is open while the run moves, then the screenshots are taken without a reload.

    python scripts/ui_screenshots.py                       # 200 tasks: docs/ui/*.png
    python scripts/ui_screenshots.py --measure 200,1000    # load time and heap per run size (medians of 3)

Load time is the page's own: from navigation start to its first whole drawing (`data-ready-ms`, set
by app.js once the first `/api/changes` answer is drawn). Memory is Chromium's JS heap in use and
the DOM node count after that drawing. Absolute times depend on the machine and its load; the
ratio between two sizes measured in one run is what to compare.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import make_repo, write  # noqa: E402
from tests.ui.browser import Browser  # noqa: E402
from tests.ui.live_server import wtc_ui  # noqa: E402
from worktree_coord import Coordinator  # noqa: E402

PACKAGES = 10
FUNCTIONS = 120


def module(package: int, changed: dict[int, str] | None = None) -> str:
    changed = changed or {}
    return "\n\n".join(f"def f{i}():\n    return {changed.get(i, repr(f'p{package}f{i}'))}\n" for i in range(FUNCTIONS))


def make_project(root: Path) -> Path:
    files = {f"pkg/p{p}/mod.py": module(p) for p in range(PACKAGES)}
    files["docs/guide.md"] = "guide\n"
    files["package.json"] = '{"name": "demo", "dependencies": {}}\n'
    return make_repo(root, files)


def plan(tasks: int) -> list[dict]:
    """What each task does: `merge`, `conflict` (edits a function an earlier task edited), `reject`
    (writes outside its boundary), `abandon`, or `live` (keeps uncommitted edits)."""
    out = []
    for n in range(tasks):
        package, function = n % PACKAGES, (n // PACKAGES) % FUNCTIONS
        fate = "merge"
        if n % 23 == 22:
            fate, function = "conflict", ((n // PACKAGES) - 1) % FUNCTIONS
        elif n % 41 == 40:
            fate = "reject"
        elif n % 53 == 52:
            fate = "abandon"
        elif n >= tasks - max(3, tasks // 25):
            fate = "live"
            if n % 2:
                function = ((n // PACKAGES) - 2) % FUNCTIONS   # the forecast sees it collide with a merged task
        out.append({"task": f"p{package}-t{n:04d}", "package": package, "function": function, "fate": fate,
                    "intent": n % 37 == 5})
    return out


def run_tasks(repo: Path, steps: list[dict], *, start_only: bool = False) -> None:
    with Coordinator(repo) as coordinator:
        for step in steps:
            tree = Path(coordinator.start_task("r1", step["task"], [f"pkg/p{step['package']}/**"]).worktree)
            edit = {f"pkg/p{step['package']}/mod.py":
                    module(step["package"], {step["function"]: repr(step["task"])})}
            if step["fate"] == "reject":
                edit["docs/guide.md"] = f"guide by {step['task']}\n"
            if step["intent"]:
                edit["package.json"] = '{"name": "demo", "dependencies": {"left-pad": "^1.3.0"}}\n'
            write(tree, edit)
            if start_only or step["fate"] == "live":
                continue
            if step["fate"] == "abandon":
                coordinator.abandon_task("r1", step["task"])
            else:
                coordinator.finish_task("r1", step["task"])


def build(root: Path, tasks: int) -> Path:
    repo = make_project(root / "repo")
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
    run_tasks(repo, plan(tasks))
    return repo


def screenshots(tasks: int, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wtc-ui-shots-") as tmp:
        repo = make_project(Path(tmp) / "repo")
        with Coordinator(repo) as coordinator:
            coordinator.start_run("r1")
        steps = plan(tasks)
        run_tasks(repo, steps[:10])
        with wtc_ui(repo, "--run", "r1", "--forecast-every", "5") as url, Browser(Path(tmp) / "profile") as browser:
            browser.open(url + "/")
            browser.wait_for("document.body.dataset.ready === '1'")
            started = time.monotonic()
            run_tasks(repo, steps[10:])            # the run moves while the page is open
            print(f"{tasks} tasks run in {time.monotonic() - started:.0f} s with the page open", file=sys.stderr)
            browser.wait_for(f"document.querySelectorAll('#timeline .row').length === {tasks}", timeout=120)
            browser.wait_for("!!document.querySelector('#forecast td.c')", timeout=120, what="the forecast")
            browser.wait_for("document.querySelector('#manifest-count').textContent.includes('path')", timeout=120)
            time.sleep(1.5)
            browser.screenshot(out / "page.png")
            browser.screenshot(out / "conflicts.png", selector="#conflicts")
            browser.screenshot(out / "forecast.png", selector="#forecast-section")
            browser.evaluate("document.getElementById('search').value = 'p3-';"
                             "document.getElementById('search').dispatchEvent(new Event('input'))")
            time.sleep(0.5)
            browser.screenshot(out / "timeline-search.png", selector="#timeline-section")
            conflicted = browser.evaluate("document.querySelector('#conflicts tbody tr').dataset.task")
            browser.evaluate(f"document.querySelector('#timeline .row[data-task=\"{conflicted}\"]')?.click() || "
                             f"document.querySelector('#conflicts a[data-open=\"{conflicted}\"]').click()")
            browser.wait_for(f"document.querySelector('#detail-body')?.dataset.task === '{conflicted}'")
            browser.screenshot(out / "detail.png")
            errors = browser.errors()
            if errors:
                raise SystemExit(f"the page logged errors: {errors}")
            print(f"screenshots in {out}", file=sys.stderr)


def measure(sizes: list[int], repeats: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="wtc-ui-measure-") as tmp:
        for size in sizes:
            started = time.monotonic()
            repo = build(Path(tmp) / f"n{size}", size)
            built = time.monotonic() - started
            loads, heaps, nodes = [], [], []
            with wtc_ui(repo, "--run", "r1", "--no-forecast") as url:
                with urllib.request.urlopen(url + "/api/changes?since=0", timeout=60) as answer:
                    first = answer.read()
                for attempt in range(repeats):
                    with Browser(Path(tmp) / f"profile-{size}-{attempt}") as browser:
                        browser.open(url + "/")
                        browser.wait_for(f"document.querySelectorAll('#timeline .row').length === {size}",
                                         timeout=120)
                        loads.append(int(browser.evaluate("document.body.dataset.readyMs")))
                        browser.send("HeapProfiler.collectGarbage", session=True)
                        metrics = browser.metrics()
                        heaps.append(metrics["JSHeapUsedSize"] / 2**20)
                        nodes.append(metrics["Nodes"])
                        if browser.errors():
                            raise SystemExit(f"the page logged errors: {browser.errors()}")
            rows.append({"tasks": size, "load_ms": statistics.median(loads), "heap_mib": round(statistics.median(heaps), 1),
                         "dom_nodes": int(statistics.median(nodes)), "first_answer_kib": round(len(first) / 1024, 1),
                         "run_built_s": round(built)})
            print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=200, help="tasks in the run the screenshots show")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui", help="folder of the screenshots")
    parser.add_argument("--measure", default="", help="comma-separated run sizes to measure instead (e.g. 200,1000)")
    parser.add_argument("--repeats", type=int, default=3, help="page loads per size (the median is reported)")
    args = parser.parse_args()
    if args.measure:
        rows = measure([int(s) for s in args.measure.split(",")], args.repeats)
        print("| tasks | load (ms, median) | JS heap (MiB) | DOM nodes | first answer (KiB) |")
        print("|---|---|---|---|---|")
        for row in rows:
            print(f"| {row['tasks']} | {row['load_ms']:.0f} | {row['heap_mib']} | {row['dom_nodes']} | "
                  f"{row['first_answer_kib']} |")
        if len(rows) > 1:
            print(f"\nload time {rows[-1]['tasks']} / {rows[0]['tasks']} tasks: "
                  f"{rows[-1]['load_ms'] / max(rows[0]['load_ms'], 1):.2f}x")
        return 0
    screenshots(args.tasks, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
