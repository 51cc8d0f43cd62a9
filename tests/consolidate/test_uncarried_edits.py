"""A task's edit of a reserved manifest that no intent carries (a comment) is refused at
finish with its line named, never merged as "merged" and dropped: intents are key-level, and the
merge puts every reserved path back as it was at the base, so a comment-only edit of requirements.txt
(and a comment in a Cargo.toml, pyproject.toml, go.mod or pom.xml) derived nothing and vanished, said
only as "no intent carries it". Real repositories, `wtc task finish`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc_in_process

POM = ("<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>g</groupId>\n  <artifactId>a</artifactId>\n"
       "  <version>1</version>\n  <dependencies>\n    <dependency><groupId>x</groupId><artifactId>y</artifactId>"
       "<version>1</version></dependency>\n  </dependencies>\n</project>\n")
FILES = {
    "requirements.txt": "-e .[brotli,cli]\n\n# Tests\npytest==8.3.5\n",
    "package.json": json.dumps({"name": "x", "version": "1.0.0", "dependencies": {"a": "1", "b": "2"}}, indent=2) + "\n",
    "go.mod": "module example.com/x\n\ngo 1.21\n\nrequire golang.org/x/text v0.3.0\n",
    "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n',
    "pyproject.toml": '[project]\nname = "x"\nversion = "1"\ndependencies = [\n  "httpx",\n]\n',
    "pom.xml": POM,
}
# (file, the task's whole new text, the line the refusal must name)
EDITS = {
    "requirements-comment": ("requirements.txt", FILES["requirements.txt"].replace("# Tests", "# Tests (pinned: #123)"),
                             "requirements.txt:3: the comment '# Tests (pinned: #123)'"),
    "go-comment": ("go.mod", FILES["go.mod"].replace("go 1.21", "// slices needs 1.21\ngo 1.21"),
                   "go.mod:3: the comment '// slices needs 1.21'"),
    "cargo-comment": ("Cargo.toml", FILES["Cargo.toml"].replace('serde = "1"', 'serde = "1"  # derive only'),
                      "Cargo.toml:6: the comment '# derive only'"),
    "pyproject-comment": ("pyproject.toml", FILES["pyproject.toml"].replace('"httpx",', '"httpx",  # the client'),
                          "pyproject.toml:5: the comment '# the client'"),
    "pom-comment": ("pom.xml", POM.replace("  <dependencies>", "  <!-- y: used by z -->\n  <dependencies>"),
                    "pom.xml:6: the comment '<!-- y: used by z -->'"),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {**FILES, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    return repo


def _finish(repo: Path, task: str, files: dict[str, str]) -> tuple[int, dict]:
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "src/**")
    assert code == 0, started
    write(Path(started["worktree"]), files)
    return wtc_in_process(repo, "task", "finish", task, "--run", "r")


@pytest.mark.parametrize("task", sorted(EDITS))
def test_an_edit_no_intent_carries_is_refused_with_its_line_named(repo: Path, task: str) -> None:
    path, text, named = EDITS[task]
    code, done = _finish(repo, task, {path: text})
    assert code == 3 and done["state"] == "rejected", done
    [violation] = done["violations"]
    assert violation["rule"] == "reserved_unexpressible" and violation["path"] == path
    assert named in violation["detail"] and "take those edits out of" in violation["detail"], violation
    # nothing lost: the task's commit still holds the edit
    assert wtc_in_process(repo, "status", "--run", "r")[1]["tasks"][0]["state"] != "merged"


def test_an_edit_of_layout_alone_merges_and_is_said(repo: Path) -> None:
    """A package.json whose keys were only reordered loses nothing npm reads: it merges, and the
    finish says that no intent carries it."""
    text = FILES["package.json"].replace('"a": "1",\n    "b": "2"', '"b": "2",\n    "a": "1"')
    code, done = _finish(repo, "order", {"package.json": text})
    assert code == 0 and done["state"] == "merged" and done["intents"] == [], done
    assert any(note.startswith("package.json: the edit changes no dependency") for note in done["notes"]), done


def test_key_edits_beside_comments_still_merge_and_keep_the_comments(repo: Path) -> None:
    """The comments the base holds stay where consolidation's editors keep them: no refusal."""
    code, done = _finish(repo, "keys", {
        "requirements.txt": FILES["requirements.txt"].replace("8.3.5", "8.4.1") + "httpx==0.28.1\n",
        "go.mod": FILES["go.mod"].replace("v0.3.0", "v0.14.0"),
        "Cargo.toml": FILES["Cargo.toml"] + 'anyhow = "1"\n',
    })
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    assert len(done["intents"]) == 4, done["intents"]


def test_a_requirement_written_with_its_comment_lands_with_it(repo: Path) -> None:
    """A comment on a requirement's own line is part of the entry the task wrote: consolidation
    writes it (httpx's requirements.txt, a task adding `pytest-asyncio==1.1.0  # async fixtures`),
    and a comment the task put on a requirement it changed replaces the one it had."""
    text = FILES["requirements.txt"].replace("pytest==8.3.5", "pytest==8.4.1  # 8.4: the fixture fix") \
        + "pytest-asyncio==1.1.0  # async fixtures\n"
    code, done = _finish(repo, "commented", {"requirements.txt": text})
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert git(repo, "show", "wtc/r/integration:requirements.txt") + "\n" == text
