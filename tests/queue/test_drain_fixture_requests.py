"""A drain's merge (its tip tables in use) still finds a pytest fixture one task dropped that another asks for.

merge/checks/fixtures.py looks for the fixture files among a merge's files; in a drain those are every
file the run changed so far, so it now matches the tip's files by name alone, with the names of the
languages of the task's own files. These drains put files of another language and a fixture file
of another folder in the tip first, then the two tasks in both orders.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import finished_unmerged, make_repo, wtc

CONFTEST = ("import pytest\n\n\n@pytest.fixture\ndef client():\n    return object()\n\n\n"
            "@pytest.fixture\ndef db():\n    return 1\n")
FILES = {"tests/conftest.py": CONFTEST, "tests/test_a.py": "def test_a():\n    assert True\n",
         "web/app.js": "export const a = 1;\n", "other/conftest.py": "import pytest\n"}
DROP = ("drop", "tests/conftest.py", {"tests/conftest.py": CONFTEST.replace("@pytest.fixture\ndef client", "def client")})
ASK = ("ask", "tests/test_b*", {"tests/test_b.py": "def test_b(client):\n    assert client\n"})
BEFORE = [("js", "web/**", {"web/app.js": "export const a = 2;\n"}),
          ("other", "other/**", {"other/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef spare():\n    return 0\n"})]


@pytest.mark.parametrize("first, second", [(DROP, ASK), (ASK, DROP)], ids=["drop-then-ask", "ask-then-drop"])
def test_a_drain_blocks_the_second_of_a_fixture_dropped_and_a_test_asking_for_it(tmp_path: Path, first, second) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    for task in [*BEFORE, first, second]:
        finished_unmerged(repo, "r", *task)

    code, body = wtc(repo, "merge", "--run", "r")
    states = {row["task"]: row["state"] for row in body["tasks"]}
    assert states == {"js": "merged", "other": "merged", first[0]: "merged", second[0]: "conflict"}, body
    [row] = [row for row in body["tasks"] if row["task"] == second[0]]
    assert "tests/test_b.py" in str(row) and "client" in str(row), row
    assert code != 0
