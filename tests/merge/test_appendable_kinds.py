"""Which files are appended-to lists or catalogs (grammars/append/kinds.toml), how they are cut into
entries, and what a wrong kinds file says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.errors import ConfigError
from worktree_coord.merge import merge_file
from worktree_coord.merge.appended.appendable import kind_for_path, load_kinds, may_overlap
from worktree_coord.merge.appended.entries import TRAILER, cut


@pytest.mark.parametrize(("path", "name"), [
    (".gitignore", "ignore-list"), ("web/.dockerignore", "ignore-list"), (".github/CODEOWNERS", "codeowners"),
    (".gitattributes", "gitattributes"), ("dev-requirements.txt", "requirements-list"),
    ("requirements/test-requirements.in", "requirements-list"), ("AUTHORS", "name-list"),
    ("locale/de/LC_MESSAGES/django.po", "gettext"), ("po/messages.POT", "gettext"),
    ("src/main/resources/messages_de.properties", "properties"),
    ("README.md", None), ("gitignore.py", None), ("notes.txt", None),
])
def test_kind_for_path(path: str, name: str | None) -> None:
    kind = kind_for_path(path)
    assert (kind.name if kind else None) == name


def test_a_wrong_kinds_file_names_the_problem_and_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"kinds\[0\] has unknown keys \['sorted'\]"):
        load_kinds('[[kinds]]\nname = "x"\nformat = "lines"\nsorted = true\n', "kinds.toml")
    with pytest.raises(ConfigError, match="needs a name, a format in") as raised:
        load_kinds('[[kinds]]\nname = "x"\nformat = "csv"\n', "kinds.toml")
    assert "grammars/append/kinds.toml" in (raised.value.fix or "")
    with pytest.raises(ConfigError, match=r"skip_guards names unknown guards \['generatd'\]"):
        load_kinds('[[kinds]]\nname = "x"\nformat = "lines"\nskip_guards = ["generatd"]\n', "kinds.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_kinds("[[kinds]\n", "kinds.toml")


def test_entries_carry_their_comments_and_keys() -> None:
    entries = cut(b"# tools\nblack==24.1\nflake8  # lint\n\n-r base.txt\n# end\n", "lines", key="requirement")
    assert [(e.key, e.text, e.lead) for e in entries] == [
        ("black", b"# tools\nblack==24.1\n", True), ("flake8", b"flake8  # lint\n", False),
        ("-r base.txt", b"\n-r base.txt\n", True), (TRAILER, b"# end\n", True)]
    props = cut(b"a = 1\nb: two \\\n  lines\nc\\=d=3\n! note\n", "properties")
    assert [e.key for e in props] == ["a", "b", "c\\=d", TRAILER]
    po = cut(b'msgid ""\nmsgstr ""\n\nmsgctxt "m"\nmsgid ""\n"Open"\nmsgstr "Auf"\n\n#~ msgid "Old"\n#~ msgstr "Alt"\n', "po")
    assert [e.key for e in po] == ["", "m\x04Open", "#~ Old"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='ab=:#!\\ "\n\tmsgid', max_size=80), st.sampled_from(["lines", "po", "properties"]))
def test_entries_concatenate_back_to_the_file(text: str, format: str) -> None:
    data = text.encode()
    assert b"".join(entry.text for entry in cut(data, format)) == data


def test_path_patterns_that_may_match_one_path() -> None:
    assert may_overlap("/docs/", "/docs/api/")
    assert may_overlap("*.js", "/src/")               # a leading wildcard may match anything
    assert may_overlap("api/", "/src/api/x")           # unanchored: any depth
    assert not may_overlap("/docs/", "/tools/")
    assert not may_overlap("/src/web/", "/src/api/")


def test_inputs_with_markers_or_not_utf8_keep_the_line_merge_and_say_why() -> None:
    base = b"a\nb\n"
    marked = merge_file(base, base + b"<<<<<<< x\n", base + b"c\n", ".gitignore")
    assert not marked.clean and marked.notes[0].startswith("the `ours` version holds conflict markers (lines of 7")
    latin = merge_file(b"# \xe9\na\n", b"# \xe9\na\nb\n", b"# \xe9\na\nc\n", "AUTHORS")
    assert not latin.clean and "not UTF-8" in latin.notes[0]


def test_properties_in_iso_8859_1_merge_and_their_conflicts_keep_the_line_merge() -> None:
    base = b"# \xc4nderungen\ngreeting=Gr\xfc\xdfe\n"
    both = merge_file(base, base + b"a=\xe4\n", base + b"b=\xf6\n", "messages_de.properties")
    assert both.clean and both.merged == base + b"a=\xe4\nb=\xf6\n"
    clash = merge_file(base, base + b"a=\xe4\n", base + b"a=\xf6\n", "messages_de.properties")
    assert not clash.clean and clash.notes[0].startswith("wtc's entry-by-entry merge of this properties file left "
                                                         "conflicts, and the file is not UTF-8 text to write them in")
