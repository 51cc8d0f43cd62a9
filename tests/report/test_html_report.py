"""`wtc report --format html`: one self-contained page (no network, no external script, style or font)
holding the same report as `--json`, opened in headless Chromium (Debian's `chromium`), which must
render it with no script error. Chromium is made present by the README's test command
(tools/ensure_chromium.sh); without it this test fails, it never skips."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo, write, wtc
from worktree_coord import Coordinator
from worktree_coord.cli.html_report import render_html
from worktree_coord.results import RunReport

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MODULE = "def alpha():\n    return 1\n\n\ndef omega():\n    return 2\n"


@pytest.fixture
def finished_run(tmp_path: Path) -> Path:
    """Run r1: a merged task, one in conflict with it, one rejected, one still live, one abandoned;
    a file name that needs escaping in HTML."""
    repo = make_repo(tmp_path / "repo", {"pkg/mod.py": MODULE, "docs/d.md": "d\n", "pkg/<b>&.txt": "x\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        trees = {name: Path(coordinator.start_task("r1", name, ["pkg/**"]).worktree)
                 for name in ("merged", "conflicted", "rejected", "live", "dropped")}
        write(trees["merged"], {"pkg/mod.py": MODULE.replace("return 1", "return 10"), "pkg/<b>&.txt": "y\n"})
        write(trees["conflicted"], {"pkg/mod.py": MODULE.replace("return 1", "return 11")})
        write(trees["rejected"], {"docs/d.md": "outside\n"})
        write(trees["live"], {"pkg/new.py": "x = 1\n"})
        assert coordinator.finish_task("r1", "merged").state == "merged"
        assert coordinator.finish_task("r1", "conflicted").state == "conflict"
        assert coordinator.finish_task("r1", "rejected").state == "rejected"
        coordinator.abandon_task("r1", "dropped")
    return repo


def html_of(repo: Path, tmp_path: Path) -> Path:
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "report", "--run", "r1", "--format", "html"],
                          cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    page = tmp_path / "run.html"
    page.write_text(done.stdout)
    return page


def chromium(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM.exists(), ("Debian's chromium is not installed: the README's test command installs it "
                               "(tools/ensure_chromium.sh); run that script as root")
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           *args], capture_output=True, text=True, timeout=120)


def console_errors(stderr: str) -> list[str]:
    """What the page's scripts reported: Chromium logs every console message as `CONSOLE(...)`."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def test_the_page_renders_in_chromium_with_no_script_error(finished_run, tmp_path):
    page = html_of(finished_run, tmp_path)
    done = chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_errors(done.stderr) == [], console_errors(done.stderr)
    dom = done.stdout
    assert re.search(r'<body[^>]* data-ready="1"', dom), "the page's script did not run to its end"
    assert '<span id="manifest-count">2</span>' in dom          # filled in by the script from the JSON
    assert dom.count("<svg") == 1 and "timeline of every task" in dom


def test_the_same_page_with_a_broken_script_is_caught(finished_run, tmp_path):
    """The check above can fail: a page whose script throws shows up as a console error."""
    page = html_of(finished_run, tmp_path)
    broken = tmp_path / "broken.html"
    broken.write_text(page.read_text().replace("report.files.length", "report.nothing.length"))
    done = chromium("--dump-dom", broken.as_uri(), tmp_path=tmp_path)
    assert any("Uncaught TypeError" in line for line in console_errors(done.stderr)), done.stderr[-2000:]
    assert not re.search(r'<body[^>]* data-ready="1"', done.stdout)


def test_the_page_is_self_contained_and_holds_the_json_report(finished_run, tmp_path):
    text = html_of(finished_run, tmp_path).read_text()
    # No network: nothing but the SVG namespace names a URL, and no element loads anything.
    assert re.findall(r"https?://[^\s\"'<>]+", text) == ["http://www.w3.org/2000/svg"]
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", text, re.I)
    assert "@import" not in text and "url(" not in text
    embedded = json.loads(re.search(r'<script type="application/json" id="wtc-report">(.*?)</script>', text,
                                    re.S).group(1))
    code, body = wtc(finished_run, "report", "--run", "r1")
    assert code == 0
    for data in (embedded, body):
        data.get("timeline", {}).pop("now", None)
        data.pop("schema", None)
        data.pop("exit_code", None)
    assert embedded == body
    # The timeline: one row per task, one dot per point in its life.
    points = sum(len(t["events"]) for t in body["timeline"]["tasks"])
    assert text.count("<circle") == points and len(body["timeline"]["tasks"]) == 5
    kinds = {p["kind"] for t in body["timeline"]["tasks"] for p in t["events"]}
    assert {"task.started", "task.merged", "task.conflict", "task.rejected", "task.abandoned"} <= kinds
    # The conflict map: the conflicted task's cell on pkg/mod.py is marked, the merged one's is a change.
    assert 'title="conflicted conflicts on pkg/mod.py"' in text and 'title="merged changed pkg/mod.py"' in text
    assert "pkg/&lt;b&gt;&amp;.txt" in text and "pkg/<b>&.txt" not in text.split('id="wtc-report"')[0]


def test_consolidation_per_root_and_escaping_in_the_renderer():
    report = RunReport(run="r", base="a" * 40, integration="wtc/r/integration", tip="b" * 40,
                       consolidation=[{"root": "", "ecosystem": "npm", "state": "applied", "commit": "c" * 40,
                                       "at": 1.0, "intents": {"applied": 2}},
                                      {"root": "svc</script>", "ecosystem": "", "state": "not consolidated",
                                       "commit": None, "at": None, "intents": {"pending": 1}}])
    page = render_html(report)
    assert "<td>npm</td><td>applied</td><td class=mono>cccccccccccc</td><td>2 applied</td>" in page
    assert "svc&lt;/script&gt;" in page and page.count("</script>") == 2   # the JSON's "</" is escaped too
    assert json.loads(re.search(r'id="wtc-report">(.*?)</script>', page, re.S).group(1))["consolidation"][1][
        "root"] == "svc</script>"


def test_an_unknown_format_is_a_usage_error(finished_run):
    code, body = wtc(finished_run, "report", "--run", "r1", "--format", "pdf")
    assert code == 2 and "pdf" in body["error"]["message"]
