"""The `wtc` command line: a thin face over the Python API.

Each command group lives in its own module and registers itself on the one typer app; commands only
parse arguments, call `worktree_coord` and render the result through `cli.output`. `main()` maps
every `WtcError` (and click's own usage errors) to the documented exit codes, and under `--json`
still prints exactly one JSON object.
"""

from __future__ import annotations

import os
import sys
import traceback

import typer

from ..errors import EXIT_USAGE, UsageError, WtcError
from . import output

app = typer.Typer(
    name="wtc",
    help="Coordinate parallel coding agents on one git repository.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """Coordinate parallel coding agents on one git repository (see `wtc COMMAND --help`)."""


def _register_commands() -> None:
    # Each module adds its commands to `app`; imported here so `app` is complete before use.
    from . import (check, consolidating, demo, hooks, info, maintenance, merge_file, merging, plan, runs,  # noqa: F401
                   tasks)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `wtc` and `worktree-coord` scripts; returns (and exits with) the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    json_mode = "--json" in args
    _register_commands()
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="wtc", standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except WtcError as error:
        output.emit_error(error, json_mode=json_mode)
        code = error.exit_code
    except typer.Exit as done:
        code = done.exit_code
    except typer.Abort:
        output.emit_error(UsageError("aborted"), json_mode=json_mode)
        code = EXIT_USAGE
    except typer.TyperException as error:  # typer's (vendored click's) usage errors
        if json_mode:
            output.emit_error(UsageError(error.format_message()), json_mode=True)
        elif hasattr(error, "show"):
            error.show()
        else:
            sys.stderr.write(f"wtc: error: {error.format_message()}\n")
        code = EXIT_USAGE
    except KeyboardInterrupt:
        output.emit_error(UsageError("interrupted"), json_mode=json_mode)
        code = 130
    except Exception as unexpected:  # a bug: still one JSON object, and the traceback on request
        if os.environ.get("WTC_DEBUG"):
            traceback.print_exc()
        output.emit_error(WtcError(f"internal error: {type(unexpected).__name__}: {unexpected}",
                                   fix="set WTC_DEBUG=1 to see the traceback, and report it"), json_mode=json_mode)
        code = EXIT_USAGE
    if argv is None:
        sys.exit(code)
    return code
