"""lean_dataclasses.py: dataclasses loaded without inspect behaves as dataclasses loaded with it.

Each case runs in a fresh interpreter (what a `wtc` call is), since the stand-in is put in place
only by the first import of dataclasses in a process."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import json, sys
import worktree_coord.model   # the first importer of dataclasses in a wtc call
import dataclasses
out = {"inspect_loaded_by_dataclasses": "inspect" in sys.modules, "ast_loaded": "ast" in sys.modules}

@dataclasses.dataclass
class NoDoc:                   # another library's dataclass without a docstring: dataclass writes one
    a: int
    b: str = "x"

out["doc"] = NoDoc.__doc__
out["inspect_loaded_on_use"] = "inspect" in sys.modules
import inspect
out["real_inspect"] = type(inspect) is type(sys) and dataclasses.inspect is not inspect   # not the stand-in
out["signature"] = str(inspect.signature(NoDoc))
out["fields"] = [f.name for f in dataclasses.fields(NoDoc)]
out["replace"] = repr(dataclasses.replace(NoDoc(1), b="y"))
print(json.dumps(out))
"""

PLAIN = r"""
import dataclasses, json

@dataclasses.dataclass
class NoDoc:
    a: int
    b: str = "x"

print(json.dumps({"doc": NoDoc.__doc__}))
"""


def run(code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def test_dataclasses_loads_without_inspect_and_writes_the_same_docstring_through_it() -> None:
    lean, plain = run(PROBE), run(PLAIN)
    assert lean["inspect_loaded_by_dataclasses"] is False and lean["ast_loaded"] is False
    assert lean["doc"] == plain["doc"] == "NoDoc(a: int, b: str = 'x')"    # written by the stand-in...
    assert lean["inspect_loaded_on_use"] is False                           # ...without the real inspect
    assert lean["real_inspect"] is True                                     # and sys.modules holds the real one
    assert lean["signature"] == "(a: int, b: str = 'x') -> None"
    assert lean["fields"] == ["a", "b"] and lean["replace"] == "NoDoc(a=1, b='y')"


def test_nothing_is_done_when_inspect_is_loaded_first() -> None:
    code = ("import inspect, sys\nimport worktree_coord.model, dataclasses\n"
            "print(__import__('json').dumps({'same': dataclasses.inspect is inspect}))")
    assert run(code) == {"same": True}


SHAPES = r"""
import dataclasses, inspect, typing
from collections.abc import Callable
from os import PathLike
from typing import ClassVar

import pygit2.enums

T = typing.TypeVar("T")


@dataclasses.dataclass
class Plain:
    a: int
    b: str = "x"
    c: list[int] = dataclasses.field(default_factory=list)
    d: typing.Optional[dict[str, typing.Any]] = None
    e: ClassVar[int] = 1


@dataclasses.dataclass(frozen=True, kw_only=True)
class KeywordOnly:
    a: int | None
    b: Callable[[int], str] = str
    c: PathLike[str] | bytes = b""


@dataclasses.dataclass
class Mixed:
    a: "typing.Generic[T]"
    b: tuple[int, ...] = (1, 2)
    _: dataclasses.KW_ONLY
    c: float = 1.5
    d: dataclasses.InitVar[int] = 0
    e: int = dataclasses.field(init=False, default=3)

    def __post_init__(self, d):
        pass


@dataclasses.dataclass
class Child(Plain):
    f: typing.List[typing.Tuple[int, str]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class Slotted:
    a: pygit2.enums.FileMode
    b: typing.Literal["x", "y"] = "x"


@dataclasses.dataclass
class Empty:
    pass


class OwnNew:
    def __new__(cls, *args):
        return super().__new__(cls)

    def __init__(self, a: int) -> None:
        self.a = a


class Meta(type):
    def __call__(cls, *args, **kwargs):
        return super().__call__(*args, **kwargs)


class WithMeta(metaclass=Meta):
    def __init__(self, a: int) -> None:
        self.a = a


class Variadic:
    def __init__(self, *args: int, **kwargs: str) -> None:
        pass


class Told:
    __signature__ = inspect.Signature()

    def __init__(self, a: int) -> None:
        pass
"""


def test_the_stand_ins_signature_text_is_inspects_for_every_shape_of_dataclass() -> None:
    """The stand-in writes the signature text of a dataclass's own `__init__` itself (so a call that
    loads pygit2, whose index.py declares a dataclass without a docstring, loads no inspect): the
    same text inspect writes, for every shape a dataclass takes (annotations as objects, as this
    module's strings are not); anything else is inspect's."""
    import inspect

    import pygit2.index

    from worktree_coord import lean_dataclasses

    import types

    module = types.ModuleType("lean_dataclass_shapes")   # a module of its own: no `from __future__ import annotations`
    sys.modules[module.__name__] = module
    try:
        exec(compile(SHAPES, module.__name__, "exec"), module.__dict__)   # noqa: S102
    finally:
        del sys.modules[module.__name__]
    shapes = module.__dict__
    for name in ("Plain", "KeywordOnly", "Mixed", "Child", "Slotted", "Empty"):
        cls = shapes[name]
        assert lean_dataclasses._init_signature(cls) == str(inspect.signature(cls)), name
    assert lean_dataclasses._init_signature(pygit2.index.MergeFileResult) == str(
        inspect.signature(pygit2.index.MergeFileResult))
    for name in ("OwnNew", "WithMeta", "Variadic", "Told"):
        assert lean_dataclasses._init_signature(shapes[name]) is None, name
    assert lean_dataclasses._init_signature(int) is None
    variadic = shapes["Variadic"]
    assert str(lean_dataclasses._InspectOnFirstUse.signature(variadic)) == str(inspect.signature(variadic))


def test_a_process_that_loads_pygit2_loads_no_inspect() -> None:
    code = ("import sys\nimport worktree_coord.model\nimport pygit2\nimport json\n"
            "print(json.dumps([sorted(m for m in ('inspect', 'ast', 'dis', 'tokenize') if m in sys.modules),"
            " pygit2.index.MergeFileResult.__doc__]))")
    loaded, doc = run(code)
    assert loaded == []
    assert doc == run("import pygit2, json\nprint(json.dumps(pygit2.index.MergeFileResult.__doc__))")
