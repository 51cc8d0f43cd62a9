"""gitrepo/lean_repository.py: in a `wtc` process pygit2 loads without `tarfile` and `string`, and
what pygit2.repository reads of them is what it reads with them: `hexdigits`, the annotation of
`write_archive`'s archive (through `typing.get_type_hints`), and `write_archive` itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo

PROBE = r"""
import json, sys
if sys.argv[1] == "lean":
    from worktree_coord.gitrepo.lean_pygit2 import install
    install()
import pygit2
answer = {"tarfile_loaded": "tarfile" in sys.modules, "string_loaded": "string" in sys.modules,
          "loader": type(pygit2.repository.__loader__).__name__}
import io, string, tarfile, typing
answer["hexdigits"] = pygit2.repository.hexdigits == string.hexdigits
answer["hints"] = typing.get_type_hints(pygit2.Repository.write_archive)["archive"] is tarfile.TarFile
repo = pygit2.Repository(sys.argv[2])
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w") as archive:
    repo.write_archive(repo.head.target, archive, timestamp=0, prefix="p/")
with tarfile.open(fileobj=io.BytesIO(buffer.getvalue())) as archive:
    answer["archive"] = sorted((m.name, m.size, m.mode) for m in archive.getmembers())
answer["short_id_ok"] = repo.revparse_single(str(repo.head.target)[:7]).id == repo.head.target
print(json.dumps(answer))
"""


def probe(mode: str, repo: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PROBE, mode, str(repo)], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).parent)
    return json.loads(done.stdout)


def test_pygit2_loads_without_tarfile_and_string_and_reads_the_same(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    lean, plain = probe("lean", repo), probe("plain", repo)
    assert lean.pop("loader") == "WithoutTarfileLoader"
    assert lean.pop("tarfile_loaded") is False and lean.pop("string_loaded") is False
    assert plain.pop("tarfile_loaded") is True, "what the stand-ins save"
    plain.pop("string_loaded")
    plain.pop("loader")
    assert lean == plain
    assert lean["hexdigits"] and lean["hints"] and lean["archive"] and lean["short_id_ok"]


def test_a_stand_in_reads_any_other_name_from_the_real_module() -> None:
    from worktree_coord.gitrepo.lean_repository import Deferred

    saved = sys.modules.pop("textwrap", None)
    try:
        stand_in = Deferred("textwrap", {"dedent": "known"})
        sys.modules["textwrap"] = stand_in
        assert stand_in.dedent == "known"
        stand_in.forget_known()
        import textwrap as real_first_read   # the stand-in still answers the import itself

        assert real_first_read.dedent("  a") == "a"
        assert sys.modules["textwrap"] is not stand_in, "the real module takes its place on the first read"
        assert stand_in.shorten("a b c d e f", 8) == sys.modules["textwrap"].shorten("a b c d e f", 8)
        assert not hasattr(stand_in, "known")
    finally:
        if saved is not None:
            sys.modules["textwrap"] = saved
