"""Seeing a fanout while it runs: per-phase counts with elapsed time, and what each task does.

Stage: beside the runner. Input: the runner's events (`start`, `task` (a phase change), `agent.start`,
`agent.adopted`, `agent.end`, `finish`, `repair`, `task.end`, `stopping`), each with the phase counts
(waiting, running, repairing, finishing, merged, lead) and the elapsed seconds; `tick` between them.
Output, by where stdout goes:
  - a terminal: a rich live display (the counts, elapsed time, the latest events), redrawn in place;
  - anything else: plain lines, one per event that matters to a person reading a log;
  - `--json`: one JSON object per event (`schema` wtc.fanout.event/1), newline-delimited; the
    summary (wtc.fanout/1) follows as the last line.
The runner calls a view under its own lock: a view needs no locking of its own.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Protocol, TextIO

PHASES = ("waiting", "running", "repairing", "finishing", "merged", "lead")
PHASE_WORDS = {"lead": "needs the lead"}
EVENT_SCHEMA = "wtc.fanout.event/1"
RECENT = 12


class View(Protocol):
    def start(self, info: dict[str, Any], counts: dict[str, int]) -> None: ...

    def event(self, kind: str, data: dict[str, Any], counts: dict[str, int], elapsed: float) -> None: ...

    def tick(self, counts: dict[str, int], elapsed: float) -> None: ...

    def stop(self) -> None: ...


class NullView:
    """Sees nothing (the Python API's default)."""

    def start(self, info: dict[str, Any], counts: dict[str, int]) -> None:
        return None

    def event(self, kind: str, data: dict[str, Any], counts: dict[str, int], elapsed: float) -> None:
        return None

    def tick(self, counts: dict[str, int], elapsed: float) -> None:
        return None

    def stop(self) -> None:
        return None


class JsonView(NullView):
    """One JSON object per event on `stream` (newline-delimited)."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stdout

    def start(self, info: dict[str, Any], counts: dict[str, int]) -> None:
        self.event("start", info, counts, 0.0)

    def event(self, kind: str, data: dict[str, Any], counts: dict[str, int], elapsed: float) -> None:
        body = {"schema": EVENT_SCHEMA, "event": kind, "elapsed_seconds": round(elapsed, 3), **data,
                "counts": dict(counts)}
        self.stream.write(json.dumps(body, default=str) + "\n")
        self.stream.flush()


def describe(kind: str, data: dict[str, Any]) -> str | None:
    """One line for a person, or None for an event a log need not show."""
    task = data.get("task", "")
    if kind == "start":
        return (f"run {data['run']}: {data['tasks']} task(s) in {data['plan']}, {data['settled']} done before; "
                f"{data['concurrency']} agent(s) at once, at most {data['max_agents']} agent runs")
    if kind == "task":
        phase = data["phase"]
        if phase in ("waiting", "merged", "lead"):
            return None      # task.end says how it ended
        return f"{task}: {PHASE_WORDS.get(phase, phase)}" + (
            f" (attempt {data['attempt']} of {data['attempts']})" if phase in ("running", "repairing") else "")
    if kind == "agent.adopted":
        return f"{task}: agent of attempt {data['attempt']} still running since the last runner (pid {data['pid']}); waiting for it"
    if kind == "agent.end":
        if data.get("timed_out"):
            return f"{task}: agent stopped at its timeout after {data['seconds']:.1f} s"
        return f"{task}: agent exited {data['exit_code']} after {data['seconds']:.1f} s"
    if kind == "finish":
        # (finished: `[run] batch`, the drain merges it and its `merge` event says what came of it)
        return f"{task}: finish -> {data['state']}" if data["state"] not in ("merged", "empty", "finished") else None
    if kind == "merge":    # `[run] batch`: what the drain did with a finished task, when not merged
        return f"{task}: merge -> {data['state']}" if data["state"] not in ("merged", "empty") else None
    if kind == "drain":
        return f"merged {data['merged']} of {data['tasks']} finished task(s) in one drain"
    if kind == "repair":
        return f"{task}: {data['reason']}; repair attempt {data['attempt']} of {data['attempts']} next"
    if kind == "task.end":
        reason = f" ({data['reason']})" if data.get("reason") and data["outcome"] != "merged" else ""
        # A merge with a file left unparseable is not a plain "merged": the landed tree will not load it.
        unparsed = [note.split(": does not parse", 1)[0] for note in data.get("notes") or []]
        return f"{task}: {data['outcome']}{reason}" + (
            f" WITH A FILE THAT DOES NOT PARSE: {', '.join(unparsed)}" if unparsed else "")
    if kind == "stopping":
        return str(data.get("why", "stopping"))
    if kind == "consolidate":
        return "consolidating (offline first)"
    return None


def counts_text(counts: dict[str, int]) -> str:
    return " | ".join(f"{PHASE_WORDS.get(p, p)} {counts.get(p, 0)}" for p in PHASES)


def _clock(elapsed: float) -> str:
    minutes, seconds = divmod(int(elapsed), 60)
    return f"{minutes:02d}:{seconds:02d}" if minutes < 60 else f"{minutes // 60}:{minutes % 60:02d}:{seconds:02d}"


class PlainView(NullView):
    """Plain lines (stdout is not a terminal): each event worth a line, with the elapsed time; the
    counts with every task that ends, and every 30 s."""

    COUNTS_EVERY = 30.0

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stdout
        self.last_counts = 0.0

    def start(self, info: dict[str, Any], counts: dict[str, int]) -> None:
        self.event("start", info, counts, 0.0)

    def event(self, kind: str, data: dict[str, Any], counts: dict[str, int], elapsed: float) -> None:
        line = describe(kind, data)
        if line is None:
            return
        if kind in ("task.end", "start"):
            line += f"   [{counts_text(counts)}]"
            self.last_counts = elapsed
        self.stream.write(f"[{_clock(elapsed)}] {line}\n")
        self.stream.flush()

    def tick(self, counts: dict[str, int], elapsed: float) -> None:
        if elapsed - self.last_counts >= self.COUNTS_EVERY:
            self.last_counts = elapsed
            self.stream.write(f"[{_clock(elapsed)}] {counts_text(counts)}\n")
            self.stream.flush()


class RichView(NullView):
    """A live display on a terminal: the phase counts as a bar of their own, elapsed time, the
    latest events. rich loads only here."""

    def __init__(self, stream: TextIO | None = None):
        from rich.console import Console

        self.console = Console(file=stream or sys.stdout)
        self.recent: list[str] = []
        self.counts: dict[str, int] = {}
        self.elapsed = 0.0
        self.title = ""
        self.live: Any = None

    def start(self, info: dict[str, Any], counts: dict[str, int]) -> None:
        from rich.live import Live

        self.title = (f"run {info['run']}  {info['tasks']} task(s), {info['settled']} done before  "
                      f"{info['concurrency']} agent(s) at once")
        self.counts = dict(counts)
        self.live = Live(self._frame(), console=self.console, refresh_per_second=4, transient=False)
        self.live.start()

    def event(self, kind: str, data: dict[str, Any], counts: dict[str, int], elapsed: float) -> None:
        self.counts, self.elapsed = dict(counts), elapsed
        line = describe(kind, data)
        if line is not None:
            self.recent = (self.recent + [f"{_clock(elapsed)}  {line}"])[-RECENT:]
        self._redraw()

    def tick(self, counts: dict[str, int], elapsed: float) -> None:
        self.counts, self.elapsed = dict(counts), elapsed
        self._redraw()

    def stop(self) -> None:
        if self.live is not None:
            self._redraw()
            self.live.stop()
            self.live = None

    def _redraw(self) -> None:
        if self.live is not None:
            self.live.update(self._frame())

    def _frame(self) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        table = Table(show_header=True, box=None, pad_edge=False)
        styles = {"running": "cyan", "repairing": "yellow", "finishing": "blue", "merged": "green", "lead": "red"}
        for phase in PHASES:
            table.add_column(PHASE_WORDS.get(phase, phase), justify="right", style=styles.get(phase, ""))
        table.add_row(*[str(self.counts.get(p, 0)) for p in PHASES])
        heading = Text.from_markup(f"[bold]wtc fanout[/] {self.title}  [dim]{_clock(self.elapsed)} elapsed[/]")
        return Group(heading, table, Text("\n".join(self.recent), style="dim"))


def view_for(*, json_mode: bool, stream: TextIO | None = None) -> View:
    """The view for where output goes: JSON lines, a live display on a terminal, or plain lines."""
    import os

    out = stream or sys.stdout
    if json_mode:
        return JsonView(out)
    if out.isatty() and os.environ.get("TERM", "") != "dumb":
        return RichView(out)
    return PlainView(out)
