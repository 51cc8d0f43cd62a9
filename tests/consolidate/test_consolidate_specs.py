"""The range algebra against reference implementations: npm's own semver (run with node) and packaging."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.specs import Relation, compare, satisfies

NPM_RANGES = [
    "^1.2.3", "^1.2", "^1", "^0.2.3", "^0.0.3", "^0.0", "^0.x", "~1.2.3", "~1.2", "~1", "~0.2.3", "1.2.x", "1.x",
    "*", "", "1.2.3", "=1.2.3", "v1.2.3", ">1.2.3", ">=1.2.3", "<1.2.3", "<=1.2.3", ">1.2", "<=1.2", ">=1.2 <2",
    ">= 1.2.0 < 2.0.0", "1.2.3 - 2.3.4", "1.2 - 2", "1.2.3 - 2.3", "^1.2.0 || ^2.1.0", "~1.2.0 || >=3",
    "<1 || >=2 <3", ">2 <1", "^2", "^3.1.0", "1.2.3 || 1.2.5", "x", "1.X", "~> 1.2",
]
NPM_VERSIONS = ["0.0.0", "0.0.3", "0.0.4", "0.1.0", "0.2.3", "0.2.9", "0.3.0", "1.0.0", "1.2.0", "1.2.2", "1.2.3",
                "1.2.4", "1.2.5", "1.2.99", "1.3.0", "1.9.9", "2.0.0", "2.1.0", "2.3.4", "2.3.5", "2.4.0", "2.99.0",
                "3.0.0", "3.1.0", "4.0.0"]


def npm_semver() -> Path | None:
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        return None
    candidate = Path(npm).resolve().parent.parent / "node_modules" / "semver"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="module")
def node_oracle():
    semver = npm_semver()
    assert semver is not None, "npm's bundled semver module is expected next to npm on this machine"

    def ask(script: str, payload) -> list:
        done = subprocess.run(["node", "-e", f"const s=require({json.dumps(str(semver))});"
                               f"const d=JSON.parse(require('fs').readFileSync(0,'utf8'));{script}"],
                              input=json.dumps(payload), capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    return ask


def test_npm_satisfies_matches_npms_own_semver(node_oracle):
    pairs = [(v, r) for r in NPM_RANGES for v in NPM_VERSIONS]
    expected = node_oracle("console.log(JSON.stringify(d.map(([v,r])=>s.satisfies(v,r))))", pairs)
    ours = [satisfies(Ecosystem.NPM, v, r) for v, r in pairs]
    mismatches = [(v, r, o, e) for (v, r), o, e in zip(pairs, ours, expected) if o != e]
    assert mismatches == [], "\n".join(map(str, mismatches))


def test_npm_relations_match_npms_own_semver_on_every_release_version_of_a_grid(node_oracle):
    # npm's `subset`/`intersects` also weigh pre-releases (`<1.2.3` admits `0.0.0-0`, `*` does not);
    # consolidation only decides release versions, so the oracle is membership over a dense grid
    # of releases that covers every bound in NPM_RANGES.
    grid = [f"{a}.{b}.{c}" for a in range(6) for b in range(6) for c in range(6)]
    table = node_oracle("console.log(JSON.stringify(d.ranges.map(r=>d.grid.map(v=>s.satisfies(v,r)))))",
                        {"ranges": NPM_RANGES, "grid": grid})
    members = {r: frozenset(v for v, ok in zip(grid, row) if ok) for r, row in zip(NPM_RANGES, table)}
    mismatches = []
    for a, b in itertools.product(NPM_RANGES, repeat=2):
        sa, sb = members[a], members[b]
        want = (Relation.EQUAL if sa == sb else Relation.DISJOINT if not sa & sb else Relation.SUBSET if sa < sb
                else Relation.SUPERSET if sb < sa else Relation.OVERLAP)
        got = compare(Ecosystem.NPM, a, b)
        if got != want:
            mismatches.append((a, b, got.value, want.value))
    assert mismatches == [], "\n".join(map(str, mismatches))


def test_specs_outside_the_decided_syntax_are_unknown_never_guessed():
    for spec in ("latest", "next", "git+https://example.invalid/x.git", "file:../x", "npm:other@^1",
                 "^1.2.3-beta.1", "workspace:*"):
        assert compare(Ecosystem.NPM, spec, "^1.0.0") == Relation.UNKNOWN
        assert compare(Ecosystem.NPM, spec, spec) == Relation.EQUAL
    assert compare(Ecosystem.UV, "===1.0", ">=1") == Relation.UNKNOWN


versions = st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(0, 4), st.integers(0, 4), st.integers(0, 4))
pep440_ops = st.sampled_from(["==", "!=", ">=", ">", "<=", "<", "~="])
pep440_specs = st.lists(st.tuples(pep440_ops, versions), min_size=1, max_size=3).map(
    lambda items: ",".join(f"{op}{v}" for op, v in items))


@settings(max_examples=300, deadline=None)
@given(spec=pep440_specs, version=versions)
def test_pep440_satisfies_matches_packaging(spec, version):
    assert satisfies(Ecosystem.UV, version, spec) == SpecifierSet(spec).contains(Version(version), prereleases=True)


@settings(max_examples=200, deadline=None)
@given(a=pep440_specs, b=pep440_specs)
def test_pep440_relations_agree_with_membership_on_sample_versions(a, b):
    relation = compare(Ecosystem.UV, a, b)
    sample = [f"{x}.{y}.{z}" for x in range(6) for y in range(6) for z in range(6)]
    in_a = {v for v in sample if SpecifierSet(a).contains(v, prereleases=True)}
    in_b = {v for v in sample if SpecifierSet(b).contains(v, prereleases=True)}
    if relation == Relation.DISJOINT:
        assert not in_a & in_b
    if relation in (Relation.SUBSET, Relation.EQUAL):
        assert in_a <= in_b
    if relation in (Relation.SUPERSET, Relation.EQUAL):
        assert in_b <= in_a


@pytest.mark.parametrize("spec, inside, outside", [
    ("1.2.3", ["1.2.3", "1.9.0"], ["2.0.0", "1.2.2"]),          # bare = caret in Cargo
    ("0.2.3", ["0.2.9"], ["0.3.0"]),
    ("=1.2", ["1.2.0", "1.2.7"], ["1.3.0"]),
    ("~1", ["1.9.9"], ["2.0.0"]),
    (">=1.0, <1.5", ["1.4.9"], ["1.5.0", "0.9.0"]),
    ("1.*", ["1.0.0", "1.99.0"], ["2.0.0"]),
    ("*", ["0.0.1", "9.0.0"], []),
])
def test_cargo_requirement_semantics(spec, inside, outside):
    assert all(satisfies(Ecosystem.CARGO, v, spec) for v in inside)
    assert not any(satisfies(Ecosystem.CARGO, v, spec) for v in outside)
