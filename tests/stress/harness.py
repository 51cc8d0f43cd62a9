"""The stress scripts (scripts/stress_swarm.py, cpu_accounting.py) loaded as modules for the tests,
each once per process: a second load under the same name would replace the first in sys.modules,
and a test still holding the first one's functions could no longer pickle them for its workers
(`Can't pickle <function drive_task>: it's not the same object as stress_swarm.drive_task`)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    path = SCRIPTS / f"{name}.py"
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module
