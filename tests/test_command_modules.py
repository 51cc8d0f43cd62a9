"""The command line loads only what the invoked command needs: cli.COMMAND_MODULES names, per
top-level command or group, the modules that register it; this keeps the table equal to what the
modules really register, and shows a call loading only its own."""

from __future__ import annotations

import subprocess
import sys

from worktree_coord import cli


def _modules_of(typer_app) -> set[str]:
    found = {c.callback.__module__ for c in typer_app.registered_commands}
    for group in typer_app.registered_groups:
        found |= _modules_of(group.typer_instance)
    return found


def test_the_table_names_every_command_and_exactly_the_modules_that_register_it():
    cli._register_commands()          # everything, as `wtc --help` loads it
    actual = {c.name or c.callback.__name__: {c.callback.__module__} for c in cli.app.registered_commands}
    for group in cli.app.registered_groups:
        actual[group.name] = _modules_of(group.typer_instance)
    # A group with no command of its own (`hook` holds only the `claude` group) registers where it is made.
    actual = {name: mods or {"worktree_coord.cli.hooks"} for name, mods in actual.items()}
    table = {name: {f"worktree_coord.cli.{m}" for m in mods} for name, mods in cli.COMMAND_MODULES.items()}
    assert actual == table


def _loaded_cli_modules(*args: str) -> set[str]:
    probe = ("import sys; from worktree_coord.cli import main; main(sys.argv[1:]); "
             "sys.stderr.write('\\n'.join(m for m in sys.modules if m.startswith('worktree_coord.cli.')))")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True)
    return {line for line in done.stderr.splitlines() if line.startswith("worktree_coord.cli.")}


def test_a_call_loads_its_own_modules_and_help_loads_all():
    assert _loaded_cli_modules("merge-file", "--help") >= {"worktree_coord.cli.merge_file"}
    assert not _loaded_cli_modules("merge-file", "--help") & {"worktree_coord.cli.tasks", "worktree_coord.cli.merging",
                                                               "worktree_coord.cli.consolidating"}
    assert {"worktree_coord.cli.tasks", "worktree_coord.cli.forecast"} <= _loaded_cli_modules("task", "--help")
    everything = {f"worktree_coord.cli.{m}" for mods in cli.COMMAND_MODULES.values() for m in mods}
    assert everything <= _loaded_cli_modules("--help")
    assert everything <= _loaded_cli_modules("tsk")     # an unknown command: click suggests from the full list
