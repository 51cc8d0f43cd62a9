"""Name lists kept apart on purpose (so the boundary check and a plain finish never import the
consolidation package) must stay the same lists as consolidation's own."""

from __future__ import annotations

from worktree_coord.boundary.manifest import LOCKFILE_NAMES
from worktree_coord.consolidate.manifests import LOCKFILES, classify_path
from worktree_coord.coordinator.tasks import _MANIFEST_NAMES, _is_manifest


def test_the_boundary_knows_every_lockfile_but_go_sum():
    # go.sum belongs to the new module whose go.mod a task creates; every other lock stays reserved.
    assert LOCKFILE_NAMES == frozenset(LOCKFILES) - {"go.sum"}


def test_the_finish_manifest_test_agrees_with_consolidation():
    samples = sorted(_MANIFEST_NAMES) + ["packages/a/package.json", "requirements-dev.txt", "requirements.in",
                                        "svc/go.mod", "README.md", "package-lock.json", "src/main.py"]
    for path in samples:
        kind = classify_path(path)
        assert _is_manifest(path) == (kind is not None and kind.kind == "manifest"), path
