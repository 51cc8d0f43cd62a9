"""pygit2.repository loaded without `tarfile` and `string` (issue 36: the CLI's CPU per task).

`pygit2/repository.py` imports `tarfile` for one method, `write_archive` (and the annotation of its
`archive` parameter, evaluated as the class is made), and `string` for one constant, `hexdigits`.
Neither is used by wtc, yet every process that opens libgit2 (a `task finish` that merges,
`merge`, `gc`) loaded both: tarfile is the largest module of such a call after typing (130 kB of
bytecode, with pwd and grp), string compiles its `Template` pattern as it loads; 10.5 and 2.8
million instructions (callgrind), ~3 ms together.

In a `wtc` process (lean_pygit2.py's finder, installed by entry.py) the module runs with stand-ins
for the two in `sys.modules` (only when neither is loaded yet, and put back at once):
- `string` gives `hexdigits`, the same text (tests/test_lean_repository.py compares it);
- `tarfile` gives `TarFile` as the text `"tarfile.TarFile"` while the module runs, the form an
  annotation takes under `from __future__ import annotations`; after it, every name (`TarFile` too:
  `typing.get_type_hints` resolves that text to the same class) is read from the real module,
  imported on that first read, through the module's global `tarfile`: `write_archive` works as before.
"""

from __future__ import annotations

import sys
import types

TYPE_CHECKING = False   # not typing's: loaded as pygit2 loads
if TYPE_CHECKING:
    from typing import Any

TARGET = "pygit2.repository"
# string.py: `hexdigits = digits + 'abcdef' + 'ABCDEF'`.
HEXDIGITS = "0123456789abcdefABCDEF"


class Deferred(types.ModuleType):
    """A stand-in for the module `name`: the `known` names answered as given, any other read from
    the real module, imported on that first read (the stand-in then leaves `sys.modules`)."""

    def __init__(self, name: str, known: dict[str, object]) -> None:
        super().__init__(name)
        self.__known = tuple(known)   # (a mangled name: no name of the real module)
        self.__dict__.update(known)

    def forget_known(self) -> None:
        """From now on every name, the known ones too, is the real module's."""
        for name in self.__known:
            self.__dict__.pop(name, None)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)   # `__path__`, `__file__`: the import system's questions, not names
        import importlib

        real_name = self.__dict__["__name__"]
        if sys.modules.get(real_name) is self:
            del sys.modules[real_name]
        return getattr(importlib.import_module(real_name), name)


class WithoutTarfileLoader:
    """The loader of pygit2.repository: the real one, run with the stand-ins for tarfile and string."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        stand_ins = {}
        if "tarfile" not in sys.modules and "string" not in sys.modules:
            stand_ins = {"tarfile": Deferred("tarfile", {"TarFile": "tarfile.TarFile"}),
                         "string": Deferred("string", {"hexdigits": HEXDIGITS})}
        sys.modules.update(stand_ins)
        try:
            self.real.exec_module(module)
        finally:
            for name, stand_in in stand_ins.items():
                stand_in.forget_known()   # `typing.get_type_hints` then reads the real TarFile
                if sys.modules.get(name) is stand_in:
                    del sys.modules[name]

    def __getattr__(self, name: str) -> object:   # get_source, get_filename, ...: the real loader's
        return getattr(self.real, name)


__all__ = ["Deferred", "HEXDIGITS", "TARGET", "WithoutTarfileLoader"]
