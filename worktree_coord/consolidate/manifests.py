"""Reserved files: which ones exist, and what a manifest says, as a comparable model.

Stage: reading. Input: a repo-relative path and the file's bytes. Output: `FileKind` (manifest or
lockfile, format, default ecosystem) and `ManifestModel` (dependencies keyed by (group, normalized
name), workspace members, own version, overrides, runtime versions).
Invariants:
- the same content written differently (key order, `Foo_Bar` vs `foo-bar`, `>=1,<2` vs `<2,>=1`)
  gives equal models, so the structural diff of `derive` only sees real changes; a spec keeps the
  text it is written in beside its normalized form (`DepValue.written`, not compared), so what a
  task wrote is what consolidation writes;
- reading is strict: duplicate keys and conflict markers raise `ManifestParseError`;
- `encode_value` is the one encoding of "the value at a key" used for compare-and-swap.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import field
from typing import Any

from packaging.utils import canonicalize_name

from worktree_coord.consolidate.dep_values import dep_value, encode_value, pep508, written_specifier  # noqa: F401 (re-exported)
from worktree_coord.consolidate.intent import DepValue, Ecosystem
from worktree_coord.consolidate.names import LOCKFILES, FileKind, classify_path  # noqa: F401 (re-exported)
from worktree_coord.consolidate.textformat import ManifestParseError, load_json, load_toml, load_yaml, plain

from ..frozen import value_class

NPM_GROUPS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
CARGO_GROUPS = ("dependencies", "dev-dependencies", "build-dependencies")


def normalize_name(ecosystem: Ecosystem, name: str) -> str:
    """The grouping name: PEP 503 for Python; everything else is case- and spelling-significant."""
    if ecosystem in (Ecosystem.UV, Ecosystem.POETRY, Ecosystem.PIP_TOOLS):
        return canonicalize_name(name)
    return name


def normalize_member(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/") or "."


def _pairs(mapping: dict[str, Any] | None) -> tuple[tuple[str, Any], ...] | None:
    if not mapping:
        return None
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in mapping.items()))


def inline_text(value: Any) -> str | None:
    """The text of a dependency written as a TOML inline table (`{ path = "../x", develop = true }`),
    as the file has it: the editor writes it back so when it still reads as the dependency, so a
    task's key order and spacing land as the task wrote them (the model's keys are sorted)."""
    from tomlkit.items import InlineTable

    return value.as_string().strip() if isinstance(value, InlineTable) else None


@value_class(frozen=False)
class ManifestModel:
    """Everything consolidation compares in one manifest. Keys of `deps` are (group, name)."""

    ecosystem: Ecosystem
    package_name: str | None = None
    version: str | None = None
    deps: dict[tuple[str, str], DepValue] = field(default_factory=dict)
    members: tuple[str, ...] = ()
    overrides: dict[str, str] = field(default_factory=dict)
    runtime: dict[str, str] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)   # uv [tool.uv.sources], by normalized name
    parent: str | None = None      # the package this manifest inherits from (Maven's <parent>)
    document: Any = field(default=None, compare=False, repr=False)     # the plain parsed file (setting intents read it)

    def dep_names(self) -> set[str]:
        return {name for (_, name) in self.deps}


# --------------------------------------------------------------------------------------------- npm

def npm_dep(spec: str) -> DepValue:
    spec = str(spec).strip()
    if spec.startswith("workspace:"):
        return dep_value(spec=spec, source=(("workspace", True),))
    if spec.startswith(("file:", "link:")):
        return dep_value(spec=spec, source=(("path", spec.split(":", 1)[1]),))
    if spec.startswith("npm:"):
        target = spec[4:]
        at = target.rfind("@")
        if at > 0:
            return dep_value(spec=target[at + 1:], package=target[:at])
        return dep_value(spec="*", package=target)
    if re.match(r"^(git\+|git:|github:|https?://|[\w.-]+/[\w.-]+(#.*)?$)", spec):
        return dep_value(spec=spec, source=(("git", spec),))
    return dep_value(spec=spec)


def read_package_json(path: str, data: bytes, ecosystem: Ecosystem = Ecosystem.NPM) -> ManifestModel:
    doc = load_json(path, data)
    if not isinstance(doc, dict):
        raise ManifestParseError(f"{path} must hold a JSON object", fix=f"make {path} a JSON object")
    model = ManifestModel(ecosystem, package_name=doc.get("name"), version=doc.get("version"), document=doc)
    for group in NPM_GROUPS:
        for name, spec in (doc.get(group) or {}).items():
            model.deps[(group, name)] = npm_dep(spec)
    workspaces = doc.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    model.members = tuple(normalize_member(m) for m in (workspaces or []))
    overrides: dict[str, Any] = {}
    overrides.update(doc.get("overrides") or {})
    overrides.update(doc.get("resolutions") or {})
    overrides.update((doc.get("pnpm") or {}).get("overrides") or {})
    model.overrides = {k: v if isinstance(v, str) else json.dumps(v, sort_keys=True) for k, v in overrides.items()}
    engines = doc.get("engines") or {}
    if isinstance(engines.get("node"), str):
        model.runtime["node"] = engines["node"]
    return model


# ------------------------------------------------------------------------------------------- Cargo

def cargo_dep(value: Any) -> DepValue:
    text, value = inline_text(value), plain(value)
    if isinstance(value, str):
        return dep_value(spec=value)
    if not isinstance(value, dict):
        raise ManifestParseError(f"a Cargo dependency must be a string or a table, got {value!r}")
    table = dict(value)
    spec = table.pop("version", None)
    source: dict[str, Any] = {}
    for key in ("path", "git", "rev", "branch", "tag", "registry", "workspace"):
        if key in table:
            source[key] = table.pop(key)
    package = table.pop("package", None)
    features = tuple(sorted(table.pop("features", []) or []))
    return dep_value(spec=spec, source=_pairs(source), features=features, package=package,
                     options=_pairs(table) or (), text=text)


def read_cargo_toml(path: str, data: bytes) -> ManifestModel:
    raw = load_toml(path, data)     # dependencies read from tomlkit's items: their text is kept
    doc = plain(raw)
    package = doc.get("package") or {}
    version = package.get("version")
    model = ManifestModel(Ecosystem.CARGO, package_name=package.get("name"),
                          version=version if isinstance(version, str) else None, document=doc)
    for group in CARGO_GROUPS:
        for name, value in (raw.get(group) or {}).items():
            model.deps[(group, name)] = cargo_dep(value)
    for cfg, table in (raw.get("target") or {}).items():
        for group in CARGO_GROUPS:
            for name, value in (table.get(group) or {}).items():
                model.deps[(f"target:{cfg}:{group}", name)] = cargo_dep(value)
    workspace = doc.get("workspace") or {}
    for name, value in ((raw.get("workspace") or {}).get("dependencies") or {}).items():
        model.deps[("workspace.dependencies", name)] = cargo_dep(value)
    model.members = tuple(normalize_member(m) for m in workspace.get("members") or [])
    for name, value in ((doc.get("patch") or {}).get("crates-io") or {}).items():
        model.overrides[name] = json.dumps(value, sort_keys=True)
    if isinstance(package.get("rust-version"), str):
        model.runtime["rust"] = package["rust-version"]
    return model


# ---------------------------------------------------------------------------------------- Python

def pep508_entries(items: Any, path: str) -> list[tuple[str, DepValue]]:
    """Each requirement string of a PEP 508 array with its key, in the array's order: the
    normalized name, or `name; marker` for a name the array holds more than once under different
    markers (those are keyed apart). What the model reads and what the editor places by."""
    parsed = [pep508(item, path) for item in (items or []) if isinstance(item, str)]
    counts: dict[str, int] = {}
    for name, _ in parsed:
        counts[name] = counts.get(name, 0) + 1
    return [(name if counts[name] == 1 or not value.markers else f"{name}; {value.markers}", value)
            for name, value in parsed]


def _add_pep508_array(model: ManifestModel, group: str, items: Any, path: str) -> None:
    for key, value in pep508_entries(items, path):
        model.deps[(group, key)] = value


def poetry_dep(value: Any) -> DepValue:
    text, value = inline_text(value), plain(value)
    if isinstance(value, str):
        return dep_value(spec=value)
    if isinstance(value, list):   # multiple-constraints form: carried whole
        return dep_value(spec=json.dumps(value, sort_keys=True))
    table = dict(value)
    spec = table.pop("version", None)
    source = {k: table.pop(k) for k in ("path", "git", "rev", "branch", "tag", "url", "develop", "source") if k in table}
    extras = tuple(sorted(canonicalize_name(e) for e in table.pop("extras", []) or []))
    markers = table.pop("markers", None)
    return dep_value(spec=spec, source=_pairs(source), extras=extras, markers=markers, options=_pairs(table) or (),
                     text=text)


def is_poetry(doc: dict[str, Any]) -> bool:
    poetry = (doc.get("tool") or {}).get("poetry") or {}
    return bool(poetry.get("dependencies") or poetry.get("group") or poetry.get("dev-dependencies"))


def read_pyproject(path: str, data: bytes, ecosystem: Ecosystem | None = None) -> ManifestModel:
    raw = load_toml(path, data)     # Poetry's dependencies read from tomlkit's items: their text is kept
    doc = plain(raw)
    project = doc.get("project") or {}
    tool = doc.get("tool") or {}
    poetry = tool.get("poetry") or {}
    uv = tool.get("uv") or {}
    if ecosystem is None:
        ecosystem = Ecosystem.POETRY if is_poetry(doc) else Ecosystem.UV
    name = project.get("name") or poetry.get("name")
    model = ManifestModel(ecosystem, package_name=canonicalize_name(name) if name else None,
                          version=project.get("version") or poetry.get("version"), document=doc)
    _add_pep508_array(model, "dependencies", project.get("dependencies"), path)
    for extra, items in (project.get("optional-dependencies") or {}).items():
        _add_pep508_array(model, f"optional:{canonicalize_name(extra)}", items, path)
    for group, items in (doc.get("dependency-groups") or {}).items():
        _add_pep508_array(model, f"group:{canonicalize_name(group)}", items, path)
    _add_pep508_array(model, "uv:dev-dependencies", uv.get("dev-dependencies"), path)
    # [tool.uv.sources] attaches a source to a name in every group of this manifest.
    for src_name, src in (uv.get("sources") or {}).items():
        norm = canonicalize_name(src_name)
        model.sources[norm] = src if isinstance(src, dict) else {"list": src}
        for key, value in list(model.deps.items()):
            if key[1] == norm:
                model.deps[key] = dep_value(spec=value.spec, source=_pairs(src if isinstance(src, dict) else {"list": src}),
                                            extras=value.extras, markers=value.markers, written=value.written,
                                            text=value.text)
    model.members = tuple(normalize_member(m) for m in (uv.get("workspace") or {}).get("members") or [])
    for item in uv.get("override-dependencies") or []:
        dep, value = pep508(item, path)
        # A bare spec as the override writes it (consolidation writes it back so); else the encoding.
        model.overrides[dep] = value.spec_text if value.raw and value.raw == value.spec else value.raw or item
    if isinstance(project.get("requires-python"), str):
        model.runtime["python"] = project["requires-python"]
    raw_poetry = (raw.get("tool") or {}).get("poetry") or {}
    for dep, value in (raw_poetry.get("dependencies") or {}).items():
        if dep.lower() == "python":
            model.runtime["python"] = plain(value) if isinstance(plain(value), str) else json.dumps(plain(value))
            continue
        model.deps[("dependencies", canonicalize_name(dep))] = poetry_dep(value)
    for dep, value in (raw_poetry.get("dev-dependencies") or {}).items():
        model.deps[("group:dev", canonicalize_name(dep))] = poetry_dep(value)
    for group, table in (raw_poetry.get("group") or {}).items():
        for dep, value in (table.get("dependencies") or {}).items():
            model.deps[(f"group:{canonicalize_name(group)}", canonicalize_name(dep))] = poetry_dep(value)
    return model


def read_requirements(path: str, data: bytes) -> ManifestModel:
    """requirements*.txt / requirements*.in: every line an entry (requirements_file.py), keyed
    ("requirements", name or location) or ("options", option)."""
    from worktree_coord.consolidate.requirements_file import entries
    from worktree_coord.consolidate.textformat import refuse_conflict_markers

    refuse_conflict_markers(path, data)
    model = ManifestModel(Ecosystem.PIP_TOOLS)
    for entry in entries(_decoded(path, data), path):
        model.deps[entry.key] = entry.value
    return model


def _decoded(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestParseError(f"{path} is not UTF-8 (byte {exc.start}), which consolidation reads requirements files as",
                                 fix=f"save {path} as UTF-8") from None


# -------------------------------------------------------------------------------------------- Go

def _go_directives(text: str) -> list[tuple[str, str]]:
    """(verb, argument line) for every directive, blocks `verb ( ... )` flattened."""
    out: list[tuple[str, str]] = []
    block: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if block is not None:
            if line == ")":
                block = None
            elif line and not line.startswith("//"):
                out.append((block, line))
            continue
        if not line or line.startswith("//"):
            continue
        verb, _, rest = line.partition(" ")
        rest = rest.strip()
        if rest == "(":
            block = verb
        else:
            out.append((verb, rest))
    return out


def read_go_mod(path: str, data: bytes) -> ManifestModel:
    from worktree_coord.consolidate.textformat import refuse_conflict_markers

    refuse_conflict_markers(path, data)
    model = ManifestModel(Ecosystem.GO)
    for verb, rest in _go_directives(data.decode("utf-8")):
        body = rest.partition("//")[0]
        words = body.split()
        if verb == "module" and words:
            model.package_name = words[0].strip('"')
        elif verb in ("go", "toolchain") and words:
            model.runtime[verb] = words[0]
        elif verb == "require" and len(words) >= 2:
            # `// indirect` markers are left out: `go mod tidy` owns them.
            model.deps[("require", words[0])] = dep_value(spec=words[1])
        elif verb == "replace" and "=>" in body:
            old, new = (part.strip() for part in body.split("=>", 1))
            model.overrides[old] = new
        elif verb == "use" and words:
            model.members += (normalize_member(words[0]),)
    return model


# ------------------------------------------------------------------------------------------- pixi

_PIXI_KINDS = ("dependencies", "pypi-dependencies", "host-dependencies", "build-dependencies")
_PIXI_PACKAGE_KINDS = ("run-dependencies", "host-dependencies", "build-dependencies")
# The tables of pixi.toml that hold dependencies keyed by name ("*": any feature or platform).
PIXI_DEPENDENCY_TABLES: tuple[tuple[str, ...], ...] = (
    *((kind,) for kind in _PIXI_KINDS),
    *(("target", "*", kind) for kind in _PIXI_KINDS),
    *(("feature", "*", kind) for kind in _PIXI_KINDS),
    *(("feature", "*", "target", "*", kind) for kind in _PIXI_KINDS),
    *(("package", kind) for kind in _PIXI_PACKAGE_KINDS),
    *(("package", "target", "*", kind) for kind in _PIXI_PACKAGE_KINDS),
)
_PIXI_SOURCE_KEYS = ("path", "git", "url", "rev", "branch", "tag")


def _tables_at(doc: Any, pattern: tuple[str, ...], at: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict]]:
    """Every table of `doc` whose key path matches `pattern` ("*" matches any one key), with its path."""
    if not pattern:
        return [(at, doc)] if isinstance(doc, dict) else []
    if not isinstance(doc, dict):
        return []
    head, rest = pattern[0], pattern[1:]
    keys = list(doc) if head == "*" else [head] if head in doc else []
    return [found for key in keys for found in _tables_at(doc[key], rest, (*at, key))]


def pixi_dep(value: Any) -> DepValue:
    """A pixi dependency: a version spec (conda's match-spec, or PEP 440 for a PyPI one), or a table
    of its version, its source (path, git, url) and other attributes (channel, build, extras...)."""
    text, value = inline_text(value), plain(value)
    if isinstance(value, str):
        return dep_value(spec=value)
    if not isinstance(value, dict):
        raise ManifestParseError(f"a pixi dependency must be a string or a table, got {value!r}")
    table = dict(value)
    spec = table.pop("version", None)
    source = {key: table.pop(key) for key in _PIXI_SOURCE_KEYS if key in table}
    return dep_value(spec=spec, source=_pairs(source), options=_pairs(table) or (), text=text)


def read_pixi_toml(path: str, data: bytes) -> ManifestModel:
    """pixi.toml: each dependency keyed by (its table's dotted key path, its name), e.g.
    ("feature.test.dependencies", "pytest"); every other key is a setting."""
    from worktree_coord.consolidate.settings import key_text

    raw = load_toml(path, data)     # dependencies read from tomlkit's items: their text is kept
    doc = plain(raw)
    package = doc.get("package") if isinstance(doc.get("package"), dict) else {}
    workspace = doc.get("workspace") or doc.get("project") or {}
    model = ManifestModel(Ecosystem.PIXI, package_name=package.get("name") or workspace.get("name"), document=doc)
    for pattern in PIXI_DEPENDENCY_TABLES:
        for at, table in _tables_at(raw, pattern):
            for name, value in table.items():
                model.deps[(key_text(at), name)] = pixi_dep(value)
    return model


# ------------------------------------------------------------------------------------------ Maven

def read_pom(path: str, data: bytes) -> ManifestModel:
    """pom.xml: each dependency keyed by ("dependencies" or "dependencyManagement", its
    groupId:artifactId[:type[:classifier]]), its version the spec (`${guava.version}` as written) and
    scope, optional and exclusions its options; `<modules>` the members; the project's `<version>`;
    each `<properties>` entry a setting `properties.NAME`, each plugin of `<build>` a setting
    `build.plugins."groupId:artifactId"` (`build.pluginManagement.plugins...` likewise), each
    `<profile>` by its id (`profiles."ci".dependencies."g:a"`, `profiles."ci".build.plugins...`, any
    other child of it whole) and every other child of `<build>` and top-level element (`<parent>`) a
    setting carried whole, as written."""
    from worktree_coord.consolidate.pom import build_document, element_text, profiles_document, read_facts

    facts = read_facts(path, data)
    data = facts.text                  # the file as UTF-8, whatever it is written in
    document: dict[str, Any] = {}      # in the file's order: a new element's neighbour is read from it
    for element in facts.root.children:
        if element.name == "build":
            document["build"] = build_document(data, element)     # plugins key by key
        elif element.name == "profiles":
            document["profiles"] = profiles_document(data, element)   # by id, their dependencies key by key
        elif element.name in facts.others:
            document[element.name] = element_text(data, element)
        elif element.name == "properties":
            document["properties"] = {name: found.text.strip() for name, found in facts.properties.items()}
    model = ManifestModel(Ecosystem.MAVEN, package_name=facts.coordinates, version=facts.version,
                          members=tuple(normalize_member(m) for m in facts.modules), parent=facts.parent,
                          document=document)
    for group, found in facts.dependencies.items():
        for key, dependency in found.items():
            model.deps[(group, key)] = dep_value(spec=dependency.version, options=dependency.options,
                                                 text=element_text(data, dependency.element))
    return model


# ----------------------------------------------------------------------------------------- Gradle

GRADLE_CATALOG_GROUPS = ("libraries", "plugins")


def gradle_catalog_entry(group: str, value: Any) -> DepValue:
    """A library or plugin of a Gradle version catalog, however it is written: `"g:a:1.0"`,
    `{ module = "g:a", version = "1.0" }`, `{ group = "g", name = "a", version.ref = "x" }` (one
    value: the version the spec, the module or plugin id and a `version.ref` the options)."""
    value = plain(value)
    if isinstance(value, str):
        if group == "plugins":
            return dep_value(spec=None, options=(("id", value),))
        parts = value.split(":")
        if len(parts) not in (2, 3):
            raise ManifestParseError(f"a Gradle catalog library must be group:name[:version], got {value!r}")
        return dep_value(spec=parts[2] if len(parts) == 3 else None, options=(("module", ":".join(parts[:2])),))
    if not isinstance(value, dict):
        raise ManifestParseError(f"a Gradle catalog entry must be a string or a table, got {value!r}")
    table = dict(value)
    if "group" in table and "name" in table:
        table["module"] = f"{table.pop('group')}:{table.pop('name')}"
    version = table.pop("version", None)
    spec = version if isinstance(version, str) else None
    if isinstance(version, dict):     # version.ref = "x", or a rich version { strictly, prefer, ... }
        table.update({f"version.{key}": item for key, item in version.items()})
    return dep_value(spec=spec, options=_pairs(table) or ())


def read_gradle_catalog(path: str, data: bytes) -> ManifestModel:
    """gradle/libs.versions.toml: each `[libraries]` and `[plugins]` entry keyed by (its table, its
    alias); `[versions]` and `[bundles]` are settings, key by key."""
    parsed = load_toml(path, data)
    doc = plain(parsed)
    model = ManifestModel(Ecosystem.GRADLE, document=doc)
    for group in GRADLE_CATALOG_GROUPS:
        for alias, value in (doc.get(group) or {}).items():
            entry = gradle_catalog_entry(group, value)
            # the value as written (`"g:a:1.0"` or its inline table): what consolidation writes back
            text = parsed[group][alias].as_string().strip()
            model.deps[(group, alias)] = dataclasses.replace(entry, text=text)
    return model


# ------------------------------------------------------------------------------------------- pnpm

def read_pnpm_workspace(path: str, data: bytes) -> ManifestModel:
    doc = load_yaml(path, data) or {}
    model = ManifestModel(Ecosystem.PNPM, document=doc)
    model.members = tuple(normalize_member(m) for m in doc.get("packages") or [])
    for name, spec in (doc.get("catalog") or {}).items():
        model.deps[("catalog", name)] = npm_dep(spec)
    for catalog, table in (doc.get("catalogs") or {}).items():
        for name, spec in (table or {}).items():
            model.deps[(f"catalog:{catalog}", name)] = npm_dep(spec)
    model.overrides = {k: str(v) for k, v in (doc.get("overrides") or {}).items()}
    return model


def read_manifest(path: str, data: bytes, ecosystem: Ecosystem | None = None) -> ManifestModel:
    """The model of any manifest kind `classify_path` knows; `ecosystem` overrides the default."""
    kind = classify_path(path)
    if kind is None or kind.kind != "manifest":
        raise ManifestParseError(f"{path} is not a manifest worktree_coord knows how to read",
                                 fix="declare intents for it directly, or reserve it without consolidation")
    if kind.format == "package.json":
        return read_package_json(path, data, ecosystem or Ecosystem.NPM)
    if kind.format == "cargo":
        return read_cargo_toml(path, data)
    if kind.format == "pyproject":
        return read_pyproject(path, data, ecosystem)
    if kind.format == "requirements":
        return read_requirements(path, data)
    if kind.format in ("go.mod", "go.work"):
        return read_go_mod(path, data)
    if kind.format == "pixi":
        return read_pixi_toml(path, data)
    if kind.format == "pom":
        return read_pom(path, data)
    if kind.format == "gradle-catalog":
        return read_gradle_catalog(path, data)
    return read_pnpm_workspace(path, data)
