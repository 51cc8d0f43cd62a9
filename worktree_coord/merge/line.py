"""Stage 1 of the cascade: the diff3 line merge (git's xdiff), on byte buffers.

Input: base, left (ours), right (theirs) as bytes, a marker size and three labels.
Output: a `FileMerge` with strategy LINE whose `merged` bytes are byte-identical to
`git merge-file -p --diff3 -L ours -L base -L theirs --marker-size N` and whose `conflicts` list
every marker block.

How: libgit2's `git_merge_file` (exported by the libgit2 shared library bundled in the pygit2
wheel, but not wrapped by pygit2 1.21) is called through cffi in ABI mode; the struct layouts are
libgit2 1.9's, which is why pyproject pins pygit2 to 1.21.x. When the binding cannot be loaded the
same merge runs as a `git merge-file` subprocess; tests check that both agree byte for byte.
"""

from __future__ import annotations

import functools
import glob
import os
import subprocess
import tempfile
from typing import Any

from ..errors import GitError
from .markers import parse_conflicts
from .result import FileMerge, Strategy

_CDEF = """
typedef struct {
    unsigned int version;
    const char *ptr;
    size_t size;
    const char *path;
    unsigned int mode;
} git_merge_file_input;

typedef struct {
    unsigned int automergeable;
    const char *path;
    unsigned int mode;
    const char *ptr;
    size_t len;
} git_merge_file_result;

typedef struct {
    unsigned int version;
    const char *ancestor_label;
    const char *our_label;
    const char *their_label;
    int favor;
    unsigned int flags;
    unsigned short marker_size;
} git_merge_file_options;

int git_libgit2_init(void);
int git_merge_file(git_merge_file_result *out, const git_merge_file_input *ancestor,
                   const git_merge_file_input *ours, const git_merge_file_input *theirs,
                   const git_merge_file_options *opts);
void git_merge_file_result_free(git_merge_file_result *result);
"""

_STYLE_DIFF3 = 2
_STYLE_ZDIFF3 = 1 << 8


class _Libgit2:
    """The cffi handle on the bundled libgit2; built once per process."""

    def __init__(self) -> None:
        import cffi
        import pygit2  # noqa: F401  (its import runs git_libgit2_init on the same library)

        libdir = os.path.join(os.path.dirname(os.path.dirname(pygit2.__file__)), "pygit2.libs")
        candidates = sorted(glob.glob(os.path.join(libdir, "libgit2-*.so*")))
        if not candidates:
            raise OSError(f"no bundled libgit2 under {libdir}")
        self.ffi = cffi.FFI()
        self.ffi.cdef(_CDEF)
        self.lib: Any = self.ffi.dlopen(candidates[0])
        self.lib.git_libgit2_init()

    def merge(self, base: bytes, left: bytes, right: bytes, *, marker_size: int,
              labels: tuple[str, str, str], zdiff3: bool) -> tuple[bytes, bool]:
        ffi, lib = self.ffi, self.lib
        keep = []  # cffi buffers must outlive the call

        def source(data: bytes) -> Any:
            buf = ffi.new("char[]", data or b"\0")  # never NULL: NULL means "no ancestor" to libgit2
            keep.append(buf)
            item = ffi.new("git_merge_file_input *")
            item.version = 1
            item.ptr = buf
            item.size = len(data)
            item.path = ffi.NULL
            item.mode = 0o100644
            return item

        opts = ffi.new("git_merge_file_options *")
        opts.version = 1
        names = [ffi.new("char[]", label.encode("utf-8")) for label in (labels[1], labels[0], labels[2])]
        opts.ancestor_label, opts.our_label, opts.their_label = names
        opts.favor = 0
        opts.flags = _STYLE_ZDIFF3 if zdiff3 else _STYLE_DIFF3
        opts.marker_size = marker_size
        out = ffi.new("git_merge_file_result *")
        code = lib.git_merge_file(out, source(base), source(left), source(right), opts)
        if code != 0:
            raise GitError(f"libgit2 git_merge_file failed with code {code}")
        try:
            merged = bytes(ffi.buffer(out.ptr, out.len)) if out.len else b""
            return merged, bool(out.automergeable)
        finally:
            lib.git_merge_file_result_free(out)


@functools.lru_cache(maxsize=1)
def _binding() -> _Libgit2 | None:
    try:
        return _Libgit2()
    except (OSError, ImportError, AttributeError):
        return None


def binding_available() -> bool:
    """True when the in-process libgit2 binding loaded (else the git subprocess is used)."""
    return _binding() is not None


def git_merge_file(base: bytes, left: bytes, right: bytes, *, marker_size: int = 7,
                   labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                   zdiff3: bool = False) -> tuple[bytes, bool]:
    """The same merge through the real `git merge-file` binary: the fallback and the test oracle."""
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
        done = subprocess.run(command, capture_output=True, check=False)
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
