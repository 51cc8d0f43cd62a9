"""Every `wtc` command against the one exit-code table (worktree_coord.errors.EXIT_CODES): under
--json exactly one object with `schema` and `exit_code` at its top level, and the process exits with
that code. A command added without a row here fails `test_every_command_is_covered`.

Runs `cli.main(argv)` in-process (the same handler the `wtc` script runs) for speed; the subprocess
path is covered by tests/lead/test_lead_path_e2e.py and tests/test_cli_contract.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from worktree_coord.cli import build_command, main
from worktree_coord.errors import EXIT_CODES

DOCUMENTED = {row.code for row in EXIT_CODES}


def leaf_commands() -> set[str]:
    out = set()
    stack = [([], build_command())]
    while stack:
        path, command = stack.pop()
        children = getattr(command, "commands", None)
        if children:
            stack += [(path + [name], child) for name, child in children.items()]
        else:
            out.add(" ".join(path))
    return out


@pytest.fixture
def world(tmp_path: Path) -> dict[str, str]:
    repo = make_repo(tmp_path / "repo")
    (tmp_path / "plain").mkdir()
    for name, text in (("base.py", "x = 1\n"), ("left.py", "x = 2\n"), ("right.py", "x = 3\n"), ("same.py", "x = 1\n")):
        (tmp_path / name).write_text(text)
    (tmp_path / "plan.toml").write_text('[agent]\ncommand = ["true"]\n\n[[task]]\nname = "a"\nprompt = "p"\n')
    return {"repo": str(repo), "plain": str(tmp_path / "plain"), "tmp": str(tmp_path)}


def run(argv: list[str], capsys) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(argv + ["--json"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, (argv, out)
    body = json.loads(lines[0])
    assert body["schema"].startswith("wtc.") and body["exit_code"] == code, (argv, body)
    assert code in DOCUMENTED, (argv, code)
    if body["schema"] == "wtc.error/1":
        assert body["error"]["exit_code"] == code and body["error"]["message"]
    return code, body


# (command, argv with {repo}/{plain}/{tmp} placeholders, expected exit code)
CASES = [
    ("version", ["version"], 0),
    ("run start", ["run", "start", "--run", "r", "--repo", "{repo}"], 0),
    ("run start", ["run", "start", "--run", "bad name", "--repo", "{repo}"], 2),
    ("run start", ["run", "start", "--run", "r", "--repo", "{plain}"], 5),
    ("status", ["status", "--repo", "{repo}"], 0),
    ("status", ["status", "--run", "nope", "--repo", "{repo}"], 5),
    ("watch", ["watch", "--run", "r", "--repo", "{repo}"], 0),
    ("watch", ["watch", "--run", "nope", "--repo", "{repo}"], 5),
    ("plan add", ["plan", "add", "api-*", "--own", "packages/api/**", "--repo", "{repo}"], 0),
    ("plan add", ["plan", "add", "web-*", "--own", "../up", "--repo", "{repo}"], 2),
    ("plan list", ["plan", "list", "--repo", "{repo}"], 0),
    ("plan list", ["plan", "list", "--run", "nope", "--repo", "{repo}"], 5),
    ("plan remove", ["plan", "remove", "1", "--repo", "{repo}"], 0),
    ("plan remove", ["plan", "remove", "1", "--repo", "{repo}"], 5),
    ("hooks install", ["hooks", "install", "claude", "--dry-run", "--repo", "{repo}"], 0),
    ("hooks install", ["hooks", "install", "cursor", "--repo", "{repo}"], 2),
    ("hooks uninstall", ["hooks", "uninstall", "claude", "--repo", "{repo}"], 0),
    ("hooks uninstall", ["hooks", "uninstall", "claude", "--repo", "{plain}"], 5),
    ("hook claude worktree-create", ["hook", "claude", "worktree-create"], 2),     # no payload on stdin
    ("hook claude worktree-remove", ["hook", "claude", "worktree-remove"], 2),
    ("task start", ["task", "start", "t", "--run", "r", "--own", "packages/api/**", "--repo", "{repo}"], 0),
    ("task start", ["task", "start", "t2", "--run", "r", "--own", "../x", "--repo", "{repo}"], 2),
    ("task start", ["task", "start", "t", "--run", "nope", "--own", "x/**", "--repo", "{repo}"], 5),
    ("task check", ["task", "check", "t", "--run", "r", "--repo", "{repo}"], 0),
    ("task check", ["task", "check", "ghost", "--run", "r", "--repo", "{repo}"], 5),
    ("forecast", ["forecast", "--run", "r", "--repo", "{repo}"], 0),
    ("forecast", ["forecast", "--run", "nope", "--repo", "{repo}"], 5),
    ("task widen", ["task", "widen", "t", "--run", "r", "--read", "docs/**", "--why", "docs", "--repo", "{repo}"], 0),
    ("task widen", ["task", "widen", "t", "--run", "r", "--repo", "{repo}"], 2),          # nothing to widen
    ("task widen", ["task", "widen", "ghost", "--run", "r", "--own", "x/**", "--repo", "{repo}"], 5),
    ("task update", ["task", "update", "t", "--run", "r", "--repo", "{repo}"], 0),
    ("task update", ["task", "update", "ghost", "--run", "r", "--repo", "{repo}"], 5),
    ("task finish", ["task", "finish", "ghost", "--run", "r", "--repo", "{repo}"], 5),
    ("task finish", ["task", "finish", "t", "--run", "r", "--repo", "{repo}"], 0),
    ("task abandon", ["task", "abandon", "t", "--run", "r", "--repo", "{repo}"], 2),   # empty: not live
    ("task abandon", ["task", "abandon", "ghost", "--run", "r", "--repo", "{repo}"], 5),
    ("merge", ["merge", "--run", "r", "--repo", "{repo}"], 0),
    ("merge", ["merge", "--run", "r", "--batch", "2", "--repo", "{repo}"], 2),
    ("consolidate", ["consolidate", "--run", "r", "--repo", "{repo}"], 0),
    ("consolidate", ["consolidate", "--run", "nope", "--repo", "{repo}"], 5),
    ("intent add", ["intent", "add", "ghost", "--run", "r", "--manifest", "package.json", "--op", "add_dep",
                    "--name", "x", "--repo", "{repo}"], 5),
    ("intent add", ["intent", "add", "t", "--run", "r", "--manifest", "package.json", "--op", "nonsense",
                    "--name", "x", "--repo", "{repo}"], 2),
    ("intent list", ["intent", "list", "--run", "r", "--repo", "{repo}"], 0),
    ("intent list", ["intent", "list", "--run", "nope", "--repo", "{repo}"], 5),
    ("intent retry", ["intent", "retry", "ghost", "--run", "r", "--repo", "{repo}"], 5),
    ("intent drop", ["intent", "drop", "ghost", "--run", "r", "--repo", "{repo}"], 5),
    ("report", ["report", "--run", "r", "--onto", "main", "--repo", "{repo}"], 0),
    ("report", ["report", "--run", "r", "--onto", "nope", "--repo", "{repo}"], 5),
    ("report", ["report", "--run", "r", "--format", "pdf", "--repo", "{repo}"], 2),
    ("land", ["land", "--run", "r", "--onto", "main", "--repo", "{repo}"], 2),        # no approval
    ("land", ["land", "--run", "r", "--onto", "main", "--yes", "--repo", "{repo}"], 0),
    ("sync", ["sync", "--run", "r", "--from", "main", "--repo", "{repo}"], 0),
    ("sync", ["sync", "--run", "r", "--from", "nope", "--repo", "{repo}"], 5),
    ("check", ["check", "--repo", "{repo}", "--head", "main", "--target", "main", "--own", "**"], 0),
    ("check", ["check", "--repo", "{repo}", "--run", "r"], 2),
    ("check", ["check", "--repo", "{plain}"], 5),
    ("gc", ["gc", "--dry-run", "--repo", "{repo}"], 0),
    ("gc", ["gc", "--repo", "{plain}"], 5),
    ("merge-file", ["merge-file", "{tmp}/base.py", "{tmp}/same.py", "{tmp}/left.py"], 0),
    ("merge-file", ["merge-file", "{tmp}/base.py", "{tmp}/left.py", "{tmp}/right.py"], 1),
    ("merge-file", ["merge-file", "{tmp}/base.py", "{tmp}/missing.py", "{tmp}/right.py"], 2),
    ("driver", ["driver", "install", "--repo", "{repo}"], 0),
    ("driver", ["driver", "uninstall", "--repo", "{repo}"], 2),
    ("driver", ["driver", "install", "--repo", "{plain}"], 5),
    ("demo", ["demo", "--dir", "{repo}"], 2),                                         # not empty
    ("mcp", ["mcp", "--repo", "{plain}"], 5),
    ("serve", ["serve", "--status", "--repo", "{repo}"], 0),
    ("serve", ["serve", "--repo", "{plain}"], 5),                                     # fails before serving
    ("ui", ["ui", "--run", "nope", "--repo", "{repo}"], 5),                            # an unknown run, before listening
    ("mcp", ["mcp", "--http", "nonsense:port", "--repo", "{repo}"], 2),
    # A fanout that runs streams one object per event (docs/fanout.md); before it runs, one object.
    ("fanout", ["fanout", "{tmp}/missing.toml", "--run", "r", "--repo", "{repo}"], 2),
    ("fanout", ["fanout", "{tmp}/plan.toml", "--run", "r", "--repo", "{plain}"], 5),
    ("task exec", ["task", "exec", "t", "--run", "r", "--repo", "{repo}"], 2),               # no command
    ("task exec", ["task", "exec", "t", "--run", "nope", "--repo", "{repo}", "--json", "--", "true"], 5),
]


def test_every_command_is_covered():
    assert leaf_commands() == {command for command, _, _ in CASES}


def test_every_command_exits_with_a_documented_code_and_says_so_in_its_json(world, capsys):
    # One repository, the cases in order (a run, then a task in it, ...): each is a real call.
    for command, argv, expected in CASES:
        args = [a.format(**world) for a in argv]
        code, body = run(args, capsys)
        assert code == expected, (command, args, body)
    assert git(Path(world["repo"]), "rev-parse", "main") == git(Path(world["repo"]), "rev-parse", "wtc/r/integration")


def test_a_bug_exits_6_saying_it_is_one_and_never_2(world, capsys, monkeypatch):
    from worktree_coord.coordinator import status_view

    def broken(*args, **kwargs):
        raise KeyError("path")

    monkeypatch.setattr(status_view, "read_status", broken)   # what `wtc status` calls
    code, body = run(["status", "--repo", world["repo"]], capsys)
    assert code == 6 and body["error"]["kind"] == "internal"
    assert "a bug in wtc" in body["error"]["message"] and "KeyError" in body["error"]["message"]
    assert "report" in body["error"]["fix"]
    capsys.readouterr()
    assert main(["status", "--repo", world["repo"]]) == 6
    err = capsys.readouterr().err
    assert "internal error (a bug in wtc" in err and "Traceback" not in err


def test_ctrl_c_while_commands_load_is_one_clean_line_and_exit_130(world, capsys, monkeypatch):
    import worktree_coord.cli as cli

    def interrupted(name: str | None = None) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_register_commands", interrupted)
    code, body = run(["status"], capsys)
    assert code == 130 and body["error"]["kind"] == "interrupted"
    capsys.readouterr()
    assert main(["status"]) == 130
    captured = capsys.readouterr()
    assert captured.err.startswith("wtc: error: interrupted") and "Traceback" not in captured.err


def test_version_flag_help_order_and_metavars(capsys):
    from worktree_coord import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"wtc {__version__}\n"
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("Commands:\n", 1)[1].splitlines() if line.startswith("  ") and
              not line.startswith("    ")]
    assert listed == sorted(listed) and "sync" in listed
    sync_line = out.split("  sync", 1)[1].split("\n  task", 1)[0]
    assert "(e.g. main) into the integration" in " ".join(sync_line.split())
    assert main(["task", "start", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "Usage: wtc task start [OPTIONS] TASK" in help_text
    assert "<list[str]>" not in help_text and "{task}" not in help_text and "<str>" not in help_text


def test_ctrl_c_before_the_command_line_has_loaded_is_one_json_object_and_exit_130():
    import subprocess
    import sys

    # What entry.main installs first: the handler for a SIGINT that arrives while cli still imports.
    code = ("import os, signal, sys, time; import worktree_coord.entry as entry; "
            "signal.signal(signal.SIGINT, entry._interrupted_while_loading); os.kill(os.getpid(), signal.SIGINT); "
            "time.sleep(5); print('not reached')")
    done = subprocess.run([sys.executable, "-c", code, "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and "Traceback" not in done.stderr
    body = json.loads(done.stdout)
    assert body["exit_code"] == 130 and body["error"]["kind"] == "interrupted"
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert plain.returncode == 130 and plain.stderr.startswith("wtc: error: interrupted") and plain.stdout == ""
