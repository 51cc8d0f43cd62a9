"""Cases of the semantic check written down as missed or falsely blocked (trust-left16, trust-left17), each held here.

A removed or renamed name still used must block, naming every use; a change that leaves every use
loading must not. Each case: a real repository, a task's `task check` and `task finish`.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _second_finish

# -- Kotlin: a nested class moved to the top level of its package -----------------------------------

# square/okhttp d86233eb4547: DnsMessageReader's nested DnsMessage, Question and ResourceRecord moved to
# their own file DnsMessage.kt, top-level in the same package; the reader's bare uses now mean those.
READER = ("package okhttp3.dnsoverhttps\n\ninternal class DnsMessageReader(val source: String) {\n"
          "  fun read(): DnsMessage {\n    val questions = ArrayList<Question>()\n"
          "    return DnsMessage(1, questions)\n  }\n\n"
          "  fun readQuestion(): Question = Question(source)\n")
NESTED = ("\n  internal data class DnsMessage(val id: Int, val questions: List<Question>)\n\n"
          "  internal data class Question(val name: String)\n")
TOP = ("package okhttp3.dnsoverhttps\n\ninternal data class DnsMessage(val id: Int, val questions: List<Question>)\n\n"
       "internal data class Question(val name: String)\n")
PATH = "src/main/kotlin/okhttp3/dnsoverhttps/"


def test_a_kotlin_nested_class_moved_to_the_top_of_its_package_is_not_left_behind(tmp_path):
    files = {PATH + "DnsMessageReader.kt": READER + NESTED + "}\n"}
    _removal_merged(tmp_path, files, {PATH + "DnsMessageReader.kt": READER + "}\n", PATH + "DnsMessage.kt": TOP})


def test_a_kotlin_nested_class_moved_to_the_top_of_another_package_is_left_behind(tmp_path):
    """Moved to another package the reader neither stands in nor imports: its bare uses are left."""
    files = {PATH + "DnsMessageReader.kt": READER + NESTED + "}\n"}
    other = TOP.replace("package okhttp3.dnsoverhttps", "package okhttp3.other")
    _, left = _removal_refused(tmp_path, files, "**", {PATH + "DnsMessageReader.kt": READER + "}\n",
                                                       PATH + "Other.kt": other})
    assert left and left[0].startswith(PATH + "DnsMessageReader.kt"), left


# -- Python: a pytest fixture removed or renamed in conftest.py, still asked for by name -------------

CONFTEST = ("import pytest\n\n\n@pytest.fixture\ndef no_trio_support(anyio_backend_name):\n"
            "    if anyio_backend_name == 'trio':\n        pytest.skip('no trio')\n\n\n"
            "@pytest.fixture\ndef client():\n    return object()\n")


@pytest.mark.parametrize("user, line", [
    # starlette ab70211f0e1f: the module's marker names it by a string
    ("import pytest\n\npytestmark = pytest.mark.usefixtures(\"no_trio_support\")\n\n\ndef test_db():\n    assert True\n", 3),
    ("import pytest\n\n\n@pytest.mark.usefixtures('no_trio_support')\ndef test_db():\n    assert True\n", 4),
    ("def test_db(request):\n    request.getfixturevalue(\"no_trio_support\")\n", 2),
    # the commoner request: a test's parameter, a test method's, another fixture's
    ("def test_db(no_trio_support, client):\n    assert client\n", 1),
    ("class TestDb:\n    def test_db(self, client, no_trio_support: None):\n        assert client\n", 2),
    ("import pytest\n\n\n@pytest.fixture\ndef db(no_trio_support):\n    return 1\n\n\ndef test_db(db):\n    assert db\n", 5),
], ids=["usefixtures-module", "usefixtures-decorator", "getfixturevalue", "parameter", "method-parameter",
        "fixture-parameter"])
def test_a_fixture_removed_from_conftest_and_still_asked_for_is_left_behind(tmp_path, user, line):
    files = {"tests/conftest.py": CONFTEST, "tests/sub/test_db.py": user}
    removed = CONFTEST.replace("@pytest.fixture\ndef no_trio_support", "def no_trio_support")
    _, left = _removal_refused(tmp_path, files, "tests/conftest.py", {"tests/conftest.py": removed})
    assert len(left) == 1 and left[0].startswith(f"tests/sub/test_db.py:{line} still uses no_trio_support"), left


@pytest.mark.parametrize("files", [
    # another conftest the test sees defines it (its own folder's)
    {"tests/sub/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef no_trio_support():\n    return None\n",
     "tests/sub/test_db.py": "def test_db(no_trio_support):\n    assert True\n"},
    # the test's own module defines it, or imports it
    {"tests/sub/test_db.py": "import pytest\n\n\n@pytest.fixture\ndef no_trio_support():\n    return None\n\n\n"
                             "def test_db(no_trio_support):\n    assert True\n"},
    {"tests/sub/test_db.py": "from tests.helpers import no_trio_support\n\n\ndef test_db(no_trio_support):\n    assert True\n",
     "tests/helpers.py": "import pytest\n\n\n@pytest.fixture\ndef no_trio_support():\n    return None\n"},
    # a parametrize supplies the parameter; a function that is no test asks for nothing
    {"tests/sub/test_db.py": "import pytest\n\n\n@pytest.mark.parametrize('no_trio_support', [1, 2])\n"
                             "def test_db(no_trio_support):\n    assert no_trio_support\n\n\n"
                             "def helper(no_trio_support):\n    return no_trio_support\n"},
    # a conftest outside the test's folders; plugins may bring any fixture
    {"other/test_db.py": "def test_db(no_trio_support):\n    assert True\n"},
    {"tests/sub/test_db.py": "pytest_plugins = ['tests.plugin']\n\n\ndef test_db(no_trio_support):\n    assert True\n"},
], ids=["nearer-conftest", "own-fixture", "imported-fixture", "parametrized-and-no-test", "other-folder", "plugins"])
def test_a_fixture_removed_from_conftest_blocks_no_request_something_else_answers(tmp_path, files):
    removed = CONFTEST.replace("@pytest.fixture\ndef no_trio_support", "def no_trio_support")
    _removal_merged(tmp_path, {"tests/conftest.py": CONFTEST} | files, {"tests/conftest.py": removed})


def test_a_fixture_renamed_by_its_decorators_name_is_not_left_behind(tmp_path):
    """`@pytest.fixture(name="client")` over a function renamed: the fixture's name stays."""
    renamed = CONFTEST.replace("@pytest.fixture\ndef client():", "@pytest.fixture(name=\"client\")\ndef make_client():")
    _removal_merged(tmp_path, {"tests/conftest.py": CONFTEST, "tests/test_a.py": "def test_a(client):\n    assert client\n"},
                    {"tests/conftest.py": renamed})


# -- JavaScript: trust-left16's three written-down misses ------------------------------------------

ROOT = ("function greet(name) {\n  return 'hi ' + name;\n}\n\nexport default greet;\nexport const version = 1;\n",
        "function greet(name) {\n  return 'hi ' + name;\n}\n\nexport const version = 1;\n")


def test_a_root_index_default_imported_from_three_folders_down_is_named(tmp_path):
    """`'../../..'` spells the root index from three folders down as `'..'` does from one."""
    files = {"package.json": '{"name": "tiny-pkg"}\n', "index.js": ROOT[0],
             "test/unit/deep/use.js": "import greet from '../../..';\n\nexport const v = greet('a');\n"}
    _, left = _removal_refused(tmp_path, files, "index.js", {"index.js": ROOT[1]})
    assert len(left) == 1 and left[0].startswith("test/unit/deep/use.js"), left


API = ("function api() { return 1 }\napi.run = () => 2;\n\nexport { api as default };\n",
       "function api() { return 1 }\napi.run = () => 2;\n\nexport { api };\n")
CALLABLE = ("module.exports = function (name) {\n  return name;\n};\n", "exports.greet = function (name) {\n  return name;\n};\n")


@pytest.mark.parametrize("module, importer", [
    # `export { api as default }` became `export { api }`: the module has no default export now
    (API, "import api from './m.js';\n\nexport const v = api.run();\n"),
    (API, "import api from './m.js';\n\nexport const v = api();\n"),
    # a require called where it stands, after the module stopped being a function
    (CALLABLE, "require('./m.js')('a');\n"),
    (CALLABLE, "const v = require('./m.js')('a');\n\nmodule.exports = v;\n"),
], ids=["export-as-default-member", "export-as-default-called", "require-called", "require-called-bound"])
def test_a_default_export_dropped_leaves_its_importer(tmp_path, module, importer):
    _, left = _removal_refused(tmp_path, {"m.js": module[0], "use.js": importer}, "m.js", {"m.js": module[1]})
    assert len(left) == 1 and left[0].startswith("use.js"), left


@pytest.mark.parametrize("module, importer", [
    (("function api() { return 1 }\n\nexport { api as default };\n",
      "function api() { return 1 }\n\nexport { api };\nexport default api;\n"),
     "import api from './m.js';\n\nexport const v = api();\n"),
    ((CALLABLE[0] + "module.exports.greet = module.exports;\n", CALLABLE[1]), "require('./m.js').greet('a');\n"),
], ids=["default-kept-by-another-line", "require-read-for-a-kept-member"])
def test_a_default_export_dropped_leaves_no_importer_of_what_stays(tmp_path, module, importer):
    _removal_merged(tmp_path, {"m.js": module[0], "use.js": importer}, {"m.js": module[1]})


@pytest.mark.parametrize("user, blocks", [
    ("def test_b(client):\n    assert client\n", True),
    ("import pytest\n\n\n@pytest.fixture\ndef client():\n    return 2\n\n\ndef test_b(client):\n    assert client\n", False),
], ids=["asks", "defines-its-own"])
def test_a_test_another_task_adds_asking_for_a_fixture_the_first_removed(tmp_path, user, blocks):
    """The merge's own check: the first task dropped `client` from conftest.py, the second adds a test asking for it."""
    removed = CONFTEST.replace("@pytest.fixture\ndef client", "def client")
    code, body = _second_finish(tmp_path, {"tests/conftest.py": CONFTEST, "tests/test_a.py": "def test_a():\n    assert True\n"},
                                ("a", "tests/conftest.py", {"tests/conftest.py": removed}),
                                ("b", "tests/test_b*", {"tests/test_b.py": user}))
    conflicts = [(c["path"], c["kind"]) for c in body.get("conflicts", [])]
    assert (code, conflicts) == ((1, [("tests/test_b.py", "semantic")]) if blocks else (0, [])), body
