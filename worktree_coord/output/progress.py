"""Progress on a terminal for long commands (merge drain, gc, demo, check), silence otherwise.

A `RichProgress` is an `events.Reporter`: the Coordinator calls `event(kind, **data)` and never
prints; this turns events into one live rich display on stderr (a spinner with the latest step,
and a bar when an event carries `done` and `total`, e.g. `merge.progress`). Stdout is untouched,
so `wtc merge | tee log` and `--json` stay parseable. `reporter_for()` decides: a live display only
when stdout and stderr are both terminals, TERM is not `dumb` and `--json` was not asked; else a
NullReporter that drops events.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Iterator, TextIO

from ..events import BEGIN, END, NullReporter, Reporter

if TYPE_CHECKING:  # rich loads only when a display is drawn: a pipe or --json never pays for it
    from rich.progress import ProgressColumn, TaskID


# Events that say nothing new on a one-line display: a stage's end (its begin was shown, and what
# follows replaces it), per-file detail, bookkeeping for telemetry.
QUIET = ("merge.file", "admission.admitted", "integration.held", "task.closed")


def describe(kind: str, data: dict[str, Any]) -> str:
    """One line for an event: `merge.progress task=api state=merged` -> `merge progress api merged`;
    a stage's begin is shown as the stage (`task.finish.begin task=api` -> `task finish api`)."""
    subject = data.get("task") or data.get("stage") or data.get("run") or ""
    state = data.get("state") or ""
    verb = kind.removesuffix(BEGIN).replace(".", " ")
    return " ".join(str(part) for part in (verb, subject, state) if part)


def _when_counted(inner: ProgressColumn) -> ProgressColumn:
    """`inner`, shown only once the work has a known size (a bar without a total is just noise)."""
    from rich.console import RenderableType
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class WhenCounted(ProgressColumn):
        def render(self, task: Task) -> RenderableType:
            return inner.render(task) if task.total is not None else Text("")

    return WhenCounted()


class RichProgress:
    """A live progress display on `stream` (default stderr); start() before events, stop() after."""

    def __init__(self, label: str, *, stream: TextIO | None = None, force_terminal: bool | None = None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.label = label
        self.console = Console(file=stream or sys.stderr, force_terminal=force_terminal, soft_wrap=False)
        self.progress = Progress(
            SpinnerColumn(), TextColumn("[bold]{task.fields[label]}[/bold] {task.description}"),
            _when_counted(BarColumn()), _when_counted(MofNCompleteColumn()), TimeElapsedColumn(),
            console=self.console, transient=True,
        )
        self._task: TaskID | None = None
        self.events_seen = 0

    def start(self) -> "RichProgress":
        self.progress.start()
        self._task = self.progress.add_task("", total=None, label=self.label)
        return self

    def stop(self) -> None:
        self.progress.stop()

    def wants(self, kind: str) -> bool:
        return kind not in QUIET

    def event(self, kind: str, **data: Any) -> None:
        self.events_seen += 1
        if self._task is None or kind.endswith(END) or kind in QUIET:
            return
        update: dict[str, Any] = {"description": describe(kind, data)}
        if isinstance(data.get("total"), int) and isinstance(data.get("done"), int):
            update["total"] = data["total"]
            update["completed"] = data["done"]
        self.progress.update(self._task, **update)
        self.progress.refresh()


def wants_progress(json_mode: bool, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> bool:
    """A live display only for a person at a terminal (see the module docstring)."""
    if json_mode or os.environ.get("TERM") == "dumb":
        return False
    out, err = stdout or sys.stdout, stderr or sys.stderr
    return bool(getattr(out, "isatty", lambda: False)() and getattr(err, "isatty", lambda: False)())


@contextlib.contextmanager
def reporter_for(*, json_mode: bool, label: str = "wtc") -> Iterator[Reporter]:
    """A started RichProgress when `wants_progress`, else a NullReporter; stopped on exit."""
    if not wants_progress(json_mode):
        yield NullReporter()
        return
    display = RichProgress(label).start()
    try:
        yield display
    finally:
        display.stop()
