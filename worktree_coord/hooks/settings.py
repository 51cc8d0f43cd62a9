"""Claude Code's settings files: `wtc hooks install claude` and `wtc hooks uninstall claude`.

Input: a scope (`local`: .claude/settings.local.json, `project`: .claude/settings.json, `user`:
~/.claude/settings.json) and the absolute command of the running wtc. Output: a `SettingsChange`
(the bytes before and after, what changed, a unified diff) that `apply` writes.

- Install adds one `WorktreeCreate` and one `WorktreeRemove` command hook, editing the text in
  place (json_text.py): every other byte of the file stays. Installing again changes nothing; a wtc
  that moved gets its command updated in place.
- Another tool's WorktreeCreate or WorktreeRemove hook is never doubled or replaced: two creators
  would race on one worktree, and a second remover could delete a worktree while wtc saves its
  work. Install refuses and names the hook.
- Install keeps the file's bytes from before (in the repository's git dir, or the user's state
  folder for the user scope). Uninstall puts them back byte for byte when the file is exactly as
  install left it; when something else changed since, it removes exactly wtc's hooks.
"""

from __future__ import annotations

import base64
import copy
import difflib
import hashlib
import json
import os
import re
from dataclasses import field
from pathlib import Path
from typing import Any

from ..errors import NotFoundError, UsageError
from ..frozen import value_class
from .json_text import JsonText
from .payload import json_kind

SCOPES = ("local", "project", "user")
EVENTS = {"WorktreeCreate": "worktree-create", "WorktreeRemove": "worktree-remove"}
HOOK_TIMEOUT_SECONDS = 600
_OURS = re.compile(r"(^|\s)hook\s+claude\s+(worktree-create|worktree-remove)(\s|$)")


@value_class
class SettingsChange:
    scope: str
    path: Path
    before: bytes | None          # None: the file did not exist
    after: bytes | None           # None: the file is to be removed
    actions: list[str] = field(default_factory=list)
    backup: Path | None = None
    backup_record: dict[str, Any] | None = None   # written on apply; None with `backup`: deleted
    created_folder: bool = False

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"a/{self.path.name}" if self.before is not None else "/dev/null",
                                            f"b/{self.path.name}" if self.after is not None else "/dev/null"))

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "settings": str(self.path), "changed": self.changed, "actions": self.actions,
                "backup": str(self.backup) if self.backup else None, "diff": self.diff()}


def hook_command(executable: str, event: str) -> str:
    return f"{executable} hook claude {EVENTS[event]}"


def locate(scope: str, repo: str | os.PathLike[str]) -> tuple[Path, Path]:
    """(the settings file of `scope`, the folder for its backup)."""
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}", fix="use --scope local, project or user")
    if scope == "user":
        from ..config import user_state_dir

        home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
        return home / "settings.json", user_state_dir() / "hooks"
    from ..gitrepo import GitRepo

    git = GitRepo(repo)
    if git.toplevel is None:
        raise NotFoundError(f"{git.common_dir} is a bare repository: it has no checkout for .claude/",
                            fix="install from a checkout (--repo PATH), or use --scope user")
    name = "settings.local.json" if scope == "local" else "settings.json"
    return git.toplevel / ".claude" / name, git.wtc_dir / "hooks"


def plan_install(scope: str, path: Path, backup_dir: Path, executable: str) -> SettingsChange:
    before = path.read_bytes() if path.exists() else None
    data = _load(path, before)
    doc = JsonText(before if before is not None and before.strip() else b"{}\n")
    expected = copy.deepcopy(data)
    actions: list[str] = []
    for event in EVENTS:
        command = hook_command(executable, event)
        hooks = _object_at(expected, "hooks", path)
        groups = _list_at(hooks, event, path)
        mine, others = _scan(groups, event)
        if others:
            raise UsageError(
                f"{path} already has a {event} hook that is not wtc's: {others[0]!r}; with two, both would "
                + ("create a worktree for each agent" if event == "WorktreeCreate"
                   else "act on the worktree while wtc saves and merges its work"),
                fix=f"remove that hook from {path} (or move its work into worktree-setup.run), then install again")
        if mine:
            group_index, hook_index = mine[0]
            if groups[group_index]["hooks"][hook_index].get("command") == command:
                actions.append(f"{event}: already installed")
                continue
            node = doc.find(["hooks", event, group_index, "hooks", hook_index, "command"])
            doc = doc.replace_value(node, command)
            groups[group_index]["hooks"][hook_index]["command"] = command
            actions.append(f"{event}: command updated to `{command}`")
            continue
        group = {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}]}
        if doc.find(["hooks"]) is None:
            doc = doc.add_member(doc.root, "hooks", {event: [group]})
        elif doc.find(["hooks", event]) is None:
            doc = doc.add_member(doc.find(["hooks"]), event, [group])
        else:
            doc = doc.append_element(doc.find(["hooks", event]), group)
        groups.append(group)
        hooks[event] = groups
        expected["hooks"] = hooks
        actions.append(f"{event}: added `{command}`")
    after = _checked(doc.data, expected, actions, before)
    backup = _backup_file(backup_dir, path)
    record = _read_backup(backup)
    if after == before:
        return SettingsChange(scope, path, before, after, actions, backup if record else None, record)
    if record is None or record.get("after_sha256") != _sha(before):
        # Nothing recorded, or the file changed since the last install: what it is now is "before".
        record = {"settings": str(path), "before": _encode(before), "created_folder": not path.parent.exists()}
    record = record | {"after_sha256": _sha(after)}
    return SettingsChange(scope, path, before, after, actions, backup, record,
                          created_folder=bool(record.get("created_folder")))


def plan_uninstall(scope: str, path: Path, backup_dir: Path) -> SettingsChange:
    before = path.read_bytes() if path.exists() else None
    backup = _backup_file(backup_dir, path)
    record = _read_backup(backup)
    if before is None:
        return SettingsChange(scope, path, None, None, ["no settings file: nothing to uninstall"],
                              backup if record else None, None)
    if record is not None and record.get("after_sha256") == _sha(before):
        restored = _decode(record.get("before"))
        action = ("restored the file as it was before install, byte for byte" if restored is not None
                  else "removed the file install had created")
        return SettingsChange(scope, path, before, restored, [action], backup, None,
                              created_folder=bool(record.get("created_folder")))
    data = _load(path, before)
    doc = JsonText(before)
    expected = copy.deepcopy(data)
    actions: list[str] = []
    hooks = expected.get("hooks") if isinstance(expected.get("hooks"), dict) else None
    for event in EVENTS:
        groups = hooks.get(event) if hooks is not None else None
        if not isinstance(groups, list):
            continue
        mine, _ = _scan(groups, event)
        for group_index, hook_index in reversed(mine):
            entries = groups[group_index]["hooks"]
            if len(entries) == 1:
                doc = doc.remove(doc.find(["hooks", event, group_index]))
                del groups[group_index]
            else:
                doc = doc.remove(doc.find(["hooks", event, group_index, "hooks", hook_index]))
                del entries[hook_index]
            actions.append(f"{event}: removed wtc's hook")
        if mine and not groups:
            doc = doc.remove(doc.find(["hooks", event]))
            del hooks[event]
    if hooks is not None and actions and not hooks:
        doc = doc.remove(doc.find(["hooks"]))
        del expected["hooks"]
    if not actions:
        return SettingsChange(scope, path, before, before, ["no wtc hooks in the file: nothing to uninstall"],
                              backup if record else None, None)
    if record is not None:
        actions.append("the file changed since install, so only wtc's hooks were taken out")
    after = _checked(doc.data, expected, actions, before)
    return SettingsChange(scope, path, before, after, actions, backup, None)


def apply(change: SettingsChange) -> None:
    """Write the change: the settings file (atomically, keeping its mode) and the backup record."""
    if change.changed:
        if change.after is None:
            change.path.unlink(missing_ok=True)
            if change.created_folder:
                try:
                    change.path.parent.rmdir()   # only when empty: other tools' files stay
                except OSError:
                    pass
        else:
            _write_atomic(change.path, change.after)
    if change.backup is not None:
        if change.backup_record is not None:
            _write_atomic(change.backup, (json.dumps(change.backup_record, indent=2) + "\n").encode())
        elif change.changed or change.after == change.before:
            change.backup.unlink(missing_ok=True)


# ---- helpers ----------------------------------------------------------------------------------------

def _load(path: Path, raw: bytes | None) -> dict[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not UTF-8 text ({error})", fix=f"fix {path}, then run the command again") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})",
                         fix=f"fix {path} (Claude Code cannot read it either), then run the command again") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} holds {json_kind(data)}, not a JSON object",
                         fix=f"make {path} a JSON object ({{...}}), then run the command again")
    return data


def _object_at(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise UsageError(f'"{key}" in {path} is {json_kind(value)}, not an object',
                         fix=f'fix "{key}" in {path} (see Claude Code\'s hooks documentation)')
    return value


def _list_at(data: dict[str, Any], key: str, path: Path) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise UsageError(f'"hooks.{key}" in {path} is {json_kind(value)}, not an array',
                         fix=f'fix "hooks.{key}" in {path} (a list of {{"hooks": [...]}} groups)')
    return value


def _scan(groups: list[Any], event: str) -> tuple[list[tuple[int, int]], list[str]]:
    """(positions of wtc's hooks for `event`, commands of anybody else's)."""
    mine: list[tuple[int, int]] = []
    others: list[str] = []
    for group_index, group in enumerate(groups):
        entries = group.get("hooks") if isinstance(group, dict) else None
        for hook_index, hook in enumerate(entries if isinstance(entries, list) else []):
            command = hook.get("command", "") if isinstance(hook, dict) else ""
            found = _OURS.search(command) if isinstance(command, str) else None
            if found and found.group(2) == EVENTS[event]:
                mine.append((group_index, hook_index))
            else:
                others.append(command if isinstance(command, str) and command else json.dumps(hook))
    return mine, others


def _checked(after: bytes, expected: dict[str, Any], actions: list[str], before: bytes | None) -> bytes:
    """The edited text, verified to say exactly `expected`; re-serialised in full if it does not."""
    if before is None and not after.endswith(b"\n"):
        after += b"\n"
    try:
        if json.loads(after.decode("utf-8")) == expected:
            return after
    except (UnicodeDecodeError, json.JSONDecodeError):
        pass
    actions.append("the file's layout could not be kept; it was rewritten with two-space indentation")
    return (json.dumps(expected, indent=2, ensure_ascii=False) + "\n").encode()


def _backup_file(folder: Path, settings: Path) -> Path:
    digest = hashlib.sha256(str(settings.absolute()).encode()).hexdigest()[:16]
    return folder / f"claude-{digest}.json"


def _read_backup(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _encode(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data is not None else None


def _decode(text: str | None) -> bytes | None:
    return base64.b64decode(text) if text is not None else None


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    temporary = path.with_name(f".{path.name}.wtc-tmp")
    temporary.write_bytes(data)
    if mode is not None:
        os.chmod(temporary, mode)
    temporary.replace(path)
