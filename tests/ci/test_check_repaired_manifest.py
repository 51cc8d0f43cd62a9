"""`wtc check` of a commit repairing a reserved manifest its parent committed with conflict markers.

Found by the false block hunt on expressjs/express: e5feb9fcc9ab ("Merge tag '4.20.0' into 5.0")
committed package.json holding conflict markers (a real break, flagged rightly), and f9256ef36fa9, its
child, took them out; the check of f9256ef36fa9 said "package.json holds git conflict markers", of the
version the commit had repaired (it read the commit's base strictly and reported what it found there
as the commit's). A repair is no key edit consolidation carries (it applies a reserved manifest's edits
onto the integration's copy, which does not read either): it is still refused, and now says why.
"""

from __future__ import annotations

from pathlib import Path

from tests.ci.ci_helpers import commit_all
from tests.conftest import git, make_repo, write, wtc_in_process

GOOD = '{\n  "name": "express",\n  "version": "5.0.0-beta.3",\n  "license": "MIT"\n}\n'
BROKEN = GOOD.replace('  "version": "5.0.0-beta.3",\n', '<<<<<<< HEAD\n  "version": "5.0.0-beta.3",\n=======\n'
                                                          '  "version": "4.20.0",\n>>>>>>> master\n')


def _checked(tmp_path: Path, base: str, head: str) -> dict:
    repo = make_repo(tmp_path / "repo", {"package.json": base, "index.js": "module.exports = 1;\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"package.json": head})
    commit_all(repo, "edit package.json")
    code, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    assert code == 3, body
    [violation] = [f for f in body["findings"] if f["rule"] == "reserved_invalid"]
    return violation


def test_a_commit_repairing_the_markers_its_base_holds_is_told_so(tmp_path):
    message = _checked(tmp_path, BROKEN, GOOD)["message"]
    assert message.startswith("package.json at the task's base (") and "does not read strictly" in message, message
    assert "the task's version does: it repairs the file" in message and "repairs package.json on the integration" in message


def test_a_commit_holding_markers_is_told_its_own(tmp_path):
    message = _checked(tmp_path, GOOD, BROKEN)["message"]
    assert message.startswith("package.json holds git conflict markers (line 3)"), message
