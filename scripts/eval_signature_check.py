#!/usr/bin/env python3
"""Measure the signature check (merge/checks/signatures.py) on real merge commits.

Stage: evaluation, not product code. Input: the merge commits the history miner samples
(scripts/history_corpus.py `load_cases`, cached under scratch/history/), part `dev` (default) or
`aside`. Two units, as scripts/eval_semantic_check.py counts them:
- files: every mined file both sides changed that git's line merge merges clean; the check within
  the file;
- merges: every sampled merge commit whose every file merges clean (git, or the engine where git
  conflicts); the check over all the files either side changed (a call in another file).
Each flag is printed with whether the project's committed merge acted on it: the call changed (a
changed line within 2 lines of it, or its file gone: "use changed"), or the definition takes the
call's count of arguments again ("definition reshaped"). A flag not acted on is a false alarm or
broken code that was committed: read each one.

Usage: python scripts/eval_signature_check.py [--part dev|aside] [--repo PATH]... [--language NAME]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import pygit2  # noqa: E402

import history_corpus  # noqa: E402
from eval_semantic_check import NEAR, merge_files  # noqa: E402
from worktree_coord.merge import FileVersions, find_broken_names, line_merge  # noqa: E402
from worktree_coord.merge.result import SemanticFinding  # noqa: E402
from worktree_coord.merge.checks.semantic import semantic_profile  # noqa: E402
from worktree_coord.merge.checks.signatures import _only, _shape  # noqa: E402
from worktree_coord.merge.checks.symbols import extract  # noqa: E402


def acted_on(finding: SemanticFinding, merged: dict[str, bytes | None], committed: dict[str, bytes | None]) -> str:
    """How the committed merge acted on the flag ("" when it did not)."""
    after = committed.get(finding.use_path)
    if after is None:
        return "use file deleted"
    patch = pygit2.Patch.create_from(merged.get(finding.use_path) or b"", after, context_lines=0)
    for hunk in patch.hunks:
        first, last = hunk.old_start, hunk.old_start + max(hunk.old_lines, 1) - 1
        if first - NEAR <= finding.use_line <= last + NEAR:
            return "use changed"
    source = committed.get(finding.definition_path)
    profile = semantic_profile(finding.definition_path)
    if source is None or profile is None:
        return "definition file deleted"
    tree = profile.parse(source)
    container, _, name = finding.name.rpartition(".")
    definition = _only(extract(profile, source, tree, uses=False), (tuple(container.split(".")) if container else (), name))
    if definition is None:
        return "definition gone or overloaded"
    shape = _shape(profile.semantic.signatures, {k for k, _ in profile.semantic.member_of}, tree, source, definition)
    if shape is None or shape.arity == finding.arguments:
        return "definition reshaped"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("dev", "aside", "all"), default="dev")
    parser.add_argument("--repo", action="append", type=Path, help="a repository (default: the miner's corpus)")
    parser.add_argument("--language", help="only files of this profile")
    args = parser.parse_args()
    paths = args.repo or history_corpus.default_repositories()
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    lines: list[str] = []
    started = time.time()
    for cases in history_corpus.load_cases(paths, progress=lambda text: print(text, file=sys.stderr)):
        cases = tuple(c for c in cases if (args.part == "all" or c.part == args.part)
                      and (args.language is None or c.language == args.language))
        if not cases:
            continue
        repo = pygit2.Repository(str(history_corpus.MIRROR / cases[0].repo / "repo"))
        for case in cases:                                   # unit 1: git-clean files
            profile = semantic_profile(case.path)
            if profile is None or not profile.semantic.signatures.enabled:
                continue
            base, left, right, result = (case.read(w) for w in ("base", "left", "right", "result"))
            merged = line_merge(base, left, right)
            if not merged.clean:
                continue
            counts[(case.language, "git-clean files")] += 1
            found = [f for f in find_broken_names([FileVersions(case.path, base, left, right, merged.merged)],
                                                  complete=False) if f.problem == "signature"]
            for finding in found:
                verdict = acted_on(finding, {case.path: merged.merged}, {case.path: result})
                counts[(case.language, "file flags")] += 1
                counts[(case.language, "file flags acted on")] += bool(verdict)
                lines.append(f"[file] {case.name}: {finding.message} -> {verdict or 'NOT acted on'}")
        for sha in sorted({case.merge for case in cases}):   # unit 2: whole merges
            got = merge_files(repo, sha)
            if got is None:
                continue
            files, committed, how = got
            for language in {semantic_profile(f.path).name for f in files}:  # type: ignore[union-attr]
                counts[(language, "clean merges")] += 1
            merged_bytes = {f.path: f.merged for f in files}
            for finding in find_broken_names(files):
                if finding.problem != "signature":
                    continue
                language = semantic_profile(finding.use_path).name  # type: ignore[union-attr]
                verdict = acted_on(finding, merged_bytes, committed)
                counts[(language, "merge flags")] += 1
                counts[(language, "merge flags acted on")] += bool(verdict)
                counts[(language, "cross-file")] += finding.use_path != finding.definition_path
                lines.append(f"[merge {how}] {cases[0].repo}@{sha[:10]}: {finding.message} -> {verdict or 'NOT acted on'}")
    print(f"part: {args.part}  ({time.time() - started:.0f} s)")
    columns = ("git-clean files", "file flags", "file flags acted on", "clean merges", "merge flags",
               "merge flags acted on", "cross-file")
    print(f"  {'language':<11}" + "".join(f" {c:>20}" for c in columns))
    languages = sorted({language for language, _ in counts})
    for language in languages + ["all"]:
        row = [sum(v for (lang, c), v in counts.items() if c == column and language in (lang, "all")) for column in columns]
        print(f"  {language:<11}" + "".join(f" {v:>20}" for v in row))
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
