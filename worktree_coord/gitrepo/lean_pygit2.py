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

When: pygit2's `Settings()`, made at its import, hands those locations to libgit2 at once, and
libgit2 then reads and parses the whole certificate bundle (~12 ms of CPU for a 220 kB bundle, with
`_ssl` loaded for the question: ~5 ms more), which only a TLS connection of libgit2's own ever reads.
A `wtc` process makes none (every fetch and push of a run is git's: remote.py). In a `wtc` process
the loader therefore makes that `Settings` a subclass that keeps the hand-over for later, and does it,
exactly as pygit2 does at import (the same call, its same refusal of a bad bundle), the first time
anything asks the settings object anything, or before any pygit2 call that can reach the network
(`NETWORK_CALLS`, wrapped when pygit2's import ends; tests/test_lean_pygit2.py reads pygit2's source
for every call into libgit2's network functions and finds each one there). A bundle libgit2 refuses
(`SSL_CERT_FILE` naming an empty file) no longer stops a `wtc` process that never connects.

libgit2 reads the bundle a second time, on its own, when pygit2's C module loads: its OpenSSL
stream's global set-up asks OpenSSL for its default verify paths, and OpenSSL reads the file
`SSL_CERT_FILE` names right then (~48 million instructions, about a sixth of pygit2's import and
half an interpreter's start-up, in every `task finish` and `merge` of an agent whose environment
sets it, as Nix, CI images and many shells do). OpenSSL takes a file it cannot read there
silently (its default file is often absent). So while `pygit2._pygit2` loads in a `wtc` process
whose `SSL_CERT_FILE` names a regular file, it names the empty `os.devnull` instead, and is put
back at once; the hand-over above later loads that same file into the same context (pygit2's
`get_default_verify_paths` reads `SSL_CERT_FILE` as OpenSSL does, and takes it only when it is a
regular file: hence only then). `SSL_CERT_DIR` is left alone (OpenSSL reads that folder only when
it verifies a peer). git's processes never see the change: it lasts the module's load, with no
process started in it.

The same finder gives `pygit2.enums` lean_enums.py's loader: its 41 enum classes made by the standard
library's `enum._simple_enum`, as `re` and `http` make theirs (the same classes; ~18-23 million
instructions fewer a load of pygit2, ~7% of it), and `pygit2.repository` lean_repository.py's: loaded
without `tarfile` and `string`, which wtc never uses (~13 million instructions fewer).
"""

from __future__ import annotations

import _thread
import sys
import types

TYPE_CHECKING = False   # not typing's: entry.py imports this before anything else
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from typing import Any, Sequence

TARGET = "pygit2.settings"
PACKAGE = "pygit2"
EXTENSION = "pygit2._pygit2"   # its load runs git_libgit2_init, and with it OpenSSL's set-up
ENUMS = "pygit2.enums"         # its classes made as the standard library makes its own (lean_enums.py)
REPOSITORY = "pygit2.repository"   # loaded without tarfile and string (lean_repository.py)
CERT_FILE_VARIABLE = "SSL_CERT_FILE"   # OpenSSL's X509_get_default_cert_file_env()
# The pygit2 calls that can open a connection of libgit2's own (module, class or None, name): each hands
# the certificate locations over first. Each is a call into git_clone, git_remote_connect / fetch /
# push / ls / prune / upload / download, or git_submodule_update / clone (tests/test_lean_pygit2.py).
NETWORK_CALLS = (("pygit2", None, "clone_repository"),
                 ("pygit2.remotes", "Remote", "connect"), ("pygit2.remotes", "Remote", "fetch"),
                 ("pygit2.remotes", "Remote", "list_heads"), ("pygit2.remotes", "Remote", "prune"),
                 ("pygit2.remotes", "Remote", "push"),
                 ("pygit2.submodules", "Submodule", "update"), ("pygit2.submodules", "SubmoduleCollection", "add"))

# The settings objects whose certificate locations libgit2 has not been given yet (pygit2 makes one),
# and the one being handed over now, by the thread holding _LOCK (another thread waits for it).
_PENDING: list[Any] = []
_HANDING: list[Any] = []
_LOCK = _thread.RLock()
# The file SSL_CERT_FILE named while pygit2's C module loaded with it hidden (_certificate_file_hidden).
_HIDDEN: list[str] = []


def hand_over() -> None:
    """Give libgit2 the certificate locations now, as pygit2's `Settings()` does at import (once;
    a refusal is raised to this caller and again to the next, as pygit2's import would raise it)."""
    if not _PENDING:
        return
    with _LOCK:
        if _HANDING:
            return   # this thread, inside the hand-over: pygit2's own method reading the settings
        while _PENDING:
            settings = _PENDING[0]
            _HANDING.append(settings)
            try:
                type(settings).__mro__[1]._initialize_tls_certificate_locations(settings)
            finally:
                _HANDING.pop()
            _PENDING.pop(0)   # only once handed over: a refusal leaves it waiting, to be raised again


def _deferring(real: type) -> type:
    """pygit2's `Settings` with its first step, the certificate hand-over, kept for `hand_over()`."""

    def _initialize_tls_certificate_locations(self: Any) -> None:
        _PENDING.append(self)

    def __getattribute__(self: Any, name: str) -> Any:
        if _PENDING:
            hand_over()
        return real.__getattribute__(self, name)

    return type(real.__name__, (real,), {
        "__slots__": (), "__module__": real.__module__, "__qualname__": real.__qualname__, "__doc__": real.__doc__,
        "_initialize_tls_certificate_locations": _initialize_tls_certificate_locations,
        "__getattribute__": __getattribute__})


def _handing_over_first(call: Any) -> Any:
    from functools import wraps

    @wraps(call)
    def handing_over_first(*args: Any, **kwargs: Any) -> Any:
        hand_over()
        return call(*args, **kwargs)
    return handing_over_first


def _wrap_network_calls() -> None:
    for module_name, owner, name in NETWORK_CALLS:
        module = sys.modules.get(module_name)
        holder = module if owner is None else getattr(module, owner, None)
        call = getattr(holder, name, None)
        if call is None:
            # A pygit2 without this call: nothing of it can connect. Hand over now rather than guess.
            hand_over()
            continue
        setattr(holder, name, _handing_over_first(call))


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
        else:
            stand_in = _SslStandIn()
            sys.modules["ssl"] = stand_in
            try:
                self.real.exec_module(module)
            finally:
                if sys.modules.get("ssl") is stand_in:
                    del sys.modules["ssl"]
        real = getattr(module, "Settings", None)
        if isinstance(real, type) and hasattr(real, "_initialize_tls_certificate_locations"):
            module.Settings = _deferring(real)   # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:   # get_source, get_filename, ...: the real loader's
        return getattr(self.real, name)


class _WrappingNetworkCalls:
    """The loader of the pygit2 package: the real one, then `NETWORK_CALLS` wrapped (only when its
    Settings was made by `_deferring`: otherwise libgit2 has its locations already)."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.real.exec_module(module)
        if _PENDING:
            _wrap_network_calls()
        elif _HIDDEN:
            # A pygit2 whose Settings was not deferred: its import handed over the locations already,
            # or does not; either way libgit2 gets the file its C module's load did not read, now.
            module.settings.set_ssl_cert_locations(_HIDDEN[-1], None)

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


class _CertificateFileUnread:
    """The loader of pygit2's C module: the real one, run with `SSL_CERT_FILE` naming the empty
    `os.devnull` while it runs, when it names a regular file (module docstring); put back after."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> Any:
        with _certificate_file_hidden():
            return self.real.create_module(spec)   # an extension's init (git_libgit2_init) runs here

    def exec_module(self, module: types.ModuleType) -> None:
        with _certificate_file_hidden():
            self.real.exec_module(module)

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


class _certificate_file_hidden:
    """`SSL_CERT_FILE` names `os.devnull` inside the block when it named a regular file (os.environ
    writes the process's C environment, which OpenSSL reads); as it was after."""

    def __enter__(self) -> None:
        import os

        self.kept = os.environ.get(CERT_FILE_VARIABLE)
        self.hidden = self.kept is not None and os.path.isfile(self.kept)
        if self.hidden:
            _HIDDEN.append(self.kept)   # type: ignore[arg-type]  (a str: isfile took it)
            os.environ[CERT_FILE_VARIABLE] = os.devnull

    def __exit__(self, *exc: object) -> None:
        import os

        if self.hidden and self.kept is not None:
            os.environ[CERT_FILE_VARIABLE] = self.kept


class _Finder:
    """First on sys.meta_path: finds pygit2, pygit2.settings, pygit2._pygit2, pygit2.enums and
    pygit2.repository as the other finders do, with `_WrappingNetworkCalls`, `_WithoutSsl`,
    `_CertificateFileUnread`, lean_enums.py's `SimpleEnumsLoader` and lean_repository.py's
    `WithoutTarfileLoader`."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None, target: Any = None) -> ModuleSpec | None:
        if name not in (TARGET, PACKAGE, EXTENSION, ENUMS, REPOSITORY) or \
                ("ssl" in sys.modules and name not in (ENUMS, REPOSITORY)):
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None   # not a plain file on the parent's path: the other finders answer as always
        if name == ENUMS:
            if not hasattr(spec.loader, "get_code"):
                return None
            from .lean_enums import SimpleEnumsLoader

            spec.loader = SimpleEnumsLoader(spec.loader)
            return spec
        if name == REPOSITORY:
            from .lean_repository import WithoutTarfileLoader

            spec.loader = WithoutTarfileLoader(spec.loader)
            return spec
        loader = {TARGET: _WithoutSsl, PACKAGE: _WrappingNetworkCalls, EXTENSION: _CertificateFileUnread}[name]
        spec.loader = loader(spec.loader)
        return spec


def install() -> None:
    """Put the finder first on sys.meta_path (once; not when pygit2 or ssl is already loaded)."""
    if PACKAGE in sys.modules or TARGET in sys.modules or "ssl" in sys.modules or _Finder in sys.meta_path:
        return
    sys.meta_path.insert(0, _Finder)
