"""pygit2's enum tables made the way the standard library makes its own (issue 36: the CLI's CPU per
task).

`pygit2/enums.py` declares 41 `IntEnum` and `IntFlag` classes (libgit2's flags and constants) and
is loaded by every process that opens libgit2: a `task finish` that merges, `merge`, `gc`. Python's
`EnumType` builds each class through its full machinery (a namespace that checks every name as it
is set, `__set_name__` on each member, the flag's pseudo-members): ~7 ms of CPU for the module, the
largest part of pygit2's own Python. The standard library builds its enums that are made at every
start (`re.RegexFlag`, `http.HTTPStatus`, ...) with `enum._simple_enum`, which makes the same class
from a plain one in about half the time (~4 ms for this module), and checks itself with
`enum._test_simple_enum`, which compares members, values, names, aliases and every attribute of the
class and of each member.

In a `wtc` process (lean_pygit2.py's finder, installed by entry.py) `pygit2.enums` runs its own code,
with one difference: a class statement whose bases are exactly `IntEnum` or `IntFlag`, without
keywords, and whose body sets only integers (and the class's docstring), is made by `_simple_enum`
from the plain class its body makes. Any other class statement (a method, a keyword, another base)
is made as always. tests/test_lean_enums.py runs `_test_simple_enum` on every class of the module
against the class pygit2 makes itself, and compares the module's names.
"""

from __future__ import annotations

import builtins
import enum

TYPE_CHECKING = False   # not typing's: loaded as pygit2 loads, the lighter the better
if TYPE_CHECKING:
    import types
    from typing import Any

TARGET = "pygit2.enums"
# What a plain class's body may set besides its members for `_simple_enum` to make it.
_PLAIN_NAMES = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"})


def _made_simply(real_build_class: Any) -> Any:
    """`__build_class__` that makes plain IntEnum and IntFlag classes with `enum._simple_enum`."""
    simple_enum = getattr(enum, "_simple_enum", None)

    def build_class(func: Any, name: str, *bases: Any, **keywords: Any) -> Any:
        if simple_enum is None or keywords or len(bases) != 1 or bases[0] not in (enum.IntEnum, enum.IntFlag):
            return real_build_class(func, name, *bases, **keywords)
        plain = real_build_class(func, name)
        if all(key in _PLAIN_NAMES or (type(value) is int and not key.startswith("_"))
               for key, value in vars(plain).items()):
            return simple_enum(bases[0])(plain)
        # A body with more than members (a method, a private name): made as pygit2 makes it (the
        # body, which sets names only, runs a second time).
        return real_build_class(func, name, *bases, **keywords)
    return build_class


class SimpleEnumsLoader:
    """The loader of pygit2.enums: the real loader's code, run with `_made_simply` as the module's
    `__build_class__`; the module's builtins are the ordinary ones once it has run."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        code = self.real.get_code(module.__name__)
        if code is None:
            self.real.exec_module(module)
            return
        own = dict(builtins.__dict__)
        own["__build_class__"] = _made_simply(builtins.__build_class__)
        module.__dict__["__builtins__"] = own
        try:
            exec(code, module.__dict__)
        finally:
            module.__dict__["__builtins__"] = builtins.__dict__

    def __getattr__(self, name: str) -> object:   # get_source, get_filename, ...: the real loader's
        return getattr(self.real, name)


__all__ = ["SimpleEnumsLoader", "TARGET"]
