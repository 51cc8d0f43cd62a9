"""The reserved-file name lists have one home, `consolidate/names.py` (the lockfiles' names in
`consolidate/lockfile_names.py`, which names.py reads), and it stays import-light:
the boundary check and a plain `wtc task finish` read it on every call."""

from __future__ import annotations

import json
import subprocess
import sys

from worktree_coord.boundary.manifest import LOCKFILE_NAMES
from worktree_coord.consolidate.manifests import LOCKFILES, classify_path
from worktree_coord.consolidate.names import MANIFESTS, is_manifest


def test_the_boundary_knows_every_lockfile_but_go_sum():
    # go.sum belongs to the new module whose go.mod a task creates; every other lock stays reserved.
    assert LOCKFILE_NAMES == frozenset(LOCKFILES) - {"go.sum"}


def test_the_finish_manifest_test_agrees_with_consolidation():
    samples = sorted(MANIFESTS) + ["packages/a/package.json", "requirements-dev.txt", "requirements.in",
                                   "svc/go.mod", "README.md", "package-lock.json", "src/main.py"]
    for path in samples:
        kind = classify_path(path)
        assert is_manifest(path) == (kind is not None and kind.kind == "manifest"), path
    assert is_manifest("requirements-dev.txt") and is_manifest("svc/go.mod") and not is_manifest("package-lock.json")


def test_the_names_load_without_the_rest_of_consolidation():
    code = ("import json, sys; import worktree_coord.boundary, worktree_coord.consolidate.names; "
            "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    ours = [name for name in loaded if name.startswith("worktree_coord.consolidate")]
    assert ours == ["worktree_coord.consolidate", "worktree_coord.consolidate.intent",
                    "worktree_coord.consolidate.lockfile_names", "worktree_coord.consolidate.names"]
    assert not {"networkx", "packaging", "tomlkit", "yaml"} & set(loaded)
