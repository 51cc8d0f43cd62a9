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
    from worktree_coord.config import _KEYS, RECORDED_AT_RUN_START, RUN_RULES

    generator = load_generator()
    section = generator.render_config_section()
    for key, (_, convert) in _KEYS.items():
        [row] = [line for line in section.splitlines() if line.startswith(f"| `{key}` |")]
        assert f"| {generator._expected(convert)} |" in row
        # Where each key is read from (a run's rule or this machine's setting) is said on its row.
        where = ("the run's pin" if key in RUN_RULES else
                 "the checkout, at run start" if key in RECORDED_AT_RUN_START else "the checkout")
        assert row.startswith(f"| `{key}` | {where} |"), row
    assert set(RUN_RULES) | set(RECORDED_AT_RUN_START) <= set(_KEYS)


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
    assert "(ViolationRecord(path='api/app.py', rule='outside_own', detail=" in done.stdout
    assert "\ntask web rejected\n" in done.stdout


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


# ---- docs/api.md against the code ------------------------------------------------------------------

SIGNATURE = re.compile(r"^(?P<method>\.)?(?P<name>\w+)\((?P<params>.*)\)(?:\s*->\s*(?P<returns>\w+))?$")


def _api_section(title: str) -> str:
    text = (ROOT / "docs" / "api.md").read_text()
    start = text.index(f"### {title}\n")
    end = text.find("\n### ", start + 1)
    return text[start:end if end != -1 else len(text)]


def _table_rows(section: str) -> list[list[str]]:
    """Every table row of the section, cells split (header and rule rows included)."""
    return [[cell.strip() for cell in line.strip().strip("|").split(" | ")]
            for line in section.splitlines() if line.startswith("| ")]


def _spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _documented_parameters(params: str) -> list[tuple[str, str, object]]:
    """(name, kind, default) of a documented parameter list; default `inspect.Parameter.empty` when none."""
    import ast
    import inspect

    tree = ast.parse(f"def documented({params}): pass").body[0].args
    out: list[tuple[str, str, object]] = []
    positional = tree.posonlyargs + tree.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(tree.defaults)) + [
        ast.literal_eval(d) for d in tree.defaults]
    for arg, default in zip(positional, defaults):
        out.append((arg.arg, "POSITIONAL_OR_KEYWORD", default))
    for arg, default in zip(tree.kwonlyargs, tree.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", inspect.Parameter.empty if default is None else ast.literal_eval(default)))
    return out


def _real_parameters(function) -> list[tuple[str, str, object]]:
    import inspect

    return [(p.name, p.kind.name, p.default) for p in inspect.signature(function).parameters.values()
            if p.name != "self"]


def _check_signature(module, span: str, problems: list[str]) -> None:
    match = SIGNATURE.match(span)
    assert match, span
    owner = getattr(module, "Coordinator") if match["method"] else module
    target = getattr(owner, match["name"], None)
    if target is None:
        problems.append(f"{span}: {owner.__name__} has no {match['name']}")
        return
    function = target.__init__ if isinstance(target, type) else target
    documented, real = _documented_parameters(match["params"]), _real_parameters(function)
    if documented != real:
        problems.append(f"{span}\n    documented {documented}\n    real       {real}")
    if match["returns"]:
        import builtins
        import inspect

        annotation = inspect.signature(function).return_annotation
        if getattr(annotation, "__name__", annotation) != match["returns"]:
            problems.append(f"{span}: returns {annotation}, documented {match['returns']}")
        if not hasattr(builtins, match["returns"]) and not hasattr(module, match["returns"]):
            problems.append(f"{span}: its result {match['returns']} does not import from {module.__name__}")


def test_every_name_api_md_documents_under_worktree_coord_imports_with_its_documented_signature():
    import dataclasses
    import inspect

    import worktree_coord

    problems: list[str] = []
    rows = _table_rows(_api_section("`worktree_coord`"))
    header = None
    checked = 0
    for row in rows:
        if row[0] in ("name", "exception", "record") or set(row[0]) <= set("-"):
            header = row[0] if row[0] != "---" and not set(row[0]) <= set("-") else header
            continue
        for span in _spans(row[0]):
            checked += 1
            if "(" in span:
                _check_signature(worktree_coord, span, problems)
                continue
            if span not in worktree_coord.__all__ or not hasattr(worktree_coord, span):
                problems.append(f"{span} does not import from worktree_coord")
                continue
            value = getattr(worktree_coord, span)
            if header == "exception" and value.exit_code != int(row[1]):
                problems.append(f"{span} exits {value.exit_code}, documented {row[1]}")
            if header == "record":
                fields = [f.name for f in dataclasses.fields(value)]
                documented = _spans(re.sub(r"\([^)]*\)", "", row[1]))
                if documented != fields or not value.__dataclass_params__.frozen:
                    problems.append(f"{span}: fields {fields}, documented {documented}")
                for view in _spans(re.sub(r"\([^)]*\)", "", row[2])):
                    owner, attribute = view.split(".")
                    holder = getattr(worktree_coord, owner)
                    member = inspect.getattr_static(holder, attribute, None)
                    if isinstance(member, property):        # a view: typed by its return annotation
                        annotation = member.fget.__annotations__.get("return")
                    else:                                   # a record's field (ConflictRecord.semantic)
                        annotation = getattr(holder.__dataclass_fields__.get(attribute), "type", None)
                    if annotation is None or span not in str(annotation):
                        problems.append(f"{view} does not return {span} records ({annotation!r})")
    assert not problems, "docs/api.md and worktree_coord disagree:\n" + "\n".join(problems)
    assert checked > 30, f"only {checked} names read: has the page's table layout changed?"


def test_the_check_names_api_md_documents_import_with_their_documented_signatures():
    import worktree_coord.check
    import worktree_coord.ci

    problems: list[str] = []
    section = _api_section("`worktree_coord.check` and `worktree_coord.ci`")
    for row in _table_rows(section)[2:]:
        for span in _spans(row[0]):
            if "(" in span:
                _check_signature(worktree_coord.ci, span, problems)
            elif not hasattr(worktree_coord.ci, span):
                problems.append(f"{span} does not import from worktree_coord.ci")
    listed = re.search(r"is `worktree_coord.check` \(([^)]*)\)", section)
    assert listed, "the paragraph naming what worktree_coord.check holds"
    for name in _spans(listed.group(1)):
        if not hasattr(worktree_coord.check, name):
            problems.append(f"{name} does not import from worktree_coord.check")
    assert not problems, "docs/api.md and worktree_coord.check disagree:\n" + "\n".join(problems)


def test_docs_and_readme_hold_no_words_left_from_development():
    # What a reader cannot act on: a pointer to an issue tracker they do not see, a feature "when
    # installed" or "until it is installed" that is in the package they have.
    leftovers = re.compile(r"until it is installed|when installed|\(issue \d+|issue \d+'s|\bthe issue\b"
                           r"|merge-engine work")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").rglob("*.*"))]
    found = [f"{page.relative_to(ROOT)}:{number}: {line.strip()}" for page in pages if page.is_file()
             for number, line in enumerate(page.read_text(errors="replace").splitlines(), 1)
             if leftovers.search(line)]
    assert not found, "\n".join(found)


def test_the_readme_describes_the_demo_the_scenario_runs():
    from collections import Counter

    from worktree_coord.cli.demo_scenario import DEMO_TASKS

    text = " ".join((ROOT / "README.md").read_text().split())
    said = re.search(r"the built-in example \(a scratch monorepo, (\d+) agents in parallel processes, two of them "
                     r"editing one module, one editing a reserved root manifest, one breaking its boundary\)", text)
    assert said, "README's sentence about `wtc demo` changed: keep this test in step with it"
    assert int(said.group(1)) == len(DEMO_TASKS)
    files = [{edit.path for edit in task.edits} for task in DEMO_TASKS]
    assert max(Counter(path for paths in files for path in paths).values()) == 2     # two editing one module
    assert sum("package.json" in paths for paths in files) == 1                      # a reserved root manifest
    assert [task.expect for task in DEMO_TASKS].count("rejected") == 1                # one breaking its boundary


def test_the_exit_code_the_docs_give_an_exclusive_overlap_is_the_one_it_exits_with(tmp_path):
    from tests.conftest import make_repo
    from worktree_coord import Coordinator, WtcError

    repo = make_repo(tmp_path / "repo", {"pkg/a.py": "x = 1\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r")
        coordinator.start_task("r", "first", ["pkg/**"])
        try:
            coordinator.start_task("r", "second", ["pkg/a.py"], exclusive=True)
        except WtcError as error:
            code = error.exit_code
        else:
            raise AssertionError("an exclusive overlap must be refused")
    mcp = next(line for line in (ROOT / "docs" / "mcp.md").read_text().splitlines() if line.startswith("| `exclusive` |"))
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert re.search(r"\(exit (\d)", mcp).group(1) == str(code) == "4", mcp
    assert f"`--exclusive` refuses it (exit {code}:" in readme


def test_the_intent_ops_the_cli_page_lists_are_every_op():
    from worktree_coord.consolidate.intent import Op

    row = next(line for line in (ROOT / "docs" / "cli.md").read_text().splitlines() if line.startswith("| `--op` |"))
    listed = row.split(" | ")[3].split(" (")[0].split(", ")
    assert listed == [op.value for op in Op]


def test_the_multi_machine_page_starts_a_postgresql_store_wtc_then_uses(tmp_path):
    """docs/multi-machine.md's "try it by hand" commands, run as they stand (as root when the tests
    run as root, as CI does: the root sequence, whose `createdb` used to fail with `role "root" does
    not exist`), on a free port and folder of their own; then `wtc run start` creates its tables."""
    import os
    import shutil
    import tempfile
    import uuid

    from tests.pg_server import find_binary, free_port

    text = (ROOT / "docs" / "multi-machine.md").read_text()
    section = text[text.index("To try it by hand"):text.index("The remote-run tests")]
    plain, as_root = re.findall(r"```sh\n(.*?)```", section, re.S)
    script = as_root if os.geteuid() == 0 else plain
    stop = re.search(r"# when done: (.*)", as_root).group(1)
    port, folder = str(free_port()), f"/tmp/wtcpg-{uuid.uuid4().hex[:8]}"
    bin_dir = os.path.dirname(os.path.realpath(find_binary("initdb")))   # where createuser lives too

    def local(commands: str) -> str:
        return commands.replace("/usr/lib/postgresql/15/bin", bin_dir).replace("5433", port).replace("/tmp/wtcpg", folder)

    # A repository the server's user may enter (pytest's tmp folders are the caller's alone).
    repo = Path(tempfile.mkdtemp(prefix="wtc-doc-pg-"))
    os.chmod(repo, 0o755)
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=repo,
                       check=True)
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    env.pop("WTC_STORE", None)
    try:
        done = subprocess.run(["bash", "-c", "set -e\n" + local(script)], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "run r42 pinned at" in done.stdout
        user = "wtc" if script is as_root else os.environ.get("USER", "root")
        tables = subprocess.run(["psql", "-h", "/tmp", "-p", port, "-U", user, "wtc", "-Atc",
                                 "select count(*) from pg_tables where tablename like 'wtc\\_%'"],
                                capture_output=True, text=True, env=env, cwd=repo)
        assert tables.returncode == 0 and int(tables.stdout) > 5, tables.stdout + tables.stderr
    finally:
        if script is as_root:
            subprocess.run(["bash", "-c", local(f"PG={bin_dir}; {stop}")], cwd=repo, capture_output=True, timeout=120)
        else:
            subprocess.run([f"{bin_dir}/pg_ctl", "-D", folder, "-m", "fast", "-w", "stop"], capture_output=True)
            shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(repo, ignore_errors=True)
    assert not Path(folder).exists(), "the page's own clean-up removes the cluster"
