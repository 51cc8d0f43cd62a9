"""Strict parsing and formatting-preserving writing of JSON, TOML and YAML manifests.

Stage: the byte layer under every manifest reader and structural editor.
Input: file bytes. Output: parsed documents (tomlkit documents keep comments and layout) and,
for JSON, the detected `JsonStyle` so a rewrite keeps indent, end of line and final newline.
Invariants:
- duplicate keys are refused in every format (Python's json and PyYAML would silently keep the
  last one); the error names the file and the key;
- `dump_json(load_json(b), style_of(b))` reproduces `b` for files in the JSON.stringify layout
  npm itself writes (so an edit touches only the lines it changes).
"""

from __future__ import annotations

import json
import re
from typing import Any

import tomlkit
import yaml
from tomlkit.exceptions import ParseError as TomlParseError

from worktree_coord.errors import UsageError

from ..frozen import value_class


class ManifestParseError(UsageError):
    """A manifest or lockfile that cannot be read strictly (syntax error, duplicate key, markers)."""

    kind = "manifest_parse"


CONFLICT_MARKER = re.compile(rb"^(<{7}|>{7}|={7}|\|{7})( |$|\r?\n)", re.MULTILINE)


def has_conflict_markers(data: bytes) -> bool:
    return CONFLICT_MARKER.search(data) is not None


def refuse_conflict_markers(path: str, data: bytes) -> None:
    match = CONFLICT_MARKER.search(data)
    if match:
        line = data.count(b"\n", 0, match.start()) + 1
        raise ManifestParseError(
            f"{path} holds git conflict markers (line {line}); it is never text-merged or repaired implicitly",
            fix=f"restore {path} from one side (e.g. `git checkout --theirs -- {path}`) and let consolidation relock it",
            details={"path": path, "line": line},
        )


def _decode(path: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestParseError(f"{path} is not UTF-8: {exc}", fix=f"re-encode {path} as UTF-8") from exc
    return text[1:] if text.startswith("\ufeff") else text


# ---------------------------------------------------------------------------------------------- JSON

def _no_duplicates(path: str):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise ManifestParseError(
                    f"{path} has the key {key!r} twice in one object; refusing to guess which one wins",
                    fix=f"remove one of the two {key!r} entries in {path}",
                    details={"path": path, "key": key},
                )
            out[key] = value
        return out

    return hook


def load_json(path: str, data: bytes) -> Any:
    refuse_conflict_markers(path, data)
    try:
        return json.loads(_decode(path, data), object_pairs_hook=_no_duplicates(path))
    except json.JSONDecodeError as exc:
        raise ManifestParseError(f"{path} is not valid JSON: {exc}", fix=f"fix the JSON syntax of {path}") from exc


@value_class
class JsonStyle:
    indent: str = "  "
    eol: str = "\n"
    final_newline: bool = True
    bom: bool = False


def json_style(data: bytes) -> JsonStyle:
    text = data.decode("utf-8", errors="replace")
    bom = text.startswith("\ufeff")
    eol = "\r\n" if "\r\n" in text else "\n"
    match = re.search(r"\n([ \t]+)\S", text)
    indent = match.group(1) if match else "  "
    final = text.endswith("\n")
    return JsonStyle(indent=indent, eol=eol, final_newline=final, bom=bom)


def dump_json(document: Any, style: JsonStyle) -> bytes:
    text = json.dumps(document, indent=style.indent, ensure_ascii=False)
    if style.eol != "\n":
        text = text.replace("\n", style.eol)
    if style.final_newline:
        text += style.eol
    if style.bom:
        text = "\ufeff" + text
    return text.encode("utf-8")


# ---------------------------------------------------------------------------------------------- TOML

def load_toml(path: str, data: bytes) -> tomlkit.TOMLDocument:
    refuse_conflict_markers(path, data)
    try:
        return tomlkit.parse(_decode(path, data))
    except TomlParseError as exc:
        raise ManifestParseError(f"{path} is not valid TOML: {exc}", fix=f"fix the TOML syntax of {path}") from exc
    except Exception as exc:  # tomlkit raises KeyAlreadyPresent and friends for duplicate keys
        raise ManifestParseError(
            f"{path} cannot be read strictly: {exc}", fix=f"remove the duplicate or invalid entry in {path}"
        ) from exc


def dump_toml(document: tomlkit.TOMLDocument, before: bytes | None = None) -> bytes:
    """The document's text; with `before` (the text it was read from), a table header that stood
    after a blank line there and now follows a key directly gets its blank line back: tomlkit writes
    a table it adds inside a super-table ([project.optional-dependencies] among [project.*]) after
    the blank lines of the table before it, leaving none before the next header (found driving wtc
    on attrs: `pickle = [...]` then `[dependency-groups]` on the next line)."""
    text = tomlkit.dumps(document)
    if before is None:
        return text.encode("utf-8")
    return _header_spacing(_decode("", before), text).encode("utf-8")


_HEADER = re.compile(r"^[ \t]*\[\[?[^\[\]]+\]\]?[ \t]*(#.*)?$")


def _header_spacing(before: str, after: str) -> str:
    """`after` with a blank line put back before each table header that had one in `before` and lost it."""
    spaced: set[str] = set()
    previous = ""
    for line in before.splitlines():
        if _HEADER.match(line) and not previous.strip():
            spaced.add(line.strip())
        previous = line
    lines = after.splitlines(keepends=True)
    out: list[str] = []
    for line in lines:
        if out and line.strip() in spaced and _HEADER.match(line) and out[-1].strip() \
                and not out[-1].lstrip().startswith("#"):
            out.append("\n")
        out.append(line)
    return "".join(out)


def plain(value: Any) -> Any:
    """tomlkit containers as plain Python values (dict, list, str, int, bool)."""
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if unwrap is not None else value


# ---------------------------------------------------------------------------------------------- YAML

class _StrictLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ManifestParseError(
                f"{loader.name} has the key {key!r} twice in one mapping (line {key_node.start_mark.line + 1})",
                fix=f"remove one of the two {key!r} entries",
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: str, data: bytes) -> Any:
    refuse_conflict_markers(path, data)
    loader = _StrictLoader(_decode(path, data))
    loader.name = path
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise ManifestParseError(f"{path} is not valid YAML: {exc}", fix=f"fix the YAML syntax of {path}") from exc
    finally:
        loader.dispose()
