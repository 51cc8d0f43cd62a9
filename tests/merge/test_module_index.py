"""A tip's module index (merge/checks/module_index.py) derived by the paths a merge added and removed,
and laid under a merge's own files, reads as the index a pass over the files builds: the same keys,
each with the same files in the same (path) order, for paths named for their folder (`__init__.py`,
`index.ts`), files of one module in two forms, and paths no profile reads."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.merge.checks.module_index import ModuleTables
from worktree_coord.merge.checks.semantic import module_fact, semantic_profile

FOLDERS = ("a", "a/b", "c", "c/a", "")
NAMES = ("util.py", "__init__.py", "a.py", "b.py", "index.ts", "util.ts", "b/__init__.py", "notes.txt", "util/__init__.py")
PATHS = sorted({f"{folder}/{name}".lstrip("/") for folder in FOLDERS for name in NAMES})
RULES = {semantic_profile(path).semantic for path in PATHS if semantic_profile(path) is not None}


def _as_dicts(by_path, by_last, keys) -> tuple[dict, dict]:
    return ({key: list(by_path.get(key, ())) for key in keys if key in by_path},
            {key: list(by_last.get(key, ())) for key in keys if key in by_last})


def _keys(tables: ModuleTables) -> set[str]:
    return set(tables.by_path) | set(tables.by_last)


@settings(max_examples=200, deadline=None)
@given(tip=st.sets(st.sampled_from(PATHS)), removed=st.sets(st.sampled_from(PATHS)),
       added=st.sets(st.sampled_from(PATHS)), loose=st.sets(st.sampled_from(PATHS)),
       present=st.sets(st.sampled_from(PATHS)))
def test_derived_and_laid_over_tables_read_as_built_ones(tip, removed, added, loose, present) -> None:
    for rules in RULES:
        facts = functools.partial(module_fact, rules=rules)
        before = ModuleTables.build(sorted(tip), facts)
        after = (tip - removed) | added
        derived = before.derived(sorted((removed - added) & tip), sorted(added - tip), facts)
        built = ModuleTables.build(sorted(after), facts)
        assert (derived.by_path, derived.by_last) == (built.by_path, built.by_last)
        files = sorted((after - loose) | (loose & present))
        whole = ModuleTables.build(files, facts)
        by_path, by_last = derived.overlay(loose, present.__contains__, facts)
        keys = _keys(whole) | _keys(derived) | {"", "a", "util", "a/util", "zzz"}
        assert _as_dicts(by_path, by_last, keys) == _as_dicts(whole.by_path, whole.by_last, keys)
        for key in keys:
            assert (key in by_path) == (key in whole.by_path) and (key in by_last) == (key in whole.by_last)
        assert (before.by_path, before.by_last) == (ModuleTables.build(sorted(tip), facts).by_path,
                                                    ModuleTables.build(sorted(tip), facts).by_last)   # not changed
