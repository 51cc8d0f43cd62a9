"""A grammar wheel's language function and query files read without running the wheel's
`__init__.py` (merge/languages/grammar_wheels.py) are the wheel's own: for every shipped profile,
in a fresh interpreter that has not imported the wheel, the function is the one the imported
package exposes (the same binding, registered as `<wheel>._binding`), its language equals the
package's, and each tags query equals what importlib.resources reads."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"

CHECK = """
import importlib, importlib.resources, json, sys
import tree_sitter
from worktree_coord.merge.languages.grammar_wheels import language_function, query_text

wanted = json.loads(sys.argv[1])
out = []
for wheel, function, tags in wanted:
    fresh = wheel not in sys.modules
    found = language_function(wheel, function)
    alone = wheel not in sys.modules          # the package's __init__ did not run
    ours = tree_sitter.Language(found())
    package = importlib.import_module(wheel)
    same = getattr(package, function) is found and ours == tree_sitter.Language(getattr(package, function)())
    text_same = all(query_text(w, "tags.scm") == (importlib.resources.files(w) / "queries" / "tags.scm").read_text(
        encoding="utf-8") for w in tags)
    out.append([wheel, function, fresh, alone, same, text_same])
print(json.dumps(out))
"""


def test_every_shipped_grammar_loads_as_its_wheel_exposes_it_without_the_wheel_s_init():
    wanted = []
    for toml in sorted(GRAMMARS.glob("*.toml")):
        profile = tomllib.loads(toml.read_text(encoding="utf-8"))
        if "grammar" in profile:
            tags = profile.get("semantic", {}).get("tags", [])
            wanted.append([profile["grammar"], profile.get("grammar_function", "language"), tags])
    assert len(wanted) >= 20
    done = subprocess.run([sys.executable, "-c", CHECK, json.dumps(wanted)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    for wheel, function, fresh, alone, same, text_same in rows:
        assert same and text_same, (wheel, function)
        assert alone or not fresh, (wheel, function)   # loaded before its package: the package did not run
    assert sum(1 for row in rows if row[2] and row[3]) >= 20
