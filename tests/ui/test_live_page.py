"""`wtc ui`: the live page of a run, opened in headless Chromium (tests/ui/browser.py) while a
scripted run starts, finishes and conflicts tasks. The page is read from its DOM without a reload;
every request it makes stays on the server's loopback origin; nothing logs an error. Then the
server's own contract: changes since a version, a task's detail, the token, read-only, lazy import."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import make_repo, wtc, write
from tests.ui.browser import Browser
from tests.ui.live_server import wtc_ui
from worktree_coord import Coordinator

MODULE = "def alpha():\n    return 1\n\n\ndef omega():\n    return 2\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"pkg/mod.py": MODULE, "docs/guide.md": "guide\n",
                                         "package.json": '{"name": "x", "dependencies": {}}\n'})


def rows(browser: Browser) -> dict[str, str]:
    return browser.evaluate("Object.fromEntries(Array.from(document.querySelectorAll('#timeline .row'))"
                            ".map(r => [r.dataset.task, r.dataset.state]))")


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):   # the test reads the 303 itself
        return None


@pytest.mark.slow
def test_the_page_follows_a_scripted_run_without_reload(repo, tmp_path):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        trees = {name: Path(coordinator.start_task("r1", name, ["pkg/**"]).worktree) for name in ("first", "second")}
        write(trees["first"], {"pkg/mod.py": MODULE.replace("return 1", "return 10"),
                               "package.json": '{"name": "x", "dependencies": {"lodash": "^4.17.21"}}\n'})
        write(trees["second"], {"pkg/mod.py": MODULE.replace("return 1", "return 11")})
    with wtc_ui(repo, "--run", "r1", "--forecast-every", "1") as url, Browser(tmp_path / "profile") as browser:
        browser.open(url + "/")
        browser.wait_for("document.body.dataset.ready === '1'", what="the page's first drawing")
        browser.evaluate("window.loadedOnce = 'yes'")   # gone if the page ever reloads
        assert rows(browser) == {"first": "started", "second": "started"}

        with Coordinator(repo) as coordinator:
            assert coordinator.finish_task("r1", "first").state == "merged"
        browser.wait_for("document.querySelector('#timeline .row[data-task=first]').dataset.state === 'merged'",
                         what="the merge of first on the timeline")
        browser.wait_for("document.querySelector('#counts button[data-state=merged]')?.dataset.count === '1'")
        browser.wait_for("document.querySelector('#throughput').dataset.merged === '1'", what="the throughput chart")
        browser.wait_for("document.querySelector('#intents tbody').textContent.includes('lodash')",
                         what="first's intent")
        browser.wait_for("document.querySelector('#manifest tbody').textContent.includes('pkg/mod.py')",
                         what="what landing would change")

        with Coordinator(repo) as coordinator:
            assert coordinator.finish_task("r1", "second").state == "conflict"
            late = Path(coordinator.start_task("r1", "late", ["pkg/**"]).worktree)
            write(late, {"pkg/mod.py": MODULE.replace("return 1", "return 12")})   # uncommitted: only the forecast sees it
        browser.wait_for("!!document.querySelector('#conflicts tbody tr[data-task=second]')", what="the conflict")
        conflict = browser.evaluate("Array.from(document.querySelectorAll('#conflicts tbody tr[data-task=second] td'))"
                                    ".map(td => td.textContent)")
        assert conflict[:5] == ["pkg/mod.py:2", "def alpha", "second", "first", "content"]
        assert "wtc task update second --run r1" in conflict[5]                 # the fix text
        browser.wait_for("document.querySelector('#timeline .row[data-task=late]')?.dataset.state === 'started'",
                         what="a task started after the page loaded")
        assert rows(browser) == {"first": "merged", "second": "conflict", "late": "started"}
        # The forecast: the live task late would collide with what integration holds now.
        browser.wait_for("!!document.querySelector('#forecast td.c[data-pair=\"integration|late\"]')",
                         what="the forecast matrix naming late against integration")

        # A task's detail: boundary, files, commits, findings.
        browser.evaluate("document.querySelector('#timeline .row[data-task=second]').click()")
        browser.wait_for("document.querySelector('#detail-body')?.dataset.task === 'second'", what="the detail panel")
        detail = browser.evaluate("document.querySelector('#detail-body').textContent")
        assert "own pkg/**" in detail and "Conflicts (1)" in detail and "Commits (1)" in detail
        assert "modified pkg/mod.py" in detail

        assert browser.evaluate("window.loadedOnce") == "yes"
        assert browser.evaluate("performance.getEntriesByType('navigation').length") == 1
        requests = browser.requests()
        assert requests and all(r.startswith(url + "/") for r in requests), requests   # nothing leaves loopback
        assert sum("/api/changes" in r for r in requests) >= 3
        assert browser.errors() == []


@pytest.mark.slow
def test_what_landing_would_change_names_every_task_that_changed_a_path(repo, tmp_path):
    """Two tasks merged into one module (adjacent functions): the page's manifest names both tasks, each a link with its diff, as `wtc report`
    does (it named the last one only: found driving wtc on httpx, whose _utils.py three tasks changed)."""
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        trees = {name: Path(coordinator.start_task("r1", name, ["pkg/**"]).worktree) for name in ("first", "second")}
        write(trees["first"], {"pkg/mod.py": MODULE.replace("return 1", "return 10")})
        write(trees["second"], {"pkg/mod.py": MODULE.replace("return 2", "return 20")})
        assert coordinator.finish_task("r1", "first").state == "merged"
        assert coordinator.finish_task("r1", "second").state == "merged"
        files = {f["path"]: f for f in coordinator.report("r1").to_json()["files"]}
        assert files["pkg/mod.py"]["origin"] == "task first, task second"
    with wtc_ui(repo, "--run", "r1", "--no-forecast") as url, Browser(tmp_path / "profile") as browser:
        browser.open(url + "/")
        row = "Array.from(document.querySelectorAll('#manifest tbody tr')).find(r => r.textContent.includes('pkg/mod.py'))"
        browser.wait_for(f"!!({row})", what="pkg/mod.py in what landing would change")
        links = browser.evaluate(f"Array.from(({row}).querySelectorAll('a')).map(a => a.dataset.open || a.getAttribute('href'))")
        assert links == ["first", "/api/task/first/diff", "second", "/api/task/second/diff"], links
        assert browser.evaluate(f"({row}).cells[2].textContent") == "first diff, second diff"
        assert browser.errors() == []


@pytest.mark.slow
def test_a_page_breaking_its_policy_is_caught(repo, tmp_path):
    """The check above can fail: a page that loads something from elsewhere shows up as an error,
    and the request in the list (the server's policy refuses it before it is sent)."""
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
    with wtc_ui(repo, "--run", "r1", "--no-forecast") as url, Browser(tmp_path / "profile") as browser:
        browser.open(url + "/")
        browser.wait_for("document.body.dataset.ready === '1'")
        browser.evaluate("(function(){var s=document.createElement('script');s.src='http://192.0.2.1/x.js';"
                         "document.head.appendChild(s);fetch('http://192.0.2.1/y').catch(function(){});})()")
        browser.wait_for("true")
        import time

        deadline = time.monotonic() + 20
        while len(browser.errors()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        errors = browser.errors()
        assert any("Content Security Policy" in e for e in errors), errors


def test_changes_since_a_version_are_only_what_changed(repo):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        for name in ("a", "b"):
            write(Path(coordinator.start_task("r1", name, [f"pkg/{name}/**"]).worktree), {f"pkg/{name}/x.py": "x = 1\n"})
    with wtc_ui(repo, "--run", "r1", "--no-forecast") as url:
        code, headers, body = get(url + "/api/changes?since=0")
        first = json.loads(body)
        assert code == 200 and first["full"] and {t["task"] for t in first["tasks"]} == {"a", "b"}
        assert {"run", "conflicts", "intents", "merges"} <= set(first["sections"])
        assert first["tasks"][0]["group"] == "pkg/a" and first["tasks"][0]["events"][0]["kind"] == "started"
        assert "script-src 'self'" in headers["Content-Security-Policy"] and "default-src 'none'" in \
            headers["Content-Security-Policy"]
        again = json.loads(get(url + f"/api/changes?since={first['version']}")[2])
        # Nothing moved but, perhaps, the landing report the background thread finished meanwhile.
        assert again["tasks"] == [] and again["removed"] == [] and set(again["sections"]) <= {"report"}
        with Coordinator(repo) as coordinator:
            assert coordinator.finish_task("r1", "a").state == "merged"
            coordinator.abandon_task("r1", "b")
        import time

        deadline = time.monotonic() + 30
        changed: dict = {}
        while time.monotonic() < deadline:
            changed = json.loads(get(url + f"/api/changes?since={first['version']}")[2])
            if {t["task"]: t["state"] for t in changed["tasks"]} == {"a": "merged", "b": "abandoned"}:
                break
            time.sleep(0.2)
        assert {t["task"]: t["state"] for t in changed["tasks"]} == {"a": "merged", "b": "abandoned"}
        assert not changed["full"] and changed["sections"]["merges"][0]["task"] == "a"
        assert "run" not in changed["sections"]                 # unchanged sections are not sent again
        assert get(url + "/api/changes?since=x")[0] == 400

        code, _, body = get(url + "/api/task/a")
        detail = json.loads(body)
        assert code == 200 and detail["boundary"]["own"] == ["pkg/a/**"] and detail["merge_commit"]
        assert [f["path"] for f in detail["files"]] == ["pkg/a/x.py"] and len(detail["commits"]) == 1
        assert get(url + "/api/task/nope")[0] == 404 and get(url + "/nothing")[0] == 404
        code, headers, body = get(url + "/api/task/a/diff")             # what the manifest links to
        assert code == 200 and headers["Content-Type"].startswith("text/plain")
        assert "+++ b/pkg/a/x.py" in body.decode() and "+x = 1" in body.decode()
        assert get(url + "/api/task/b/diff")[2].decode().count("+++ b/") == 1   # abandoned: its snapshot commit
        assert get(url + "/api/task/nope/diff")[0] == 404


def test_the_page_is_read_only_and_its_assets_are_its_own(repo):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        version = coordinator.store.run_version("r1")
    with wtc_ui(repo, "--run", "r1", "--no-forecast") as url:
        page = get(url + "/")[2].decode()
        assert '<script src="/static/app.js" defer></script>' in page and "<style" not in page
        assert " style=" not in page and "<script>" not in page          # nothing inline for the policy to allow
        assert "http" not in page.replace("http-equiv", "")                # no CDN, no other origin
        for path in ("/static/app.js", "/static/app.css"):
            assert get(url + path)[0] == 200
        for asset in ("/api/changes?since=0", "/api/task/none", "/"):
            get(url + asset)
        request = urllib.request.Request(url + "/api/changes", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 501                                  # no route writes anything
        # A page asked through a name that is not loopback (DNS rebinding) is refused.
        assert get(url + "/", {"Host": "attacker.example:80"})[0] == 403
    with Coordinator(repo) as coordinator:
        assert coordinator.store.run_version("r1") == version


def test_a_token_guards_the_page_and_a_browser_brings_it_once(repo):
    token = "t" * 24
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
    with wtc_ui(repo, "--run", "r1", "--no-forecast", env={"WTC_UI_TOKEN": token}) as url:
        code, _, body = get(url + "/api/changes?since=0")
        assert code == 401 and b"token" in body
        assert get(url + "/?token=wrong")[0] == 401
        code, headers, _ = get(url + f"/?token={token}")
        assert code == 303 and headers["Location"] == "/"
        assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        cookie = headers["Set-Cookie"].split(";")[0]
        assert token not in cookie                                        # a digest, not the token
        assert get(url + "/api/changes?since=0", {"Cookie": cookie})[0] == 200
        assert get(url + "/api/changes?since=0", {"Authorization": f"bearer {token}"})[0] == 200
        assert get(url + "/api/changes?since=0", {"Cookie": "wtc_ui=" + "x" * 24})[0] == 401


def test_a_short_token_and_an_unknown_run_are_refused_before_listening(repo):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
    code, body = wtc(repo, "ui", "--run", "r1", "--port", "0", env={"WTC_UI_TOKEN": "short"})
    assert code == 2 and "WTC_UI_TOKEN is too short" in body["error"]["message"]
    code, body = wtc(repo, "ui", "--run", "nope", "--port", "0")
    assert code == 5 and "nope" in body["error"]["message"]


def test_other_commands_do_not_load_the_page_server():
    code = ("import sys; from worktree_coord.cli import build_command; build_command(); "
            "print(sorted(m for m in sys.modules if m.startswith('worktree_coord.ui') or m == 'http.server'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_tasks_detail_holds_its_trace_spans_when_a_trace_file_is_recorded(repo, tmp_path):
    trace = {"WTC_TRACE_FILE": str(tmp_path / "spans.jsonl")}
    assert wtc(repo, "run", "start", "--run", "r1", env=trace)[0] == 0
    code, started = wtc(repo, "task", "start", "t1", "--run", "r1", "--own", "pkg/**", env=trace)
    assert code == 0
    write(Path(started["worktree"]), {"pkg/mod.py": MODULE.replace("return 2", "return 20")})
    assert wtc(repo, "task", "finish", "t1", "--run", "r1", env=trace)[0] == 0
    with wtc_ui(repo, "--run", "r1", "--no-forecast", env=trace) as url:
        spans = json.loads(get(url + "/api/task/t1")[2])["spans"]
    names = {span["name"] for span in spans}
    assert {"wtc.task.start", "wtc.task.finish"} <= names, names
    assert all(span["end"] >= span["start"] > 0 for span in spans)
