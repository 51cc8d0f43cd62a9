"""A Java class spelled with its package where no import names it (`com.x.util.Util.f(1)`) is a
use of its members, as after `import com.x.util.Util;`.

Probed after the click finding (a module read through its package's import was no use): the same
shape in Java, a fully qualified call in another package, passed `wtc check` while the rename left
it uncompiled. The Java profile's `qualified_names` (grammars/java.toml) makes the file read the
class's file (symbols.Symbols.spelled_modules); semantic.py's `targets` follows the call there.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

P = "src/main/java/com/x/"
UTIL = "package com.x.util;\n\npublic class Util {\n    public static int f(int a) { return a; }\n\n" \
       "    public static int g(int a) { return a; }\n}\n"
RENAMED = UTIL.replace("static int f(", "static int fx(")
OTHER = "package com.y;\n\npublic class Util {\n    public static int f(int a) { return a; }\n}\n"


def _app(body: str) -> str:
    return f"package com.x.app;\n\npublic class App {{\n    int h() {{\n        {body}\n    }}\n}}\n"


@pytest.mark.parametrize("body", ["return com.x.util.Util.f(1);", "int n = com.x.util.Util.f(2);\n        return n;"],
                         ids=["returned", "assigned"])
def test_a_member_renamed_while_called_by_its_qualified_class_is_left_behind(tmp_path, body):
    files = {P + "util/Util.java": UTIL, P + "app/App.java": _app(body)}
    _, left = _removal_refused(tmp_path, files, P + "util/Util.java", {P + "util/Util.java": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"{P}app/App.java:5 still uses Util.f"), left


@pytest.mark.parametrize("body", [
    "return com.x.util.Util.g(1);",                  # another member, still there
    "return com.y.Util.f(1);",                       # another class of the name, in another package
    "return java.util.Objects.hash(1);",             # a class of no file of the tree
    "// com.x.util.Util.f(1) was here\n        return 1;",
], ids=["other-member", "other-package", "library-class", "comment"])
def test_a_qualified_call_to_what_still_stands_is_not_left_behind(tmp_path, body):
    files = {P + "util/Util.java": UTIL, "src/main/java/com/y/Util.java": OTHER, P + "app/App.java": _app(body)}
    _removal_merged(tmp_path, files, {P + "util/Util.java": RENAMED})
