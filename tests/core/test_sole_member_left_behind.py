"""A Python method called on a receiver whose class the file does not say is a use of the tree's one
definition of it (merge/checks/sole_members.py), where the look read every file spelling the name.

Found driving `wtc fanout` on Textualize/rich: a task renamed `Text.with_indent_guides`, its check
said nothing, it merged, and the landed tree failed 26 of rich's tests: pretty.py called it on
`pretty_text` (bound twice, the second time from `self.highlighter(...)`), syntax.py on a chain's
result, tests/test_text.py on a local bound first to a string, benchmarks.py on `Text(...)` itself;
and Text has a base (JupyterMixin), so even `t = Text(); t.with_indent_guides()` was let go.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _drained, _removal_merged, _removal_refused, _second_finish

MIXIN = "class Mixin:\n    def _repr_mimebundle_(self):\n        return {}\n"
TEXT = ("from .jupyter import Mixin\n\n\nclass Text(Mixin):\n    def __init__(self, plain=''):\n        self.plain = plain\n\n"
        "    @classmethod\n    def from_ansi(cls, text):\n        return cls(text)\n\n"
        "    def with_indent_guides(self, size=4):\n        return self\n\n    def other(self):\n        return self\n")
RENAMED = TEXT.replace("def with_indent_guides", "def with_guides")


def _files(user: str, **more: str) -> dict[str, str]:
    files = {"rich/__init__.py": "", "rich/jupyter.py": MIXIN, "rich/text.py": TEXT, "rich/pretty.py": user}
    files.update({path.replace("__", "/") + ".py": text for path, text in more.items()})
    return files


@pytest.mark.parametrize("user, line", [
    # rich/pretty.py's shape: a local bound twice, the second time from another call
    ("from .text import Text\n\n\ndef render(self, s):\n    t = Text.from_ansi(s)\n    t = self.highlighter(t)\n"
     "    return t.with_indent_guides(2)\n", 7),
    # benchmarks.py's: the constructor's result
    ("from rich.text import Text\n\nA = Text('x').with_indent_guides()\n", 3),
    # a classmethod's result
    ("from .text import Text\n\n\ndef f(s):\n    return Text.from_ansi(s).with_indent_guides()\n", 5),
    # a parameter the file does not annotate
    ("from .text import Text\n\n\ndef f(text):\n    return text.with_indent_guides()\n", 5),
    # tests/test_text.py's: a local bound first to a string
    ("from rich.text import Text\n\n\ndef test_it():\n    text = 'a'\n    text = Text(text)\n"
     "    assert text.with_indent_guides() is text\n", 7),
    # a typed local of a class with a base of the tree (the base gives no such member)
    ("from .text import Text\n\n\ndef f():\n    t = Text()\n    return t.with_indent_guides()\n", 6),
], ids=["bound-twice", "constructor-result", "classmethod-result", "parameter", "string-then-text", "class-with-base"])
def test_a_member_of_the_one_class_defining_it_is_left_behind(tmp_path, user, line):
    _, left = _removal_refused(tmp_path, _files(user), "rich/text.py", {"rich/text.py": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"rich/pretty.py:{line} still uses Text.with_indent_guides"), left


def test_every_user_is_named_as_git_grep_finds_them(tmp_path):
    files = _files("from .text import Text\n\n\ndef f(t):\n    return t.with_indent_guides()\n",
                   rich__syntax="from rich.text import Text\n\n\ndef g(lines):\n    return (Text('\\n').join(lines)\n"
                                "            .with_indent_guides(4))\n",
                   tests__test_text="from rich.text import Text\n\n\ndef test_it():\n    assert Text('a').with_indent_guides()\n")
    files["tests/__init__.py"] = ""
    _, left = _removal_refused(tmp_path, files, "rich/text.py", {"rich/text.py": RENAMED})
    named = " ".join(left)
    assert "rich/pretty.py:5" in named and "rich/syntax.py:6" in named and "tests/test_text.py:5" in named, left


@pytest.mark.parametrize("files_more, user", [
    # another class of the tree defines it too: which one the call means is not known
    ({"rich/markup.py": "class Markup:\n    def with_indent_guides(self):\n        return self\n"},
     "from .text import Text\n\n\ndef f(t):\n    return t.with_indent_guides()\n"),
    # a name objects of Python's own types have (a list's `append`, a thread's `start`)
    ({}, "from .text import Text\n\n\ndef f(t):\n    return t.other() and t.start()\n"),
    # the file does not import the class's module
    ({}, "def f(t):\n    return t.with_indent_guides()\n"),
    # a module the file imports whole: its attribute
    ({"rich/guides.py": "X = 1\n"}, "from .text import Text\nimport json\n\n\ndef f():\n    return json.with_indent_guides()\n"),
    # an attribute some code assigns: a value, not only the class's method
    ({"rich/patch.py": "def patch(obj):\n    obj.with_indent_guides = lambda: obj\n"},
     "from .text import Text\n\n\ndef f(t):\n    return t.with_indent_guides()\n"),
], ids=["two-definers", "common-name", "no-import", "module-attribute", "assigned-attribute"])
def test_an_unsure_receiver_is_no_use(tmp_path, files_more, user):
    files = _files(user)
    files.update(files_more)
    renamed = RENAMED
    if "t.start()" in user:
        files["rich/text.py"] = TEXT.replace("def other(self)", "def start(self)")
        renamed = files["rich/text.py"].replace("def start(self)", "def begin(self)")
    _removal_merged(tmp_path, files, {"rich/text.py": renamed})


@pytest.mark.parametrize("text", [
    # a base outside the tree (a framework's class) may give the member back
    TEXT.replace("from .jupyter import Mixin", "from framework import Mixin"),
    # `__getattr__` answers any name
    TEXT.replace("    def other(self):", "    def __getattr__(self, name):\n        return self.other\n\n    def other(self):"),
], ids=["outside-base", "getattr"])
def test_a_class_that_may_answer_the_name_otherwise_is_no_use(tmp_path, text):
    files = _files("from .text import Text\n\n\ndef f():\n    t = Text()\n    return t.with_indent_guides()\n")
    files["rich/text.py"] = text
    _removal_merged(tmp_path, files, {"rich/text.py": text.replace("def with_indent_guides", "def with_guides")})


def test_a_member_moved_to_the_base_class_is_no_use(tmp_path):
    files = _files("from .text import Text\n\n\ndef f(t):\n    return t.with_indent_guides()\n")
    _removal_merged(tmp_path, files, {
        "rich/text.py": TEXT.replace("    def with_indent_guides(self, size=4):\n        return self\n\n", ""),
        "rich/jupyter.py": MIXIN + "\n    def with_indent_guides(self, size=4):\n        return self\n"})



def test_a_field_another_class_binds_makes_the_receiver_unsure(tmp_path):
    files = _files("from .text import Text\n\n\ndef f(t):\n    return t.with_indent_guides()\n")
    files["rich/markup.py"] = ("class Markup:\n    def __init__(self):\n        self.with_indent_guides = None\n")
    _removal_merged(tmp_path, files, {"rich/text.py": RENAMED})


# The one definer's reading at a merge's own check: task A renames the method, task B (cut from the same
# pin) adds a call on an untyped receiver; the files of the tree spelling the name are asked of the
# base's word index when such a use turns up (merge.tree._spelled_in), not read at every merge.
ADDED = "from .text import Text\n\n\ndef render(t):\n    return t.with_indent_guides(2)\n"


def test_a_use_another_task_adds_after_the_rename_blocks_its_merge(tmp_path):
    code, body = _second_finish(tmp_path, _files("from .text import Text\n"),
                                ("a", "rich/text.py", {"rich/text.py": RENAMED}), ("b", "rich/pretty.py", {"rich/pretty.py": ADDED}))
    assert code == 1 and body["state"] == "conflict", body
    assert [(c["path"], c["semantic"]["name"]) for c in body["conflicts"]] == [("rich/pretty.py", "Text.with_indent_guides")]


def test_a_drain_blocks_a_use_added_after_the_rename(tmp_path):
    code, tasks = _drained(tmp_path, _files("from .text import Text\n"), [
        ("a", "rich/text.py", {"rich/text.py": RENAMED}), ("b", "rich/pretty.py", {"rich/pretty.py": ADDED})])
    assert tasks["a"][0] == "merged" and tasks["b"] == ("conflict", [("semantic", "rich/pretty.py", "Text.with_indent_guides")]), tasks


@pytest.mark.parametrize("unchanged", [
    "class Markup:\n    def with_indent_guides(self):\n        return self\n",   # another class defines it
    "def patch(obj):\n    obj.with_indent_guides = lambda: obj\n",              # code assigns it
], ids=["another-definer", "assigned"])
def test_a_merge_reads_the_files_no_side_changed_before_the_one_definer(tmp_path, unchanged):
    files = _files("from .text import Text\n")
    files["rich/markup.py"] = unchanged
    code, body = _second_finish(tmp_path, files, ("a", "rich/text.py", {"rich/text.py": RENAMED}),
                                ("b", "rich/pretty.py", {"rich/pretty.py": ADDED}))
    assert (code, body["state"]) == (0, "merged"), body
