"""Read-only values compared by value, as `@dataclass(frozen=True)` makes them, without the methods
dataclass compiles per class (`exec`) at import.

Every `wtc` call imports the store's records (model.py), the operations' results (results.py) and the
value classes of the modules its command runs; generating `__init__`, `__setattr__`, `__eq__`,
`__hash__` and `__repr__` for each class cost a call 0.5-1.5 ms a class, 15-45 ms a command
(issue 36: start-up). Two ways to get the same classes for less:

- `FrozenValue`: a base whose dataclass is declared `init=False, repr=False, eq=False` and writes its
  own `__init__` (model.py's records).
- `value_class`: a drop-in for `@dataclass(frozen=True)` (`value_class(frozen=False)` for a plain
  `@dataclass`). The class is a real dataclass (`fields`, `replace`, `asdict`, `is_dataclass` work);
  `__init__`, `__eq__` and `__hash__` are compiled on their first call, not at import, from the
  source dataclass writes for them (a class a command never builds costs nothing, and a used one is
  as fast as dataclass's own, which hot loops such as the merge checks' symbols need; the same
  tuples are compared and hashed, so sets and dicts order alike); `repr` and the frozen
  `__setattr__`/`__delattr__` are shared functions (no loop calls them).
"""

from __future__ import annotations

from . import lean_dataclasses  # noqa: F401  (first: dataclasses without inspect)
import dataclasses  # noqa: E402
from _thread import get_ident
from dataclasses import FrozenInstanceError, dataclass, fields
from typing import Any, Callable, TypeVar, dataclass_transform, overload

T = TypeVar("T")


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


@overload
def value_class(cls: type[T], /) -> type[T]: ...
@overload
def value_class(*, frozen: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True)   # type checkers read it as the dataclass it is
def value_class(cls: type[T] | None = None, /, *, frozen: bool = True) -> Any:
    """`@dataclass(frozen=True)` (`frozen=False`: `@dataclass`) with no method compiled at import."""
    if cls is None:
        return lambda later: _make(later, frozen)
    return _make(cls, frozen)


def _make(cls: type[T], frozen: bool) -> type[T]:
    own = dict(cls.__dict__)
    if cls.__doc__ is None:   # else dataclass writes one from inspect.signature
        cls.__doc__ = f"{cls.__name__}: a value (see its fields)."
    # A frozen dataclass base makes dataclass refuse a non-frozen child: then let it write the frozen
    # __setattr__/__delattr__ (two methods compiled; replaced below all the same).
    frozen_base = any(getattr(getattr(base, "__dataclass_params__", None), "frozen", False) for base in cls.__mro__[1:])
    made: Any = dataclass(init=False, repr=False, eq=False, frozen=frozen and frozen_base)(cls)
    # What dataclass(frozen=...) would record: the class has an __init__, a repr and an equality of
    # dataclass's making, and is frozen (a @dataclass(frozen=True) subclass checks that of its bases).
    params = made.__dataclass_params__
    params.init, params.repr, params.eq, params.frozen = True, True, True, frozen
    declared = list(made.__dataclass_fields__.values())
    every = fields(made)
    if len(every) != len(declared):
        raise TypeError(f"{cls.__qualname__}: value_class does not take InitVar fields; use @dataclass for it")
    _check_order(made, every)
    if "__init__" not in own:
        made.__init__ = _lazy_init(made, every, frozen)
    if "__repr__" not in own:
        made.__repr__ = _repr_of(tuple(f.name for f in every if f.repr))
    if "__eq__" not in own:
        compared = tuple(f.name for f in every if f.compare)
        made.__eq__ = _lazy(made, "__eq__", _eq_source(compared))
    # dataclass's hash rule for eq=True, unsafe_hash=False: frozen adds one, mutable sets None, unless the
    # class body wrote its own (an `__eq__` in the body alone leaves `__hash__ = None` there: not its own).
    class_hash = own.get("__hash__", dataclasses.MISSING)
    explicit = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in own))
    if not explicit:
        hashed = tuple(f.name for f in every if (f.compare if f.hash is None else f.hash))
        made.__hash__ = _lazy(made, "__hash__", _hash_source(hashed)) if frozen else None
    if frozen:
        names = frozenset(f.name for f in every)
        made.__setattr__ = _frozen_setattr(made, names)
        made.__delattr__ = _frozen_delattr(made, names)
    return cls


def _check_order(cls: type, every: tuple[dataclasses.Field[Any], ...]) -> None:
    # dataclass refuses this at import; a lazily compiled __init__ would refuse it only on first use.
    seen_default = None
    for f in every:
        if not f.init or f.kw_only:
            continue
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if has_default:
            seen_default = f.name
        elif seen_default is not None:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _tuple_of(owner: str, names: tuple[str, ...]) -> str:
    return "(" + "".join(f"{owner}.{name}," for name in names) + ")"


def _eq_source(names: tuple[str, ...]) -> str:
    return ("def __eq__(self, other):\n"
            "    if other.__class__ is self.__class__:\n"
            f"        return {_tuple_of('self', names)} == {_tuple_of('other', names)}\n"
            "    return NotImplemented\n")


def _hash_source(names: tuple[str, ...]) -> str:
    return f"def __hash__(self):\n    return hash({_tuple_of('self', names)})\n"


def _lazy(cls: type, name: str, source: str) -> Callable[..., Any]:
    """A method that compiles `source` (defining `name`) on its first call, puts it in place and calls it.
    Put in place only while it is still the class's own: a decorator that wrapped it since (a hash
    kept per object, profiles._hash_kept) calls it through the wrapper, and replacing the class's
    method then dropped the wrapper after the first call (every hash of a profile walked all its
    fields again: ~0.2 ms a merge of a drain). Compiled once either way."""
    compiled: list[Callable[..., Any]] = []

    def first_call(self: Any, *args: Any) -> Any:
        if not compiled:
            scope: dict[str, Any] = {}
            exec(source, scope)   # noqa: S102  (our own text, from the class's field names)
            real = scope[name]
            real.__qualname__ = f"{cls.__qualname__}.{name}"
            compiled.append(real)
            if cls.__dict__.get(name) is first_call:
                setattr(cls, name, real)
        return compiled[0](self, *args)
    first_call.__name__ = name
    first_call.__qualname__ = f"{cls.__qualname__}.{name}"
    return first_call


def _repr_of(names: tuple[str, ...]) -> Callable[[Any], str]:
    busy: set[tuple[int, int]] = set()   # dataclass's repr guards recursion alike (reprlib.recursive_repr)

    def __repr__(self: Any) -> str:
        key = (id(self), get_ident())
        if key in busy:
            return "..."
        busy.add(key)
        try:
            shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        finally:
            busy.discard(key)
        return f"{self.__class__.__qualname__}({shown})"
    return __repr__


def _frozen_setattr(cls: Any, names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)
    return __setattr__


def _frozen_delattr(cls: Any, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __delattr__


_FACTORY = object()   # a parameter's default where the field has a default_factory (dataclass's own sentinel)


def _lazy_init(cls: Any, every: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """An `__init__` that compiles the class's real one on its first call, puts it in place and calls it."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = _compile_init(cls, every, frozen)
        cls.__init__ = real
        real(self, *args, **kwargs)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile_init(cls: type, every: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    # The source dataclass's _init_fn writes for these fields (defaults, factories, init=False fields,
    # keyword-only fields, __post_init__), compiled once.
    scope: dict[str, Any] = {"_FACTORY": _FACTORY, "_set": object.__setattr__}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in every:
        default = ""
        if f.default_factory is not dataclasses.MISSING:
            scope[f"_factory_{f.name}"] = f.default_factory
            default = "=_FACTORY"
            value = f"_factory_{f.name}() if {f.name} is _FACTORY else {f.name}" if f.init else f"_factory_{f.name}()"
        elif f.default is not dataclasses.MISSING:
            scope[f"_default_{f.name}"] = f.default
            default = f"=_default_{f.name}"
            value = f.name
        else:
            value = f.name
        if f.init:
            (keyword if f.kw_only else positional).append(f"{f.name}{default}")
        elif f.default_factory is dataclasses.MISSING:
            continue   # init=False with a plain default (or none): the class attribute answers, as in dataclass
        body.append(f"_set(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, scope)   # noqa: S102  (our own text, from the class's field names)
    made: Callable[..., None] = scope["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made
