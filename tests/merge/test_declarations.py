"""merge.declarations: which declarations one version of a file changes against another, from the
language profiles (what the forecast shows as "who touches what")."""

from __future__ import annotations

from worktree_coord.merge.inventory.declarations import changed_declarations

PY = (b"import os\n\n\nclass Store:\n    def get(self, key):\n        return 1\n\n    def put(self, key):\n"
      b"        return 2\n\n\ndef helper():\n    return 3\n")


def test_a_method_edited_inside_a_class_names_the_method_only():
    edited = PY.replace(b"return 1", b"return 10")
    assert changed_declarations(PY, edited, "store.py") == ("class Store > def get",)


def test_the_class_header_and_a_method_both_changed_name_both():
    edited = PY.replace(b"class Store:", b"class Store(Base):").replace(b"return 2", b"return 20")
    assert changed_declarations(PY, edited, "store.py") == ("class Store", "class Store > def put")


def test_added_and_removed_declarations_are_named():
    added = PY + b"\n\ndef extra():\n    return 4\n"
    assert changed_declarations(PY, added, "store.py") == ("def extra",)
    assert changed_declarations(added, PY, "store.py") == ("def extra",)


def test_identical_inputs_change_nothing_and_whole_file_cases_are_the_empty_name():
    assert changed_declarations(PY, PY, "store.py") == ()
    assert changed_declarations(PY, None, "store.py") == ("",)                  # deleted
    assert changed_declarations(None, PY, "store.py") == ("",)                  # added
    assert changed_declarations(b"a\n", b"b\n", "notes.txt") == ("",)          # no profile
    assert changed_declarations(b"\x00bin", b"\x00bin2", "store.py") == ("",)  # binary
    assert changed_declarations(PY, b"def broken(:\n", "store.py") == ("",)    # does not parse



def test_a_declaration_added_or_removed_whole_is_named_without_its_members():
    assert changed_declarations(PY, PY.replace(b"import os", b"import sys"), "store.py") == ("import os", "import sys")
    no_class = PY.replace(PY[PY.index(b"class Store"):PY.index(b"def helper")], b"")
    assert changed_declarations(PY, no_class, "store.py") == ("class Store",)


def test_another_language_uses_its_own_profile():
    js = b"export function a() {\n  return 1;\n}\n\nexport function b() {\n  return 2;\n}\n"
    assert changed_declarations(js, js.replace(b"return 2", b"return 3"), "m.js") == ("export function b",)


def test_a_comment_just_above_a_member_is_that_members():
    """commander.js's lib/help.js: a task edited the JSDoc of Help.longestOptionTermLength and `task
    check` named `export class Help` (the comment is a sibling of the method, so it was the class's
    own text); a JSDoc, a `#` comment or a `//` line right above a member is that member's."""
    js = (b"export class Help {\n  /**\n   * Get the longest option term length.\n   */\n\n"
          b"  longestOption(cmd) {\n    return 1;\n  }\n\n  // the widest subcommand\n  longestSub(cmd) {\n"
          b"    return 2;\n  }\n}\n")
    assert changed_declarations(js, js.replace(b"term length.", b"term length, styled."), "help.js") == \
        ("export class Help > longestOption",)
    assert changed_declarations(js, js.replace(b"the widest", b"the widest styled"), "help.js") == \
        ("export class Help > longestSub",)
    py = PY.replace(b"    def put(self, key):", b"    # writes it\n    def put(self, key):")
    assert changed_declarations(py, py.replace(b"# writes it", b"# writes it through"), "store.py") == \
        ("class Store > def put",)
