"""Texts the word scans are compared on against their statements (tests/merge/test_word_scans.py,
test_standing_words.py): every fixture and source file of this repository, and random bytes drawn
from an alphabet of the characters a scan treats apart plus any byte at all; and edits of the merge
engine's sources and of random lines, for the scans over a diff."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[2]


def repository_files() -> list[Path]:
    files = [path for folder in ("fixtures", "worktree_coord") for path in (ROOT / folder).rglob("*") if path.is_file()]
    assert len(files) > 500
    return files


def random_texts(alphabet: bytes, *, count: int = 5000, seed: int = 36) -> Iterator[bytes]:
    rnd = random.Random(seed)
    for _ in range(count):
        yield bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40)))
        yield bytes(rnd.randint(0, 255) for _ in range(rnd.randint(0, 60)))


def edited_sources(edit: Callable[[bytes, random.Random], bytes], *, per_file: int = 3,
                   seed: int = 36) -> Iterator[tuple[Path, bytes, bytes]]:
    """(path, its text, an edit of it: `edit(text, rnd)`) for each source file of the merge engine,
    `per_file` edits each: a scan over a diff compared with its statement on real code."""
    rnd = random.Random(seed)
    files = sorted((ROOT / "worktree_coord" / "merge").rglob("*.py"))
    assert len(files) > 50
    for path in files:
        data = path.read_bytes()
        for _ in range(per_file):
            yield path, data, edit(data, rnd)


def random_line_edits(parts: list[bytes], *, count: int, lines: int, keep: float,
                      seed: int = 36) -> Iterator[tuple[bytes, bytes]]:
    """(base, new) texts of 1 to `lines` lines made of `parts`, each line kept with probability
    `keep` and otherwise drawn again."""
    rnd = random.Random(seed)

    def line() -> bytes:
        return b"".join(rnd.choice(parts) for _ in range(rnd.randint(0, 6)))
    for _ in range(count):
        base = [line() for _ in range(rnd.randint(1, lines))]
        yield b"\n".join(base), b"\n".join(old if rnd.random() < keep else line() for old in base)
