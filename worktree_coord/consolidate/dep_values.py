"""A dependency's value as consolidation compares it: the canonical text of a value (for the
compare-and-swap of intents), a value with that text kept, and a PEP 508 requirement read into one.

Below manifests.py (every manifest's model) and requirements_file.py (a requirements file's lines),
which both read requirements: neither imports the other for these.
"""

from __future__ import annotations

import json
import re
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from worktree_coord.consolidate.intent import DepValue
from worktree_coord.consolidate.textformat import ManifestParseError


def encode_value(value: DepValue | str | None) -> str | None:
    """The canonical text of a value for compare-and-swap: a bare spec when that is all there is."""
    if value is None or isinstance(value, str):
        return value
    parts: dict[str, Any] = {}
    for name in ("spec", "source", "extras", "features", "markers", "package", "options"):
        item = getattr(value, name)
        if item:
            parts[name] = dict(item) if name in ("source", "options") else item
    if set(parts) <= {"spec"}:
        return value.spec or ""      # "" = present without a constraint; None stays "absent"
    return json.dumps(parts, sort_keys=True, separators=(",", ":"), default=list)


def dep_value(**kwargs: Any) -> DepValue:
    value = DepValue(**kwargs)
    return DepValue(**{**kwargs, "raw": encode_value(value) or ""})


_REQUIREMENT_HEAD = re.compile(r"\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?\s*")


def written_specifier(text: str, req: Requirement) -> str | None:
    """The version specifier as the requirement `text` writes it (`>=1.0.9,<2`, where packaging's
    `str(req.specifier)` sorts it into `<2,>=1.0.9`); None when there is none or the text cannot be
    cut out so that it reads as the same specifier set."""
    if not req.specifier or req.url:
        return None
    head = text.split(";", 1)[0]
    match = _REQUIREMENT_HEAD.match(head)
    rest = head[match.end():].strip() if match else ""
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    try:
        return rest if SpecifierSet(rest) == req.specifier else None
    except InvalidSpecifier:
        return None


def pep508(text: str, path: str) -> tuple[str, DepValue]:
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        raise ManifestParseError(f"{path}: {text!r} is not a PEP 508 requirement: {exc}",
                                 fix=f"fix the requirement {text!r} in {path}") from exc
    spec = str(req.specifier) or None
    written = written_specifier(text, req)
    return canonicalize_name(req.name), dep_value(
        spec=spec,
        written=written if written != spec else None,
        text=text,
        source=(("url", req.url),) if req.url else None,
        extras=tuple(sorted(canonicalize_name(e) for e in req.extras)),
        markers=str(req.marker) if req.marker else None,
    )
