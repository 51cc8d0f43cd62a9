"""The standard library's `dataclasses`, loaded without `inspect` (issue 36: start-up).

dataclasses imports inspect at its top, and inspect imports ast, dis, tokenize and linecache: ~4-5
ms of every `wtc` call on a quiet machine, twice that under load, for one use only: the docstring
dataclass writes for a class that has none (`inspect.signature`). Every dataclass wtc declares has
a docstring (value_class writes one for a class without), so a call never needs it.

The first module of a call to import dataclasses (model.py for the commands, merge/cascade.py for
`wtc merge-file`; frozen.py and results.py too, in case another path reaches them first) imports
this module before it: dataclasses is then imported with a stand-in for inspect, which imports the
real module on its first attribute read. dataclasses keeps the stand-in as its own `inspect` (so a
class without a docstring, another library's, still gets the same docstring, read through it);
sys.modules holds the stand-in only during that import, so any other `import inspect` gets the real
module. Nothing is done when dataclasses or inspect is already loaded (a host program's, a test's).
"""

from __future__ import annotations

import sys
import types


class _InspectOnFirstUse(types.ModuleType):
    """What dataclasses holds as `inspect`: each attribute read from the real module (imported then)."""

    def __getattr__(self, name: str) -> object:
        import importlib

        return getattr(importlib.import_module("inspect"), name)


def _load() -> None:
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    stand_in = _InspectOnFirstUse("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses  # noqa: F401  (what this module is for)
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]


_load()
