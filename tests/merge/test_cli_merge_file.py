"""`wtc merge-file` and `wtc driver install`, run as real processes and inside a real `git merge`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
WTC = str(BIN / "wtc")
BASE = b"import os\n\n\ndef a():\n    return 1\n"
LEFT = b"import os\nimport sys\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n"
RIGHT = b"import os\nimport re\n\n\ndef a():\n    return 1\n\n\ndef c():\n    return 3\n"
BOTH = b"import os\nimport sys\nimport re\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"


def _files(tmp_path: Path, base: bytes = BASE, left: bytes = LEFT, right: bytes = RIGHT) -> list[str]:
    paths = []
    for name, data in (("base.py", base), ("left.py", left), ("right.py", right)):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    return paths


def _run(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, capture_output=True, check=False, env=env)


def test_clean_merge_goes_to_stdout_with_exit_0(tmp_path: Path) -> None:
    done = _run([WTC, "merge-file", *_files(tmp_path)])
    assert done.returncode == 0, done.stderr
    assert done.stdout == BOTH


def test_conflict_exits_1_and_json_lists_it(tmp_path: Path) -> None:
    left = BASE.replace(b"return 1", b"return 2")
    right = BASE.replace(b"return 1", b"return 3")
    out = tmp_path / "out.py"
    done = _run([WTC, "merge-file", *_files(tmp_path, left=left, right=right), "--output", str(out), "--json",
                 "--label", "task", "--label", "pinned", "--label", "integration", "--marker-size", "9"])
    assert done.returncode == 1
    payload = json.loads(done.stdout)
    assert payload["schema"] == "wtc.merge-file/1" and payload["clean"] is False
    assert payload["conflicts"][0]["declaration"] == "def a"
    assert out.read_bytes().count(b"<<<<<<<<< task\n") == 1


def test_a_conflict_the_structured_merge_could_not_take_says_why_on_stderr(tmp_path: Path) -> None:
    left = BASE.replace(b"return 1", b"return 2")
    right = BASE.replace(b"return 1", b"return (3")          # does not parse
    done = _run([WTC, "merge-file", *_files(tmp_path, left=left, right=right), "--output", str(tmp_path / "o.py")])
    assert done.returncode == 1
    assert done.stderr.decode().splitlines()[-1].startswith(
        "wtc merge-file: why: the `theirs` version does not parse as python (line 5:5) where the base did")
    # A true overlap the structured merge did read: no "why" line.
    plain = _run([WTC, "merge-file", *_files(tmp_path, left=left, right=BASE.replace(b"return 1", b"return 3")),
                  "--output", str(tmp_path / "p.py")])
    assert plain.returncode == 1 and b"why:" not in plain.stderr


def test_the_merge_driver_loads_only_what_the_file_needs(tmp_path: Path) -> None:
    # git starts the driver once per conflicted file: a TypeScript merge loads no Python parser
    # (libcst) and no pydantic (typer 0.29 coerced every option through it).
    paths = []
    for name, data in (("b.ts", b"let a = 1\n"), ("l.ts", b"let a = 1\nlet b = 2\n"), ("r.ts", b"let c = 3\nlet a = 1\n")):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    done = _run([sys.executable, "-X", "importtime", "-m", "worktree_coord", "merge-file", *paths, "--path", "x.ts"])
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"let c = 3\nlet a = 1\nlet b = 2\n"
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines()
              if line.startswith("import time:")}
    assert "worktree_coord.merge" in loaded
    assert not loaded & {"pydantic", "libcst", "psycopg", "networkx"}, loaded & {"pydantic", "libcst", "psycopg", "networkx"}


def test_bad_input_exits_2(tmp_path: Path) -> None:
    base, _left, right = _files(tmp_path)
    done = _run([WTC, "merge-file", base, str(tmp_path / "missing.py"), right])
    assert done.returncode == 2
    assert b"cannot read LEFT" in done.stderr
    assert _run([WTC, "merge-file", base, base, right, "--marker-size", "0"]).returncode == 2


def test_git_mode_writes_into_left(tmp_path: Path) -> None:
    base, left, right = _files(tmp_path)
    done = _run([WTC, "merge-file", base, left, right, "--git", "--path", "pkg/mod.py"])
    assert done.returncode == 0 and done.stdout == b""
    assert Path(left).read_bytes() == BOTH


def _git(repo: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False, env=env)


def _repo_with_branches(tmp_path: Path, left: bytes, right: bytes) -> tuple[Path, dict[str, str]]:
    """main holds LEFT, branch `other` holds RIGHT; PATH has no wtc on it (a venv not activated)."""
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p and Path(p).resolve() != BIN.resolve())
    env = dict(os.environ, PATH=path, HOME=str(tmp_path / "home"),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid", GIT_CONFIG_NOSYSTEM="1")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main", env=env)
    (repo / "mod.py").write_bytes(BASE)
    _git(repo, "add", "mod.py", env=env)
    _git(repo, "commit", "-qm", "base", env=env)
    _git(repo, "checkout", "-qb", "other", env=env)
    (repo / "mod.py").write_bytes(right)
    _git(repo, "commit", "-qam", "right", env=env)
    _git(repo, "checkout", "-q", "main", env=env)
    (repo / "mod.py").write_bytes(left)
    _git(repo, "commit", "-qam", "left", env=env)
    return repo, env


def test_driver_install_makes_git_merge_resolve_without_wtc_on_path(tmp_path: Path) -> None:
    repo, env = _repo_with_branches(tmp_path, LEFT, RIGHT)
    assert subprocess.run(["sh", "-c", "command -v wtc"], env=env, capture_output=True).returncode != 0
    done = _run([WTC, "driver", "install", "--repo", str(repo), "--json"], env=env)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["patterns_added"] > 10 and payload["exit_code"] == 0
    again = json.loads(_run([WTC, "driver", "install", "--repo", str(repo), "--json"], env=env).stdout)
    assert again["patterns_added"] == 0
    config = _git(repo, "config", "merge.wtc.driver", env=env).stdout.decode().strip()
    # The absolute path of the wtc that installed it: git runs it with or without a venv on PATH.
    assert config == f"{WTC} merge-file %O %A %B --path %P --git --marker-size %L -L %X -L %S -L %Y"
    assert payload["driver"] == config
    human = _run([WTC, "driver", "install", "--repo", str(repo)], env=env).stdout.decode()
    assert f"git will run: {config}" in human
    attributes = (repo / ".git" / "info" / "attributes").read_text()
    assert "*.py merge=wtc" in attributes and "*.json merge=wtc" in attributes

    merged = _git(repo, "merge", "-q", "--no-edit", "other", env=env)
    assert merged.returncode == 0, merged.stderr + merged.stdout
    assert (repo / "mod.py").read_bytes() == BOTH


def test_driver_conflict_markers_name_the_branches_over_their_own_content(tmp_path: Path) -> None:
    left = BASE.replace(b"return 1", b"return 2  # main")
    right = BASE.replace(b"return 1", b"return 3  # other")
    repo, env = _repo_with_branches(tmp_path, left, right)
    assert _run([WTC, "driver", "install", "--repo", str(repo)], env=env).returncode == 0
    merged = _git(repo, "merge", "-q", "--no-edit", "other", env=env)
    assert merged.returncode != 0
    text = (repo / "mod.py").read_text()
    # Both sides are in the file (nothing lost), each under the label of the branch it came from:
    # git >= 2.44 passes the labels (%X %Y); an older git leaves them unexpanded and the driver
    # reads HEAD's branch and GITHEAD_<sha> instead. Either way: main above, other below.
    ours, rest = text.split("<<<<<<< ", 1)[1].split("\n", 1)
    assert ours in ("main", "HEAD")
    assert rest.index("return 2  # main") < rest.index("=======") < rest.index("return 3  # other")
    assert text.rstrip("\n").endswith(">>>>>>> other")


def test_merge_file_labels_name_left_base_and_right(tmp_path: Path) -> None:
    left = BASE.replace(b"return 1", b"return 2  # left")
    right = BASE.replace(b"return 1", b"return 3  # right")
    done = _run([WTC, "merge-file", *_files(tmp_path, left=left, right=right), "-L", "mine", "-L", "old", "-L", "yours",
                 "--json"])
    assert done.returncode == 1
    payload = json.loads(done.stdout)
    assert payload["exit_code"] == 1 and payload["labels"] == {"ours": "mine", "base": "old", "theirs": "yours"}
    merged = payload["merged"]
    assert merged.index("<<<<<<< mine\n") < merged.index("# left") < merged.index("||||||| old\n") \
        < merged.index("=======") < merged.index("# right") < merged.index(">>>>>>> yours")


@pytest.mark.parametrize("action", ["uninstall"])
def test_unknown_driver_action_is_usage_error(action: str) -> None:
    assert _run([WTC, "driver", action]).returncode == 2


SEM_BASE = b"def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
SEM_LEFT = b"def render(items):\n    return ', '.join(items)\n"
SEM_RIGHT = SEM_BASE.replace(b"return ', '.join(items)", b"return ', '.join(parse(items))")


def test_semantic_finding_exits_1_without_markers_and_json_carries_it(tmp_path: Path) -> None:
    out = tmp_path / "out.py"
    files = _files(tmp_path, SEM_BASE, SEM_LEFT, SEM_RIGHT)
    done = _run([WTC, "merge-file", *files, "--path", "app/text.py", "--output", str(out)])
    assert done.returncode == 1
    assert out.read_bytes() == b"def render(items):\n    return ', '.join(parse(items))\n", "merged as merged, no markers"
    assert b"semantic conflict: app/text.py:2 uses parse (function at app/text.py:1 in the base)" in done.stderr
    payload = json.loads(_run([WTC, "merge-file", *files, "--path", "app/text.py", "--json"]).stdout)
    assert payload["clean"] is False
    [conflict] = payload["conflicts"]
    assert conflict["kind"] == "semantic" and conflict["start_line"] == 2
    assert conflict["semantic"]["name"] == "parse" and conflict["semantic"]["removed_by"] == "ours"


def test_semantic_warn_exits_0_and_off_is_silent(tmp_path: Path) -> None:
    files = _files(tmp_path, SEM_BASE, SEM_LEFT, SEM_RIGHT)
    warned = _run([WTC, "merge-file", *files, "--path", "text.py", "--semantic", "warn"])
    assert warned.returncode == 0 and b"semantic warning: text.py:2 uses parse" in warned.stderr
    off = _run([WTC, "merge-file", *files, "--path", "text.py", "--semantic", "off"])
    assert off.returncode == 0 and off.stderr == b""
    bad = _run([WTC, "merge-file", *files, "--semantic", "loud"])
    assert bad.returncode == 2 and b"block, warn, off" in bad.stderr


def test_driver_install_covers_the_appended_to_files(tmp_path: Path) -> None:
    """`wtc driver install` routes .gitignore, CODEOWNERS, PO and .properties files to wtc too, and
    git's own merge of two branches each appending to .gitignore then resolves through it."""
    repo, env = _repo_with_branches(tmp_path, LEFT, RIGHT)
    assert _run([WTC, "driver", "install", "--repo", str(repo), "--json"], env=env).returncode == 0
    paths = [".gitignore", "docs/.dockerignore", ".github/CODEOWNERS", "locale/de.po", "app/messages.properties",
             "dev-requirements.txt", "AUTHORS"]
    attributes = _git(repo, "check-attr", "merge", "--", *paths, env=env).stdout.decode().splitlines()
    assert attributes == [f"{path}: merge: wtc" for path in paths]
    for branch, line in (("other", b"dist/\n"), ("main", b".venv/\n")):
        _git(repo, "checkout", "-q", branch, env=env)
        (repo / ".gitignore").write_bytes(b"*.pyc\n" + line)
        _git(repo, "add", ".gitignore", env=env)
        _git(repo, "commit", "-qm", f"ignore on {branch}", env=env)
    _git(repo, "checkout", "-q", "other", env=env)
    # both branches created .gitignore from nothing: an add/add with an empty base, one line each
    done = _run(["git", "merge", "-q", "--no-edit", "main"], env=env, cwd=repo)
    assert (repo / ".gitignore").read_bytes() == b"*.pyc\ndist/\n.venv/\n", done.stderr


def test_json_carries_bytes_that_are_not_utf8_faithfully(tmp_path: Path) -> None:
    """Issue 35, 1.8: `merged` decoded with replacement turned every byte >= 0x80 into U+FFFD."""
    import base64

    latin1 = ("# café\n" + "x = 1\n" * 5 + "# naïve\n").encode("latin-1")
    left, right = latin1.replace(b"x = 1\n", b"x = 2\n", 1), latin1.replace(b"# na\xefve", b"# na\xefve!")
    files = _files(tmp_path, latin1, left, right)
    plain = _run([WTC, "merge-file", *files])
    assert plain.returncode == 0 and b"caf\xe9" in plain.stdout
    payload = json.loads(_run([WTC, "merge-file", *files, "--json"]).stdout)
    assert payload["schema"] == "wtc.merge-file/1" and payload["exit_code"] == 0
    assert payload["merged"] is None and payload["encoding"] == "base64"
    assert base64.b64decode(payload["merged_base64"]) == plain.stdout

    binary = [b"\x89PNG\x00\x01\xff", b"\x89PNG\x00\x02\xfe", b"\x89PNG\x00\x03\xfd"]
    files = _files(tmp_path, *binary)
    done = _run([WTC, "merge-file", *files, "--path", "logo.png", "--json"])
    payload = json.loads(done.stdout)
    assert done.returncode == 1 and payload["merged"] is None
    assert base64.b64decode(payload["merged_base64"]) == binary[1], "ours kept, byte for byte"

    text = json.loads(_run([WTC, "merge-file", *_files(tmp_path), "--json"]).stdout)
    assert text["merged"] == BOTH.decode() and text["encoding"] == "utf-8" and "merged_base64" not in text
    cafe = LEFT.replace(b"return 2", "return 'café'".encode())
    utf8 = json.loads(_run([WTC, "merge-file", *_files(tmp_path, BASE, cafe, RIGHT), "--json"]).stdout)
    assert "return 'café'" in utf8["merged"] and utf8["encoding"] == "utf-8"


def test_a_binary_conflict_says_binary_file_and_no_line_range(tmp_path: Path) -> None:
    """Issue 35, section 2: a binary conflict was reported as "lines 1-39" of a file with no markers."""
    files = _files(tmp_path, b"\x00logo\n" * 40, b"\x00logo v2\n" * 40, b"\x00logo v3\n" * 40)
    done = _run([WTC, "merge-file", *files, "--path", "assets/logo.bin", "--output", str(tmp_path / "out.bin")])
    assert done.returncode == 1
    assert done.stderr.decode().splitlines()[0] == "wtc merge-file: 1 conflict(s) in assets/logo.bin: binary file"
    assert b"lines" not in done.stderr
    [conflict] = json.loads(_run([WTC, "merge-file", *files, "--path", "assets/logo.bin", "--json"]).stdout)["conflicts"]
    assert (conflict["kind"], conflict["start_line"], conflict["end_line"]) == ("binary", 0, 0)
