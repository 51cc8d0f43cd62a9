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


def test_sha1_of_is_hashlibs_sha1_and_loads_openssl_only_past_a_megabyte() -> None:
    """digest.sha1_of (the merge index's blob ids and memo keys): hashlib's digest on each side of
    the switch; a process that hashed less than BULK_BYTES through it (a finish's merge) loads no
    OpenSSL, one that hashed more (a drain building the index) uses hashlib's faster SHA-1."""
    probe = ("import sys, os, hashlib as _h\n"
             "del sys.modules['hashlib'], sys.modules['_hashlib']\n"
             "from worktree_coord import digest\n"
             "samples = [b'', b'abc', b'blob 3\\0abc', os.urandom(4096)]\n"
             "small = [digest.sha1_of(d) for d in samples]\n"
             "loaded_small = {'hashlib', '_hashlib'} & set(sys.modules)\n"
             "big = os.urandom(digest.BULK_BYTES)\n"
             "after = [digest.sha1_of(big)] + [digest.sha1_of(d) for d in samples]\n"
             "assert small == [_h.sha1(d).digest() for d in samples]\n"
             "assert after == [_h.sha1(big).digest()] + small\n"
             "print(sorted(loaded_small), 'hashlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[]", "True"]
