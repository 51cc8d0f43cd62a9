"""A requirements file (pip's format) as entries keyed the way consolidation compares them.

Stage: reading and editing of requirements*.txt / requirements*.in. Input: the file's text.
Output: `Entry`s in file order, each a logical line (backslash continuations joined, comments
left out) with its physical line span, its model key and its `DepValue` (whose `text`, the line as
written, keeps a one-line entry's comment: consolidation writes it with the entry); and the text an
intent's entry is written as (`entry_text`).
Every line a task can write is an entry, so no edit of one is lost (httpx's `-e .[brotli,cli,...]`
gained an extra and was refused as "options lines"):
- a PEP 508 requirement, keyed by its normalized name (`name; markers` when the name repeats); its
  per-requirement options are options of its value: `--hash=` values (sorted: a set to pip) and any
  other (`--config-settings ...`, as written);
- an editable install or a local path or URL requirement (`-e .[brotli]`, `./pkg[x]`,
  `https://.../x.whl`): keyed by where it points (`-e .`, `./pkg`), its extras and markers its value;
- an option line: `--index-url` (one value, `-i` spelled alike) keyed by the option, its URL the
  spec; every other (`-r other.txt`, `-c constraints.txt`, `--extra-index-url URL`, `--pre`) by
  its whole canonical text, present or absent.
A line that is none of these raises `ManifestParseError` naming its line number and the fix.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.utils import canonicalize_name

from worktree_coord.consolidate.dep_values import dep_value, pep508
from worktree_coord.consolidate.intent import DepValue
from worktree_coord.consolidate.textformat import ManifestParseError

from ..frozen import value_class

REQUIREMENTS_GROUP = "requirements"
OPTIONS_GROUP = "options"
EDITABLE = "-e "

# pip's short options and their long names (pip's req_file.py), so `-r a.txt` and
# `--requirement=a.txt` are one line.
_LONG = {"-r": "--requirement", "-c": "--constraint", "-e": "--editable", "-i": "--index-url",
         "-f": "--find-links"}
# Options of which a file holds one value: a change of it is a new value of one key, and two tasks
# setting different ones conflict (pip would take whichever it reads last).
_ONE_VALUE = frozenset({"--index-url"})
COMMENT = re.compile(r"(^|\s+)#.*$")
_OPTION = re.compile(r"(-{1,2}[A-Za-z][\w-]*)(?:\s*=\s*|\s+)?(.*)$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_LOCATION = re.compile(r"^(?P<where>.+?)(?:\[(?P<extras>[^\]]*)\])?(?:\s*;\s*(?P<markers>.+))?$")


@value_class
class Entry:
    start: int          # index of its first physical line
    end: int            # one past its last physical line
    key: tuple[str, str]
    value: DepValue


def logical_lines(text: str) -> list[tuple[int, int, str]]:
    """(first line, one past the last line, text without comment) of each non-empty logical line."""
    out: list[tuple[int, int, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        start, parts = index, []
        while True:
            line = COMMENT.sub("", lines[index]).rstrip()
            index += 1
            if line.endswith("\\") and index < len(lines):
                parts.append(line[:-1])
                continue
            parts.append(line.rstrip("\\"))
            break
        joined = " ".join(part.strip() for part in parts if part.strip())
        if joined:
            out.append((start, index, joined))
    return out


def _location(where: str, editable: bool, text: str, path: str, number: int) -> tuple[str, DepValue]:

    match = _LOCATION.match(where.strip())
    if match is None or not match.group("where").strip():
        raise ManifestParseError(f"{path}:{number}: {text!r} names no path or URL to install",
                                 fix=f"write the line as `-e PATH[extras]` or `PATH[extras]` in {path}")
    location = match.group("where").strip()
    if len(location) > 1:
        location = location.rstrip("/")
    extras = tuple(sorted(canonicalize_name(e.strip()) for e in (match.group("extras") or "").split(",") if e.strip()))
    markers = (match.group("markers") or "").strip() or None
    return (EDITABLE if editable else "") + location, dep_value(
        source=(("location", location),), extras=extras, markers=markers, text=text)


def _looks_like_location(text: str) -> bool:
    """pip's rule, short: a URL, or a path (starts with `.` or `/`, or holds a `/` before its extras)."""
    head = text.split("[", 1)[0].split(";", 1)[0].strip()
    return bool(_URL.match(head)) or head.startswith((".", "/", "~")) or ("/" in head and " @ " not in text
                                                                         and "@" not in head)


def entries(text: str, path: str) -> list[Entry]:
    """Every entry of the file, in its order (see the module docstring)."""

    found: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    physical = text.splitlines()
    for start, end, line in logical_lines(text):
        number = start + 1
        if line.startswith("-"):
            match = _OPTION.match(line)
            if match is None:
                raise ManifestParseError(f"{path}:{number}: {line!r} is not an option pip reads",
                                         fix=f"write it as `--option value` or `-o value` in {path}")
            option, value = _LONG.get(match.group(1), match.group(1)), match.group(2).strip()
            if option == "--editable":
                key, dep = _location(value, True, line, path, number)
                group = REQUIREMENTS_GROUP
            elif option in _ONE_VALUE:
                group, key, dep = OPTIONS_GROUP, option, dep_value(spec=value or None, text=line)
            else:
                group, key, dep = OPTIONS_GROUP, f"{option} {value}".strip(), dep_value(text=line)
        else:
            cut = re.search(r"\s--[A-Za-z]", line)     # pip: a requirement's own options follow it
            requirement, rest = (line[:cut.start()], line[cut.start():]) if cut else (line, "")
            group = REQUIREMENTS_GROUP
            if _looks_like_location(requirement):
                key, dep = _location(requirement, False, line, path, number)
            else:
                key, dep = pep508(requirement.strip(), path)
            options = _requirement_options(rest)
            if options:
                dep = dep_value(**{**_fields(dep), "options": options})
        if end - start == 1 and COMMENT.search(physical[start]):
            # A one-line entry's comment is written with it (`pytest-asyncio==1.1.0  # async
            # fixtures`): the entry's text as the task wrote it, which consolidation writes.
            dep = dep_value(**{**_fields(dep), "text": physical[start].strip()})
        if (group, key) in seen:
            key = f"{key}; {dep.markers}"
        if (group, key) in seen:
            raise ManifestParseError(f"{path}:{number}: {line!r} repeats an earlier line",
                                     fix=f"keep one of the two lines in {path}")
        seen.add((group, key))
        found.append(Entry(start, end, (group, key), dep))
    return found


def _fields(value: DepValue) -> dict[str, Any]:
    return {name: getattr(value, name) for name in ("spec", "source", "extras", "features", "markers", "package",
                                                   "options", "written", "text")}


def _requirement_options(rest: str) -> tuple[tuple[str, Any], ...]:
    """A requirement line's own options: its hashes (a set), any other as written."""
    words = rest.split()
    hashes: list[str] = []
    others: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word.startswith("--hash="):
            hashes.append(word.split("=", 1)[1])
        elif word == "--hash" and index + 1 < len(words):
            index += 1
            hashes.append(words[index])
        else:
            others.append(word)
        index += 1
    out: list[tuple[str, Any]] = []
    if hashes:
        out.append(("hashes", tuple(sorted(hashes))))
    if others:
        out.append(("per-requirement", " ".join(others)))
    return tuple(out)


def entry_text(name: str, group: str, spec: str | None, extras: tuple[str, ...], markers: str | None,
               source: dict[str, Any] | None, options: dict[str, Any], requirement: str,
               written_option: str | None = None) -> list[str]:
    """The physical lines (without ends) an entry is written as. `requirement` is the PEP 508 text
    of a requirement entry; `written_option`: how the file spells the option it replaces (`-i`)."""
    if group == OPTIONS_GROUP:
        option = name.split(" ", 1)[0]
        spelled = written_option or option
        return [f"{spelled} {spec}" if spec else (f"{spelled} {name.split(' ', 1)[1]}" if " " in name else spelled)]
    if source and "location" in source:
        head = (EDITABLE if name.startswith(EDITABLE) else "") + str(source["location"])
        head += f"[{','.join(extras)}]" if extras else ""
        line = head + (f" ; {markers}" if markers else "")
    else:
        line = requirement
    if options.get("per-requirement"):
        line += f" {options['per-requirement']}"
    hashes = list(options.get("hashes") or ())
    if not hashes:
        return [line]
    # pip-compile's layout: one hash a line, each line but the last continued.
    return [f"{line} \\"] + [f"    --hash={h}" + (" \\" if i < len(hashes) - 1 else "") for i, h in enumerate(hashes)]
