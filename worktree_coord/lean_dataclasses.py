"""The standard library's `dataclasses`, loaded without `inspect` (issue 36: start-up).

dataclasses imports inspect at its top, and inspect imports ast, dis, tokenize and linecache: ~4-5
ms of every `wtc` call on a quiet machine, twice that under load, for one use only: the docstring
dataclass writes for a class that has none (`inspect.signature`). Every dataclass wtc declares has
a docstring (value_class writes one for a class without), so a call never needs it.

The first module of a call to import dataclasses (model.py for the commands, merge/cascade.py for
`wtc merge-file`; frozen.py and results.py too, in case another path reaches them first) imports
this module before it: dataclasses is then imported with a stand-in for inspect, which imports the
real module on its first attribute read. dataclasses keeps the stand-in as its own `inspect`;
sys.modules holds the stand-in only during that import, so any other `import inspect` gets the real
module. A class without a docstring (another library's: pygit2's index.py declares one, so every
call that opens libgit2 met one) gets the docstring dataclass writes from `inspect.signature`: the
stand-in writes that text itself for the plain `__init__` dataclass gives it (the same text:
tests/test_lean_dataclasses.py compares every shape of dataclass with inspect's) and asks the real
inspect for any other callable. Nothing is done when dataclasses or inspect is already loaded (a
host program's, a test's).
"""

from __future__ import annotations

import sys
import types


class _InspectOnFirstUse(types.ModuleType):
    """What dataclasses holds as `inspect`: each attribute read from the real module (imported then),
    but `signature`, which writes the text inspect writes for the plain `__init__` dataclass just
    gave a class without a docstring, and asks the real module for anything else."""

    def __getattr__(self, name: str) -> object:
        import importlib

        return getattr(importlib.import_module("inspect"), name)

    @staticmethod
    def signature(obj: object) -> object:
        text = _init_signature(obj)
        if text is None:
            import inspect

            return inspect.signature(obj)
        return _Text(text)


class _Text(str):
    """The signature's text (dataclasses asks only for `str()` of it)."""


_VARIADIC = 0x04 | 0x08   # CO_VARARGS | CO_VARKEYWORDS


def _init_signature(cls: object) -> str | None:
    """str(inspect.signature(cls)) where that is the signature of the class's own `__init__`, a plain
    function of named parameters (what dataclass writes) less `self`: a class of `type` with no
    `__signature__`, no `__new__` of its own or its bases', no wrapped `__init__`. None otherwise (the
    real inspect answers). pygit2's index.py declares a dataclass without a docstring, so a call that
    loads pygit2 loaded inspect (with ast, dis, tokenize, linecache) for this one text (issue 36)."""
    if type(cls) is not type or not isinstance(cls, type) or hasattr(cls, "__signature__") \
            or cls.__new__ is not object.__new__:
        return None
    init = cls.__dict__.get("__init__")
    if type(init) is not types.FunctionType or any(hasattr(init, name) for name in ("__wrapped__", "__signature__",
                                                                                    "_partialmethod")):
        return None
    code = init.__code__
    if code.co_flags & _VARIADIC or code.co_posonlyargcount or code.co_argcount < 1:
        return None
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    annotations = init.__annotations__
    defaults = dict(zip(names[code.co_argcount - len(init.__defaults__ or ()):code.co_argcount], init.__defaults__ or ()))
    defaults.update(init.__kwdefaults__ or {})
    shown = []
    for position, name in enumerate(names[1:], start=1):
        if position == code.co_argcount:
            shown.append("*")
        text = name
        if name in annotations:
            text += ": " + _annotation(annotations[name])
        if name in defaults:
            text += (" = " if name in annotations else "=") + repr(defaults[name])
        shown.append(text)
    text = "(" + ", ".join(shown) + ")"
    if "return" in annotations:
        text += " -> " + _annotation(annotations["return"])
    return text


def _annotation(annotation: object) -> str:
    """inspect.formatannotation (Python 3.11's)."""
    if getattr(annotation, "__module__", None) == "typing":
        import re

        return re.sub(r"[\w\.]+", lambda match: match.group().removeprefix("typing."), repr(annotation))
    if isinstance(annotation, types.GenericAlias):
        return str(annotation)
    if isinstance(annotation, type):
        if annotation.__module__ == "builtins":
            return annotation.__qualname__
        return annotation.__module__ + "." + annotation.__qualname__
    return repr(annotation)


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
