"""What changed since a version: the page asks `GET /api/changes?since=N` and gets only that.

Stage: bookkeeping of the server. Input: successive whole states (task rows by name, and named
sections: conflicts, intents, merges, forecast, report, ...). Output: `since(n)`: the rows and the
sections that changed after version `n`, the names of the rows removed since, and the current
version; `n = 0` (a page that just loaded) gets everything.

Invariants: the version only grows, and grows only when something differs (a state equal to the
last one is no new version, so a page polling an idle run gets an empty answer); a row or section
is sent whole (the page replaces, never patches, and orders rows itself by start); a version older than the last `KEPT_REMOVALS`
removals gets everything, so a page that slept long never misses a removed row.
"""

from __future__ import annotations

import json
import threading
from typing import Any

KEPT_REMOVALS = 10_000


class Versions:
    """Rows and sections, each with the version at which it last changed (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.version = 0
        self._rows: dict[str, tuple[str, dict[str, Any], int]] = {}       # name -> (json, row, version)
        self._sections: dict[str, tuple[str, Any, int]] = {}
        self._removed: dict[str, int] = {}
        self._oldest_full = 0       # a `since` below this gets everything (removals were forgotten)

    def put_rows(self, rows: list[dict[str, Any]], key: str = "task") -> None:
        """The whole set of rows now: changed rows, new rows and removed rows each bump the version once."""
        with self._lock:
            fresh = {row[key]: row for row in rows}
            changed = {name: json.dumps(row, sort_keys=True) for name, row in fresh.items()}
            differs = [n for n, text in changed.items() if n not in self._rows or self._rows[n][0] != text]
            gone = [n for n in self._rows if n not in fresh]
            if not differs and not gone:
                return
            self.version += 1
            for name in differs:
                self._rows[name] = (changed[name], fresh[name], self.version)
                self._removed.pop(name, None)
            for name in gone:
                del self._rows[name]
                self._removed[name] = self.version
            if len(self._removed) > KEPT_REMOVALS:
                self._oldest_full = self.version
                self._removed.clear()

    def put_section(self, name: str, value: Any) -> None:
        with self._lock:
            text = json.dumps(value, sort_keys=True)
            if name in self._sections and self._sections[name][0] == text:
                return
            self.version += 1
            self._sections[name] = (text, value, self.version)

    def section(self, name: str) -> Any:
        with self._lock:
            return self._sections[name][1] if name in self._sections else None

    def since(self, version: int) -> dict[str, Any]:
        """Everything that changed after `version` (all of it for 0, a future or a forgotten version)."""
        with self._lock:
            full = version <= self._oldest_full or version > self.version
            after = 0 if full else version
            return {
                "version": self.version, "full": full,
                "tasks": [row for _, row, v in self._rows.values() if v > after],
                "removed": [] if full else sorted(n for n, v in self._removed.items() if v > after),
                "sections": {n: value for n, (_, value, v) in self._sections.items() if v > after},
            }
