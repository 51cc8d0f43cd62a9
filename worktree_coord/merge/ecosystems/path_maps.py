"""A bare import specifier a TypeScript or JavaScript project maps to its own files (tsconfig `paths`).

Stage: the post-merge semantic check, inside reexports.py's lookup of a module no file of the merge
answers, before a workspace package's name (workspace_packages.py): the compiler reads the mapping
first. Input: the specifier (`@/utils`, `~lib/parse`, `components/Button`), the importing file, the
profile's config file names (`[semantic] path_maps`: tsconfig.json, jsconfig.json) and a reader of
the base tree. Output: the paths, in the compiler's order, the specifier's module file may stand at
(without extension; reexports.py tries the profile's `module_files` on each), or None when no
config maps it.

Why: applications import their own modules through an alias (`import { hasProp } from
"@/utils"`, with `"paths": {"@/*": ["src/*"]}`), not a relative path. The check took the alias for
a package from outside the tree and found nothing: one side renamed `hasProp` in src/utils.ts, the
other added a call of it through the alias, git merged it clean and the build broke.

How (the compiler's rules; nothing guessed):
- the config is the nearest of `path_maps` in a folder above the importer; its `extends` (a path
  in the tree, or a list of them) is read first and overridden by it, up to MAX_EXTENDS deep;
  a package's config (`"extends": "@tsconfig/node18"`) is not in the tree and adds nothing;
- `paths`: the pattern with the longest prefix before its `*` that matches (or an exact key) gives
  its targets in order, `*` replaced; targets stand below `baseUrl` when one is set, else below the
  folder of the config that declared `paths`; then `baseUrl` itself maps any specifier below it;
- the config files are JSON with comments and trailing commas (JSONC), read as such; one that does
  not parse maps nothing (so nothing is found through it).
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any, Callable

TreeFile = Callable[[str, str], "bytes | None"]   # (which: base/left/right, path) -> bytes, None: absent

MAX_EXTENDS = 4
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(\s*[}\]])', re.S)
_SCRIPT_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def read_jsonc(data: bytes) -> Any:
    """JSON with `//` and `/* */` comments and trailing commas (tsconfig's format); ValueError if not."""
    text = data.decode("utf-8-sig")
    return json.loads(_JSONC.sub(lambda m: m.group(1) or m.group(2) or "", text))


class PathMaps:
    """`candidates(specifier, importer)` over one tree, reading each config once."""

    def __init__(self, tree_file: TreeFile, config_names: tuple[str, ...]):
        self._tree_file = tree_file
        self._names = config_names
        self._nearest: dict[str, str | None] = {}
        self._options: dict[str, tuple[dict[str, list[str]], str, str | None] | None] = {}

    def candidates(self, specifier: str, importer: str) -> list[str] | None:
        """The stems `specifier` may name, in the compiler's order; None when no config maps it."""
        config = self._config_for(posixpath.dirname(importer))
        options = self._read(config, 0) if config is not None else None
        if options is None:
            return None
        paths, paths_base, base_url = options
        out: list[str] = []
        pattern = _best_pattern(paths, specifier)
        if pattern is not None:
            star = specifier[len(pattern.split("*", 1)[0]):len(specifier) - len(pattern.split("*", 1)[1])] \
                if "*" in pattern else ""
            for target in paths[pattern]:
                if isinstance(target, str):
                    out.append(_stem(posixpath.join(base_url if base_url is not None else paths_base,
                                                    target.replace("*", star, 1))))
        if base_url is not None:
            out.append(_stem(posixpath.join(base_url, specifier)))
        out = [stem for stem in out if stem and not stem.startswith("..")]
        return out or None

    def _config_for(self, folder: str) -> str | None:
        if folder not in self._nearest:
            found = next((posixpath.join(folder, name) for name in self._names
                          if self._tree_file("base", posixpath.join(folder, name)) is not None), None)
            if found is None and folder:
                found = self._config_for(posixpath.dirname(folder))
            self._nearest[folder] = found
        return self._nearest[folder]

    def _read(self, config: str, depth: int) -> tuple[dict[str, list[str]], str, str | None] | None:
        """(paths, the folder its targets stand below without baseUrl, baseUrl's folder or None),
        with what `extends` gives overridden by the file's own; None: nothing maps, or unreadable."""
        if config in self._options:
            return self._options[config]
        self._options[config] = None   # a config extending itself maps nothing
        data = self._tree_file("base", config)
        try:
            doc = read_jsonc(data) if data is not None else None
        except (ValueError, UnicodeDecodeError):
            doc = None
        if not isinstance(doc, dict):
            return None
        paths: dict[str, list[str]] = {}
        paths_base, base_url = posixpath.dirname(config), None
        extends = doc.get("extends")
        for parent in ([extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []):
            if not isinstance(parent, str) or not parent.startswith(".") or depth >= MAX_EXTENDS:
                continue   # a package's config (`@tsconfig/node18`) is not in the tree
            path = posixpath.normpath(posixpath.join(posixpath.dirname(config), parent))
            inherited = self._read(path if path.endswith(".json") else path + ".json", depth + 1)
            if inherited is not None:
                paths, paths_base, base_url = inherited
        options = doc.get("compilerOptions") if isinstance(doc.get("compilerOptions"), dict) else {}
        if isinstance(options.get("baseUrl"), str):
            base_url = posixpath.normpath(posixpath.join(posixpath.dirname(config), options["baseUrl"]))
        if isinstance(options.get("paths"), dict):
            paths = {key: value for key, value in options["paths"].items() if isinstance(value, list)}
            paths_base = posixpath.dirname(config)
        found = (paths, paths_base, base_url) if paths or base_url is not None else None
        self._options[config] = found
        return found


def _best_pattern(paths: dict[str, list[str]], specifier: str) -> str | None:
    """The compiler's choice: an exact key, else the `*` pattern with the longest prefix that matches."""
    if specifier in paths and "*" not in specifier:
        return specifier
    best, longest = None, -1
    for pattern in paths:
        if pattern.count("*") != 1:
            continue
        prefix, suffix = pattern.split("*")
        if specifier.startswith(prefix) and specifier.endswith(suffix) and \
                len(specifier) >= len(prefix) + len(suffix) and len(prefix) > longest:
            best, longest = pattern, len(prefix)
    return best


def _stem(path: str) -> str:
    """A path without its script extension (`src/utils.js` names src/utils.ts as well)."""
    path = posixpath.normpath(path)
    for extension in _SCRIPT_EXTENSIONS:
        if path.endswith(extension) and not path.endswith(".d" + extension):
            return path[: -len(extension)]
    return path
