"""A package's public names loaded with their module on first use (PEP 562 `__getattr__`).

Several packages re-export names from their modules (`from worktree_coord.integrate import Drain`)
but must not import those modules when the package is imported: every `wtc` call pays for what
it imports (issue 36: start-up), and most calls use few of the names. Each such package keeps a
table (name -> module, relative to the package) and gets its `__getattr__` from here.

The module is loaded through `__import__`, the import statement's machinery, not
`importlib.import_module`: `python -X importtime` (which tests/serve/test_startup_imports.py and
scripts/bench_startup.py read) logs only the former's imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(namespace: dict[str, Any], table: Mapping[str, str]) -> Callable[[str], Any]:
    """The `__getattr__` for the package whose globals are `namespace`: a name in `table` is read
    from its module (`"engine"` or `".engine"`: the package's own; `"..gitrepo.refs"`: relative to
    the package as in an import statement), kept in the namespace so the next look-up is plain;
    any other name is an AttributeError naming the package."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        relative = module.lstrip(".")
        level = max(1, len(module) - len(relative))
        value = getattr(__import__(relative, namespace, None, [name], level), name)
        namespace[name] = value
        return value

    return __getattr__
