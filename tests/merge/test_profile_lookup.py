"""`profile_for_path` looks a path's file name and each ending after a dot up in tables made once
from the shipped profiles' index, instead of trying every extension of every profile: it answers
what the scan answers (the first profile in the index's order), for every shipped extension and
file name, under several prefixes, in upper case, and for names no profile takes."""

from __future__ import annotations

import os

from worktree_coord.merge.languages import profiles


def _scan(path: str) -> str | None:
    """The lookup as it was written before the tables: the reference."""
    base = os.path.basename(path)
    index = profiles._shipped_index()
    for name, filenames, _, _ in index:
        if base in filenames:
            return name
    lowered = base.lower()
    for name, _, extensions, _ in index:
        for extension in extensions:
            if lowered.endswith("." + extension):
                return name
    return None


def test_the_tables_answer_as_the_scan() -> None:
    index = profiles._shipped_index()
    extensions = sorted({e for _, _, found, _ in index for e in found})
    filenames = sorted({f for _, found, _, _ in index for f in found})
    assert len(extensions) > 20 and filenames
    paths = [f"src/a{middle}{extension}" for extension in extensions + [e.upper() for e in extensions] + ["", "x"]
             for middle in (".", ".d.", "..", ".min.", ".test.")]
    paths += [f"deep/er/{name}" for name in filenames] + [name.upper() for name in filenames]
    paths += ["README", "a.", ".py", "dir.py/file", "Makefile", "a/.bashrc", "b.tar.gz", "x.py.orig"]
    for path in paths:
        found = profiles.profile_for_path(path)
        expected = _scan(path)
        assert (found.name if found else None) == (profiles._shipped_profile(expected).name if expected else None), path
