"""`frozen.value_class` is `@dataclass(frozen=True)` (and `@dataclass` with `frozen=False`) without
the methods dataclass compiles at import (issue 36: start-up): every behaviour a caller can see is
the dataclass's own, checked here side by side on the same class bodies."""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path

import pytest

from worktree_coord.frozen import value_class

PACKAGE = Path(__file__).resolve().parents[1] / "worktree_coord"


def _frozen_pair():
    made = []
    for decorate in (dataclass(frozen=True), value_class):
        @decorate
        class Point:
            x: int
            tags: list = field(default_factory=list)
            label: str = "p"
            weight: int = field(default=3, compare=False, repr=False)
            double: int = field(default=0, init=False)
            note: str = field(default="", kw_only=True)

            def __post_init__(self) -> None:
                object.__setattr__(self, "double", self.x * 2)
        made.append(Point)
    return made


def test_a_frozen_value_class_behaves_as_the_frozen_dataclass() -> None:
    for Point in _frozen_pair():
        a, b = Point(1, [2]), Point(1, [2], weight=9, note="n")
        assert repr(a).endswith(".<locals>.Point(x=1, tags=[2], label='p', double=2, note='')")
        assert a != b and a == Point(1, [2], weight=9)           # weight does not compare, note does
        assert hash(Point(1, (2,))) == hash((1, (2,), "p", 2, ""))
        assert Point(2).tags == [] and Point(2).tags is not Point(2).tags   # a new list per instance
        assert dataclasses.replace(a, x=5) == Point(5, [2]) and dataclasses.replace(a, x=5).double == 10
        assert dataclasses.asdict(a) == {"x": 1, "tags": [2], "label": "p", "weight": 3, "double": 2, "note": ""}
        assert [f.name for f in dataclasses.fields(Point)] == ["x", "tags", "label", "weight", "double", "note"]
        assert Point.__match_args__ == ("x", "tags", "label", "weight")
        assert copy.copy(a) == a and copy.deepcopy(a) == a and copy.deepcopy(a).tags is not a.tags
        with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
            a.x = 3
        with pytest.raises(FrozenInstanceError):
            del a.label
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
            Point()
        with pytest.raises(TypeError):
            Point(1, [], "l", 3, "positional note")                # note is keyword-only
        assert (a == 1) is False and a.__eq__(1) is NotImplemented


def test_a_frozen_value_class_is_recorded_frozen_and_takes_frozen_children() -> None:
    @value_class
    class Base:
        a: int

    @dataclass(frozen=True)
    class Child(Base):            # dataclass refuses a frozen child of a base it does not see frozen
        b: int = 2

    @value_class
    class Grandchild(Child):
        c: int = 3

    assert Base.__dataclass_params__.frozen and Base.__dataclass_params__.eq    # as @dataclass(frozen=True)
    assert Child(1) == Child(1, 2) and Grandchild(1).c == 3 and Grandchild(1) != Grandchild(1, 2, 4)
    with pytest.raises(FrozenInstanceError):
        Grandchild(1).c = 5
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):
        @dataclass
        class Loose(Base):
            b: int = 0
    assert value_class(frozen=False)(type("Free", (), {"__annotations__": {"x": "int"}})).__dataclass_params__.frozen \
        is False


def test_a_mutable_value_class_behaves_as_the_dataclass() -> None:
    for decorate in (dataclass, value_class(frozen=False)):
        @decorate
        class Box:
            size: int
            items: dict = field(default_factory=dict)
        box = Box(1)
        box.size = 4
        assert repr(box).endswith(".<locals>.Box(size=4, items={})") and Box(1) == Box(1) != Box(1, {1: 2})
        assert Box.__hash__ is None                                # mutable and compared: unhashable


def test_a_class_body_keeps_its_own_methods_and_a_wrong_order_is_refused_at_import() -> None:
    for decorate in (dataclass(frozen=True), value_class):
        @decorate
        class Named:
            name: str

            def __repr__(self) -> str:
                return f"<{self.name}>"

            def __eq__(self, other: object) -> bool:
                return isinstance(other, Named) and other.name.lower() == self.name.lower()

        assert repr(Named("A")) == "<A>" and Named("A") == Named("a")
        assert hash(Named("A")) == hash(("A",))                     # frozen: dataclass adds its hash even so

        @decorate
        class Hashed:
            name: str

            def __hash__(self) -> int:
                return 7

        assert hash(Hashed("A")) == 7 and Hashed("A") == Hashed("A")
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @value_class
        class Wrong:
            a: int = 1
            b: int


def test_a_value_class_compiles_nothing_at_import_and_its_init_on_first_use() -> None:
    @value_class
    class Late:
        a: int
        b: str = "b"

    for method in ("__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        assert vars(Late)[method].__code__.co_filename == __file__.replace("tests/test_value_class.py",
                                                                            "worktree_coord/frozen.py"), method
    first = {name: vars(Late)[name] for name in ("__init__", "__eq__", "__hash__")}
    assert Late(1) == Late(1, "b") and hash(Late(1)) == hash((1, "b"))
    for name, stub in first.items():                               # the real ones, compiled once and kept
        assert vars(Late)[name] is not stub and vars(Late)[name].__code__.co_filename == "<string>", name
    assert vars(Late)["__init__"].__code__.co_varnames[:3] == ("self", "a", "b")
    assert Late(2) != Late(3) and {Late(2): 1}[Late(2)] == 1


def test_no_class_of_the_package_is_a_dataclass_that_compiles_its_methods() -> None:
    """A `@dataclass(...)` in worktree_coord/ compiles up to six methods at import (0.5-1.5 ms a class,
    paid by every call that imports its module): declare it with value_class (frozen.py), or
    results.result_class / FrozenValue for the results and the store's records."""
    compiling = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ClassDef):
                continue
            for decorator in node.decorator_list:
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(call, ast.Name) and call.id == "dataclass" or \
                        isinstance(call, ast.Attribute) and call.attr == "dataclass":
                    options = {k.arg: getattr(k.value, "value", None) for k in getattr(decorator, "keywords", [])}
                    if options != {"init": False, "repr": False, "eq": False}:
                        compiling.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}")
    assert not compiling, compiling
