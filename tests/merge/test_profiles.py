"""Language profiles load from the installed package and are validated against their grammars."""

from __future__ import annotations

from pathlib import Path

import pytest

from worktree_coord.errors import ConfigError
from worktree_coord.merge.languages.profiles import load_profile_text, load_profiles, profile_for_path

GOOD = """
name = "mini"
grammar = "tree_sitter_python"
extensions = ["mini"]
comments = ["comment"]

[[containers]]
kind = "module"

[declarations]
function_definition = "def {name}"
"""


def test_every_shipped_profile_loads() -> None:
    names = {profile.name for profile in load_profiles()}
    assert names == {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "json", "toml", "yaml",
                     "c", "cpp", "csharp", "ruby", "bash", "kotlin", "php", "css", "hcl", "markdown", "swift", "scala", "lua", "elixir", "haskell", "html", "xml"}


@pytest.mark.parametrize("path, language", [
    ("a/b.py", "python"), ("x.pyi", "python"), ("c.tsx", "tsx"), ("c.ts", "typescript"), ("c.mjs", "javascript"),
    ("main.go", "go"), ("lib.rs", "rust"), ("A.java", "java"), ("package.json", "json"), ("Cargo.toml", "toml"),
    (".github/workflows/ci.yml", "yaml"), ("src/main.c", "c"), ("include/geom.h", "c"), ("a.cc", "cpp"), ("b.hpp", "cpp"), ("src/App/Line.cs", "csharp"), ("lib/shop.rb", "ruby"), ("Gemfile", "ruby"), ("scripts/build.sh", "bash"), ("app/Main.kt", "kotlin"), ("Sources/App/Line.swift", "swift"), ("src/main/scala/Line.scala", "scala"), ("build.sbt", "scala"), ("kong/plugins/acl/handler.lua", "lua"), ("lib/shop/line.ex", "elixir"), ("test/line_test.exs", "elixir"), ("src/Shop/Line.hs", "haskell"), ("_layouts/default.html", "html"), ("pom.xml", "xml"), ("src/App/App.csproj", "xml"), ("build.gradle.kts", "kotlin"), ("src/Line.php", "php"), ("web/site.css", "css"), ("infra/main.tf", "hcl"), ("prod.tfvars", "hcl"), ("CHANGELOG.md", "markdown"), ("notes.txt", None), ("Cargo.lock", None),
])
def test_profile_for_path(path: str, language: str | None) -> None:
    profile = profile_for_path(path)
    assert (profile.name if profile else None) == language


def test_a_valid_profile_loads() -> None:
    profile = load_profile_text(GOOD, "mini.toml")
    assert profile.declaration_keys == {"function_definition": "def {name}"}


@pytest.mark.parametrize("broken, message", [
    (GOOD.replace('kind = "module"', 'kind = "modul"'), "unknown node kind 'modul'"),
    (GOOD.replace('function_definition = ', 'function_definitio = '), "unknown node kind 'function_definitio'"),
    (GOOD.replace('"def {name}"', '"def {nme}"'), "names 'nme'"),
    (GOOD.replace('comments = ["comment"]', 'comments = ["coment"]'), "unknown node kind 'coment'"),
    (GOOD.replace('kind = "module"', 'kind = "module"\nordered = true'), "unknown container option"),
    ('whatever = 1\n' + GOOD, "unknown setting"),
    (GOOD.replace('grammar = "tree_sitter_python"', 'grammar = "tree_sitter_cobol"'), "not installed"),
    ("name = ", "not valid TOML"),
    (GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nanchored = ["if_statment"]'), "unknown node kind 'if_statment' in anchored"),
    (GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nparse_masks = ["^(API) "]'), "has no group named mask"),
    (GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nparse_masks = ["^(?P<mask>API"]'), "does not compile"),
    (GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nparse_masks = "API"'), "must be a list of regexes"),
])
def test_invalid_profiles_are_config_errors(broken: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_profile_text(broken, "mini.toml")
    assert message in raised.value.message


def test_anchored_kinds_and_top_level_containers_load() -> None:
    text = GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nanchored = ["if_statement"]') + \
        '\n[[containers]]\nkind = "block"\nparent = "if_statement"\ntop_level = true\n'
    profile = load_profile_text(text.replace("[declarations]\n", "[declarations]\nif_statement = \"if {condition}\"\n"), "mini.toml")
    assert profile.anchored == frozenset({"if_statement"})
    rule = next(rule for rule in profile.containers if rule.kind == "block")
    assert rule.top_level and rule.parent == "if_statement"


def test_a_top_level_container_rule_matches_only_at_the_top() -> None:
    import tree_sitter

    python = profile_for_path("m.py")
    assert python is not None
    source = b"if A:\n    x = 1\n\n\ndef f():\n    if B:\n        y = 2\n"
    root = tree_sitter.Parser(python.language).parse(source).root_node
    blocks = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "block" and node.parent is not None and node.parent.type == "if_statement":
            blocks.append(node)
        stack.extend(node.children)
    top = [node for node in blocks if node.parent.parent.type == "module"]
    nested = [node for node in blocks if node.parent.parent.type != "module"]
    assert len(top) == 1 and len(nested) == 1
    assert python.container_rule(top[0]) is not None
    assert python.container_rule(nested[0]) is None


def test_repeatable_kinds_load_and_typos_are_errors() -> None:
    text = GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nrepeatable = ["expression_statement"]')
    assert load_profile_text(text, "mini.toml").repeatable == frozenset({"expression_statement"})
    with pytest.raises(ConfigError):
        load_profile_text(text.replace('"expression_statement"]', '"expression_statment"]'), "mini.toml")


def test_order_sensitive_and_variant_markers_come_from_the_grammar_files() -> None:
    python, rust, go = (profile_for_path(name) for name in ("a.py", "a.rs", "a.go"))
    assert python is not None and python.order_sensitive and not python.variant_markers
    assert rust is not None and rust.variant_markers == ("#[cfg",) and not rust.order_sensitive
    assert go is not None and not go.order_sensitive


def test_lazy_annotations_come_from_the_python_profile() -> None:
    python, go = profile_for_path("a.py"), profile_for_path("a.go")
    assert python is not None and go is not None
    assert python.annotations_run("m.py", b"import os\n")
    assert not python.annotations_run("m.pyi", b"import os\n"), "a stub never runs its annotations"
    assert not python.annotations_run("m.py", b'"""Doc."""\nfrom __future__ import annotations\n')
    assert python.annotations_run("m.py", b"# from __future__ import annotations\n")
    assert go.annotations_run("m.go", b"package m\n")


def test_lazy_annotations_settings_are_checked() -> None:
    good = GOOD.replace('comments = ["comment"]', "comments = [\"comment\"]\nlazy_annotations = { extensions = [\"pyi\"] }")
    assert load_profile_text(good, "mini.toml").lazy_annotation_extensions == ("pyi",)
    with pytest.raises(ConfigError, match="lazy_annotations"):
        load_profile_text(good.replace("{ extensions =", "{ extension ="), "mini.toml")
    with pytest.raises(ConfigError, match="not a regex"):
        load_profile_text(good.replace('extensions = ["pyi"]', 'marker = "("'), "mini.toml")


def test_a_section_opener_is_profile_data_and_checked() -> None:
    markdown, python = profile_for_path("a.md"), profile_for_path("a.py")
    assert markdown is not None and markdown.section_opener is not None and python is not None
    assert markdown.section_opener.match("## Added") and markdown.section_opener.match("====")
    assert not markdown.section_opener.match("text under it") and python.section_opener is None
    good = GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nsection_opener = "^#"')
    assert load_profile_text(good, "mini.toml").section_opener.pattern == "^#"
    with pytest.raises(ConfigError, match="section_opener is not a regex"):
        load_profile_text(good.replace('"^#"', '"("'), "mini.toml")


def test_every_shipped_semantic_query_compiles() -> None:
    from worktree_coord.merge.checks.symbols import hidden_query, query_for

    enabled = [profile for profile in load_profiles() if profile.semantic.enabled]
    assert {p.name for p in enabled} == {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp",
                                         "csharp", "php", "kotlin"}
    for profile in enabled:
        assert query_for(profile).pattern_count > 0
        if profile.semantic.hidden_names:
            assert hidden_query(profile).capture_name(0) == "name"
        if profile.semantic.namespaces:
            from worktree_coord.merge.checks.namespaces import namespaces_query
            assert namespaces_query(profile).pattern_count > 0


@pytest.mark.parametrize("section, message", [
    ('[semantic]\ntags = ["tree_sitter_python"]\nself_receiver = ["self"]\n', "unknown [semantic] setting"),
    ('[semantic]\npackage = "folder"\n', "semantic.package must be"),
    ('[semantic]\nscopes = { impl_block = "type" }\n', "unknown node kind 'impl_block' in semantic.scopes"),
    ('[semantic]\nglobals = "print"\n', "semantic.globals must be a list of strings"),
    ('[semantic]\ntags = ["tree-sitter-python"]\n', "not a module"),
    ('[semantic]\nmanifest = "setup.py"\n', "semantic.manifest must be"),
    ('[semantic]\nmanifest = "go.mod"\nroot_module = "^module (\\\\S+)"\nmodule_replaces = "^replace (\\\\S+)"\n',
     "semantic.module_replaces needs two groups"),
    ('[semantic]\nmanifest = "go.mod"\nroot_module = "^module (\\\\S+)"\nworkspace = "go.work"\n',
     "semantic.workspace and semantic.workspace_modules go together"),
    ('[semantic]\nworkspace = "go.work"\nworkspace_modules = "^use (\\\\S+)"\n',
     "semantic.workspace and semantic.workspace_modules go together"),
])
def test_invalid_semantic_sections_are_config_errors(section: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_profile_text(GOOD + section, "mini.toml")
    assert message in raised.value.message


def test_a_semantic_query_that_does_not_compile_is_a_config_error_on_first_use() -> None:
    from worktree_coord.merge.checks.symbols import extract

    profile = load_profile_text(GOOD + "[semantic]\nquery = '(function_definitio name: (identifier) @name) @definition.function'\n",
                                "mini.toml")
    with pytest.raises(ConfigError) as raised:
        extract(profile, b"def f(): pass\n")
    assert "semantic query does not compile" in raised.value.message


def test_a_wheel_without_a_tags_query_is_a_config_error() -> None:
    from worktree_coord.merge.checks.symbols import extract

    profile = load_profile_text(GOOD.replace("mini", "mini2") + '[semantic]\ntags = ["tree_sitter_json"]\n', "mini2.toml")
    with pytest.raises(ConfigError) as raised:
        extract(profile, b"def f(): pass\n")
    assert "ships no queries/tags.scm" in raised.value.message


def test_the_start_up_index_reads_the_same_files_as_a_full_parse() -> None:
    """profile_for_path reads only each profile's head (start-up cost); it must agree with the
    whole file for every shipped profile, and fall back to the whole file when the files are named
    below a table."""
    from worktree_coord.merge.languages import profiles

    for name, text in profiles._shipped():
        whole = profiles._toml(text, name)
        head = profiles._head(text, name)
        assert (head.get("extensions"), head.get("filenames")) == (whole.get("extensions"), whole.get("filenames")), name
    late = 'name = "late"\n[[containers]]\nkind = "module"\n'
    assert profiles._head(late + '[x]\nextensions = ["no"]\n', "late.toml") == profiles._toml(late + '[x]\nextensions = ["no"]\n', "late.toml")


def test_a_plus_step_keys_by_every_child_of_a_kind() -> None:
    """`{+string_lit}` joins every label of an HCL block: `resource "a" "x"` and `resource "a" "y"`
    are two keys, not one."""
    import tree_sitter

    from worktree_coord.merge.syntax.members import declaration_key

    hcl = profile_for_path("main.tf")
    assert hcl is not None
    source = b'resource "a" "x" {\n}\n\nresource "a" "y" {\n}\n\nlocals {\n}\n'
    body = tree_sitter.Parser(hcl.language).parse(source).root_node.named_children[0]
    assert [declaration_key(source, block, hcl) for block in body.named_children] == \
        ['resource "a","x"', 'resource "a","y"', "locals"]


def test_a_text_guard_keys_only_the_calls_it_names() -> None:
    """`{target=def,defp}` resolves only when the target's text is one of the words: Elixir's
    `def` calls are declarations, its `plug` calls stay positional statements."""
    import tree_sitter

    from worktree_coord.merge.syntax.members import declaration_key

    elixir = profile_for_path("lib/m.ex")
    assert elixir is not None
    source = b"def f(x), do: x\ndefp g(x) when x > 0, do: x\nplug :auth\nalias A.B\n"
    root = tree_sitter.Parser(elixir.language).parse(source).root_node
    assert [declaration_key(source, call, elixir) for call in root.named_children] == \
        ["def f", "defp g", None, "alias A.B"]
    text = GOOD.replace('"def {name}"', '"{name=main,run} entry"')
    profile = load_profile_text(text, "mini.toml")
    source = b"def main():\n    pass\n\ndef other():\n    pass\n"
    functions = tree_sitter.Parser(profile.language).parse(source).root_node.named_children
    assert [declaration_key(source, node, profile) for node in functions] == ["main entry", None]
    with pytest.raises(ConfigError, match="names 'nme'"):
        load_profile_text(GOOD.replace('"def {name}"', '"{nme=main}"'), "mini.toml")


def test_a_parent_key_with_a_star_matches_every_key_with_that_prefix() -> None:
    """Elixir: the body of any `defmodule X` is a container, the body of a `def` is not."""
    import tree_sitter

    from worktree_coord.merge.syntax.members import declaration_key

    elixir = profile_for_path("lib/m.ex")
    assert elixir is not None
    source = b"defmodule A.B do\n  def f(x) do\n    x\n  end\nend\n"
    module = tree_sitter.Parser(elixir.language).parse(source).root_node.named_children[0]
    key_of = lambda node: declaration_key(source, node, elixir)  # noqa: E731
    (body,) = [child for child in module.named_children if child.type == "do_block"]
    (function,) = body.named_children
    (function_body,) = [child for child in function.named_children if child.type == "do_block"]
    assert elixir.container_rule(body, key_of) is not None
    assert elixir.container_rule(function_body, key_of) is None


def test_underscore_captures_in_binds_serve_predicates_only() -> None:
    """`@_def` filters the `binds` query (a `def` call binds its function's name) and is never
    itself a bound name; any other unknown capture is still an error."""
    import tree_sitter

    from worktree_coord.merge.syntax.names import bound_names

    elixir = profile_for_path("lib/m.ex")
    assert elixir is not None
    source = b"def f(x), do: g(x)\nplug :auth\n"
    root = tree_sitter.Parser(elixir.language).parse(source).root_node
    assert [dict(bound_names(elixir, source, call)) for call in root.named_children] == [{"f": 1}, {}]
    with pytest.raises(ConfigError, match="binds captures"):
        load_profile_text(GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\n'
                                       "binds = '(function_definition name: (identifier) @fn)'"), "mini.toml")
    helper = "binds = '((function_definition name: (identifier) @name @_n) (#eq? @_n \"main\"))'"
    assert load_profile_text(GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\n' + helper),
                             "mini.toml").binds_query is not None


def test_a_header_is_cpp_when_a_version_holds_cpp_and_c_otherwise() -> None:
    """cpp.toml claims `.h` files whose content has a namespace, a class, a template, an access
    label, `using` or `std::` (any of the merge's versions: all merge with one grammar)."""
    c_header = b"#ifndef LINE_H\n#define LINE_H\nstruct line { int quantity; };\nint total(struct line *);\n#endif\n"
    assert profile_for_path("include/line.h").name == "c"  # type: ignore[union-attr]
    assert profile_for_path("include/line.h", c_header, c_header).name == "c"  # type: ignore[union-attr]
    assert profile_for_path("include/line.h", c_header, b"namespace shop {\n}\n").name == "cpp"  # type: ignore[union-attr]
    for cpp in (b"template <typename T>\nT f(T);\n", b"class Line {\n};\n", b"  public:\n", b"using Price = double;\n",
                b"std::string name();\n"):
        assert profile_for_path("line.h", cpp).name == "cpp", cpp  # type: ignore[union-attr]
    assert profile_for_path("line.c", b"namespace shop {\n}\n").name == "c"  # type: ignore[union-attr]
    # A comment or a C identifier that only looks like a keyword is still C.
    assert profile_for_path("line.h", b"/* the class of a line */\nint class_of(int);\n").name == "c"  # type: ignore[union-attr]


@pytest.mark.parametrize("claims", ['claims = { extensions = "h", marker = "x" }', 'claims = { extensions = ["h"] }',
                                    'claims = { extensions = ["h"], marker = "(" }'])
def test_invalid_claims_are_config_errors(claims: str) -> None:
    with pytest.raises(ConfigError, match="claims"):
        load_profile_text(GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\n' + claims), "mini.toml")


def test_parse_aliases_let_rust_2015_try_parse_with_the_sources_offsets() -> None:
    rust = profile_for_path("a.rs")
    assert rust is not None
    source = b"fn f() -> Result<u8, E> {\n    let x = try!(g());\n    let retry = try::h(x);\n    Ok(retry)\n}\n"
    tree = rust.parse(source)
    assert not tree.root_node.has_error
    call = tree.root_node.children[0].child_by_field_name("body").named_children[0].child_by_field_name("value")
    assert call.type == "macro_invocation" and source[call.start_byte:call.end_byte] == b"try!(g())"
    # `retry!`, a word that only ends in the alias, is left alone; a 2018 try block still parses.
    assert rust.parse(b"fn f() { retry!(x); }").root_node.children[0].child_by_field_name("body") \
        .named_children[0].named_children[0].child_by_field_name("macro").type == "identifier"
    assert not rust.parse(b"fn f() { let r: Result<u8, E> = try { g()? }; }").root_node.has_error


def test_parse_aliases_must_keep_the_length() -> None:
    good = GOOD.replace('comments = ["comment"]', 'comments = ["comment"]\nparse_aliases = [["try!", "tri!"]]')
    assert load_profile_text(good, "mini.toml").parse_aliases == ((b"try!", b"tri!"),)
    with pytest.raises(ConfigError, match="equal length"):
        load_profile_text(good.replace('"tri!"', '"attempt!"'), "mini.toml")
    with pytest.raises(ConfigError, match="equal length"):
        load_profile_text(good.replace('[["try!", "tri!"]]', '["try!"]'), "mini.toml")


def test_union_when_added_twice_names_node_kinds_of_the_grammar() -> None:
    text = (Path(__file__).resolve().parents[2] / "grammars" / "markdown.toml").read_text()
    assert load_profile_text(text, "markdown.toml").union_when_added_twice == frozenset({"list", "section"})
    with pytest.raises(ConfigError, match="union_when_added_twice"):
        load_profile_text(text.replace('union_when_added_twice = ["list", "section"]', 'union_when_added_twice = ["lists"]'),
                          "markdown.toml")


def test_added_twice_conflict_is_a_regex_over_a_first_line() -> None:
    text = (Path(__file__).resolve().parents[2] / "grammars" / "markdown.toml").read_text()
    profile = load_profile_text(text, "markdown.toml")
    assert profile.added_twice_conflict is not None
    assert profile.added_twice_conflict.search("## [2.4.0] - 2026-04-01")
    assert not profile.added_twice_conflict.search("## Unreleased")
    broken = text.replace("added_twice_conflict = '", "added_twice_conflict = '(unclosed", 1)
    with pytest.raises(ConfigError, match="added_twice_conflict is not a regex"):
        load_profile_text(broken, "markdown.toml")


def test_commute_is_for_unordered_containers_only() -> None:
    commuting = GOOD.replace('[[containers]]\nkind = "module"\n', '[[containers]]\nkind = "module"\ncommute = true\n')
    assert load_profile_text(commuting, "mini.toml").containers[0].commute
    with pytest.raises(ConfigError, match="commute"):
        load_profile_text(commuting.replace("commute = true", "commute = true\nunordered = false"), "mini.toml")
    xml = profile_for_path("pom.xml")
    assert xml is not None and [rule.parent_key for rule in xml.containers if rule.commute] == ["<modules>"]
