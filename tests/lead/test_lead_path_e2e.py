"""The lead's whole path through the command line (not the API), on a repository with a uv root and
an npm root: conflicting tasks resolved through `task update` (which side each marker block holds),
a removal that code no task changed still uses (refused by check and finish, then widened, updated
and merged; started again after it merged: its real state), a task whose only change is an intent,
a verification that fails and is fixed in place, intents in every state (applied, pending,
needs_network, failed, conflict) then retried, re-declared and dropped, `report` in text and JSON at
each step, `land` refused with leftovers and accepted with approval, `status` with one run and with
several. Every call's exit code and JSON shape is checked against the documented table (helpers.cli).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tests.lead.helpers import UTIL, cli, lead_repo, tool_env, wheel
from worktree_coord.consolidate.adapters.base import find_tool

pytestmark = pytest.mark.skipif(find_tool("uv") is None or shutil.which("npm") is None,
                                reason="uv comes with the test extras; npm with Node.js")

VERIFY = (f"{sys.executable} -c \"import sys; text = open('app/v.py').read(); print('checked app/v.py'); "
          f"sys.exit(1 if 'BROKEN' in text else 0)\"")


def start(repo: Path, env: dict, task: str, *own: str) -> Path:
    code, body = cli(repo, "task", "start", task, "--run", "r", *[f"--own={g}" for g in own], env=env, expect=0)
    return Path(body["worktree"])


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def add_dependency(worktree: Path, requirement: str) -> None:
    pyproject = worktree / "pyproject.toml"
    text = pyproject.read_text()
    if "dependencies = []" in text:
        pyproject.write_text(text.replace("dependencies = []", f'dependencies = ["{requirement}"]'))
    else:
        pyproject.write_text(text.replace("dependencies = [", f'dependencies = ["{requirement}", ', 1))


def report(repo: Path, env: dict) -> dict:
    """`wtc report` in JSON and in text: both name every leftover, exit 0 (a report only reads)."""
    _, body = cli(repo, "report", "--run", "r", "--onto", "main", env=env, expect=0)
    _, text = cli(repo, "report", "--run", "r", "--onto", "main", env=env, json_mode=False, expect=0)
    for rows in body["leftovers"]["intents"].values():
        for row in rows:
            assert row["name"] in text and row["state"] in text and row["fix"]
    for names in body["leftovers"]["tasks"].values():
        for name in names:
            assert f"task {name} is" in text
    assert bool(body["warnings"]) == bool(body["leftovers"]["intents"] or body["leftovers"]["tasks"])
    for item in body["files"]:
        assert item["origins"] and f"{item['path']}  ({item['origin']})" in text
    return body


def origins(body: dict) -> dict[str, str]:
    return {item["path"]: item["origin"] for item in body["files"]}


@pytest.fixture
def timings():
    from tests.lead.helpers import TIMINGS
    yield
    print("\n".join(f"{t:6.2f} {c}" for t, c in sorted(TIMINGS, reverse=True)[:12]), sum(t for t, _ in TIMINGS), len(TIMINGS))


def test_the_leads_path_end_to_end(tmp_path, timings):
    env = tool_env(tmp_path)
    for name, version in (("shared", "1.0"), ("extra", "1.0"), ("pyyaml", "5.4"), ("pyyaml", "6.0.1")):
        wheel(tmp_path / "wheels", name, version)
    repo = lead_repo(tmp_path, env)
    main_before = git(repo, "rev-parse", "main")
    cli(repo, "run", "start", "--run", "r", env=env, expect=0)

    # -- status with one run: its tasks, not "no tasks" -------------------------------------------
    wt_a = start(repo, env, "a", "app/core.py")
    wt_b = start(repo, env, "b", "app/core.py")
    _, status = cli(repo, "status", env=env, expect=0)
    assert {t["task"] for t in status["tasks"]} == {"a", "b"}
    _, text = cli(repo, "status", env=env, json_mode=False, expect=0)
    assert "no tasks" not in text and " a " in text and " b " in text

    # -- two tasks change one line; b is resolved through `task update` ---------------------------
    edit(wt_a / "app/core.py", "return 2", "return 20  # from a")
    edit(wt_b / "app/core.py", "return 2", "return 200  # from b")
    _, done = cli(repo, "task", "finish", "a", "--run", "r", env=env, expect=0)
    assert done["state"] == "merged"
    _, done = cli(repo, "task", "finish", "b", "--run", "r", env=env, expect=1)
    assert done["state"] == "conflict" and done["conflicts"][0]["path"] == "app/core.py"
    _, updated = cli(repo, "task", "update", "b", "--run", "r", env=env, expect=1)
    assert updated["conflicted_paths"] == ["app/core.py"]
    labels = {m["marker"]: m for m in updated["markers"]}
    assert labels["<<<<<<<"]["label"] == "task b" and labels["<<<<<<<"]["side"] == "ours"
    assert labels[">>>>>>>"]["label"] == "integration r" and labels[">>>>>>>"]["side"] == "theirs"
    marked = (wt_b / "app/core.py").read_text()
    ours = marked.split("<<<<<<< task b\n", 1)[1].split("|||||||", 1)[0]
    theirs = marked.split("=======\n", 1)[1].split(">>>>>>> integration r", 1)[0]
    assert "from b" in ours and "from a" not in ours, "the block under the task's label holds the task's line"
    assert "from a" in theirs and "from b" not in theirs, "the integration block holds a's merged line"
    # A finish with the markers still in is a conflict still to resolve (exit 1), not merged.
    _, refused = cli(repo, "task", "finish", "b", "--run", "r", env=env, expect=1)
    assert refused["conflicts"][0]["kind"] == "unresolved_markers" and wt_b.is_dir()
    (wt_b / "app/core.py").write_text(marked.split("<<<<<<<")[0] + "    return 20  # from a, kept by b\n"
                                      + marked.split(">>>>>>> integration r\n", 1)[1])
    _, done = cli(repo, "task", "finish", "b", "--run", "r", env=env, expect=0)
    assert done["state"] == "merged"
    assert "kept by b" in git(repo, "show", "wtc/r/integration:app/core.py")

    # -- a verification that fails is fixed in place: update, fix, finish again -------------------
    wt_v = start(repo, env, "v", "app/v.py")
    (wt_v / "app/v.py").write_text("OK = False  # BROKEN\n")
    _, text = cli(repo, "task", "finish", "v", "--run", "r", "--verify", VERIFY, env=env, json_mode=False, expect=1)
    assert "verification failed" in text and "| checked app/v.py" in text, text
    _, again = cli(repo, "task", "finish", "v", "--run", "r", env=env, expect=1)
    assert again["state"] == "failed" and "wtc task update v --run r" in " ".join(again["notes"])
    assert "start a new task" not in str(again)
    _, updated = cli(repo, "task", "update", "v", "--run", "r", env=env, expect=0)
    (Path(updated["worktree"]) / "app/v.py").write_text("OK = True  # fixed\n")
    _, done = cli(repo, "task", "finish", "v", "--run", "r", env=env, expect=0)
    assert done["state"] == "merged" and done["merge"]["verification"]["ok"] is True
    assert done["merge"]["verification"]["command"] == VERIFY, "verified again with the same command"

    # -- a removal that code no task changed still uses: check and finish refuse it ---------------
    wt_rm = start(repo, env, "rm", "app/util.py")
    (wt_rm / "app/util.py").write_text(UTIL.split("\n\n\n", 1)[1])        # helper deleted
    _, checked = cli(repo, "task", "check", "rm", "--run", "r", env=env, expect=1)
    assert checked["left_behind_blocks"] and [(u["use_path"], u["use_lines"]) for u in checked["left_behind"]] == \
        [("app/use.py", [1, 5])]
    tip = git(repo, "rev-parse", "wtc/r/integration")
    _, blocked = cli(repo, "task", "finish", "rm", "--run", "r", env=env, expect=1)
    assert [(c["kind"], c["path"], c["start_line"]) for c in blocked["conflicts"]] == \
        [("left_behind", "app/use.py", 1), ("left_behind", "app/use.py", 5)]
    assert git(repo, "rev-parse", "wtc/r/integration") == tip
    # The lead widens the task to the caller; the agent updates the use and finishes.
    cli(repo, "task", "widen", "rm", "--run", "r", "--own", "app/use.py", "--why", "update helper's callers",
        env=env, expect=0)
    _, updated = cli(repo, "task", "update", "rm", "--run", "r", env=env, expect=0)
    (Path(updated["worktree"]) / "app/use.py").write_text("def clean(text):\n    return text.strip()\n")
    _, done = cli(repo, "task", "finish", "rm", "--run", "r", env=env, expect=0)
    assert done["state"] == "merged"
    # Started again (a harness re-running its agent): its real state, no worktree that is gone.
    _, again = cli(repo, "task", "start", "rm", "--run", "r", "--own=app/util.py", "--own=app/use.py", env=env,
                   expect=0)
    assert again["state"] == "merged" and again["existing"] and again["worktree"] == ""
    assert not Path(updated["worktree"]).exists()

    # -- a task whose only change is an intent declared with `intent add` merges; the intent applies
    _, live = cli(repo, "task", "start", "only-intent", "--run", "r", "--own=docs/**", env=env, expect=0)
    # (a second clone on this machine hands out a port block no live task of this one holds)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(repo), str(other))
    cli(other, "run", "start", "--run", "o", env=env, expect=0)
    _, theirs = cli(other, "task", "start", "t", "--run", "o", "--own=app/x.py", env=env, expect=0)
    ours, them = live["prepared"]["ports"], theirs["prepared"]["ports"]
    assert them["last"] < ours["base"] or them["base"] > ours["last"], (ours, them)
    cli(repo, "intent", "add", "only-intent", "--run", "r", "--manifest", "pyproject.toml", "--op", "add_dep",
        "--name", "extra", "--spec", ">=1", env=env, expect=0)
    _, done = cli(repo, "task", "finish", "only-intent", "--run", "r", env=env, expect=0)
    assert done["state"] == "merged" and done["intents"][0]["name"] == "extra"

    # -- intents in every state --------------------------------------------------------------------
    for task, requirement in (("d1", "shared>=1"), ("d2", "missingpkg>=1"), ("c1", "pyyaml>=6.0"),
                              ("c2", "pyyaml<6"), ("p1", "extra>=1")):
        worktree = start(repo, env, task, f"app/{task}.py")
        (worktree / f"app/{task}.py").write_text(f"NAME = {task!r}\n")
        add_dependency(worktree, requirement)
        cli(repo, "task", "finish", task, "--run", "r", *(["--no-merge"] if task == "p1" else []), env=env,
            expect=0)
    wt_n = start(repo, env, "n1", "web/**")
    edit(wt_n / "web/index.js", "1", "2")
    edit(wt_n / "package.json", '"version": "1.0.0"', '"version": "1.1.0"')
    cli(repo, "task", "finish", "n1", "--run", "r", env=env, expect=0)
    # npm is missing from PATH for this consolidation: the npm root fails and says how to install it.
    no_npm = tmp_path / "bin-without-npm"
    no_npm.mkdir()
    os.symlink(shutil.which("git"), no_npm / "git")
    os.symlink(os.path.realpath(sys.executable), no_npm / "python3")  # uv looks for an interpreter on PATH
    _, cons = cli(repo, "consolidate", "--run", "r", env=env | {"PATH": str(no_npm)}, expect=1)
    roots = {r["ecosystem"]: r for r in cons["roots"]}
    assert roots["npm"]["state"] == "failed" and "install" in roots["npm"]["error"]["fix"]
    assert roots["uv"]["state"] in ("conflict", "needs_network", "applied"), (roots["uv"]["error"], roots["uv"]["tool_runs"])
    _, listed = cli(repo, "intent", "list", "--run", "r", env=env, expect=0)
    states = {row["intent"].split(":", 1)[0]: row["state"] for row in listed["intents"]}
    assert states == {"d1": "applied", "d2": "needs_network", "c1": "conflict", "c2": "conflict",
                      "p1": "pending", "n1": "failed"} or states["d1"] in ("needs_network", "conflict"), states
    # One uv root holds d1, d2, c1 and c2: a needs_network or conflict among them keeps the whole
    # root unapplied, so d1 (cached) waits with them; the states above are what the store says.
    skipped = {row["intent"].split(":", 1)[0]: row for row in cons["skipped"]}
    assert skipped["p1"]["why"].startswith("its task p1 is finished")
    assert skipped["n1"]["state"] == "failed" and "--retry-failed" in skipped["n1"]["fix"]

    body = report(repo, env)
    assert body["leftovers"]["tasks"] == {"finished": ["p1"]}
    assert {"failed", "conflict", "pending"} <= set(body["leftovers"]["intents"])
    # Land refuses while anything would be left out, naming each leftover.
    _, refused = cli(repo, "land", "--run", "r", "--onto", "main", "--yes", env=env, expect=1)
    assert refused["error"]["kind"] == "action_required" and "--allow-partial" in refused["error"]["fix"]
    assert refused["error"]["details"]["leftovers"] == body["leftovers"]
    assert git(repo, "rev-parse", "main") == main_before

    # A repeat consolidate with nothing new to do is not "exit 0, roots []": it says what is unapplied.
    _, cons = cli(repo, "consolidate", "--run", "r", "--key", "again", env=env, expect=1)
    assert {row["state"] for row in cons["skipped"]} >= {"failed", "conflict"}

    # Re-declaring c2's side supersedes it; c1 (its conflict partner) waits again.
    _, declared = cli(repo, "intent", "add", "c2", "--run", "r", "--manifest", "pyproject.toml", "--op", "add_dep",
                      "--name", "pyyaml", "--spec", ">=6.0", "--key", "c2-redeclare", env=env, expect=0)
    new_id = declared["intent"]["intent_id"]
    assert declared["intent"]["superseded"] == ["c2:pyproject.toml:add_dep:dependencies:pyyaml"]
    assert declared["intent"]["requeued"] == ["c1:pyproject.toml:add_dep:dependencies:pyyaml"]
    _, listed = cli(repo, "intent", "list", "--run", "r", env=env, expect=0)
    old = next(r for r in listed["intents"] if r["intent"] == "c2:pyproject.toml:add_dep:dependencies:pyyaml")
    assert old["state"] == "superseded" and old["detail"]["superseded_by"] == new_id
    # The network miss is given up on; the task missing from PATH is retried with npm back.
    missing = "d2:pyproject.toml:add_dep:dependencies:missingpkg"
    _, dropped = cli(repo, "intent", "drop", missing, "--run", "r", "--why", "not needed", env=env, expect=0)
    assert dropped["intent"]["state"] == "dropped" and dropped["intent"]["previous_state"] in ("needs_network",
                                                                                               "pending")
    cli(repo, "intent", "drop", "nope", "--run", "r", env=env, expect=5)
    _, cons = cli(repo, "consolidate", "--run", "r", "--retry-failed", env=env, expect=1)
    roots = {r["ecosystem"]: r for r in cons["roots"]}
    assert roots["uv"]["state"] == "applied" and roots["npm"]["state"] == "applied", cons
    assert "n1:package.json:bump_version:version:web" in cons["retried"]
    assert [row["intent"].split(":", 1)[0] for row in cons["skipped"]] == ["p1"]

    body = report(repo, env)
    where = origins(body)
    assert where["app/core.py"] == "task a, task b"
    assert where["app/v.py"] == "task v"
    # Each consolidated file names the tasks whose intents its consolidation applied.
    assert where["pyproject.toml"] == where["uv.lock"] == "consolidation uv root . for tasks c1, c2, d1, only-intent"
    assert where["package.json"] == where["package-lock.json"] == "consolidation npm root . for task n1", where
    lock = git(repo, "show", "wtc/r/integration:uv.lock")
    assert 'name = "pyyaml"' in lock and 'version = "6.0.1"' in lock and 'name = "shared"' in lock

    # Landing with the leftover (p1 finished, its intent pending) needs --allow-partial ...
    cli(repo, "land", "--run", "r", "--onto", "main", "--yes", env=env, expect=1)
    _, landed = cli(repo, "land", "--run", "r", "--onto", "main", "--yes", "--allow-partial", env=env, expect=0)
    assert landed["warnings"] and landed["left_out"]["tasks"] == {"finished": ["p1"]}
    assert git(repo, "rev-parse", "main") == landed["new"] == landed["tip"]
    # Landing again without the flag: main already holds that tip, so the land says so (exit 0, the
    # leftovers still listed) instead of refusing for what the first land left out.
    _, again = cli(repo, "land", "--run", "r", "--onto", "main", "--yes", env=env, expect=0)
    assert again["new"] == landed["tip"] and again["left_out"]["tasks"] == {"finished": ["p1"]}, again
    # ... and once p1 is merged and consolidated, a land with nothing left out needs no flag.
    _, merged = cli(repo, "merge", "--run", "r", env=env, expect=0)
    assert merged["tasks"][0]["state"] == "merged"
    _, cons = cli(repo, "consolidate", "--run", "r", env=env, expect=0)
    assert cons["skipped"] == []
    body = report(repo, env)
    assert body["leftovers"] == {"intents": {}, "tasks": {}} and body["warnings"] == []
    _, landed = cli(repo, "land", "--run", "r", "--onto", "main", "--yes", env=env, expect=0)
    assert landed["warnings"] == [] and git(repo, "rev-parse", "main") == landed["tip"]
    _, text = cli(repo, "land", "--run", "r", "--onto", "main", "--yes", "--key", "once-more", env=env,
                  json_mode=False, expect=0)
    assert f"already holds the integration tip {landed['tip'][:12]}" in text

    # -- status with several runs: each run with its counts ----------------------------------------
    cli(repo, "run", "start", "--run", "r2", env=env, expect=0)
    _, status = cli(repo, "status", env=env, expect=0)
    assert [r["run"] for r in status["runs"]] == ["r", "r2"] and status["tasks"] == []
    assert status["runs"][0]["counts"] == {"merged": 11}
    _, text = cli(repo, "status", env=env, json_mode=False, expect=0)
    assert "r2" in text and "11 merged" in text
    # Nothing left behind in the worktree folder: no empty .verify or .consolidate.
    assert sorted(p.name for p in (repo / ".wtc" / "worktrees" / "r").iterdir()) == []
