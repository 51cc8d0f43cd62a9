"""How many versions of one package each package manager's lock holds: each manager's own fact.

Who asks: the single-version checks (planning.py at consolidation, check/workspace_ranges.py at a
finish) ask whether two ranges of one package, declared by two members a lock covers, must both be
met by one version. That is the package manager's rule, not a property of the ranges: uv resolves
one version per package across its whole workspace; npm, pnpm, Yarn and Bun nest another version
where ranges disagree; Cargo keeps one version per semver-compatible line (different majors
coexist); Go's minimal version selection takes the highest minimum. A manager is added here with
its rule, never as an `if` on its name in the code that asks. Import-light (the finish reads it).
"""

from __future__ import annotations

import enum

from worktree_coord.consolidate.intent import Ecosystem


class Versions(str, enum.Enum):
    """What one lock holds of one package."""

    ONE = "one"                # one version for every member and group the lock covers
    ONE_PER_MAJOR = "one_per_major"  # one per semver-compatible line: incompatible majors coexist
    NESTED = "nested"          # a member whose range the shared version misses gets its own copy
    HIGHEST_MINIMUM = "highest_minimum"  # a requirement is a minimum; the highest one is chosen
    ONE_PER_FILE = "one_per_file"  # each requirements file is compiled on its own
    ONE_PER_ENVIRONMENT = "one_per_environment"  # one per environment: features a manifest pins apart may differ
    NEAREST = "nearest"        # one per module's classpath: the declaration nearest the module wins


VERSIONS: dict[Ecosystem, Versions] = {
    Ecosystem.UV: Versions.ONE,
    Ecosystem.POETRY: Versions.ONE,
    Ecosystem.PIP_TOOLS: Versions.ONE_PER_FILE,
    Ecosystem.CARGO: Versions.ONE_PER_MAJOR,
    Ecosystem.NPM: Versions.NESTED,
    Ecosystem.PNPM: Versions.NESTED,
    Ecosystem.YARN: Versions.NESTED,
    Ecosystem.BUN: Versions.NESTED,
    Ecosystem.GO: Versions.HIGHEST_MINIMUM,
    Ecosystem.PIXI: Versions.ONE_PER_ENVIRONMENT,   # dask pins numpy =1.24 in one feature, =2.4 in another
    Ecosystem.GRADLE: Versions.HIGHEST_MINIMUM,   # Gradle's conflict resolution takes the highest requested
    Ecosystem.MAVEN: Versions.NEAREST,   # Maven's mediation: a module's own version, else its parent's managed one
}

_unruled = set(Ecosystem) - set(VERSIONS)
if _unruled:    # a manager without its rule would pass every check silently: refuse at start-up
    raise RuntimeError(f"version_rules.VERSIONS has no rule for {sorted(e.value for e in _unruled)}")


def ranges_must_meet(ecosystem: Ecosystem | str) -> bool:
    """Whether two members' ranges of one package under one lock must be met by one version, so
    that provably disjoint ranges cannot both stand."""
    return VERSIONS[Ecosystem(ecosystem)] is Versions.ONE
