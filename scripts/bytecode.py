"""Benchmarks' one step before timing a `wtc` process: the package's bytecode, as an install has it.

pip compiles an installed package's bytecode; an editable checkout gets it on first import, unless
PYTHONDONTWRITEBYTECODE is set (as on the development machines), when every `wtc` process would
compile each module it imports from source (~0.1-0.5 s of CPU a call) and a benchmark would time
that instead of wtc. Python still reads existing bytecode under that variable, so one compile here,
outside the timings, gives every process what an installed wtc has (tests/conftest.py does the same
for the test suite). Stale files are rebuilt by mtime; a read-only install is left as it is.
"""

from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_package(*sources: str | None) -> None:
    """Compile worktree_coord (and its grammars) of each checkout in `sources` (None: the installed one)."""
    folders: set[Path] = set()
    for source in sources or (None,):
        if source is None:
            spec = importlib.util.find_spec("worktree_coord")
            if spec is None or spec.origin is None:
                continue
            folders.add(Path(spec.origin).resolve().parent)
            grammars = importlib.util.find_spec("worktree_coord.grammars")
            if grammars is not None and grammars.origin is not None:
                folders.add(Path(grammars.origin).resolve().parent)
        else:
            folders.add(Path(source).resolve() / "worktree_coord")
    for folder in sorted(folders):
        if folder.is_dir():
            compileall.compile_dir(str(folder), quiet=2, workers=1)


def compiled_baseline(folder: str) -> Path:
    """The other code a benchmark compares with (`--baseline FOLDER`, holding its worktree_coord/), this
    checkout's and that one's bytecode compiled; a folder without the package is refused, saying so."""
    baseline = Path(folder).resolve()
    if not (baseline / "worktree_coord" / "__init__.py").is_file():
        raise SystemExit(f"{baseline} holds no worktree_coord/ package; pass a copy of the other code")
    compile_package(None, str(baseline))
    return baseline
