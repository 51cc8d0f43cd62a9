"""Version ranges as interval sets, to decide equal / nested / overlapping / disjoint specs.

Stage: conflict detection (used by `plan`) and verification (locked version satisfies spec).
Input: an ecosystem and spec text (npm/pnpm/yarn semver ranges, Cargo requirements, PEP 440
specifier sets, Go versions). Output: a `Relation` between two specs, membership of a version, or
whether two texts are one spec written two ways (`same_spec`, what an edit's read-back asks).
Invariants:
- a spec that is not plainly a range (git URLs, `workspace:`, tags, pre-release comparators,
  `===`) never yields a guess: relations involving it are EQUAL only on identical text and
  UNKNOWN otherwise, and callers turn UNKNOWN into a conflict;
- npm and Cargo versions are compared as (major, minor, patch) triples; `>1.2.3` is `>=1.2.4` and
  `<=1.2.3` is `<1.2.4` on that lattice, so every range is a union of half-open intervals;
- PEP 440 ranges use `packaging.version.Version` bounds with open/closed ends.
"""

from __future__ import annotations

import enum
import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from worktree_coord.consolidate.intent import Ecosystem

from ..frozen import value_class


class Relation(str, enum.Enum):
    EQUAL = "equal"
    SUBSET = "subset"          # a is strictly inside b
    SUPERSET = "superset"      # b is strictly inside a
    OVERLAP = "overlap"        # they share versions, neither holds the other
    DISJOINT = "disjoint"
    UNKNOWN = "unknown"


class Undecidable(ValueError):
    """The spec is outside the subset of syntax this module decides exactly."""


# An interval: (lo, lo_closed, hi, hi_closed); lo/hi None = unbounded.
Interval = tuple[Any, bool, Any, bool]
FULL: Interval = (None, True, None, True)


def _empty(iv: Interval) -> bool:
    lo, lc, hi, hc = iv
    if lo is None or hi is None:
        return False
    return lo > hi or (lo == hi and not (lc and hc))


def _intersect(a: Interval, b: Interval) -> Interval:
    alo, alc, ahi, ahc = a
    blo, blc, bhi, bhc = b
    if alo is None:
        lo, lc = blo, blc
    elif blo is None or alo > blo:
        lo, lc = alo, alc
    elif blo > alo:
        lo, lc = blo, blc
    else:
        lo, lc = alo, alc and blc
    if ahi is None:
        hi, hc = bhi, bhc
    elif bhi is None or ahi < bhi:
        hi, hc = ahi, ahc
    elif bhi < ahi:
        hi, hc = bhi, bhc
    else:
        hi, hc = ahi, ahc and bhc
    return (lo, lc, hi, hc)


def intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    return [iv for x in a for y in b if not _empty(iv := _intersect(x, y))]


def _complement(ivs: list[Interval]) -> list[Interval]:
    """The complement of a union of intervals (as a union of intervals)."""
    out: list[Interval] = [FULL]
    for lo, lc, hi, hc in ivs:
        pieces: list[Interval] = []
        if lo is not None:
            pieces.append((None, True, lo, not lc))
        if hi is not None:
            pieces.append((hi, not hc, None, True))
        out = intersect(out, pieces) if pieces else []
    return out


def is_empty(ivs: list[Interval]) -> bool:
    return not ivs


def contains(outer: list[Interval], inner: list[Interval]) -> bool:
    return is_empty(intersect(inner, _complement(outer)))


def relation(a: list[Interval], b: list[Interval]) -> Relation:
    if is_empty(intersect(a, b)):
        return Relation.DISJOINT
    a_in_b, b_in_a = contains(b, a), contains(a, b)
    if a_in_b and b_in_a:
        return Relation.EQUAL
    if a_in_b:
        return Relation.SUBSET
    if b_in_a:
        return Relation.SUPERSET
    return Relation.OVERLAP


# ---------------------------------------------------------------------------------- npm / Cargo

_PARTIAL = re.compile(r"^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$")


def _partial(text: str) -> tuple[int | None, int | None, int | None]:
    m = _PARTIAL.match(text)
    if not m:
        raise Undecidable(text)
    parts = [None if (p is None or p in "xX*") else int(p) for p in m.groups()]
    # A wildcard swallows everything after it ("1.x.3" means 1.x).
    for i, p in enumerate(parts):
        if p is None:
            parts[i + 1:] = [None] * (2 - i)
            break
    return parts[0], parts[1], parts[2]


def _closed_open(lo: tuple[int, int, int] | None, hi: tuple[int, int, int] | None) -> Interval:
    return (lo, True, hi, False)


def _span(p: tuple[int | None, int | None, int | None]) -> tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]:
    """The [lo, hi) covered by a partial version (1 -> [1.0.0, 2.0.0), 1.2.3 -> [1.2.3, 1.2.4))."""
    major, minor, patch = p
    if major is None:
        return None, None
    if minor is None:
        return (major, 0, 0), (major + 1, 0, 0)
    if patch is None:
        return (major, minor, 0), (major, minor + 1, 0)
    return (major, minor, patch), (major, minor, patch + 1)


def _caret(p: tuple[int | None, int | None, int | None]) -> Interval:
    major, minor, patch = p
    if major is None:
        return FULL
    lo = (major, minor or 0, patch or 0)
    if major > 0 or minor is None:
        hi = (major + 1, 0, 0)
    elif minor > 0 or patch is None:
        hi = (0, minor + 1, 0)
    else:
        hi = (0, 0, patch + 1)
    return _closed_open(lo, hi)


def _tilde(p: tuple[int | None, int | None, int | None]) -> Interval:
    major, minor, patch = p
    if major is None:
        return FULL
    if minor is None:
        return _closed_open((major, 0, 0), (major + 1, 0, 0))
    return _closed_open((major, minor, patch or 0), (major, minor + 1, 0))


def _comparator(op: str, version: str, *, bare_is_caret: bool) -> Interval:
    p = _partial(version)
    lo, hi = _span(p)
    if op in ("", "="):
        if op == "" and bare_is_caret:
            return _caret(p)
        return _closed_open(lo, hi) if lo is not None else FULL
    if op == "^":
        return _caret(p)
    if op in ("~", "~>"):
        return _tilde(p)
    if lo is None:   # ">=*" and friends: everything (or nothing for < *)
        return FULL if op in (">=", "<=") else (None, True, (0, 0, 0), False)
    if op == ">=":
        return (lo, True, None, True)
    if op == ">":
        return (hi, True, None, True)
    if op == "<":
        return (None, True, lo, False)
    if op == "<=":
        return (None, True, hi, False)
    raise Undecidable(op)


def _npm_simple_list(text: str) -> list[Interval]:
    """One `||` branch of an npm range: a hyphen range or space-separated comparators (AND)."""
    text = text.strip()
    hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", text)
    if hyphen:
        lo, _ = _span(_partial(hyphen.group(1)))
        _, hi = _span(_partial(hyphen.group(2)))
        return [_closed_open(lo or (0, 0, 0), hi)]
    if text in ("", "*", "x", "X"):
        return [FULL]
    result = [FULL]
    pos = 0
    for match in re.finditer(r"\s*(\^|~>|~|>=|<=|>|<|=)?\s*([^\s<>=^~]+)", text):
        op, version = match.group(1) or "", match.group(2)
        if "-" in version or "+" in version:
            raise Undecidable(text)          # pre-release / build metadata: not decided here
        result = intersect(result, [_comparator(op, version, bare_is_caret=False)])
        pos = match.end()
    if pos == 0:
        raise Undecidable(text)
    return result


def npm_intervals(spec: str) -> list[Interval]:
    spec = spec.strip()
    if spec.startswith("workspace:"):
        inner = spec[len("workspace:"):]
        if inner in ("*", "^", "~", ""):
            raise Undecidable(spec)
        spec = inner
    if re.search(r"[a-wyzA-WYZ:/#@]", spec.replace("v", "")):
        raise Undecidable(spec)              # tags, URLs, aliases, file: ...
    out: list[Interval] = []
    for branch in spec.split("||"):
        out.extend(_npm_simple_list(branch))
    return out


def cargo_intervals(spec: str) -> list[Interval]:
    result = [FULL]
    for part in spec.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\^|~|>=|<=|>|<|=)?\s*([0-9xX*][0-9A-Za-z.*]*)", part)
        if not m:
            raise Undecidable(spec)
        result = intersect(result, [_comparator(m.group(1) or "", m.group(2), bare_is_caret=True)])
    return result


# ---------------------------------------------------------------------------------------- PEP 440

def _prefix_upper(version: Version) -> Version:
    release = list(version.release)
    release[-1] += 1
    return Version(".".join(map(str, release)) + ".dev0")


def pep440_intervals(spec: str) -> list[Interval]:
    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier as exc:
        raise Undecidable(spec) from exc
    result = [FULL]
    for item in specifiers:
        op, text = item.operator, item.version
        try:
            if text.endswith(".*"):
                base = Version(text[:-2])
                lo, hi = Version(text[:-2] + ".dev0"), _prefix_upper(base)
                if op == "==":
                    ivs = [(lo, True, hi, False)]
                elif op == "!=":
                    ivs = [(None, True, lo, False), (hi, True, None, True)]
                else:
                    raise Undecidable(spec)
            else:
                v = Version(text)
                if op == "==":
                    ivs = [(v, True, v, True)]
                elif op == "!=":
                    ivs = [(None, True, v, False), (v, False, None, True)]
                elif op == ">=":
                    ivs = [(v, True, None, True)]
                elif op == ">":
                    ivs = [(v, False, None, True)]
                elif op == "<=":
                    ivs = [(None, True, v, True)]
                elif op == "<":
                    ivs = [(None, True, v, False)]
                elif op == "~=":
                    upper = Version(".".join(map(str, v.release[:-1])))
                    ivs = [(v, True, _prefix_upper(upper), False)]
                else:
                    raise Undecidable(spec)           # "===" arbitrary equality
        except InvalidVersion as exc:
            raise Undecidable(spec) from exc
        result = intersect(result, ivs)
    return result


# ------------------------------------------------------------------------------------------ Maven

_MAVEN_RANGE = re.compile(r"\s*([\[(])\s*([^,\])]*?)\s*(?:(,)\s*([^\])]*?)\s*)?([\])])\s*(?:,|$)")


def maven_version(text: str) -> tuple[tuple[int, Any], ...]:
    """A Maven version as a comparable key: its `.`/`-` items, numbers as numbers, trailing zeros
    dropped (Maven's `1.0` is `1`). Qualifiers (`-jre`, `-SNAPSHOT`) compare as text: enough to
    tell two versions apart, not to order them as Maven does, so a range never bounds one."""
    items = re.split(r"[.-]", text.strip())
    if not text.strip() or "" in items or "$" in text or "+" in text:     # `1.+`: Gradle's prefix
        raise Undecidable(text)
    key = [(0, int(item)) if item.isdigit() else (1, item.lower()) for item in items]
    while len(key) > 1 and key[-1] == (0, 0):
        key.pop()
    return tuple(key)


def _maven_bound(text: str) -> tuple[tuple[int, Any], ...]:
    key = maven_version(text)
    if any(kind for kind, _ in key):
        raise Undecidable(text)      # a qualifier's order against numbers is Maven's own rule
    return key


def maven_intervals(spec: str) -> list[Interval]:
    """A Maven version spec: a bare version (`2.10.1`: the version the module gets, unless a nearer
    declaration says otherwise) is that one version; a range (`[1.0,2.0)`, `(,1.0],[1.2,)`, `[1.5]`)
    its union of intervals; a property reference (`${guava.version}`) is not decided here."""
    text = spec.strip()
    if not text.startswith(("[", "(")):
        point = maven_version(text)
        return [(point, True, point, True)]
    out: list[Interval] = []
    at = 0
    while at < len(text):
        match = _MAVEN_RANGE.match(text, at)
        if match is None:
            raise Undecidable(spec)
        opening, low, comma, high, closing = match.groups()
        if not comma:                       # `[1.5]`: exactly that version
            point = _maven_bound(low)
            out.append((point, True, point, True))
        else:
            out.append((_maven_bound(low) if low else None, opening == "[",
                        _maven_bound(high) if high else None, closing == "]"))
        at = match.end()
    return out


# ------------------------------------------------------------------------------------------ facade

def _poetry_semver(ecosystem: Ecosystem, spec: str | None) -> bool:
    return ecosystem == Ecosystem.POETRY and bool(spec) and re.match(r"^\s*(\^|~(?!=)|\d)", spec or "") is not None


def _triples(ecosystem: Ecosystem, spec: str | None) -> bool:
    return ecosystem not in (Ecosystem.UV, Ecosystem.PIP_TOOLS, Ecosystem.POETRY)


def _as_versions(ivs: list[Interval]) -> list[Interval]:
    """Triple bounds as PEP 440 versions: Poetry's caret and tilde forms then compare with its PEP 440
    forms (`^1.2` is `>=1.2,<2.0`), instead of ordering a tuple against a Version (a TypeError)."""
    def point(p: Any) -> Any:
        return None if p is None else Version(".".join(map(str, p)))
    return [(point(lo), lc, point(hi), hc) for lo, lc, hi, hc in ivs]


def intervals(ecosystem: Ecosystem, spec: str | None) -> list[Interval]:
    if spec is None or spec == "":
        return [FULL]
    if ecosystem in (Ecosystem.NPM, Ecosystem.PNPM, Ecosystem.YARN, Ecosystem.BUN):
        return npm_intervals(spec)
    if ecosystem == Ecosystem.CARGO:
        return cargo_intervals(spec)
    if ecosystem in (Ecosystem.MAVEN, Ecosystem.GRADLE):     # Gradle reads Maven's version and range syntax
        return maven_intervals(spec)
    if _poetry_semver(ecosystem, spec):
        return _as_versions(cargo_intervals(spec))    # poetry's caret/tilde/bare-version semantics
    if ecosystem in (Ecosystem.UV, Ecosystem.PIP_TOOLS, Ecosystem.POETRY):
        return pep440_intervals(spec)
    raise Undecidable(spec)


def compare(ecosystem: Ecosystem, a: str | None, b: str | None) -> Relation:
    """How spec `a` relates to spec `b`; UNKNOWN whenever either is outside the decided syntax."""
    if a == b:
        return Relation.EQUAL
    try:
        return relation(intervals(ecosystem, a), intervals(ecosystem, b))
    except Undecidable:
        return Relation.UNKNOWN


PEP440_ECOSYSTEMS = (Ecosystem.UV, Ecosystem.PIP_TOOLS, Ecosystem.POETRY)


def same_spec(ecosystem: Ecosystem, a: str | None, b: str | None) -> bool:
    """Whether two spec texts say the same thing however each is written: identical (spaces at the
    ends aside), equal as PEP 440 specifier sets for Python (`>=1.0.9,==1.*` is `==1.*,>=1.0.9`, the
    order uv writes), else the same versions on the decided syntax (`>=1, <2` is `>=1,<2` in Cargo).
    The read-back of an edit asks this: a tool that words a spec its own way still wrote it."""
    if a is None or b is None:
        return a is b
    if a.strip() == b.strip():
        return True
    if ecosystem in PEP440_ECOSYSTEMS:
        try:
            return SpecifierSet(a) == SpecifierSet(b)
        except InvalidSpecifier:
            pass            # Poetry's caret and tilde forms: decided as ranges below
    return compare(ecosystem, a, b) == Relation.EQUAL


def conjunction(ecosystem: Ecosystem, a: str, b: str) -> str | None:
    """Both specs as one spec text, where the ecosystem's syntax has an AND; else None."""
    if ecosystem in (Ecosystem.NPM, Ecosystem.PNPM, Ecosystem.YARN, Ecosystem.BUN):
        return None if "||" in a or "||" in b else f"{a} {b}"
    if ecosystem in (Ecosystem.CARGO, Ecosystem.UV, Ecosystem.PIP_TOOLS):
        return f"{a}, {b}" if ecosystem == Ecosystem.CARGO else str(SpecifierSet(f"{a},{b}"))
    return None


def _version_point(ecosystem: Ecosystem, version: str, spec: str | None) -> Any:
    if ecosystem in (Ecosystem.MAVEN, Ecosystem.GRADLE):
        return maven_version(version)
    if not _triples(ecosystem, spec):
        return Version(version)
    m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", version)
    if not m:
        raise Undecidable(version)
    return tuple(int(x) for x in m.groups())


def satisfies(ecosystem: Ecosystem, version: str, spec: str | None) -> bool | None:
    """Whether `version` lies in `spec`; None when undecidable (pre-releases, tags, URLs)."""
    try:
        point = _version_point(ecosystem, version, spec)
        ivs = intervals(ecosystem, spec)
    except (Undecidable, InvalidVersion):
        return None
    for lo, lc, hi, hc in ivs:
        above = lo is None or point > lo or (point == lo and lc)
        below = hi is None or point < hi or (point == hi and hc)
        if above and below:
            return True
    return False


@value_class
class SpecDecision:
    relation: Relation
    chosen: str | None          # the spec to write when the intents can be merged
    warning: str = ""
