"""Stage 1 of the cascade: the diff3 line merge (git's xdiff), on byte buffers.

Input: base, left (ours), right (theirs) as bytes, a marker size and three labels.
Output: a `FileMerge` with strategy LINE whose `merged` bytes are byte-identical to
`git merge-file -p --diff3 -L ours -L base -L theirs --marker-size N` and whose `conflicts` list
every marker block.

How: libgit2's `git_merge_file` (exported by the libgit2 shared library bundled in the pygit2
wheel, but not wrapped by pygit2 1.21) is called through ctypes; the struct layouts are
libgit2 1.9's, which is why pyproject pins pygit2 to 1.21.x. When the binding cannot be loaded the
same merge runs as a `git merge-file` subprocess; tests check that both agree byte for byte.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os

from ...errors import GitError
from .markers import parse_conflicts
from ..result import FileMerge, Strategy

class _Input(ctypes.Structure):        # git_merge_file_input
    _fields_ = [("version", ctypes.c_uint), ("ptr", ctypes.c_char_p), ("size", ctypes.c_size_t),
                ("path", ctypes.c_char_p), ("mode", ctypes.c_uint)]


class _Result(ctypes.Structure):       # git_merge_file_result
    _fields_ = [("automergeable", ctypes.c_uint), ("path", ctypes.c_char_p), ("mode", ctypes.c_uint),
                ("ptr", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class _Options(ctypes.Structure):      # git_merge_file_options
    _fields_ = [("version", ctypes.c_uint), ("ancestor_label", ctypes.c_char_p), ("our_label", ctypes.c_char_p),
                ("their_label", ctypes.c_char_p), ("favor", ctypes.c_int), ("flags", ctypes.c_uint),
                ("marker_size", ctypes.c_ushort)]


class _Hunk(ctypes.Structure):         # git_diff_hunk
    _fields_ = [("old_start", ctypes.c_int), ("old_lines", ctypes.c_int), ("new_start", ctypes.c_int),
                ("new_lines", ctypes.c_int), ("header_len", ctypes.c_size_t), ("header", ctypes.c_char * 128)]


_STYLE_DIFF3 = 2
_STYLE_ZDIFF3 = 1 << 8
# git_diff_options is filled by libgit2's own git_diff_options_init (its defaults, whatever fields a
# build adds at its end); only the two fields a zero-context diff sets are written, at their offsets
# on a 64-bit build (version, flags, ignore_submodules, pathspec, two callbacks and a payload come
# first), and those offsets are checked against the defaults init wrote (context 3, interhunk 0).
_DIFF_OPTIONS_BYTES = 512
_CONTEXT_LINES_AT, _INTERHUNK_LINES_AT = 56, 60
_FLAGS_AT = 4                 # git_diff_options.flags, after its version
DIFF_FORCE_TEXT = 1 << 20     # GIT_DIFF_FORCE_TEXT: diff every version as text (linediff.py)


def _init_without_a_bundle(lib: ctypes.CDLL) -> None:
    """`git_libgit2_init()`, without the certificate bundle its https set-up would read first.

    libgit2's init makes its OpenSSL context and loads the default certificate locations into it;
    with SSL_CERT_FILE naming a bundle (as on machines that point every tool at one) that is every
    certificate of the bundle parsed: 5-10 ms of CPU, most of the init, in every `wtc merge-file`
    that git starts per conflicted file, which makes no connection. So while libgit2 is set up by
    this call (pygit2 not imported: its import would have set it up), the variable names no bundle,
    and it is put back at once. A later pygit2 import in the process gives libgit2 the
    certificate locations itself (pygit2.settings: Python's default paths, which read the same
    variable), before any https use. The variable is changed only in a process running one thread:
    a git started meanwhile by another thread would see it."""
    import sys

    bundle = os.environ.get("SSL_CERT_FILE")
    threading = sys.modules.get("threading")
    if (bundle is None or "pygit2" in sys.modules
            or (threading is not None and threading.active_count() > 1)):
        lib.git_libgit2_init()
        return
    os.environ["SSL_CERT_FILE"] = os.devnull
    try:
        lib.git_libgit2_init()
    finally:
        os.environ["SSL_CERT_FILE"] = bundle


class _Libgit2:
    """The ctypes handle on the bundled libgit2; built once per process. (ctypes, not cffi: cffi
    parses its C declarations with pycparser on every start, ~50 ms of each `wtc merge-file` that
    git starts once per conflicted file.)"""

    def __init__(self) -> None:
        # The library bundled beside the pygit2 package, found without importing pygit2 (~40 ms of a
        # `wtc merge-file` that needs only this call); git_libgit2_init below sets the library up as
        # pygit2's import would (reference-counted: a later pygit2 import in this process shares it).
        from importlib.util import find_spec

        spec = find_spec("pygit2")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("pygit2 is not installed")
        package = next(iter(spec.submodule_search_locations))
        libdir = os.path.join(os.path.dirname(package), "pygit2.libs")
        candidates = sorted(glob.glob(os.path.join(libdir, "libgit2-*.so*")))
        if not candidates:
            raise OSError(f"no bundled libgit2 under {libdir}")
        lib = ctypes.CDLL(candidates[0])
        lib.git_libgit2_init.restype = ctypes.c_int
        lib.git_libgit2_init.argtypes = []
        lib.git_merge_file.restype = ctypes.c_int
        lib.git_merge_file.argtypes = [ctypes.POINTER(_Result), ctypes.POINTER(_Input), ctypes.POINTER(_Input),
                                       ctypes.POINTER(_Input), ctypes.POINTER(_Options)]
        lib.git_merge_file_result_free.restype = None
        lib.git_merge_file_result_free.argtypes = [ctypes.POINTER(_Result)]
        _init_without_a_bundle(lib)
        self.lib = lib
        self._diff_options: ctypes.Array[ctypes.c_char] | None = None

    def diff_options(self) -> ctypes.Array[ctypes.c_char] | None:
        """git_diff_options for a line diff with no context, as text (what `pygit2.Patch.create_from(old,
        new, flag=DIFF_FORCE_TEXT, context_lines=0)` passes), or None when this build's layout is not the one checked for."""
        if self._diff_options is None:
            lib = self.lib
            lib.git_diff_options_init.restype = ctypes.c_int
            lib.git_diff_options_init.argtypes = [ctypes.c_void_p, ctypes.c_uint]
            lib.git_patch_from_buffers.restype = ctypes.c_int
            lib.git_patch_from_buffers.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t,
                                                   ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                                   ctypes.c_void_p]
            lib.git_patch_num_hunks.restype = ctypes.c_size_t
            lib.git_patch_num_hunks.argtypes = [ctypes.c_void_p]
            lib.git_patch_get_hunk.restype = ctypes.c_int
            lib.git_patch_get_hunk.argtypes = [ctypes.POINTER(ctypes.POINTER(_Hunk)), ctypes.POINTER(ctypes.c_size_t),
                                               ctypes.c_void_p, ctypes.c_size_t]
            lib.git_patch_free.restype = None
            lib.git_patch_free.argtypes = [ctypes.c_void_p]
            options = ctypes.create_string_buffer(_DIFF_OPTIONS_BYTES)
            if ctypes.sizeof(ctypes.c_void_p) != 8 or lib.git_diff_options_init(options, 1) != 0:
                return None
            field = ctypes.c_uint32.from_buffer
            if (field(options, 0).value, field(options, _FLAGS_AT).value, field(options, _CONTEXT_LINES_AT).value,
                    field(options, _INTERHUNK_LINES_AT).value) != (1, 0, 3, 0):
                return None
            field(options, _CONTEXT_LINES_AT).value = 0
            field(options, _FLAGS_AT).value = DIFF_FORCE_TEXT   # linediff.py: a NUL byte is no reason for no lines
            self._diff_options = options
        return self._diff_options

    def hunks(self, old: bytes, new: bytes) -> tuple[tuple[int, int, int, int], ...] | None:
        """(old start, old count, new start, new count) of each hunk of libgit2's line diff `old` ->
        `new`, zero context lines; None when the diff options' layout did not check out."""
        options = self.diff_options()
        if options is None:
            return None
        lib = self.lib
        patch = ctypes.c_void_p()
        code = lib.git_patch_from_buffers(ctypes.byref(patch), old, len(old), None, new, len(new), None, options)
        if code != 0:
            raise GitError(f"libgit2 git_patch_from_buffers failed with code {code}")
        try:
            found = []
            hunk = ctypes.POINTER(_Hunk)()
            lines = ctypes.c_size_t()
            for index in range(lib.git_patch_num_hunks(patch)):
                if lib.git_patch_get_hunk(ctypes.byref(hunk), ctypes.byref(lines), patch, index) != 0:
                    raise GitError(f"libgit2 git_patch_get_hunk failed on hunk {index}")
                found.append((hunk.contents.old_start, hunk.contents.old_lines, hunk.contents.new_start,
                              hunk.contents.new_lines))
            return tuple(found)
        finally:
            lib.git_patch_free(patch)

    def merge(self, base: bytes, left: bytes, right: bytes, *, marker_size: int,
              labels: tuple[str, str, str], zdiff3: bool) -> tuple[bytes, bool]:
        def source(data: bytes) -> _Input:
            # never NULL: NULL means "no ancestor" to libgit2; the struct keeps the bytes alive
            return _Input(version=1, ptr=data or b"\0", size=len(data), path=None, mode=0o100644)

        names = [label.encode("utf-8") for label in (labels[1], labels[0], labels[2])]
        opts = _Options(version=1, ancestor_label=names[0], our_label=names[1], their_label=names[2], favor=0,
                        flags=_STYLE_ZDIFF3 if zdiff3 else _STYLE_DIFF3, marker_size=marker_size)
        out = _Result()
        inputs = [source(base), source(left), source(right)]
        code = self.lib.git_merge_file(ctypes.byref(out), *(ctypes.byref(i) for i in inputs), ctypes.byref(opts))
        if code != 0:
            raise GitError(f"libgit2 git_merge_file failed with code {code}")
        try:
            merged = ctypes.string_at(out.ptr, out.len) if out.len else b""
            return merged, bool(out.automergeable)
        finally:
            self.lib.git_merge_file_result_free(ctypes.byref(out))


@functools.lru_cache(maxsize=1)
def _binding() -> _Libgit2 | None:
    try:
        return _Libgit2()
    except (OSError, ImportError, AttributeError):
        return None


def libgit2_hunks(old: bytes, new: bytes) -> tuple[tuple[int, int, int, int], ...] | None:
    """The hunks of libgit2's zero-context line diff (linediff.py) through the same binding as the
    merge, without importing pygit2 (~40 ms of a `wtc merge-file` whose semantic check diffs the
    sides); None when the binding or its diff options are unavailable (the caller asks pygit2)."""
    binding = _binding()
    return None if binding is None else binding.hunks(old, new)


def binding_available() -> bool:
    """True when the in-process libgit2 binding loaded (else the git subprocess is used)."""
    return _binding() is not None


def git_merge_file(base: bytes, left: bytes, right: bytes, *, marker_size: int = 7,
                   labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                   zdiff3: bool = False) -> tuple[bytes, bool]:
    """The same merge through the real `git merge-file` binary: the fallback and the test oracle."""
    # Here, not at the top: the in-process binding merges every file git's drivers hand over
    # (tempfile loads random and shutil, subprocess its selectors: ~3-5 ms of each `wtc merge-file`).
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="wtc-merge-") as tmp:
        paths = []
        for name, data in (("base", base), ("left", left), ("right", right)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as handle:
                handle.write(data)
            paths.append(path)
        command = ["git", "merge-file", "-p", "--zdiff3" if zdiff3 else "--diff3",
                   f"--marker-size={marker_size}",
                   "-L", labels[0], "-L", labels[1], "-L", labels[2], paths[1], paths[0], paths[2]]
        # cwd: git will not start in a deleted folder, and the caller's may be one (a finish run from
        # inside the task worktree it removes); the scratch folder exists while git runs.
        done = subprocess.run(command, capture_output=True, check=False, cwd=tmp)
    if done.returncode < 0 or done.returncode > 127:
        raise GitError("git merge-file failed: " + done.stderr.decode("utf-8", "replace").strip(),
                       fix="check that git >= 2.35 is installed and on PATH")
    return done.stdout, done.returncode == 0


def raw_line_merge(base: bytes, left: bytes, right: bytes, *, marker_size: int = 7,
                   labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                   zdiff3: bool = False) -> tuple[bytes, bool]:
    """Merged bytes and a clean flag, from libgit2 in process or else `git merge-file`."""
    lib = _binding()
    # libgit2 omits the base label on an empty ancestor (add/add); git's binary keeps it.
    if lib is not None and base:
        return lib.merge(base, left, right, marker_size=marker_size, labels=labels, zdiff3=zdiff3)
    return git_merge_file(base, left, right, marker_size=marker_size, labels=labels, zdiff3=zdiff3)


def line_merge(base: bytes, left: bytes, right: bytes, *, marker_size: int = 7,
               labels: tuple[str, str, str] = ("ours", "base", "theirs"),
               language: str | None = None) -> FileMerge:
    """The diff3 line merge as a `FileMerge` (conflicts read back from the marker blocks)."""
    merged, clean = raw_line_merge(base, left, right, marker_size=marker_size, labels=labels)
    conflicts = () if clean else tuple(parse_conflicts(merged, marker_size=marker_size))
    return FileMerge(merged=merged, clean=clean, strategy=Strategy.LINE, conflicts=conflicts,
                     language=language)
