"""A profile's and its semantic rules' hash is computed once and kept (profiles._hash_kept): the
checks key their caches by them dozens of times a merge. The kept hash must be the dataclass's own:
equal objects hash alike, a changed copy is a new object with its own, and pickling never carries
a hash into another process (a string's hash is per process)."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys

from worktree_coord.merge.checks.semantic import semantic_profile


def test_kept_hash_is_the_dataclass_hash() -> None:
    profile = semantic_profile("pkg/mod.py")
    assert profile is not None
    first = hash(profile)
    assert hash(profile) == first   # kept: the same answer again
    same = dataclasses.replace(profile)
    assert same == profile and same is not profile and hash(same) == first
    other = dataclasses.replace(profile, name=profile.name + "-other")
    assert other != profile
    assert {profile: 1}.get(same) == 1 and other not in {profile: 1}
    rules = profile.semantic
    assert hash(rules) == hash(dataclasses.replace(rules))
    assert dataclasses.replace(rules, module_separator="::") != rules


def test_kept_hash_is_not_pickled() -> None:
    rules = semantic_profile("pkg/mod.py").semantic   # type: ignore[union-attr]
    hash(rules)
    data = pickle.dumps(rules)
    copy = pickle.loads(data)
    assert "_kept_hash" not in copy.__dict__ and copy == rules and hash(copy) == hash(rules)
    # In another process (another string hash seed) the copy hashes as that process's own equal rules.
    code = ("import pickle, sys; from worktree_coord.merge.checks.semantic import semantic_profile; "
            "rules = pickle.loads(sys.stdin.buffer.read()); own = semantic_profile('pkg/mod.py').semantic; "
            "print(hash(rules) == hash(own) and rules == own)")
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True,
                         env={"PYTHONHASHSEED": "12345", "PATH": ""})
    assert out.stdout.decode().strip() == "True"


def test_kept_hash_stays_after_the_first_hash() -> None:
    """The class's hash stays the kept one after a first hash compiled the dataclass's own (frozen's
    lazy methods put the compiled one in place of theirs, which dropped the kept-hash wrapper: every
    later hash of a profile walked all its fields again)."""
    profile = semantic_profile("pkg/mod.py")
    assert profile is not None
    for value in (profile, profile.semantic):
        fresh = dataclasses.replace(value)   # a new object: its first hash computes
        first = hash(fresh)
        assert "_hash_kept" in type(fresh).__hash__.__qualname__
        assert fresh.__dict__["_kept_hash"] == first
        # A kept value is what the next hash answers: the fields are not walked again.
        object.__setattr__(fresh, "_kept_hash", first + 1)
        assert hash(fresh) == first + 1
