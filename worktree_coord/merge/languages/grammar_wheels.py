"""A grammar wheel's language function and its query files, read without running the wheel's
`__init__.py`.

Stage: the first use of a language (a profile's grammar, the semantic check's tags query). Input:
the wheel's module name (`tree_sitter_python`) and the function a profile names (`language`,
`language_tsx`). Output: what that function returns (the grammar's pointer, for
`tree_sitter.Language`), and the text of a file under the wheel's `queries/`.
Why: every grammar wheel's `__init__.py` imports `importlib.resources` for its query constants,
which loads tempfile, zipfile, random and shutil (~5 ms a process on a quiet machine, more under
load), in each `wtc merge-file` git starts per conflicted file. The wheels' functions all live in
their compiled `_binding` module, which does not need the package's `__init__` to load.
How: the wheel's folder is found (`importlib.util.find_spec`, which runs nothing of the wheel), its
one `_binding` extension loaded by its file as `<wheel>._binding` (the name the package itself
would give it, and registered under it, so a later `import <wheel>` reuses it), and a query file
read from the folder. Anything else (no plain folder, no single `_binding` file, no such function)
imports the wheel as before: the answer is the same object from the same library either way
(tests/merge/test_grammar_wheels.py holds every shipped profile's grammar to it).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from typing import Any, Callable


def language_function(wheel: str, function: str) -> Callable[[], Any]:
    """The wheel's `function` (ImportError when the wheel is not installed, AttributeError when it
    has no such function), from its `_binding` module loaded alone where it can be."""
    binding = _binding(wheel)
    found = getattr(binding, function, None) if binding is not None else None
    if found is None:
        found = getattr(importlib.import_module(wheel), function)
    return found   # type: ignore[no-any-return]


def query_text(wheel: str, name: str) -> str:
    """The text of the wheel's `queries/<name>` (FileNotFoundError when it ships none; ImportError
    when the wheel is not installed)."""
    folder = _folder(wheel)
    if folder is not None:
        with open(os.path.join(folder, "queries", name), encoding="utf-8") as file:
            return file.read()
    import importlib.resources   # a zipped or multi-folder wheel

    importlib.import_module(wheel)
    return (importlib.resources.files(wheel) / "queries" / name).read_text(encoding="utf-8")


def _folder(wheel: str) -> str | None:
    """The wheel's one plain folder, or None (a namespace or zipped package: import it instead)."""
    loaded = sys.modules.get(wheel)
    spec = loaded.__spec__ if loaded is not None else importlib.util.find_spec(wheel)
    if spec is None:
        raise ImportError(f"No module named {wheel!r}", name=wheel)
    folders = list(spec.submodule_search_locations or [])
    return folders[0] if len(folders) == 1 and os.path.isdir(folders[0]) else None


def _binding(wheel: str) -> Any | None:
    """`<wheel>._binding`, loaded by its file without the package's `__init__`; None when the
    wheel's folder holds no single such extension (the caller imports the wheel)."""
    name = f"{wheel}._binding"
    if name in sys.modules:
        return sys.modules[name]
    folder = _folder(wheel)
    if folder is None:
        return None
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    files = [entry for entry in os.listdir(folder)
             if entry.startswith("_binding.") and any(entry.endswith(suffix) for suffix in suffixes)]
    if len(files) != 1:
        return None
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, files[0]))
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
