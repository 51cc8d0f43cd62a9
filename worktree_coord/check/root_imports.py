"""The words a use of a removed definition spells in another file, for the look's grep
(check/left_behind.py): its `use_word`, but for the default export of the repository's root module
(a root `index.js`, whose module token is empty) what its importers spell instead: the literal
specifiers of the root (profile `root_specifiers`: `'..'`, `'.'`), its index name (`./index`,
`'../index.js'`) and the package's own name (`import greet from 'tiny-pkg'`). Grepped for the
empty word, the look once read no file, and `import greet from '..'; greet()` went unnamed."""

from __future__ import annotations

import json
import posixpath
from typing import Callable

from ..merge.checks.semantic import semantic_profile, use_word


def use_words(path: str, container: tuple[str, ...], name: str,
              read: Callable[[str], bytes | None]) -> set[str]:
    """The words a file using (`container`, `name`) of `path` spells, one of which the grep must find;
    `read(path)`: a file of the tree the look reads (the manifest beside a root module)."""
    word = use_word(path, container, name)
    if word:
        return {word}
    profile = semantic_profile(path)
    if profile is None:
        return set()
    rules = profile.semantic
    words = set(rules.root_specifiers) | set(rules.index_names)
    folder = posixpath.dirname(path)
    named = _package_name(read(posixpath.join(folder, rules.manifest))) if rules.manifest.endswith(".json") else None
    return words | {named} if named else words


def _package_name(data: bytes | None) -> str | None:
    """The `name` a JSON manifest (package.json) gives its package, None where it gives none or is no JSON."""
    try:
        manifest = json.loads(data) if data else None
    except ValueError:   # (a manifest that does not parse names no package; its own check says so)
        return None
    name = manifest.get("name") if isinstance(manifest, dict) else None
    return name if isinstance(name, str) and name.strip() else None
