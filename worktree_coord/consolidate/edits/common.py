"""Dispatch of a structural edit to the editor of the manifest's format.

The editors raise `EditError`, which lives in `worktree_coord.errors` with every other error, so
they import nothing from here and this dispatcher is the only module that imports them.
"""

from __future__ import annotations

import importlib

from worktree_coord.consolidate.intent import Intent
from worktree_coord.errors import EditError

# A manifest format (manifests.classify_path) -> the module of worktree_coord.consolidate.edits that
# edits it, imported when a file of that format is edited.
EDITORS = {
    "go.mod": "go_mod", "go.work": "go_mod", "package.json": "package_json", "cargo": "cargo_toml",
    "pyproject": "pyproject", "requirements": "requirements", "pnpm-workspace": "pnpm_workspace",
    "pixi": "pixi_toml", "gradle-catalog": "gradle_catalog", "pom": "pom_xml",
}


def edit_manifest(path: str, data: bytes | None, intent: Intent, *, comments: bool = True) -> bytes:
    """`data` with the intent's key edited, and the comment lines the task wrote above its entry
    (edits/comments.py) unless `comments` is False."""
    from worktree_coord.consolidate.manifests import classify_path

    kind = classify_path(path)
    if data is None:
        raise EditError(f"{path} does not exist, so intent {intent.intent_id} cannot be applied",
                        fix=f"create {path} in a task (a member's manifest is ordinary task work)")
    editor = EDITORS.get(kind.format) if kind is not None else None
    if editor is None:
        raise EditError(f"no structural editor for {path} (intent {intent.intent_id})",
                        fix="apply this intent with the ecosystem's own tool, or edit the file in a task")
    edited = importlib.import_module(f"worktree_coord.consolidate.edits.{editor}").edit(path, data, intent)
    if not comments or not any(key in ("comment", "comment_removes", "comment_beside") for key, _ in intent.placement):
        return edited
    from worktree_coord.consolidate.edits.comments import carry

    return carry(path, data, edited, intent)
