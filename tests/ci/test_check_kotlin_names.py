"""Kotlin's names are reached by package: a branch removing or renaming one that another file still
uses fails `wtc check`, `wtc task check`, `wtc task finish` and `wtc merge`, naming every use.

Kotlin had no semantic profile: a task renaming a top-level function called from another package
passed every face (names_unread said "NOT CHECKED ... kotlin"), and the tree no longer compiled.
Now every Kotlin file is one compilation (merge/checks/linked.py, a package of Kotlin's own), and a
definition of package `p` is seen by a use in a file of `p` (no import), in a file importing it by
name or by `import p.*`, or spelling it (`p.Store()`): merge/checks/namespaces.py, with packages
that do not nest (grammars/kotlin.toml `namespaces_nest = false`). What must not block: an overload
removed while another remains; a name of the same spelling in another package, which the user
imports by name or whose package it stands in; a `private` top-level function of another file; a
name written inside a part of a file the parser cannot read.
"""

from __future__ import annotations

from pathlib import Path

from tests.ci.ci_helpers import feature_branch as branch, left_behind_uses as uses
from tests.conftest import make_repo, write, wtc_in_process

CORE = "src/main/kotlin/com/acme/core"
WEB = "src/main/kotlin/com/acme/web"

SERIALIZER = """package com.acme.core

class Serializer(val indent: Int) {
    fun format(value: Any): String = value.toString().padStart(indent)

    companion object {
        fun create(): Serializer = Serializer(2)
    }
}

enum class Color { RED, GREEN }

fun serialize(value: Any): String = value.toString()

fun serialize(value: Any, indent: Int): String = value.toString().padStart(indent)

fun String.quoted(): String = "\\"" + this + "\\""

val DEFAULT_INDENT = 2
"""
# Another package, importing by name.
CLIENT = """package com.acme.web

import com.acme.core.Color
import com.acme.core.Serializer
import com.acme.core.quoted
import com.acme.core.serialize

class Client {
    fun send(body: Any, serializer: Serializer): String {
        val color = Color.RED
        return serialize(body).quoted() + serializer.format(color)
    }

    fun fresh(): Serializer = Serializer.create()
}
"""
# Another package, importing by `*`.
STAR = """package com.acme.web

import com.acme.core.*

fun starred(): String = serialize(DEFAULT_INDENT) + Serializer(1).format(0)
"""
# The same package, no import.
LOCAL = """package com.acme.core

fun local(): String = serialize(1) + DEFAULT_INDENT
"""
FILES = {f"{CORE}/Serializer.kt": SERIALIZER, f"{WEB}/Client.kt": CLIENT, f"{WEB}/Star.kt": STAR,
         f"{CORE}/Local.kt": LOCAL}


def renamed(old: str, new: str) -> dict[str, str]:
    return {f"{CORE}/Serializer.kt": SERIALIZER.replace(old, new)}


def test_a_function_renamed_is_left_behind_where_imported_by_name_by_star_and_in_its_package(tmp_path: Path) -> None:
    repo = branch(tmp_path, FILES, renamed("fun serialize(", "fun toJson("))
    code, found = uses(repo)
    assert code == 1 and found == [(f"{CORE}/Local.kt", [3], "serialize", f"{CORE}/Serializer.kt"),
                                   (f"{WEB}/Client.kt", [6, 11], "serialize", f"{CORE}/Serializer.kt"),
                                   (f"{WEB}/Star.kt", [5], "serialize", f"{CORE}/Serializer.kt")], found
    _, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    assert body["names_unread"] == {}, "Kotlin is read now: no caveat"
    assert {u["replacement"] for u in body["left_behind"]} == {"toJson"}


def test_an_overload_removed_while_another_remains_is_not_a_block(tmp_path: Path) -> None:
    one = SERIALIZER.replace("fun serialize(value: Any, indent: Int): String = value.toString().padStart(indent)\n\n", "")
    repo = branch(tmp_path, FILES, {f"{CORE}/Serializer.kt": one})
    assert uses(repo) == (0, [])


def test_an_enum_entry_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, FILES, renamed("RED", "CRIMSON"))
    assert uses(repo) == (1, [(f"{WEB}/Client.kt", [10], "Color.RED", f"{CORE}/Serializer.kt")])


def test_a_class_removed_is_left_behind_where_it_is_constructed_and_imported(tmp_path: Path) -> None:
    repo = branch(tmp_path, FILES, renamed("class Serializer(", "class JsonSerializer("))
    code, found = uses(repo)
    assert code == 1 and found == [(f"{WEB}/Client.kt", [4, 9, 14], "Serializer", f"{CORE}/Serializer.kt"),
                                   (f"{WEB}/Star.kt", [5], "Serializer", f"{CORE}/Serializer.kt")], found


def test_an_extension_function_renamed_is_left_behind_at_its_import_and_its_call(tmp_path: Path) -> None:
    """`serialize(body).quoted()`: a receiver of a type the check does not know, and no class of
    the package with a member `quoted`: the extension's call."""
    repo = branch(tmp_path, FILES, renamed("String.quoted()", "String.inQuotes()"))
    assert uses(repo) == (1, [(f"{WEB}/Client.kt", [5, 11], "quoted", f"{CORE}/Serializer.kt")])


def test_a_member_of_the_same_name_as_an_extension_renamed_answers_the_call(tmp_path: Path) -> None:
    """A class of the package has a member `quoted`: `text.quoted()` may call that one (a member
    wins over an extension), and only the import names the extension for sure."""
    holder = "package com.acme.web\n\nclass Text(val s: String) {\n    fun quoted(): String = s\n}\n"
    repo = branch(tmp_path, {**FILES, f"{WEB}/Text.kt": holder}, renamed("String.quoted()", "String.inQuotes()"))
    assert uses(repo) == (1, [(f"{WEB}/Client.kt", [5], "quoted", f"{CORE}/Serializer.kt")])


def test_a_property_renamed_is_left_behind(tmp_path: Path) -> None:
    """A top-level property read in its package and through a star import."""
    repo = branch(tmp_path, FILES, renamed("DEFAULT_INDENT", "INDENT"))
    code, found = uses(repo)
    assert code == 1 and found == [(f"{CORE}/Local.kt", [3], "DEFAULT_INDENT", f"{CORE}/Serializer.kt"),
                                   (f"{WEB}/Star.kt", [5], "DEFAULT_INDENT", f"{CORE}/Serializer.kt")], found


def test_a_member_renamed_is_left_behind_where_the_receivers_type_is_spelled(tmp_path: Path) -> None:
    """`format` renamed: Client's parameter `serializer: Serializer` spells its type."""
    repo = branch(tmp_path, FILES, renamed("fun format(", "fun render("))
    assert uses(repo) == (1, [(f"{WEB}/Client.kt", [11], "Serializer.format", f"{CORE}/Serializer.kt")])


def test_a_companion_object_member_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, FILES, renamed("fun create()", "fun make()"))
    assert uses(repo) == (1, [(f"{WEB}/Client.kt", [14], "Serializer.create", f"{CORE}/Serializer.kt")])


def test_a_companion_object_member_renamed_is_left_behind_through_an_import_alias(tmp_path: Path) -> None:
    """`import com.acme.core.Serializer as Ser`, then `Ser.create()`: the alias heads the receiver and
    is spelled out (namespaces.unaliased, as C#'s `using X = N.T;`); it was read as a class `Ser`."""
    aliased = "package com.acme.web\n\nimport com.acme.core.Serializer as Ser\n\nfun aliased(): String = Ser.create().format(1)\n"
    repo = branch(tmp_path, {**FILES, f"{WEB}/Aliased.kt": aliased}, renamed("fun create()", "fun make()"))
    code, found = uses(repo)
    assert code == 1 and found == [(f"{WEB}/Aliased.kt", [5], "Serializer.create", f"{CORE}/Serializer.kt"),
                                   (f"{WEB}/Client.kt", [14], "Serializer.create", f"{CORE}/Serializer.kt")], found


def test_a_name_of_another_package_is_not_the_removed_one(tmp_path: Path) -> None:
    """`serialize` renamed in com.acme.core: a file of com.acme.core importing com.acme.other's
    `serialize` by name means that one (an explicit import hides its own package's); a file of
    com.acme.core.sub calling a bare `serialize` sees none of com.acme.core's (packages do not nest);
    a file of com.acme.web whose own package defines one means its own."""
    other = "package com.acme.other\n\nfun serialize(x: Int): String = x.toString()\n"
    shadow = "package com.acme.core\n\nimport com.acme.other.serialize\n\nfun shadowed() = serialize(3)\n"
    sub = "package com.acme.core.sub\n\nfun sub() = serialize(3)\n"
    own = "package com.acme.web\n\nfun serialize(x: Int): String = x.toString()\n\nfun mine() = serialize(4)\n"
    repo = branch(tmp_path, {f"{CORE}/Serializer.kt": SERIALIZER, "src/main/kotlin/com/acme/other/Other.kt": other,
                             f"{CORE}/Shadow.kt": shadow, f"{CORE}/sub/Sub.kt": sub, f"{WEB}/Own.kt": own},
                  renamed("fun serialize(", "fun toJson("))
    assert uses(repo) == (0, [])


def test_a_private_top_level_function_is_its_files_alone(tmp_path: Path) -> None:
    helper = "package com.acme.core\n\nprivate fun pad(s: String) = s.padStart(2)\n\nfun padded() = pad(\"a\")\n"
    user = "package com.acme.core\n\nprivate fun pad(s: String) = s.padEnd(2)\n\nfun other() = pad(\"b\")\n"
    repo = branch(tmp_path, {f"{CORE}/Helper.kt": helper, f"{CORE}/User.kt": user},
                  {f"{CORE}/Helper.kt": helper.replace("pad(", "padLeft(")})
    assert uses(repo) == (0, [])


# okhttp's Settings.kt (okhttp 1682d9ba): a property named `set` before `operator fun set(` is read by
# tree-sitter-kotlin as the property's setter, and the rest of the file as one ERROR node.
SETTINGS = """package com.acme.core

fun serialize(value: Any): String = value.toString()

class Settings {
  private var bits: Int = 0

  operator fun set(
    id: Int,
    value: Int,
  ): Settings {
    if (id < 0 || id >= values.size) {
      return this // Discard unknown settings.
    }

    val bit = 1 shl id
    bits = bits or bit
    values[id] = value
    return this
  }

  companion object {
    const val COUNT = 10
  }
}
"""


def test_a_name_written_inside_a_part_the_parser_cannot_read_is_never_removed(tmp_path: Path) -> None:
    """The branch renames `bits` to `set` (its version's class is an ERROR node now) and `serialize`
    (outside it) to `toJson`: `Settings.COUNT`, inside the ERROR, is not taken as removed; the
    function outside it is still read, and its rename left behind."""
    user = ("package com.acme.web\n\nimport com.acme.core.Settings\nimport com.acme.core.serialize\n\n"
            "fun limit(): String = serialize(Settings.COUNT)\n")
    after = SETTINGS.replace("var bits:", "var set:").replace("bits = bits or bit", "set = set or bit") \
        .replace("fun serialize(", "fun toJson(")
    repo = branch(tmp_path, {f"{CORE}/Settings.kt": SETTINGS, f"{WEB}/Limit.kt": user}, {f"{CORE}/Settings.kt": after})
    assert uses(repo) == (1, [(f"{WEB}/Limit.kt", [4, 6], "serialize", f"{CORE}/Settings.kt")])


def test_task_check_finish_and_merge_block_a_kotlin_rename_left_behind_and_a_call_added_meanwhile(tmp_path: Path) -> None:
    """The lead's faces: `task check` of a task renaming a function still called in its package and
    from another package says it would be refused, its finish does not merge; a task renaming a
    companion member nobody calls merges, and a second task's new call of the old name is a
    semantic conflict at its finish's merge."""
    holder = SERIALIZER.replace("        fun create()", "        fun reset() {}\n\n        fun create()")
    repo = make_repo(tmp_path / "repo", {**FILES, f"{CORE}/Serializer.kt": holder})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "rename", "--run", "r", "--own", f"{CORE}/Serializer.kt")
    assert code == 0, started
    write(Path(started["worktree"]), {f"{CORE}/Serializer.kt": holder.replace("fun serialize(", "fun toJson(")})
    code, checked = wtc_in_process(repo, "task", "check", "rename", "--run", "r")
    assert code == 1 and checked["left_behind_blocks"], checked
    assert sorted((u["use_path"], u["name"]) for u in checked["left_behind"] if "use_path" in u) == \
        [(f"{CORE}/Local.kt", "serialize"), (f"{WEB}/Client.kt", "serialize"), (f"{WEB}/Star.kt", "serialize")]
    code, finished = wtc_in_process(repo, "task", "finish", "rename", "--run", "r")
    assert code == 1 and finished["state"] != "merged", finished

    code, drop = wtc_in_process(repo, "task", "start", "drop", "--run", "r", "--own", f"{CORE}/Serializer.kt")
    write(Path(drop["worktree"]), {f"{CORE}/Serializer.kt": holder.replace("fun reset()", "fun clear()")})
    code, user = wtc_in_process(repo, "task", "start", "user", "--run", "r", "--own", f"{WEB}/Star.kt")
    write(Path(user["worktree"]), {f"{WEB}/Star.kt": STAR + "\nfun again() = Serializer.reset()\n"})
    code, finished = wtc_in_process(repo, "task", "finish", "drop", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    code, finished = wtc_in_process(repo, "task", "finish", "user", "--run", "r")
    assert code == 1 and finished["state"] == "conflict", finished
    [conflict] = finished["conflicts"]
    assert conflict["semantic"]["name"] == "Serializer.reset" and conflict["semantic"]["use_path"] == f"{WEB}/Star.kt", conflict


def test_wtc_merge_holds_back_a_call_of_a_function_another_task_renamed(tmp_path: Path) -> None:
    """`wtc merge` (the queue after `finish --no-merge`): a task renaming the top-level `quoted`
    (nobody calls it but through Client, which it owns too) merges; a task finished meanwhile with
    a new `"x".quoted()` under `import com.acme.core.*` is held back."""
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, drop = wtc_in_process(repo, "task", "start", "drop", "--run", "r", "--own", f"{CORE}/**",
                                "--own", f"{WEB}/Client.kt")
    write(Path(drop["worktree"]), {**renamed("String.quoted()", "String.inQuotes()"),
                                   f"{WEB}/Client.kt": CLIENT.replace("quoted", "inQuotes")})
    code, user = wtc_in_process(repo, "task", "start", "user", "--run", "r", "--own", f"{WEB}/Star.kt")
    write(Path(user["worktree"]), {f"{WEB}/Star.kt": STAR + "\nfun loud(): String = \"x\".quoted()\n"})
    for task in ("drop", "user"):
        code, finished = wtc_in_process(repo, "task", "finish", task, "--run", "r", "--no-merge")
        assert code == 0, finished
    code, merged = wtc_in_process(repo, "merge", "--run", "r")
    assert code == 1, merged
    conflicts = [c for task in merged["tasks"] for c in task.get("conflicts", [])] if "tasks" in merged else merged["conflicts"]
    assert [(c["semantic"]["name"], c["semantic"]["use_path"]) for c in conflicts] == [("quoted", f"{WEB}/Star.kt")], conflicts


UTIL_JAVA = "package com.acme.util;\n\npublic final class Util {\n  public static int twice(int x) { return 2 * x; }\n}\n"
UTIL_KT = "package com.acme.util\n\nobject Util {\n  @JvmStatic fun twice(x: Int): Int = 2 * x\n}\n"
JAVA_USERS = {
    "src/main/java/com/acme/app/App.java": ("package com.acme.app;\n\nimport com.acme.util.Util;\n\n"
                                            "public class App {\n  public int run() { return Util.twice(2); }\n}\n"),
    "src/main/java/com/acme/util/Same.java": ("package com.acme.util;\n\n"
                                              "public class Same {\n  public int run() { return Util.twice(3); }\n}\n"),
}


def test_a_java_class_converted_to_kotlin_in_its_package_is_not_removed(tmp_path: Path) -> None:
    """okhttp's `Convert X to Kotlin` commits: Util.java deleted, Util.kt added, same package (in
    src/main/kotlin). The Java files importing it, or using it bare in its package, still compile;
    they were said to use a class deleted with its file."""
    repo = branch(tmp_path, {"src/main/java/com/acme/util/Util.java": UTIL_JAVA, **JAVA_USERS},
                  {"src/main/kotlin/com/acme/util/Util.kt": UTIL_KT}, deleted=("src/main/java/com/acme/util/Util.java",))
    assert uses(repo) == (0, [])


def test_a_kotlin_member_renamed_is_left_behind_in_a_java_file_importing_its_class(tmp_path: Path) -> None:
    """Java and Kotlin in one repository: `import com.acme.util.Util;` names Util.kt (profile java
    `specifier_files`, `source_folders`), and `Util.twice(2)` its member, which the branch renamed."""
    repo = branch(tmp_path, {"src/main/kotlin/com/acme/util/Util.kt": UTIL_KT, **JAVA_USERS},
                  {"src/main/kotlin/com/acme/util/Util.kt": UTIL_KT.replace("fun twice", "fun doubled")})
    assert uses(repo) == (1, [("src/main/java/com/acme/app/App.java", [6], "Util.twice", "src/main/kotlin/com/acme/util/Util.kt")])


def test_a_function_moved_to_a_file_the_branch_adds_in_its_package_is_not_removed(tmp_path: Path, monkeypatch) -> None:
    """okhttp ab055862: `toCanonicalHost` moved from hostnames.kt to the added -HostnamesJvm.kt (same
    package), among 299 names removed of which the look greps 64: the new file spells none of those
    and was not read, and every use of the moved function was said left behind. The task's own
    files of the package stand in the look's merge. (MAX_NAMES made 1: `alpha` alone is grepped.)"""
    from worktree_coord.check import left_behind

    monkeypatch.setattr(left_behind, "MAX_NAMES", 1)
    hosts = "package com.acme.net\n\nfun alpha(): Int = 1\n\nfun String.canonical(): String = lowercase()\n"
    user = ("package com.acme.web\n\nimport com.acme.net.canonical\n\n"
            "// not alpha\nfun host(s: String): String = s.canonical()\n")
    repo = branch(tmp_path, {"src/net/hostnames.kt": hosts, "src/web/User.kt": user},
                  {"src/net/HostsJvm.kt": "package com.acme.net\n\nfun String.canonical(): String = lowercase()\n"},
                  deleted=("src/net/hostnames.kt",))
    assert uses(repo) == (0, [])


def test_files_moved_whole_to_another_source_folder_remove_no_name(tmp_path: Path, monkeypatch) -> None:
    """okhttp 3ad1912f: 246 Kotlin files moved from src/main/kotlin to src/jvmMain/kotlin, their
    packages the same; the look read the moved files' names as removed, and the uses of those whose
    new file it did not reach (past its count of files) as left behind. A Kotlin file moved whole
    removes no name (the files read made 1: the user, and one of the two moved files as the task's)."""
    from worktree_coord.check import left_behind, uses_left_behind

    monkeypatch.setattr(left_behind, "MAX_FILES", 1)
    monkeypatch.setattr(uses_left_behind, "MAX_MENTIONING", 1)
    first = "package com.acme.ws\n\nobject Protocol {\n  const val CLOSE = 1000\n}\n"
    second = "package com.acme.ws\n\nclass Extensions(val deflate: Boolean)\n"
    user = ("package com.acme.server\n\nimport com.acme.ws.Extensions\nimport com.acme.ws.Protocol\n\n"
            "fun close(e: Extensions): Int = if (e.deflate) Protocol.CLOSE else 0\n")
    repo = branch(tmp_path, {"src/main/kotlin/ws/Protocol.kt": first, "src/main/kotlin/ws/Extensions.kt": second,
                             "server/Server.kt": user},
                  {"src/jvmMain/kotlin/ws/Protocol.kt": first, "src/jvmMain/kotlin/ws/Extensions.kt": second},
                  deleted=("src/main/kotlin/ws/Protocol.kt", "src/main/kotlin/ws/Extensions.kt"))
    assert uses(repo) == (0, [])


def test_a_java_class_converted_to_kotlin_in_another_module_is_not_removed(tmp_path: Path) -> None:
    """okhttp c1a6dec5: okhttp/src/test/java/okhttp3/DelegatingSSLSocket.java converted to
    okhttp-testing-support/src/main/kotlin/okhttp3/DelegatingSSLSocket.kt (a module the tests depend
    on, in no folder above them); `import okhttp3.DelegatingSSLSocket;` was said to name a file deleted."""
    holder = "package okhttp3;\n\npublic class DelegatingSocket {\n  public int port() { return 1; }\n}\n"
    user = ("package okhttp3.internal;\n\nimport okhttp3.DelegatingSocket;\n\n"
            "public class Recorder {\n  int port(DelegatingSocket s) { return s.port(); }\n}\n")
    converted = "package okhttp3\n\nopen class DelegatingSocket {\n  open fun port(): Int = 1\n}\n"
    repo = branch(tmp_path, {"okhttp/src/test/java/okhttp3/DelegatingSocket.java": holder,
                             "okhttp/src/test/java/okhttp3/internal/Recorder.java": user},
                  {"testing-support/src/main/kotlin/okhttp3/DelegatingSocket.kt": converted},
                  deleted=("okhttp/src/test/java/okhttp3/DelegatingSocket.java",))
    assert uses(repo) == (0, [])
