"""pygit2 loaded without the `ssl` module, in a `wtc` process (issue 36: the CLI's CPU per task).

pygit2's `settings.py` runs `from ssl import DefaultVerifyPaths, get_default_verify_paths` and, at
pygit2's import, calls the second once to give libgit2 the certificate locations Python's OpenSSL
would use. Importing `ssl` for that costs ~8-10 ms of CPU a process (ssl.py with socket, base64,
enum tables and its constants), about a twelfth of pygit2's import, in every call that opens libgit2:
a `task finish` that merges above all, the swarm's most frequent call.
What pygit2 asks of it is one C call, `_ssl.get_default_verify_paths()`, and three lines of Python.

`install()` (called by entry.py, so only a `wtc` process, never a program that imports
worktree_coord as a library) puts a finder first on `sys.meta_path` that answers for
`pygit2.settings` alone: its loader runs the real `settings.py` with a stand-in for `ssl` in
`sys.modules`, then puts back what was there. The stand-in gives those two names exactly as ssl.py
writes them (the same fields, the same environment variables and checks; the answer is the same
tuple: tests/test_lean_pygit2.py), and reads any other name from the real module, imported
then. Nothing is done when `ssl` is already loaded (the real one answers). libgit2 gets the same
certificate locations as before.
"""

from __future__ import annotations

import sys
import types

TYPE_CHECKING = False   # not typing's: entry.py imports this before anything else
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from typing import Any, Sequence

TARGET = "pygit2.settings"


def _fields() -> Any:
    from collections import namedtuple

    # ssl.py's own declaration.
    return namedtuple("DefaultVerifyPaths", "cafile capath openssl_cafile_env openssl_cafile "
                                            "openssl_capath_env openssl_capath")


class _SslStandIn(types.ModuleType):
    """What pygit2.settings imports as `ssl`: ssl.py's `get_default_verify_paths` over the same C
    call, and any other name from the real module."""

    def __init__(self) -> None:
        super().__init__("ssl")
        self.DefaultVerifyPaths = _fields()
        self.get_default_verify_paths = self._get_default_verify_paths

    def _get_default_verify_paths(self) -> Any:
        """Return paths to default cafile and capath (ssl.get_default_verify_paths, line by line)."""
        import os

        import _ssl

        parts = _ssl.get_default_verify_paths()
        # environment vars shadow paths
        cafile = os.environ.get(parts[0], parts[1])
        capath = os.environ.get(parts[2], parts[3])
        return self.DefaultVerifyPaths(cafile if os.path.isfile(cafile) else None,
                                       capath if os.path.isdir(capath) else None, *parts)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)   # `__path__`, `__file__`: the import system's questions, not names
        import importlib

        if sys.modules.get("ssl") is self:
            del sys.modules["ssl"]       # the real module takes its place from here on
        return getattr(importlib.import_module("ssl"), name)


class _WithoutSsl:
    """The loader of pygit2.settings: the real one, run with the stand-in as `ssl`."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        if "ssl" in sys.modules:
            self.real.exec_module(module)
            return
        stand_in = _SslStandIn()
        sys.modules["ssl"] = stand_in
        try:
            self.real.exec_module(module)
        finally:
            if sys.modules.get("ssl") is stand_in:
                del sys.modules["ssl"]

    def __getattr__(self, name: str) -> object:   # get_source, get_filename, ...: the real loader's
        return getattr(self.real, name)


class _Finder:
    """First on sys.meta_path: finds pygit2.settings as the other finders do, with `_WithoutSsl`."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None, target: Any = None) -> ModuleSpec | None:
        if name != TARGET or "ssl" in sys.modules:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None   # not a plain file on the parent's path: the other finders answer as always
        spec.loader = _WithoutSsl(spec.loader)
        return spec


def install() -> None:
    """Put the finder first on sys.meta_path (once; not when pygit2 or ssl is already loaded)."""
    if TARGET in sys.modules or "ssl" in sys.modules or _Finder in sys.meta_path:
        return
    sys.meta_path.insert(0, _Finder)
