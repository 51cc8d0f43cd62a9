"""Gradle's version catalog, gradle/libs.versions.toml, is a reserved root manifest (ecosystem
gradle): a task's `[libraries]` and `[plugins]` entries become dependency intents keyed by alias,
written back as the task wrote them, and `[versions]` and `[bundles]` entries settings, key by key;
gradle.lockfile, when the build commits one, needs Gradle to relock, and without it the catalog lands
under a warning naming the command. A build.gradle(.kts) is code: its dependency lines merge as text,
and the finish says so. Real repositories, the real faces; no Gradle is installed (PATH holds git only)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process
from worktree_coord.boundary.manifest import DEFAULT_RESERVED
from worktree_coord.consolidate import Ecosystem, Op, classify_path, derive_intents
from worktree_coord.consolidate.derive import find_root

CATALOG = '''[versions]
guava = "33.0.0-jre"
junit = "5.10.0"  # keep in step with the BOM

[libraries]
guava = { module = "com.google.guava:guava", version.ref = "guava" }
junit-api = { module = "org.junit.jupiter:junit-jupiter-api", version.ref = "junit" }
truth = "com.google.truth:truth:1.4.0"

[plugins]
spotless = { id = "com.diffplug.spotless", version = "6.25.0" }
'''
BUILD = '''plugins {
    `java-library`
}

dependencies {
    implementation(libs.guava)
    testImplementation(libs.truth)
}
'''
LOCK = "# This is a Gradle generated file for dependency locking.\ncom.google.guava:guava:33.0.0-jre=compileClasspath\n"
ASSERTJ = 'truth = "com.google.truth:truth:1.4.0"\nassertj = "org.assertj:assertj-core:3.25.3"\n'
MOCKITO = 'mockito = { module = "org.mockito:mockito-core", version = "5.11.0" }\njunit-api = {'


def test_the_catalog_is_reserved_and_its_entries_become_intents_by_alias():
    assert "/gradle/libs.versions.toml" in DEFAULT_RESERVED and "gradle.lockfile" in DEFAULT_RESERVED
    kind = classify_path("gradle/libs.versions.toml")
    assert (kind.kind, kind.format, kind.ecosystem) == ("manifest", "gradle-catalog", Ecosystem.GRADLE)
    assert find_root("gradle/libs.versions.toml", {"gradle/libs.versions.toml", "settings.gradle.kts"}) == ""
    new = (CATALOG.replace('truth = "com.google.truth:truth:1.4.0"\n', ASSERTJ).replace('"1.4.0"', '"1.4.2"')
           .replace('junit = "5.10.0"', 'junit = "5.10.2"'))
    intents = derive_intents("gradle/libs.versions.toml", CATALOG.encode(), new.encode(), task="t")
    assert {(i.op, i.root, i.group, i.name, i.spec) for i in intents} == {
        (Op.ADD_DEP, "", "libraries", "assertj", "3.25.3"),
        (Op.SET_KEY, "", "settings", "versions.junit", '"5.10.2"')}
    assert {i.ecosystem for i in intents} == {Ecosystem.GRADLE}


def _git_only_path(tmp_path: Path) -> str:
    """A PATH with git and nothing else: no Gradle, whatever this machine has."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    return str(bin_dir)


def _task(repo: Path, task: str, files: dict[str, str], own: str = "src/**") -> dict:
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", own)
    assert code == 0, started
    write(Path(started["worktree"]), files)
    code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r")
    assert (code, finished["state"]) == (0, "merged"), finished
    return finished


def test_two_tasks_entries_land_in_one_catalog_and_without_gradle_the_lockfile_is_named(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"gradle/libs.versions.toml": CATALOG, "build.gradle.kts": BUILD,
                                         "gradle.lockfile": LOCK, "src/main/java/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    one = _task(repo, "assertj", {"gradle/libs.versions.toml": CATALOG.replace(
        'truth = "com.google.truth:truth:1.4.0"\n', ASSERTJ)})
    assert [(i["op"], i["name"]) for i in one["intents"]] == [("add_dep", "assertj")]
    two = _task(repo, "mockito", {"gradle/libs.versions.toml": CATALOG.replace("junit-api = {", MOCKITO).replace(
        'junit = "5.10.0"', 'junit = "5.10.2"'), "build.gradle.kts": BUILD.replace(
        "    testImplementation(libs.truth)\n",
        "    testImplementation(libs.truth)\n    testImplementation(\"org.mockito:mockito-junit-jupiter:5.11.0\")\n")},
        own="build.gradle.kts")
    [note] = [n for n in two["notes"] if n.startswith("build.gradle.kts: dependency lines changed")]
    assert '+ testImplementation("org.mockito:mockito-junit-jupiter:5.11.0")' in note
    assert "merge as text" in note and "only gradle/libs.versions.toml entries are consolidated" in note

    code, body = wtc_in_process(repo, "consolidate", "--run", "r", env={"PATH": _git_only_path(tmp_path)})
    assert code == 0, body
    [root] = body["roots"]
    assert (root["ecosystem"], root["state"], root["files_changed"]) == \
        ("gradle", "applied", ["gradle/libs.versions.toml"]), root
    [warning] = root["warnings"]
    assert "gradle is not installed" in warning and "dependencies --write-locks" in warning, warning
    assert git(repo, "show", "wtc/r/integration:gradle/libs.versions.toml") + "\n" == CATALOG.replace(
        'truth = "com.google.truth:truth:1.4.0"\n', ASSERTJ).replace("junit-api = {", MOCKITO).replace(
        'junit = "5.10.0"', 'junit = "5.10.2"')
    assert git(repo, "show", "wtc/r/integration:gradle.lockfile") + "\n" == LOCK
    # The build script's line merged as the task's text.
    assert 'testImplementation("org.mockito:mockito-junit-jupiter:5.11.0")' in git(
        repo, "show", "wtc/r/integration:build.gradle.kts")
