"""Maven `<profiles>` keyed as Maven reads them: each `<profile>` by its id, its dependencies by
groupId:artifactId and its build's plugins as the main build's. `<profiles>` was one setting carried
whole, so two tasks changing different profiles' dependencies (found driving wtc on a Maven project
with `ci` and `release` profiles) conflicted at consolidation. Real repositories, the real faces
(`wtc task finish`, `wtc consolidate`); Maven locks nothing, so nothing here needs the network or mvn."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

PROFILED = """<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>app</artifactId>
  <version>1.0</version>

  <profiles>
    <profile>
      <id>ci</id>
      <dependencies>
        <dependency>
          <groupId>org.jacoco</groupId>
          <artifactId>org.jacoco.agent</artifactId>
          <version>0.8.11</version>
        </dependency>
      </dependencies>
    </profile>
    <!-- signing and sources for Maven Central -->
    <profile>
      <id>release</id>
      <build>
        <plugins>
          <plugin>
            <groupId>org.apache.maven.plugins</groupId>
            <artifactId>maven-gpg-plugin</artifactId>
            <version>3.1.0</version>
          </plugin>
        </plugins>
      </build>
    </profile>
  </profiles>
</project>
"""
MOCKITO = """        <dependency>
          <groupId>org.mockito</groupId>
          <artifactId>mockito-core</artifactId>
          <version>5.11.0</version>
        </dependency>
"""
SOURCES = """          <plugin>
            <groupId>org.apache.maven.plugins</groupId>
            <artifactId>maven-source-plugin</artifactId>
            <version>3.3.0</version>
          </plugin>
"""
NEW_PROFILE = """    <profile>
      <id>bench</id>
      <activation>
        <property><name>bench</name></property>
      </activation>
      <properties>
        <skipTests>true</skipTests>
      </properties>
    </profile>
"""


def _task(repo: Path, task: str, text: str) -> dict:
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "src/**")
    assert code == 0, started
    write(Path(started["worktree"]), {"pom.xml": text})
    code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    return finished


def test_tasks_changing_different_profiles_all_land_and_one_dependency_changed_twice_conflicts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pom.xml": PROFILED, "src/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    ci_dependencies = "        </dependency>\n      </dependencies>\n    </profile>\n    <!--"
    mockito = _task(repo, "mockito", PROFILED.replace(ci_dependencies, ci_dependencies.replace(
        "      </dependencies>", MOCKITO + "      </dependencies>")))
    assert [(i["op"], i["name"]) for i in mockito["intents"]] == \
        [("set_key", 'profiles.ci.dependencies."org.mockito:mockito-core"')]
    _task(repo, "sources", PROFILED.replace("        </plugins>", SOURCES + "        </plugins>"))
    # a new profile is one change, written as the task wrote it: carried child by child, its
    # <activation> was written first, in a <profile> without its <id> (found driving wtc on okhttp)
    bench = _task(repo, "bench", PROFILED.replace("  </profiles>", NEW_PROFILE + "  </profiles>"))
    assert [(i["op"], i["name"]) for i in bench["intents"]] == [("set_key", "profiles.bench")]
    _task(repo, "jacoco-a", PROFILED.replace("0.8.11", "0.8.12"))
    _task(repo, "jacoco-b", PROFILED.replace("0.8.11", "0.8.10"))
    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 1, body
    [root] = body["roots"]
    [conflict] = root["conflicts"]
    assert conflict["tasks"] == ["jacoco-a", "jacoco-b"] and "org.jacoco.agent" in conflict["message"], conflict
    assert {task for change in root["applied"] for task in change["tasks"]} == {"mockito", "sources", "bench"}
    # the new profile is named by its element, as the task wrote it, not by its JSON
    assert "set_key profiles.bench <profile> ... (9 lines)" in [change["summary"] for change in root["applied"]]
    landed = git(repo, "show", "wtc/r/integration:pom.xml") + "\n"
    assert landed == PROFILED.replace(ci_dependencies, ci_dependencies.replace(
        "      </dependencies>", MOCKITO + "      </dependencies>")).replace(
        "        </plugins>", SOURCES + "        </plugins>").replace("  </profiles>", NEW_PROFILE + "  </profiles>")


def test_intents_declared_inside_a_profile_land_where_the_same_edit_by_hand_would(tmp_path: Path) -> None:
    """`wtc intent add --profile ID` names a place inside a `<profile>`: a dependency of its
    `<dependencies>` added or its version set. A declared setting could only be a property or a
    whole top-level element, so an agent could not declare the `ci` profile's new dependency
    without editing the reserved pom.xml."""
    repo = make_repo(tmp_path / "repo", {"pom.xml": PROFILED, "src/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    declared = {"mockito": ["--op", "add_dep", "--name", "org.mockito:mockito-core", "--spec", "5.11.0"],
                "jacoco": ["--op", "set_spec", "--name", "org.jacoco:org.jacoco.agent", "--spec", "0.8.12"]}
    for task, words in declared.items():
        assert wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "src/**")[0] == 0
        code, body = wtc_in_process(repo, "intent", "add", task, "--run", "r", "--manifest", "pom.xml",
                                    "--profile", "ci", *words)
        assert code == 0, body
        code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r")
        assert code == 0 and finished["state"] == "merged", finished
    code, body = wtc_in_process(repo, "intent", "list", "--run", "r")
    assert sorted(row["data"]["name"] for row in body["intents"]) == [
        'profiles.ci.dependencies."org.jacoco:org.jacoco.agent"', 'profiles.ci.dependencies."org.mockito:mockito-core"']
    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, body
    ci_dependencies = "        </dependency>\n      </dependencies>\n    </profile>\n    <!--"
    assert git(repo, "show", "wtc/r/integration:pom.xml") + "\n" == PROFILED.replace(ci_dependencies, ci_dependencies.replace(
        "      </dependencies>", MOCKITO + "      </dependencies>")).replace("0.8.11", "0.8.12")


def test_a_profile_the_pom_does_not_have_is_refused_naming_those_it_has(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pom.xml": PROFILED, "src/A.java": "class A {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    assert wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "src/**")[0] == 0
    code, body = wtc_in_process(repo, "intent", "add", "t", "--run", "r", "--manifest", "pom.xml", "--profile", "cj",
                                "--op", "add_dep", "--name", "org.mockito:mockito-core", "--spec", "5.11.0")
    assert code != 0, body
    text = json.dumps(body)
    assert "pom.xml has no profile 'cj'" in text and "ci, release" in text, body
