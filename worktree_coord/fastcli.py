"""The command line's quick path: the calls agents make most, parsed and run without typer.

Stage: entry.py, after the look for a warm server and before the command line loads. Input: argv.
Output: the call's exit code, or None, and the call goes on to typer (cli.main) as if this module
did not exist. typer and its vendored click cost about a third of a small call's start-up (issue 36),
and agents call `wtc status`, `wtc task start|finish|check`, `wtc merge`, `wtc report` and `wtc
version` hundreds of times a run (and a lead its `wtc gc` every few rounds).

Invariants:
- the same bytes on stdout and stderr and the same exit code as typer's path: the commands' bodies
  live here and the typer commands (cli/) call them, the errors go through `report_failure`, which
  cli.main uses too, and tests/serve/test_fast_path.py and test_fast_path_fuzz.py run both paths
  on the same command lines (generated ones too) and environments;
- anything not understood in full goes to typer: `--help` anywhere, an option not in the command's
  table, a value that looks like an option, a missing value or argument, `--`, a flag given a
  value, the current folder deleted, `WTC_TRACE_FILE`, `WTC_NO_FAST` or `_WTC_COMPLETE` set. Bad
  input is therefore always typer's message; this path never invents one;
- imports the standard library only until a command runs, then what that command needs (never
  typer).
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import contextmanager

# Not even errors.py at the top (it loads dataclasses, and those inspect and typing): `wtc --help` and
# `wtc version` print without it; a body or a failure imports what it raises or reports.
TYPE_CHECKING = False   # not typing's: nothing here needs typing at run time
if TYPE_CHECKING:  # the coordinator (pygit2, the store, the merge engine) loads when a command runs
    from typing import Any, Callable, Iterator

    from .coordinator import Coordinator
    from .errors import UsageError
    from .results import RunStatus

    _Spec = tuple[dict[str, tuple[str, Any]], tuple[str, ...], dict[str, Any], Callable[..., int]]

NO_FAST_ENV = "WTC_NO_FAST"     # set (not "" or "0"): every call goes through typer (the tests' reference)
# click's shell-completion switch for prog_name "wtc": set (not ""), click answers the completion
# request (or says the shell is not supported) instead of running the command, whatever the command line.
COMPLETE_ENV = "_WTC_COMPLETE"

# ---- what typer does around every command, shared with cli.main -----------------------------------

def cwd_gone_error(args: list[str] | None = None) -> UsageError:
    """What a command says when the current folder was deleted under it: with the checkout the
    deleted folder was in, when one holds it (a task's worktree its finish removed, under the
    checkout's `.wtc/worktrees`), named in the fix, so a retry from that shell has its command.
    A task command (`args`, the command line) run in a task's worktree took TASK and --run from it:
    the fix is then the whole command to run from the checkout, naming them (found driving wtc on
    Leaflet: an agent's finish killed after it removed the worktree, retried there, was told to cd
    to the checkout and run it again, where it lacked TASK and --run)."""
    from .errors import UsageError

    pwd = os.environ.get("PWD", "")
    checkout = _checkout_above(pwd)
    if checkout is not None:
        import shlex

        retry = _retry_in_checkout(args or [], checkout, pwd)
        if retry is not None:
            return UsageError("the current folder no longer exists; pass --repo",
                              fix=f"run it from the checkout (the deleted folder was that task's worktree; a "
                                  f"task's finish removes it): cd {shlex.quote(checkout)} && {retry}")
        return UsageError("the current folder no longer exists; pass --repo",
                          fix=f"cd {shlex.quote(checkout)} (the checkout the deleted folder was in; a task's "
                              f"finish removes its worktree) and run the command again, or pass --repo "
                              f"{shlex.quote(checkout)}")
    return UsageError("the current folder no longer exists; pass --repo",
                      fix="cd into the repository (or a live worktree), or pass --repo PATH (-C PATH) with an "
                          "absolute path")


def _retry_in_checkout(args: list[str], checkout: str, pwd: str) -> str | None:
    """`wtc task VERB TASK ... --run RUN` for a task command `args` run in the deleted worktree of
    task TASK of run RUN (`<checkout>/.wtc/worktrees/RUN/TASK`, the default place), TASK and --run
    added where the command line left them to the worktree; None for any other command or place."""
    import shlex

    from .task_worktree import DEFAULT_WORKTREE_ROOT

    root = DEFAULT_WORKTREE_ROOT.split("/")
    parts = os.path.relpath(os.path.normpath(pwd), checkout).split(os.sep)
    if len(parts) < len(root) + 2 or parts[:len(root)] != root or len(args) < 2 or args[0] != "task" \
            or args[1] not in ("finish", "check", "update", "abandon") or "--" in args:
        return None
    run, task = parts[len(root)], parts[len(root) + 1]
    rest = list(args[2:])
    if not rest or rest[0].startswith("-"):
        rest.insert(0, task)
    if "--run" not in rest and not any(arg.startswith("--run=") for arg in rest):
        rest[1:1] = ["--run", run]
    return shlex.join(["wtc", "task", args[1], *rest])


def _checkout_above(pwd: str) -> str | None:
    """The nearest folder above `pwd` (the shell's idea of the deleted current folder) that still
    exists and holds a `.git`; None when `pwd` is not absolute or nothing above it does."""
    if not os.path.isabs(pwd):
        return None
    path = os.path.normpath(pwd)
    while not os.path.isdir(path) or not os.path.exists(os.path.join(path, ".git")):
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return path


def cwd_gone() -> bool:
    """Whether the process's working directory was deleted (a task's worktree removed by its finish
    while a shell still sat in it): every relative path, `--repo .` included, then fails."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def report_failure(error: BaseException, *, json_mode: bool) -> int:
    """Print what a command's exception means and return the exit code: a WtcError exits with its own
    code, Ctrl-C with 130 and a one-line message, anything else is a bug in wtc: exit 6 (never 2,
    which would blame the caller's input), the traceback under WTC_DEBUG."""
    from .errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, InternalError, Interrupted, WtcError
    from .output import tagging

    if isinstance(error, WtcError):
        tagging.emit_error(error, json_mode=json_mode)
        return error.exit_code
    if isinstance(error, KeyboardInterrupt):
        tagging.emit_error(Interrupted("interrupted (Ctrl-C)",
                                       fix="run the same command again: every write is idempotent and resumes"),
                           json_mode=json_mode)
        return EXIT_INTERRUPTED
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        # Not a bug: the disk (or the quota) is full, maybe only for the output being printed.
        from .errors import EXIT_ACTION, ActionRequired

        where = f" writing {error.filename}" if error.filename else ""
        tagging.emit_error(ActionRequired(
            f"the disk is full{where}: {error.strerror}",
            fix="free disk space (`wtc gc` removes finished tasks' worktrees and branches), then run the same "
                "command again: every write is idempotent and resumes"), json_mode=json_mode)
        return EXIT_ACTION
    if cwd_gone():   # not a bug: the caller's folder was deleted under it (a removed worktree)
        tagging.emit_error(cwd_gone_error(sys.argv[1:]), json_mode=json_mode)
        return EXIT_USAGE
    if os.environ.get("WTC_DEBUG"):
        import traceback

        traceback.print_exception(error)
    tagging.emit_error(InternalError(
        f"internal error (a bug in wtc, not in your input): {type(error).__name__}: {error}",
        fix="rerun with WTC_DEBUG=1 to print the traceback, and report it with that traceback and the command"),
        json_mode=json_mode)
    return EXIT_INTERNAL


@contextmanager
def open_coordinator(repo: str, *, progress: str | None = None, json_mode: bool = False) -> Iterator[Coordinator]:
    """The Coordinator for `repo`; with `progress` (a label) long work draws a live display on a
    terminal (output/progress.py), and stays silent when not a terminal or under --json."""
    from .coordinator import Coordinator
    from .output.progress import reporter_for

    if progress is None:
        with Coordinator(repo) as coordinator:
            yield coordinator
        return
    with reporter_for(json_mode=json_mode, label=progress) as reporter, Coordinator(repo, reporter=reporter) as coordinator:
        yield coordinator


def check_names(run: str, task: str | None = None) -> None:
    """The names' checks every operation makes first (run, then task), made before the repository is
    opened: a malformed name is answered without loading pygit2, the store or the Coordinator."""
    from .model import validate_name

    validate_name("run", run)
    if task is not None:
        validate_name("task", task)


def task_and_run(command: str, task: str | None, run: str | None, repo: str) -> tuple[str, str]:
    """TASK and --run of `wtc task COMMAND` (or of `wtc COMMAND` when COMMAND has two words: "intent
    add"), names checked: as given, and what is not given taken from
    the task worktree `repo` is in (task_worktree.py: its `.wtc/env`). Given and not that worktree's,
    refused: an agent in task a's worktree finishing task b is a mistake, which the lead makes from
    the main checkout (or with --repo) on purpose."""
    from .errors import UsageError
    from .model import validate_name
    from .task_worktree import task_worktree_of

    for kind, name in (("run", run), ("task", task)):   # a malformed name given: that, before anything else
        if name is not None:
            validate_name(kind, name)
    here = task_worktree_of(repo)
    if here is not None:
        if (task is not None and task != here.task) or (run is not None and run != here.run):
            named = " ".join(part for part in (task and f"task {task!r}", run and f"run {run!r}") if part)
            raise UsageError(
                f"{named} named in the worktree of task {here.task!r} of run {here.run!r} ({here.root}): "
                f"a task's worktree runs its own task's commands",
                fix=f"for task {here.task!r}, leave TASK and --run out (they are taken from the worktree's "
                    f".wtc/env); for another task, run the command from the main checkout or give --repo PATH "
                    f"outside this worktree")
        return here.task, here.run
    if task is None or run is None:
        import shlex

        missing = [what for what, value in (("argument TASK", task), ("option --run", run)) if value is None]
        them = "them" if len(missing) > 1 else "it"
        words = command if " " in command else f"task {command}"
        raise UsageError(
            f"missing {' and '.join(missing)}: {os.path.abspath(repo)} is not inside a task's worktree, whose "
            f".wtc/env would name {them}",
            fix=f"give {them}: wtc {words} {shlex.quote(task) if task else 'TASK'} --run "
                f"{shlex.quote(run) if run else 'RUN'}, or run the command inside the task's worktree")
    return task, run


# ---- the commands' bodies (the typer commands in cli/ call these) ---------------------------------

def version(json_mode: bool) -> int:
    from . import __version__
    from .output.tagging import emit

    emit({"version": __version__}, schema="version", json_mode=json_mode, human=f"wtc {__version__}", exit_code=0)
    return 0


def status(run: str | None, forecast: bool, repo: str, json_mode: bool) -> int:
    from .errors import UsageError
    from .output import render
    from .output.progress import wants_progress
    from .output.tagging import emit

    if run is None:   # an agent in its task's worktree asks about its own run (task_worktree.py)
        from .task_worktree import task_worktree_of

        here = task_worktree_of(repo)
        run = here.run if here is not None else None
    if forecast:
        if not run:
            raise UsageError("--forecast needs a run", fix="name it: wtc status --run RUN --forecast")
        with open_coordinator(repo) as coordinator:
            coordinator.forecast(run)   # saves the column the status below shows
    result = _read_status(repo, run)
    if wants_progress(json_mode):  # a person at a terminal: a table; pipes and agents get plain text
        import shutil

        human = render.run_status_table(result, width=shutil.get_terminal_size().columns)
    else:
        human = render.run_status(result)
    emit(result.to_json(), schema="status", json_mode=json_mode, human=human)
    return result.exit_code


def _read_status(repo: str, run: str | None) -> RunStatus:
    # Read-only: a plain repository's store is opened directly (no pygit2, no merge engine, no
    # lease); anything unusual goes through the Coordinator, which asks libgit2.
    from .coordinator.status_view import open_for_status, read_status

    opened = open_for_status(repo)
    if opened is None:
        with open_coordinator(repo) as coordinator:
            return coordinator.status(run)
    store, where = opened
    try:
        return read_status(store, run, where=where)
    finally:
        if store is not None:
            store.close()


def task_start(task: str, run: str, own: list[str], read: list[str], sparse: bool, exclusive: bool,
               author: str | None, key: str | None, repo: str, json_mode: bool) -> int:
    from .output.tagging import emit

    check_names(run, task)
    with open_coordinator(repo) as coordinator:
        result = coordinator.start_task(run, task, own, read, sparse=sparse, exclusive=exclusive,
                                        author=author, key=key)

    def human() -> str:   # the text's renderer loads only when text is printed (not under --json)
        from .output import render

        return render.task_started(result)

    emit(result.to_json(), schema="task.start", json_mode=json_mode, human=human)
    return result.exit_code


def task_finish(task: str | None, run: str | None, message: str | None, merge: bool, verify: str | None,
                key: str | None, repo: str, json_mode: bool, merge_unchecked: bool = False) -> int:
    from .output import render
    from .output.tagging import emit

    _refuse_option_as_value(("task", "finish"), "--message", message)
    task, run = task_and_run("finish", task, run, repo)
    with open_coordinator(repo) as coordinator:
        result = coordinator.finish_task(run, task, message=message, merge=merge, verify=verify, key=key,
                                         merge_unchecked=merge_unchecked)
    emit(result.to_json(), schema="task.finish", json_mode=json_mode, human=render.task_finished(result))
    return result.exit_code


def _refuse_option_as_value(command: tuple[str, ...], option: str, value: str | None) -> None:
    """Refuse a value that is exactly one of the command's own options (before any work is done).

    `wtc task finish T -m --json` gives the message "--json": the message went missing and the next
    option was taken as it, so the finish would commit under that message and print text where the
    caller asked for JSON. Both the quick path and typer take such a value (click's rule), so the
    command body refuses it."""
    if value is None or value.strip() not in COMMANDS[command][0]:
        return
    from .errors import UsageError

    raise UsageError(f"the value of {option} is {value.strip()!r}, which is one of this command's options: "
                     f"was the value left out before it?",
                     fix=f"give {option} its value (e.g. {option} 'what changed'), or leave {option} out")


def task_check(task: str | None, run: str | None, repo: str, json_mode: bool) -> int:
    from .output import render
    from .output.tagging import emit

    task, run = task_and_run("check", task, run, repo)
    with open_coordinator(repo) as coordinator:
        result = coordinator.check_task(run, task)
    emit(result.to_json(), schema="task.check", json_mode=json_mode, human=lambda: render.task_check(result))
    return result.exit_code


def merge(run: str, verify: str | None, batch: int, key: str | None, repo: str, json_mode: bool) -> int:
    from .output import render
    from .output.tagging import emit

    check_names(run)
    with open_coordinator(repo, progress="merge", json_mode=json_mode) as coordinator:
        result = coordinator.merge(run, verify=verify, batch=batch, key=key)
    emit(result.to_json(), schema="merge", json_mode=json_mode, human=render.merge_report(result))
    return result.exit_code


def gc(dry_run: bool, repo: str, json_mode: bool) -> int:
    from .output import render
    from .output.tagging import emit

    with open_coordinator(repo, progress="gc", json_mode=json_mode) as coordinator:
        result = coordinator.gc(dry_run=dry_run)
    emit(result.to_json(), schema="gc", json_mode=json_mode, human=render.gc_report(result))
    return result.exit_code


def report(run: str, onto: str | None, format: str, repo: str, json_mode: bool) -> int:
    from .errors import UsageError
    from .output import render
    from .output.tagging import emit

    if format not in ("text", "json", "html"):
        raise UsageError(f"unknown report format {format!r}", fix="use --format text, json or html")
    if format == "html" and json_mode:
        raise UsageError("--json and --format html ask for two different outputs", fix="choose one")
    check_names(run)
    with open_coordinator(repo) as coordinator:
        result = coordinator.report(run, onto=onto)
    if format == "html":
        from .cli.html_report import render_html   # the page's renderer lives with the CLI (typer loads)

        sys.stdout.write(render_html(result))
        sys.stdout.flush()
        return result.exit_code
    emit(result.to_json(), schema="report", json_mode=json_mode or format == "json", human=render.run_report(result))
    return result.exit_code


def merge_file(base: str, left: str, right: str, path: str | None, output: str | None, git: bool, marker_size: int,
               label: list[str], timeout: float, conflict_style: str | None, semantic: str, json_mode: bool) -> int:
    from . import merge_file_command

    return merge_file_command.merge_file(base, left, right, path, output, git, marker_size, label, timeout,
                                         conflict_style, semantic, json_mode)


# ---- the command lines this path takes ----------------------------------------------------------

# Per command: its options (every spelling click accepts: `--run X`, `--run=X`, `-r X`, `-rX`) as
# (parameter, kind), kind "value" (the last one given wins, as in click), "list" (repeatable),
# "int>=1", or a flag's value (True/False); its positional arguments; the defaults typer gives; the body.
_REPO = {"--repo": ("repo", "value"), "-C": ("repo", "value")}
_JSON = {"--json": ("json_mode", True)}
_RUN = {"--run": ("run", "value"), "-r": ("run", "value")}
_KEY = {"--key": ("key", "value")}

COMMANDS: dict[tuple[str, ...], _Spec] = {
    ("version",): (_JSON, (), {"json_mode": False}, version),
    ("status",): ({**_RUN, "--forecast": ("forecast", True), **_REPO, **_JSON}, (),
                  {"run": None, "forecast": False, "repo": ".", "json_mode": False}, status),
    ("task", "start"): ({**_RUN, "--own": ("own", "list"), "--read": ("read", "list"), "--sparse": ("sparse", True),
                         "--exclusive": ("exclusive", True), "--author": ("author", "value"), **_KEY, **_REPO, **_JSON},
                        ("task",), {"own": [], "read": [], "sparse": False, "exclusive": False, "author": None,
                                    "key": None, "repo": ".", "json_mode": False}, task_start),
    ("task", "finish"): ({**_RUN, "--message": ("message", "value"), "-m": ("message", "value"),
                          "--merge": ("merge", True), "--no-merge": ("merge", False), "--verify": ("verify", "value"),
                          "--merge-unchecked": ("merge_unchecked", True), **_KEY, **_REPO, **_JSON}, ("task",),
                         {"task": None, "run": None, "message": None, "merge": True, "verify": None, "key": None,
                          "repo": ".", "json_mode": False, "merge_unchecked": False}, task_finish),
    ("task", "check"): ({**_RUN, **_REPO, **_JSON}, ("task",), {"task": None, "run": None, "repo": ".", "json_mode": False},
                        task_check),
    ("merge",): ({**_RUN, "--verify": ("verify", "value"), "--batch": ("batch", "int>=1"), **_KEY, **_REPO, **_JSON},
                 (), {"verify": None, "batch": 1, "key": None, "repo": ".", "json_mode": False}, merge),
    ("gc",): ({"--dry-run": ("dry_run", True), **_REPO, **_JSON}, (), {"dry_run": False, "repo": ".", "json_mode": False},
              gc),
    ("report",): ({**_RUN, "--onto": ("onto", "value"), "--format": ("format", "value"), **_REPO, **_JSON}, (),
                  {"onto": None, "format": "text", "repo": ".", "json_mode": False}, report),
    # git's merge driver line: merge-file %O %A %B --path %P --git --marker-size %L -L %X -L %S -L %Y
    ("merge-file",): ({"--path": ("path", "value"), "--output": ("output", "value"), "-o": ("output", "value"),
                       "--git": ("git", True), "--marker-size": ("marker_size", "int"), "--label": ("label", "list"),
                       "-L": ("label", "list"), "--timeout": ("timeout", "float"),
                       "--conflict-style": ("conflict_style", "value"), "--semantic": ("semantic", "value"), **_JSON},
                      ("base", "left", "right"),
                      {"path": None, "output": None, "git": False, "marker_size": 7, "label": [], "timeout": 10.0,
                       "conflict_style": None, "semantic": "block", "json_mode": False}, merge_file),
}
def parse(args: list[str]) -> tuple[Callable[..., int], dict[str, Any]] | None:
    """The body and its parameters for a command line this path takes in full, else None."""
    spec = COMMANDS.get(tuple(args[:2])) if len(args) >= 2 else None
    start = 2
    if spec is None:
        spec, start = COMMANDS.get(tuple(args[:1])), 1
    if spec is None:
        return None
    options, positionals, defaults, body = spec
    values: dict[str, Any] = {k: list(v) if isinstance(v, list) else v for k, v in defaults.items()}
    given: list[str] = []
    rest = args[start:]
    index = 0
    while index < len(rest):
        arg = rest[index]
        index += 1
        if arg.startswith("--"):
            name, equals, value = arg.partition("=")
            attached = bool(equals)
        elif arg.startswith("-") and len(arg) > 1:
            name, value = arg[:2], arg[2:]
            attached = bool(value)
        else:
            given.append(arg)
            continue
        if name not in options:
            return None                     # --help, --, an unknown option: typer says what it is
        dest, kind = options[name]
        if isinstance(kind, bool):
            if attached:
                return None                 # a flag given a value: typer's error
            values[dest] = kind
            continue
        if not attached:
            if index >= len(rest) or rest[index].startswith("-"):
                return None                 # no value, or one that looks like an option: typer decides
            value = rest[index]
            index += 1
        if kind == "list":
            values[dest].append(value)
        elif kind in ("int", "int>=1"):
            if not value.isascii() or not value.isdigit() or (kind == "int>=1" and int(value) < 1):
                return None                 # typer's own message for a bad number (or a spelling it reads its way)
            values[dest] = int(value)
        elif kind == "float":
            whole, _, fraction = value.partition(".")
            if not (whole + fraction).isascii() or not whole.isdigit() or not (fraction.isdigit() or not fraction):
                return None
            values[dest] = float(value)
        else:
            values[dest] = value
    if len(given) > len(positionals) or any(name not in values for name in positionals[len(given):]):
        return None                         # an argument too many, or a required one missing: typer's message
    values.update(zip(positionals, given))
    if any(dest not in values for dest, _ in options.values()):
        return None                         # a required option (no default) missing: typer's message
    return body, values


def prepare(args: list[str]) -> Callable[[], int] | None:
    """The call `wtc ARGS`, ready to run, when this path takes it in full; else None (typer's turn)."""
    if os.environ.get(NO_FAST_ENV, "") not in ("", "0") or os.environ.get("WTC_TRACE_FILE") \
            or os.environ.get(COMPLETE_ENV):
        return None
    if args == ["--help"]:
        return _top_help()
    parsed = parse(args)
    if parsed is None or cwd_gone():
        return None
    body, values = parsed
    return lambda: _call(body, values)


def _top_help() -> Callable[[], int] | None:
    """`wtc --help` from the text typer printed when it was generated (cli_help.py), where click would
    format it the same: a terminal (or COLUMNS) of 80 columns or more, as click caps the width at 80."""
    if _terminal_columns() < 80:
        return None

    def show() -> int:
        from .cli_help import TOP_HELP

        sys.stdout.write(TOP_HELP)
        sys.stdout.flush()
        return 0

    return show


def _terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, as click reads it (COLUMNS, else the terminal on stdout,
    else 80), without importing shutil (which loads the compression modules)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


def _call(body: Callable[..., int], values: dict[str, Any]) -> int:
    """Run a body as typer's main (typer/core.py) and cli.main run a command: Ctrl-C exits 130 with
    nothing printed, end of input at a prompt is an abort, a closed stdout (EPIPE) exits 1 quietly,
    and every other exception is reported by `report_failure`."""
    json_mode = bool(values.get("json_mode"))
    try:
        try:
            return body(**values)
        except EOFError:
            sys.stderr.write("\n")
            sys.stderr.flush()
            from .errors import EXIT_INTERRUPTED, Interrupted
            from .output import tagging

            tagging.emit_error(Interrupted("aborted at the prompt; nothing changed"), json_mode=json_mode)
            return EXIT_INTERRUPTED
        except KeyboardInterrupt:
            return 130       # errors.EXIT_INTERRUPTED, as typer's main returns it: nothing printed
        except OSError as error:
            if error.errno != errno.EPIPE:
                raise
            from typer._click.utils import PacifyFlushWrapper   # only now: the reader went away

            sys.stdout = PacifyFlushWrapper(sys.stdout)  # type: ignore[assignment]
            sys.stderr = PacifyFlushWrapper(sys.stderr)  # type: ignore[assignment]
            return 1
    except Exception as error:   # a WtcError included: report_failure tells them apart
        return report_failure(error, json_mode=json_mode)
