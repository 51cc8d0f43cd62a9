"""Whether a side of a merge requires a Composer package its base did not: PHP names may come from it.

Stage: asked by the post-merge semantic check (semantic.py `broken`) of a PHP definition one side
removed. Input: the check's tree reader (`which`, path -> bytes or None), the removing side, the
removed definition's path. Output: whether the `composer.json` nearest above that path requires, on
that side, a package (`require` or `require-dev`) the base's did not (`requires_new_package`).

Why: a class moved out of the repository into a package keeps its whole name. Slim c4dd3437 deleted
Slim/Http/*.php and required slim/http, whose classes are Slim\\Http\\Request and the rest; every use
left in the tree read as left behind, and none was. The package's code is no part of the tree
(vendor/ is not committed), so a name removed by a side that requires a new package is not known to
be gone (precision first): it may stand there now.
"""

from __future__ import annotations

import json
import posixpath
from typing import Callable

MANIFEST = "composer.json"
_SECTIONS = ("require", "require-dev")

TreeFile = Callable[[str, str], "bytes | None"]


def requires_new_package(tree_file: TreeFile, side: str, path: str) -> bool:
    """Whether the composer.json governing `path` (the nearest above it that the base holds)
    requires on `side` a package the base's does not."""
    folder = posixpath.dirname(path)
    while True:
        manifest = posixpath.join(folder, MANIFEST) if folder else MANIFEST
        base = tree_file("base", manifest)
        if base is not None:
            before, after = _required(base), _required(tree_file(side, manifest))
            return after is not None and before is not None and bool(after - before)
        if not folder:
            return False
        folder = posixpath.dirname(folder)


def _required(data: bytes | None) -> frozenset[str] | None:
    """The package names a composer.json requires (None: absent or not a JSON object)."""
    if data is None:
        return None
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(document, dict):
        return None
    return frozenset(name.lower() for section in _SECTIONS if isinstance(document.get(section), dict)
                     for name in document[section])
