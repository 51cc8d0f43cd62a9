"""`wtc check` with the semantic check: a branch whose new code uses a name the target removed is a
`semantic_conflict` (exit 1) in every format, a `semantic_warning` (exit 0) with `--semantic warn`,
nothing with `--semantic off`; the check stays read-only."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, repo_state, wtc_main
from tests.conftest import git, make_repo, write

UTIL = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
APP = "from pkg.util import render\n\n\ndef main(items):\n    return render(items)\n"


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """main removes pkg/util.py's parse(); feature (off the same base) starts calling it from app.py."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/app.py": APP})
    base = git(repo, "rev-parse", "HEAD")
    write(repo, {"pkg/util.py": "def render(items):\n    return ', '.join(items)\n"})
    commit_all(repo, "main: drop parse")
    git(repo, "checkout", "-q", "-b", "feature", base)
    write(repo, {"pkg/app.py": APP.replace("import render", "import parse, render")
                 .replace("return render(items)", "return render(parse(items))")})
    commit_all(repo, "feature: parse the items")
    return repo


def test_text_and_json_report_the_broken_name(broken: Path) -> None:
    before = repo_state(broken)
    done = wtc_main(broken, "check", "--own", "pkg/**", "--target", "main")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pkg/app.py:5: error: semantic_conflict: parse (import, pkg/app.py:1 at the merge base)" not in done.stdout
    assert "pkg/app.py:5: error: semantic_conflict: parse (function, pkg/util.py:1 at the merge base) is " \
           "removed or renamed by main, but the head adds a use of it" in done.stdout
    payload = json.loads(wtc_main(broken, "check", "--own", "pkg/**", "--target", "main", "--json").stdout)
    [finding] = [f for f in payload["findings"] if f["rule"] == "semantic_conflict"]
    assert finding["severity"] == "error" and finding["path"] == "pkg/app.py" and finding["start_line"] == 5
    assert payload["merge"]["clean"] is False and payload["exit_code"] == 1
    assert repo_state(broken) == before, "the check is read-only"


@pytest.mark.parametrize("fmt, needle", [
    ("junit", "semantic_conflict"), ("sarif", '"ruleId": "semantic_conflict"'),
    ("github", "::error file=pkg/app.py,line=5"),
])
def test_every_format_carries_the_finding(broken: Path, fmt: str, needle: str) -> None:
    done = wtc_main(broken, "check", "--own", "pkg/**", "--target", "main", "--format", fmt)
    assert done.returncode == 1 and needle in done.stdout, done.stdout
    if fmt == "junit":
        ET.fromstring(done.stdout)


def test_warn_reports_without_failing_and_off_says_nothing(broken: Path) -> None:
    warned = wtc_main(broken, "check", "--own", "pkg/**", "--target", "main", "--semantic", "warn", "--json")
    payload = json.loads(warned.stdout)
    assert warned.returncode == 0 and [f["rule"] for f in payload["findings"]] == ["semantic_warning"]
    off = wtc_main(broken, "check", "--own", "pkg/**", "--target", "main", "--semantic", "off", "--json")
    assert off.returncode == 0 and json.loads(off.stdout)["findings"] == []
    bad = wtc_main(broken, "check", "--own", "pkg/**", "--target", "main", "--semantic", "maybe")
    assert bad.returncode == 2


def test_the_targets_configuration_sets_the_default(broken: Path) -> None:
    git(broken, "checkout", "-q", "main")
    write(broken, {".wtc.toml": 'semantic-check = "warn"\n'})
    commit_all(broken, "main: semantic check warns")
    git(broken, "checkout", "-q", "feature")
    done = wtc_main(broken, "check", "--own", "pkg/**", "--target", "main", "--json")
    assert done.returncode == 0
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]] == ["semantic_warning"]
