"""Generate worktree_coord/coordinator/operation_names.py: which operation class gives the Coordinator
each of its attributes, so the facade (coordinator/__init__.py) loads only the operation module a call
uses (issue 36: a `wtc task start` imported all nine operation modules and their dependencies).

The table is read from the classes themselves: every attribute the fully composed Coordinator has
beyond CoordinatorBase's, with the operation (a base of the Coordinator, in its order) that holds it;
a name two operations both hold is refused, since loading one of them alone would then answer with
the wrong one.

    python scripts/gen_coordinator_names.py           # rewrite the table
    python scripts/gen_coordinator_names.py --check   # exit 1 and show a diff when it is stale

tests/core/test_coordinator_facade.py runs the check.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TABLE = ROOT / "worktree_coord" / "coordinator" / "operation_names.py"
# Attributes every class has: never looked up through the table.
_IMPLICIT = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
             "__static_attributes__", "__annotations__", "__orig_bases__", "__parameters__"}

HEADER = '''"""Which operation class gives the Coordinator each attribute (generated: scripts/gen_coordinator_names.py).

The facade (coordinator/__init__.py) reads it when a Coordinator attribute is missing and loads that
operation's module only. Data only: importing it costs nothing.
"""

# module (under worktree_coord.coordinator): (class, the attributes it gives, sorted)
OPERATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
'''


def compute() -> dict[str, tuple[str, tuple[str, ...]]]:
    from worktree_coord.coordinator import OPERATION_ORDER
    from worktree_coord.coordinator.base import CoordinatorBase

    bases = [getattr(importlib.import_module(f"worktree_coord.coordinator.{module}"), name)
             for module, name in OPERATION_ORDER]

    def chain(cls: type) -> list[type]:
        return [k for k in cls.__mro__ if k not in (CoordinatorBase, object)]

    shared = set(dir(CoordinatorBase))
    owner: dict[str, type] = {}       # attribute -> the class that defines it
    for base in bases:
        for cls in chain(base):
            for name in vars(cls):
                if name in _IMPLICIT:
                    continue
                if name in shared:
                    raise SystemExit(f"{cls.__qualname__}.{name} overrides CoordinatorBase's: the facade would "
                                     "answer with the base's until that operation loads; rename it")
                if owner.setdefault(name, cls) is not cls:
                    raise SystemExit(f"{name} is defined by both {owner[name].__qualname__} and {cls.__qualname__}: "
                                     "loading one operation alone would answer with the wrong one; rename one")
    table: dict[str, tuple[str, tuple[str, ...]]] = {}
    for (module, name), base in zip(OPERATION_ORDER, bases):
        names = []
        for attr, cls in owner.items():
            # The operation with the fewest classes among those holding the definer: `start_task` loads
            # tasks.py (TaskOperations), not agents.py, whose AgentOperations extends it.
            holders = [b for b in bases if cls in chain(b)]
            if min(holders, key=lambda b: len(chain(b))) is base:
                names.append(attr)
        table[module] = (name, tuple(sorted(names)))
    return table


def render(table: dict[str, tuple[str, tuple[str, ...]]]) -> str:
    lines = [HEADER]
    for module, (name, names) in table.items():
        lines.append(f"    \"{module}\": (\"{name}\", (\n")
        row = "        "
        for attr in names:
            item = f"\"{attr}\", "
            if len(row) + len(item) > 118:
                lines.append(row.rstrip() + "\n")
                row = "        "
            row += item
        lines.append(row.rstrip() + "\n")
        lines.append("    )),\n")
    lines.append("}\n")
    return "".join(lines)


def main() -> int:
    text = render(compute())
    if "--check" in sys.argv[1:]:
        old = TABLE.read_text() if TABLE.exists() else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       str(TABLE), "generated"))
            print("\nstale: run python scripts/gen_coordinator_names.py")
            return 1
        return 0
    TABLE.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
