"""Benchmark the left-behind look's module step (check/left_modules.py) against the names look alone.

Builds a CommonJS repository of FILES modules under lib/ (each requires two others by path and
calls what they export), of which IMPORTERS also `require('../utils/format-bytes.js')` by its path
alone, and a commit deleting lib/utils/format-bytes.js. Then times, each REPEAT times, the look a
`task finish` runs over that change (read at the parent commit):

  names     left_behind._broken_names: the removed-names look alone (what the look was before)
  full      left_behind._broken_uses: the names look and the module look (what it is now)

and prints the medians, the ratio full / names, and how many uses each found.

    python scripts/bench_left_modules.py [--files 2000] [--importers 200] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from worktree_coord.check import left_behind  # noqa: E402
from worktree_coord.gitrepo.repository import GitRepo  # noqa: E402

FORMAT_BYTES = "const formatBytes = (n) => `${n} B`\n\nmodule.exports = formatBytes\n"


def build(root: Path, files: int, importers: int) -> tuple[GitRepo, str, str]:
    """The repository, the commit holding every file, and its child deleting format-bytes.js."""
    (root / "lib/utils").mkdir(parents=True)
    (root / "lib/utils/format-bytes.js").write_text(FORMAT_BYTES)
    for i in range(files):
        a, b = (i + 1) % files, (i + 7) % files
        lines = [f"const {{ f{a} }} = require('./m{a}.js')", f"const {{ f{b} }} = require('./m{b}.js')"]
        if i < importers:
            lines.append("const fb = require('../utils/format-bytes.js')")
        lines += ["", f"const f{i} = (n) => f{a}(n) + f{b}(n){' + fb(n)' if i < importers else ''}", "",
                  f"module.exports = {{ f{i} }}", ""]
        path = root / "lib/m" / f"m{i}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines))
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b",
           "PATH": "/usr/bin:/bin"}
    run = lambda *args: subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)  # noqa: E731
    run("init", "-q", "-b", "main")
    run("add", "-A")
    run("commit", "-q", "-m", "base")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    run("rm", "-q", "lib/utils/format-bytes.js")
    run("commit", "-q", "-m", "delete format-bytes")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    return GitRepo(root), base, head


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--importers", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        git, base, head = build(Path(folder), args.files, args.importers)
        changes = git.changes(base, head)
        options = dict(at=None, max_changed=left_behind.MAX_CHANGED, ignore=frozenset(), folders_at=git.folders_at,
                       max_files=left_behind.MAX_FILES, partial=None)
        timings: dict[str, list[float]] = {"names": [], "full": []}
        found: dict[str, int] = {}
        for _ in range(args.repeat):
            for label in ("names", "full"):
                started = time.perf_counter()
                if label == "names":
                    result = left_behind._broken_names(changes, git.read_blob, base, git.files_mentioning, git.file_at,
                                                       **options)
                else:
                    result = left_behind._broken_uses(changes, git.read_blob, base, git.files_mentioning, git.file_at,
                                                      at=None, folders_at=git.folders_at)
                timings[label].append(time.perf_counter() - started)
                found[label] = len(result)
        names, full = (statistics.median(timings[label]) for label in ("names", "full"))
        print(f"{args.files} files, {args.importers} require the deleted module by path, {args.repeat} runs (medians)")
        print(f"  names  {names * 1000:8.1f} ms  ({found['names']} uses found)")
        print(f"  full   {full * 1000:8.1f} ms  ({found['full']} uses found: at most {left_behind.MAX_FILES} files read)")
        print(f"  ratio full / names: {full / names:.2f}")


if __name__ == "__main__":
    main()
