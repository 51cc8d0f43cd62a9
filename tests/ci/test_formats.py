"""`wtc check --format ...` through the real command line: every format on real repositories,
JUnit and SARIF validated against the shipped schemas, GitHub annotations parsed back."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import jsonschema
import pytest
import xmlschema

from tests.ci.ci_helpers import SCHEMAS, clean_branch, commit_all, messy_branch, run_wtc, wtc_main
from tests.conftest import write

FORMATS = ("text", "json", "junit", "sarif", "github")


@pytest.fixture(scope="module")
def sarif_validator():
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.fixture(scope="module")
def junit_schema():
    return xmlschema.XMLSchema(str(SCHEMAS / "junit.xsd"))


@pytest.fixture
def messy(tmp_path):
    s = messy_branch(tmp_path)
    # a file outside the boundary whose name needs escaping in annotation properties
    write(s.repo, {"docs/odd,name: 50%.md": "one\ntwo\n"})
    commit_all(s.repo, "feature: an oddly named file")
    return s


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exits_with_the_report_code(tmp_path, fmt):
    s = messy_branch(tmp_path / "messy")
    assert wtc_main(s.repo, "check", "--own", "packages/api/**", "--format", fmt).returncode == 3
    assert wtc_main(s.repo, "check", "--own", "packages/**", "--format", fmt).returncode == 1
    c = clean_branch(tmp_path / "clean")
    done = wtc_main(c.repo, "check", "--own", "packages/api/**", "--format", fmt)
    assert done.returncode == 0, done.stderr


def test_text_names_files_lines_and_the_verdict(messy):
    done = wtc_main(messy.repo, "check", "--own", "packages/api/**")
    out = done.stdout
    assert "packages/web/app.ts:2: error: outside_own" in out
    assert "packages/api/src/index.py:2: error: merge_conflict" in out
    assert "package.json:" in out and "reserved_edit" in out
    assert out.strip().splitlines()[-1].startswith("wtc check: 2 boundary violations, 1 merge conflict")


def test_json_is_one_object_with_schema(messy):
    for args in (("--format", "json"), ("--json",)):
        done = run_wtc(messy.repo, "check", "--own", "packages/api/**", *args)
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        assert len(lines) == 1
        body = json.loads(lines[0])
        assert body["schema"] == "wtc.check/1" and body["exit_code"] == 3 and body["ok"] is False
        assert body["counts"] == {"violations": 2, "conflicts": 1, "reserved": 1, "left_behind": 0, "findings": 4,
                                  "changed": 4}
        assert {f["rule"] for f in body["findings"]} == {"outside_own", "merge_conflict", "reserved_edit"}


def test_bad_input_exits_2_with_one_json_error(messy):
    done = run_wtc(messy.repo, "check", "--own", "packages/api/**", "--target", "nope", "--json")
    assert done.returncode == 2
    body = json.loads(done.stdout)
    assert body["schema"] == "wtc.error/1" and "nope" in body["error"]["message"]
    done = run_wtc(messy.repo, "check", "--own", "packages/api/**", "--format", "yaml")
    assert done.returncode == 2 and "yaml" in done.stderr


def test_junit_is_valid_and_has_one_case_per_rule_and_file(messy, junit_schema, tmp_path):
    out = tmp_path / "report.xml"
    done = wtc_main(messy.repo, "check", "--own", "packages/api/**", "--format", "junit", "--output", str(out))
    assert done.returncode == 3
    assert "wtc check:" in done.stdout  # the text summary still goes to the log
    xml = out.read_text()
    junit_schema.validate(xml)
    root = ET.fromstring(xml)
    failing = {(case.get("classname"), case.get("name")) for case in root.iter("testcase")
               if case.find("failure") is not None}
    assert failing == {("wtc.boundary.outside_own", "packages/web/app.ts"),
                       ("wtc.boundary.outside_own", "docs/odd,name: 50%.md"),
                       ("wtc.merge.merge_conflict", "packages/api/src/index.py")}
    assert root.get("failures") == "3"
    assert int(root.get("tests")) == sum(1 for _ in root.iter("testcase"))
    reserved = [c for c in root.iter("testcase") if c.get("classname") == "wtc.reserved.reserved_edit"]
    assert [c.get("name") for c in reserved] == ["package.json"] and reserved[0].find("system-out") is not None


def test_junit_of_a_clean_and_of_a_staged_check_are_valid(tmp_path, junit_schema):
    c = clean_branch(tmp_path)
    done = wtc_main(c.repo, "check", "--own", "packages/api/**", "--format", "junit")
    junit_schema.validate(done.stdout)
    root = ET.fromstring(done.stdout)
    assert root.get("failures") == "0" and int(root.get("tests")) >= 8
    write(c.repo, {"docs/guide.md": "changed\n"})
    from tests.conftest import git
    git(c.repo, "add", "-A")
    done = wtc_main(c.repo, "check", "--staged", "--own", "packages/api/**", "--format", "junit")
    assert done.returncode == 3
    junit_schema.validate(done.stdout)
    assert ET.fromstring(done.stdout).find(".//skipped") is not None  # no merge for staged changes


def test_junit_schema_rejects_what_ci_readers_reject(junit_schema):
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        junit_schema.validate('<testsuites><testsuite name="x" tests="one" failures="0" errors="0"/></testsuites>')
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        junit_schema.validate('<testsuites><testsuite name="x" tests="1" failures="0" errors="0">'
                              '<testcase name="a" classname="b"><failure/><skipped/></testcase></testsuite></testsuites>')


def test_sarif_is_valid_and_results_sit_on_lines(messy, sarif_validator, tmp_path):
    out = tmp_path / "wtc.sarif"
    done = wtc_main(messy.repo, "check", "--own", "packages/api/**", "--format", "sarif", "-o", str(out))
    assert done.returncode == 3
    log = json.loads(out.read_text())
    errors = [e.message for e in sarif_validator.iter_errors(log)]
    assert errors == []
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    located = {}
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        physical = result["locations"][0]["physicalLocation"]
        region = physical.get("region", {})
        located[(result["ruleId"], physical["artifactLocation"]["uri"])] = (result["level"], region.get("startLine"))
    assert located[("outside_own", "packages/web/app.ts")] == ("error", 2)
    assert located[("merge_conflict", "packages/api/src/index.py")] == ("error", 2)
    assert located[("reserved_edit", "package.json")] == ("note", 3)
    assert located[("outside_own", "docs/odd%2Cname%3A%2050%25.md")] == ("error", 1)
    [conflict] = [r for r in run["results"] if r["ruleId"] == "merge_conflict"]
    assert conflict["locations"][0]["logicalLocations"] == [{"fullyQualifiedName": "def health", "kind": "declaration"}]
    assert run["invocations"][0]["exitCode"] == 3


def test_sarif_schema_rejects_a_broken_log(messy, sarif_validator):
    log = json.loads(wtc_main(messy.repo, "check", "--own", "packages/api/**", "--format", "sarif").stdout)
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert any("minimum" in e.message or "less than" in e.message for e in sarif_validator.iter_errors(log))
    del log["version"]
    assert any("version" in e.message for e in sarif_validator.iter_errors(log))


# ---- GitHub workflow commands, parsed back the way the Actions runner does -------------------------

_COMMAND = re.compile(r"^::(?P<name>[a-z]+)(?: (?P<props>[^:]*))?::(?P<data>.*)$")


def _unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _unescape_property(text: str) -> str:
    return (text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",")
            .replace("%25", "%"))


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    match = _COMMAND.match(line)
    assert match, f"not a workflow command: {line!r}"
    props = {}
    for pair in (match.group("props") or "").split(","):
        if pair:
            key, _, value = pair.partition("=")
            props[key] = _unescape_property(value)
    return match.group("name"), props, _unescape_data(match.group("data"))


def test_github_annotations_parse_back_to_the_findings(messy):
    done = wtc_main(messy.repo, "check", "--own", "packages/api/**", "--format", "github")
    lines = done.stdout.strip().splitlines()
    parsed = [parse_command(line) for line in lines]
    body = json.loads(wtc_main(messy.repo, "check", "--own", "packages/api/**", "--json").stdout)
    findings = body["findings"]
    assert len(parsed) == len(findings) + 1
    for (name, props, message), finding in zip(parsed, findings):
        assert name == {"error": "error", "warning": "warning", "note": "notice"}[finding["severity"]]
        assert props["file"] == finding["path"]
        assert int(props["line"]) == finding["start_line"] and int(props["endLine"]) == finding["end_line"]
        assert props["title"] == f"wtc {finding['rule']}"
        assert message.startswith(finding["message"]) and "\nfix: " in message
    odd = [p for _, p, _ in parsed if p.get("file", "").startswith("docs/odd")]
    assert odd and odd[0]["file"] == "docs/odd,name: 50%.md"
    name, props, message = parsed[-1]
    assert name == "error" and "file" not in props and message.startswith("wtc check: 2 boundary violation(s)")


def test_github_clean_run_is_one_notice(tmp_path):
    c = clean_branch(tmp_path)
    done = wtc_main(c.repo, "check", "--own", "packages/api/**", "--format", "github")
    assert done.returncode == 0
    [line] = done.stdout.strip().splitlines()
    name, _, message = parse_command(line)
    assert name == "notice" and "0 boundary violation(s)" in message


def test_escaping_functions_follow_the_runner():
    from worktree_coord.ci.github import command, escape_data, escape_property

    assert escape_data("100%\r\nok") == "100%25%0D%0Aok"
    assert escape_property("a,b:c%") == "a%2Cb%3Ac%25"
    assert parse_command(command("warning", "x,y: 5%\nz", file="a:b,c.py", line=3)) == (
        "warning", {"file": "a:b,c.py", "line": "3"}, "x,y: 5%\nz")
