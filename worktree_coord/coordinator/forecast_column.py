"""The forecast column of `wtc status` and `wtc watch`: the last forecast of a run, per task.

Stage: a small file beside the forecast's merge cache, `<git common dir>/wtc/forecast-cache/latest/
<run>.json`, written (atomically) by every `Coordinator.forecast` and read without pygit2, so
`wtc status` stays a store-only read: {"at": unix seconds, "tip": integration tip, "tasks":
{task: {"forecast": clean|overlap|conflict, "conflicts_with": [...]}}}. A missing or unreadable
file is no column, never an error. `Coordinator.forecast_column` (forecast.py) refreshes it when it
is older than the caller allows. `prune` (called by `wtc gc`) removes what finished runs left in
the whole cache folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LATEST = Path("wtc") / "forecast-cache" / "latest"
CACHE = LATEST.parent


def latest_path(common_dir: Path, run_id: str) -> Path:
    return common_dir / LATEST / f"{run_id}.json"


def read_latest(common_dir: Path, run_id: str) -> dict[str, Any] | None:
    """The run's last forecast column, or None when there is none (or it cannot be read)."""
    try:
        data = json.loads(latest_path(common_dir, run_id).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("tasks"), dict) else None


def write_latest(common_dir: Path, run_id: str, column: dict[str, Any]) -> None:
    """Replace the run's column in one rename; a failure to write only loses the column."""
    file = latest_path(common_dir, run_id)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_name(f".{file.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(column))
        os.replace(temporary, file)
    except OSError:
        pass


def column_of(forecast_tasks: list[dict[str, Any]], at: float, tip: str) -> dict[str, Any]:
    """The column as saved, from a Forecast's `tasks` rows."""
    return {"at": at, "tip": tip, "tasks": {row["task"]: {"forecast": row["forecast"],
                                                           "conflicts_with": row["conflicts_with"]}
                                            for row in forecast_tasks}}


def cell(entry: dict[str, Any] | None) -> str:
    """One task's cell as people read it: "conflict: a, b", "overlap", "clean", or ""."""
    if not entry:
        return ""
    if entry.get("forecast") == "conflict":
        return "conflict: " + ", ".join(entry.get("conflicts_with", []))
    return str(entry.get("forecast", ""))


def prune(common_dir: Path, open_runs: dict[str, float], *, dry_run: bool) -> list[str]:
    """Remove what runs that are no longer open left in the forecast cache; returns the files (relative
    to the cache folder). A run's column goes when the run is landed or gone from the store. A file
    merge is content-addressed (shared by any run that merges the same blobs), so it goes when it was
    last written or read (forecast.py touches a file it reads) before the oldest open run started:
    only runs finished since can have used it. With no open run the whole cache goes. `open_runs`:
    run id -> when it started. Files that vanish meanwhile (another gc) are skipped."""
    root = common_dir / CACHE
    if not root.is_dir():
        return []
    horizon = min(open_runs.values(), default=float("inf"))
    removed = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for file in sorted(folder.iterdir()):
            try:
                if folder.name == LATEST.name:
                    stale = file.suffix == ".json" and file.stem not in open_runs
                    stale = stale or (file.name.startswith(".") and file.stat().st_mtime < horizon)
                else:
                    stale = file.stat().st_mtime < horizon
                if not stale:
                    continue
                if not dry_run:
                    file.unlink()
            except FileNotFoundError:
                continue
            removed.append(f"{folder.name}/{file.name}")
        if not dry_run and folder.name != LATEST.name:
            try:
                folder.rmdir()   # only when empty
            except OSError:
                pass
    return removed
