"""End to end: eight tasks off one pin each add a CHANGELOG bullet, a .gitignore line and a
catalog entry (gettext PO and Java .properties) at the same places; every task merges into
integration through the real coordinator (git's tree merge, then the resolver) and every addition
is kept, once, in the order the tasks merged."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, write
from worktree_coord.coordinator import Coordinator

CHANGELOG = "# Changelog\n\n## Unreleased\n\n### Added\n\n- Start.\n\n## 1.0\n\n- First release.\n"
GITIGNORE = "# python\n*.pyc\n"
PO = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n#: app.py:1\nmsgid "Hello"\nmsgstr "Hallo"\n'
PROPERTIES = "# UI strings\nhello=Hello\n"


def test_eight_tasks_appending_to_shared_lists_all_merge_with_every_addition_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"CHANGELOG.md": CHANGELOG, ".gitignore": GITIGNORE,
                                         "locale/de.po": PO, "ui/messages.properties": PROPERTIES,
                                         "src/app.py": "print('hi')\n"})
    names = [f"t{i}" for i in range(8)]
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        worktrees = {name: Path(coord.start_task("r1", name, ["**"]).worktree) for name in names}
        for i, name in enumerate(names):
            write(worktrees[name], {
                "CHANGELOG.md": CHANGELOG.replace("- Start.\n", f"- Start.\n- Feature {i} (task {name}).\n"),
                ".gitignore": GITIGNORE + f"out{i}/\n",
                "locale/de.po": PO + f'\n#: app.py:{10 + i}\nmsgid "Message {i}"\nmsgstr "Nachricht {i}"\n',
                "ui/messages.properties": PROPERTIES + f"label{i}=Label {i}\n",
            })
        for name in names:
            finished = coord.finish_task("r1", name)
            assert finished.state == "merged", (name, finished)
    tip = "refs/heads/wtc/r1/integration"

    def show(path: str) -> str:
        return git(repo, "show", f"{tip}:{path}") + "\n"

    assert show("CHANGELOG.md") == CHANGELOG.replace(
        "- Start.\n", "- Start.\n" + "".join(f"- Feature {i} (task t{i}).\n" for i in range(8)))
    assert show(".gitignore") == GITIGNORE + "".join(f"out{i}/\n" for i in range(8))
    assert show("locale/de.po") == PO + "".join(
        f'\n#: app.py:{10 + i}\nmsgid "Message {i}"\nmsgstr "Nachricht {i}"\n' for i in range(8))
    assert show("ui/messages.properties") == PROPERTIES + "".join(f"label{i}=Label {i}\n" for i in range(8))
    assert git(repo, "grep", "-l", "-e", "^<<<<<<<", tip, check=False) == ""
