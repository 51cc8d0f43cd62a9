"""`wtc task update` of a task that edited a reserved manifest integration changed since (another
task's intents consolidated into it): found driving wtc on koajs/koa, the update left conflict
markers in package.json, finish refused them and advised taking one side, and taking integration's
made the next finish derive no intent: the task's dependency change was dropped without a word.
Now the update writes integration's version with the task's edits applied as their intents, says
which key the task sets over another change, and finish carries them to consolidation."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

HATCH = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "app"
version = "1.0"
dependencies = [
  "idna",
  "sniffio",
]
"""


def test_an_update_carries_a_reserved_edit_onto_what_consolidation_made_and_nothing_is_dropped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": HATCH, "src/a.py": "A = 1\n", "src/b.py": "B = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, first = wtc_in_process(repo, "task", "start", "first", "--run", "r", "--own", "src/a.py")
    code, second = wtc_in_process(repo, "task", "start", "second", "--run", "r", "--own", "src/b.py")
    write(Path(first["worktree"]), {"pyproject.toml": HATCH.replace('  "idna",\n', '  "idna>=3",\n'),
                                    "src/a.py": "A = 2\n"})
    code, done = wtc_in_process(repo, "task", "finish", "first", "--run", "r")
    assert code == 0 and done["state"] == "merged", done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert '"idna>=3"' in git(repo, "show", "wtc/r/integration:pyproject.toml")

    # The second task, still at the pin, sets the same requirement otherwise and adds one.
    work = Path(second["worktree"])
    write(work, {"pyproject.toml": HATCH.replace('  "idna",\n', '  "idna<4",\n  "anyio",\n'), "src/b.py": "B = 2\n"})
    code, updated = wtc_in_process(repo, "task", "update", "second", "--run", "r")
    assert code == 0 and updated["conflicted_paths"] == [], updated
    text = (work / "pyproject.toml").read_text()
    assert "<<<<<<<" not in text and '"idna<4"' in text and '"anyio"' in text, text
    [note] = [n for n in updated["notes"] if n.startswith("pyproject.toml:")]
    assert "set_spec idna <4" in note and "idna (integration holds >=3, the task's base had it without a version spec)" in note, note

    code, finished = wtc_in_process(repo, "task", "finish", "second", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    assert {i["name"] for i in finished["intents"]} == {"idna", "anyio"}, finished["intents"]
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    landed = git(repo, "show", "wtc/r/integration:pyproject.toml")
    assert '"idna<4"' in landed and '"anyio"' in landed and '"sniffio"' in landed, landed


def test_markers_in_a_reserved_manifest_at_finish_get_a_way_out_that_works_and_keeps_the_edit(tmp_path: Path) -> None:
    """Finish refused a reserved manifest holding conflict markers advising `git checkout --theirs`,
    which fails once finish has committed the file (no merge is open) and, taken during a merge,
    drops the task's edit. The way out now named is the file as the task's base holds it, the
    task's edit made again on it; followed, the edit lands."""
    import subprocess

    repo = make_repo(tmp_path / "repo", {"pyproject.toml": HATCH, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "src/**")
    work = Path(started["worktree"])
    marked = HATCH.replace('  "idna",\n', '<<<<<<< ours\n  "idna<4",\n=======\n  "idna>=3",\n>>>>>>> theirs\n')
    write(work, {"pyproject.toml": marked, "src/a.py": "A = 2\n"})
    code, refused = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert code == 3 and refused["state"] == "rejected", refused
    [row] = [v for v in refused["violations"] if v["path"] == "pyproject.toml"]
    assert "--theirs" not in row["detail"], row["detail"]
    command = row["detail"].split("`")[1]
    assert command.startswith("git show ") and command.endswith("> pyproject.toml"), command
    subprocess.run(["sh", "-c", command], cwd=work, check=True)        # as the refusal says
    assert (work / "pyproject.toml").read_text() == HATCH
    write(work, {"pyproject.toml": HATCH.replace('  "idna",\n', '  "idna<4",\n')})   # the edit made again
    code, done = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert code == 0 and done["state"] == "merged", done
    assert [i["name"] for i in done["intents"]] == ["idna"], done["intents"]
