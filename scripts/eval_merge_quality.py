#!/usr/bin/env python3
"""Measure merge quality by history replay: reach and precision of `git merge-file` vs merge_file.

Corpus: two real releases of real packages, fetched with the registries' ordinary clients (pip
sdists from PyPI, `npm pack` tarballs from npm, crates through `cargo fetch`) into the ignored
`scratch/corpus/` folder; nothing third-party is committed. For every source file present in both
releases, the line hunks of old -> new are split between two synthetic sides:
  * "split": the hunks are divided at random into two disjoint non-empty sets (left gets one set,
    right the other);
  * "insert": one pure insertion hunk of two or more lines is cut at a line boundary (left adds the
    first part, right the second, at the same place, which is where line merges conflict), the
    other hunks are divided at random.
Insertion cuts are taken only between siblings of a container the language profiles name, so the
scenario count moves a little when the profiles gain container rules (1642 -> 1645 when export
lists and `if` blocks became containers). The newer release is the expected result. For each scenario both engines run and we count, by
language: files git leaves conflicted; of those, how many we resolve cleanly (reach) and how many
of those equal the newer release (precision); on files git merges cleanly, how often each engine
is silently wrong (clean but different from the newer release) and how often we add a conflict.

Columns: scen (scenarios), git-confl (git's line merge conflicted), resolved (of those, clean by us),
reach (resolved / git-confl), right (resolved and byte-identical to the newer release), precision
(right / resolved), prec-ws (the same, ignoring blank lines), git-clean (git's merge was clean),
git-wrong / ours-wrong (clean but not the newer release, on those files), ours-confl (we left a
conflict where git was clean).

With `--corpus sdist` the same replay runs over a second, held-out corpus: Python packages whose
sdists carry Rust (and some Java) source (pydantic-core, cryptography, polars...), fetched straight
from PyPI's simple index.

With `--corpus history --repo PATH [--repo PATH...]` it scores real merge commits instead (files
both parents changed, mined by scripts/history_corpus.py into scratch/history/): the committed
file is the expected result. Of the files git's line merge conflicts (`confl`), `resolved` are
those we merge cleanly, each classed as `exact` (byte for byte the committed file), `order` (the
same lines in another order), `broken` (the committed file does not parse while the inputs do, or
holds a declaration twice in one scope where no input does: no reference), `human` (the committed
file holds a line none of base, left, right had: the developer wrote something, so no merge tool could match it) or `diff` (none of those: the committed file
holds only the sides' lines and ours differs, a likely wrong merge; `1side` counts the diffs where
the committed file is one side's version whole, the other side's changes dropped, which no merge
of the three versions can know). `agree` is (exact + order) / resolved. `union` is how many of
git's conflicted files keeping both sides of every conflict block resolves (order set aside): the
reach a plain union would have. On files git merges cleanly: `added` (we conflict in the merge
itself), `sem` (the merge is git's but the post-merge semantic check flags a name it broke: a
finding, not a merge error), `fixed` (of those, the developers changed git's clean result in the
merge commit; the others were committed as git merged them, broken or not), `wrong` (git was right
and our clean result differs) and `git-wrong` (git's own result is not what was committed).
Each merge commit is also scored as a whole (unless `--file-only`): its tree merge re-assembled as
the product makes it (scripts/whole_merge.py: a file one side changed is that side's, a file both
changed git's clean merge or ours) and checked as the merge queue checks it (the semantic check over
every file either side changed, across files); a resolved file a finding names (its use or the
removed definition) is `rep` (reported: a conflict of kind semantic, not resolved), broken down by
the verdict it would have had (`rep e/o/b/h/d`); a git-clean file a finding names is `sem`, and
`xsem` counts those only the whole-merge check found. `--part dev` (the default) scores the development part, `--part aside` the part kept
aside (DEVELOPERS.md), `--part fresh` the generalisation corpus (issue 39: repositories no rule was
built from; `scripts/generalisation.py` reads a `--save` of it by repository), `--part unseen` the
second such part (five repositories added after the rules were measured). `--why-unresolved` adds a census of the conflicted files we leave
conflicted: the step that declined (a fallback's reason, a guard, or the structured merge's
conflict steps: a member both sides edited, a region of an ordered container, a delete/modify...),
per language, with how many of them keeping both sides' lines would resolve (union).

Usage: python scripts/eval_merge_quality.py [--corpus main|sdist] [--fetch] [--seed N] [--max-files N]
       [--show-wrong N]
       python scripts/eval_merge_quality.py --corpus history [--repo PATH]... [--part dev|aside|all]
       [--language L] [--files profiles|appendable] [--file-only] [--show CLASS:N] [--dump DIR] [--save FILE] [--compare FILE [--only VERDICTS]]
       [--without GUARD]... [--by-shape] [--why-unresolved]
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile

import tree_sitter
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from worktree_coord.merge import line_merge, merge_file  # noqa: E402
from worktree_coord.merge.precision import provenance  # noqa: E402
from worktree_coord.merge.languages import validate  # noqa: E402
from worktree_coord.merge.checks.duplicates import find_duplicates  # noqa: E402
from worktree_coord.merge.languages.profiles import profile_for_path  # noqa: E402
from worktree_coord.merge.checks.versions import FileVersions  # noqa: E402

SCRATCH = ROOT / "scratch" / "corpus"

PYPI = [
    ("requests", "2.31.0", "2.32.3"), ("flask", "2.3.3", "3.0.3"), ("click", "8.1.3", "8.1.7"),
    ("attrs", "23.1.0", "23.2.0"), ("httpx", "0.25.0", "0.27.0"), ("rich", "13.5.0", "13.7.1"),
    ("jinja2", "3.1.2", "3.1.4"), ("werkzeug", "2.3.7", "3.0.3"), ("packaging", "23.1", "24.0"),
    ("pluggy", "1.2.0", "1.5.0"), ("typer", "0.9.0", "0.12.3"), ("tomlkit", "0.12.1", "0.12.5"),
    ("fastapi", "0.100.0", "0.110.0"), ("starlette", "0.27.0", "0.37.2"), ("anyio", "3.7.1", "4.3.0"),
    ("pytest", "7.4.0", "8.1.1"), ("black", "23.7.0", "24.3.0"), ("urllib3", "2.0.4", "2.2.1"),
    ("marshmallow", "3.20.1", "3.21.1"), ("httpcore", "0.17.3", "1.0.5"),
]
NPM = [
    ("zod", "3.22.0", "3.23.8"), ("express", "4.18.2", "4.19.2"), ("commander", "11.0.0", "12.0.0"),
    ("axios", "1.5.0", "1.7.2"), ("@tanstack/query-core", "5.0.0", "5.28.0"), ("yargs", "17.6.0", "17.7.2"),
    ("chalk", "5.2.0", "5.3.0"), ("prettier-plugin-packagejson", "2.4.0", "2.5.0"),
    ("eslint", "8.50.0", "8.57.0"), ("kysely", "0.26.0", "0.27.3"), ("valibot", "0.20.0", "0.30.0"),
    ("hono", "3.12.0", "4.2.0"),
]
CRATES = [("anyhow", "1.0.75", "1.0.86"), ("semver", "1.0.18", "1.0.23"), ("itoa", "1.0.9", "1.0.11")]
# A second, held-out corpus (`--corpus sdist`): Python packages with Rust (and some Java) inside,
# whose sdists carry that source. crates.io is not reachable from here; PyPI is. Their sdists cannot
# go through `pip download` (it builds metadata, which needs cargo and crates.io), so the archive is
# taken straight from PyPI's simple index.
SDIST = [
    ("pydantic-core", "2.14.6", "2.16.3"), ("orjson", "3.9.10", "3.10.3"), ("rpds-py", "0.12.0", "0.18.0"),
    ("jiter", "0.1.0", "0.4.0"), ("watchfiles", "0.20.0", "0.21.0"), ("tiktoken", "0.5.2", "0.7.0"),
    ("bcrypt", "4.0.1", "4.1.3"), ("cryptography", "41.0.7", "42.0.5"), ("tokenizers", "0.15.0", "0.19.1"),
    ("jpype1", "1.4.1", "1.5.0"), ("safetensors", "0.4.0", "0.4.3"), ("polars", "0.20.0", "0.20.10"),
]


def _run(command: list[str], cwd: Path) -> bool:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        print(f"  ! {' '.join(command)}: {done.stderr.strip()[:200]}", file=sys.stderr)
    return done.returncode == 0


def _extract(archive: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(into)
    else:
        with tarfile.open(archive) as handle:
            handle.extractall(into, filter="data")


def fetch() -> None:
    """Download both releases of every corpus package (registries only, ordinary clients)."""
    downloads = SCRATCH / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    for name, *versions in PYPI:
        for version in versions:
            target = SCRATCH / "pypi" / f"{name}-{version}"
            if target.exists():
                continue
            before = set(downloads.iterdir())
            if _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                     f"{name}=={version}", "-d", str(downloads)], downloads):
                new = [p for p in set(downloads.iterdir()) - before if p.is_file()]
                for archive in new:
                    _extract(archive, target)
    for name, *versions in NPM:
        for version in versions:
            target = SCRATCH / "npm" / f"{name.replace('/', '__')}-{version}"
            if target.exists():
                continue
            before = set(downloads.iterdir())
            if _run(["npm", "pack", "-q", f"{name}@{version}"], downloads):
                for archive in set(downloads.iterdir()) - before:
                    _extract(archive, target)
    for name, *versions in CRATES:
        for version in versions:
            target = SCRATCH / "crates" / f"{name}-{version}"
            if target.exists():
                continue
            project = SCRATCH / "cargo-fetch" / f"{name}-{version}"
            (project / "src").mkdir(parents=True, exist_ok=True)
            (project / "src" / "lib.rs").write_text("")
            (project / "Cargo.toml").write_text(
                f'[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n{name} = "={version}"\n')
            if _run(["cargo", "fetch", "-q"], project):
                home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
                for found in (home / "registry" / "src").glob(f"*/{name}-{version}"):
                    shutil.copytree(found, target)
                    break


def fetch_sdists() -> None:
    """Both releases of every SDIST package, as the archive PyPI's simple index links to."""
    import io
    import re
    import urllib.request

    for name, *versions in SDIST:
        index = urllib.request.urlopen(f"https://pypi.org/simple/{name}/", timeout=60).read().decode()
        spelled = re.sub(r"[-_.]+", "[-_.]", name)
        for version in versions:
            target = SCRATCH / "sdist" / f"{name}-{version}"
            if target.exists():
                continue
            link = re.search(rf'https://files[^"#]*/(?i:{spelled})-{re.escape(version)}\.(tar\.gz|zip)', index)
            if link is None:
                print(f"  ! no sdist for {name} {version}", file=sys.stderr)
                continue
            data = urllib.request.urlopen(link.group(0), timeout=300).read()
            target.mkdir(parents=True)
            if link.group(1) == "zip":
                zipfile.ZipFile(io.BytesIO(data)).extractall(target)
            else:
                with tarfile.open(fileobj=io.BytesIO(data)) as handle:
                    handle.extractall(target, filter="data")


def _tree_files(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*"):
        if path.is_file() and profile_for_path(path.name) is not None and "node_modules" not in path.parts:
            parts = path.relative_to(root).parts
            out["/".join(parts[1:] if len(parts) > 1 else parts)] = path
    return out


def pairs(corpus: str = "main") -> list[tuple[str, bytes, bytes]]:
    """(path, old, new) for every supported file that changed between the two releases."""
    out = []
    groups = [("sdist", SDIST)] if corpus == "sdist" else [("pypi", PYPI), ("npm", NPM), ("crates", CRATES)]
    for folder, packages in groups:
        for name, old, new in packages:
            stem = name.replace("/", "__")
            old_root, new_root = SCRATCH / folder / f"{stem}-{old}", SCRATCH / folder / f"{stem}-{new}"
            if not old_root.exists() or not new_root.exists():
                continue
            old_files, new_files = _tree_files(old_root), _tree_files(new_root)
            for rel in sorted(set(old_files) & set(new_files)):
                a, b = old_files[rel].read_bytes(), new_files[rel].read_bytes()
                if a != b and a.count(b"\n") < 4000 and b.count(b"\n") < 4000:
                    out.append((f"{folder}/{name}/{rel}", a, b))
    return out


def _offset(lines: list[bytes], index: int) -> int:
    return sum(len(line) for line in lines[:index])


def _first_text(lines: list[bytes], start: int, stop: int) -> int | None:
    """Byte offset of the first non-blank character in lines[start:stop], or None."""
    for index in range(start, stop):
        stripped = lines[index].lstrip()
        if stripped.strip():
            return _offset(lines, index) + len(lines[index]) - len(stripped)
    return None


def _last_text(lines: list[bytes], start: int, stop: int) -> int | None:
    for index in range(stop - 1, start - 1, -1):
        if lines[index].strip():
            return _offset(lines, index) + len(lines[index].rstrip())
    return None


def _sibling_cut(lines: list[bytes], j1: int, k: int, j2: int, tree, profile=None) -> bool:  # type: ignore[no-untyped-def]
    """True when lines[j1:k] and lines[k:j2] are each whole runs of sibling nodes of one parent:
    two independent insertions, as two developers adding declarations at one place would write."""
    if tree is None:
        return False
    points = [_first_text(lines, j1, k), _last_text(lines, j1, k), _first_text(lines, k, j2), _last_text(lines, k, j2)]
    if None in points:
        return False
    start, end1, start2, end = points
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and not (node.start_byte <= start and node.end_byte >= end and node.named_child_count > 1):
        node = node.parent
    if node is None:
        return False
    children = [c for c in node.children if c.is_named]
    starts = {c.start_byte for c in children}
    ends = {c.start_byte + len(c.text.rstrip()) for c in children}
    if profile is not None and profile.container_rule(node) is None:
        return False  # only siblings in a container of declarations (module, class body, object)
    edge_kinds = {c.start_byte: c.type for c in children}
    edge_kinds.update({c.start_byte + len(c.text.rstrip()): c.type for c in children})
    if any(word in edge_kinds.get(point, "") for point in (start2, end1) for word in ("comment", "decorator", "attribute")):
        return False  # a comment or decorator cut from what it annotates is not a real edit
    return start in starts and start2 in starts and end1 in ends and end in ends


def scenarios(old: bytes, new: bytes, rng: random.Random, tree_of=lambda data: None, profile=None) -> list[tuple[str, bytes, bytes]]:
    """Synthetic (kind, left, right) pairs whose combination is `new` (see the module docstring)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    hunks = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    out = []

    def build(assign: dict[int, list[tuple[int, int, int, int]]]) -> tuple[bytes, bytes]:
        sides = []
        for side in (0, 1):
            chosen = sorted(assign[side])
            lines: list[bytes] = []
            cursor = 0
            for i1, i2, j1, j2 in chosen:
                lines.extend(a[cursor:i1])
                lines.extend(b[j1:j2])
                cursor = i2
            lines.extend(a[cursor:])
            sides.append(b"".join(lines))
        return sides[0], sides[1]

    spans = [(i1, i2, j1, j2) for _tag, i1, i2, j1, j2 in hunks]
    if len(spans) >= 2:
        assign: dict[int, list[tuple[int, int, int, int]]] = {0: [], 1: []}
        order = list(range(len(spans)))
        rng.shuffle(order)
        cut = rng.randint(1, len(spans) - 1)
        for rank, index in enumerate(order):
            assign[0 if rank < cut else 1].append(spans[index])
        out.append(("split", *build(assign)))
    inserts = [s for s in spans if s[0] == s[1] and s[3] - s[2] >= 2]
    rng.shuffle(inserts)
    for i1, _i2, j1, j2 in inserts:
        cuts = [k for k in range(j1 + 1, j2) if _sibling_cut(b, j1, k, j2, tree_of(new), profile)]
        if not cuts:
            continue
        k = rng.choice(cuts)
        first, second = (i1, i1, j1, k), (i1, i1, k, j2)
        assign = {0: [first], 1: [second]}
        for span in spans:
            if span != (i1, i1, j1, j2):
                assign[rng.randint(0, 1)].append(span)
        left, right = build(assign)
        out.append(("insert", left, right))
        if sum(kind == "insert" for kind, _, _ in out) >= 4:
            break
    return out


def _no_blank_lines(data: bytes) -> bytes:
    return b"".join(line for line in data.splitlines(keepends=True) if line.strip())


def _lines(data: bytes) -> list[bytes]:
    """Lines without their end of line and trailing blanks (CRLF vs LF is not a disagreement)."""
    return [line.rstrip() for line in data.splitlines()]


def _broken(path: str, result: bytes, inputs: tuple[bytes, bytes, bytes]) -> bool:
    """The committed file does not parse while all three inputs do, or declares a name twice in one
    scope where none of them does: it is no reference for a merge (a conflict resolved by hand that
    left a function cut in half, or kept both sides' copies of one import)."""
    profile = profile_for_path(path)
    if profile is None:
        return False
    parser = tree_sitter.Parser(profile.language)
    if parser.parse(result).root_node.has_error and not any(parser.parse(data).root_node.has_error
                                                             for data in inputs):
        return True
    # tree-sitter recovers from some errors silently (an `except:` left without a body); the
    # language's strict parser, where there is one, does not.
    if not validate.accepts(profile.name, inputs, result):
        return True
    # A declaration the committed file holds twice in one scope where no input did does not compile
    # either (helm 1de11e668c: `testify/require` imported twice in one Go import block).
    return bool(find_duplicates([FileVersions(path, *inputs, merged=result)]))


def history_class(ours: bytes, result: bytes, base: bytes, left: bytes, right: bytes, path: str = "") -> str:
    """exact / order / broken / human / diff for a clean merge of ours against the committed result."""
    if ours == result:
        return "exact"
    mine, theirs = _lines(ours), _lines(result)
    if sorted(line for line in mine if line) == sorted(line for line in theirs if line):
        return "order"
    if _broken(path, result, (base, left, right)):
        return "broken"
    known = set(_lines(base)) | set(_lines(left)) | set(_lines(right))
    if any(line and line not in known for line in theirs):
        return "human"
    return "diff"


def union_resolves(git_merged: bytes, result: bytes) -> bool:
    """Keeping both sides of every conflict block of git's diff3 output gives the committed lines."""
    out: list[bytes] = []
    section = None
    for line in git_merged.splitlines():
        if line.startswith(b"<<<<<<< "):
            section = "ours"
        elif line.startswith(b"||||||| ") and section == "ours":
            section = "base"
        elif line == b"=======" and section is not None:
            section = "theirs"
        elif line.startswith(b">>>>>>> ") and section is not None:
            section = None
        elif section != "base":
            out.append(line.rstrip())
    return sorted(line for line in out if line) == sorted(line for line in _lines(result) if line)


# Which step declined, in the order a file's several reasons are ranked: the first found names the
# file in the `--why-unresolved` census (a delete/modify needs a person whatever else merges).
_STEP_RANK = ("member: delete_modify", "member: rename_use", "member: delete_use", "region: a side's edit",
              "member: one declaration added", "member:", "region:")


def why_unresolved(ours) -> str:  # type: ignore[no-untyped-def]
    """The step of the cascade that left a file git conflicts on unresolved, as one census reason
    (what merge_file records: a fallback's sentence or the precision guard's name in `notes`, the
    structured merge's conflict steps in `steps`), with case-specific words taken out."""
    import re

    from worktree_coord.merge.precision import guards

    if ours.conflicts and all(c.kind == "semantic" for c in ours.conflicts):
        return "semantic check: a name one side removed, the other's new code uses"
    # A fallback's note: what happened, then "; git's line conflicts (lines ...) stand: ..." (its
    # lines and the sides' labels, which would split one reason into as many as files).
    notes = [note.split("; git's line")[0] for note in ours.notes]
    first = notes[0] if notes else ""
    for name in guards.GUARD_NAMES:
        if first.startswith(f"{name}:"):
            return f"guard: {name}"
    steps = sorted(ours.steps, key=lambda step: next((i for i, p in enumerate(_STEP_RANK) if step.startswith(p)),
                                                       len(_STEP_RANK)))
    if steps:
        return ("not smaller than the line merge; " if first else "") + steps[0]
    if not notes:
        return f"no structured stage ({ours.strategy.value} merge only)"
    first = re.sub(r"imports .* more often", "imports a name more often", first)
    first = re.sub(r"\(\d+(\.\d+)? s\)", "", first).strip()
    first = re.sub(r"failed internally \(.*", "failed internally", first)
    first = re.sub(r" \(line \d+:\d+( of [^)]*)?\)", "", first)
    first = re.sub(r"`[^`]*`", "`X`", first)
    return first


def _print_why_unresolved(rows: dict[str, dict[str, list[int]]]) -> None:
    """The census table: per reason, per language, files (and how many a union of both sides'
    lines would resolve: `keep every line both sides added`, resolvable in principle)."""
    languages = sorted({language for per in rows.values() for language in per})
    print("\nwhy unresolved (files git conflicts on that we leave conflicted; n/u = files / of those union-resolvable)")
    print(f"{'reason':<92}{'all':>9}" + "".join(f"{language[:8]:>9}" for language in languages))
    order = sorted(rows, key=lambda reason: -sum(n for n, _ in rows[reason].values()))
    totals = [0, 0]
    for reason in order:
        per = rows[reason]
        n, u = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
        totals[0] += n
        totals[1] += u
        cells = "".join(f"{(f'{per[l][0]}/{per[l][1]}' if l in per else ''):>9}" for l in languages)
        print(f"{reason[:91]:<92}{f'{n}/{u}':>9}{cells}")
    print(f"{'total':<92}{f'{totals[0]}/{totals[1]}':>9}")


def history_main(args: argparse.Namespace) -> int:
    """Score merge_file on real merge commits (module docstring, `--corpus history`)."""
    import history_corpus
    import whole_merge

    paths = args.repo or history_corpus.default_repositories()
    if not paths:
        print("no repositories: give --repo PATH (a git clone of a project's history; DEVELOPERS.md)",
              file=sys.stderr)
        return 2
    cases = [case for found in history_corpus.load_cases(paths, seed=args.seed, files=args.files,
                                                         progress=lambda text: print(text, file=sys.stderr))
             for case in found
             if (args.part == "all" or case.part == args.part) and (not args.language or case.language == args.language)]
    previous = json.loads(Path(args.compare).read_text()) if args.compare else {}
    if args.only:
        # Only the cases a saved run classed as one of these verdicts (a rule that turns clean
        # merges into conflicts changes nothing else, so `--only exact,order,diff,...` is enough).
        wanted = set(args.only.split(","))
        cases = [case for case in cases if previous.get(case.name) in wanted]
    verdicts: dict[str, str] = {}
    stats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    shown: dict[str, list[tuple]] = defaultdict(list)
    times = []
    why: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    dump = Path(args.dump) if args.dump else None
    # --by-shape: per rule that settled a git conflict region (merge/precision/provenance.py), the verdicts
    # of the resolved files it took part in (a file counts once under each of its rules).
    by_shape: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    shapes_of: dict[str, list[list[str]]] = {}
    def _score(case, versions, ours, verdict, git_merged) -> None:  # type: ignore[no-untyped-def]
        base, left, right, result = versions
        for key in (case.language, "ALL"):
            row = stats[key]
            if case.git_clean:
                row["git_clean"] += 1
                row[verdict] += 1
                row["git_wrong"] += line_merge(base, left, right).merged != result
                row["sem_fixed"] += verdict == "semantic" and line_merge(base, left, right).merged != result
            else:
                row["git_conflicted"] += 1
                row["resolved"] += ours.clean
                row[verdict] += 1
                row["union"] += union_resolves(git_merged, result)
                row["took_side"] += verdict == "diff" and result in (left, right)
            if not case.git_clean and not ours.clean and key != "ALL":
                reason = ("semantic check over the whole merge (a name another file breaks)" if verdict == "reported"
                          else why_unresolved(ours))
                cell = why[reason][key]
                cell[0] += 1
                cell[1] += union_resolves(git_merged, result)
        if args.by_shape and not case.git_clean and ours.clean:
            found = provenance.regions(base, left, right, ours)
            maps: dict[str, dict[int, int]] = {}
            region_verdicts = [region_verdict(base, ours.merged, result, region.start, region.end, maps)
                               for region in found]
            shapes_of[case.name] = [[*region.rules, region.shape, rv] for region, rv in zip(found, region_verdicts)]
            for region, rv in zip(found, region_verdicts):
                for key in {*region.rules, *(f"{rule} | {region.shape}" for rule in region.rules), "ALL"}:
                    by_shape[key]["regions"] += 1
                    by_shape[key]["r_" + rv] += 1
            keys = {rule for region in found for rule in region.rules}
            keys |= {f"{rule} | {region.shape}" for region in found for rule in region.rules}
            for key in keys | {"ALL"}:
                row = by_shape[key]
                row["resolved"] += 1
                row[verdict] += 1
                row["took_side"] += verdict == "diff" and result in (left, right)
        shown[verdict].append((case, ours))
        verdicts[case.name] = verdict
        if dump is not None and verdict in ("diff", "human", "broken", "order", "wrong", "added", "semantic", "reported"):
            folder = dump / verdict / case.name.replace("/", "__").replace(":", "__")
            folder.mkdir(parents=True, exist_ok=True)
            suffix = Path(case.path).suffix
            for stem, data in (("Base", base), ("Left", left), ("Right", right), ("Committed", result),
                               ("Ours", ours.merged)):
                (folder / f"{stem}{suffix}").write_bytes(data)
            (folder / "NOTES").write_text(f"{case.name}\nstrategy {ours.strategy.value}\nnotes {ours.notes}\n")

    # The whole merge (default): each merge commit's tree merge re-assembled as the product makes
    # it and checked as the product checks it (scripts/whole_merge.py); a resolved file a finding
    # names is `reported` (a conflict of kind semantic), counted by the verdict it would have had.
    repositories = {history_corpus.repository_name(Path(path)): Path(path) for path in paths}
    opened: dict[str, object] = {}
    wholes: dict[str, whole_merge.WholeMerge] = {}
    groups: dict[tuple[str, str], list] = {}
    for case in cases:
        groups.setdefault((case.repo, case.merge), []).append(case)
    for (repo_name, merge), group in groups.items():
        merged_cases = []
        for case in group:
            base, left, right, result = (case.read(which) for which in ("base", "left", "right", "result"))
            started = time.perf_counter()
            ours = merge_file(base, left, right, case.path)
            times.append((time.perf_counter() - started, case.name))
            merged_cases.append((case, (base, left, right, result), ours))
        whole = None
        if not args.file_only:
            if repo_name not in opened:
                import pygit2

                location = repositories.get(repo_name)
                opened[repo_name] = pygit2.Repository(str(location)) if location is not None else None
            handle = opened[repo_name]
            if handle is None:
                whole = whole_merge.WholeMerge(error="repository not on this machine")
            else:
                try:
                    whole = whole_merge.check_merge_commit(handle, merge, {c.path: o.merged for c, _, o in merged_cases})
                except KeyError as exc:   # a partial snapshot without a blob the merge needs
                    whole = whole_merge.WholeMerge(error=f"object missing: {exc}")
                except Exception as exc:  # noqa: BLE001 - an engine fault: named, and the run goes on
                    whole = whole_merge.WholeMerge(error=f"check failed: {type(exc).__name__}: {exc}")
                    print(f"whole merge: {repo_name}@{merge[:10]} check failed: {type(exc).__name__}: {exc}",
                          file=sys.stderr)
            wholes[f"{repo_name}@{merge[:10]}"] = whole
            if whole.seconds > 20:
                print(f"whole merge: {repo_name}@{merge[:10]} took {whole.seconds:.0f} s ({whole.both_changed} files "
                      f"both sides changed, {whole.structured} merged by merge_file)", file=sys.stderr)
        for case, (base, left, right, result), ours in merged_cases:
            named = whole is not None and case.path in whole.paths
            if case.git_clean:
                git_merged = b""
                if not ours.clean:
                    # Only semantic findings: the merge itself is git's, the check says what it broke.
                    verdict = "semantic" if all(c.kind == "semantic" for c in ours.conflicts) else "added"
                elif named:
                    verdict = "semantic"
                    for key in (case.language, "ALL"):
                        stats[key]["xsem"] += 1
                else:
                    verdict = ("wrong" if ours.merged != result and line_merge(base, left, right).merged == result
                               else "clean")
            else:
                git_merged = line_merge(base, left, right).merged
                verdict = history_class(ours.merged, result, base, left, right, case.path) if ours.clean else "conflict"
                if named and ours.clean:
                    for key in (case.language, "ALL"):
                        stats[key]["rep_" + verdict] += 1
                        stats[key]["rep_took_side"] += verdict == "diff" and result in (left, right)
                    verdict = "reported"
                    ours = dataclasses.replace(ours, clean=False, notes=ours.notes + tuple(
                        f"semantic (whole merge): {f.message}" for f in whole.findings
                        if case.path == f.use_path or (case.path == f.definition_path and f.problem != "import_path")))
            _score(case, (base, left, right, result), ours, verdict, git_merged)

    def pct(part: int, whole: int) -> str:
        return f"{part / whole:.1%}" if whole else "-"

    print(f"history corpus, part {args.part}: {len(cases)} files from {len({c.repo for c in cases})} repositories, "
          f"{len({c.merge for c in cases})} merge commits")
    print(f"{'language':<11}{'confl':>6}{'resolved':>9}{'res%':>7}{'exact':>6}{'order':>6}{'broken':>7}{'human':>6}{'diff':>5}{'1side':>6}"
          f"{'agree%':>8}{'diff%':>7}{'union%':>7}{'clean':>7}{'added':>6}{'sem':>4}{'xsem':>5}{'fixed':>6}{'wrong':>6}{'git-wrong':>10}"
          f"{'rep':>5}{'rep e/o/b/h/d':>15}")
    for language in sorted(stats, key=lambda name: (name == "ALL", name)):
        s = stats[language]
        resolved = s["resolved"]
        print(f"{language:<11}{s['git_conflicted']:>6}{resolved:>9}{pct(resolved, s['git_conflicted']):>7}"
              f"{s['exact']:>6}{s['order']:>6}{s['broken']:>7}{s['human']:>6}{s['diff']:>5}{s['took_side']:>6}"
              f"{pct(s['exact'] + s['order'], resolved):>8}{pct(s['diff'], resolved):>7}"
              f"{pct(s['union'], s['git_conflicted']):>7}{s['git_clean']:>7}{s['added']:>6}{s['semantic']:>4}{s['xsem']:>5}{s['sem_fixed']:>6}{s['wrong']:>6}"
              f"{s['git_wrong']:>10}{s['reported']:>5}"
              f"{'/'.join(str(s['rep_' + v]) for v in ('exact', 'order', 'broken', 'human', 'diff')):>15}")
    if wholes:
        checked = [w for w in wholes.values() if not w.error]
        spent = sorted(w.seconds for w in checked)
        print(f"whole merge: {len(checked)} of {len(wholes)} merge commits checked"
              + (f" ({len(wholes) - len(checked)} not: {sorted({w.error for w in wholes.values() if w.error})})"
                 if len(checked) < len(wholes) else "")
              + f", {sum(bool(w.findings) for w in checked)} with a finding ({sum(len(w.findings) for w in checked)} "
              f"findings), {sum(w.both_changed for w in checked)} files both sides changed, "
              f"{sum(w.structured for w in checked)} merged by merge_file besides the cases"
              + (f"; time per merge median {spent[len(spent) // 2] * 1000:.0f} ms, p95 "
                 f"{spent[int(len(spent) * 0.95)] * 1000:.0f} ms, max {spent[-1]:.1f} s" if spent else ""))
    if args.by_shape:
        _print_by_shape(by_shape)
    times.sort()
    if times:
        print(f"merge_file time: median {times[len(times) // 2][0] * 1000:.1f} ms, "
              f"p95 {times[int(len(times) * 0.95)][0] * 1000:.1f} ms, max {times[-1][0] * 1000:.0f} ms "
              f"({times[-1][1]}) over {len(times)} files")
    if args.why_unresolved:
        _print_why_unresolved(why)
    if args.save:
        Path(args.save).write_text(json.dumps(verdicts, indent=0, sort_keys=True))
        if args.by_shape:
            Path(args.save + ".shapes.json").write_text(json.dumps(shapes_of, indent=0, sort_keys=True))
    if previous:
        _print_transitions(previous, verdicts)
    for spec in args.show:
        verdict, _, count = spec.partition(":")
        for case, ours in shown[verdict][: int(count or 5)]:
            result = case.read("result")
            print(f"\n### {verdict}: {case.name} ({ours.strategy.value}; {'; '.join(ours.notes)})")
            diff = difflib.unified_diff(result.decode(errors="replace").splitlines(),
                                        ours.merged.decode(errors="replace").splitlines(),
                                        "committed", "ours", lineterm="", n=2)
            print("\n".join(list(diff)[:80]))
    return 0


def _unchanged_map(base: bytes, other: bytes) -> dict[int, int]:
    """Base line -> line of `other`, for each base line the diff base -> other leaves unchanged."""
    import pygit2

    hunks = [(h.old_start - 1 if h.old_lines else h.old_start, h.old_lines, h.new_lines)
             for h in pygit2.Patch.create_from(base, other, context_lines=0).hunks]
    out: dict[int, int] = {}
    delta, done = 0, 0
    for start, old_lines, new_lines in hunks:
        out.update((line, line + delta) for line in range(done, start))
        delta += new_lines - old_lines
        done = start + old_lines
    out.update((line, line + delta) for line in range(done, len(base.splitlines())))
    return out


def region_verdict(base: bytes, ours: bytes, result: bytes, start: int, end: int,
                   maps: dict[str, dict[int, int]]) -> str:
    """Whether our text for base lines [start, end) is the committed file's text there: the lines
    between the nearest base lines both kept unchanged around the region, compared as `exact`,
    `order` (the same lines in another order) or `differs`; `unknown` without common anchors."""
    ours_map = maps.setdefault("ours", _unchanged_map(base, ours))
    result_map = maps.setdefault("result", _unchanged_map(base, result))
    before = next((line for line in range(start - 1, -1, -1) if line in ours_map and line in result_map), None)
    after = next((line for line in range(end, end + 10000) if line in ours_map and line in result_map
                  or line >= len(base.splitlines())), None)
    ours_lines, result_lines = _lines(ours), _lines(result)

    def between(lines: list[bytes], mapping: dict[int, int]) -> list[bytes] | None:
        lo = mapping[before] + 1 if before is not None else 0
        hi = mapping[after] if after is not None and after in mapping else len(lines)
        return lines[lo:hi] if lo <= hi else None

    mine, theirs = between(ours_lines, ours_map), between(result_lines, result_map)
    if mine is None or theirs is None:
        return "unknown"
    mine, theirs = [line for line in mine if line.strip()], [line for line in theirs if line.strip()]
    if mine == theirs:
        return "exact"
    return "order" if sorted(mine) == sorted(theirs) else "differs"


def _print_by_shape(by_shape: dict[str, dict[str, int]]) -> None:
    """The --by-shape table: one row per rule (and per rule and input shape, indented)."""
    def pct(part: int, whole: int) -> str:
        return f"{part / whole:.1%}" if whole else "-"

    print(f"\nby shape of resolution (a file counts under each rule that settled one of its git conflict regions)")
    print("files: verdicts of the resolved files; regions: git conflict regions the rule settled, each compared")
    print("with the committed file between the nearest lines base, ours and committed share (r-exact, r-order,")
    print("r-differs; r-agree% = (r-exact + r-order) / regions compared)")
    print(f"{'rule | input shape':<52}{'files':>6}{'exact':>6}{'order':>6}{'broken':>7}{'human':>6}{'diff':>5}"
          f"{'1side':>6}{'agree%':>8}{'diff%':>7}{'regions':>8}{'r-exact':>8}{'r-order':>8}{'r-diff':>7}{'r-agree%':>9}")
    rules = sorted((key for key in by_shape if " | " not in key and key != "ALL"),
                   key=lambda key: (-by_shape[key]["resolved"], key))
    for rule in rules + ["ALL"]:
        for key in [rule] + sorted(k for k in by_shape if k.startswith(rule + " | ")):
            s = by_shape[key]
            label = key if key == rule else "    " + key.split(" | ", 1)[1]
            compared = s["r_exact"] + s["r_order"] + s["r_differs"]
            print(f"{label[:51]:<52}{s['resolved']:>6}{s['exact']:>6}{s['order']:>6}{s['broken']:>7}{s['human']:>6}"
                  f"{s['diff']:>5}{s['took_side']:>6}{pct(s['exact'] + s['order'], s['resolved']):>8}"
                  f"{pct(s['diff'], s['resolved']):>7}{s['regions']:>8}{s['r_exact']:>8}{s['r_order']:>8}"
                  f"{s['r_differs']:>7}{pct(s['r_exact'] + s['r_order'], compared):>9}")


def _print_transitions(previous: dict[str, str], verdicts: dict[str, str]) -> None:
    """How the verdicts moved since a saved run (`--compare`): one line per change of class, with
    the cases that made it (the measure of a rule: which diffs it removes, which exacts it costs)."""
    moved: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, verdict in verdicts.items():
        before = previous.get(name)
        if before is not None and before != verdict:
            moved[(before, verdict)].append(name)
    print(f"\nchanges against the saved run ({sum(len(names) for names in moved.values())} cases):")
    for (before, after), names in sorted(moved.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"  {before:>8} -> {after:<8} {len(names):>4}")
        for name in sorted(names):
            print(f"      {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch", action="store_true", help="download the corpus first (needs the registries)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", choices=("main", "sdist", "history"), default="main",
                        help="main: PyPI/npm releases; sdist: Rust-backed PyPI sdists (held out); "
                             "history: real merge commits of --repo histories")
    parser.add_argument("--max-files", type=int, default=100000)
    parser.add_argument("--show-wrong", type=int, default=0, help="print that many wrong merges")
    parser.add_argument("--repo", action="append", type=Path, default=[],
                        help="history: a git repository to mine (repeatable; default: the corpus in DEVELOPERS.md)")
    parser.add_argument("--part", choices=("dev", "aside", "fresh", "unseen", "all"), default="dev",
                        help="history: the development part, the part kept aside, the generalisation corpus "
                             "(repositories no rule was built from; scripts/generalisation.py reads it), its second "
                             "part (unseen), or all")
    parser.add_argument("--language", help="history: only this language")
    parser.add_argument("--files", choices=("profiles", "appendable"), default="profiles",
                        help="history: the files a language profile handles (default), or the files every task "
                             "appends to (line lists, PO, .properties, Markdown changelogs, JSON/YAML catalogs)")
    parser.add_argument("--show", action="append", default=[], metavar="CLASS:N",
                        help="history: print N results of a class (diff, human, order, exact, wrong, added, semantic, conflict)")
    parser.add_argument("--dump", help="history: write each non-exact case's versions under this folder")
    parser.add_argument("--without", action="append", default=[], metavar="GUARD",
                        help="turn off one precision guard (merge/precision/guards.py) to measure what it does (repeatable)")
    parser.add_argument("--by-shape", action="store_true",
                        help="history: a table of verdicts per rule that settled a git conflict region (merge/precision/provenance.py)")
    parser.add_argument("--why-unresolved", action="store_true",
                        help="history: a census of the files git conflicts on that stay conflicted: which step "
                             "declined, per language, and how many keeping both sides' lines would resolve")
    parser.add_argument("--file-only", action="store_true",
                        help="history: score each file alone (rounds 1-4), without the semantic check of each merge "
                             "commit's whole tree merge (a resolved file a finding names is `reported`)")
    parser.add_argument("--save", help="history: write every case's verdict to this JSON file")
    parser.add_argument("--compare", help="history: a --save file of an earlier run: print the cases whose verdict moved")
    parser.add_argument("--only", metavar="VERDICTS",
                        help="history: with --compare, score only the cases that run classed as one of these "
                             "comma-separated verdicts (e.g. exact,order,broken,human,diff: the resolved ones)")
    args = parser.parse_args()
    from worktree_coord.merge.precision import guards
    unknown = set(args.without) - set(guards.GUARD_NAMES)
    if unknown:
        parser.error(f"unknown guard {', '.join(sorted(unknown))}: choose from {', '.join(guards.GUARD_NAMES)}")
    guards.disabled.update(args.without)
    if args.corpus == "history":
        return history_main(args)
    if args.fetch:
        fetch_sdists() if args.corpus == "sdist" else fetch()
    corpus = pairs(args.corpus)[: args.max_files]
    if not corpus:
        print("no corpus: run with --fetch first", file=sys.stderr)
        return 2
    stats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    wrong_examples = []
    times = []
    for path, old, new in corpus:
        language = profile_for_path(path).name  # type: ignore[union-attr]
        rng = random.Random(f"{args.seed}:{path}")  # per file, so one case can be replayed alone
        profile = profile_for_path(path)
        parser = tree_sitter.Parser(profile.language)  # type: ignore[union-attr]
        for kind, left, right in scenarios(old, new, rng, tree_of=lambda data: parser.parse(data), profile=profile):
            if left == new or right == new or left == old or right == old:
                continue
            git = line_merge(old, left, right)
            started = time.perf_counter()
            ours = merge_file(old, left, right, path)
            times.append(time.perf_counter() - started)
            for key in (language, "ALL"):
                s = stats[key]
                s["scenarios"] += 1
                blankless = ours.clean and _no_blank_lines(ours.merged) == _no_blank_lines(new)
                if not git.clean:
                    s["git_conflicted"] += 1
                    if ours.clean:
                        s["ours_resolved"] += 1
                        s["ours_resolved_right"] += ours.merged == new
                        s["ours_resolved_right_ws"] += blankless
                else:
                    s["git_clean"] += 1
                    s["git_clean_wrong"] += git.merged != new
                    s["ours_clean_on_git_clean"] += ours.clean
                    s["ours_wrong_on_git_clean"] += ours.clean and ours.merged != new
            if ours.clean and ours.merged != new and not (git.clean and git.merged == ours.merged):
                wrong_examples.append((path, kind, old, left, right, new, ours))
    header = f"{'language':<11}{'scen':>6}{'git-confl':>10}{'resolved':>9}{'reach':>7}{'right':>7}{'precision':>10}{'prec-ws':>8}" \
             f"{'git-clean':>10}{'git-wrong':>10}{'ours-wrong':>11}{'ours-confl':>11}"
    print(header)
    for language in sorted(stats, key=lambda name: (name == "ALL", name)):
        s = stats[language]
        reach = s["ours_resolved"] / s["git_conflicted"] if s["git_conflicted"] else 0.0
        precision = s["ours_resolved_right"] / s["ours_resolved"] if s["ours_resolved"] else 0.0
        precision_ws = s["ours_resolved_right_ws"] / s["ours_resolved"] if s["ours_resolved"] else 0.0
        print(f"{language:<11}{s['scenarios']:>6}{s['git_conflicted']:>10}{s['ours_resolved']:>9}{reach:>7.1%}"
              f"{s['ours_resolved_right']:>7}{precision:>10.1%}{precision_ws:>8.1%}{s['git_clean']:>10}{s['git_clean_wrong']:>10}"
              f"{s['ours_wrong_on_git_clean']:>11}{s['git_clean'] - s['ours_clean_on_git_clean']:>11}")
    times.sort()
    if times:
        print(f"merge_file time: median {times[len(times) // 2] * 1000:.1f} ms, "
              f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms over {len(times)} merges")
    for path, kind, old, left, right, new, ours in wrong_examples[: args.show_wrong]:
        print(f"\n### wrong: {path} ({kind}, {ours.strategy.value})")
        diff = difflib.unified_diff(new.decode(errors="replace").splitlines(), ours.merged.decode(errors="replace").splitlines(),
                                    "expected", "ours", lineterm="", n=2)
        print("\n".join(list(diff)[:60]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
