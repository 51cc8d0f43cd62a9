"""The `wtc` command line: a thin face over the Python API.

Each command group lives in its own module and registers itself on the one typer app; commands only
parse arguments, call `worktree_coord` and render the result through `output.tagging`. `main()` maps
every `WtcError` (and click's own usage errors) to the documented exit codes, and under `--json`
still prints exactly one JSON object.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from typing import Any

import typer

from ..errors import EXIT_INTERRUPTED, EXIT_USAGE, Interrupted, UsageError, WtcError
from ..fastcli import cwd_gone, cwd_gone_error, report_failure
from ..output import tagging

app = typer.Typer(
    name="wtc",
    help="Coordinate parallel coding agents on one git repository.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        sys.stdout.write(f"wtc {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="Print the version and exit (same as `wtc version`).")) -> None:
    """Coordinate parallel coding agents on one git repository (see `wtc COMMAND --help`)."""


# Which modules register each top-level command or group: a call imports only what its command
# needs (git runs `wtc merge-file` once per conflicted file; every module costs start-up time).
# tests/cli/test_command_modules.py keeps this table equal to what the modules register.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "check": ("check",), "consolidate": ("consolidating",), "intent": ("consolidating",), "demo": ("demo",),
    "forecast": ("forecast",), "version": ("info",), "status": ("maintenance",), "gc": ("maintenance",),
    "mcp": ("mcp",), "merge-file": ("merge_file",), "driver": ("merge_file",), "merge": ("merging",),
    "report": ("merging",), "land": ("merging",), "sync": ("merging",), "watch": ("watch",), "ui": ("ui",),
    "task": ("tasks", "forecast", "fanout"), "fanout": ("fanout",), "hook": ("hooks",), "hooks": ("hooks",), "plan": ("plan",), "run": ("runs",),
    "serve": ("serve",),
}


def _register_commands(name: str | None = None) -> None:
    """Import the modules that add commands to `app`: those of command `name`, or (None, an unknown
    name, `--help`) all of them, so the command list and click's suggestions are complete."""
    import importlib

    modules = COMMAND_MODULES.get(name or "") or tuple(dict.fromkeys(m for ms in COMMAND_MODULES.values() for m in ms))
    for module in modules:
        importlib.import_module(f"{__name__}.{module}")


_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs)\.$")


def first_sentence(text: str) -> str:
    """The first sentence of a help text, for the command list: click's own cut stops at the first
    ". ", which splits "(e.g. main)" in two; this one skips abbreviations and open parentheses."""
    paragraph = inspect.cleandoc(text).split("\n\n")[0].replace("\n", " ")
    depth = 0
    for index, char in enumerate(paragraph):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "." and depth == 0 and (index + 1 == len(paragraph) or paragraph[index + 1] == " ") \
                and not _ABBREVIATIONS.search(paragraph[:index + 1]):
            return paragraph[:index]
    return paragraph.rstrip(".")


def value_kind(param: Any) -> str | tuple[str, ...]:
    """What an option's value is: TEXT, INTEGER, NUMBER, BOOLEAN, PATH, or its choices (a tuple),
    read from the (vendored) click type typer built for it."""
    choices = getattr(param.type, "choices", None)
    if choices:
        return tuple(str(getattr(c, "value", c)) for c in choices)
    kinds = {"IntParamType": "INTEGER", "FloatParamType": "NUMBER", "BoolParamType": "BOOLEAN",
             "Path": "PATH", "TyperPath": "PATH"}          # ranges subclass the number types
    return next((kinds[k.__name__] for k in type(param.type).__mro__ if k.__name__ in kinds), "TEXT")


def _metavar(param: Any) -> str:
    """What a value looks like in `--help`: the argument's name (TASK), else its type (TEXT,
    INTEGER, PATH, or the choices), instead of typer's `<list[str]>` and `{task}`."""
    if param.param_type_name == "argument":
        return param.name.upper()
    kind = value_kind(param)
    return "[" + "|".join(kind) + "]" if isinstance(kind, tuple) else kind


def _polish(command: Any) -> None:
    """Commands listed in alphabetical order, a whole first sentence as each one's summary, plain
    metavars; applied to the click tree typer builds, so every command gets it without a flag."""
    for param in getattr(command, "params", []):
        if param.metavar is None and not getattr(param, "is_flag", False):
            param.metavar = _metavar(param)
        if param.param_type_name == "argument":
            # typer writes a required argument as `{task}` in the usage line and adds `<str>` in
            # the help; git and click users read `TASK` and `[TASK]`.
            shown = param.metavar if param.required else f"[{param.metavar}]"
            param.get_usage_pieces = lambda ctx, shown=shown: [shown]
            param.display_type_rich = lambda ctx=None: None
    if command.help and not command.short_help:
        command.short_help = first_sentence(command.help)
    children = getattr(command, "commands", None)
    if children:
        command.commands = dict(sorted(children.items()))
        for child in command.commands.values():
            _polish(child)


_BUILT: list[Any] = []   # the complete tree, kept by `keep_command_tree` (the warm server) for its calls


def keep_command_tree() -> Any:
    """Build the complete command tree once and answer every later `build_command` with it. typer
    rebuilds the tree from the functions' signatures on every call (about a fifth of a small
    `task finish`); `wtc serve` does it once, before it forks a process per call."""
    if not _BUILT:
        _BUILT.append(build_command(None))
    return _BUILT[0]


def build_command(name: str | None = None) -> Any:
    """The click command tree of `wtc`, polished: complete (what scripts/gen_cli_docs.py walks), or
    with `name` only that command's modules loaded (what a call to it needs)."""
    if _BUILT:
        return _BUILT[0]
    _register_commands(name)
    command = typer.main.get_command(app)
    _polish(command)
    return command


_CWD_GONE = cwd_gone_error()   # kept under its old names for callers
_cwd_gone = cwd_gone


def _repo_given(args: list[str]) -> bool:
    """Whether the command line names an absolute repository (`--repo /x`, `--repo=/x`, `-C /x`)."""
    mine = args[:args.index("--")] if "--" in args else args
    for i, arg in enumerate(mine):
        value = arg.split("=", 1)[1] if arg.startswith("--repo=") else \
            mine[i + 1] if arg in ("--repo", "-C") and i + 1 < len(mine) else None
        if value is not None and os.path.isabs(value):
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `wtc` and `worktree-coord` scripts; returns (and exits with) the exit code.

    Everything runs inside one handler: a WtcError exits with its own code, click's usage errors
    with 2, Ctrl-C (even while the commands are still loading) with 130 and a one-line message, and
    anything else is a bug in wtc: exit 6 (never 2, which would blame the caller's input)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # What follows `--` is another program's command line (`wtc task exec T -- CMD --json`), not ours.
    json_mode = "--json" in (args[:args.index("--")] if "--" in args else args)
    try:
        if args and args[0] not in ("version", "--version", "--help", "-h") and "--help" not in args \
                and _cwd_gone() and not _repo_given(args):
            raise cwd_gone_error(args)
        if os.environ.get("WTC_TRACE_FILE") and args and args[0] not in ("version", "--version", "--help", "-h") \
                and "--help" not in args:
            # Every command, the read-only ones that trace nothing too (docs/telemetry.md); only
            # when the variable is set, so a plain call's start-up pays nothing for it.
            from ..telemetry.configuration import check_trace_file

            check_trace_file(os.environ)
        command = build_command(args[0] if args and not args[0].startswith("-") else None)
        result = command.main(args=args, prog_name="wtc", standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except typer.Exit as done:
        code = done.exit_code
    except typer.Abort:  # click raises Abort for Ctrl-C or end of input at a prompt
        tagging.emit_error(Interrupted("aborted at the prompt; nothing changed"), json_mode=json_mode)
        code = EXIT_INTERRUPTED
    except typer.TyperException as error:  # typer's (vendored click's) usage errors
        if json_mode:
            tagging.emit_error(UsageError(error.format_message(), fix="see `wtc --help` or `wtc COMMAND --help`"),
                              json_mode=True)
        elif hasattr(error, "show"):
            error.show()
        else:
            sys.stderr.write(f"wtc: error: {error.format_message()}\n")
        code = EXIT_USAGE
    except (WtcError, KeyboardInterrupt, Exception) as error:  # noqa: B014  # the same words as fastcli's path
        code = report_failure(error, json_mode=json_mode)
    tagging.emit_lock_warnings()
    if argv is None:
        sys.exit(code)
    return code
