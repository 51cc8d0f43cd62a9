"""gitrepo/lean_enums.py: pygit2's enum classes made by `enum._simple_enum` in a `wtc` process are
the classes pygit2 makes itself (the standard library's own check, `enum._test_simple_enum`, on every
one), and a class statement that is more than members is made as always."""

from __future__ import annotations

import builtins
import enum
import json
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import builtins, enum, json, sys
made = []
real_simple_enum = enum._simple_enum
def counting(*args, **kwargs):
    decorate = real_simple_enum(*args, **kwargs)
    def counted(cls):
        if cls.__module__ == "pygit2.enums":
            made.append(cls.__name__)
        return decorate(cls)
    return counted
enum._simple_enum = counting
from worktree_coord.gitrepo.lean_pygit2 import install
install()
import pygit2
simple = pygit2.enums
# The same module's code run as pygit2 runs it, without the loader: the classes EnumType makes.
plain = {"__name__": "pygit2.enums", "__package__": "pygit2"}
exec(simple.__loader__.get_code("pygit2.enums"), plain)
classes = sorted(name for name, value in plain.items()
                 if isinstance(value, type) and issubclass(value, enum.Enum) and value.__module__ == "pygit2.enums")
failed = {}
for name in classes:
    try:
        enum._test_simple_enum(getattr(simple, name), plain[name])
    except TypeError as error:
        failed[name] = str(error)
print(json.dumps({
    "loader": type(simple.__loader__).__name__,
    "classes": classes, "made_simply": sorted(made), "failed": failed,
    "names": sorted(k for k in vars(simple) if not k.startswith("__")) == sorted(k for k in plain if not k.startswith("__")),
    "builtins_restored": simple.__dict__["__builtins__"] is builtins.__dict__,
    "values": {name: {m.name: m.value for m in getattr(simple, name)} == {m.name: m.value for m in plain[name]}
               for name in classes},
    "flag": str(simple.MergeAnalysis.FASTFORWARD | simple.MergeAnalysis.NORMAL),
    "flag_plain": str(plain["MergeAnalysis"].FASTFORWARD | plain["MergeAnalysis"].NORMAL),
}))
"""


def test_every_pygit2_enum_is_made_simply_and_equals_the_class_pygit2_makes() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parent)
    found = json.loads(done.stdout)
    assert found["loader"] == "SimpleEnumsLoader"
    assert len(found["classes"]) >= 40, found["classes"]
    assert found["made_simply"] == found["classes"], "every class of the module made by _simple_enum"
    assert found["failed"] == {}, found["failed"]
    assert found["names"] and found["builtins_restored"] and all(found["values"].values())
    assert found["flag"] == found["flag_plain"]


def test_a_class_statement_that_is_more_than_members_is_made_as_always() -> None:
    from worktree_coord.gitrepo.lean_enums import _made_simply

    source = '''
from enum import IntEnum, IntFlag, Enum, CONFORM
class Plain(IntFlag):
    """doc"""
    A = 1
    B = 2
class WithMethod(IntEnum):
    A = 1
    def twice(self):
        return 2 * self.value
class WithKeyword(IntFlag, boundary=CONFORM):
    A = 1
class NotInt(Enum):
    A = 1
class Private(IntEnum):
    _ignore_ = ["x"]
    A = 1
'''
    seen = []
    build = _made_simply(builtins.__build_class__)

    def recording(func, name, *bases, **keywords):  # type: ignore[no-untyped-def]
        made = build(func, name, *bases, **keywords)
        seen.append(name)
        return made
    namespace: dict[str, object] = {"__name__": "probe", "__builtins__": dict(builtins.__dict__, __build_class__=recording)}
    exec(compile(source, "probe", "exec"), namespace)
    plain: dict[str, object] = {"__name__": "probe"}
    exec(compile(source, "probe", "exec"), plain)
    assert seen == ["Plain", "WithMethod", "WithKeyword", "NotInt", "Private"]
    for name in seen:
        enum._test_simple_enum(namespace[name], plain[name])
    assert namespace["WithMethod"].A.twice() == 2   # type: ignore[attr-defined]
    assert namespace["WithKeyword"]._boundary_ is enum.CONFORM   # type: ignore[attr-defined]
    assert namespace["Plain"].__doc__ == "doc"
