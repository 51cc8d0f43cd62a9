"""The packages' names loaded on first use (worktree_coord/lazy_names.py), in a fresh interpreter each:
what is loaded, when, and what an unknown name says."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_name_loads_its_module_only_when_read_and_is_kept_in_the_package():
    out = _run("""
        import sys
        import worktree_coord.integrate as integrate
        before = "worktree_coord.integrate.engine" in sys.modules
        drain = integrate.Drain
        from worktree_coord.integrate.engine import Drain
        print(before, drain is Drain, "Drain" in vars(integrate))
    """)
    assert out == "False True True"


def test_a_name_from_a_sibling_package_resolves_like_a_relative_import():
    out = _run("""
        import worktree_coord.integrate as integrate
        from worktree_coord.gitrepo.refs import StaleRef
        print(integrate.StaleRef is StaleRef)
    """)
    assert out == "True"


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    out = _run("""
        import worktree_coord.boundary as boundary
        try:
            boundary.no_such_name
        except AttributeError as error:
            print(error)
        print(hasattr(boundary, "matches"), getattr(boundary, "nope", "default"))
    """)
    assert out.splitlines() == ["module 'worktree_coord.boundary' has no attribute 'no_such_name'", "True default"]


def test_every_table_entry_of_every_lazy_package_is_the_object_its_module_holds():
    out = _run("""
        import importlib
        bad = []
        for package in ("boundary", "check", "integrate", "consolidate", "merge"):
            name = f"worktree_coord.{package}"
            module = importlib.import_module(name)
            table = getattr(module, "_FROM", None) or module._LAZY
            for exported in module.__all__:
                try:
                    value = getattr(module, exported)
                except Exception as error:
                    bad.append(f"{package}.{exported}: {error}")
                    continue
                where = table.get(exported)
                if where is not None:   # a name the package defines itself has no entry
                    source = importlib.import_module(where if where.startswith(".") else "." + where, name)
                    if value is not getattr(source, exported):
                        bad.append(f"{package}.{exported}: not {source.__name__}'s")
        print(bad)
    """)
    assert out == "[]"
