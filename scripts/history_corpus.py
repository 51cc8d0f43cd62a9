"""Mine real merge commits from git histories into three-way file merge cases (an evaluation input).

Stage: evaluation data for `scripts/eval_merge_quality.py --corpus history` (and for anyone else who
needs real merges: the semantic check's measurement reuses `load_cases`). Not product code.

Input: git repositories (bare or not) holding public projects' histories (DEVELOPERS.md says how
to bring them onto a machine). Output: `Case` records: one file of one merge commit, with the blob
ids of base (the merge base), left (first parent), right (second parent) and result (what the
project committed), whether git's line merge of it conflicts, its language and its part of the
corpus ("dev", looked at while developing, or "aside", looked at only to confirm).

Walk: every merge commit with exactly two parents reachable from branches, tags and GitHub pull
request heads (`refs/pull/N/head`, which keep the "merge main into my branch" commits a squash
merge later hides; never `refs/pull/N/merge`, GitHub's own test merges that nobody resolved).
Merges with more than one merge base (criss-cross) are skipped: their base is a virtual merge,
not a commit. A file is a case when it exists in base, both parents and the result, both parents
changed it differently, a language profile handles it, it is text without conflict markers in
any of the four versions, and it is under the size limits.

Sampling is deterministic (seeded), bounded per repository (`max_conflicts`, `max_clean`) and per
merge commit (`per_merge`), so one repository or one forward-port merge with fifty conflicted files
does not dominate. Merge commits are visited in a seeded shuffled order until the bounds are met.

Cache: blobs under `scratch/history/blobs/` (content addressed), one `scratch/history/<repo>.json`
per repository holding the cases and the parameters that produced them; the same parameters reuse
it. The mined files are other projects' code: `scratch/` is ignored by git and they stay there.

Part: a repository in `ASIDE_REPOSITORIES` is wholly "aside", one in `FRESH_REPOSITORIES` wholly
"fresh", one in `UNSEEN_REPOSITORIES` wholly "unseen"; in the others a merge commit is
"aside" when its id falls in one fifth of the id space (`_aside_commit`), else "dev".
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pygit2  # noqa: E402

from worktree_coord.merge import line_merge  # noqa: E402
from worktree_coord.merge.lines.markers import has_markers  # noqa: E402
from worktree_coord.merge.appended.appendable import kind_for_path  # noqa: E402
from worktree_coord.merge.languages.profiles import profile_for_path  # noqa: E402

CACHE = ROOT / "scratch" / "history"
MINER_VERSION = 1            # bump when what makes a case changes: old caches are then re-mined
MAX_BYTES = 400_000          # per version of a file
MAX_LINES = 5_000

# Where this workplace keeps histories (`fetch github:owner/name` puts them there); elsewhere, set
# WTC_MIRROR to a folder holding `<owner>+<name>/repo` bare clones (DEVELOPERS.md).
MIRROR = Path(os.environ.get("WTC_MIRROR", "/work/.mirror"))

# The development corpus, per language (JSON, YAML, TOML come with all of them).
DEV_REPOSITORIES = (
    "pytest-dev+pytest", "pypa+pip", "psf+black",                          # Python
    "webpack+webpack", "mochajs+mocha",                                    # JavaScript
    "vuejs+core", "ant-design+ant-design",                                 # TypeScript, TSX
    "etcd-io+etcd", "containerd+containerd", "helm+helm",                  # Go
    "serde-rs+serde", "clap-rs+clap", "diesel-rs+diesel",                  # Rust
    "spring-projects+spring-framework", "spring-projects+spring-security",  # Java
)
# Kept aside whole: looked at only to confirm, never while developing.
ASIDE_REPOSITORIES = (
    "ipython+ipython", "eslint+eslint", "fastify+fastify", "typeorm+typeorm", "hashicorp+raft",
    "rust-lang+rust-analyzer", "jenkinsci+jenkins",
)
# The generalisation corpus (issue 39): repositories no rule was built from, each wholly part
# "fresh". A rule is judged by what it does here, repository by repository (scripts/generalisation.py),
# never tuned on them while it is being written; a rule found on one of them counts only on the others.
FRESH_REPOSITORIES = (
    "sympy+sympy", "scrapy+scrapy", "pydata+xarray", "dask+dask", "networkx+networkx",   # Python
    "pydantic+pydantic",
    "mozilla+pdf.js", "chartjs+Chart.js", "videojs+video.js", "hexojs+hexo",             # JavaScript
    "serverless+serverless", "socketio+socket.io", "Leaflet+Leaflet",
    "jupyterlab+jupyterlab", "angular+angular-cli", "typescript-eslint+typescript-eslint",  # TypeScript
    "excalidraw+excalidraw", "ReactiveX+rxjs", "apache+echarts", "NativeScript+NativeScript",
    "hashicorp+nomad", "gohugoio+hugo", "hashicorp+terraform", "grpc+grpc-go",           # Go
    "caddyserver+caddy",
    "tauri-apps+tauri", "nushell+nushell", "meilisearch+meilisearch",                    # Rust
    "alacritty+alacritty", "bevyengine+bevy", "starship+starship",
    "eclipse+jetty.project", "mockito+mockito", "eclipse-vertx+vert.x",                  # Java
    "apache+logging-log4j2", "alibaba+nacos",
    "prometheus-community+helm-charts",                                                  # YAML (Helm charts)
)
# A second generalisation part, "unseen": five repositories added after every rule above was
# written and measured, scored once as they came (docs/merge-precision.md, "Five unseen
# repositories"). Sampled like the fresh part; kept apart from it so its first reading stays its own.
UNSEEN_REPOSITORIES = (
    "marshmallow-code+marshmallow", "pallets+jinja",                                     # Python
    "serde-rs+json",                                                                     # Rust
    "urfave+cli",                                                                        # Go
    "sindresorhus+got",                                                                  # TypeScript
)
# Their sampling (both parts): at most 40 conflicted files per language and 120 in all per repository (so each
# language gets files from many repositories), 30 clean ones, and at most 1,000 merge commits looked at.
FRESH_LIMITS = {"max_conflicts": 120, "max_clean": 30, "per_merge": 3, "per_language": 40, "max_visits": 1000}
# The project's own held-out evaluation (issue 13): never mined here.
FORBIDDEN = {
    "pallets+flask", "pallets+werkzeug", "pallets+click", "expressjs+express", "remix-run+react-router",
    "apollographql+apollo-client", "prometheus+prometheus", "thanos-io+thanos", "tokio-rs+tokio",
    "rust-lang+cargo", "spring-projects+spring-boot", "apache+dubbo",
}


@dataclass(frozen=True)
class Case:
    """One file of one real merge commit."""

    repo: str            # repository name, as `owner+name`
    merge: str           # the merge commit id
    path: str
    language: str
    git_clean: bool      # git's line merge (diff3, libgit2's xdiff) of base/left/right is clean
    part: str            # "dev", "aside", "fresh" or "unseen"
    base: str            # blob ids
    left: str
    right: str
    result: str

    @property
    def name(self) -> str:
        return f"{self.repo}@{self.merge[:10]}:{self.path}"

    def read(self, which: str) -> bytes:
        """The bytes of one version: "base", "left", "right" or "result"."""
        return blob_path(getattr(self, which)).read_bytes()


@dataclass
class MineStats:
    merges: int = 0              # merge commits in the repository's history
    visited: int = 0             # of those, looked at before the bounds were met
    criss_cross: int = 0         # skipped: more than one merge base
    candidates: int = 0          # files both sides changed differently that a profile handles
    too_large: int = 0
    with_markers: int = 0        # an input or the committed result holds conflict markers
    missing: int = 0             # a version's blob is absent (a partial snapshot leaves large files out)
    seconds: float = 0.0
    by_part: dict[str, int] = field(default_factory=dict)


def blob_path(oid: str) -> Path:
    return CACHE / "blobs" / oid[:2] / oid[2:]


def repository_name(path: Path) -> str:
    """`owner+name` for a mirror folder (…/owner+name/repo), else the folder's own name."""
    path = path.resolve()
    if path.name in ("repo", ".git") and "+" in path.parent.name:
        return path.parent.name
    return path.name.removesuffix(".git")


def _aside_commit(sha: str) -> bool:
    return int(sha[:8], 16) % 5 == 0


def part_of(repo: str, sha: str) -> str:
    if repo in FRESH_REPOSITORIES:
        return "fresh"
    if repo in UNSEEN_REPOSITORIES:
        return "unseen"
    return "aside" if repo in ASIDE_REPOSITORIES or _aside_commit(sha) else "dev"


def default_repositories() -> list[Path]:
    """The corpus repositories present under MIRROR (dev and aside; `part` tells them apart)."""
    return [MIRROR / name / "repo" for name in DEV_REPOSITORIES + ASIDE_REPOSITORIES + FRESH_REPOSITORIES
            + UNSEEN_REPOSITORIES if (MIRROR / name / "repo").exists()]


def merge_commits(path: Path) -> list[tuple[str, str, str]]:
    """(merge, first parent, second parent) for every two-parent merge, oldest first."""
    command = ["git", "--git-dir" if _is_bare(path) else "-C", str(path), "rev-list", "--reverse",
               "--min-parents=2", "--max-parents=2", "--parents", "--branches", "--tags", "--glob=refs/pull/*/head"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return [tuple(line.split()) for line in out.splitlines() if line]  # type: ignore[misc]


def _is_bare(path: Path) -> bool:
    return not (path / ".git").exists()


def _merge_bases(path: Path, left: str, right: str) -> list[str]:
    command = ["git", "--git-dir" if _is_bare(path) else "-C", str(path), "merge-base", "--all", left, right]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done.stdout.split()


def _changed(repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree) -> dict[str, str]:
    """Paths modified in place between two trees (no adds, deletes or renames) -> new blob id."""
    out = {}
    for delta in old.diff_to_tree(new).deltas:
        if delta.status == pygit2.GIT_DELTA_MODIFIED and delta.new_file.mode in (0o100644, 0o100755):
            out[delta.new_file.path] = str(delta.new_file.id)
    return out


def _blob_at(tree: pygit2.Tree, path: str) -> str | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    return str(entry.id) if entry.type_str == "blob" else None


def _store(repo: pygit2.Repository, oid: str) -> bytes:
    data = repo[oid].data
    target = blob_path(oid)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        # One temporary name per process: two miners (the eval and this script) may store one blob at once.
        temporary = target.with_suffix(f".{os.getpid()}.part")
        temporary.write_bytes(data)
        temporary.replace(target)
    return data


_NOTES = ("changelog", "changes", "history", "news", "release", "releasenotes", "release-notes", "release_notes")
_CATALOG_FOLDERS = ("locale", "locales", "i18n", "l10n", "lang", "langs", "translations", "messages")


def profile_language(path: str) -> str | None:
    """`--files profiles` (the default): the language of a file a profile handles."""
    profile = profile_for_path(path)
    return profile.name if profile else None


def appendable_language(path: str) -> str | None:
    """`--files appendable`: the files every task appends to (issue 18 item 2), named by kind:
    grammars/append/kinds.toml's kinds, Markdown changelogs and release notes (`changelog-md`), and
    JSON/YAML message catalogs under a locale folder (`catalog-json`, `catalog-yaml`)."""
    kind = kind_for_path(path)
    if kind is not None:
        return kind.name
    parts = path.lower().split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    language = profile_language(path)
    if language == "markdown" and (stem in _NOTES or stem.startswith(_NOTES) or "changelog" in parts[:-1]):
        return "changelog-md"
    if language in ("json", "yaml") and any(part in _CATALOG_FOLDERS for part in parts[:-1]):
        return f"catalog-{language}"
    return None


LANGUAGE_OF = {"profiles": profile_language, "appendable": appendable_language}


def _usable(data: bytes) -> bool:
    return len(data) <= MAX_BYTES and data.count(b"\n") <= MAX_LINES and b"\x00" not in data[:8000]


def mine(path: Path, *, seed: int = 1, max_conflicts: int = 200, max_clean: int = 100, per_merge: int = 3,
         progress: Callable[[str], None] | None = None, files: str = "profiles",
         per_language: int | None = None, max_visits: int | None = None) -> tuple[list[Case], MineStats]:
    """Walk one repository's merge commits (module docstring) and return its cases; `files` says
    which files are cases (LANGUAGE_OF: those a profile handles, or the appended-to ones).
    `per_language` bounds the conflicted files of one language (so a repository's main language
    leaves room for its JSON, TOML and YAML); `max_visits` bounds the merge commits looked at (a
    history with few conflicts is otherwise walked whole)."""
    language_of = LANGUAGE_OF[files]
    name = repository_name(path)
    if name in FORBIDDEN:
        raise SystemExit(f"{name} is part of the project's held-out evaluation (issue 13): do not mine it")
    started = time.monotonic()
    repo = pygit2.Repository(str(path))
    merges = merge_commits(path)
    stats = MineStats(merges=len(merges))
    rng = random.Random(f"{seed}:{name}")
    order = list(merges)
    rng.shuffle(order)
    cases: list[Case] = []
    conflicts = clean = 0
    by_language: dict[str, int] = {}
    for sha, first, second in order:
        if conflicts >= max_conflicts and clean >= max_clean:
            break
        if max_visits is not None and stats.visited >= max_visits:
            break
        stats.visited += 1
        if progress and stats.visited % 500 == 0:
            progress(f"{name}: {stats.visited}/{len(merges)} merges, {conflicts} conflicted, {clean} clean files")
        base = repo.merge_base(first, second)
        if base is None:
            continue
        commits = [repo[str(base)], repo[first], repo[second], repo[sha]]
        trees = [commit.peel(pygit2.Tree) for commit in commits]
        left_changed = _changed(repo, trees[0], trees[1])
        if not left_changed:
            continue
        right_changed = _changed(repo, trees[0], trees[2])
        both = sorted(p for p in set(left_changed) & set(right_changed)
                      if left_changed[p] != right_changed[p] and language_of(p) is not None)
        if not both:
            continue
        if len(_merge_bases(path, first, second)) > 1:
            stats.criss_cross += 1
            continue
        found: dict[bool, list[Case]] = {True: [], False: []}
        for file in both:
            oids = [_blob_at(trees[0], file), left_changed[file], right_changed[file], _blob_at(trees[3], file)]
            if None in oids:
                continue
            stats.candidates += 1
            try:
                blobs = [repo[oid].data for oid in oids]  # type: ignore[index]
            except KeyError:
                stats.missing += 1
                continue
            if not all(_usable(data) for data in blobs):
                stats.too_large += 1
                continue
            if any(has_markers(data, 7) for data in blobs):
                stats.with_markers += 1
                continue
            language = language_of(file)
            assert language is not None
            git_clean = line_merge(blobs[0], blobs[1], blobs[2]).clean
            found[git_clean].append(Case(repo=name, merge=sha, path=file, language=language, git_clean=git_clean,
                                         part=part_of(name, sha), base=oids[0], left=oids[1],  # type: ignore[arg-type]
                                         right=oids[2], result=oids[3]))  # type: ignore[arg-type]
        for git_clean, room in ((False, max_conflicts - conflicts), (True, max_clean - clean)):
            chosen = found[git_clean]
            if per_language is not None and not git_clean:
                room_of = {language: per_language - count for language, count in by_language.items()}
                kept = []
                for case in chosen:   # in path order: the seeded sample below stays the one draw per merge
                    if room_of.get(case.language, per_language) > 0:
                        room_of[case.language] = room_of.get(case.language, per_language) - 1
                        kept.append(case)
                chosen = kept
            if len(chosen) > per_merge:
                chosen = sorted(rng.sample(chosen, per_merge), key=lambda case: case.path)
            chosen = chosen[:max(room, 0)]
            for case in chosen:
                for oid in (case.base, case.left, case.right, case.result):
                    _store(repo, oid)
                stats.by_part[case.part] = stats.by_part.get(case.part, 0) + 1
            cases.extend(chosen)
            if not git_clean:
                for case in chosen:
                    by_language[case.language] = by_language.get(case.language, 0) + 1
            if git_clean:
                clean += len(chosen)
            else:
                conflicts += len(chosen)
    stats.seconds = round(time.monotonic() - started, 1)
    return cases, stats


def load_cases(paths: Iterable[Path], *, seed: int = 1, max_conflicts: int = 200, max_clean: int = 100,
               per_merge: int = 3, refresh: bool = False,
               progress: Callable[[str], None] | None = None, files: str = "profiles") -> Iterator[tuple[Case, ...]]:
    """The cases of each repository, from the cache when it was mined with the same parameters."""
    for path in paths:
        path = Path(path)
        limits = {"max_conflicts": max_conflicts, "max_clean": max_clean, "per_merge": per_merge}
        if repository_name(path) in FRESH_REPOSITORIES + UNSEEN_REPOSITORIES:
            limits.update(FRESH_LIMITS)
        params = {"version": MINER_VERSION, "seed": seed, **limits, "max_bytes": MAX_BYTES, "max_lines": MAX_LINES}
        if files != "profiles":
            params["files"] = files
        if not (path / "HEAD").exists() and not (path / ".git").exists():
            raise SystemExit(f"{path} is not a git repository: give a bare clone (git clone --bare URL) "
                             "or a working copy's folder (DEVELOPERS.md)")
        cache = CACHE / (f"{repository_name(path)}.json" if files == "profiles"
                         else f"{repository_name(path)}.{files}.json")
        if not refresh and cache.exists():
            stored = json.loads(cache.read_text())
            if stored.get("params") == params and all(blob_path(case[key]).exists() for case in stored["cases"]
                                                      for key in ("base", "left", "right", "result")):
                yield tuple(Case(**case) for case in stored["cases"])
                continue
        cases, stats = mine(path, seed=seed, progress=progress, files=files, **limits)
        if progress:
            progress(f"{repository_name(path)}: mined {len(cases)} files in {stats.seconds:g} s ({asdict(stats)})")
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"params": params, "stats": asdict(stats),
                                     "cases": [asdict(case) for case in cases]}, indent=1))
        yield tuple(cases)


def main() -> int:
    """Mine (or refresh) the cache and print what it holds: `python scripts/history_corpus.py [--repo PATH]...`."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--repo", action="append", type=Path, help="a repository (default: the corpus under MIRROR)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--refresh", action="store_true", help="mine again even when cached")
    args = parser.parse_args()
    paths = args.repo or default_repositories()
    for cases in load_cases(paths, seed=args.seed, refresh=args.refresh,
                            progress=lambda text: print(text, file=sys.stderr)):
        if cases:
            conflicted = sum(not case.git_clean for case in cases)
            print(f"{cases[0].repo:<36} {len(cases):>5} files, {conflicted:>4} git-conflicted, "
                  f"{sum(case.part == 'aside' for case in cases):>4} aside")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
