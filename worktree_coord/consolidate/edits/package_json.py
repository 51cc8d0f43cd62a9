"""package.json edits that keep the file's indent, end of line, final newline, npm's key order, and
the bytes of every value the edit does not change (`json_text.rewrite_json`)."""

from __future__ import annotations

import json

from worktree_coord.consolidate import settings
from worktree_coord.consolidate.edits.json_text import rewrite_json
from worktree_coord.consolidate.edits.member_lists import member_slot
from worktree_coord.consolidate.edits.placement import slot
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.textformat import json_style, load_json
from worktree_coord.errors import EditError


def npm_spec_text(intent: Intent) -> str:
    """The value npm writes for the dependency (aliases as `npm:real@range`)."""
    spec = intent.spec or "*"
    if intent.package and intent.package != intent.name:
        return f"npm:{intent.package}@{spec}"
    return spec


def _overrides_home(doc: dict, intent: Intent) -> tuple[dict, str]:
    """Where the package manager reads overrides: npm `overrides`, Yarn `resolutions`, pnpm
    `pnpm.overrides`; an override already present stays where it is."""
    pnpm = doc.get("pnpm") if isinstance(doc.get("pnpm"), dict) else None
    for holder, key in ((doc, "overrides"), (doc, "resolutions"), (pnpm, "overrides")):
        if holder is not None and intent.name in (holder.get(key) or {}):
            return holder, key
    if intent.ecosystem == Ecosystem.YARN:
        return doc, "resolutions"
    if intent.ecosystem == Ecosystem.PNPM:
        return doc.setdefault("pnpm", {}), "overrides"
    return doc, "overrides"


def _edit_setting(doc: dict, intent: Intent) -> None:
    """A key outside the dependency model (`scripts.test`): objects on the way are created; an
    object a removal leaves empty goes too. New keys go last, as npm adds them."""
    parts = settings.parse_key(intent.name)
    chain = [doc]
    for part in parts[:-1]:
        node = chain[-1].get(part)
        if not isinstance(node, dict):
            if intent.op == Op.REMOVE_KEY:
                return
            node = chain[-1][part] = {}
        chain.append(node)
    if intent.op == Op.SET_KEY:
        holder, key, value = chain[-1], parts[-1], settings.decode(intent.spec)
        options = dict(intent.options)
        after, before = options.get("after", ""), options.get("before", "")
        if key not in holder and (after in holder or before in holder):
            # Where the task put it: right after the key that preceded it in the task's file (or
            # before the one that followed it, for a new first key).
            items = list(holder.items())
            names = [k for k, _ in items]
            index = names.index(after) + 1 if after in holder else names.index(before)
            holder.clear()
            holder.update(items[:index] + [(key, value)] + items[index:])
        else:
            holder[key] = value
        return
    chain[-1].pop(parts[-1], None)
    for depth in range(len(chain) - 1, 0, -1):
        if chain[depth]:
            break
        del chain[depth - 1][parts[depth - 1]]


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    doc = load_json(path, data)
    style = json_style(data)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC):
        if intent.group.startswith("catalog"):
            raise EditError(f"{intent.group} lives in pnpm-workspace.yaml, not {path}")
        group = dict(doc.get(intent.group) or {})
        if intent.name not in group:
            # Where the task wrote it, else in order in an object npm keeps sorted (edits/placement.py);
            # the entries around it stay where they are, sorted or not.
            entries = list(group.items())
            entries.insert(slot(list(group), intent, intent.name), (intent.name, ""))
            group = dict(entries)
        group[intent.name] = npm_spec_text(intent)
        doc[intent.group] = group
    elif op == Op.REMOVE_DEP:
        group = dict(doc.get(intent.group) or {})
        group.pop(intent.name, None)
        if group:
            doc[intent.group] = group
        else:
            doc.pop(intent.group, None)
    elif op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        holder = doc.get("workspaces")
        members = list((holder.get("packages") if isinstance(holder, dict) else holder) or [])
        spelled = {m.removeprefix("./").rstrip("/"): m for m in members}
        if op == Op.ADD_MEMBER and intent.name not in spelled:
            members.insert(member_slot(members, intent), intent.name)
        elif op == Op.REMOVE_MEMBER and intent.name in spelled:
            members.remove(spelled[intent.name])
        if isinstance(holder, dict):
            holder["packages"] = members
        else:
            doc["workspaces"] = members
    elif op == Op.BUMP_VERSION:
        doc["version"] = intent.spec
    elif op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        holder, key = _overrides_home(doc, intent)
        overrides = dict(holder.get(key) or {})
        if op == Op.REMOVE_OVERRIDE:
            overrides.pop(intent.name, None)
        else:
            spec = intent.spec or ""
            overrides[intent.name] = json.loads(spec) if spec.startswith("{") else spec
        if overrides:
            holder[key] = overrides
        else:
            holder.pop(key, None)
            if holder is not doc and not holder:
                doc.pop("pnpm", None)
    elif op == Op.SET_RUNTIME and intent.name == "node":
        doc.setdefault("engines", {})["node"] = intent.spec
    elif op in (Op.SET_KEY, Op.REMOVE_KEY):
        _edit_setting(doc, intent)
    else:
        raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {intent.name}) has no package.json form")
    return rewrite_json(data, doc, style)
