"""SHA-256 and SHA-1 of small texts (idempotency keys, the host's fingerprint, trace ids; the cache
keys of the semantic check's query bounds) without `hashlib`.

`import hashlib` loads OpenSSL's libcrypto through `_hashlib` (3-6 ms on a quiet machine, tens under
load), and the store's keys and the host identity are computed on every `wtc` call. The interpreter
carries its own SHA-256 (`_sha2` from Python 3.12, `_sha256` before) and SHA-1 (`_sha1`), the modules hashlib itself falls
back to: same algorithm, same digests, loaded in a fraction of a millisecond (random.py does the
same for its sha512). Large or hot hashing (pack files) keeps hashlib: OpenSSL is faster per byte
(~6x with the CPU's SHA instructions). `sha1_of` serves both: blob ids and memo keys of the merge
index, a few kilobytes in a finish, many megabytes in a drain that builds the index.
"""

from __future__ import annotations

try:
    from _sha2 import sha256 as _sha256   # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256 as _sha256   # Python 3.11
    except ImportError:   # an interpreter built without them: hashlib's (OpenSSL's) is the same hash
        from hashlib import sha256 as _sha256

try:
    from _sha1 import sha1 as _sha1
except ImportError:   # as above
    from hashlib import sha1 as _sha1

sha256 = _sha256
"""`hashlib.sha256`'s constructor: `sha256(data).hexdigest()`, `.digest()`, `.update()`."""
sha1 = _sha1
"""`hashlib.sha1`'s constructor, likewise."""


BULK_BYTES = 1 << 20
"""What a process hashes through `sha1_of` with the interpreter's SHA-1 before it loads OpenSSL's:
~7 ms of CPU a megabyte against ~1, and hashlib's load costs ~3-6 ms."""
_hashed = 0


def sha1_of(data: bytes) -> bytes:
    """The SHA-1 digest of `data` (`hashlib.sha1(data).digest()`): by the interpreter's own SHA-1
    while this process has hashed at most BULK_BYTES through here (a finish's merge: its few
    files, no OpenSSL to load), then by hashlib's, faster per byte (a drain building an index). The
    same digest either way."""
    global _hashed
    _hashed += len(data)   # a count, not a lock: two threads at once only move the switch a little
    if _hashed <= BULK_BYTES:
        return _sha1(data).digest()
    import hashlib

    return hashlib.sha1(data).digest()
