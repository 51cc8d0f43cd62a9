"""Texts the word scans are compared on against their statements (tests/merge/test_word_scans.py,
test_standing_words.py): every fixture and source file of this repository, and random bytes drawn
from an alphabet of the characters a scan treats apart plus any byte at all."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Iterator

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
