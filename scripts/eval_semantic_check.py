#!/usr/bin/env python3
"""Measure the post-merge semantic check on real merge commits (issue 13, section 3).

Stage: evaluation, not product code. Input: the merge commits the history miner samples
(scripts/history_corpus.py `load_cases`: public projects' histories under /work/.mirror, cached under
scratch/history/), the `dev` part by default (`--part aside` to confirm, `--part all`).

Two units, each reported per language:
- files: every mined file both sides changed that merges clean, by git's line merge ("git-clean")
  or only by the engine ("engine-clean"); the check within the file (`check_file`);
- merges: every sampled merge commit whose every file merges clean (git, or the engine for a file
  git conflicts on; a file one side left alone is the other side's): the check over all the files
  either side changed (`find_broken_names`: within files and across them, reading the files no side
  changed from the trees, as the tree merge does: a barrel, a crate's root, a workspace's package
  list); a finding counts for the language of the file holding the use.
A flag is "fixed by hand" when the project's committed merge result differs from the clean merge
at or near the flagged use (a changed line within 2 lines of it, or the file gone), or defines the
removed name again where it was defined. A flag not fixed is either a false alarm or broken code
that was committed (fixed later, or never): this script cannot tell which, so it prints each one
(`--show`) for a person to judge.

Usage: python scripts/eval_semantic_check.py [--part dev|aside|all] [--repo PATH]... [--show N]
"""

from __future__ import annotations

import argparse
import collections
import inspect
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import pygit2  # noqa: E402

import history_corpus  # noqa: E402
from worktree_coord.merge import FileVersions, check_file, find_broken_names, line_merge, merge_file  # noqa: E402
from worktree_coord.merge.result import SemanticFinding  # noqa: E402
from worktree_coord.merge.checks.semantic import semantic_profile  # noqa: E402
from worktree_coord.merge.checks.symbols import extract  # noqa: E402

NEAR = 2                 # lines around the use that count as "at or near" it
MAX_FILES = 300          # files per merge commit (a forward-port of thousands of files is skipped)
MAX_BYTES = history_corpus.MAX_BYTES


def clean_merge(path: str, base: bytes, left: bytes, right: bytes) -> tuple[bytes | None, str]:
    """(merged bytes, "git" | "engine") when the file merges clean, else (None, "conflict")."""
    line = line_merge(base, left, right)
    if line.clean:
        return line.merged, "git"
    engine = merge_file(base, left, right, path, semantic="off")
    return (engine.merged, "engine") if engine.clean else (None, "conflict")


def fixed_by_hand(finding: SemanticFinding, merged: dict[str, bytes | None],
                  committed: dict[str, bytes | None], base_defs: dict[str, bytes | None]) -> str:
    """Why the committed result shows the flag was acted on ("" when it does not)."""
    after = committed.get(finding.use_path)
    if after is None:
        return "use file deleted"
    before = merged.get(finding.use_path) or b""
    patch = pygit2.Patch.create_from(before, after, context_lines=0)
    for hunk in patch.hunks:
        first, last = hunk.old_start, hunk.old_start + max(hunk.old_lines, 1) - 1
        if first - NEAR <= finding.use_line <= last + NEAR:
            return "use changed"
    definition = committed.get(finding.definition_path)
    profile = semantic_profile(finding.definition_path)
    if definition is not None and profile is not None:
        container, _, name = finding.name.rpartition(".")
        symbols = extract(profile, definition)
        if symbols.binds(tuple(container.split(".")) if container else (), name):
            return "definition restored"
    return ""


def blob(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> bytes | None | bool:
    """The file's bytes, None when absent, False when unusable (too big, binary, not a file)."""
    try:
        entry = tree[path]
    except KeyError:
        return None
    if entry.filemode not in (0o100644, 0o100755):
        return False
    data = repo[entry.id].data
    return False if len(data) > MAX_BYTES or b"\x00" in data[:8000] else data


class TreeReader:
    """The base and sides' trees of one merge, read as the tree merge's check reads them
    (merge/tree.py): a file no side changed (a barrel, a package's `__init__.py`, a crate's root, a
    workspace's package.json) and a folder's subfolders. Written here rather than imported from
    merge/tree.py (whose reader is private to the tree merge, and absent from older checkouts): the
    script also runs against a baseline checkout."""

    def __init__(self, repo: pygit2.Repository, trees: dict[str, pygit2.Tree]):
        self._repo = repo
        self._trees = trees

    def file(self, which: str, path: str) -> bytes | None:
        try:
            found = self._repo[self._trees[which][path].id]
        except KeyError:
            return None
        return found.data if isinstance(found, pygit2.Blob) else None

    def folders(self, which: str, path: str) -> list[str] | None:
        try:
            tree = self._repo[self._trees[which][path].id] if path else self._trees[which]
        except KeyError:
            return None
        return [entry.name for entry in tree if entry.type_str == "tree"] if isinstance(tree, pygit2.Tree) else None


def check_whole(files: list[FileVersions], reader: TreeReader) -> tuple[SemanticFinding, ...]:
    """`find_broken_names` over a merge's files with its trees to read; a checkout whose check
    takes no folder reader (an older one, measured as a baseline) gets the files alone."""
    accepted = inspect.signature(find_broken_names).parameters
    extra = {name: reader_of for name, reader_of in (("tree_file", reader.file), ("tree_folders", reader.folders))
             if name in accepted}
    return find_broken_names(files, **extra)


def merge_files(repo: pygit2.Repository, sha: str) -> tuple[list[FileVersions], dict[str, bytes | None], str, TreeReader] | None:
    """The semantic-checkable files of one merge commit with their clean merge, the committed
    versions, how it merged ("git" when every file merged line by line, else "engine") and a
    reader of its trees; None when some file does not merge clean (or the merge is too big)."""
    commit = repo[sha]
    first, second = commit.parent_ids
    base_id = repo.merge_base(first, second)
    if base_id is None:
        return None
    trees = [repo[x].peel(pygit2.Tree) for x in (base_id, first, second, commit.id)]
    paths: set[str] = set()
    for side in trees[1:3]:
        for delta in trees[0].diff_to_tree(side).deltas:
            for item in (delta.old_file, delta.new_file):
                if item.path and semantic_profile(item.path) is not None:
                    paths.add(item.path)
    if not paths or len(paths) > MAX_FILES:
        return None
    files, committed, how = [], {}, "git"
    for path in sorted(paths):
        base, left, right, result = (blob(repo, tree, path) for tree in trees)
        if False in (base, left, right):
            return None
        if left == right or right == base:
            merged = left
        elif left == base:
            merged = right
        elif left is None or right is None:
            return None              # deleted on one side, changed on the other
        else:
            merged, way = clean_merge(path, base or b"", left, right)
            if merged is None:
                return None
            how = "engine" if way == "engine" else how
        files.append(FileVersions(path, base, left, right, merged))  # type: ignore[arg-type]
        committed[path] = result if result is not False else None  # type: ignore[assignment]
    return files, committed, how, TreeReader(repo, dict(zip(("base", "left", "right"), trees)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("dev", "aside", "all"), default="dev")
    parser.add_argument("--repo", action="append", type=Path, help="a repository (default: the miner's corpus)")
    parser.add_argument("--show", type=int, default=20, help="print up to N flags with their verdict")
    args = parser.parse_args()
    paths = args.repo or history_corpus.default_repositories()
    files_checked: collections.Counter[tuple[str, str]] = collections.Counter()   # (language, git|engine)
    file_flags: collections.Counter[tuple[str, str]] = collections.Counter()
    file_fixed: collections.Counter[tuple[str, str]] = collections.Counter()
    merges_checked: collections.Counter[str] = collections.Counter()
    merge_flags: collections.Counter[str] = collections.Counter()
    merge_fixed: collections.Counter[str] = collections.Counter()
    cross_file: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    seconds: list[float] = []
    for cases in history_corpus.load_cases(paths, progress=lambda text: print(text, file=sys.stderr)):
        cases = tuple(c for c in cases if args.part == "all" or c.part == args.part)
        if not cases:
            continue
        repo = pygit2.Repository(str(history_corpus.MIRROR / cases[0].repo / "repo"))
        for case in cases:                                   # unit 1: files
            if semantic_profile(case.path) is None:
                continue
            base, left, right, result = (case.read(w) for w in ("base", "left", "right", "result"))
            merged, how = clean_merge(case.path, base, left, right)
            if merged is None:
                continue
            files_checked[(case.language, how)] += 1
            started = time.perf_counter()
            found = check_file(base, left, right, merged, case.path)
            seconds.append(time.perf_counter() - started)
            if not found:
                continue
            file_flags[(case.language, how)] += 1
            verdicts = [fixed_by_hand(f, {case.path: merged}, {case.path: result}, {}) for f in found]
            if any(verdicts):
                file_fixed[(case.language, how)] += 1
            for finding, verdict in zip(found, verdicts):
                if len(shown) < args.show:
                    shown.append(f"[file {how}] {case.name}: {finding.message} -> {verdict or 'NOT fixed in the merge'}")
        for sha in sorted({case.merge for case in cases}):   # unit 2: whole merges
            got = merge_files(repo, sha)
            if got is None:
                continue
            files, committed, how, reader = got
            languages = {semantic_profile(f.path).name for f in files}  # type: ignore[union-attr]
            for language in languages:
                merges_checked[language] += 1
            found = check_whole(files, reader)
            by_language: dict[str, list[str]] = collections.defaultdict(list)
            merged = {f.path: f.merged for f in files}
            for finding in found:
                language = semantic_profile(finding.use_path).name  # type: ignore[union-attr]
                verdict = fixed_by_hand(finding, merged, committed, {})
                by_language[language].append(verdict)
                if finding.use_path != finding.definition_path:
                    cross_file[language] += 1
                if len(shown) < args.show:
                    shown.append(f"[merge {how}] {cases[0].repo}@{sha[:10]}: {finding.message} -> "
                                 f"{verdict or 'NOT fixed in the merge'}")
            for language, verdicts in by_language.items():
                merge_flags[language] += 1
                merge_fixed[language] += any(verdicts)
    languages = sorted({lang for lang, _ in files_checked} | set(merges_checked))
    print(f"part: {args.part}")
    print("files both sides changed that merge clean (check within the file):")
    print(f"  {'language':<11} {'git-clean':>9} {'flagged':>7} {'fixed':>5}   {'engine-clean':>12} {'flagged':>7} {'fixed':>5}")
    for language in languages + ["all"]:
        def total(counter: collections.Counter, how: str) -> int:  # type: ignore[type-arg]
            return sum(v for (lang, h), v in counter.items() if h == how and language in (lang, "all"))
        print(f"  {language:<11} {total(files_checked, 'git'):>9} {total(file_flags, 'git'):>7} "
              f"{total(file_fixed, 'git'):>5}   {total(files_checked, 'engine'):>12} {total(file_flags, 'engine'):>7} "
              f"{total(file_fixed, 'engine'):>5}")
    print("merge commits that merge clean (check over every file either side changed):")
    print(f"  {'language':<11} {'merges':>7} {'flagged':>7} {'fixed':>5} {'cross-file flags':>16}")
    for language in languages + ["all"]:
        pick = (lambda c: sum(c.values())) if language == "all" else (lambda c: c[language])  # noqa: E731
        print(f"  {language:<11} {pick(merges_checked) if language != 'all' else '-':>7} {pick(merge_flags):>7} "
              f"{pick(merge_fixed):>5} {pick(cross_file):>16}")
    if seconds:
        seconds.sort()
        print(f"check_file time per file: median {seconds[len(seconds) // 2] * 1000:.2f} ms, "
              f"p95 {seconds[int(len(seconds) * 0.95)] * 1000:.2f} ms, max {seconds[-1] * 1000:.1f} ms "
              f"({len(seconds)} files)")
    for line in shown:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
