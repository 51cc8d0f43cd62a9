"""Benchmark: the tree merge's semantic check (`merge.tree.check_merge`) on real merge commits.

For each merge commit it re-assembles the product's tree merge once, with this checkout's
`merge_file` (scripts/whole_merge.py's assembly: a file one side changed is that side's, a file
both changed is git's clean line merge or `merge_file`'s result), then times the check alone
(`check_merge`: broken names, reshaped functions, duplicates, replaced import paths) on it, CPU
and wall, in each code's worker.

`--baseline TREE` times another checkout of the product (e.g. `git archive main | tar -x -C
/tmp/old`) in the same run: each code runs in a worker process of its own (warmed up by a first
merge that is not counted), the two asked in turn for every merge, so load drifts hit both alike.
It prints median, p95 and max of each, their ratio, the merges whose findings differ (none is the
point: a faster check must find the same things), and with `--show` the per-merge rows.

Merges: `--merge REPO:SHA` (repeatable; REPO a mirror folder or `owner+name`), or `--corpus dev|aside`
for every merge commit with a mined case in that part of the history corpus (history_corpus.py),
`--limit N` of them spread over the repositories.

Usage:
    python scripts/bench_merge_check.py --merge containerd+containerd:8dee199878 \\
        --merge traefik+traefik:dd79f4c6f2 --baseline /tmp/old --show
    python scripts/bench_merge_check.py --corpus dev --baseline /tmp/old --save /tmp/after.json
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
MIRROR = Path(os.environ.get("WTC_MIRROR", "/work/.mirror"))


# -- the worker: one code tree, asked merge by merge over stdin/stdout ----------------------------
def worker(tree: Path) -> int:
    """Checks the merges the driver sends (the merged bytes of the files both sides changed come
    with each, assembled once by the driver: both codes check the same tree merge)."""
    sys.path[:0] = [str(tree)]
    _own_grammars(tree)
    import pygit2
    from worktree_coord.merge import tree as tree_module

    repos: dict[str, pygit2.Repository] = {}
    import importlib.resources
    grammars = importlib.resources.files("worktree_coord.grammars")
    print(json.dumps({"ready": f"{Path(tree_module.__file__).resolve()} (grammars {grammars})"}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        repo = repos.get(request["repo"]) or repos.setdefault(request["repo"], pygit2.Repository(request["repo"]))
        merged = {path: None if data is None else base64.b64decode(data) for path, data in request["merged"].items()}
        cpu, wall = time.process_time(), time.perf_counter()
        found = tree_module.check_merge(repo, request["base"], request["left"], request["right"], merged,
                                        labels=("left", "base", "right"))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        findings = sorted(json.dumps([f.problem, f.name, f.kind, f.definition_path, f.definition_line, f.use_path,
                                      f.use_line, f.removed_by, f.used_by, f.replacement, f.use])
                          for f in found)
        print(json.dumps({"findings": findings, "check_cpu": cpu, "check_wall": wall}), flush=True)
    return 0


def _own_grammars(tree: Path) -> None:
    """Make `worktree_coord.grammars` the tree's own `grammars/`: pyproject maps that package to the
    repository's top-level folder, so an editable install would hand every tree the installed
    checkout's profiles (a baseline would read this branch's grammars, or refuse its new keys)."""
    import importlib.machinery
    import importlib.util

    spec = importlib.machinery.PathFinder.find_spec("worktree_coord.grammars", [str(tree)])
    if spec is None or spec.loader is None:
        return   # no grammars/ folder there: the installed one stands
    module = importlib.util.module_from_spec(spec)
    sys.modules["worktree_coord.grammars"] = module
    spec.loader.exec_module(module)


def assemble(repo: Any, sha: str) -> dict | None:
    """The product's tree merge of a merge commit (scripts/whole_merge.py's assembly): its base,
    parents and the merged bytes of the files both sides changed; None for a merge it cannot check."""
    import whole_merge
    from worktree_coord.merge import line_merge, merge_file
    from worktree_coord.merge.tree import changed_on_both_sides

    commit = repo[sha]
    if len(commit.parent_ids) != 2:
        return None
    left, right = commit.parent_ids
    base = repo.merge_base(left, right)
    if base is None:
        return None
    merged: dict[str, str | None] = {}
    for path, (base_id, left_id, right_id) in changed_on_both_sides(repo, base, left, right).items():
        if left_id is None or right_id is None:
            kept = right_id if left_id is None else left_id
            data = None if kept is None or kept == base_id else repo[kept].data
        else:
            versions = [repo[base_id].data if base_id is not None else b"", repo[left_id].data, repo[right_id].data]
            git = line_merge(*versions)
            if git.clean or max(map(len, versions)) > whole_merge.MAX_BYTES:
                data = git.merged
            else:
                data = merge_file(*versions, path, semantic="off").merged
        merged[path] = None if data is None else base64.b64encode(data).decode()
    return {"base": str(base), "left": str(left), "right": str(right), "merged": merged}


class _Worker:
    def __init__(self, tree: Path):
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.process = subprocess.Popen([sys.executable, __file__, "--worker", str(tree)], env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ready = json.loads(self._line())
        self.module = ready["ready"]

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("a benchmark worker died (its error is above)")
        return line

    def ask(self, repo: str, request: dict) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"repo": repo, **request}) + "\n")
        self.process.stdin.flush()
        return json.loads(self._line())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


# -- the driver ----------------------------------------------------------------------------------
def _repo_path(name: str) -> str:
    path = Path(name)
    if not (path / "HEAD").exists() and not (path / ".git").exists():
        path = MIRROR / name / "repo"
    if not path.exists():
        raise SystemExit(f"{name}: no such repository (give a path or an owner+name under {MIRROR})")
    return str(path)


def _corpus_merges(part: str, limit: int | None) -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT / "scripts"))
    import history_corpus

    by_repo: dict[str, list[str]] = {}
    for cases in history_corpus.load_cases(history_corpus.default_repositories()):
        for case in cases:
            if case.part == part:
                by_repo.setdefault(case.repo, [])
                if case.merge not in by_repo[case.repo]:
                    by_repo[case.repo].append(case.merge)
    merges = [(repo, sha) for repo in sorted(by_repo) for sha in sorted(by_repo[repo])]
    if limit is not None and len(merges) > limit:   # spread over the repositories, deterministic
        step = len(merges) / limit
        merges = [merges[int(i * step)] for i in range(limit)]
    return merges


def _summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered):7.3f} s  p95 {p95:7.3f} s  max {ordered[-1]:7.3f} s  total {sum(ordered):8.1f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--merge", action="append", default=[], help="REPO:SHA (repeatable)")
    parser.add_argument("--corpus", choices=("dev", "aside"), help="every merge with a mined case in that part")
    parser.add_argument("--limit", type=int, help="at most this many corpus merges (spread over repositories)")
    parser.add_argument("--baseline", type=Path, help="another checkout of the product, timed in the same run")
    parser.add_argument("--save", type=Path, help="write every merge's rows (findings, times) as JSON")
    parser.add_argument("--compare", type=Path,
                        help="a --save file of an earlier run: its findings (and times, as `saved`) stand in for "
                             "the baseline's, merge by merge (the same merges are checked)")
    parser.add_argument("--show", action="store_true", help="print one row per merge")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker)
    merges = [(_repo_path(repo), sha) for repo, sha in (m.rsplit(":", 1) for m in args.merge)]
    if args.corpus:
        found = _corpus_merges(args.corpus, args.limit)
        if not found:
            import history_corpus

            parser.error(f"--corpus {args.corpus}: no merge with a mined case in that part under {history_corpus.MIRROR} "
                         "(the corpus repositories are not fetched there, or none of theirs is in that part): fetch "
                         "them (scripts/history_corpus.py lists them), set WTC_MIRROR, or give --merge REPO:SHA")
        merges += [(_repo_path(repo), sha) for repo, sha in found]
    if not merges:
        parser.error("give --merge REPO:SHA or --corpus dev|aside")
    codes = {"this": _Worker(ROOT)}
    if args.baseline:
        if not (args.baseline / "worktree_coord").is_dir():
            parser.error(f"--baseline {args.baseline}: not a checkout of the product (no worktree_coord/ in it)")
        codes["baseline"] = _Worker(args.baseline.resolve())
    import pygit2

    repos: dict[str, pygit2.Repository] = {}
    requests: list[tuple[str, str, dict]] = []
    assembling = time.perf_counter()
    for repo, sha in merges:
        handle = repos.get(repo) or repos.setdefault(repo, pygit2.Repository(repo))
        sha = str(handle.revparse_single(sha).id)
        request = assemble(handle, sha)
        if request is not None:
            requests.append((repo, sha, request))
        if len(requests) % 100 == 0:
            print(f"assembled {len(requests)} of {len(merges)} merges", file=sys.stderr, flush=True)
    print(f"assembled {len(requests)} merges ({len(merges) - len(requests)} not checkable) in "
          f"{time.perf_counter() - assembling:.0f} s", file=sys.stderr)
    for name, code in codes.items():
        print(f"{name}: {code.module}", file=sys.stderr)
        code.ask(requests[0][0], requests[0][2])   # warm-up: profiles, grammars, queries (not counted)
    print(f"load average at start: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    saved = None
    if args.compare:
        saved = {row["sha"]: row["this"] for row in json.loads(args.compare.read_text())}
    names = list(codes) + (["saved"] if saved is not None else [])
    rows: list[dict] = []
    for index, (repo, sha, request) in enumerate(requests):
        order = list(codes) if index % 2 == 0 else list(reversed(codes))
        row: dict = {"repo": Path(repo).parent.name, "sha": sha, "both": len(request["merged"])}
        for name in order:
            row[name] = codes[name].ask(repo, request)
        if saved is not None:
            row["saved"] = saved.get(sha, {"findings": None, "check_cpu": float("nan"), "check_wall": float("nan")})
        row["same"] = len({json.dumps(row[name]["findings"]) for name in row if name in names}) == 1
        rows.append(row)
        if args.show or not row["same"]:
            times = "  ".join(f"{name} {row[name]['check_cpu']:7.2f} s cpu {row[name]['check_wall']:7.2f} s wall"
                              for name in names)
            flags = "/".join(str(len(row[name]["findings"] or ())) for name in names)
            print(f"{row['repo']:<34} {sha[:10]}  both {row['both']:>5}  {times}  findings {flags}"
                  f"{'' if row['same'] else '  DIFFERENT'}", flush=True)
        if (index + 1) % 50 == 0:
            print(f"checked {index + 1} of {len(requests)}", file=sys.stderr, flush=True)
            if args.save:   # so far, in case the run is cut short
                args.save.write_text(json.dumps(rows, indent=1))
    print(f"load average at end: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    for code in codes.values():
        code.close()
    checked = rows
    print(f"{len(rows)} merges checked, {sum(len(row['this']['findings']) for row in rows)} findings")
    for name in codes:
        print(f"{name:>8} check CPU: {_summary([row[name]['check_cpu'] for row in checked])}")
        print(f"{name:>8} check wall: {_summary([row[name]['check_wall'] for row in checked])}")
    if saved is not None:
        print(f"merges whose findings differ from {args.compare}: {sum(not row['same'] for row in rows)}")
    if "baseline" in codes:
        ratio = [row["this"]["check_cpu"] / row["baseline"]["check_cpu"] for row in checked
                 if row["baseline"]["check_cpu"] > 0]
        print(f"CPU ratio this/baseline: median {statistics.median(ratio):.3f}, "
              f"total {sum(r['this']['check_cpu'] for r in checked) / max(1e-9, sum(r['baseline']['check_cpu'] for r in checked)):.3f}")
        different = [row for row in rows if not row["same"]]
        print(f"merges whose findings differ: {len(different)}")
    if args.save:
        args.save.write_text(json.dumps(rows, indent=1))
    return 0 if all(row["same"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
