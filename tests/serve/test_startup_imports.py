"""What a `wtc` process imports before it answers (issue 36): start-up is paid by every agent call, so
the cheap answers import only what they print. Asserted on the modules a real process loaded
(`python -X importtime`), never on timings."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from worktree_coord.serve import protocol


def imported(cwd: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", *args], cwd=cwd,
                          env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", done.stderr)}


def test_version_builds_no_command_line(repo: Path) -> None:
    modules = imported(repo, "--version")
    assert not modules & {"typer", "click", "socket", "worktree_coord.cli", "worktree_coord.serve.client"}


def test_a_call_with_no_server_running_pays_no_socket_and_status_no_libgit2(repo: Path) -> None:
    assert not (repo / ".git" / "wtc" / protocol.SOCKET_NAME).exists()
    modules = imported(repo, "status")
    assert "worktree_coord.serve.client" in modules      # it looked for a server...
    assert "socket" not in modules                       # ...found no socket file, and connected to nothing
    assert not modules & {"pygit2", "tree_sitter", "rich", "worktree_coord.coordinator.tasks"}


# Libraries a command never uses, by command: each was once imported by one of them at start-up.
CONSOLIDATION_PARSERS = {"yaml", "tomlkit", "packaging"}         # consolidation's manifests (forecast_intents)
MERGE_ENGINE = {"worktree_coord.merge.result", "worktree_coord.merge.cascade", "tree_sitter", "libcst"}


def test_status_reads_no_toml_and_no_merge_engine_when_the_project_has_no_configuration(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    assert not (repo / ".wtc.toml").exists() and not (repo / "pyproject.toml").exists()
    modules = imported(repo, "status", "--run", "r1")
    assert not modules & ({"tomllib", "typer.rich_utils"} | MERGE_ENGINE | CONSOLIDATION_PARSERS)
    assert "worktree_coord.records" not in modules       # the typed views load when one is read


def test_task_start_imports_no_consolidation_parsers(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    modules = imported(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**", "--sparse")
    assert "worktree_coord.coordinator.tasks" in modules            # it did start the task...
    assert not modules & CONSOLIDATION_PARSERS                      # ...without consolidation's parsers
    assert not modules & {"libcst", "rich"}
    # nor libgit2: git's own processes answer a CLI start (a served one walks the pin in-process,
    # libgit2 being loaded there already: tests/core/test_git_processes_per_call.py)
    assert "pygit2" not in modules
    # nor its intent records: the boundary reads the lockfiles' names alone (consolidate/lockfile_names.py)
    assert not modules & {"worktree_coord.consolidate.intent", "worktree_coord.consolidate.names"}
    # nor the merge queue and its engine (integrate/, the semantic check's reach): a start merges nothing
    assert not modules & {"worktree_coord.coordinator.merge_queue", "worktree_coord.integrate",
                          "worktree_coord.merge.checks.reach", "worktree_coord.merge.checks.merge_index",
                          "worktree_coord.merge.result"}   # its four frozen dataclasses: ~3 ms for SemanticMode


# The command line's quick path (fastcli.py): the calls agents make most load no typer or click.
TYPER = {"typer", "click", "typer.main", "typer._click", "worktree_coord.cli"}


def test_the_common_calls_load_no_typer(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    calls = [("version",), ("version", "--json"), ("status",), ("status", "--run", "r1", "--json"),
             ("task", "start", "t1", "--run", "r1", "--own", "packages/api/**"), ("task", "check", "t1", "--run", "r1"),
             ("task", "finish", "t1", "--run", "r1", "--no-merge"), ("merge", "--run", "r1"),
             ("report", "--run", "r1"), ("report", "--run", "r1", "--format", "json")]
    for args in calls:
        modules = imported(repo, *args)
        assert "worktree_coord.fastcli" in modules, args
        assert not modules & TYPER, (args, modules & TYPER)
    assert "worktree_coord.cli" in imported(repo, "status", "--help")     # help is typer's


def test_the_look_for_a_server_loads_no_dataclasses_typing_or_json(repo: Path) -> None:
    """What every call pays before it knows whether a server runs (serve/client.py, gitrepo/locate.py)."""
    probe = "from worktree_coord.serve.client import served_call; assert served_call(['status']) is None"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe], cwd=repo, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", done.stderr)}
    assert "worktree_coord.gitrepo.locate" in modules
    assert not modules & {"dataclasses", "inspect", "typing", "json", "socket"}


def test_a_line_merge_of_a_python_file_loads_no_toml_parser(tmp_path: Path) -> None:
    """`wtc merge-file` runs once per conflicted file git asks about: tomlkit only for a TOML file, and
    the merge index's sqlite3 and pickle only when a check reads or writes an entry (a line merge does
    not, and its one-file semantic check loads no merge index at all)."""
    base = "def alpha(x):\n    return x + 1\n\n\ndef gamma(x):\n    return x - 3\n"
    (tmp_path / "base.py").write_text(base)
    (tmp_path / "left.py").write_text(base.replace("x + 1", "x + 10"))
    (tmp_path / "right.py").write_text(base.replace("x - 3", "x - 30"))
    modules = imported(tmp_path, "merge-file", "base.py", "left.py", "right.py", "--path", "m.py")
    assert "worktree_coord.merge.cascade" in modules          # the merge ran (its later stages load where they run)
    assert "worktree_coord.merge.checks.semantic" in modules  # and its semantic check
    assert not modules & ({"tomlkit", "libcst", "sqlite3", "pickle"} | TYPER)   # nor typer: the quick path runs it


def test_a_merge_with_at_most_one_task_waiting_reads_no_workspace_and_builds_no_graph(repo: Path) -> None:
    """The order of a drain needs the workspace's packages (consolidation's parsers) and a graph
    (networkx) only when two or more tasks wait: the lead's `wtc merge` after each finish pays neither."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    modules = imported(repo, "merge", "--run", "r1")
    assert "worktree_coord.coordinator.merging" in modules
    assert not modules & ({"networkx", "worktree_coord.consolidate.manifests"} | CONSOLIDATION_PARSERS)


def test_pathspec_loads_only_where_a_glob_is_read_or_matched(repo: Path) -> None:
    """boundary/globs.py is imported by every coordinator command; gitignore's matcher (pathspec, its
    backends and typing_extensions) loads when a glob that is not plain is validated or matched
    (`--own 'docs/**/notes.md'`); a plain glob's start (`packages/api/**`: string tests, see
    tests/core/test_glob_matching.py), a `merge` with nothing waiting and the finish of a task that
    changed nothing do not."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    started = imported(repo, "task", "start", "t0", "--run", "r1", "--own", "docs/**/notes.md")
    assert {"worktree_coord.boundary.globs", "pathspec"} <= started
    started = imported(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**")
    assert "worktree_coord.boundary.globs" in started and "pathspec" not in started
    for args in (("task", "check", "t1", "--run", "r1"), ("task", "finish", "t1", "--run", "r1", "--no-merge"),
                 ("merge", "--run", "r1")):
        modules = imported(repo, *args)
        assert "worktree_coord.boundary.globs" in modules, args
        assert "pathspec" not in modules, args


def test_the_writes_load_no_thread_pool_and_an_empty_finish_no_semantic_check(repo: Path) -> None:
    """concurrent.futures (and logging under it) loads where `task check` fans out over worktrees,
    not with forecast.py (which the writes no longer load at all: coordinator/facade.py); the finish of
    a task that changed nothing looks for no left-behind use, so the semantic check (tree-sitter, the
    profiles) stays unloaded."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    for args in (("task", "start", "t1", "--run", "r1", "--own", "packages/api/**"),
                 ("task", "finish", "t1", "--run", "r1", "--no-merge"), ("merge", "--run", "r1")):
        modules = imported(repo, *args)
        assert "worktree_coord.coordinator.forecast" not in modules, args
        assert not modules & {"concurrent.futures", "logging"}, args
        assert not modules & {"worktree_coord.check.left_behind", "worktree_coord.merge.checks.semantic",
                              "tree_sitter", "tomllib"}, args
    probe = "import sys, worktree_coord.coordinator.forecast; assert 'concurrent.futures' not in sys.modules"
    subprocess.run([sys.executable, "-c", probe], cwd=repo, check=True, env=dict(os.environ))


def test_help_and_version_load_neither_errors_nor_dataclasses(repo: Path) -> None:
    """The quick path's own imports are the standard library's lightest: `wtc --help` and `wtc version`
    print before errors.py (dataclasses, inspect, typing) or shutil would load."""
    for args in (("--help",), ("version",), ("version", "--json")):
        modules = imported(repo, *args)
        assert "worktree_coord.fastcli" in modules, args
        assert not modules & {"worktree_coord.errors", "dataclasses", "inspect", "typing", "shutil"}, args


def test_version_and_help_answer_here_even_when_a_server_runs(repo: Path) -> None:
    """They read no repository: printing them costs less than the round trip to a warm server."""
    server = subprocess.Popen([sys.executable, "-m", "worktree_coord", "serve"], cwd=repo, env=dict(os.environ),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert server.stderr is not None and "serving" in server.stderr.readline()
        for args in (("version",), ("--help",)):
            modules = imported(repo, *args)
            assert "worktree_coord.fastcli" in modules and not modules & {"socket", "json"}, args
        assert "socket" in imported(repo, "status")          # the rest still goes to the server
    finally:
        server.kill()
        server.wait(timeout=60)


def test_a_report_with_nothing_merged_loads_no_semantic_check_or_merge_engine(repo: Path) -> None:
    """`wtc report` looks for left-behind uses and declarations held twice only in what the run merged:
    with integration still at the pin, neither the semantic check (tree-sitter) nor the merge engine loads."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    modules = imported(repo, "report", "--run", "r1")
    assert "worktree_coord.coordinator.landing" in modules
    assert not modules & {"worktree_coord.check.left_behind", "worktree_coord.merge.checks.semantic",
                          "worktree_coord.merge.checks.duplicates", "tree_sitter", "worktree_coord.integrate",
                          "worktree_coord.coordinator.merge_queue"}


def test_a_check_of_a_task_with_no_changes_loads_no_semantic_check(repo: Path) -> None:
    """`wtc task check` of a task that changed nothing reads no definitions and prints no left-behind
    note: forecast.py's words, its left-behind look and render's notes load the semantic check only
    with changes (or findings) to read."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    for task in ("t1", "t2"):
        subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", task, "--run", "r1", "--own",
                        f"{task}/**"], cwd=repo, check=True, capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    modules = imported(repo, "task", "check", "t1", "--run", "r1")
    assert "worktree_coord.coordinator.forecast" in modules
    assert not modules & {"worktree_coord.check.left_behind", "worktree_coord.merge.checks.semantic",
                          "tree_sitter"}


def test_a_merge_file_that_diffs_nothing_loads_no_pygit2(tmp_path: Path) -> None:
    """The line merge calls libgit2's git_merge_file through ctypes, found beside the pygit2 package
    without importing it (~40 ms); pygit2 loads where a line diff is read (the semantic check of a
    source file, a conflict's provenance), so a data file's merge never pays it."""
    doc = '{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": {\n    "a": "^1.0.0"\n  }\n}\n'
    (tmp_path / "base.json").write_text(doc)
    (tmp_path / "left.json").write_text(doc.replace("1.0.0\"", "1.1.0\"", 1))
    (tmp_path / "right.json").write_text(doc.replace('"^1.0.0"', '"^1.0.0",\n    "b": "^2.0.0"'))
    modules = imported(tmp_path, "merge-file", "base.json", "left.json", "right.json", "--path", "c.json")
    assert "worktree_coord.merge.lines.line" in modules
    assert not modules & {"pygit2", "worktree_coord.gitrepo.repository"}
    probe = ("import sys\nfrom worktree_coord.merge.lines.line import binding_available, raw_line_merge\n"
             "assert binding_available() and 'pygit2' not in sys.modules\n"
             "merged, clean = raw_line_merge(b'a\\nb\\nc\\n', b'A\\nb\\nc\\n', b'a\\nb\\nC\\n', marker_size=7, "
             "labels=('ours', 'base', 'theirs'))\n"
             "assert (merged, clean) == (b'A\\nb\\nC\\n', True), merged\n"
             "import pygit2\nassert pygit2.Patch.create_from(b'a\\n', b'b\\n').hunks[0].old_lines == 1\n")
    subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, check=True, env=dict(os.environ))


def test_a_malformed_name_is_answered_before_the_repository_opens(repo: Path) -> None:
    """A bad call is cheap: the run and task names are checked before pygit2, the store or the
    Coordinator load, with the message the Coordinator gives (its first checks are the same)."""
    for args, message in ((("task", "start", "a/b", "--run", "r1", "--own", "x/**"), "invalid task name 'a/b'"),
                          (("task", "finish", "t1", "--run", "bad..name"), "invalid run name 'bad..name'"),
                          (("task", "check", "t1", "--run", ".r"), "invalid run name '.r'"),
                          (("merge", "--run", "a b"), "invalid run name 'a b'"),
                          (("report", "--run", "x.lock"), "invalid run name 'x.lock'")):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", *args], cwd=repo,
                              env=dict(os.environ), capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (args, done.stderr[-2000:])
        assert message in done.stderr, (args, done.stderr[-2000:])
        modules = {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", done.stderr)}
        assert not modules & {"pygit2", "worktree_coord.coordinator", "worktree_coord.store"}, args


def test_status_of_a_run_with_one_live_task_starts_no_thread_pool(repo: Path) -> None:
    """One live task's files are counted in the caller's thread: concurrent.futures (and logging) load
    only where several worktrees are read at once."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    modules = imported(repo, "status", "--run", "r1")
    assert "worktree_coord.gitrepo.worktree_files" in modules           # it did count the task's files
    assert not modules & {"concurrent.futures", "logging", "pygit2"}


def test_errors_loads_neither_dataclasses_nor_typing() -> None:
    """errors.py is imported by every command that can fail: its exit-code rows are named tuples."""
    probe = ("import sys, worktree_coord.errors\n"
             "assert not {'dataclasses', 'typing', 'inspect'} & set(sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", probe], check=True, env=dict(os.environ))


def test_a_task_check_of_changed_code_loads_the_left_behind_look_without_the_check_pipeline(repo: Path) -> None:
    """The left-behind look lives in check/ (below the coordinator, so `wtc check` uses it too);
    importing it loads the check package, whose names load with their modules on first use: the
    pipeline (the dry-run merge, the boundary file's reader) stays out of a `task check`."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", "t1", "--run", "r1", "--own",
                           "packages/api/**", "--json"], cwd=repo, check=True, capture_output=True, text=True,
                          env=dict(os.environ, WTC_NO_SERVE="1"))
    worktree = Path(json.loads(done.stdout)["worktree"])
    # A file a profile reads, changed (not only added): a name may have gone, so the look runs.
    (worktree / "packages" / "api" / "index.js").write_text("export function renamed() {\n  return 1;\n}\n")
    modules = imported(repo, "task", "check", "t1", "--run", "r1")
    assert "worktree_coord.check.left_behind" in modules
    assert not modules & {"worktree_coord.check.pipeline", "worktree_coord.check.dryrun"}, sorted(
        m for m in modules if m.startswith("worktree_coord.check"))


def test_a_merge_with_nothing_waiting_and_a_report_with_nothing_merged_load_no_libgit2(repo: Path) -> None:
    """The store answers both: no task waits, integration is at the pin. The repository opens from
    its files (gitrepo/locate.py), the integration tip is its loose ref's file, and pygit2 (~30 ms:
    its enums, ssl, tarfile) stays unloaded; the merge queue and the merge engine too."""
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=dict(os.environ, WTC_NO_SERVE="1"))
    for args in (("merge", "--run", "r1"), ("report", "--run", "r1"), ("report", "--run", "r1", "--format", "json")):
        modules = imported(repo, *args)
        assert "worktree_coord.coordinator.base" in modules, args
        assert not modules & {"pygit2", "worktree_coord.integrate", "worktree_coord.coordinator.merge_queue"}, args
        # nor what only a merge that runs reads: the boundary check and its lockfile names (boundary/
        # loads its names lazily; `merge` needs only globs.py), the engine's words (merge/result.py),
        # verification and the command isolation
        assert not modules & {"worktree_coord.boundary.check", "worktree_coord.consolidate.intent",
                              "worktree_coord.merge.result", "worktree_coord.coordinator.verification",
                              "worktree_coord.isolation"}, args


def test_the_calls_load_no_uuid_and_the_store_answered_ones_run_no_git(repo: Path) -> None:
    """uuid (which loads platform, ~3 ms) made the store owner's nonce and telemetry's instance id: the
    nonce is os.urandom's now and the id loads it only with telemetry on. subprocess and tempfile load
    where git or a verification runs, so the calls the store answers (a merge with nothing waiting, a
    report with nothing merged) load neither."""
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=dict(os.environ, WTC_NO_SERVE="1"))
    for args in (("merge", "--run", "r1"), ("report", "--run", "r1")):
        modules = imported(repo, *args)
        assert not modules & {"uuid", "platform", "subprocess", "tempfile", "socket"}, args
    for args in (("task", "start", "t2", "--run", "r1", "--own", "t2/**"),
                 ("task", "finish", "t2", "--run", "r1", "--no-merge")):
        modules = imported(repo, *args)
        assert "worktree_coord.store.liveness" in modules and not modules & {"uuid", "platform"}, args
    probe = ("import os, re\nfrom worktree_coord.store import liveness\nowner = liveness.current_owner()\n"
             "assert re.fullmatch('[0-9a-f]{12}', owner.nonce), owner\n"
             "assert liveness.host_identity().startswith(os.uname().nodename + '~')\n"
             "with liveness.separate_owner() as other:\n    assert other.nonce != owner.nonce\n")
    subprocess.run([sys.executable, "-c", probe], check=True, env=dict(os.environ))


def test_a_check_and_a_finish_load_no_merge_engine_and_the_lazy_packages_keep_their_names(repo: Path) -> None:
    """integrate/ and boundary/ load each name with its module on first use (PEP 562): `task check`
    writes the worktree's tree (by git processes while libgit2 is not loaded) and a finish names its mergeable commit
    (its tip, or integrate/mergeable.py's commit for reserved edits) without the engine, the fast path, the history walk or the merge
    account; every name the packages export is still there, the same object as in its module."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**"),
                 ("task", "start", "t2", "--run", "r1", "--own", "t2/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    worktree = repo / ".wtc" / "worktrees" / "r1" / "t1"
    (worktree / "t1").mkdir(parents=True, exist_ok=True)
    (worktree / "t1" / "a.txt").write_text("an edit\n")
    engine = {"worktree_coord.integrate.engine", "worktree_coord.integrate.account",
              "worktree_coord.integrate.fastpath", "worktree_coord.integrate.history"}
    checked = imported(repo, "task", "check", "t1", "--run", "r1")
    # the worktree's tree is written by git processes (gitrepo/process_trees.py), so not even integrate/trees.py
    assert "worktree_coord.gitrepo.process_trees" in checked and not checked & (engine | {"worktree_coord.integrate.trees"})
    finished = imported(repo, "task", "finish", "t1", "--run", "r1", "--no-merge")
    assert not finished & engine
    # with no reserved edit the tip is what merges: mergeable_commit (and libgit2's commit writer) is
    # not asked (a finish with reserved edits derives its commit there: tests/core)
    assert "worktree_coord.integrate.mergeable" not in finished
    assert "worktree_coord.coordinator.merge_queue" not in finished      # mergeable_commit alone
    empty = imported(repo, "task", "finish", "t2", "--run", "r1", "--no-merge")   # t2 changed nothing
    assert not empty & {"worktree_coord.merge.result", "worktree_coord.merge.lines.markers"}
    # That each lazy name is its module's object: tests/test_lazy_names.py (every lazy package).


def test_a_call_the_store_refuses_loads_no_libgit2(repo: Path) -> None:
    """pygit2 loads at the repository's first use, after the store's checks: a call naming a run or
    a task the store does not hold is answered (exit 5, the store's message) without libgit2."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    for args, message in ((("task", "check", "nosuch", "--run", "r1"), "no task 'nosuch' in run 'r1'"),
                          (("task", "finish", "nosuch", "--run", "r1", "--no-merge"), "no task 'nosuch' in run 'r1'"),
                          (("task", "start", "t1", "--run", "nosuch", "--own", "t1/**"), "no run 'nosuch'"),
                          (("merge", "--run", "nosuch"), "no run 'nosuch'"),
                          (("report", "--run", "nosuch"), "no run 'nosuch'")):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", *args], cwd=repo,
                              env=dict(os.environ, WTC_NO_SERVE="1"), capture_output=True, text=True, timeout=120)
        assert done.returncode == 5 and message in done.stderr, (args, done.stderr[-2000:])
        modules = {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", done.stderr)}
        assert "worktree_coord.store" in modules and "pygit2" not in modules, args


def test_a_task_start_loads_no_libgit2(repo: Path) -> None:
    """A start is `git worktree add` and `read-tree` plus three reads of the pin and the refs: whether
    the branch exists (loose and packed ref files, gitrepo/locate.py), the worktree's HEAD, and the
    pin's files under each --own glob's folder for its notes (one `git ls-tree`). None loads pygit2
    (its import is ~40-60 ms here, more than the start's work), sparse or not, packed refs or not."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=env)
    subprocess.run(["git", "pack-refs", "--all"], cwd=repo, check=True)
    for args in (("task", "start", "t1", "--run", "r1", "--own", "packages/api/**"),
                 ("task", "start", "t2", "--run", "r1", "--own", "packages/web/**", "--sparse"),
                 ("task", "start", "t3", "--run", "r1", "--own", "nowhere/**", "--own", "*.md")):
        modules = imported(repo, *args)
        assert "worktree_coord.coordinator.tasks" in modules, args
        assert "pygit2" not in modules, args
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", "t3", "--run", "r1", "--json"],
                          cwd=repo, check=True, capture_output=True, text=True, env=env)
    started = json.loads(done.stdout)
    assert started["existing"] and any("'nowhere/**' matches no file" in n for n in started["notes"])
    assert not any("'*.md' matches no file" in n for n in started["notes"])


def test_a_check_of_a_text_edit_loads_no_semantic_check(repo: Path) -> None:
    """Which profile reads a path comes from the profiles' heads alone (merge/languages/profile_index.py):
    a `task check` whose changes no profile reads (a text file) looks for no removed names and reads
    no definitions, so neither the semantic check, tree-sitter nor the profiles' rules load. A
    change of code still loads them (its words and the left-behind look read it)."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**"),
                 ("task", "start", "t2", "--run", "r1", "--own", "t2/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)

    def edit(task: str, name: str, text: str) -> None:
        folder = repo / ".wtc" / "worktrees" / "r1" / task / task
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)

    semantic = {"worktree_coord.merge.checks.semantic", "worktree_coord.merge.languages.profiles", "tree_sitter",
                "worktree_coord.check.left_behind"}
    edit("t1", "notes.txt", "an edit\n")
    text_only = imported(repo, "task", "check", "t1", "--run", "r1")
    assert "worktree_coord.merge.languages.profile_index" in text_only
    assert not text_only & semantic, sorted(text_only & semantic)
    # and no thread pool: its own state and one other task's are read one after the other
    assert not text_only & {"concurrent.futures", "logging"}
    edit("t2", "mod.py", "def f():\n    return 1\n")     # another task's code: its words are read too
    code = imported(repo, "task", "check", "t2", "--run", "r1")
    assert {"worktree_coord.merge.checks.semantic", "tree_sitter"} <= code


def _python_sides(folder: Path) -> None:
    """A .py file's three versions twice: sides editing different functions (base.py, left.py,
    right.py: a clean line merge) and sides each appending a function (left_add.py, right_add.py:
    the structured stage runs)."""
    base = "def alpha(x):\n    return x + 1\n\n\ndef gamma(x):\n    return x - 3\n"
    (folder / "base.py").write_text(base)
    (folder / "left.py").write_text(base.replace("x + 1", "x + 10"))
    (folder / "right.py").write_text(base.replace("x - 3", "x - 30"))
    (folder / "left_add.py").write_text(base + "\n\ndef left_new(x):\n    return alpha(x)\n")
    (folder / "right_add.py").write_text(base + "\n\ndef right_new(x):\n    return gamma(x)\n")


def test_a_clean_line_merge_loads_no_structured_merge_guards_or_entry_merge(tmp_path: Path) -> None:
    """`wtc merge-file` (once per conflicted file git asks about) whose line merge is clean runs the
    census of duplicate keys and the semantic check, nothing else of the cascade: the structured
    merge and its strict parsers, the precision guards and the appended files' entry merge load
    where their stage runs (merge/cascade.py). A JSON file's profile has no semantic check, so a
    merge of one loads none; a structured merge still loads its stage."""
    _python_sides(tmp_path)
    doc = {"name": "demo", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}
    (tmp_path / "base.json").write_text(json.dumps(doc, indent=2) + "\n")
    (tmp_path / "left.json").write_text(json.dumps(doc | {"version": "1.1.0"}, indent=2) + "\n")
    (tmp_path / "right.json").write_text(json.dumps(doc | {"dependencies": {"a": "^1.0.0", "b": "^2.0.0"}},
                                                    indent=2) + "\n")
    later_stages = {"worktree_coord.merge.syntax.structured", "worktree_coord.merge.precision.guards",
                    "worktree_coord.merge.appended", "worktree_coord.merge.languages.validate",
                    "worktree_coord.merge.languages.data_semantics", "worktree_coord.merge.syntax.names"}
    line = imported(tmp_path, "merge-file", "base.py", "left.py", "right.py", "--path", "m.py")
    assert "worktree_coord.merge.checks.semantic" in line
    assert not line & later_stages, sorted(line & later_stages)
    data = imported(tmp_path, "merge-file", "base.json", "left.json", "right.json", "--path", "c.json")
    assert "worktree_coord.merge.languages.profiles" in data
    assert not data & (later_stages | {"worktree_coord.merge.checks.semantic"}), sorted(data & later_stages)
    structured = imported(tmp_path, "merge-file", "base.py", "left_add.py", "right_add.py", "--path", "m.py")
    assert "worktree_coord.merge.syntax.structured" in structured


def test_a_finish_of_a_task_that_changed_nothing_loads_no_libgit2(repo: Path) -> None:
    """A finish is `git add -A` and `git commit` and then the branch's check: with no commit of its
    own since the pin and nothing merged into integration, the check's questions answer themselves
    (a commit descends from itself, is its own merge base, differs from itself in nothing, and with
    no reserved edit is its own mergeable commit), so libgit2 stays unloaded. A finish of a text
    edit loads libgit2 (the diff) but not the semantic check: no profile reads its file."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**"),
                 ("task", "start", "t2", "--run", "r1", "--own", "t2/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    empty = imported(repo, "task", "finish", "t1", "--run", "r1", "--no-merge", "--json")
    assert "worktree_coord.coordinator.tasks" in empty and "pygit2" not in empty
    folder = repo / ".wtc" / "worktrees" / "r1" / "t2" / "t2"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("an edit\n")
    text = imported(repo, "task", "finish", "t2", "--run", "r1", "--no-merge")
    assert "pygit2" in text
    assert not text & {"worktree_coord.check.left_behind", "worktree_coord.merge.checks.semantic", "tree_sitter"}
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "status", "--run", "r1", "--json"], cwd=repo,
                          check=True, capture_output=True, text=True, env=env)
    states = {t["task"]: t["state"] for t in json.loads(done.stdout)["tasks"]}
    assert states["t1"] == "empty" and states["t2"] == "finished"


def test_a_merge_file_whose_semantic_check_diffs_loads_no_pygit2(tmp_path: Path) -> None:
    """The semantic check of a clean .py merge diffs each side against the base (linediff.py): the
    diff runs through the line merge's ctypes binding of the bundled libgit2, so `wtc merge-file`
    never imports pygit2 (~40-60 ms: its enums, ssl, tarfile), line or structured."""
    _python_sides(tmp_path)
    for left, right in (("left.py", "right.py"), ("left_add.py", "right_add.py")):
        modules = imported(tmp_path, "merge-file", "base.py", left, right, "--path", "m.py")
        assert "worktree_coord.merge.checks.semantic" in modules and "worktree_coord.merge.lines.linediff" in modules
        assert "pygit2" not in modules, left


def test_the_common_calls_load_no_openssl_hash_and_the_reads_no_random(repo: Path) -> None:
    """The store's keys and the host's fingerprint are SHA-256 of a few bytes (digest.py: the
    interpreter's own sha256, not hashlib's OpenSSL, ~3-6 ms a call); a retry's jitter loads random
    on the first wait (filelock.jitter), so a call that waits for nothing loads neither."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    calls = [("status", "--run", "r1"), ("report", "--run", "r1"), ("merge", "--run", "r1"),
             ("task", "start", "t2", "--run", "r1", "--own", "t2/**"), ("task", "finish", "t2", "--run", "r1",
                                                                         "--no-merge")]
    for args in calls:
        modules = imported(repo, *args)
        assert not modules & {"hashlib", "_hashlib"}, args
    for args in calls:   # git's output goes to memory files (running.py), so a start and a finish load no tempfile
        modules = imported(repo, *args)
        assert "random" not in modules, args
        # nor the summary of a tool's output, which only a failed intent's line in a report reads
        assert "worktree_coord.consolidate.tool_output" not in modules, args
    assert "worktree_coord.store.idempotency" in imported(repo, "report", "--run", "r1")   # the keys' module ran


INSPECT = {"inspect", "ast", "dis", "tokenize"}    # dataclasses' inspect and what it imports (~4-5 ms quiet)


def test_the_common_calls_load_no_inspect(repo: Path) -> None:
    """dataclasses is loaded without inspect (lean_dataclasses.py: dataclasses asks it only for the
    docstring of a class without one, and every class on these paths has one), and a Coordinator
    operation reads the arguments its stage names without inspect.signature (coordinator/base.py
    `_passed`): so neither the reads nor the writes load inspect, ast, dis or tokenize."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    calls = [("status",), ("status", "--run", "r1"), ("report", "--run", "r1"), ("merge", "--run", "r1"),
             ("task", "start", "t2", "--run", "r1", "--own", "t2/**"),
             ("task", "finish", "t2", "--run", "r1", "--no-merge")]
    for args in calls:
        modules = imported(repo, *args)
        assert "dataclasses" in modules, args                 # the records are dataclasses...
        assert not modules & INSPECT, args                    # ...loaded without inspect
    # A finish imports worktree_setup.py (a base of tasks.py) but probes no port: no socket either.
    modules = imported(repo, "task", "finish", "t1", "--run", "r1", "--no-merge")
    assert "worktree_coord.coordinator.worktree_setup" in modules and "socket" not in modules


def test_a_line_merge_file_loads_no_inspect_merge_index_import_path_check_or_openssl(tmp_path: Path) -> None:
    """A `wtc merge-file` whose line merge is clean runs the one-file semantic check, which needs
    neither the merge index (with hashlib's OpenSSL) nor the tree merge's import-path check, and
    python_cst's `ast` only where a result holds an `__all__` or a duplicated from-import; the
    symbols' cache keys are the interpreter's own SHA-1 (digest.py). A .json merge likewise."""
    _python_sides(tmp_path)
    doc = '{\n  "name": "demo",\n  "version": "1.0.0",\n  "scripts": {\n    "test": "jest"\n  },\n  "private": true\n}\n'
    (tmp_path / "base.json").write_text(doc)
    (tmp_path / "left.json").write_text(doc.replace("1.0.0", "1.1.0"))
    (tmp_path / "right.json").write_text(doc.replace("true", "false"))
    modules = imported(tmp_path, "merge-file", "base.py", "left.py", "right.py", "--path", "m.py")
    assert {"worktree_coord.merge.checks.semantic", "worktree_coord.merge.checks.symbols"} <= modules   # it checked
    assert not modules & (INSPECT | {"hashlib", "_hashlib", "worktree_coord.merge.checks.merge_index",
                                     "worktree_coord.merge.checks.import_paths"})
    modules = imported(tmp_path, "merge-file", "base.json", "left.json", "right.json", "--path", "c.json")
    assert "worktree_coord.merge.cascade" in modules and "worktree_coord.merge.syntax.structured" not in modules  # clean
    assert not modules & (INSPECT | {"hashlib", "_hashlib"})


def test_status_and_a_check_of_a_run_with_live_tasks_load_no_logging(repo: Path) -> None:
    """Several worktrees are read on threads of map_in_threads (coordinator/in_threads.py), not a
    ThreadPoolExecutor: concurrent.futures imports logging (with traceback, tokenize, string). A
    status reads every live task's worktree, a check the other tasks' (two here)."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=env)
    for task in ("t1", "t2", "t3"):
        subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", task, "--run", "r1", "--own",
                        f"{task}/**"], cwd=repo, check=True, capture_output=True, env=env)
    for task in ("t1", "t2", "t3"):
        (repo / ".wtc" / "worktrees" / "r1" / task / task).mkdir(parents=True)
        (repo / ".wtc" / "worktrees" / "r1" / task / task / "a.txt").write_text(f"{task}\n")
    for args in (("status", "--run", "r1"), ("task", "check", "t1", "--run", "r1")):
        modules = imported(repo, *args)
        assert "worktree_coord.coordinator.in_threads" in modules, args    # two worktrees were read at once...
        assert not modules & {"concurrent.futures", "logging"}, args       # ...without a thread pool


def test_a_check_of_edited_tasks_loads_no_libgit2_and_no_openssl_hash(repo: Path) -> None:
    """`task check` builds each task's state with git processes while libgit2 is not loaded
    (gitrepo/process_trees.py: blobs, a temporary index, a tree diff, a single merge base), so a
    check of tasks with edits, committed or not, on a moved integration tip, imports no pygit2; and
    forecast.py loads hashlib only to key a file merge, which a check with no file both changed makes none of."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**"),
                 ("task", "start", "t2", "--run", "r1", "--own", "t2/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    for task in ("t1", "t2"):
        folder = repo / ".wtc" / "worktrees" / "r1" / task / task
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "notes.txt").write_text("an edit\n")
    t2 = repo / ".wtc" / "worktrees" / "r1" / "t2"
    subprocess.run(["git", "add", "-A"], cwd=t2, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "own"],
                   cwd=t2, check=True)
    (t2 / "t2" / "more.txt").write_text("uncommitted\n")
    one_edit = imported(repo, "task", "check", "t1", "--run", "r1")
    assert "worktree_coord.gitrepo.process_trees" in one_edit         # the process path answered...
    assert not one_edit & {"pygit2", "hashlib", "_hashlib"}, sorted(one_edit & {"pygit2", "hashlib", "_hashlib"})
    committed = imported(repo, "task", "check", "t2", "--run", "r1")  # ...and for a task with a commit
    assert not committed & {"pygit2", "hashlib", "_hashlib"}


def test_a_merge_file_of_python_loads_no_reexport_reader(tmp_path: Path) -> None:
    """The semantic check makes its re-exports' reader (reexports.py, with the crate paths of Rust,
    tsconfig's path maps and the workspaces' packages) on the first import it resolves or follows
    through a re-export: a one-file merge of a .py, clean line by line, structured, or with a
    finding about an imported name, loads none of it."""
    _python_sides(tmp_path)
    (tmp_path / "b2.py").write_text("from .util import helper\n\n\ndef alpha(x):\n    return x + 1\n")
    (tmp_path / "l2.py").write_text("def alpha(x):\n    return x + 1\n")
    (tmp_path / "r2.py").write_text((tmp_path / "b2.py").read_text() + "\n\ndef beta(y):\n    return helper(y)\n")
    reader = {"worktree_coord.merge.checks.reexports", "worktree_coord.merge.ecosystems.crate_paths",
              "worktree_coord.merge.ecosystems.path_maps", "worktree_coord.merge.ecosystems.workspace_packages"}
    for sides in (("base.py", "left.py", "right.py"), ("base.py", "left_add.py", "right_add.py")):
        modules = imported(tmp_path, "merge-file", *sides, "--path", "m.py")
        assert "worktree_coord.merge.checks.semantic" in modules
        assert not modules & reader, (sides, sorted(modules & reader))
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", "merge-file", "b2.py", "l2.py",
                           "r2.py", "--path", "pkg/m.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "uses helper" in done.stderr     # the finding, as before
    assert not {m.group(1) for m in re.finditer(r"\|\s*(\S+)\n", done.stderr)} & reader


def test_a_merge_file_runs_no_grammar_wheel_init_and_loads_no_importlib_resources_or_tempfile(tmp_path: Path) -> None:
    """A grammar wheel's `__init__.py` imports importlib.resources (tempfile, zipfile, random,
    shutil): its language comes from its `_binding` module and its tags query from its folder
    (merge/languages/grammar_wheels.py), the appended files' kinds from a file read, and the line
    merge's `git merge-file` fallback loads subprocess and tempfile only where it runs. So neither
    a line merge, a structured merge nor a JSON merge loads them, and the wheel's package never runs."""
    _python_sides(tmp_path)
    doc = {"name": "demo", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}
    (tmp_path / "base.json").write_text(json.dumps(doc, indent=2) + "\n")
    (tmp_path / "left.json").write_text(json.dumps(doc | {"version": "1.1.0"}, indent=2) + "\n")
    (tmp_path / "right.json").write_text(json.dumps(doc | {"dependencies": {"a": "^1.0.0", "b": "^2.0.0"}},
                                                    indent=2) + "\n")
    unwanted = {"importlib.resources", "tempfile", "zipfile", "random", "shutil", "subprocess",
                "tree_sitter_python", "tree_sitter_json"}
    for sides, path in ((("base.py", "left.py", "right.py"), "m.py"), (("base.py", "left_add.py", "right_add.py"), "m.py"),
                        (("base.json", "left.json", "right.json"), "c.json")):
        modules = imported(tmp_path, "merge-file", *sides, "--path", path)
        assert "tree_sitter" in modules, sides                      # a grammar was loaded...
        assert not modules & unwanted, (sides, sorted(modules & unwanted))   # ...without its wheel's package


def task_with_one_edit(repo: Path, env: dict[str, str], source: str | None = None) -> None:
    """Run r1 and its task t1 started through the CLI, with one edit in its worktree: a new file
    t1/notes.txt (owning t1/**), or, given `source`, a line appended to that file of the repository
    (owning it alone: the checks then read a source file)."""
    own = source or "t1/**"
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", own)):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    worktree = repo / ".wtc" / "worktrees" / "r1" / "t1"
    if source is not None:
        (worktree / source).write_text((worktree / source).read_text() + "# t1\n")
        return
    (worktree / "t1").mkdir(parents=True)
    (worktree / "t1" / "notes.txt").write_text("an edit\n")


def test_a_finish_that_merges_loads_libgit2_without_the_ssl_module(repo: Path) -> None:
    """pygit2 asks ssl.py only for Python's certificate locations, which gitrepo/lean_pygit2.py
    answers from the same C call: a `wtc` process that opens libgit2 (a finish with its merge) loads
    no ssl (with socket, base64 and its tables: ~8-10 ms of CPU a call)."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    task_with_one_edit(repo, env)
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert "pygit2" in modules and "pygit2.settings" in modules
    assert "ssl" not in modules, sorted(m for m in modules if "ssl" in m)
    # nor inspect, which dataclasses asked for pygit2's MergeFileResult's docstring (lean_dataclasses.py)
    assert not modules & INSPECT, sorted(modules & INSPECT)
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "status", "--run", "r1", "--json"], cwd=repo,
                          check=True, capture_output=True, text=True, env=env)
    assert {t["task"]: t["state"] for t in json.loads(done.stdout)["tasks"]}["t1"] == "merged"


def test_a_finish_whose_merge_checks_python_reads_the_tags_query_without_importlib_readers(repo: Path) -> None:
    """The semantic check's query text (its fingerprint keys the merge index) holds the grammar
    wheel's queries/tags.scm, read from the wheel's folder (symbols._tags_text), not through
    importlib.resources' `files()`, which loads its readers."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"),
                 ("task", "start", "t1", "--run", "r1", "--own", "packages/core/extra.py"),
                 ("task", "start", "t2", "--run", "r1", "--own", "packages/core/lib.py")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    core = repo / ".wtc" / "worktrees" / "r1"
    (core / "t1" / "packages" / "core" / "extra.py").write_text("from .lib import core\n\nVALUE = core()\n")
    (core / "t2" / "packages" / "core" / "lib.py").write_text("def core():\n    return 3  # t2\n")
    subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "t1", "--run", "r1"], cwd=repo,
                   check=True, capture_output=True, env=env)
    modules = imported(repo, "task", "finish", "t2", "--run", "r1")
    assert "worktree_coord.merge.checks.symbols" in modules and "tree_sitter" in modules
    assert not modules & {"importlib.readers", "importlib.resources.readers"}


def test_a_finish_that_merges_loads_no_openssl_for_the_certificate_locations(repo: Path) -> None:
    """pygit2 hands libgit2 the certificate locations at its import, and libgit2 parses the whole
    bundle then; a `wtc` process keeps that for its first connection through libgit2, which a run
    never makes (gitrepo/lean_pygit2.py): a finish that merges loads no `_ssl` to ask for them."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    task_with_one_edit(repo, env)
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert "pygit2" in modules and "worktree_coord.integrate.engine" in modules
    assert not modules & {"_ssl", "ssl"}, sorted(m for m in modules if "ssl" in m)


COMPILE_RECORDER = r"""
import builtins, runpy, sys
real = builtins.compile
calls = []
def compile(source, filename, mode, *args, **kwargs):
    caller = sys._getframe(1).f_code.co_filename
    if "importlib" not in caller:   # a module's bytecode rebuilt from its source is not the call's
        calls.append(repr(source)[:60])
    return real(source, filename, mode, *args, **kwargs)
builtins.compile = compile
import atexit
atexit.register(lambda: sys.stderr.write("COMPILED %r\n" % calls))
sys.argv = ["wtc", *sys.argv[1:]]
runpy.run_module("worktree_coord", run_name="__main__")
"""


def compiled(cwd: Path, *args: str) -> list[str]:
    """The texts a `wtc` process passed to `compile()` (bytecode of its own modules apart)."""
    done = subprocess.run([sys.executable, "-c", COMPILE_RECORDER, *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, WTC_NO_SERVE="1"), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = [line for line in done.stderr.splitlines() if line.startswith("COMPILED ")]
    return eval(line[len("COMPILED "):])   # noqa: S307  (our own repr of a list of strings)


def test_a_start_and_status_compile_no_text(repo: Path) -> None:
    """A process's first `compile()` builds the `ast` module's ~100 node classes (~9 million
    instructions); typing compiles a type given as text (a `TypeVar` bound, a quoted part of an alias
    made at import). A start and a status make none (results.py's TypeVar, member_globs's alias)."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=env)
    assert compiled(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/core/**", "--sparse") == []
    assert compiled(repo, "status", "--run", "r1") == []
    assert compiled(repo, "status", "--run", "r1", "--json") == []


def test_a_finish_that_merges_loads_pygit2_without_tarfile_and_string(repo: Path) -> None:
    """pygit2.repository imports tarfile (for `write_archive`) and string (for `hexdigits`); a `wtc`
    process runs it with stand-ins for both (gitrepo/lean_repository.py: ~13 million instructions a
    call that opens libgit2), and its enum tables by `enum._simple_enum` (gitrepo/lean_enums.py)."""
    _second_finish_of_a_source_edit(repo)   # (the first keeps the Python profile parsed: tomllib loads no more)
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert {"pygit2", "pygit2.repository", "pygit2.enums", "worktree_coord.gitrepo.lean_enums",
            "worktree_coord.gitrepo.lean_repository", "worktree_coord.integrate.engine"} <= modules
    assert not modules & {"tarfile", "string", "tomllib"}, sorted(modules & {"tarfile", "string", "tomllib"})


def test_a_finish_whose_tree_merge_is_clean_loads_no_file_merge_cascade(repo: Path) -> None:
    """A finish's merge resolves files through the cascade (line merge with its ctypes binding, the
    CST and structured stages) only when git's tree merge left a conflicted file: a clean merge,
    most of a swarm's finishes, loads none of it (merge/tree.py imports it where it resolves)."""
    task_with_one_edit(repo, dict(os.environ, WTC_NO_SERVE="1"), source="packages/core/lib.py")
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert "worktree_coord.merge.tree" in modules and "worktree_coord.merge.checks.semantic" in modules
    assert not modules & {"worktree_coord.merge.cascade", "worktree_coord.merge.lines.line", "ctypes"}, \
        sorted(modules & {"worktree_coord.merge.cascade", "worktree_coord.merge.lines.line", "ctypes"})


def test_a_finish_that_reads_a_python_file_loads_no_toml_parser_once_its_profile_is_kept(repo: Path) -> None:
    """The Python profile's TOML is parsed by the first process that validates it and kept, parsed,
    in the user's state folder (profile_index.shipped_toml, `profile-toml-v1`); a later finish whose checks read a
    changed Python file loads no tomllib (nor does its merge's dependency reader, which reads a
    manifest only when an import names one)."""
    _second_finish_of_a_source_edit(repo)
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert "worktree_coord.merge.languages.profiles" in modules and "worktree_coord.merge.tree" in modules
    assert "tomllib" not in modules


def test_a_finish_that_merges_loads_no_openssl_hash(repo: Path) -> None:
    """A finish's merge keys its few files in the merge index by their blob ids, hashed with the
    interpreter's SHA-1 (digest.sha1_of), and writes no pack (held_objects.py hashes one with
    hashlib, in a drain): it loads no `_hashlib` (OpenSSL's libcrypto, ~3-6 ms of CPU)."""
    task_with_one_edit(repo, dict(os.environ, WTC_NO_SERVE="1"), source="packages/core/lib.py")
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert "worktree_coord.merge.checks.merge_index" in modules and "worktree_coord.gitrepo.held_objects" in modules
    assert not modules & {"hashlib", "_hashlib"}, sorted(modules & {"hashlib", "_hashlib"})


def test_gc_loads_no_typer(repo: Path) -> None:
    """A lead's `wtc gc`, every few rounds of a swarm, takes the quick path (fastcli.py): no typer."""
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    for args in (("gc",), ("gc", "--dry-run", "--json")):
        modules = imported(repo, *args)
        assert "worktree_coord.fastcli" in modules and "worktree_coord.coordinator.cleanup" in modules, args
        assert not modules & TYPER, (args, sorted(modules & TYPER))

# What a start (and every call that runs git) no longer loads: socket.py's enum classes, and
# tempfile with random, shutil and shutil's compression modules.
START_LEFT = {"socket", "tempfile", "random", "shutil", "bz2", "lzma"}


def test_a_task_start_loads_no_socket_tempfile_or_shutil_and_under_json_no_text_renderer(repo: Path) -> None:
    """The port probe binds through `_socket` (socket.py's enums cost a start ~4 ms); git's output
    goes to memory files (gitrepo/running.py: memfd_create), not tempfile's; shutil loads where a
    file is copied into the worktree. A start under --json prints no text, so output/render.py
    loads only for a start that prints text."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=env)
    text = imported(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**")
    assert "worktree_coord.coordinator.worktree_setup" in text and "_socket" in text   # it probed a port...
    assert not text & START_LEFT                                                        # ...without socket.py
    assert "worktree_coord.output.render" in text
    machine = imported(repo, "task", "start", "t2", "--run", "r1", "--own", "packages/web/**", "--json")
    assert not machine & (START_LEFT | {"worktree_coord.output.render"})


def test_a_merge_file_after_the_first_loads_no_toml_parser(tmp_path: Path) -> None:
    """What the shipped profiles and the appended files' kinds parse to is kept as JSON
    (kept_on_disk.kept_json), and the strict TOML check loads tomllib only for a TOML file: only the
    first `merge-file` of a machine (of a version) parses TOML."""
    base = "import os\n\n\ndef alpha(x):\n    return x + 1\n\n\ndef gamma(x):\n    return x - 3\n"
    files = {"base.py": base, "left.py": base.replace("x + 1", "x + 10"), "right.py": base.replace("x - 3", "x - 30"),
             "left_add.py": base + "\n\ndef left_new(x):\n    return alpha(x)\n",
             "right_add.py": base + "\n\ndef right_new(x):\n    return gamma(x)\n",
             "base.json": '{\n  "a": 1,\n  "b": 2\n}\n', "left.json": '{\n  "a": 10,\n  "b": 2\n}\n',
             "right.json": '{\n  "a": 1,\n  "b": 20\n}\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    calls = [("merge-file", "base.py", "left.py", "right.py", "--path", "m.py", "-o", "out1"),
             ("merge-file", "base.py", "left_add.py", "right_add.py", "--path", "m.py", "-o", "out2"),
             ("merge-file", "base.json", "left.json", "right.json", "--path", "c.json", "-o", "out3")]
    for args in calls:
        imported(tmp_path, *args)          # the first of each may parse (and keep) its TOML
    for args in calls:
        modules = imported(tmp_path, *args)
        assert "worktree_coord.merge.cascade" in modules, args
        assert "tomllib" not in modules, args
    assert "def left_new" in (tmp_path / "out2").read_text() and "def right_new" in (tmp_path / "out2").read_text()


def test_a_finish_of_a_source_edit_loads_no_reexport_reader(repo: Path) -> None:
    """A finish that does not merge reads its left-behind advice only where it has some to give: the
    own-imports look (check/own_imports.py) imports the re-exports' reader (reexports.py, with the
    ecosystems' crate paths, path maps and workspaces) where it reads a file, not when the finish
    loads it (found measuring a `task finish --no-merge`: 93-99 ms before, 127-140 after)."""
    task_with_one_edit(repo, dict(os.environ, WTC_NO_SERVE="1"), source="packages/core/lib.py")
    modules = imported(repo, "task", "finish", "t1", "--run", "r1", "--no-merge")
    reader = {"worktree_coord.merge.checks.reexports", "worktree_coord.merge.ecosystems.crate_paths",
              "worktree_coord.merge.ecosystems.path_maps", "worktree_coord.merge.ecosystems.workspace_packages"}
    assert not modules & reader, sorted(modules & reader)


def _second_finish_of_a_source_edit(repo: Path) -> None:
    """Run r1 with tasks t1 (a line appended to packages/core/lib.py) and t2 (a new file of that
    package), both started through the CLI, and t2 finished: t1's finish is then a process's second
    finish of a Python edit, with the profile kept parsed by the first."""
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"),
                 ("task", "start", "t1", "--run", "r1", "--own", "packages/core/lib.py"),
                 ("task", "start", "t2", "--run", "r1", "--own", "packages/core/extra.py")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    core = repo / ".wtc" / "worktrees" / "r1"
    lib = core / "t1" / "packages" / "core" / "lib.py"
    lib.write_text(lib.read_text() + "# t1\n")
    (core / "t2" / "packages" / "core" / "extra.py").write_text("VALUE = 2\n")
    subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "t2", "--run", "r1"], cwd=repo,
                   check=True, capture_output=True, env=env)


def test_a_finish_of_a_code_edit_loads_no_consolidation_intent_records(repo: Path) -> None:
    """A finish asks whether the task edited a manifest (its intents, its notes on an unreadable one)
    by the file's name alone (consolidate/lockfile_names.py): a task that edited code loads neither
    consolidate/names.py nor intent.py's records and enums (~1 ms of every finish); a finish of a
    manifest edit still reads them, where they derive its intents."""
    task_with_one_edit(repo, dict(os.environ, WTC_NO_SERVE="1"), source="packages/core/lib.py")
    modules = imported(repo, "task", "finish", "t1", "--run", "r1")
    assert "worktree_coord.merge.tree" in modules   # it merged
    assert not modules & {"worktree_coord.consolidate.names", "worktree_coord.consolidate.intent"}, \
        sorted(modules & {"worktree_coord.consolidate.names", "worktree_coord.consolidate.intent"})
