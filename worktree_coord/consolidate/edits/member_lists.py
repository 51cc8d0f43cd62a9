"""Where a workspace member goes when consolidation adds one, and the add or removal itself.

Stage: apply, for `add_member` / `remove_member` intents of Cargo.toml, pyproject.toml (uv) and
package.json (`workspaces`). Input: the members list as the manifest spells it and the intent.
Why: members are a set to every tool, so placement is layout only; but a task that wrote its new
member beside a sibling expects it there, and appending it last moved the line it wrote. The
neighbour is recorded at derive time: the member that followed the new one (`before`).
"""

from __future__ import annotations

from typing import Any

from worktree_coord.consolidate.edits.toml_values import array_insert, array_string
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.manifests import normalize_member


def member_slot(spelled: list[Any], intent: Intent) -> int:
    """Where a new workspace member goes in a members list: right before the member that followed
    it where the task wrote it (its `before` option), else at the end. Members are a set to every
    tool, so this is the file's layout only: a task that put `pydantic_foo` beside its sibling sees
    it there, not last. Anchoring on the next member keeps several tasks' members added at one
    place in the order they are applied (each goes before the same neighbour, after the last)."""
    names = [normalize_member(str(m)) for m in spelled]
    following = dict(intent.options).get("before")
    return names.index(following) if following in names else len(names)


def edit_member_array(members: Any, intent: Intent) -> None:
    """Add or remove `intent.name` in a tomlkit array of workspace members (Cargo, uv)."""
    present = [m for m in members if normalize_member(str(m)) == intent.name]
    if intent.op == Op.ADD_MEMBER and not present:
        array_insert(members, member_slot(list(members), intent), array_string(members, intent.name))
    for item in present if intent.op == Op.REMOVE_MEMBER else []:
        members.remove(item)
