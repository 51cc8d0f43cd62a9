"""Maven's pom.xml is a reserved manifest (ecosystem maven): a task's edit of it becomes intents
(a dependency of `<dependencies>` or `<dependencyManagement>` keyed groupId:artifactId, a `<module>`,
the project's `<version>`, a `<properties>` entry, any other top-level element whole), applied by
consolidation as text edits anchored on parsed positions, so the file keeps its comments, blank
lines and layout; a module's pom.xml edits are intents of the build's root, applied in the module
graph's order. Maven has no lockfile: nothing is relocked. Found driving wtc on square/javapoet: a
task adding a dependency to pom.xml merged as plain text, and several such tasks collided as they
did on package.json. Real repositories, the real faces (`wtc task finish`, `consolidate`, `report`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc_in_process
from worktree_coord.boundary.manifest import DEFAULT_RESERVED
from worktree_coord.consolidate import Ecosystem, Op, RootState, classify_path, consolidate, derive_intents
from worktree_coord.consolidate.derive import find_root

POM = """<?xml version="1.0" encoding="UTF-8"?>

<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/maven-v4_0_0.xsd">
  <modelVersion>4.0.0</modelVersion>

  <groupId>com.example</groupId>
  <artifactId>poet</artifactId>
  <version>1.0.0-SNAPSHOT</version>

  <properties>
    <java.version>1.8</java.version>
    <junit.version>4.13.2</junit.version>
  </properties>

  <dependencies>
    <!-- test libraries: keep junit first -->
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>${junit.version}</version>
      <scope>test</scope>
    </dependency>
    <dependency>
      <groupId>org.mockito</groupId>
      <artifactId>mockito-core</artifactId>
      <version>4.11.0</version>
      <scope>test</scope>
    </dependency>
  </dependencies>

  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-jar-plugin</artifactId>
        <version>3.4.2</version>
      </plugin>
    </plugins>
  </build>
</project>
"""

GUAVA = """    <dependency>
      <groupId>com.google.guava</groupId>
      <artifactId>guava</artifactId>
      <version>${guava.version}</version>
    </dependency>
"""
ASSERTJ = """    <dependency>
      <groupId>org.assertj</groupId>
      <artifactId>assertj-core</artifactId>
      <version>{version}</version>
      <scope>test</scope>
    </dependency>
"""
JUNIT_END = "      <scope>test</scope>\n    </dependency>\n    <dependency>\n      <groupId>org.mockito</groupId>"
DEPENDENCIES_END = "      <version>4.11.0</version>\n      <scope>test</scope>\n    </dependency>\n  </dependencies>\n"


def _after_junit(pom: str, block: str) -> str:
    """`pom` with `block` written right after junit's <dependency>, as a person adds one."""
    head, tail = pom.split(JUNIT_END)
    return head + "      <scope>test</scope>\n    </dependency>\n" + block + "    <dependency>\n" \
        "      <groupId>org.mockito</groupId>" + tail


def _at_end(pom: str, block: str) -> str:
    return pom.replace(DEPENDENCIES_END, DEPENDENCIES_END.replace("  </dependencies>\n", block + "  </dependencies>\n"))


def _task(repo: Path, task: str, edit, files: dict[str, str] | None = None, own: str = "src/**") -> dict:
    """Start `task`, rewrite its pom.xml with `edit` (and write `files`), finish it."""
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", own)
    assert code == 0, started
    worktree = Path(started["worktree"])
    if edit is not None:
        pom = worktree / "pom.xml"
        pom.write_text(edit(pom.read_text()))
    write(worktree, files or {})
    code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r")
    assert (code, finished["state"]) == (0, "merged"), finished
    return finished


def test_pom_xml_is_reserved_everywhere_and_an_edit_becomes_intents_key_by_key():
    assert "pom.xml" in DEFAULT_RESERVED
    kind = classify_path("core/pom.xml")
    assert (kind.kind, kind.format, kind.ecosystem) == ("manifest", "pom", Ecosystem.MAVEN)
    # A module's pom.xml belongs to the build above it (each folder on the way holds a pom.xml).
    assert find_root("core/api/pom.xml", {"pom.xml", "core/pom.xml", "core/api/pom.xml"}) == ""
    assert find_root("examples/demo/pom.xml", {"pom.xml", "examples/demo/pom.xml"}) == "examples/demo"
    new = (_after_junit(POM, GUAVA)
           .replace("    <junit.version>4.13.2</junit.version>\n",
                    "    <junit.version>4.13.2</junit.version>\n    <guava.version>33.0.0-jre</guava.version>\n")
           .replace("<version>4.11.0</version>", "<version>5.2.0</version>")
           .replace("<version>1.0.0-SNAPSHOT</version>", "<version>1.1.0-SNAPSHOT</version>")
           .replace("<version>3.4.2</version>", "<version>3.4.3</version>"))
    intents = derive_intents("pom.xml", POM.encode(), new.encode(), task="t")
    jar = 'build.plugins."org.apache.maven.plugins:maven-jar-plugin"'
    assert {(i.op, i.group, i.name, i.spec) for i in intents if i.op != Op.SET_KEY or i.name != jar} == {
        (Op.ADD_DEP, "dependencies", "com.google.guava:guava", "${guava.version}"),
        (Op.SET_SPEC, "dependencies", "org.mockito:mockito-core", "5.2.0"),
        (Op.BUMP_VERSION, "version", "com.example:poet", "1.1.0-SNAPSHOT"),
        (Op.SET_KEY, "settings", 'properties."guava.version"', '"33.0.0-jre"')}
    [plugin] = [i for i in intents if i.name == jar]
    assert "<version>3.4.3</version>" in plugin.spec, "a plugin of <build> travels whole, as written, keyed as Maven keys it"
    assert {i.ecosystem for i in intents} == {Ecosystem.MAVEN}


def test_three_tasks_adding_dependencies_land_in_one_pom_with_its_formatting(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"pom.xml": POM, "src/main/java/Poet.java": "class Poet {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    one = _task(repo, "guava", lambda pom: _after_junit(pom, GUAVA).replace(
        "    <junit.version>4.13.2</junit.version>\n",
        "    <junit.version>4.13.2</junit.version>\n    <guava.version>33.0.0-jre</guava.version>\n"))
    assert [(i["op"], i["name"]) for i in one["intents"]] == [
        ("add_dep", "com.google.guava:guava"), ("set_key", 'properties."guava.version"')]
    _task(repo, "assertj", lambda pom: _at_end(pom, ASSERTJ.format(version="3.25.1")))
    _task(repo, "mockito", lambda pom: pom.replace("<version>4.11.0</version>", "<version>5.2.0</version>"))
    # Until consolidation the integration branch holds the base's pom.xml: the edits were kept aside.
    assert git(repo, "show", "wtc/r/integration:pom.xml") + "\n" == POM

    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, body
    [root] = body["roots"]
    assert (root["ecosystem"], root["state"], root["files_changed"]) == ("maven", "applied", ["pom.xml"]), root
    assert root["tool_runs"] == [] and root["warnings"] == [], "Maven locks nothing: no relock, no tool run"
    expected = _at_end(_after_junit(POM, GUAVA), ASSERTJ.format(version="3.25.1")).replace(
        "    <junit.version>4.13.2</junit.version>\n",
        "    <junit.version>4.13.2</junit.version>\n    <guava.version>33.0.0-jre</guava.version>\n").replace(
        "<version>4.11.0</version>", "<version>5.2.0</version>")
    assert git(repo, "show", "wtc/r/integration:pom.xml") + "\n" == expected

    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert code == 0, report
    [row] = report["consolidation"]
    assert (row["ecosystem"], row["state"], row["intents"]) == ("maven", "applied", {"applied": 4}), row


def test_two_tasks_adding_one_dependency_at_different_versions_is_a_conflict_naming_both(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"pom.xml": POM, "src/main/java/Poet.java": "class Poet {}\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    _task(repo, "a", lambda pom: _at_end(pom, ASSERTJ.format(version="3.25.1")))
    _task(repo, "b", lambda pom: _after_junit(pom, ASSERTJ.format(version="3.24.2")))
    _task(repo, "c", lambda pom: _after_junit(pom, GUAVA.replace("${guava.version}", "33.0.0-jre")))

    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 1, body
    [root] = body["roots"]
    [conflict] = root["conflicts"]
    assert (conflict["kind"], conflict["tasks"]) == ("disjoint_ranges", ["a", "b"]), conflict
    assert conflict["message"] == ("'org.assertj:assertj-core' in pom.xml [dependencies]: task a wants '3.25.1', "
                                   "task b wants '3.24.2': no version satisfies both")
    # The task that collided with nobody lands; the pom.xml holds none of the disputed entry.
    landed = git(repo, "show", "wtc/r/integration:pom.xml")
    assert "com.google.guava" in landed and "assertj" not in landed
    code, report = wtc_in_process(repo, "report", "--run", "r")
    for task in ("a", "b"):
        assert any(w.startswith(f"intent {task}:pom.xml:add_dep:dependencies:org.assertj:assertj-core ") and
                   "is conflict; landing leaves it out" in w for w in report["warnings"]), report["warnings"]


PARENT = """<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>parent</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>

  <modules>
    <module>app</module>
    <module>core</module>
  </modules>

  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.slf4j</groupId>
        <artifactId>slf4j-api</artifactId>
        <version>2.0.9</version>
      </dependency>
    </dependencies>
  </dependencyManagement>
</project>
"""
MODULE = """<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>com.example</groupId>
    <artifactId>parent</artifactId>
    <version>1.0</version>
  </parent>
  <artifactId>{name}</artifactId>

  <dependencies>
{dependencies}  </dependencies>
</project>
"""
ON_CORE = """    <dependency>
      <groupId>com.example</groupId>
      <artifactId>core</artifactId>
      <version>${project.version}</version>
    </dependency>
"""


def _dependency(group: str, artifact: str, version: str | None = None, indent: str = "    ") -> str:
    inner = [f"<groupId>{group}</groupId>", f"<artifactId>{artifact}</artifactId>"]
    inner += [f"<version>{version}</version>"] if version else []
    return f"{indent}<dependency>\n" + "".join(f"{indent}  {line}\n" for line in inner) + f"{indent}</dependency>\n"


def test_a_multi_module_build_consolidates_parent_then_modules_in_dependency_order(tmp_path: Path):
    """app depends on core and both inherit the parent: the parent's change applies first, then
    core's, then app's (the reactor's order), whatever the order the tasks finished in; a new
    module's pom.xml, created inside its task's globs, is its own work and its `<module>` line an
    intent."""
    repo = make_repo(tmp_path / "repo", {
        "pom.xml": PARENT, "app/pom.xml": MODULE.format(name="app", dependencies=ON_CORE),
        "core/pom.xml": MODULE.format(name="core", dependencies=_dependency("org.slf4j", "slf4j-api"))})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    app = _task(repo, "app-json", None, own="src/**", files={"app/pom.xml": MODULE.format(
        name="app", dependencies=ON_CORE + _dependency("com.google.code.gson", "gson", "2.10.1"))})
    # A module's pom.xml is reserved too: its edit is an intent of the build's root, for its module.
    assert [(i["manifest"], i["member"], i["root"]) for i in app["intents"]] == [("app/pom.xml", "app", "")]
    _task(repo, "core-guava", None, files={"core/pom.xml": MODULE.format(
        name="core", dependencies=_dependency("org.slf4j", "slf4j-api") + _dependency(
            "com.google.guava", "guava", "33.0.0-jre"))})
    _task(repo, "managed-gson", lambda pom: pom.replace("      </dependency>\n    </dependencies>\n  </dependencyManagement>",
                                                        "      </dependency>\n" + _dependency(
                                                            "com.google.code.gson", "gson", "2.10.1", "      ")
                                                        + "    </dependencies>\n  </dependencyManagement>"))
    cli_module = MODULE.format(name="cli", dependencies=ON_CORE)
    finished = _task(repo, "new-cli", lambda pom: pom.replace("    <module>core</module>\n",
                                                              "    <module>core</module>\n    <module>cli</module>\n"),
                     files={"cli/pom.xml": cli_module}, own="cli/**")
    assert [(i["op"], i["name"]) for i in finished["intents"]] == [("add_member", "cli")]

    code, body = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, body
    [root] = body["roots"]
    assert root["state"] == "applied", root
    order = [(c["intent"]["manifest"], c["intent"]["name"]) for c in root["applied"]]
    assert order == [("pom.xml", "cli"), ("pom.xml", "com.google.code.gson:gson"),
                     ("core/pom.xml", "com.google.guava:guava"), ("app/pom.xml", "com.google.code.gson:gson")], order
    assert git(repo, "show", "wtc/r/integration:app/pom.xml") + "\n" == MODULE.format(
        name="app", dependencies=ON_CORE + _dependency("com.google.code.gson", "gson", "2.10.1"))
    assert git(repo, "show", "wtc/r/integration:cli/pom.xml") + "\n" == cli_module
    assert "    <module>core</module>\n    <module>cli</module>\n  </modules>" in git(
        repo, "show", "wtc/r/integration:pom.xml")


@pytest.mark.parametrize("pom, expected", [
    ("<project>\n  <artifactId>x</artifactId>\n</project>\n",
     "<project>\n  <artifactId>x</artifactId>\n  <dependencies>\n    <dependency>\n      <groupId>g</groupId>\n"
     "      <artifactId>a</artifactId>\n      <version>1.0</version>\n    </dependency>\n  </dependencies>\n"
     "</project>\n"),
    ("<project>\n\t<artifactId>x</artifactId>\n\t<dependencies/>\n</project>\n",
     "<project>\n\t<artifactId>x</artifactId>\n\t<dependencies>\n\t\t<dependency>\n\t\t\t<groupId>g</groupId>\n"
     "\t\t\t<artifactId>a</artifactId>\n\t\t\t<version>1.0</version>\n\t\t</dependency>\n\t</dependencies>\n"
     "</project>\n"),
], ids=["no-dependencies", "tabs-and-empty-element"])
def test_a_declared_dependency_is_written_in_the_files_own_indentation(pom: str, expected: str):
    from worktree_coord.consolidate import declare_intent
    from worktree_coord.consolidate.edits import edit_manifest

    intent = declare_intent("pom.xml", pom.encode(), task="d", op="add_dep", name="g:a", spec="1.0")
    assert (intent.group, intent.ecosystem) == ("dependencies", Ecosystem.MAVEN)
    assert edit_manifest("pom.xml", pom.encode(), intent).decode() == expected


def test_a_pom_that_is_not_well_formed_is_refused_naming_the_line(tmp_path: Path):
    from worktree_coord.consolidate.manifests import read_manifest
    from worktree_coord.consolidate.textformat import ManifestParseError

    broken = POM.replace("  <dependencies>\n", "<<<<<<< ours\n  <dependencies>\n")
    with pytest.raises(ManifestParseError, match="not well-formed XML") as refused:
        read_manifest("pom.xml", broken.encode())
    assert "line 15" in refused.value.fix


def test_consolidating_the_same_intents_twice_changes_nothing(tmp_path: Path):
    write(tmp_path, {"pom.xml": POM})
    intents = derive_intents("pom.xml", POM.encode(), _after_junit(POM, GUAVA).encode(), task="a")
    assert consolidate(tmp_path, intents).roots[0].state == RootState.APPLIED
    once = (tmp_path / "pom.xml").read_bytes()
    assert consolidate(tmp_path, intents).roots[0].state == RootState.UNCHANGED
    assert (tmp_path / "pom.xml").read_bytes() == once == _after_junit(POM, GUAVA).encode()


def test_a_windows_pom_keeps_its_crlf_and_an_edit_of_the_project_tag_is_refused_not_lost():
    from worktree_coord.consolidate import unexpressed_changes
    from worktree_coord.consolidate.edits import edit_manifest

    crlf = POM.replace("\n", "\r\n").encode()
    [intent] = derive_intents("pom.xml", crlf, _at_end(POM, ASSERTJ.format(version="3.25.1")).replace(
        "\n", "\r\n").encode(), task="w")
    assert edit_manifest("pom.xml", crlf, intent) == _at_end(POM, ASSERTJ.format(version="3.25.1")).replace(
        "\n", "\r\n").encode()
    retagged = POM.replace('<project xmlns="http://maven.apache.org/POM/4.0.0"', '<project xmlns="urn:other"')
    assert unexpressed_changes("pom.xml", POM.encode(), retagged.encode()) == [
        "the XML declaration or <project>'s own attributes"]


def test_a_declared_property_is_named_by_everything_after_properties(tmp_path: Path):
    """Found driving wtc on javapoet: `wtc intent add --op set_key --name properties.okio.version`
    was read as the key okio > version inside <properties>, and consolidation rejected it."""
    from worktree_coord.consolidate import declare_intent
    from worktree_coord.errors import UsageError

    intent = declare_intent("pom.xml", POM.encode(), task="d", op="set_key", name="properties.okio.version",
                            spec="3.9.0")
    assert intent.name == 'properties."okio.version"'
    write(tmp_path, {"pom.xml": POM})
    [root] = consolidate(tmp_path, [intent]).roots
    assert root.state == RootState.APPLIED, root
    assert "    <junit.version>4.13.2</junit.version>\n    <okio.version>3.9.0</okio.version>\n  </properties>" in \
        (tmp_path / "pom.xml").read_text()
    with pytest.raises(UsageError, match="no plugin or element of a pom.xml's <build>"):
        declare_intent("pom.xml", POM.encode(), task="d", op="set_key", name="build.plugins", spec="x")
    # `profiles.ID` is a whole profile (`--profile ID` names a place inside one): its element, or refused
    with pytest.raises(UsageError, match="is a whole Maven profile: --spec must be its <profile> element"):
        declare_intent("pom.xml", POM.encode(), task="d", op="set_key", name="profiles.profile", spec="x")
    plugin = declare_intent("pom.xml", POM.encode(), task="d", op="set_key",
                            name='build.plugins."org.apache.maven.plugins:maven-jar-plugin"',
                            spec=POM.split("    <plugins>\n")[1].split("    </plugins>")[0].replace("3.4.2", "3.4.3"))
    assert plugin.expected_before is not None and "3.4.2" in plugin.expected_before
