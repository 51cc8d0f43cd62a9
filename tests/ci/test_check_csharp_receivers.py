"""C#: a member reached through what the receiver is, not only through a type spelled before it.

trust-left12's notes, each a rename that passed every face: a member called on an object just made
(`new Store().Get(2)`), through a `using X = Acme.Core.Store;` alias (`X.Make()`), an extension
method called through an instance (`s.Twice()` of `static int Twice(this Store s)`), a member of a
nested type (`Store.Inner.Deep()`, `Acme.Core.Store.Inner.Deep()`); and a local of spelled type
(`Store s = ...`, `var s = new Store()`, a parameter `Store s`) was not followed either. Never where
the name is still answered: an instance method hides an extension of its name, an extension moved
to another static class still answers it, an alias to another namespace's type is that type.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ci.ci_helpers import feature_branch as branch, left_behind_uses as uses
from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _drained, _second_finish, _task_edited

STORE = """namespace Acme.Core
{
    public class Store
    {
        public int Get(int k) { return k; }
        public static int Make() { return 1; }
        public class Inner
        {
            public static int Deep() { return 2; }
        }
    }

    public static class StoreExtensions
    {
        public static int Twice(this Store s) { return 2; }
    }
}
"""
OTHER = "namespace Acme.Other\n{\n    public class Store\n    {\n        public static int Make() { return 3; }\n    }\n}\n"


def _client(body: str, usings: str = "using Acme.Core;\n") -> str:
    """Client.cs of namespace Acme.Web, its `Send(Store p)` method's body `body`."""
    return (usings + "\nnamespace Acme.Web\n{\n    public class Client\n    {\n        public int Send(Store p)\n        {\n"
            f"            {body}\n        }}\n    }}\n}}\n")


@pytest.mark.parametrize("body, usings, old, new, name, line", [
    ("return new Store().Get(2);", "using Acme.Core;\n", "Get(int", "Fetch(int", "Store.Get", 9),
    ("Store s = null;\n            return s.Get(2);", "using Acme.Core;\n", "Get(int", "Fetch(int", "Store.Get", 10),
    ("var s = new Store();\n            return s.Get(2);", "using Acme.Core;\n", "Get(int", "Fetch(int", "Store.Get", 10),
    ("return p.Get(2);", "using Acme.Core;\n", "Get(int", "Fetch(int", "Store.Get", 9),
    ("return X.Make();", "using X = Acme.Core.Store;\n", "Make()", "Build()", "Store.Make", 9),
    ("var s = new Store();\n            return s.Twice();", "using Acme.Core;\n", "Twice(this", "Double(this", "StoreExtensions.Twice", 10),
    ("return Store.Inner.Deep();", "using Acme.Core;\n", "Deep()", "Deeper()", "Store.Inner.Deep", 9),
    ("return Acme.Core.Store.Inner.Deep();", "", "Deep()", "Deeper()", "Store.Inner.Deep", 8),
], ids=["new-object", "typed-local", "var-local", "parameter", "using-alias", "extension-method", "nested-type", "nested-type-qualified"])
def test_a_member_renamed_is_left_behind_where_the_receiver_says_its_type(
        tmp_path: Path, body: str, usings: str, old: str, new: str, name: str, line: int) -> None:
    repo = branch(tmp_path, {"src/Core/Store.cs": STORE, "src/Web/Client.cs": _client(body, usings)},
                  {"src/Core/Store.cs": STORE.replace(old, new)})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.cs", [line], name, "src/Core/Store.cs")], found


HIDDEN = STORE.replace("public int Get(int k)", "public int Twice() { return 4; }\n        public int Get(int k)")
TWICE = "var s = new Store();\n            return s.Twice();"


@pytest.mark.parametrize("before, after, body, usings", [
    (HIDDEN, HIDDEN.replace("Twice(this", "Double(this"), TWICE, "using Acme.Core;\n"),
    (STORE, STORE.replace("class StoreExtensions", "class MoreExtensions"), TWICE, "using Acme.Core;\n"),
    (STORE, STORE.replace("Make()", "Build()"), "return X.Make();", "using X = Acme.Other.Store;\n"),
    (STORE, STORE.replace("Get(int", "Fetch(int"), "return new Store().Clone().Get(1);", "using Acme.Core;\n"),
    (STORE, STORE.replace("Store", "Depot"), "return new Store().GetHashCode();",
     "using Acme.Core;\nusing Store = Acme.Other.Store;\n"),
], ids=["an-instance-method-hides-the-extension", "the-extension-moved-to-another-class", "an-alias-of-another-namespaces-type",
        "a-call-on-what-a-call-returns", "an-alias-hides-the-type-of-a-namespace-imported-whole"])
def test_a_member_the_receiver_still_answers_is_clean(tmp_path: Path, before: str, after: str, body: str, usings: str) -> None:
    repo = branch(tmp_path, {"src/Core/Store.cs": before, "src/Other/Store.cs": OTHER, "src/Web/Client.cs": _client(body, usings)},
                  {"src/Core/Store.cs": after})
    assert uses(repo) == (0, [])


def test_task_check_the_queue_and_a_drain_block_a_call_on_a_new_object(tmp_path: Path) -> None:
    client = _client("return new Store().Get(2);")
    renamed = {"src/Core/Store.cs": STORE.replace("Get(int", "Fetch(int")}
    repo = _task_edited(tmp_path / "check", {"src/Core/Store.cs": STORE, "src/Web/Client.cs": client},
                        "rn", ("src/Core/**",), renamed, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and [(r["use_path"], r["name"]) for r in body["left_behind"]] == [("src/Web/Client.cs", "Store.Get")], body
    code, body = _second_finish(tmp_path / "queue", {"src/Core/Store.cs": STORE, "src/Web/Client.cs": _client("return 0;")},
                                ("rn", "src/Core/**", renamed), ("use", "src/Web/**", {"src/Web/Client.cs": client}))
    assert (code, body["state"]) == (1, "conflict"), body
    code, states = _drained(tmp_path / "drain", {"src/Core/Store.cs": STORE, "src/Web/Other.cs": "class O { }\n"}, [
        ("rn", "src/Core/**", renamed), ("other", "src/Web/Other.cs", {"src/Web/Other.cs": "class O { int x; }\n"}),
        ("use", "src/Web/Client.cs", {"src/Web/Client.cs": client})])
    assert code == 1 and states["use"] == ("conflict", [("semantic", "src/Web/Client.cs", "Store.Get")]), states
