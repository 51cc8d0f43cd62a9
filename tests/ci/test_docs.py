"""The generated reference pages match the code, and the docs' runnable example runs."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_and_configuration_pages_are_regenerated_identically():
    generator = load_generator()
    for path, wanted in generator.pages().items():
        assert path.read_text() == wanted, (
            f"{path.relative_to(ROOT)} is stale: run `python scripts/gen_cli_docs.py` and commit the result")


def test_cli_page_names_every_command_and_option():
    import typer

    from worktree_coord.cli import _register_commands, app

    _register_commands()
    text = (ROOT / "docs" / "cli.md").read_text()
    root = typer.main.get_command(app)
    stack = [(["wtc"], root)]
    while stack:
        path, command = stack.pop()
        for name, sub in (getattr(command, "commands", None) or {}).items():
            stack.append((path + [name], sub))
        if command is root:
            continue
        assert f"`{' '.join(path)}`" in text
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert f"`{opt}`" in text, f"{opt} of {' '.join(path)} missing from docs/cli.md"


def test_configuration_page_documents_every_key_with_its_validator():
    from worktree_coord.config import _KEYS

    generator = load_generator()
    section = generator.render_config_section()
    for key, (_, convert) in _KEYS.items():
        assert f"| `{key}` | {generator._expected(convert)} |" in section


def test_a_new_key_without_documentation_fails_generation(monkeypatch):
    from worktree_coord import config

    generator = load_generator()
    monkeypatch.setitem(config._KEYS, "brand-new-key", ("verify", config._str))
    try:
        generator.render_config_section()
    except SystemExit as stop:
        assert "brand-new-key" in str(stop)
    else:
        raise AssertionError("an undocumented key must fail generation")


def test_check_mode_of_the_generator_exits_zero_when_fresh():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_cli_docs.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_api_page_example_runs(tmp_path):
    text = (ROOT / "docs" / "api.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "['api/app.py']" in done.stdout and "{'merged': 1, 'rejected': 1}" in done.stdout


def test_driver_install_writes_exactly_the_documented_lines(tmp_path):
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "driver", "install", "--repo", str(repo)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    section = load_generator().render_driver_section()
    attributes = (repo / ".git" / "info" / "attributes").read_text().splitlines()
    documented = section.split("```\n")[-2].strip().splitlines()  # the attributes block
    assert attributes == documented
    # The documented line shows a placeholder where install writes the absolute path of the wtc
    # that ran it (here `python -m worktree_coord`, run as a module), so git needs no PATH.
    from worktree_coord.cli.merge_file import DRIVER_ARGUMENTS

    installed = git(repo, 'config', 'merge.wtc.driver')
    assert installed == f"{sys.executable} -m worktree_coord {DRIVER_ARGUMENTS}"
    assert f"driver = /absolute/path/to/wtc {DRIVER_ARGUMENTS}" in section
    assert f"git will run: {installed}" in done.stdout
    assert f"name = {git(repo, 'config', 'merge.wtc.name')}" in section


def test_readme_and_cli_page_show_the_one_exit_code_table():
    from worktree_coord.errors import EXIT_CODES, exit_code_table

    table = exit_code_table()
    for page in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
        assert table in page.read_text(), f"{page.name} does not show errors.exit_code_table(); regenerate or copy it"
    assert [row.code for row in EXIT_CODES] == [0, 1, 2, 3, 4, 5, 6, 130]
