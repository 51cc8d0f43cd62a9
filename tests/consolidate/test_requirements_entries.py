"""Every line of a reserved requirements file is something an intent carries: an editable install's
or a local path's extras, `-r`/`-c` includes, `--index-url`, markers, `--hash=` values, `name @ URL`.
Found driving wtc on encode/httpx: its requirements.txt starts `-e .[brotli,cli,http2,socks,zstd]`;
a task that added an extra there was refused at finish as `reserved_unexpressible` ("options lines"),
a false block. Real repositories, the real faces (`wtc task finish`, `wtc consolidate`, `wtc report`);
a requirements.txt kept by hand is edited, never compiled, so nothing here needs the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc_in_process
from worktree_coord.consolidate import Op, derive_intents
from worktree_coord.consolidate.edits import edit_manifest
from worktree_coord.consolidate.manifests import read_manifest
from worktree_coord.consolidate.textformat import ManifestParseError

HTTPX = "-e .[brotli,cli]\n\n# Tests\npytest==8.3.5\n"


def _run(tmp_path: Path, edits: dict[str, str]) -> tuple[Path, dict[str, dict]]:
    """A repository holding HTTPX's requirements.txt; one task per edit (the task's whole new file),
    each finished; returns the repository and each finish's JSON."""
    repo = make_repo(tmp_path / "repo", {"requirements.txt": HTTPX, "src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    done = {}
    for task, text in edits.items():
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "src/**")
        assert code == 0, started
        write(Path(started["worktree"]), {"requirements.txt": text})
        code, done[task] = wtc_in_process(repo, "task", "finish", task, "--run", "r")
        assert code == 0 and done[task]["state"] == "merged", done[task]
    return repo, done


def test_two_tasks_adding_different_extras_to_an_editable_install_both_land(tmp_path: Path) -> None:
    repo, done = _run(tmp_path, {
        "zstd": HTTPX.replace("[brotli,cli]", "[brotli,cli,zstd]"),
        "socks": HTTPX.replace("[brotli,cli]", "[cli,socks]"),      # adds socks, takes brotli out
        "index": "--index-url https://pypi.example/simple\n-r dev.txt\n" + HTTPX.replace("8.3.5", "8.4.1"),
    })
    [intent] = done["zstd"]["intents"]
    assert (intent["op"], intent["group"], intent["name"], intent["extras"]) == \
        ("set_spec", "requirements", "-e .", ["brotli", "cli", "zstd"])
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert git(repo, "show", "wtc/r/integration:requirements.txt") == (
        "--index-url https://pypi.example/simple\n-r dev.txt\n-e .[cli,socks,zstd]\n\n# Tests\npytest==8.4.1")
    [root] = consolidated["roots"]
    assert any("merged the extras of tasks socks, zstd" in w for w in root["warnings"])
    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert code == 0 and report["intents_pending"] == []
    assert report["consolidation"][0]["intents"] == {"applied": 5}


def test_an_extra_added_after_another_tasks_extras_were_consolidated_applies_on_top(tmp_path: Path) -> None:
    repo, _ = _run(tmp_path, {"zstd": HTTPX.replace("[brotli,cli]", "[brotli,cli,zstd]")})
    assert wtc_in_process(repo, "consolidate", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "socks", "--run", "r", "--own", "src/**")
    write(Path(started["worktree"]), {"requirements.txt": HTTPX.replace("[brotli,cli]", "[brotli,cli,socks]")})
    assert wtc_in_process(repo, "task", "finish", "socks", "--run", "r")[1]["state"] == "merged"
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 0, consolidated
    assert git(repo, "show", "wtc/r/integration:requirements.txt").startswith("-e .[brotli,cli,socks,zstd]\n")


def test_a_removed_editable_install_and_a_new_extra_of_it_conflict_naming_both(tmp_path: Path) -> None:
    repo, _ = _run(tmp_path, {"zstd": HTTPX.replace("[brotli,cli]", "[brotli,cli,zstd]"),
                              "plain": HTTPX.replace("-e .[brotli,cli]", ".[brotli,cli]")})
    code, consolidated = wtc_in_process(repo, "consolidate", "--run", "r")
    assert code == 1
    [conflict] = consolidated["roots"][0]["conflicts"]
    assert conflict["tasks"] == ["plain", "zstd"] and conflict["kind"] == "add_vs_remove"
    assert "'-e .'" in conflict["message"]


@pytest.mark.parametrize("base, new, expected", [
    # -r / -c includes and index options: present or absent, --index-url one value
    ("a==1\n", "-r other.txt\n-c constraints.txt\na==1\n",
     [("add_dep", "options", "--constraint constraints.txt", None), ("add_dep", "options", "--requirement other.txt", None)]),
    ("-i https://a/simple\na==1\n", "--index-url=https://b/simple\na==1\n",
     [("set_spec", "options", "--index-url", "https://b/simple")]),
    ("a==1\n", "--extra-index-url https://x/simple\n--pre\na==1\n",
     [("add_dep", "options", "--extra-index-url https://x/simple", None), ("add_dep", "options", "--pre", None)]),
    # markers, URLs and hashes: requirements with all they say
    ("a==1\n", "a==1; python_version < '3.11'\n", [("set_spec", "requirements", "a", "==1")]),
    ("a==1\n", "a==1\nb @ https://example.com/b-1.0.tar.gz\n", [("add_dep", "requirements", "b", None)]),
    ("a==1 --hash=sha256:aa\n", "a==1 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n",
     [("set_spec", "requirements", "a", "==1")]),
    # a local path install's extras
    ("./pkg[x]\n", "./pkg[x,y]\n", [("set_spec", "requirements", "./pkg", None)]),
])
def test_every_requirements_line_form_is_an_intent_that_applies_and_reads_back(base: str, new: str,
                                                                               expected: list) -> None:
    intents = derive_intents("requirements.txt", base.encode(), new.encode(), task="t")
    assert [(i.op.value, i.group, i.name, i.spec) for i in intents] == expected
    data = base.encode()
    for intent in intents:
        data = edit_manifest("requirements.txt", data, intent)
    assert read_manifest("requirements.txt", data) == read_manifest("requirements.txt", new.encode())
    assert derive_intents("requirements.txt", new.encode(), data, task="t") == []


def test_a_changed_hash_is_an_intent_not_a_silent_loss() -> None:
    base = b"a==1 \\\n    --hash=sha256:aa\nb==2\n"
    [intent] = derive_intents("requirements.txt", base, base.replace(b"sha256:aa", b"sha256:cc"), task="t")
    assert intent.op == Op.SET_SPEC and dict(intent.options) == {"hashes": ("sha256:cc",)}
    assert edit_manifest("requirements.txt", base, intent) == b"a==1 \\\n    --hash=sha256:cc\nb==2\n"


def test_a_line_pip_cannot_read_is_refused_naming_the_line_and_the_fix() -> None:
    with pytest.raises(ManifestParseError) as raised:
        read_manifest("requirements.txt", b"a==1\n-e\n")
    assert "requirements.txt:2" in raised.value.message and "-e PATH[extras]" in raised.value.fix


def test_a_declared_requirements_line_is_read_as_the_line_it_names() -> None:
    """`wtc intent add --name '-e .[cli,yaml]'` (or `-r dev.txt`, `--index-url`) names the line as
    an agent writes it; the name was PEP 503-normalized into `-e-cli-yaml` and matched nothing."""
    from worktree_coord.consolidate import declare_intent

    base = HTTPX.encode()
    extras = declare_intent("requirements.txt", base, task="d", op="set_spec", name="-e .[brotli,cli,yaml]")
    assert (extras.group, extras.name, extras.extras) == ("requirements", "-e .", ("brotli", "cli", "yaml"))
    include = declare_intent("requirements.txt", base, task="d", op="add_dep", name="-r dev.txt")
    index = declare_intent("requirements.txt", base, task="d", op="add_dep", name="-i",
                           spec="https://pypi.example/simple")
    assert [(i.group, i.name) for i in (include, index)] == [("options", "--requirement dev.txt"),
                                                              ("options", "--index-url")]
    data = base
    for intent in (extras, include, index):
        data = edit_manifest("requirements.txt", data, intent)
    assert data.decode() == ("-i https://pypi.example/simple\n-r dev.txt\n-e .[brotli,cli,yaml]\n\n# Tests\n"
                             "pytest==8.3.5\n")


def test_an_index_url_added_to_a_compiled_root_is_applied_and_compiled_offline(tmp_path: Path, tool_env) -> None:
    """requirements.in (pip-compile's manifest) gains `--index-url` and a requirement: both apply,
    pip-compile relocks offline from the wheelhouse, and the option is no package the lock must hold
    (verification looked for a locked package named `--index-url`)."""
    from test_consolidate_pip_tools import wheel

    from worktree_coord.consolidate import RootState, consolidate_root
    from worktree_coord.consolidate.adapters import adapter_for

    house = tmp_path / "wheelhouse"
    wheel(house, "alpha", "1.0.0")
    wheel(house, "gamma", "0.5.0")
    env = {**tool_env, "PIP_FIND_LINKS": str(house), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    root = tmp_path / "app"
    write(root, {"requirements.in": "alpha>=1\n"})
    assert adapter_for("pip-tools", root, "", env=env).relock(offline=True).ok
    intents = derive_intents("requirements.in", b"alpha>=1\n",
                             b"--index-url https://pypi.example/simple\nalpha>=1\ngamma\n", task="t")
    assert [(i.group, i.name) for i in intents] == [("options", "--index-url"), ("requirements", "gamma")]
    result = consolidate_root(root, "", "pip-tools", intents, env=env)
    assert result.state == RootState.APPLIED, result.error
    assert (root / "requirements.in").read_text() == "--index-url https://pypi.example/simple\nalpha>=1\ngamma\n"
    assert "gamma==0.5.0" in (root / "requirements.txt").read_text()
