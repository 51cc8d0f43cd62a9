"""Read-only values compared by value, as `@dataclass(frozen=True)` makes them, without the methods
dataclass compiles per class (`exec`) at import.

Every `wtc` call imports the store's records (model.py) and the operations' results (results.py);
generating `__setattr__`, `__eq__`, `__hash__` and `__repr__` for each of their classes cost a call
about a millisecond a class (issue 36). A class that derives from `FrozenValue` and is made a
dataclass with `init=False, repr=False, eq=False` gets them here once: its fields (those with
`compare`, those with `repr`) say what they read, so `fields`, `replace` and `asdict` keep working.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields
from typing import Any


class FrozenValue:
    """The frozen dataclass's methods, written once (see the module docstring)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.compare)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)  # type: ignore[arg-type]
        return f"{type(self).__qualname__}({shown})"
