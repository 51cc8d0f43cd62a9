"""lean_dataclasses.py: dataclasses loaded without inspect behaves as dataclasses loaded with it.

Each case runs in a fresh interpreter (what a `wtc` call is), since the stand-in is put in place
only by the first import of dataclasses in a process."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import json, sys
import worktree_coord.model   # the first importer of dataclasses in a wtc call
import dataclasses
out = {"inspect_loaded_by_dataclasses": "inspect" in sys.modules, "ast_loaded": "ast" in sys.modules}

@dataclasses.dataclass
class NoDoc:                   # another library's dataclass without a docstring: dataclass writes one
    a: int
    b: str = "x"

out["doc"] = NoDoc.__doc__
out["inspect_loaded_on_use"] = "inspect" in sys.modules
import inspect
out["real_inspect"] = type(inspect) is type(sys) and dataclasses.inspect is not inspect   # not the stand-in
out["signature"] = str(inspect.signature(NoDoc))
out["fields"] = [f.name for f in dataclasses.fields(NoDoc)]
out["replace"] = repr(dataclasses.replace(NoDoc(1), b="y"))
print(json.dumps(out))
"""

PLAIN = r"""
import dataclasses, json

@dataclasses.dataclass
class NoDoc:
    a: int
    b: str = "x"

print(json.dumps({"doc": NoDoc.__doc__}))
"""


def run(code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def test_dataclasses_loads_without_inspect_and_writes_the_same_docstring_through_it() -> None:
    lean, plain = run(PROBE), run(PLAIN)
    assert lean["inspect_loaded_by_dataclasses"] is False and lean["ast_loaded"] is False
    assert lean["doc"] == plain["doc"] == "NoDoc(a: int, b: str = 'x')"    # read through the stand-in...
    assert lean["inspect_loaded_on_use"] is True                            # ...which loaded the real inspect
    assert lean["real_inspect"] is True                                     # and sys.modules holds the real one
    assert lean["signature"] == "(a: int, b: str = 'x') -> None"
    assert lean["fields"] == ["a", "b"] and lean["replace"] == "NoDoc(a=1, b='y')"


def test_nothing_is_done_when_inspect_is_loaded_first() -> None:
    code = ("import inspect, sys\nimport worktree_coord.model, dataclasses\n"
            "print(__import__('json').dumps({'same': dataclasses.inspect is inspect}))")
    assert run(code) == {"same": True}
