"""Shared test helpers: real git repositories built in tmp_path, and the real `wtc` command line."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# pnpm and Yarn are pinned in tools/package-lock.json and installed by the README's test command
# (`npm ci --prefix tools`); on PATH they resolve the way a user's own install does.
TOOLS_BIN = Path(__file__).resolve().parent.parent / "tools" / "node_modules" / ".bin"
if TOOLS_BIN.is_dir() and str(TOOLS_BIN) not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([str(TOOLS_BIN), os.environ.get("PATH", "")])


def _compile_package_bytecode() -> None:
    """Compile worktree_coord's bytecode once, before any test starts a `wtc` process.

    The suite starts thousands of `wtc` processes (every CLI call, hook, merge driver, MCP server).
    An installed wtc has its bytecode (pip compiles it); an editable checkout run with
    PYTHONDONTWRITEBYTECODE=1, as on the development machine, would instead compile all ~190 modules
    from source in every one of those processes (+0.1 s of CPU each; scripts/bench_hooks.py drops the
    variable for the same reason). Python still reads existing bytecode under that variable, so one
    compile here gives every child what an installed wtc has. The files go where Python itself puts
    them without the variable (`__pycache__/`, ignored by git); stale ones are rebuilt by mtime."""
    import compileall

    import worktree_coord

    for package in {Path(worktree_coord.__file__).resolve().parent,
                    Path(importlib.util.find_spec("worktree_coord.grammars").origin).resolve().parent}:
        # quiet=2: a read-only install (its bytecode already there) is no error worth printing
        compileall.compile_dir(str(package), quiet=2, workers=1)


_compile_package_bytecode()


def _terminal_size_as_the_session_started() -> None:
    """pytest-xdist starts its workers with COLUMNS=80 and LINES=24 when the session had neither; every
    tool a test runs would inherit them. uv then wraps its error chains at 80 columns, and a test must
    not depend on whether it ran in a worker (found: an offline git-source miss classified as the
    manifest's fault, tests/consolidate/test_consolidate_uv.py; the classifier matches unwrapped
    words). The session's own values (or their absence) are handed to the workers and restored."""
    names = ("COLUMNS", "LINES")
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        os.environ["WTC_TEST_SESSION_TERMINAL"] = json.dumps({name: os.environ.get(name) for name in names})
        return
    started = json.loads(os.environ.get("WTC_TEST_SESSION_TERMINAL", "{}"))
    for name in names:
        if name in started and started[name] is None:
            os.environ.pop(name, None)
        elif started.get(name) is not None:
            os.environ[name] = started[name]


_terminal_size_as_the_session_started()

# The user's state folder as it resolved before the session chose its own (tests/test_suite_state.py).
USER_STATE_VARIABLE = "WTC_TEST_USER_STATE_DIR"


def _user_state_of_the_session() -> None:
    """The whole session keeps its user state (the machine's port registry, the kept profile facts)
    in a folder of its own, never in the developer's: every test gets its own folder on top of this
    (`_user_state_of_its_own`), but what runs outside a test's fixtures (a module's fixture, a
    server a test leaves running) or a tool a test starts with the WTC_ variables removed would
    otherwise lease ports in the user's ports.json, which every later `task start` on the machine
    walks past (found: 216 leases of scratch repositories under /tmp). Both WTC_STATE_DIR and
    XDG_STATE_HOME (the default's base) name the session's folder, so a child that drops the one
    still lands in it. The first process sets them and its pytest-xdist workers inherit them (as
    WTC_TEST_SESSION_TERMINAL); the folder goes when that process exits."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None and os.environ.get(USER_STATE_VARIABLE):
        return
    import atexit
    import shutil
    import tempfile

    from worktree_coord.config import user_state_dir

    os.environ[USER_STATE_VARIABLE] = str(user_state_dir())
    folder = Path(tempfile.mkdtemp(prefix="wtc-test-state-"))
    os.environ["XDG_STATE_HOME"] = str(folder)
    os.environ["WTC_STATE_DIR"] = str(folder / "worktree-coord")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)


_user_state_of_the_session()

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer", "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = dict(os.environ, **GIT_ENV)
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout.strip()


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def commit(root: Path, files: dict[str, str | bytes | None], message: str) -> str:
    """Write `files` (None: delete the file), commit everything, and return the new HEAD."""
    for rel, content in files.items():
        if content is None:
            (root / rel).unlink()
        else:
            write(root, {rel: content})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def make_repo(root: Path, files: dict[str, str | bytes] | None = None) -> Path:
    """A repository with one commit holding `files` (default: a small monorepo)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, files if files is not None else DEFAULT_FILES)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


DEFAULT_FILES: dict[str, str | bytes] = {
    "package.json": '{\n  "name": "root",\n  "workspaces": ["packages/*"]\n}\n',
    "README.md": "# demo\n",
    "packages/api/index.js": "export function api() {\n  return 1;\n}\n",
    "packages/api/package.json": '{\n  "name": "api",\n  "version": "1.0.0"\n}\n',
    "packages/web/index.js": "export function web() {\n  return 2;\n}\n",
    "packages/web/package.json": '{\n  "name": "web",\n  "version": "1.0.0"\n}\n',
    "packages/core/lib.py": "def core():\n    return 3\n",
    "docs/guide.md": "guide\n",
}


def wtc(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, dict]:
    """Run the real command line with --json; returns (exit code, the one JSON object it printed)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one JSON line, got {done.stdout!r} (stderr {done.stderr!r})"
    return done.returncode, json.loads(lines[0])


def finished_unmerged(repo: Path, run: str, task: str, own: str, edits: dict[str, str | None]) -> None:
    """Task `task` of run `run`, owning `own`, started, given `edits` (path -> new text; None deletes
    the file) and finished without merging (`--no-merge`): what a drain then takes."""
    code, body = wtc(repo, "task", "start", task, "--run", run, "--own", own)
    assert code == 0, body
    for path, text in edits.items():
        target = Path(body["worktree"]) / path
        if text is None:
            target.unlink()
        else:
            target.write_text(text)
    code, body = wtc(repo, "task", "finish", task, "--run", run, "--no-merge")
    assert code == 0 and body["state"] == "finished", json.dumps(body)[:3000]


def wtc_in_process(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, dict]:
    """`wtc(cwd, *args)` without a process: the same command line (`cli.main`, what the `wtc` script
    runs once its quick path declines) called in this one, from `cwd`, with --json; returns (exit code,
    the one JSON object it printed). For tests of what a command answers, which spawn `wtc` only to
    reach it: a process start costs 0.1-0.3 s of CPU a call. Tests of process behaviour (exit by a
    signal, start-up imports, kills, the quick path, the warm server) keep `wtc`. `timeout` is taken
    for `wtc`'s signature; in-process the test's own timeout (pytest-timeout) applies."""
    import contextlib
    import io

    from worktree_coord import cli

    if env and "WTC_CRASH_AT" in env:
        raise AssertionError("a crash point kills the process it fires in: use wtc(), not wtc_in_process()")
    out = io.StringIO()
    saved = {name: os.environ.get(name) for name in env or {}}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), contextlib.chdir(cwd):
            code = cli.main([*args, "--json"])
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one JSON line, got {out.getvalue()!r}"
    return code, json.loads(lines[0])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Heavy tests first (stable otherwise): they are the longest, and one started last would leave
    the other worker idle until it ends."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(autouse=True)
def _heavy_tests_run_alone(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Under pytest-xdist, a test marked `heavy` (it starts 8 to 64 wtc processes at once) runs with no
    other test of the session beside it, and the others run two at a time.

    Why: a heavy test saturates both cores by itself, so running anything beside it gains nothing,
    and the test beside it would get a sliver of the CPU: its timeouts and heartbeat deadlines were
    set for a machine that is merely busy, not 60 processes deep. A heavy test takes the lock
    exclusively, every other test takes it shared. The turnstile is held while waiting for the lock,
    so a waiting heavy test stops the other worker from taking the shared lock again between two of
    its tests (no starvation). Without xdist tests run one at a time anyway and nothing is locked.
    The wait counts as the waiting test's setup in `--durations`."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        yield
        return
    import fcntl

    folder = tmp_path_factory.getbasetemp().parent     # shared by the session's workers (popen-gwN live in it)
    heavy = request.node.get_closest_marker("heavy") is not None
    with open(folder / "heavy-tests.turnstile", "a") as turnstile, open(folder / "heavy-tests.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if heavy else fcntl.LOCK_SH)
        fcntl.flock(turnstile, fcntl.LOCK_UN)
        yield     # the lock is released when the file closes, after the test's own fixtures are torn down


@pytest.fixture(autouse=True)
def _user_state_of_its_own(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has its own user state folder (WTC_STATE_DIR, inherited by every `wtc` it starts):
    the machine-wide port registry of one test never meets another's, nor the developer's own."""
    monkeypatch.setenv("WTC_STATE_DIR", str(tmp_path_factory.mktemp("user-state")))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server for the session, started from the installed binaries (tests/pg_server.py).
    When it cannot start, every test that asked for it errors: nothing is skipped."""
    from tests.pg_server import running_server

    with running_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server) -> str:
    """The address (with its password) of a fresh, empty database on the session's server."""
    return pg_server.url(pg_server.create_database())
