"""Generate a synthetic monorepo quickly with `git fast-import`: PACKAGES x FILES small Python files
under packages/pNNN/src/subK/modJJJ.py, plus a root package.json; one commit on `main`.

Used by the benchmarks and stress scripts (not by unit tests).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def module_text(package: int, index: int) -> bytes:
    body = [f'"""Module {index} of package {package}."""', "", ""]
    for fn in range(3):
        body += [f"def f{fn}_{index}(x):", f"    return x * {fn + 1} + {package}", "", ""]
    return ("\n".join(body).rstrip() + "\n").encode()


def generate(path: Path, packages: int, files: int, *, checkout: bool = False) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    lines: list[bytes] = [b"commit refs/heads/main", b"mark :1",
                          b"author bench <bench@example.invalid> 1700000000 +0000",
                          b"committer bench <bench@example.invalid> 1700000000 +0000",
                          b"data 7", b"initial"]
    blobs: list[bytes] = []

    def inline(name: str, data: bytes) -> None:
        blobs.append(f"M 100644 inline {name}\n".encode() + f"data {len(data)}\n".encode() + data)

    inline("package.json", b'{\n  "name": "bench",\n  "workspaces": ["packages/*"]\n}\n')
    for p in range(packages):
        inline(f"packages/p{p:03d}/package.json", f'{{"name": "p{p:03d}", "version": "1.0.0"}}\n'.encode())
        for i in range(files - 1):
            inline(f"packages/p{p:03d}/src/sub{i % 10}/mod{i:03d}.py", module_text(p, i))
    stream = b"\n".join(lines) + b"\n" + b"\n".join(blobs) + b"\n"
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=stream, check=True)
    if checkout:
        subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True)
    else:
        subprocess.run(["git", "symbolic-ref", "HEAD", "refs/heads/main"], cwd=path, check=True)
    return path


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), checkout="--checkout" in sys.argv)
