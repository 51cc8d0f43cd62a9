"""The intent: one structured, key-level change a task wants made to a reserved manifest.

Stage: data model shared by every other consolidation stage (derive -> plan -> graph -> apply).
Input: nothing (plain values). Output: frozen, hashable `Intent` values with a JSON round-trip.
Invariants:
- `name` is already normalized for its ecosystem (PEP 503 for Python, the dependency key/alias for
  Cargo, the module path for Go), so two intents about one package always compare equal on `key`.
- `expected_before` is the value the task saw at its base, encoded by `manifests.encode_value`
  (None = the key was absent); consolidation compares it against the current manifest
  (compare-and-swap) before applying anything.
- `to_json` / `from_json` round-trip exactly (`Intent.from_json(i.to_json()) == i`).
"""

from __future__ import annotations

import enum
import json
from dataclasses import field, fields
from typing import Any

from worktree_coord.errors import UsageError

from ..frozen import value_class


class Ecosystem(str, enum.Enum):
    NPM = "npm"
    PNPM = "pnpm"
    YARN = "yarn"
    BUN = "bun"
    CARGO = "cargo"
    UV = "uv"
    POETRY = "poetry"
    PIP_TOOLS = "pip-tools"
    GO = "go"
    PIXI = "pixi"
    MAVEN = "maven"
    GRADLE = "gradle"


class Op(str, enum.Enum):
    ADD_DEP = "add_dep"
    REMOVE_DEP = "remove_dep"
    SET_SPEC = "set_spec"              # change spec/source/extras/features of an existing dependency
    BUMP_VERSION = "bump_version"      # the package's own version (name = the package name)
    ADD_MEMBER = "add_member"          # a workspace member path or glob (name = that path/glob)
    REMOVE_MEMBER = "remove_member"
    SET_OVERRIDE = "set_override"      # npm overrides, uv override-dependencies, go replace, pnpm overrides
    REMOVE_OVERRIDE = "remove_override"
    SET_RUNTIME = "set_runtime"        # requires-python, the go directive, poetry's python
    SET_KEY = "set_key"                # any other key of a root manifest (name = its dotted key path, spec = JSON)
    REMOVE_KEY = "remove_key"
    RELOCK = "relock"                  # "the lockfile of this root needs regeneration" (no manifest edit)


# Ops that put a value at their key; the others take it away (or only ask for a relock).
SETTING_OPS = frozenset({Op.ADD_DEP, Op.SET_SPEC, Op.BUMP_VERSION, Op.ADD_MEMBER, Op.SET_OVERRIDE, Op.SET_RUNTIME,
                         Op.SET_KEY})
REMOVING_OPS = frozenset({Op.REMOVE_DEP, Op.REMOVE_MEMBER, Op.REMOVE_OVERRIDE, Op.REMOVE_KEY})


def _freeze_source(source: Any) -> tuple[tuple[str, Any], ...] | None:
    if source is None:
        return None
    if isinstance(source, tuple):
        return tuple(sorted(source))
    if isinstance(source, dict):
        return tuple(sorted((str(k), v if not isinstance(v, list) else tuple(v)) for k, v in source.items()))
    raise UsageError(f"intent source must be a mapping or None, got {source!r}")


@value_class
class Intent:
    """One change to one key of one reserved manifest (or a relock request for a root).

    `source` is a sorted tuple of (key, value) pairs, e.g. (("workspace", True),) or
    (("path", "../a"),); `features` (Cargo) and `extras` (Python) are sorted tuples; `markers` is
    the PEP 508 marker text. `priority`: higher wins when a cycle forces a rejection.
    """

    intent_id: str
    task: str
    ecosystem: Ecosystem
    root: str                          # repo-relative dir owning the lockfile ("" = repo root)
    manifest: str                      # repo-relative manifest path the edit targets
    op: Op
    group: str = ""
    name: str = ""
    spec: str | None = None
    member: str | None = None          # repo-relative dir of the member the manifest belongs to (None = root)
    source: tuple[tuple[str, Any], ...] | None = None
    extras: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    markers: str | None = None
    package: str | None = None         # Cargo: the real crate name when `name` is an alias
    options: tuple[tuple[str, Any], ...] = ()   # other attributes carried as-is (optional, default-features, ...)
    # Where the task wrote a new dependency, and how: `after` (the entries before it in its array or
    # table, nearest first, up to one its base had), `before` (likewise the entries after it) and,
    # for a PEP 508 array, `text` (the requirement as the task spelled it). Layout, not value: not
    # compared (a declared intent equals the derived one), never read back (edits/placement.py).
    placement: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    expected_before: str | None = None
    base_commit: str = ""
    rationale: str = ""
    priority: int = 0

    def __post_init__(self) -> None:
        # Accept plain strings/lists/dicts from callers and JSON; store canonical frozen forms.
        object.__setattr__(self, "ecosystem", Ecosystem(self.ecosystem))
        object.__setattr__(self, "op", Op(self.op))
        object.__setattr__(self, "source", _freeze_source(self.source))
        object.__setattr__(self, "extras", tuple(sorted(self.extras)))
        object.__setattr__(self, "features", tuple(sorted(self.features)))
        object.__setattr__(self, "options", _freeze_source(self.options) or ())
        object.__setattr__(self, "placement", _freeze_source(self.placement) or ())

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The grouping key of conflict detection: (ecosystem, root, manifest, group, name)."""
        return (self.ecosystem.value, self.root, self.manifest, self.group, self.name)

    @property
    def root_key(self) -> tuple[str, str]:
        return (self.ecosystem.value, self.root)

    def summary(self) -> str:
        """The change in a few words, as every consolidation output names an applied intent: its op,
        its key and what it sets (`set_spec serde 1.0.200`, `set_spec -e .[cli,zstd]`)."""
        what = self.name + (f"[{','.join(self.extras)}]" if self.extras else "")
        if self.spec and self.spec != self.name:
            # a pom.xml element carried whole (a new profile) reads as the task wrote it, not as its JSON
            written = dict(self.options).get("xml")
            what += f" {_spec_words(json.dumps(written) if isinstance(written, str) else self.spec)}"
        if self.features:
            what += f" features [{', '.join(self.features)}]"
        shown = {k: v for k, v in (self.source_dict() or {}).items() if k != "location"}
        if shown:
            what += " (" + ", ".join(f"{k} {v}" for k, v in shown.items()) + ")"
        if self.markers:
            what += f"; {self.markers}"
        if self.op == Op.RELOCK:
            return f"relock for {self.manifest}" + (f" ({self.rationale})" if self.rationale else "")
        if self.op in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP) and self.group not in _MAIN_GROUPS:
            what += f" [{self.group}]"      # an extra, a dev group, dependencyManagement: say which
        return f"{self.op.value} {what}"

    def source_dict(self) -> dict[str, Any] | None:
        return None if self.source is None else {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.source}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, enum.Enum):
                value = value.value
            elif f.name == "source":
                value = self.source_dict()
            elif f.name in ("options", "placement"):
                value = {k: (list(v) if isinstance(v, tuple) else v) for k, v in getattr(self, f.name)}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> "Intent":
        if isinstance(data, str):
            data = json.loads(data)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise UsageError(
                f"unknown intent field(s): {', '.join(sorted(unknown))}",
                fix=f"use only: {', '.join(sorted(known))}",
            )
        try:
            return cls(**data)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"malformed intent {data.get('intent_id', '?')!r}: {exc}") from exc


# The main dependency group of each manifest format: a summary names any other.
_MAIN_GROUPS = frozenset({"dependencies", "requirements", "require", "catalog", "libraries"})


def _spec_words(spec: str) -> str:
    """A spec as a summary shows it: a block of several lines (a pom.xml's `<plugin>`, carried as
    JSON text) by its first line and its size, a long one by its start; the file holds it all."""
    try:
        value = json.loads(spec)
    except ValueError:
        value = None
    if isinstance(value, str) and value.strip().count("\n"):
        lines = value.strip().splitlines()
        return f"{lines[0].strip()} ... ({len(lines)} lines)"
    return spec if len(spec) <= 72 else spec[:68] + " ..."


@value_class
class DepValue:
    """What a manifest says about one dependency key, in a form comparable across spellings."""

    spec: str | None = None
    source: tuple[tuple[str, Any], ...] | None = None
    extras: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    markers: str | None = None
    package: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    raw: str = field(default="", compare=False)   # the canonical encoding (see manifests.encode_value)
    # The spec as the manifest writes it, where `spec` is a normalized form of it (PEP 508 strings:
    # packaging sorts `>=1.0.9,<2` into `<2,>=1.0.9`). Not compared: one spec written two ways is
    # one value; an intent carries this text so consolidation writes what the task wrote.
    written: str | None = field(default=None, compare=False)
    # A PEP 508 entry's whole text as the manifest writes it (`"tomli >= 2.0; python_version < '3.11'"`);
    # not compared either: an intent carries it so consolidation writes the entry as the task did.
    text: str | None = field(default=None, compare=False)

    @property
    def spec_text(self) -> str | None:
        """The spec as written in the manifest."""
        return self.written if self.written is not None else self.spec
