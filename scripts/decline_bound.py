#!/usr/bin/env python3
"""How far declining rules can take precision on histories they were not built from: an oracle bound.

Stage: evaluation reporting (issue 39), not product code. Input: the verdict files of
`scripts/eval_merge_quality.py --corpus history --by-shape --save FILE` (one per repository, with
their FILE.shapes.json) and the miner's cache (scripts/history_corpus.py); the mirrors under
WTC_MIRROR when present, for the merge commit's own trees. Output: what a set of declining rules
(each resolution a rule matches turned back into git's conflict) does to the targets, chosen two
ways:

  * in-sample: the rules chosen on every repository and scored on the same ones. An upper bound
    for rules of that vocabulary, and an optimistic one: a rule picked for one repository's files
    is counted on them.
  * leave one repository out: for each repository, the rules chosen on the other 36 and applied
    to it. What such rules are worth on a history they did not see (issue 39's yardstick).

A rule is a cell of one vocabulary: the engine's shape labels (the rule that settled a git conflict
region and the region's line shape, `--by-shape`), those by language, or features read from the
inputs and the merge commit (a side that reformats lines, bumps versions, only deletes or only adds;
both sides adding or removing the same line; sizes; a test file or a manifest; how many files each
side of the merge commit changed), alone or in conjunctions of two or three. Cells are chosen
greedily while the share of what a cell would newly stop that is `diff` (`--objective diff`) or
not agreeing (`--objective agree`) is at least the precision asked.

    python scripts/decline_bound.py SAVES...                       # every vocabulary, precision 0.6-0.8
    python scripts/decline_bound.py SAVES... --objective agree     # for the per-language floors

Reading: where the in-sample line reaches a target and the leave-one-out line does not, the cells
that reach it are one repository's files: a rule found there is noise by issue 39's rule.
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import generalisation  # noqa: E402
import history_corpus  # noqa: E402

AGREE = generalisation.AGREE
RESOLVED = generalisation.RESOLVED
DATA = frozenset({"json", "toml", "yaml"})
MANIFESTS = ("package.json", "Cargo.toml", "pyproject.toml", "go.mod", "pom.xml", "build.gradle")
_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)(/|$)|_test\.|\.test\.|Test\.java|test_")

# One resolved file: (name, case, verdict, regions as --by-shape saved them, features).
File = tuple[str, history_corpus.Case, str, list[list[str]], frozenset[str]]


def shape_keys(case: history_corpus.Case, regions: list[list[str]]) -> set[str]:
    """The engine's labels of a file: `rule | line shape` for each region a rule settled."""
    return {f"{rule} | {region[-2]}" for region in regions for rule in region[:-2]} or {"(no region)"}


def _line_edits(base: str, side: str) -> tuple[list[str], list[str], list[tuple[str, int, int, int, int]]]:
    old, new = base.splitlines(), side.splitlines()
    ops = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    return old, new, ops


def features(case: history_corpus.Case, regions: list[list[str]], repositories: dict[str, object]) -> frozenset[str]:
    """What the inputs (and, when its mirror is here, the merge commit) show about one file."""
    from worktree_coord.merge.precision import guards

    base, left, right = (case.read(which).decode("utf-8", "replace") for which in ("base", "left", "right"))
    found = {f"language={case.language}", "data" if case.language in DATA else "code"}
    found |= {f"key={key}" for key in shape_keys(case, regions)}
    found |= {f"rule={rule}" for region in regions for rule in region[:-2]}
    found |= {f"shape={region[-2]}" for region in regions}
    found.add(f"regions={min(len(regions), 3)}")
    if _TEST_PATH.search(case.path):
        found.add("test file")
    if case.path.endswith(MANIFESTS):
        found.add("manifest")
    sizes = []
    for side in (left, right):
        old, new, ops = _line_edits(base, side)
        added = sum(j2 - j1 for _t, _i1, _i2, j1, j2 in ops)
        removed = sum(i2 - i1 for _t, i1, i2, _j1, _j2 in ops)
        sizes.append(added + removed)
        reformatted = sum(1 for tag, i1, i2, j1, j2 in ops if tag == "replace" and i2 - i1 == j2 - j1
                          and all("".join(a.split()) == "".join(b.split()) for a, b in zip(old[i1:i2], new[j1:j2])))
        found |= {"a side reformats lines"} if reformatted else set()
        found |= {"a side reformats 3+ lines"} if reformatted >= 3 else set()
        found |= {"a side only deletes"} if not added else set()
        found |= {"a side only adds"} if not removed else set()
        found |= {"a side bumps versions"} if guards._bumps(base, side) else set()
    found |= {"a side changes <= 2 lines"} if min(sizes) <= 2 else set()
    found |= {"a side changes 100+ lines"} if max(sizes) >= 100 else set()
    found |= {"both sides change 20+ lines"} if min(sizes) >= 20 else set()
    lines = [{line.strip() for line in text.splitlines() if len(line.strip()) > 3} for text in (base, left, right)]
    added_l, added_r = lines[1] - lines[0], lines[2] - lines[0]
    removed_l, removed_r = lines[0] - lines[1], lines[0] - lines[2]
    found |= {"both sides add a same line"} if added_l & added_r else set()
    found |= {"both sides remove a same line"} if removed_l & removed_r else set()
    found |= {"a line one side removes the other adds"} if (removed_l & added_r) or (removed_r & added_l) else set()
    repository = repositories.get(case.repo)
    if repository is not None:
        import pygit2

        merge = repository[case.merge]  # type: ignore[index]
        first, second = merge.parents
        base_tree = repository[repository.merge_base(first.id, second.id)].peel(pygit2.Tree)  # type: ignore[index, attr-defined]
        changed = min(len(base_tree.diff_to_tree(parent.peel(pygit2.Tree))) for parent in (first, second))
        found.add("merge: both sides change 50+ files" if changed >= 50 else
                  "merge: both sides change 10-49 files" if changed >= 10 else "merge: a side changes < 10 files")
    return frozenset(found)


def load(saves: list[Path], index: dict[str, history_corpus.Case], part: str) -> list[File]:
    """The resolved files of the saves (issue 39's languages, git-conflicted, the part asked)."""
    import pygit2

    verdicts: dict[str, str] = {}
    shapes: dict[str, list[list[str]]] = {}
    for path in saves:
        verdicts.update(json.loads(path.read_text()))
        shapes_file = Path(f"{path}.shapes.json")
        if shapes_file.exists():
            shapes.update(json.loads(shapes_file.read_text()))
    repositories: dict[str, object] = {}
    files = []
    for name, verdict in sorted(verdicts.items()):
        case = index.get(name)
        if case is None or case.git_clean or case.part != part or verdict not in RESOLVED \
                or case.language not in generalisation.SCOPE:
            continue
        if case.repo not in repositories:
            mirror = history_corpus.MIRROR / case.repo / "repo"
            repositories[case.repo] = pygit2.Repository(str(mirror)) if mirror.exists() else None
        regions = shapes.get(name, [])
        files.append((name, case, verdict, regions, features(case, regions, repositories)))
    return files


def _good(verdict: str, objective: str) -> bool:
    return verdict == "diff" if objective == "diff" else verdict not in AGREE


def choose(files: list[File], cells_of: Callable[[File], set[str]], precision: float, objective: str) -> set[str]:
    """Cells to decline, greedily: the most precise first, while precision holds on what is left."""
    chosen: set[str] = set()
    stopped: set[str] = set()
    while True:
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for file in files:
            if file[0] in stopped:
                continue
            for cell in cells_of(file) - chosen:
                counts[cell][0] += _good(file[2], objective)
                counts[cell][1] += 1
        best = max(((good / total, good, cell) for cell, (good, total) in counts.items()
                    if good and good / total >= precision), default=None)
        if best is None:
            return chosen
        chosen.add(best[2])
        stopped |= {file[0] for file in files if best[2] in cells_of(file)}


def declined_in_sample(files: list[File], cells_of: Callable[[File], set[str]], precision: float,
                       objective: str) -> set[str]:
    cells = choose(files, cells_of, precision, objective)
    return {file[0] for file in files if cells_of(file) & cells}


def declined_leave_one_out(files: list[File], cells_of: Callable[[File], set[str]], precision: float,
                           objective: str) -> set[str]:
    declined: set[str] = set()
    for held in sorted({file[1].repo for file in files}):
        cells = choose([file for file in files if file[1].repo != held], cells_of, precision, objective)
        declined |= {file[0] for file in files if file[1].repo == held and cells_of(file) & cells}
    return declined


def summary(files: list[File], declined: set[str], conflicted: int) -> str:
    """What the targets read once the declined files are conflicts again."""
    stopped = Counter(file[2] for file in files if file[0] in declined)
    kept = [file for file in files if file[0] not in declined]
    verdicts = Counter(file[2] for file in kept)
    resolved = len(kept)
    agree = sum(verdicts[v] for v in AGREE)
    per_language: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for file in kept:
        per_language[file[1].language][0] += file[2] in AGREE
        per_language[file[1].language][1] += 1
    low = [f"{language} {a / n:.1%}" for language, (a, n) in sorted(per_language.items())
           if a / n < generalisation.TARGET_AGREE_PER_LANGUAGE]
    return (f"stops {sum(stopped[v] for v in AGREE)} agree / {stopped['diff']} diff / {stopped['human']} human / "
            f"{stopped['broken']} broken -> resolved {resolved} ({resolved / conflicted:.1%}), agree {agree / resolved:.1%}, "
            f"diff {verdicts['diff']} ({verdicts['diff'] / resolved:.1%}); below 70%: {', '.join(low) or 'none'}")


VOCABULARIES: dict[str, Callable[[File], set[str]]] = {
    "shape labels": lambda file: shape_keys(file[1], file[3]),
    "shape labels x language": lambda file: {f"{key} @ {file[1].language}" for key in shape_keys(file[1], file[3])},
    "features": lambda file: set(file[4]),
    "feature pairs": lambda file: set(file[4]) | {f"{a} & {b}" for a, b in itertools.combinations(sorted(file[4]), 2)},
    "feature triples": lambda file: set(file[4]) | {" & ".join(c) for n in (2, 3)
                                                   for c in itertools.combinations(sorted(file[4]), n)},
    # Not a rule: one repository's own cells, the bound a rule fitted to each history would reach.
    "shape labels x language x repository": lambda file: {f"{key} @ {file[1].language} @ {file[1].repo}"
                                                          for key in shape_keys(file[1], file[3])},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("save", type=Path, nargs="+", help="verdict files of eval_merge_quality.py --by-shape --save")
    parser.add_argument("--part", choices=generalisation.PARTS, default="fresh")
    parser.add_argument("--objective", choices=("diff", "agree"), default="diff",
                        help="what a declined file should be: diff (issue 39's diff target) or any non-agreeing verdict")
    parser.add_argument("--precision", type=float, action="append",
                        help="the least share of good stops per cell (default 0.6, 0.7, 0.8)")
    args = parser.parse_args()
    saves = [path for path in args.save if not path.name.endswith(".shapes.json")]
    index = generalisation.case_index()
    files = load(saves, index, args.part)
    if not files:
        print("no resolved files in these saves for that part", file=sys.stderr)
        return 2
    conflicted = sum(1 for path in saves for name in json.loads(path.read_text())
                     if (case := index.get(name)) is not None and not case.git_clean and case.part == args.part
                     and case.language in generalisation.SCOPE)
    print(f"{args.part}: {len(files)} resolved files of {conflicted} git-conflicted, "
          f"{len({file[1].repo for file in files})} repositories; objective {args.objective}")
    print(f"{'as merged':<52}{summary(files, set(), conflicted)}")
    for name, cells_of in VOCABULARIES.items():
        for precision in args.precision or (0.6, 0.7, 0.8):
            label = f"{name}, precision {precision:.1f}"
            print(f"{label:<52}in-sample      {summary(files, declined_in_sample(files, cells_of, precision, args.objective), conflicted)}")
            if not name.endswith("repository"):
                print(f"{'':<52}leave-one-out  "
                      f"{summary(files, declined_leave_one_out(files, cells_of, precision, args.objective), conflicted)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
