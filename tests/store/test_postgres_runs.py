"""Runs on the PostgreSQL store, driven through the real `wtc` command line: choosing the store
(WTC_STORE, `store` in the configuration), the password never in output, bad addresses, an outage in
the middle of a finish (exit 4, then a clean retry), and the SQLite default never loading psycopg."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo, wtc
from tests.pg_server import find_binary, running_server
from tests.store.store_helpers import open_address
from worktree_coord.model import TaskState
from worktree_coord.store import leases


def _run_two_tasks(repo: Path, env: dict[str, str]) -> None:
    assert wtc(repo, "run", "start", "--run", "r1", env=env)[0] == 0
    for task, path in (("api", "packages/api"), ("web", "packages/web")):
        code, body = wtc(repo, "task", "start", task, "--run", "r1", "--own", f"{path}/**", env=env)
        assert code == 0, body
        (Path(body["worktree"]) / path / "index.js").write_text(f"export const {task} = 1;\n")
    for task in ("api", "web"):
        code, body = wtc(repo, "task", "finish", task, "--run", "r1", env=env)
        assert code == 0 and body["state"] == "merged", body


def test_a_run_on_postgresql_through_the_command_line(tmp_path, pg_url):
    repo = make_repo(tmp_path / "repo")
    env = {"WTC_STORE": pg_url}
    _run_two_tasks(repo, env)
    code, status = wtc(repo, "status", "--run", "r1", env=env)
    assert code == 0 and {t["task"]: t["state"] for t in status["tasks"]} == {"api": "merged", "web": "merged"}
    assert not (repo / ".git" / "wtc" / "state.sqlite3").exists(), "nothing went to the SQLite default"
    store = open_address(pg_url)
    try:
        assert [t.state for t in store.list_tasks("r1")] == [TaskState.MERGED, TaskState.MERGED]
        assert store.list_leases() == [] and store.queue_entries() == [], "every lease and ticket was let go"
        merged = [e["data"]["new_tip"] for e in store.events("r1") if e["kind"] == "task.merged"]
    finally:
        store.close()
    assert git(repo, "rev-parse", "wtc/r1/integration") == merged[-1]
    # the same key again, from a "second machine" (another clone sharing the store), replays
    code, again = wtc(repo, "task", "finish", "api", "--run", "r1", env=env)
    assert code == 0 and again["replayed"] is True


def test_the_store_address_password_never_reaches_output(tmp_path, pg_server):
    repo = make_repo(tmp_path / "repo")
    database = pg_server.create_database()
    secret = pg_server.password
    outputs = []

    def run(env: dict[str, str], *args: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, capture_output=True,
                              text=True, env={**_environ(), **env}, timeout=120)
        outputs.append(done.stdout + done.stderr)
        return done.returncode, done.stdout + done.stderr

    good = {"WTC_STORE": pg_server.url(database)}
    assert run(good, "run", "start", "--run", "r1")[0] == 0
    assert run(good, "status", "--run", "r1", "--json")[0] == 0
    wrong = {"WTC_STORE": pg_server.url(database).replace(secret, "not-" + secret)}
    code, text = run(wrong, "status", "--json")
    assert code == 2 and "password authentication failed" in text and "***" in text
    down = {"WTC_STORE": pg_server.url(database).replace(f":{pg_server.port}/", ":1/")}
    code, text = run(down, "status", "--json")
    assert code == 4 and "retry_after_seconds" in text and "***" in text
    query = {"WTC_STORE": pg_server.url(database, password=False) + f"?password={secret}&connect_timeout=3"}
    assert run(query, "status", "--run", "r1")[0] == 0
    for bad in (f"mysql://u:{secret}@h/db", f"postgresql://u:{secret}@[::1/db", f"postgresql://u:{secret}@h:port/db"):
        code, text = run({"WTC_STORE": bad}, "status")
        assert code == 2 and "not one wtc can open" in text, text
    code, text = run({"WTC_STORE": pg_server.url(database) + "?no_such_parameter=1"}, "status")
    assert code == 2 and "no_such_parameter" in text
    code, text = run({"WTC_STORE": pg_server.url(database), "WTC_DEBUG": "1"}, "status", "--run", "nope", "--json")
    assert code == 5
    assert all(secret not in output for output in outputs), "the password was printed"


def test_store_in_the_configuration_without_a_password(tmp_path, pg_server):
    repo = make_repo(tmp_path / "repo")
    database = pg_server.create_database()
    (repo / ".wtc.toml").write_text(f'store = "{pg_server.url(database)}"\n')
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "status", "--json"], cwd=repo,
                          capture_output=True, text=True, env=_environ(), timeout=120)
    assert done.returncode == 2 and "PGPASSWORD" in done.stdout
    assert pg_server.password not in done.stdout + done.stderr, "the refusal does not echo the password"
    (repo / ".wtc.toml").write_text(f'store = "{pg_server.url(database, password=False)}"\n')
    env = {"PGPASSWORD": pg_server.password}
    code, body = wtc(repo, "run", "start", "--run", "r1", env=env)
    assert code == 0, body
    store = open_address(pg_server.url(database))
    try:
        assert store.get_run("r1") is not None, "the configured store holds the run"
    finally:
        store.close()
    code, body = wtc(repo, "status", "--run", "r1", env={"PGPASSWORD": "wrong"})
    assert code == 2 and body["error"]["kind"] == "store"


def test_a_store_outage_mid_finish_exits_4_and_a_retry_finishes_cleanly(tmp_path):
    """The server stops while a finish verifies its merge (after the claim and the leases were taken):
    the finish ends with exit 4 and a retry hint, nothing half-recorded; once the server is back, the
    same command resumes and ends merged, with integration moved exactly once."""
    repo = make_repo(tmp_path / "repo")
    with running_server() as server:
        database = server.create_database()
        env = {"WTC_STORE": server.url(database), "WTC_OUTAGE_STOP": _stop_command(server)}
        assert wtc(repo, "run", "start", "--run", "r1", env=env)[0] == 0
        code, body = wtc(repo, "task", "start", "api", "--run", "r1", "--own", "packages/api/**", env=env)
        (Path(body["worktree"]) / "packages/api/index.js").write_text("export const api = 2;\n")
        before = git(repo, "rev-parse", "wtc/r1/integration")
        # the verification command stops the server, as an outage would, then passes
        stop = 'sh -c "$WTC_OUTAGE_STOP"'
        code, failed = wtc(repo, "task", "finish", "api", "--run", "r1", "--verify", stop, env=env, timeout=300)
        assert not server.is_running()
        assert code == 4, failed
        assert failed["error"]["kind"] == "store_unavailable" and failed["error"]["details"]["retry_after_seconds"] > 0
        assert server.password not in str(failed)
        server.start()
        code, done = wtc(repo, "task", "finish", "api", "--run", "r1", "--verify", stop, env=env, timeout=300)
        assert code == 0 and done["state"] == "merged", done
        assert server.is_running(), "the retry found the merge done and did not verify again"
        tip = git(repo, "rev-parse", "wtc/r1/integration")
        assert git(repo, "rev-list", "--count", f"{before}..{tip}", "--merges") in ("0", "1")
        assert git(repo, "log", "--format=%s", f"{before}..{tip}").count("merge task api") <= 1
        assert git(repo, "show", f"{tip}:packages/api/index.js") == "export const api = 2;"
        store = open_address(server.url(database))
        try:
            assert store.get_task("r1", "api").state is TaskState.MERGED
            assert store.list_leases() == []
            # the killed call's place in the work queue is left to the next waiter to purge (its owner is dead)
            assert all(leases.owner_is_dead(store, e["owner"]) for e in store.queue_entries())
            assert [e["kind"] for e in store.events("r1", "api")].count("task.merged") == 1
        finally:
            store.close()


def test_the_sqlite_default_never_imports_psycopg(repo):
    probe = ("import sys\nfrom worktree_coord.coordinator import Coordinator\n"
             "with Coordinator(sys.argv[1]) as c:\n    c.start_run('r1')\n"
             "print(sorted(m for m in sys.modules if m.startswith('psycopg')))")
    done = subprocess.run([sys.executable, "-c", probe, str(repo)], capture_output=True, text=True,
                          env={k: v for k, v in _environ().items() if k != "WTC_STORE"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _stop_command(server) -> str:
    stop = f"{find_binary('pg_ctl')} -D {server.data} -w -m fast stop"
    return f"runuser -u {server.run_as} -- {stop}" if server.run_as else stop


def _environ() -> dict[str, str]:
    return dict(os.environ)
