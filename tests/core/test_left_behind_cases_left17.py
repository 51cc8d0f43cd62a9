"""Cases of the semantic check written down as missed or falsely blocked (trust-left16, trust-left17), each held here.

A removed or renamed name still used must block, naming every use; a change that leaves every use
loading must not. Each case: a real repository, a task's `task check` and `task finish`.
"""

from __future__ import annotations

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

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
