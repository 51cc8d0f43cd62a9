"""How this process ends: by `os._exit` right after its call (a `wtc` process: entry.leave), or by
Python's ordinary exit (a library caller, a server, a test).

Cross-cutting vocabulary: the entry point says it once, before the call; what holds a resource
whose orderly release costs more than the process's end gives it (the SQLite store's connection:
store/sqlite.py) asks. Imports nothing: the entry point loads it before anything else.
"""

from __future__ import annotations

ends_by_exit = False


def will_end_by_exit() -> None:
    """Say that this process ends by `os._exit` after its call (entry.py, before running it)."""
    global ends_by_exit
    ends_by_exit = True
