"""The Coordinator class, composed of its operations as a call uses them.

Stage: `from worktree_coord.coordinator import Coordinator` (the package's PEP 562 hook) makes the
class once per process. Input: the operations in the Coordinator's order of bases. Output: a class
over CoordinatorBase that gains an operation (runs, tasks, merging, ...) as a base the first time
one of its attributes is looked up, on the class or on an instance.

Why: every `wtc` call is a fresh interpreter, and loading all nine operation modules (the merge
engine, consolidation, the forecast) cost a `task start` ~40 ms it never used (issue 36). A call
now imports the operations it runs: `start_task` loads tasks.py, which is what it runs.

Invariants:
- every attribute answers as on the class made of all nine operations at once: the bases are kept
  in the full class's order, and operation_names.py (generated, checked by
  tests/core/test_coordinator_facade.py) says which operation holds each name; no two operations
  hold one name and none overrides CoordinatorBase's (the generator refuses both), so an operation
  not loaded yet can never be shadowed by one that is;
- the operations are real bases (`__bases__` grows), so `super()`, `isinstance`, and a patch of an
  operation class's method all behave as with the full class;
- a subclass, `dir()`, `load_operations()` and a name the table does not know (it was not
  regenerated after a method was added: the test fails, the call still answers right) load
  everything; loading is serialized by a lock (a server's threads).
"""

from __future__ import annotations

import _thread
from typing import Any

from .base import CoordinatorBase
from .operation_names import OPERATIONS


def make_coordinator(module_name: str, order: tuple[tuple[str, str], ...]) -> type:
    """The Coordinator class over CoordinatorBase; `order` names its operations as (module, class)."""
    where = {attr: module for module, (_, names) in OPERATIONS.items() for attr in names}
    loaded: dict[str, type] = {}
    lock = _thread.allocate_lock()

    def load(modules: tuple[str, ...]) -> None:
        with lock:
            wanted = [m for m in modules if m not in loaded]
            if not wanted:
                return
            for module in wanted:
                # __import__, not importlib.import_module: the latter bypasses `-X importtime`'s log,
                # which the start-up benchmark and tests read.
                operations = __import__(f"{module_name}.{module}", fromlist=("_",))
                loaded[module] = getattr(operations, OPERATIONS[module][0])
            Coordinator.__bases__ = tuple(loaded[m] for m, _ in order if m in loaded)

    everything = tuple(m for m, _ in order)

    def modules_for(name: str) -> tuple[str, ...]:
        # A name the table does not know (a method added without regenerating it) loads every
        # operation: a stale table costs start-up, never a wrong answer.
        module = where.get(name)
        if module is not None:
            return () if module in loaded else (module,)
        return () if len(loaded) == len(order) else everything

    def gained(name: str) -> bool:
        """Load the operations that may hold `name`; False when none is left to load (no such name)."""
        modules = modules_for(name)
        if modules:
            load(modules)
        return bool(modules)

    class _Composing(type):
        def __getattr__(cls, name: str) -> Any:
            if not gained(name):
                raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")
            return getattr(cls, name)

        def __dir__(cls) -> list[str]:
            load(everything)
            return list(super().__dir__())

    class Coordinator(CoordinatorBase, metaclass=_Composing):
        """Coordinates the runs and tasks of one git repository (see the package docstring)."""

        def __init_subclass__(cls, **kwargs: Any) -> None:
            # A subclass's `super().x` does not go through __getattr__: give it every operation.
            Coordinator.load_operations()
            super().__init_subclass__(**kwargs)

        @classmethod
        def load_operations(cls) -> None:
            """Load every operation now (a warm server, introspection)."""
            load(everything)

        def __getattr__(self, name: str) -> Any:
            if not gained(name):
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return getattr(self, name)

    Coordinator.__module__, Coordinator.__qualname__ = module_name, "Coordinator"
    return Coordinator
