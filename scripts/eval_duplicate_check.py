#!/usr/bin/env python3
"""Measure the duplicate check (merge/checks/duplicates.py) on real merge commits' git-clean files.

Stage: evaluation, not product code. Input: the merge commits the history miner samples
(scripts/history_corpus.py `load_cases`: the mirrors under /work/.mirror, cached under
scratch/history/), part `dev` or `aside` (first argument). For every file both parents changed that
a profile with `[semantic.duplicates]` reads and git's line merge merges cleanly (what the
product's tree merge holds for it), the check runs on base, left, right and git's merge; each
finding is printed with whether the project's committed merge declares it once ("fixed by hand")
or still twice. The files git conflicts on are scored by scripts/eval_merge_quality.py.

Usage: python scripts/eval_duplicate_check.py dev|aside
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import pygit2  # noqa: E402

import history_corpus  # noqa: E402
from worktree_coord.merge import line_merge  # noqa: E402
from worktree_coord.merge.checks.duplicates import declarations, duplicate_rules, find_duplicates  # noqa: E402
from worktree_coord.merge.checks.semantic import FileVersions  # noqa: E402
from worktree_coord.merge.tree import changed_on_both_sides  # noqa: E402

MAX_BYTES = 400_000   # the miner's bound


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ("dev", "aside"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    part = sys.argv[1]
    counts: collections.Counter[object] = collections.Counter()
    started = time.time()
    for path in history_corpus.default_repositories():
        cases = [c for group in history_corpus.load_cases([path]) for c in group if c.part == part]
        repo = pygit2.Repository(str(path))
        name = history_corpus.repository_name(path)
        for sha in sorted({c.merge for c in cases}):
            commit = repo[sha]
            left, right = commit.parent_ids
            base = repo.merge_base(left, right)
            if base is None:
                continue
            counts["merges"] += 1
            tree = commit.peel(pygit2.Tree)
            for file_path, ids in changed_on_both_sides(repo, base, left, right).items():
                found_rules = duplicate_rules(file_path)
                if found_rules is None or any(oid is None for oid in ids):
                    continue
                data = [repo[oid].data for oid in ids]
                if any(len(d) > MAX_BYTES for d in data):
                    continue
                merged = line_merge(*data)
                if not merged.clean:
                    continue
                counts["git-clean files"] += 1
                findings = find_duplicates([FileVersions(file_path, data[0], data[1], data[2], merged.merged)])
                if not findings:
                    continue
                counts["files flagged"] += 1
                try:
                    committed: bytes | None = repo[tree[file_path].id].data
                except KeyError:
                    committed = None
                profile, rules = found_rules
                in_committed = declarations(profile, rules, committed) if committed else []
                in_merged = declarations(profile, rules, merged.merged) or []
                for finding in findings:
                    keys = [d.key for d in in_merged if d.line == finding.definition_line and d.name == finding.name]
                    once = bool(in_committed is not None and keys and sum(d.key == keys[0] for d in in_committed) <= 1)
                    counts["findings", "fixed by hand" if once else "committed twice"] += 1
                    print(f"{name}@{sha[:10]} {file_path}:{finding.definition_line},{finding.use_line} {finding.name} "
                          f"({finding.kind}) committed once: {once}", flush=True)
    print(dict(counts), f"{time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
