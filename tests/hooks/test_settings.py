"""`wtc hooks install|uninstall claude`: Claude Code's settings files edited in place, idempotently,
restored byte for byte. The command line is run for real; the text edits are also checked on their
own against layouts people write by hand."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from worktree_coord.errors import UsageError
from worktree_coord.hooks import settings
from worktree_coord.hooks.json_text import JsonText

WTC = [sys.executable, "-m", "worktree_coord"]
EXE = "/opt/tools/bin/wtc"

# A settings file with other hooks, in a layout no serializer would produce: 4-space indent,
# one-line arrays, a key order that is not sorted.
THEIRS = """{
    "permissions": {"allow": ["Bash(npm test)", "Read"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
    },
    "model": "opus"
}
"""


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(WTC + list(args), cwd=repo, capture_output=True, text=True)


def test_install_then_uninstall_restores_a_file_with_other_hooks_byte_for_byte(tmp_path):
    repo = make_repo(tmp_path / "repo", {".claude/settings.json": THEIRS})
    path = repo / ".claude" / "settings.json"
    dry = run(repo, "hooks", "install", "claude", "--scope", "project", "--dry-run")
    assert dry.returncode == 0 and path.read_text() == THEIRS, "a dry run writes nothing"
    assert '+        "WorktreeCreate": [' in dry.stdout and "--- a/settings.json" in dry.stdout
    done = run(repo, "hooks", "install", "claude", "--scope", "project", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["changed"] and body["schema"] == "wtc.hooks.install/1"
    installed = path.read_text()
    data = json.loads(installed)
    assert data["hooks"]["PreToolUse"] == json.loads(THEIRS)["hooks"]["PreToolUse"]
    for event, verb in (("WorktreeCreate", "worktree-create"), ("WorktreeRemove", "worktree-remove")):
        (group,) = data["hooks"][event]
        (hook,) = group["hooks"]
        command = hook["command"]
        assert command.endswith(f"-m worktree_coord hook claude {verb}") and command.startswith("/")
        assert hook["type"] == "command" and hook["timeout"] == 600
    # Only insertions: a line of the original changed at most by gaining the comma before the new member.
    diff = list(difflib.ndiff(THEIRS.splitlines(), installed.splitlines()))
    removed = [line[2:] for line in diff if line.startswith("- ")]
    added = [line[2:] for line in diff if line.startswith("+ ")]
    assert all(line + "," in added for line in removed), removed
    again = run(repo, "hooks", "install", "claude", "--scope", "project")
    assert again.returncode == 0 and "already installed" in again.stdout
    assert path.read_text() == installed, "installing twice changes nothing"
    removed = run(repo, "hooks", "uninstall", "claude", "--scope", "project")
    assert removed.returncode == 0 and "byte for byte" in removed.stdout
    assert path.read_bytes() == THEIRS.encode()
    assert "nothing to uninstall" in run(repo, "hooks", "uninstall", "claude", "--scope", "project").stdout


def test_uninstall_after_other_edits_takes_out_only_wtcs_hooks(tmp_path):
    repo = make_repo(tmp_path / "repo", {".claude/settings.json": THEIRS})
    path = repo / ".claude" / "settings.json"
    assert run(repo, "hooks", "install", "claude", "--scope", "project").returncode == 0
    path.write_text(path.read_text().replace('"opus"', '"sonnet"'))
    done = run(repo, "hooks", "uninstall", "claude", "--scope", "project")
    assert done.returncode == 0 and "changed since install" in done.stdout
    assert path.read_text() == THEIRS.replace('"opus"', '"sonnet"')


def test_local_scope_creates_the_file_keeps_it_out_of_git_and_removes_it_again(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    assert run(repo, "hooks", "install", "claude").returncode == 0
    path = repo / ".claude" / "settings.local.json"
    assert "WorktreeCreate" in json.loads(path.read_text())["hooks"]
    assert git(repo, "status", "--porcelain") == "", "settings.local.json is this machine's"
    assert run(repo, "hooks", "uninstall", "claude").returncode == 0
    assert not path.exists() and not (repo / ".claude").exists()


def test_install_refuses_to_double_another_worktree_hook(tmp_path):
    theirs = {"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "wt-switch --create"}]}]}}
    text = json.dumps(theirs, indent=2) + "\n"
    repo = make_repo(tmp_path / "repo", {".claude/settings.json": text})
    done = run(repo, "hooks", "install", "claude", "--scope", "project")
    assert done.returncode == 2 and "wt-switch --create" in done.stderr and "fix:" in done.stderr
    assert (repo / ".claude" / "settings.json").read_text() == text


def test_broken_settings_are_named_not_overwritten(tmp_path):
    repo = make_repo(tmp_path / "repo", {".claude/settings.json": '{"hooks": {,}\n'})
    done = run(repo, "hooks", "install", "claude", "--scope", "project")
    assert done.returncode == 2 and "is not valid JSON" in done.stderr and "line 1" in done.stderr
    assert (repo / ".claude" / "settings.json").read_text() == '{"hooks": {,}\n'
    assert run(repo, "hooks", "install", "cursor").returncode == 2


@pytest.mark.parametrize(("text", "words"), [
    ('{"hooks": 3}\n', '"hooks" in {path} is a number, not an object'),
    ('{"hooks": {"WorktreeCreate": {"x": 1}}}\n', '"hooks.WorktreeCreate" in {path} is an object, not an array'),
    ('[1, 2]\n', '{path} holds an array, not a JSON object'),
])
def test_a_settings_value_of_the_wrong_kind_is_named_in_json_words(tmp_path, text, words):
    # Issue 35: "is a int" (Python's type names, and their grammar) where JSON has a number.
    repo = make_repo(tmp_path / "repo", {".claude/settings.json": text})
    done = run(repo, "hooks", "install", "claude", "--scope", "project")
    assert done.returncode == 2 and words.format(path=repo / ".claude" / "settings.json") in done.stderr, done.stderr


def test_a_moved_wtc_gets_its_command_updated_in_place(tmp_path):
    path = tmp_path / "settings.json"
    change = settings.plan_install("project", path, tmp_path / "backups", "/old/wtc")
    settings.apply(change)
    first = path.read_text()
    moved = settings.plan_install("project", path, tmp_path / "backups", EXE)
    assert [a.split(":")[1].strip().split(" ")[0] for a in moved.actions] == ["command", "command"]
    settings.apply(moved)
    assert path.read_text() == first.replace("/old/wtc", EXE)
    restored = settings.plan_uninstall("project", path, tmp_path / "backups")
    settings.apply(restored)
    assert not path.exists(), "the file install created is gone again"


@pytest.mark.parametrize("text", [
    "{}",
    "{}\n",
    '{"model": "opus"}\n',
    '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Stop": []\n\t}\n}\n',
    '{\r\n  "hooks": {\r\n    "WorktreeCreate": []\r\n  }\r\n}\r\n',
    '{\n  "hooks": {}\n}\n',
    '{"hooks": {"WorktreeRemove": [{"hooks": [{"type": "command", "command": "echo x"}]}]}}',
])
def test_edits_keep_each_layout_and_say_exactly_what_was_meant(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_bytes(text.encode())
    if "echo x" in text:
        with pytest.raises(UsageError):
            settings.plan_install("project", path, tmp_path / "b", EXE)
        return
    change = settings.plan_install("project", path, tmp_path / "b", EXE)
    assert not any("rewritten" in action for action in change.actions), change.actions
    after = change.after.decode()
    assert json.loads(after)["hooks"]["WorktreeRemove"][0]["hooks"][0]["command"] == f"{EXE} hook claude worktree-remove"
    if "\r\n" in text:
        assert "\n" not in after.replace("\r\n", "")
    if "\t" in text:
        assert '\t\t"WorktreeCreate": [' in after
    settings.apply(change)
    settings.apply(settings.plan_uninstall("project", path, tmp_path / "b"))
    assert path.read_bytes() == text.encode()


def test_json_text_removes_members_with_their_commas():
    doc = JsonText(b'{\n  "a": 1,\n  "b": [1, 2, 3],\n  "c": {"d": 4}\n}\n')
    doc = doc.remove(doc.find(["b", 0]))
    doc = doc.remove(doc.find(["b", 1]))
    doc = doc.remove(doc.find(["a"]))
    assert doc.data == b'{\n  "b": [2],\n  "c": {"d": 4}\n}\n'
    doc = doc.remove(doc.find(["c", "d"]))
    doc = doc.remove(doc.find(["b", 0]))
    assert json.loads(doc.data) == {"b": [], "c": {}}


def test_task_names_from_agent_names_are_valid_and_keep_what_they_can():
    from worktree_coord.coordinator.agents import _session_run_name, _task_names, task_name_from
    from worktree_coord.model import validate_name

    for text in ["api-1", "a/b c", "..x", "-lead", "name.lock", "integration", "ü" * 80, "", "a..b", "x" * 300,
                 "trailing-", "dots...."]:
        name = task_name_from(text)
        assert validate_name("task", name) == name
        candidates = [n for _, n in zip(range(5), _task_names(text, "claude", "s"))]
        assert len(set(candidates)) == 5 and all(validate_name("task", n) for n in candidates)
    assert task_name_from("api-1") == "api-1" and task_name_from("a/b c") == "a-b-c"
    session = "0f3c2a9e-5d1b-4c77-9d3e-1a2b3c4d5e6f"
    assert _session_run_name("claude", session, 1) == f"claude-{session}"
    assert _session_run_name("claude", session, 2) == f"claude-{session}-2"
    assert validate_name("run", _session_run_name("claude", "s" * 300, 7))


def test_worktree_setup_and_default_boundary_are_validated_by_key():
    from worktree_coord.config import parse_config
    from worktree_coord.errors import ConfigError

    config = parse_config({"worktree-setup": {"link": ["node_modules"], "run": "npm ci", "timeout": 60, "ports": 0},
                           "default-boundary": {"own": ["src/**"], "sparse": True}}, "pyproject.toml")
    assert config.worktree_setup.link == ("node_modules",) and config.worktree_setup.ports == 0
    assert config.default_boundary.own == ("src/**",) and config.default_boundary.sparse
    for table, words in [({"worktree-setup": {"lnk": []}}, "no worktree-setup.lnk"),
                         ({"worktree-setup": {"link": ["../up"]}}, "whose link is"),
                         ({"worktree-setup": {"timeout": "soon"}}, "whose timeout is a positive number"),
                         ({"worktree-setup": {"port-base": 80}}, "from 1024"),
                         ({"default-boundary": {"own": []}}, "at least one glob"),
                         ({"default-boundary": "src/**"}, "a table with the keys own, read, sparse")]:
        with pytest.raises(ConfigError) as raised:
            parse_config(table, ".wtc.toml")
        assert words in raised.value.message and ".wtc.toml" in raised.value.message


def _script(folder: Path) -> Path:
    """A `wtc` console script as pip writes one, at `folder/wtc`."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "wtc"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom worktree_coord.entry import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return script


def test_project_scope_warns_of_this_machines_path_and_offers_the_portable_form(tmp_path):
    # Issue 35: --scope project wrote this machine's absolute path into the committed
    # .claude/settings.json without a word.
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", ".gitignore": ".venv/\n"})
    settings_file = repo / ".claude" / "settings.json"
    outside = run(repo, "hooks", "install", "claude", "--scope", "project", "--dry-run")
    assert outside.returncode == 0
    assert "warning:" in outside.stderr and sys.executable in outside.stderr and "committed" in outside.stderr
    assert "no portable form" in outside.stderr and "--scope local" in outside.stderr
    refused = run(repo, "hooks", "install", "claude", "--scope", "project", "--portable")
    assert refused.returncode == 2 and "no portable form" in refused.stderr and not settings_file.exists()

    inside = _script(repo / ".venv" / "bin")          # the project's own virtual environment
    offered = subprocess.run([str(inside), "hooks", "install", "claude", "--scope", "project", "--json"], cwd=repo,
                             capture_output=True, text=True)
    body = json.loads(offered.stdout)
    assert offered.returncode == 0 and any(str(inside) in w and '"$CLAUDE_PROJECT_DIR"/.venv/bin/wtc' in w
                                           for w in body["warnings"]), body
    portable = subprocess.run([str(inside), "hooks", "install", "claude", "--scope", "project", "--portable"],
                              cwd=repo, capture_output=True, text=True)
    assert portable.returncode == 0 and "warning" not in portable.stderr, portable.stderr
    command = json.loads(settings_file.read_text())["hooks"]["WorktreeCreate"][0]["hooks"][0]["command"]
    assert command == '"$CLAUDE_PROJECT_DIR"/.venv/bin/wtc hook claude worktree-create'
    # The command works wherever the project is, as Claude Code runs it: a shell, CLAUDE_PROJECT_DIR set.
    payload = json.dumps({"session_id": "s", "cwd": str(repo), "name": "agent-1"})
    created = subprocess.run(["sh", "-c", command], input=payload, cwd=repo, capture_output=True, text=True,
                             env=dict(os.environ, CLAUDE_PROJECT_DIR=str(repo)))
    assert created.returncode == 0 and Path(created.stdout.strip()).is_dir(), created.stderr

    on_path = _script(tmp_path / "bin")                # a wtc every machine has on its PATH
    other = make_repo(tmp_path / "other", {"a.txt": "a\n"})
    found = subprocess.run(["wtc", "hooks", "install", "claude", "--scope", "project", "--portable"], cwd=other,
                           capture_output=True, text=True, env=dict(os.environ, PATH=f"{on_path.parent}:{os.environ['PATH']}"))
    assert found.returncode == 0, found.stderr
    command = json.loads((other / ".claude" / "settings.json").read_text())["hooks"]["WorktreeRemove"][0]["hooks"][0]
    assert command["command"] == "wtc hook claude worktree-remove"
