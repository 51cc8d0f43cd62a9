"""Dispatch of a structural edit to the editor of the manifest's format.

The editors raise `EditError`, which lives in `worktree_coord.errors` with every other error, so
they import nothing from here and this dispatcher is the only module that imports them.
"""

from __future__ import annotations

from worktree_coord.consolidate.intent import Intent
from worktree_coord.errors import EditError


def edit_manifest(path: str, data: bytes | None, intent: Intent) -> bytes:
    from worktree_coord.consolidate.edits import cargo_toml, package_json, pnpm_workspace, pyproject, requirements
    from worktree_coord.consolidate.manifests import classify_path

    kind = classify_path(path)
    if data is None:
        raise EditError(f"{path} does not exist, so intent {intent.intent_id} cannot be applied",
                        fix=f"create {path} in a task (a member's manifest is ordinary task work)")
    if kind is not None and kind.format in ("go.mod", "go.work"):
        from worktree_coord.consolidate.edits import go_mod

        return go_mod.edit(path, data, intent)
    if kind is not None and kind.format == "package.json":
        return package_json.edit(path, data, intent)
    if kind is not None and kind.format == "cargo":
        return cargo_toml.edit(path, data, intent)
    if kind is not None and kind.format == "pyproject":
        return pyproject.edit(path, data, intent)
    if kind is not None and kind.format == "requirements":
        return requirements.edit(path, data, intent)
    if kind is not None and kind.format == "pnpm-workspace":
        return pnpm_workspace.edit(path, data, intent)
    if kind is not None and kind.format == "pixi":
        from worktree_coord.consolidate.edits import pixi_toml

        return pixi_toml.edit(path, data, intent)
    if kind is not None and kind.format == "gradle-catalog":
        from worktree_coord.consolidate.edits import gradle_catalog

        return gradle_catalog.edit(path, data, intent)
    if kind is not None and kind.format == "pom":
        from worktree_coord.consolidate.edits import pom_xml

        return pom_xml.edit(path, data, intent)
    raise EditError(f"no structural editor for {path} (intent {intent.intent_id})",
                    fix="apply this intent with the ecosystem's own tool, or edit the file in a task")
