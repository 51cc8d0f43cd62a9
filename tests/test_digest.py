"""digest.sha256 is hashlib's SHA-256 (the store's idempotency keys and the host's fingerprint are
compared across processes and versions): the same digests, and hashlib stays unloaded."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from worktree_coord.digest import sha256


def test_the_digests_are_hashlibs() -> None:
    for data in (b"", b"abc", "run r1\0task é".encode(), os.urandom(1000), b"x" * 100_000):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        assert sha256(data).digest() == hashlib.sha256(data).digest()
    grown = sha256(b"ab")
    grown.update(b"c")
    assert grown.hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_importing_it_loads_no_openssl() -> None:
    probe = ("import sys, worktree_coord.digest\n"
             "assert not {'hashlib', '_hashlib'} & set(sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", probe], check=True, env=dict(os.environ))
