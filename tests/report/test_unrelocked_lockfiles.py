"""A lockfile of an ecosystem wtc does not relock (Bundler's Gemfile.lock, Composer's composer.lock)
is never merged as text in silence.

Found driving wtc on sinatra/sinatra and slimphp/Slim: two tasks each adding a gem to the Gemfile
and its entry to Gemfile.lock (a package to composer.json and composer.lock) finished; the first
merged with no word about its lockfile, and the second's conflict said to resolve the lockfile's
markers by hand ("resolve, then finish again"), which writes a lockfile Bundler never resolved (and
a composer.lock whose content-hash matches no composer.json). Now finish, `task check` and the
report say the file is that tool's lockfile, that wtc does not relock it, and the command that
regenerates it; a conflict in one says not to merge its lines by hand.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, write, wtc_in_process

GEMFILE = "source 'https://rubygems.org'\n\ngem 'rake'\n"
LOCK = ("GEM\n  remote: https://rubygems.org/\n  specs:\n    rake (13.0.6)\n{specs}\nPLATFORMS\n  ruby\n\n"
        "DEPENDENCIES\n  rake\n{deps}\nBUNDLED WITH\n   2.3.15\n")


def _with_gem(gem: str) -> dict[str, str]:
    return {"Gemfile": GEMFILE + f"gem '{gem}'\n",
            "Gemfile.lock": LOCK.format(specs=f"    {gem} (1.0.0)\n", deps=f"  {gem}\n")}


def test_finish_check_and_report_name_the_lockfile_wtc_does_not_relock(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"Gemfile": GEMFILE, "Gemfile.lock": LOCK.format(specs="", deps="")})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    worktrees = {}
    for task, gem in (("a", "rubocop"), ("b", "yard")):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "**")
        assert code == 0, started
        worktrees[task] = Path(started["worktree"])
        write(worktrees[task], _with_gem(gem))

    code, checked = wtc_in_process(repo, "task", "check", "b", "--run", "r")
    assert code == 1, checked
    assert any(note.startswith("Gemfile.lock: Bundler's lockfile, which wtc does not relock") and
               "`bundle lock --local`" in note for note in checked["notes"]), checked["notes"]
    [onto_a] = [row for row in checked["onto"] if row["target"] == "a"]
    why = [w for c in onto_a["conflicts"] if c["path"] == "Gemfile.lock" for w in c.get("why", [])]
    assert why and "do not merge its lines by hand" in why[0], onto_a
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "check", "b", "--run", "r"], cwd=repo,
                          capture_output=True, text=True).stdout
    assert "why Gemfile.lock: Gemfile.lock is Bundler's lockfile, which wtc does not relock" in text, text
    assert "note: Gemfile.lock: Bundler's lockfile" in text, text

    code, first = wtc_in_process(repo, "task", "finish", "a", "--run", "r")
    assert code == 0 and first["state"] == "merged", first
    assert any("Gemfile.lock: Bundler's lockfile, which wtc does not relock" in note for note in first["notes"])

    code, second = wtc_in_process(repo, "task", "finish", "b", "--run", "r")
    assert code == 1 and second["state"] == "conflict", second
    lock_conflicts = [c for c in second["conflicts"] if c["path"] == "Gemfile.lock"]
    assert lock_conflicts and all(any("(in the worktree: `git checkout --theirs -- Gemfile.lock`) and regenerate "
                                      "the file there with `bundle lock --local`" in w for w in c["why"])
                                  for c in lock_conflicts), second["conflicts"]
    # `task update` says it too, beside the markers it leaves in the lockfile.
    code, updated = wtc_in_process(repo, "task", "update", "b", "--run", "r")
    assert code == 1 and updated["conflicted_paths"] == ["Gemfile.lock"], updated
    assert any(note.startswith("Gemfile.lock keeps conflict markers because Gemfile.lock is Bundler's lockfile")
               for note in updated["notes"]), updated["notes"]

    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert any(w.startswith("not relocked: Gemfile.lock: Bundler's lockfile") for w in report["warnings"]), report


def test_a_lockfile_wtc_relocks_or_plain_code_gets_no_such_note(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"Gemfile": GEMFILE, "lib/app.rb": "X = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "**")
    write(Path(started["worktree"]), {"Gemfile": GEMFILE + "gem 'yard'\n", "lib/app.rb": "X = 2\n"})
    code, checked = wtc_in_process(repo, "task", "check", "t", "--run", "r")
    assert code == 0 and checked["notes"] == [], checked
    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert code == 0 and not any("lockfile" in note for note in finished["notes"]), finished["notes"]


# (the lockfile as a project holds it, its tool, a word of the command that regenerates it)
MORE_LOCKFILES = [
    ("ios/Podfile.lock", "CocoaPods", "`pod install`"),
    ("Package.resolved", "SwiftPM", "`swift package resolve`"),
    ("mix.lock", "Mix", "`mix deps.get`"),
    ("app/pubspec.lock", "pub", "`dart pub get`"),
    ("Pipfile.lock", "Pipenv", "`pipenv lock`"),
    ("src/App/packages.lock.json", "NuGet", "`dotnet restore --force-evaluate`"),
]


def test_finish_names_every_lockfile_wtc_does_not_relock_with_its_command(tmp_path: Path) -> None:
    """CocoaPods, SwiftPM, Mix, pub, Pipenv and NuGet lockfiles merge as text like Gemfile.lock: the
    finish that merges a task's edit of one says whose lockfile it is and how to regenerate it."""
    repo = make_repo(tmp_path / "repo", {path: "locked: 1\n" for path, _, _ in MORE_LOCKFILES})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "**")
    assert code == 0, started
    write(Path(started["worktree"]), {path: "locked: 2\n" for path, _, _ in MORE_LOCKFILES})
    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    for path, tool, command in MORE_LOCKFILES:
        said = [note for note in finished["notes"] if note.startswith(f"{path}: {tool}'s lockfile, which wtc does not "
                                                                       "relock")]
        folder = path.rpartition("/")[0] or "the root"
        assert len(said) == 1 and f"regenerate it on the landed tree with {command}" in said[0] and \
            f" in {folder}," in said[0], (path, finished["notes"])
