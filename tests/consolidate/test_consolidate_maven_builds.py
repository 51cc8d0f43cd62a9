"""Maven builds as Maven reads them: a pom.xml in the encoding it declares, only declared modules
(and the parents they name by `<relativePath>`) in a build, and `<build>`'s plugins keyed by
groupId:artifactId as dependencies are. Real repositories, the real faces (`wtc task finish`,
`wtc consolidate`); Maven locks nothing, so nothing here needs the network or mvn."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process
from worktree_coord.consolidate.derive import find_root

LATIN = """<?xml version="1.0" encoding="ISO-8859-1"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>caf\u00e9</artifactId>
  <version>1.0</version>
  <description>Biblioth\u00e8que de d\u00e9mo</description>

  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
    </dependency>
  </dependencies>
</project>
"""
GUAVA = """    <dependency>
      <groupId>com.google.guava</groupId>
      <artifactId>guava</artifactId>
      <version>33.0.0-jre</version>
    </dependency>
"""


def _task(repo: Path, task: str, files: dict[str, str | bytes], own: str = "src/**", expect: str = "merged") -> dict:
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", own)
    assert code == 0, started
    write(Path(started["worktree"]), files)
    code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r")
    assert finished["state"] == expect, finished
    return finished


def test_a_latin1_pom_is_read_and_written_back_in_its_declared_encoding(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pom.xml": LATIN.encode("latin-1"), "src/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    with_guava = LATIN.replace("  </dependencies>", GUAVA + "  </dependencies>")
    _task(repo, "guava", {"pom.xml": with_guava.encode("latin-1")})
    described = LATIN.replace("de d\u00e9mo", "de d\u00e9mo, \u00e9t\u00e9 \u20ac")   # the euro: not Latin-1
    _task(repo, "describe", {"pom.xml": described.encode("latin-1", "xmlcharrefreplace")})
    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, body
    blob = subprocess.run(["git", "show", "wtc/r/integration:pom.xml"], cwd=repo, capture_output=True,
                          check=True).stdout   # bytes: the file is Latin-1
    expected = LATIN.replace("  </dependencies>", GUAVA + "  </dependencies>").replace(
        "de d\u00e9mo", "de d\u00e9mo, \u00e9t\u00e9 &#8364;")
    assert blob == expected.encode("latin-1")


def test_a_pom_not_in_its_declared_encoding_is_refused_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pom.xml": LATIN.encode("latin-1"), "src/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    utf8 = LATIN.replace("  </dependencies>", GUAVA + "  </dependencies>").encode("utf-8")   # still says Latin-1
    refused = _task(repo, "guava", {"pom.xml": utf8.replace(b"ISO-8859-1", b"US-ASCII")}, expect="rejected")
    [violation] = refused["violations"]
    assert violation["rule"] == "reserved_invalid" and violation["path"] == "pom.xml"
    assert "pom.xml is not ascii as its XML declaration says" in violation["detail"]
    assert "save pom.xml as ascii, or name the encoding it is written in" in violation["detail"]


AGGREGATOR = """<project>
  <groupId>com.example</groupId>
  <artifactId>all</artifactId>
  <version>1.0</version>
  <modules>
    <module>core</module>
  </modules>
</project>
"""
CORE = """<project>
  <parent>
    <groupId>com.example</groupId>
    <artifactId>build-parent</artifactId>
    <version>1.0</version>
    <relativePath>../build-parent/pom.xml</relativePath>
  </parent>
  <artifactId>core</artifactId>
  <dependencies>
  </dependencies>
</project>
"""
STANDALONE = """<project>
  <groupId>com.example</groupId>
  <artifactId>{name}</artifactId>
  <version>1.0</version>
  <dependencies>
  </dependencies>
</project>
"""


def test_only_declared_modules_and_their_parents_are_the_builds(tmp_path: Path) -> None:
    files = {"pom.xml": AGGREGATOR, "core/pom.xml": CORE, "build-parent/pom.xml": STANDALONE.format(name="build-parent"),
             "examples/pom.xml": STANDALONE.format(name="examples"), "src/A.java": "class A {}\n"}
    paths = frozenset(files)

    def read(name: str) -> bytes | None:
        return files[name].encode() if name in files else None

    assert find_root("core/pom.xml", paths, read) == ""
    assert find_root("build-parent/pom.xml", paths, read) == "", "a module's parent by <relativePath>"
    assert find_root("examples/pom.xml", paths, read) == "examples", "no <modules> lists it"

    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    example = _task(repo, "example", {"examples/pom.xml": STANDALONE.format(name="examples").replace(
        "  </dependencies>", GUAVA + "  </dependencies>")})
    assert [(i["root"], i["member"], i["name"]) for i in example["intents"]] == \
        [("examples", None, "com.google.guava:guava")]
    core = _task(repo, "core", {"core/pom.xml": CORE.replace("  </dependencies>", GUAVA.replace("    ", "  ", 1)
                                                             + "  </dependencies>")})
    assert [(i["root"], i["member"]) for i in core["intents"]] == [("", "core")]
    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, body
    assert sorted((root["root"], root["state"], root["files_changed"][0]) for root in body["roots"]) == [
        ("", "applied", "core/pom.xml"), ("examples", "applied", "examples/pom.xml")]


BUILT = """<project>
  <groupId>com.example</groupId>
  <artifactId>poet</artifactId>
  <version>1.0</version>

  <build>
    <plugins>
      <plugin>
        <artifactId>maven-jar-plugin</artifactId>
        <version>3.4.2</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.11.0</version>
      </plugin>
    </plugins>
  </build>
</project>
"""
SUREFIRE = """      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.2.5</version>
      </plugin>
"""
MANAGED = """    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.codehaus.mojo</groupId>
          <artifactId>exec-maven-plugin</artifactId>
          <version>3.1.1</version>
        </plugin>
      </plugins>
    </pluginManagement>
"""


def test_tasks_changing_different_plugins_all_land_and_one_plugin_changed_twice_conflicts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pom.xml": BUILT, "src/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    jar = _task(repo, "jar", {"pom.xml": BUILT.replace("3.4.2", "3.4.3")})
    assert [(i["op"], i["name"]) for i in jar["intents"]] == \
        [("set_key", 'build.plugins."org.apache.maven.plugins:maven-jar-plugin"')]
    _task(repo, "surefire", {"pom.xml": BUILT.replace("    </plugins>", SUREFIRE + "    </plugins>")})
    _task(repo, "managed", {"pom.xml": BUILT.replace("  </build>", MANAGED + "  </build>")})
    _task(repo, "compiler-a", {"pom.xml": BUILT.replace("3.11.0", "3.12.1")})
    _task(repo, "compiler-b", {"pom.xml": BUILT.replace("3.11.0", "3.13.0")})
    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 1, body
    [root] = body["roots"]
    [conflict] = root["conflicts"]
    assert conflict["tasks"] == ["compiler-a", "compiler-b"] and "maven-compiler-plugin" in conflict["message"]
    assert {task for change in root["applied"] for task in change["tasks"]} == {"jar", "surefire", "managed"}
    # the output names each plugin by its key and its block by its first line and size
    assert 'set_key build.plugins."org.apache.maven.plugins:maven-jar-plugin" <plugin> ... (4 lines)' in \
        [change["summary"] for change in root["applied"]]
    landed = git(repo, "show", "wtc/r/integration:pom.xml") + "\n"
    assert landed == BUILT.replace("3.4.2", "3.4.3").replace("    </plugins>", SUREFIRE + "    </plugins>").replace(
        "  </build>", MANAGED + "  </build>")
