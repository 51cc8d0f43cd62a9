"""C#'s names are reached by namespace: a branch removing or renaming one that another file still
uses fails `wtc check`, naming every use.

C# had no semantic profile: a task renaming a public method used by files of another namespace
passed `wtc task check` and `wtc check` (names_unread said "NOT CHECKED ... csharp"), and the tree no
longer compiled. Now every C# file is one compilation (merge/checks/linked.py, a package of C#'s
own), and a definition is seen by a use inside its namespace, in a file that imports it (`using
N;`, `global using N;`), or that spells it (`N.T`): merge/checks/namespaces.py. What must not
block: a member a partial class's other part still defines; an overload removed while another
remains; a type of the same name in another namespace the user imports; an extension method's
call (its receiver is a parameter); a call passing fewer arguments than a method with optional
parameters takes.
"""

from __future__ import annotations

from pathlib import Path

from tests.ci.ci_helpers import feature_branch as branch, left_behind_uses as uses, rename_through_the_faces
from tests.conftest import make_repo, write, wtc_in_process


def check(repo: Path) -> dict:
    return wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")


SERIALIZER = """using System;

namespace Acme.Core
{
    public class Serializer
    {
        public static string Serialize(object value) { return value.ToString(); }
        public string Format(int indent) { return new string(' ', indent); }
        public int Depth { get; set; }
    }
}
"""
CLIENT = """using System;
using Acme.Core;

namespace Acme.Web
{
    public class Client
    {
        public string Send(object body)
        {
            var s = new Serializer();
            s.Depth = 2;
            return Serializer.Serialize(body);
        }
    }
}
"""


def test_a_public_method_renamed_is_left_behind_in_another_namespaces_file(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"src/Core/Serializer.cs": SERIALIZER, "src/Web/Client.cs": CLIENT},
                  {"src/Core/Serializer.cs": SERIALIZER.replace("Serialize(object", "ToJson(object")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.cs", [12], "Serializer.Serialize", "src/Core/Serializer.cs")], found
    _, body = check(repo)
    assert body["names_unread"] == {}, "C# is read now: no caveat"
    assert body["left_behind"][0]["replacement"] == "Serializer.ToJson"


def test_a_class_removed_is_left_behind_where_it_is_newed(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"src/Core/Serializer.cs": SERIALIZER, "src/Web/Client.cs": CLIENT},
                  {"src/Core/Serializer.cs": SERIALIZER.replace("class Serializer", "class JsonSerializer")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.cs", [10, 12], "Serializer", "src/Core/Serializer.cs")], found


def test_a_property_renamed_is_left_behind_in_the_same_namespaces_file(tmp_path: Path) -> None:
    """`Depth` renamed; a file of namespace Acme.Core (no `using`) reads it through `Serializer.Default`."""
    holder = SERIALIZER.replace("        public int Depth { get; set; }\n",
                                "        public int Depth { get; set; }\n        public static int MaxDepth { get; set; }\n")
    reader = ("namespace Acme.Core\n{\n    static class Limits\n    {\n"
              "        public static int Get() { return Serializer.MaxDepth; }\n    }\n}\n")
    repo = branch(tmp_path, {"src/Core/Serializer.cs": holder, "src/Core/Limits.cs": reader},
                  {"src/Core/Serializer.cs": holder.replace("MaxDepth", "DepthLimit")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Core/Limits.cs", [5], "Serializer.MaxDepth", "src/Core/Serializer.cs")], found


COLOR = "namespace Acme.Drawing\n{\n    public enum Color { Red, Green = 2, Blue }\n}\n"
PAINTER = ("using Acme.Drawing;\n\nnamespace Acme.App\n{\n    class Painter\n    {\n"
           "        Color Pick(bool warm) => warm ? Color.Red : Color.Blue;\n    }\n}\n")


def test_an_enum_member_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"Drawing/Color.cs": COLOR, "App/Painter.cs": PAINTER},
                  {"Drawing/Color.cs": COLOR.replace("Red", "Crimson")})
    code, found = uses(repo)
    assert code == 1 and found == [("App/Painter.cs", [7], "Color.Red", "Drawing/Color.cs")], found


def test_a_type_of_another_namespace_the_user_imports_is_not_the_removed_one(tmp_path: Path) -> None:
    """The repository's own `Acme.Util.Timer` removed; a file importing `System.Threading` (not
    Acme.Util) means System's Timer; one spelling `Acme.Util.Timer` means the removed one (and the
    namespace Acme.Util, gone with its only file)."""
    timer = "namespace Acme.Util\n{\n    public class Timer { public void Start() { } }\n}\n"
    system = ("using System.Threading;\n\nnamespace Acme.App\n{\n    class Clock\n    {\n"
              "        Timer t = new Timer(null);\n    }\n}\n")
    spelled = "namespace Acme.App\n{\n    class Watch\n    {\n        object t = new Acme.Util.Timer();\n    }\n}\n"
    repo = branch(tmp_path, {"Util/Timer.cs": timer, "App/Clock.cs": system, "App/Watch.cs": spelled},
                  {}, deleted=("Util/Timer.cs",))
    code, found = uses(repo)
    assert code == 1 and found == [("App/Watch.cs", [5], "Timer", "Util/Timer.cs"),
                                   ("App/Watch.cs", [5], "Util", "Util/Timer.cs")], found


def test_a_class_renamed_while_another_namespace_defines_its_name_is_left_behind_where_its_namespace_is_seen(
        tmp_path: Path) -> None:
    """Acme.Core's Serializer renamed while the repository's Acme.Legacy still defines a Serializer:
    a file importing Acme.Core means the renamed one; a file importing Acme.Legacy, or aliasing
    Serializer to Acme.Legacy's beside `using Acme.Core;` (an alias hides a type of a namespace imported
    whole), means the other. The other namespace's class answered every use before (any file of the
    compilation defining the name did), as PHP's and Kotlin's do not (semantic.same_namespace)."""
    legacy = ("namespace Acme.Legacy\n{\n    public class Serializer\n    {\n"
              "        public static string Serialize(object value) { return \"\"; }\n    }\n}\n")
    user = ("{}\nnamespace Acme.{}\n{{\n    public class User\n    {{\n        public string Send(object body)"
            " {{ return new Serializer().ToString() + Serializer.Serialize(body); }}\n    }}\n}}\n")
    repo = branch(tmp_path, {"src/Core/Serializer.cs": SERIALIZER, "src/Legacy/Serializer.cs": legacy,
                             "src/Web/Client.cs": CLIENT, "src/Old/User.cs": user.format("using Acme.Legacy;\n", "Old"),
                             "src/Web/Aliased.cs": user.format("using Acme.Core;\nusing Serializer = Acme.Legacy.Serializer;\n", "Web")},
                  {"src/Core/Serializer.cs": SERIALIZER.replace("class Serializer", "class JsonSerializer")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.cs", [10, 12], "Serializer", "src/Core/Serializer.cs")], found


def test_a_namespace_renamed_is_left_behind_where_a_using_names_it(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"Drawing/Color.cs": COLOR, "App/Painter.cs": PAINTER},
                  {"Drawing/Color.cs": COLOR.replace("Acme.Drawing", "Acme.Graphics")})
    code, found = uses(repo)
    assert code == 1 and ("App/Painter.cs", [1], "Drawing", "Drawing/Color.cs") in found, found


PARTIAL_A = ("namespace Acme.Core\n{\n    public partial class Store\n    {\n"
             "        public void Put(string key) { }\n        public int Count() { return 0; }\n    }\n}\n")
PARTIAL_B = "namespace Acme.Core\n{\n    public partial class Store\n    {\n    }\n}\n"
STORE_USER = ("using Acme.Core;\n\nnamespace Acme.App\n{\n    static class Use\n    {\n"
              "        public static void Run() { var s = new Store(); s.Put(\"k\"); Store.Equals(s, s); }\n"
              "        public static int Count(Store s) { return s.Count(); }\n    }\n}\n")


def test_a_partial_class_member_moved_to_the_other_part_is_not_removed(tmp_path: Path) -> None:
    moved = PARTIAL_B.replace("    {\n    }\n", "    {\n        public void Put(string key) { }\n    }\n")
    repo = branch(tmp_path, {"Core/Store.cs": PARTIAL_A, "Core/Store.Put.cs": PARTIAL_B, "App/Use.cs": STORE_USER},
                  {"Core/Store.cs": PARTIAL_A.replace("        public void Put(string key) { }\n", ""),
                   "Core/Store.Put.cs": moved})
    assert uses(repo) == (0, [])


OVERLOADS = ("namespace Acme.Core\n{\n    public static class Text\n    {\n"
             "        public static string Pad(string s) { return s; }\n"
             "        public static string Pad(string s, int width) { return s.PadLeft(width); }\n    }\n}\n")
OVERLOAD_USER = ("using Acme.Core;\n\nnamespace Acme.App\n{\n    static class Show\n    {\n"
                 "        public static string One() { return Text.Pad(\"a\", 3); }\n    }\n}\n")


def test_an_overload_removed_while_another_remains_is_not_a_block(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"Core/Text.cs": OVERLOADS, "App/Show.cs": OVERLOAD_USER},
                  {"Core/Text.cs": OVERLOADS.replace("        public static string Pad(string s) { return s; }\n", "")})
    assert uses(repo) == (0, [])


SIGNED = ("namespace Acme.Core\n{\n    public static class Text\n    {\n"
          "        public static string Quote(string s) { return s; }\n"
          "        public static string Wrap(string s, int width = 80) { return s; }\n"
          "        public static string Join(this string s, string other) { return s + other; }\n"
          "        public static string Many(params string[] parts) { return string.Concat(parts); }\n    }\n}\n")
SIGNED_USER = ("using Acme.Core;\n\nnamespace Acme.App\n{\n    static class Show\n    {\n"
               "        public static string One() { return Text.Quote(\"a\") + Text.Wrap(\"b\") + \"c\".Join(\"d\")"
               " + Text.Many(\"e\", \"f\") + Text.Wrap(width: 3, s: \"g\"); }\n    }\n}\n")


def test_a_method_given_a_required_parameter_is_left_behind_where_calls_pass_the_old_count(tmp_path: Path) -> None:
    """`Quote(s)` now takes `(s, mark)`: the call passing one argument is named. Not: `Wrap` given
    an optional parameter, an extension method's call, a `params` array, named arguments."""
    changed = (SIGNED.replace("Quote(string s)", "Quote(string s, char mark)")
               .replace("Wrap(string s, int width = 80)", "Wrap(string s, int width = 80, bool trim = false)")
               .replace("Join(this string s, string other)", "Join(this string s, string other, string sep = \"\")")
               .replace("Many(params string[] parts)", "Many(string first, params string[] parts)"))
    repo = branch(tmp_path, {"Core/Text.cs": SIGNED, "App/Show.cs": SIGNED_USER}, {"Core/Text.cs": changed})
    code, body = check(repo)
    found = sorted((u["use_path"], u["use_lines"], u["name"], u["signature"], u["arguments"]) for u in body["left_behind"])
    assert code == 1 and found == [("App/Show.cs", [7], "Text.Quote", True, 1)], found


def test_task_check_finish_and_merge_block_a_csharp_rename_left_behind_and_a_call_added_meanwhile(tmp_path: Path) -> None:
    """The lead's faces: `task check` of a task renaming a method still called in another namespace's
    file says it would be refused, its finish does not merge; a task renaming a method nobody calls
    merges, and a second task's new call of the old name is a semantic conflict at its merge; `wtc
    merge` (the queue after `finish --no-merge`) holds one back the same way."""
    serializer = SERIALIZER.replace("        public int Depth", "        public static void Reset() { }\n        public int Depth")
    rename_through_the_faces(
        tmp_path, {"src/Core/Serializer.cs": serializer, "src/Web/Client.cs": CLIENT}, "src/Core/**",
        {"src/Core/Serializer.cs": serializer.replace("Serialize(object", "ToJson(object")},
        {"src/Core/Serializer.cs": serializer.replace("Reset()", "Clear()")}, "src/Web/**",
        {"src/Web/Client.cs": CLIENT.replace("            s.Depth = 2;\n", "            s.Depth = 2;\n            Serializer.Reset();\n")},
        "Serializer.Reset", "src/Web/Client.cs")


SPLIT = """using System;

namespace Acme.Linq
{
    public partial class Token : IEquatable<Token>
#if HAVE_ICLONEABLE
        , ICloneable
#endif
    {
#pragma warning disable 618
        public static Token Parse(string text) { return new Token(); }
#pragma warning restore 618
        public bool Equals(Token other)
        {
#if NET6_0
            return other is Token;
#else
            return other != null;
#endif
        }
    }
}
"""


def test_a_name_of_a_file_whose_preprocessor_splits_a_class_header_is_read(tmp_path: Path) -> None:
    """Newtonsoft.Json's JToken: `#if` splitting a base list, `#pragma` between members and an
    `#if`/`#else` in a body left tree-sitter-c-sharp's parse with ERROR nodes, and the file's names
    unread; the check reads it as one build's code (profile `[semantic] parse_masks`)."""
    user = "using Acme.Linq;\n\nnamespace Acme.App\n{\n    class Reader\n    {\n        object Read(string s) => new Token();\n    }\n}\n"
    repo = branch(tmp_path, {"Linq/Token.cs": SPLIT, "App/Reader.cs": user},
                  {"Linq/Token.cs": SPLIT.replace("Token", "JToken")})
    code, found = uses(repo)
    assert code == 1 and found == [("App/Reader.cs", [7], "Token", "Linq/Token.cs")], found


def test_a_file_deleted_from_a_namespace_other_files_declare_removes_no_namespace(tmp_path: Path, monkeypatch) -> None:
    """Newtonsoft.Json 03f7c0b8 deleted Issues/Issue1517.cs: its namespace's parts (`Newtonsoft`,
    `Json`, `Tests`, `Issues`) read as removed, 898 files mention them (their own declarations), the
    look read its 400 and gave no answer. Every other file still declares the namespace: nothing is
    gone, and the look reads no file for it (here at most 2 are read)."""
    from worktree_coord.check import uses_left_behind
    monkeypatch.setattr(uses_left_behind, "MAX_MENTIONING", 2)
    issue = "namespace Acme.Tests.Issues\n{\n    public class Issue%d { public void Test() { } }\n}\n"
    files = {f"Tests/Issues/Issue{n}.cs": issue % n for n in range(1, 6)}
    files["Tests/Run.cs"] = "using Acme.Tests.Issues;\n\nnamespace Acme.Tests\n{\n    class Run { object o = new Issue2(); }\n}\n"
    repo = branch(tmp_path, files, {}, deleted=("Tests/Issues/Issue1.cs",))
    assert uses(repo) == (0, [])


def test_a_file_deleted_from_a_namespace_while_another_task_adds_a_using_of_it_merges(tmp_path: Path) -> None:
    """One task deletes a file of namespace Acme.Tests.Issues (others still declare it); another adds
    a file importing the namespace: both merge (the namespace was never gone)."""
    issue = "namespace Acme.Tests.Issues\n{\n    public class Issue%d { public void Test() { } }\n}\n"
    repo = make_repo(tmp_path / "repo", {f"Tests/Issues/Issue{n}.cs": issue % n for n in range(1, 4)})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, deleter = wtc_in_process(repo, "task", "start", "drop", "--run", "r", "--own", "Tests/Issues/**")
    (Path(deleter["worktree"]) / "Tests/Issues/Issue1.cs").unlink()
    code, user = wtc_in_process(repo, "task", "start", "user", "--run", "r", "--own", "Tests/Run.cs")
    write(Path(user["worktree"]), {"Tests/Run.cs": "using Acme.Tests.Issues;\n\nnamespace Acme.Tests\n{\n"
                                                  "    class Run { object o = new Issue2(); }\n}\n"})
    code, finished = wtc_in_process(repo, "task", "finish", "drop", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    code, finished = wtc_in_process(repo, "task", "finish", "user", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished


def test_a_member_removed_from_a_partial_class_whose_base_list_is_in_another_part_is_not_a_block(tmp_path: Path) -> None:
    """Store.cs declares `partial class Store : StoreBase`; Store.Flush.cs (no base list) drops its
    override of `Flush`, which Store.Write.cs (no base list either) calls: the base's now, which the
    check cannot see from those parts (another part, maybe unread, may declare the bases)."""
    head = "namespace Acme.Core\n{\n    public partial class Store : StoreBase\n    {\n    }\n}\n"
    part = "namespace Acme.Core\n{\n    public partial class Store\n    {\n%s    }\n}\n"
    flush = part % "        public override void Flush() { }\n"
    repo = branch(tmp_path, {"Core/Store.cs": head, "Core/Store.Flush.cs": flush,
                             "Core/Store.Write.cs": part % "        public void Write() { Flush(); }\n"},
                  {"Core/Store.Flush.cs": part % ""})
    assert uses(repo) == (0, [])


def test_a_receiver_a_part_of_the_users_class_defines_as_a_property_is_not_the_renamed_class(tmp_path: Path) -> None:
    """Newtonsoft.Json 2d5eba55 renamed the class PropertyNameTable (namespace Newtonsoft.Json.Utilities,
    moved to Newtonsoft.Json as DefaultJsonNameTable); JsonTextReader.Async.cs's
    `PropertyNameTable.Get(...)` reads JsonTextReader's property of that name, which its other part
    JsonTextReader.cs defines: no use of the class."""
    table = ("namespace Acme.Utilities\n{\n    internal class PropertyNameTable\n    {\n"
             "        public string Get(char[] key) { return null; }\n    }\n}\n")
    reader = ("using Acme.Utilities;\n\nnamespace Acme\n{\n    public partial class TextReader\n    {\n"
              "        public NameTable PropertyNameTable { get; set; }\n    }\n}\n")
    async_part = ("using Acme.Utilities;\n\nnamespace Acme\n{\n    public partial class TextReader\n    {\n"
                  "        string Read(char[] key) { return PropertyNameTable.Get(key); }\n    }\n}\n")
    repo = branch(tmp_path, {"Utilities/PropertyNameTable.cs": table, "Utilities/Other.cs": "namespace Acme.Utilities { }\n",
                             "TextReader.cs": reader, "TextReader.Async.cs": async_part},
                  {"DefaultNameTable.cs": table.replace("Acme.Utilities", "Acme").replace("PropertyNameTable", "DefaultNameTable")},
                  deleted=("Utilities/PropertyNameTable.cs",))
    assert uses(repo) == (0, [])


def test_a_polyfill_inside_an_if_block_removed_is_not_a_block(tmp_path: Path) -> None:
    """Newtonsoft.Json 609a02aa deleted its own ConcurrentDictionary, defined under `#if
    !HAVE_CONCURRENT_DICTIONARY` for old frameworks; a test importing System.Collections.Concurrent
    and the polyfill's namespace means System's in every build that still compiles it out."""
    polyfill = ("#if !HAVE_CONCURRENT_DICTIONARY\nnamespace Acme.Serialization\n{\n"
                "    internal sealed class ConcurrentDictionary<TKey, TValue> { }\n}\n#endif\n")
    user = ("using System.Collections.Concurrent;\nusing Acme.Serialization;\n\nnamespace Acme.Tests\n{\n"
            "    class Cache { object d = new ConcurrentDictionary<string, int>(); }\n}\n")
    repo = branch(tmp_path, {"Utilities/ConcurrentDictionary.cs": polyfill, "Serialization/Store.cs":
                             "namespace Acme.Serialization { class Store { } }\n", "Tests/Cache.cs": user},
                  {}, deleted=("Utilities/ConcurrentDictionary.cs",))
    assert uses(repo) == (0, [])


def test_a_parameter_named_like_a_removed_member_of_its_type_is_no_use_of_it(tmp_path: Path) -> None:
    """`Use(Store store)`: `store` is the parameter, not the field `Store.store` the branch removed
    (read as `Store` then `store`, the name looked like that member reached through its type)."""
    store = "namespace Acme.Core\n{\n    public class Store\n    {\n        public static int store;\n    }\n}\n"
    user = "namespace Acme.Core\n{\n    class User\n    {\n        int Use(Store store) { return store.GetHashCode(); }\n    }\n}\n"
    repo = branch(tmp_path, {"Core/Store.cs": store, "Core/User.cs": user},
                  {"Core/Store.cs": store.replace("        public static int store;\n", "")})
    assert uses(repo) == (0, [])


def test_a_method_renamed_is_left_behind_in_its_own_file(tmp_path: Path) -> None:
    """`Bar()` still calls `C.Foo()` in the file that renamed Foo (a class with no base and no other
    part: no other file can define its members)."""
    source = ("namespace Acme\n{\n    public class C\n    {\n        public static void Foo() { }\n"
              "        public static void Bar() { C.Foo(); }\n    }\n}\n")
    repo = branch(tmp_path, {"C.cs": source}, {"C.cs": source.replace("void Foo()", "void Baz()")})
    code, found = uses(repo)
    assert code == 1 and found == [("C.cs", [6], "C.Foo", "C.cs")], found
