"""wtc as Claude Code's worktree provider, driven as the harness drives it: a process per hook, the
JSON payload on stdin (every shape seen in the field), the working directory Claude Code gives, the
worktree taken from the last line of stdout. Real git, real wtc, nothing mocked."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc
from tests.hooks.hook_helpers import (WTC, assert_contract, create, create_payload, finish_hook, hook_env, remove,
                                      run_hook, start_hook)

SHAPES = ("workflow", "documented", "legacy")


def integration_files(repo: Path, run: str) -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", f"wtc/{run}/integration").splitlines())


def status(repo: Path, run: str) -> dict:
    code, body = wtc(repo, "status", "--run", run)
    assert code == 0, body
    return body


def session_run(repo: Path, session: str) -> str:
    code, body = wtc(repo, "status")
    runs = [r["run"] for r in body["runs"] if r.get("session", {}).get("id") == session]
    assert len(runs) == 1, body["runs"]
    return runs[0]


@pytest.mark.heavy
@pytest.mark.slow
def test_64_parallel_creates_then_removes_all_merge_and_leave_nothing_behind(tmp_path):
    repo = make_repo(tmp_path / "repo")
    base = git(repo, "rev-parse", "HEAD")
    creating = [start_hook("WorktreeCreate", create_payload(SHAPES[i % 3], f"agent-{i:02d}", session="big",
                                                            cwd=repo), cwd=repo, project=repo)
                for i in range(64)]
    created = [finish_hook(p) for p in creating]
    paths = [assert_contract(done) for done in created]
    assert len(set(paths)) == 64
    run = session_run(repo, "big")
    from worktree_coord.store import SQLiteStore

    with contextlib.closing(SQLiteStore(repo / ".git" / "wtc" / "state.sqlite3")) as store:
        kinds = [event["kind"] for event in store.events(run)]
    assert kinds.count("run.started") == 1 and kinds.count("session.started") == 1, "the run started once"
    for i, path in enumerate(paths):
        assert git(path, "rev-parse", "HEAD") == base
        write(path, {f"packages/api/agent{i:02d}.js": f"export const n{i} = {i};\n"})   # left uncommitted
        if i % 2:
            git(path, "add", "-A")
            git(path, "commit", "-q", "-m", f"agent {i} committed itself")
    removing = [start_hook("WorktreeRemove", {"session_id": "big", "cwd": str(p), "worktree_path": str(p),
                                              "hook_event_name": "WorktreeRemove"}, cwd=p, project=repo)
                for p in paths]
    removed = [finish_hook(p) for p in removing]
    assert [r.returncode for r in removed] == [0] * 64, [r.stderr for r in removed if r.returncode][:2]
    assert all("merged into" in r.stderr for r in removed)
    files = integration_files(repo, run)
    assert {f"packages/api/agent{i:02d}.js" for i in range(64)} <= files, "a commit was lost"
    assert status(repo, run)["counts"] == {"merged": 64}
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1, "a stray worktree"
    branches = set(git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").splitlines())
    tasks = {f"wtc/{run}/agent-{i:02d}" for i in range(64)}
    assert branches == {"main", f"wtc/{run}/integration"} | tasks, branches - tasks
    integration = git(repo, "rev-parse", f"wtc/{run}/integration")
    for branch in tasks:
        assert subprocess.run(["git", "merge-base", "--is-ancestor", branch, integration], cwd=repo).returncode == 0
    assert not list((repo / ".git").rglob("*.lock"))


@pytest.mark.heavy
def test_a_retried_create_for_the_same_agent_returns_the_same_worktree(repo):
    first = assert_contract(create(repo, "retry-me"))
    again = assert_contract(create(repo, "retry-me", shape="documented"))
    assert again == first
    at_once = [start_hook("WorktreeCreate", create_payload("workflow", "twin", session="session-1", cwd=repo),
                          cwd=repo, project=repo) for _ in range(8)]
    twins = {assert_contract(finish_hook(p)) for p in at_once}
    assert len(twins) == 1
    run = session_run(repo, "session-1")
    assert sorted(t["task"] for t in status(repo, run)["tasks"]) == ["retry-me", "twin"]


def test_agent_names_that_are_no_valid_task_names_get_stable_distinct_ones(repo):
    names = ["feature/login page", "feature-login-page", ".hidden", "integration", "x" * 200, "ünïcode agent"]
    paths = [assert_contract(create(repo, name)) for name in names]
    tasks = [p.name for p in paths]
    assert len(set(tasks)) == len(names)
    assert tasks[0] == "feature-login-page" and tasks[1].startswith("feature-login-page-")
    body = status(repo, session_run(repo, "session-1"))
    agents = {t["task"]: t.get("agent") for t in body["tasks"]}
    assert agents[tasks[0]] == "feature/login page" and agents[tasks[2]] == ".hidden"
    assert [assert_contract(create(repo, name)) for name in names] == paths   # stable on retry


def test_remove_commits_uncommitted_work_and_merges_it(repo):
    path = assert_contract(create(repo, "writer"))
    write(path, {"packages/web/new.js": "export const added = true;\n"})
    (path / "docs" / "guide.md").unlink()
    done = remove(repo, path)
    assert done.returncode == 0, done.stderr
    assert "merged into" in done.stderr and not done.stdout
    assert not path.exists()
    files = integration_files(repo, session_run(repo, "session-1"))
    assert "packages/web/new.js" in files and "docs/guide.md" not in files


def test_remove_says_a_reserved_edit_waits_for_consolidation(repo):
    # Issue 35: the hook said only "merged" while the agent's edit of the root package.json had
    # become an intent that lands only with `wtc consolidate` (finish says so).
    path = assert_contract(create(repo, "deps"))
    write(path, {"packages/web/index.js": "export function web() {\n  return 3;\n}\n",
                 "package.json": '{\n  "name": "root",\n  "workspaces": ["packages/*"],\n'
                                 '  "dependencies": {"left-pad": "^1.3.0"}\n}\n'})
    done = remove(repo, path)
    run = session_run(repo, "session-1")
    assert done.returncode == 0 and "merged into" in done.stderr, done.stderr
    assert "package.json" in done.stderr and "left-pad" in done.stderr and "consolidat" in done.stderr
    assert f"next: wtc consolidate --run {run}" in done.stderr


def test_remove_after_a_boundary_violation_keeps_branch_and_worktree_and_says_why(repo):
    assert wtc(repo, "plan", "add", "api-*", "--own", "packages/api/**")[0] == 0
    path = assert_contract(create(repo, "api-1"))
    write(path, {"packages/api/index.js": "export function api() { return 42; }\n",
                 "packages/web/index.js": "stolen\n"})
    done = remove(repo, path)
    assert done.returncode == 3
    assert "packages/web/index.js" in done.stderr and "wtc task finish api-1 --run" in done.stderr
    assert path.is_dir(), "the worktree must stay"
    run = session_run(repo, "session-1")
    assert git(repo, "show", f"wtc/{run}/api-1:packages/web/index.js") == "stolen", "the work is committed on the branch"
    task = status(repo, run)["tasks"][0]
    assert task["state"] == "rejected" and task["boundary_from"] == "plan #1 'api-*'"
    (path / "packages" / "web" / "index.js").write_text((repo / "packages" / "web" / "index.js").read_text())
    again = remove(repo, path)
    assert again.returncode == 0, again.stderr
    assert "merged into" in again.stderr and not path.exists()


def test_remove_of_a_worktree_wtc_did_not_create_leaves_it_to_git(repo, tmp_path):
    other = tmp_path / "by-hand"
    git(repo, "worktree", "add", "-q", "-b", "by-hand", str(other))
    write(other, {"precious.txt": "uncommitted\n"})
    done = remove(repo, other)
    assert done.returncode == 0
    assert "not a worktree of a wtc task" in done.stderr and "git worktree remove" in done.stderr
    assert (other / "precious.txt").read_text() == "uncommitted\n"
    assert str(other) in git(repo, "worktree", "list")
    gone = remove(repo, tmp_path / "never-existed")
    assert gone.returncode == 0


def test_remove_of_the_main_checkout_is_refused_naming_why(repo):
    # Issue 35: the main checkout as worktree_path (or as cwd, with no worktree_path) exited 0 and
    # advised `git worktree remove <main checkout>`. It is no worktree to hand back: exit 2, and
    # Claude Code keeps its record. A plain folder inside it is not a git worktree either: no advice
    # to remove it with git.
    event = {"session_id": "s", "hook_event_name": "WorktreeRemove"}
    for given in ({"worktree_path": str(repo)}, {"cwd": str(repo)}, {"cwd": str(repo / "docs"), "worktree_path": ".."}):
        done = run_hook("WorktreeRemove", event | given, cwd=repo, project=repo)
        assert done.returncode == 2, (given, done.stderr)
        assert f"{repo} is the repository's main checkout" in done.stderr and "git worktree remove" not in done.stderr
    folder = run_hook("WorktreeRemove", event | {"worktree_path": str(repo / "docs")}, cwd=repo, project=repo)
    assert folder.returncode == 0 and "not a worktree" in folder.stderr and "git worktree remove" not in folder.stderr
    assert (repo / "docs" / "guide.md").is_file() and git(repo, "status", "--porcelain") == ""


def test_create_with_source_ref_pins_the_session_run_there(repo):
    git(repo, "switch", "-q", "-c", "feature")
    write(repo, {"packages/core/extra.py": "EXTRA = 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "feature work")
    feature = git(repo, "rev-parse", "HEAD")
    git(repo, "switch", "-q", "main")
    path = assert_contract(create(repo, "on-feature", session="s-ref", source_ref="feature"))
    assert git(path, "rev-parse", "HEAD") == feature
    assert (path / "packages" / "core" / "extra.py").is_file()
    run = session_run(repo, "s-ref")
    assert status(repo, run)["runs"][0]["base"] == feature
    later = create(repo, "second", session="s-ref", source_ref="main")
    assert git(assert_contract(later), "rev-parse", "HEAD") == feature, "a run has one pin"
    assert "not the session run's pinned commit" in later.stderr


@pytest.mark.heavy
def test_two_sessions_at_once_get_two_runs(repo):
    procs = [start_hook("WorktreeCreate", create_payload("workflow", f"a{i}", session=session, cwd=repo),
                        cwd=repo, project=repo) for i in range(4) for session in ("alpha", "beta")]
    for p in procs:
        assert_contract(finish_hook(p))
    alpha, beta = session_run(repo, "alpha"), session_run(repo, "beta")
    assert alpha != beta
    for run in (alpha, beta):
        assert sorted(t["task"] for t in status(repo, run)["tasks"]) == ["a0", "a1", "a2", "a3"]


def test_wtc_run_names_the_run_and_must_exist(repo):
    missing = create(repo, "x", env={"WTC_RUN": "nope"})
    assert missing.returncode == 5 and not missing.stdout
    assert "wtc run start --run nope" in missing.stderr
    assert wtc(repo, "run", "start", "--run", "shared")[0] == 0
    path = assert_contract(create(repo, "joiner", session="any", env={"WTC_RUN": "shared"}))
    assert path.parent.name == "shared"
    assert [t["task"] for t in status(repo, "shared")["tasks"]] == ["joiner"]


def test_a_landed_session_run_gives_the_next_agent_a_new_run(repo):
    path = assert_contract(create(repo, "first", session="s-land"))
    write(path, {"docs/more.md": "more\n"})
    assert remove(repo, path).returncode == 0
    run = session_run(repo, "s-land")
    code, body = wtc(repo, "land", "--run", run, "--onto", "main", "--yes")
    assert code == 0, body
    later = assert_contract(create(repo, "second", session="s-land"))
    assert later.parent.name == f"{run}-2"
    assert (later / "docs" / "more.md").is_file(), "the new run starts from the landed HEAD"


def test_bad_payloads_and_places_fail_with_nothing_on_stdout(repo, tmp_path):
    nameless = run_hook("WorktreeCreate", {"session_id": "s", "cwd": str(repo)}, cwd=repo, project=repo)
    assert nameless.returncode == 2 and not nameless.stdout and "names no worktree" in nameless.stderr
    wrong = run_hook("WorktreeCreate", {"session_id": 7, "cwd": str(repo), "name": "a"}, cwd=repo, project=repo)
    assert wrong.returncode == 2 and "the hook payload's 'session_id' is a number, not a string" in wrong.stderr
    listed = run_hook("WorktreeCreate", [{"name": "a"}], cwd=repo, project=repo)  # type: ignore[arg-type]
    assert listed.returncode == 2 and "the hook payload is an array, not a JSON object" in listed.stderr
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    lost = run_hook("WorktreeCreate", {"session_id": "s", "cwd": str(outside), "name": "a"}, cwd=outside,
                    project=outside)
    assert lost.returncode == 5 and not lost.stdout and "not inside a git repository" in lost.stderr
    # Issue 35: the fix offered "--repo PATH", which the hook does not take; it says what does work.
    assert "--repo" not in lost.stderr and "cwd" in lost.stderr and "CLAUDE_PROJECT_DIR" in lost.stderr
    empty = subprocess.run([*WTC, "hook", "claude", "worktree-create"], cwd=repo, input="", capture_output=True, text=True)
    assert empty.returncode == 2 and not empty.stdout


def test_a_payload_that_never_ends_times_out_as_configured(repo):
    # Issue 35: a harness that keeps stdin open without a complete payload held the hook for a
    # fixed 30 s; the read timeout is the caller's to choose (WTC_HOOK_STDIN_TIMEOUT or
    # --stdin-timeout), and its error names it.
    for extra, env, sent in (([], {"WTC_HOOK_STDIN_TIMEOUT": "1"}, ""),
                             (["--stdin-timeout", "1"], {}, '{"session_id": "s", "cwd": ')):
        process = subprocess.Popen([*WTC, "hook", "claude", "worktree-create", *extra], cwd=repo,
                                   env=hook_env(repo, env), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        process.stdin.write(sent)
        process.stdin.flush()      # and never closed while the hook runs
        try:
            code = process.wait(timeout=25)
        finally:
            process.kill()
            out, err = process.communicate()
        assert code == 2 and not out, (code, err)
        assert "within 1 s" in err and "WTC_HOOK_STDIN_TIMEOUT" in err and "--stdin-timeout" in err
        assert (f"{len(sent)} byte(s) of it" in err) if sent else "nothing arrived" in err
    bad = subprocess.run([*WTC, "hook", "claude", "worktree-remove", "--stdin-timeout", "0"], cwd=repo, input="{}",
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "stdin-timeout" in bad.stderr


def test_worktreeinclude_copies_ignored_secrets_and_globs_only(tmp_path):
    repo = make_repo(tmp_path / "repo", {
        ".gitignore": ".env\n*.local.json\nnotes/\n",
        ".worktreeinclude": ".env\nconfig/*.local.json\nnotes/\ntracked.cfg\nuntracked-visible.txt\n",
        "config/app.json": "{}\n",
        "tracked.cfg": "from git\n",
    })
    write(repo, {".env": "API_KEY=s3cret\n", "config/dev.local.json": '{"port": 1}\n',
                 "config/other.json.bak": "no\n", "notes/todo.md": "todo\n", "untracked-visible.txt": "u\n"})
    os.chmod(repo / ".env", 0o600)
    (repo / "tracked.cfg").write_text("edited in main, not committed\n")
    path = assert_contract(create(repo, "reader"))
    assert (path / ".env").read_text() == "API_KEY=s3cret\n"
    assert stat.S_IMODE((path / ".env").stat().st_mode) == 0o600
    assert (path / "config" / "dev.local.json").is_file() and (path / "notes" / "todo.md").is_file()
    assert not (path / "config" / "other.json.bak").exists()
    assert not (path / "untracked-visible.txt").exists(), "only git-ignored files are copied"
    assert (path / "tracked.cfg").read_text() == "from git\n", "tracked files stay as checked out"
    done = remove(repo, path)
    assert done.returncode == 0
    run = session_run(repo, "session-1")
    assert ".env" not in integration_files(repo, run), "a copied secret is never committed"


def test_worktreeinclude_never_walks_into_another_agents_worktree_being_made(tmp_path):
    """Found in the suite (play_harness, four agents at once): the .worktreeinclude lookup walked
    the main checkout's untracked files into .wtc/worktrees/, where each worktree's .git file made
    git read its admin folder; one being made beside it (its commondir not written yet) failed the
    start: "fatal: failed to read .../commondir". Stood in for here by an admin folder git cannot
    read (its commondir a folder); the lookup must not go there at all."""
    repo = make_repo(tmp_path / "repo", {".gitignore": ".env\n", ".worktreeinclude": ".env\n", "a.txt": "a\n"})
    write(repo, {".env": "KEY=1\n"})
    first = assert_contract(create(repo, "first"))
    # A worktree folder whose admin folder git cannot read (as one half made is, for a moment): its
    # commondir is a folder. Registered nowhere, so only a walk into the worktree folders meets it.
    ghost, admin = first.parent / "ghost", tmp_path / "ghost-admin"
    (admin / "commondir").mkdir(parents=True)
    (admin / "HEAD").write_text("ref: refs/heads/ghost\n")
    ghost.mkdir()
    (ghost / ".git").write_text(f"gitdir: {admin}\n")
    second = assert_contract(create(repo, "second"))
    assert (second / ".env").read_text() == "KEY=1\n"


def test_a_failing_setup_command_rolls_the_start_back_and_names_its_log(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", ".wtc.toml": '[worktree-setup]\nrun = "echo preparing; '
                                         'echo broken >&2; exit 7"\n'})
    done = create(repo, "doomed")
    assert done.returncode == 1 and not done.stdout
    log = next((repo / ".git" / "wtc" / "logs").rglob("doomed-setup.log"))
    assert str(log) in done.stderr and "exit 7" in done.stderr
    text = log.read_text()
    assert "preparing" in text and "broken" in text and "# exit 7" in text
    run = session_run(repo, "session-1")
    assert status(repo, run)["tasks"] == [], "the task is rolled back"
    assert not (repo / ".wtc" / "worktrees" / run / "doomed").exists()
    assert git(repo, "branch", "--list", f"wtc/{run}/doomed") == ""
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1
    (repo / ".wtc.toml").write_text('[worktree-setup]\nrun = "test -f .wtc/env && echo ok"\n')
    fixed = assert_contract(create(repo, "doomed"))
    assert status(repo, run)["tasks"][0]["setup_log"] == str(log)
    assert "ok" in log.read_text() and fixed.is_dir()


def test_a_setup_command_past_its_timeout_is_killed_and_rolled_back(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n", ".wtc.toml": '[worktree-setup]\nrun = "sleep 30"\n'
                                                                       'timeout = 1\n'})
    code, body = wtc(repo, "run", "start", "--run", "r")
    code, body = wtc(repo, "task", "start", "slow", "--run", "r", "--own", "**")
    assert code == 1 and body["error"]["kind"] == "setup_failed"
    assert "did not end within 1 s" in body["error"]["message"]
    assert wtc(repo, "status", "--run", "r")[1]["tasks"] == []


@pytest.mark.heavy
def test_ports_are_distinct_across_32_parallel_tasks(repo):
    assert wtc(repo, "run", "start", "--run", "ports")[0] == 0
    procs = []
    for i in range(32):
        if i % 2:   # half through the hook, half through `wtc task start`: one allocation for both
            procs.append(start_hook("WorktreeCreate", create_payload("workflow", f"p{i:02d}", session="x", cwd=repo),
                                    cwd=repo, project=repo, env={"WTC_RUN": "ports"}))
        else:
            procs.append(subprocess.Popen([*WTC, "task", "start", f"p{i:02d}", "--run", "ports", "--own", f"packages/p{i:02d}/**",
                                           "--json"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    bases = []
    for task in status(repo, "ports")["tasks"]:
        env = dict(line.split("=", 1) for line in (Path(task["worktree"]) / ".wtc" / "env").read_text().splitlines()
                   if "=" in line and not line.startswith("#"))
        assert env["WTC_TASK"] == task["task"] and int(env["WTC_PORT_BASE"]) == task["ports"]["base"]
        manifest = json.loads((Path(task["worktree"]) / ".wtc" / "task.json").read_text())
        assert manifest["ports"]["base"] == task["ports"]["base"]
        bases.append(int(env["WTC_PORT_BASE"]))
    assert len(bases) == 32 and len(set(bases)) == 32
    ranges = sorted((b, b + 9) for b in bases)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), "port blocks overlap"


def test_linked_dependency_folders_are_never_committed_and_unsafe_ones_are_skipped(tmp_path):
    repo = make_repo(tmp_path / "repo", {
        ".gitignore": "node_modules/\n.venv/\n",
        "src/app.js": "x\n", "vendor/lib.js": "tracked\n",
        ".wtc.toml": '[worktree-setup]\nlink = ["node_modules", ".venv", "vendor", "missing"]\n',
    })
    write(repo, {"node_modules/left-pad/index.js": "module.exports = 1;\n", ".venv/pyvenv.cfg": "home = /usr\n",
                 ".venv/lib/python3.11/site-packages/__editable__.app.pth": f"{repo}/src\n"})
    path = assert_contract(create(repo, "linker"))
    assert (path / "node_modules").is_symlink()
    assert (path / "node_modules" / "left-pad" / "index.js").is_file()
    assert not (path / ".venv").exists()
    body = status(repo, session_run(repo, "session-1"))
    done = create(repo, "linker")
    for reason in ("editable install", "tracked by git", "no such folder"):
        assert reason in done.stderr
    write(path, {"src/app.js": "y\n"})
    assert remove(repo, path).returncode == 0
    run = session_run(repo, "session-1")
    assert "node_modules" not in {f.split("/")[0] for f in integration_files(repo, run)}
    assert (repo / "node_modules" / "left-pad" / "index.js").is_file(), "removing the worktree kept the target"
    assert body["tasks"][0]["ports"]["count"] == 10


def test_the_plan_gives_boundaries_to_hooks_and_to_task_start_alike(repo):
    assert wtc(repo, "run", "start", "--run", "planned")[0] == 0
    code, added = wtc(repo, "plan", "add", "web-*", "--own", "packages/web/**", "--read", "packages/core/**",
                      "--run", "planned")
    assert code == 0 and added["rules"][0]["rule"] == 1
    assert wtc(repo, "plan", "add", "web-*", "--own", "packages/web/**", "--read", "packages/core/**",
               "--run", "planned")[1]["replayed"] is True
    assert wtc(repo, "plan", "add", "*", "--own", "docs/**")[0] == 0
    code, listed = wtc(repo, "plan", "list", "--run", "planned")
    assert [r["pattern"] for r in listed["rules"]] == ["web-*", "*"] and listed["default"]["own"] == ["**"]
    path = assert_contract(create(repo, "web-1", env={"WTC_RUN": "planned"}))
    code, started = wtc(repo, "task", "start", "web-by-hand", "--run", "planned")
    assert code == 0 and started["boundary"]["own"] == ["packages/web/**"]
    code, other = wtc(repo, "task", "start", "writer", "--run", "planned")
    assert other["boundary"]["own"] == ["docs/**"] and other["boundary_from"] == "plan #2 '*'"
    rows = {t["task"]: t for t in status(repo, "planned")["tasks"]}
    assert rows["web-1"]["own"] == ["packages/web/**"] and rows["web-1"]["boundary_from"] == "plan #1 'web-*'"
    assert path.name == "web-1"
    # An agent name that is no task name: the pattern matches the task name it becomes too.
    spaced = assert_contract(create(repo, "web: fix #3", env={"WTC_RUN": "planned"}))
    rows = {t["task"]: t for t in status(repo, "planned")["tasks"]}
    assert spaced.name == "web-fix-3" and rows["web-fix-3"]["boundary_from"] == "plan #1 'web-*'"
    assert wtc(repo, "plan", "remove", "2")[0] == 0 and wtc(repo, "plan", "remove", "2")[0] == 5


def test_a_source_ref_that_names_no_commit_falls_back_to_head_as_claude_code_does(repo):
    done = create(repo, "no-remote", session="s-origin", source_ref="origin/HEAD")
    path = assert_contract(done)
    assert git(path, "rev-parse", "HEAD") == git(repo, "rev-parse", "HEAD")
    assert "'origin/HEAD' names no commit here" in done.stderr
