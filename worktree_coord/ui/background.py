"""The page's expensive sections, computed off the request path on one thread: the forecast (which
live tasks will collide, `Coordinator.forecast`) and the landing report (`Coordinator.report`: what
landing would change, consolidation per root, intents not applied, warnings).

Stage: a worker of the server. Input: a Coordinator of its own (its pygit2 handle is used by this
thread only) and the run. Output: sections `forecast` and `report` put into the server's
`Versions`, plus `forecast_state` (computing, when, how long, or the error).

When: the report again when the run's store version moved, at most every `report_every` seconds
(a run of 1,000 tasks merges several a second and a report reads the tree); the forecast every
`forecast_every` seconds whether the version moved or not (agents edit worktrees without writing
the store, and the forecast reads the worktrees). Each waits at least five times what it cost last,
so a large run's page takes at most about a fifth of a core. A request never waits on either: it
gets the last one computed. An error in one computation is shown on the page and
retried at the next turn; it never stops the server.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any

from .changes import Versions

MAX_MATRIX = 80         # tasks in the forecast matrix at most (those in most predicted conflicts first)
MAX_MANIFEST = 2000     # paths of the landing manifest sent to the page at most (the rest are counted)


class SlowViews(threading.Thread):
    def __init__(self, repo: str, run_id: str, versions: Versions, *, forecast_every: float = 10.0,
                 report_every: float = 3.0, forecast: bool = True) -> None:
        super().__init__(name="wtc-ui-slow-views", daemon=True)
        self.repo, self.run_id, self.versions = repo, run_id, versions
        self.forecast_every, self.report_every, self.forecast_on = forecast_every, report_every, forecast
        self.stopping = threading.Event()
        self.wake = threading.Event()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()

    def run(self) -> None:
        from ..coordinator import Coordinator

        with Coordinator(self.repo) as coordinator:
            seen_report: str | None = None
            forecast_at = report_at = -1e9
            report_cost = forecast_cost = 0.0
            while not self.stopping.is_set():
                version = coordinator.store.run_version(self.run_id)
                now = time.monotonic()
                # Each waits at least five times its own last cost: at most a fifth of a core, whatever the run's size.
                if version != seen_report and now - report_at >= max(self.report_every, 5 * report_cost):
                    seen_report, report_at = version, now
                    self._compute("report", lambda: report_section(coordinator.report(self.run_id)))
                    report_cost = time.monotonic() - now
                now = time.monotonic()
                if self.forecast_on and now - forecast_at >= max(self.forecast_every, 5 * forecast_cost):
                    forecast_at = now
                    self.versions.put_section("forecast_state", {"computing": True})
                    done = self._compute("forecast", lambda: forecast_section(coordinator.forecast(self.run_id).to_json()))
                    forecast_cost = time.monotonic() - now
                    self.versions.put_section("forecast_state", {"computing": False, "ok": done,
                                                                 "seconds": round(forecast_cost, 2)})
                self.wake.wait(0.5)
                self.wake.clear()

    def _compute(self, name: str, make: Any) -> bool:
        try:
            self.versions.put_section(name, make())
            return True
        except Exception as error:   # shown on the page; the next turn tries again
            last = traceback.extract_tb(error.__traceback__)[-1]
            self.versions.put_section(name + "_error", {"error": f"{type(error).__name__}: {error}",
                                                        "where": f"{last.filename}:{last.lineno}", "at": time.time()})
            return False


def forecast_section(forecast: dict[str, Any]) -> dict[str, Any]:
    """The forecast as the page's matrix: the tasks in predicted conflicts or shared files (most
    involved first, at most MAX_MATRIX), and per pair of them what collides."""
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    involvement: dict[str, int] = {}
    for conflict in forecast.get("conflicts", []):
        a, b = sorted((conflict["left"], conflict["right"]))
        pair = pairs.setdefault((a, b), {"a": a, "b": b, "verdict": "conflict", "conflicts": [], "files": []})
        pair["conflicts"].append({k: conflict.get(k) for k in ("path", "declaration", "kind", "start_line")})
        for name in (a, b):
            involvement[name] = involvement.get(name, 0) + 2
    for overlap in forecast.get("overlaps", []):
        holders = overlap["tasks"]
        for i, left in enumerate(holders):
            for right in holders[i + 1:]:
                a, b = sorted((left, right))
                pair = pairs.setdefault((a, b), {"a": a, "b": b, "verdict": "overlap", "conflicts": [], "files": []})
                pair["files"].append(overlap["path"])
                for name in (a, b):
                    involvement[name] = involvement.get(name, 0) + 1
    shown = sorted(involvement, key=lambda n: (n != "integration", -involvement[n], n))[:MAX_MATRIX]
    kept = set(shown)
    return {"at": forecast.get("at"), "tip": forecast.get("integration_tip"), "tasks": shown,
            "looked_at": len(forecast.get("tasks", [])), "not_shown": len(involvement) - len(shown),
            "pairs": [p for p in pairs.values() if p["a"] in kept and p["b"] in kept],
            "rows": {row["task"]: {"forecast": row["forecast"], "conflicts_with": row["conflicts_with"]}
                     for row in forecast.get("tasks", [])},
            "stats": forecast.get("stats", {})}


def _sources(origins: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Where a path's change came from, one entry each, in order: `{"task": name}` (the page links
    it and its diff) or `{"text": ...}` (a consolidation root, a sync, a commit not made by wtc).
    Every one, as the text report names them: two tasks that merged into one file are two links."""
    from worktree_coord.coordinator.landing import describe_origins

    out: list[dict[str, str]] = []
    for origin in origins:
        entry = ({"task": origin["task"]} if origin.get("kind") == "task" and origin.get("task")
                 else {"text": describe_origins([origin])})
        if entry not in out:
            out.append(entry)
    return out


def report_section(report: Any) -> dict[str, Any]:
    """What landing would change (the report's manifest), consolidation per root, intents not
    applied, conflicts the run would leave out, warnings."""
    data = report.to_json()
    files = data.get("files", [])
    return {"tip": data.get("tip"), "base": data.get("base"), "integration": data.get("integration"),
            "files": [{"path": f["path"], "status": f["status"], "from": f.get("from"), "origin": f.get("origin", ""),
                       "task": f.get("task"), "sources": _sources(f.get("origins") or [])}
                      for f in files[:MAX_MANIFEST]],
            "files_total": len(files), "consolidation": data.get("consolidation", []),
            "intents_pending": data.get("intents_pending", []), "warnings": data.get("warnings", []),
            "left_behind": data.get("left_behind", []), "verification": data.get("verification", []),
            "merge_commits": {t["task"]: t["merge_commit"] for t in data.get("tasks", []) if t.get("merge_commit")}}
