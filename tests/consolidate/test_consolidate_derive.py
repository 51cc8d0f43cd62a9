"""derive_intents: a key-level diff of one reserved file against the task's base."""

import json

import pytest

from worktree_coord.consolidate.derive import derive_intents, find_root
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.textformat import ManifestParseError
from worktree_coord.errors import UsageError


def pkg(**fields) -> bytes:
    return (json.dumps({"name": "root", "version": "1.0.0", **fields}, indent=2) + "\n").encode()


def ops(intents):
    return sorted((i.op.value, i.group, i.name, i.spec, i.expected_before) for i in intents)


def test_package_json_add_set_remove_member_and_version():
    base = pkg(workspaces=["packages/a"], dependencies={"lodash": "^4.17.0", "gone": "1.0.0"})
    new = pkg(workspaces=["packages/a", "packages/b"], version=None,
              dependencies={"lodash": "^4.17.21", "b": "workspace:*"}, devDependencies={"jest": "^29"})
    new = new.replace(b'"version": null', b'"version": "1.1.0"')
    intents = derive_intents("package.json", base, new, task="t1")
    assert ops(intents) == sorted([
        ("add_dep", "dependencies", "b", "workspace:*", None),
        ("add_dep", "devDependencies", "jest", "^29", None),
        ("remove_dep", "dependencies", "gone", None, "1.0.0"),
        ("set_spec", "dependencies", "lodash", "^4.17.21", "^4.17.0"),
        ("add_member", "workspace.members", "packages/b", "packages/b", None),
        ("bump_version", "version", "root", "1.1.0", "1.0.0"),
    ])
    b = next(i for i in intents if i.name == "b")
    assert b.source_dict() == {"workspace": True}
    assert all(i.task == "t1" and i.ecosystem == Ecosystem.NPM and i.root == "" for i in intents)
    # Intent ids are stable and unique.
    assert len({i.intent_id for i in intents}) == len(intents)


def test_intent_json_round_trip_is_exact():
    base = b'[dependencies]\nserde = "1"\n'
    new = b'[dependencies]\nserde = { version = "1.0.100", features = ["derive", "alloc"], default-features = false }\n'
    [intent] = derive_intents("Cargo.toml", base, new, task="t9", base_commit="abc")
    assert intent.op == Op.SET_SPEC and intent.features == ("alloc", "derive")
    assert dict(intent.options) == {"default-features": False}
    text = json.dumps(intent.to_json())
    assert Intent.from_json(text) == intent
    with pytest.raises(UsageError, match="unknown intent field"):
        Intent.from_json({**intent.to_json(), "bogus": 1})


def test_same_content_spelled_differently_derives_nothing():
    base = b'[project]\nname = "x"\ndependencies = ["Foo_Bar>=1,<2", "requests[socks]>=2"]\n'
    new = b'[project]\nname = "x"\ndependencies = [\n  "requests[SOCKS] >= 2",\n  "foo-bar<2,>=1",  # why\n]\n'
    assert derive_intents("pyproject.toml", base, new, task="t") == []


def test_pyproject_groups_sources_workspace_and_python():
    base = b'[project]\nname = "app"\nrequires-python = ">=3.10"\ndependencies = []\n[tool.uv.workspace]\nmembers = ["libs/a"]\n'
    new = (b'[project]\nname = "app"\nrequires-python = ">=3.11"\ndependencies = ["Lib_B"]\n'
           b'[project.optional-dependencies]\nfast = ["orjson>=3"]\n[dependency-groups]\ndev = ["pytest>=8"]\n'
           b'[tool.uv.sources]\nlib-b = { workspace = true }\n[tool.uv.workspace]\nmembers = ["libs/a", "libs/b"]\n')
    intents = derive_intents("pyproject.toml", base, new, task="t")
    assert ops(intents) == sorted([
        ("add_dep", "dependencies", "lib-b", None, None),
        ("add_dep", "optional:fast", "orjson", ">=3", None),
        ("add_dep", "group:dev", "pytest", ">=8", None),
        ("add_member", "workspace.members", "libs/b", "libs/b", None),
        ("set_runtime", "runtime", "python", ">=3.11", ">=3.10"),
    ])
    assert next(i for i in intents if i.name == "lib-b").source_dict() == {"workspace": True}
    assert all(i.ecosystem == Ecosystem.UV for i in intents)


def test_poetry_tables_are_read_as_poetry():
    base = b'[tool.poetry]\nname = "p"\n[tool.poetry.dependencies]\npython = "^3.11"\nrequests = "^2.28"\n'
    new = (b'[tool.poetry]\nname = "p"\n[tool.poetry.dependencies]\npython = "^3.11"\nrequests = "^2.31"\n'
           b'[tool.poetry.group.test.dependencies]\npytest = { version = "^8", extras = ["Dev_X"] }\n')
    intents = derive_intents("pyproject.toml", base, new, task="t")
    assert {i.ecosystem for i in intents} == {Ecosystem.POETRY}
    assert ops(intents) == sorted([
        ("set_spec", "dependencies", "requests", "^2.31", "^2.28"),
        ("add_dep", "group:test", "pytest", "^8", None),
    ])
    assert next(i for i in intents if i.name == "pytest").extras == ("dev-x",)


def test_cargo_alias_target_and_workspace_members():
    base = b'[workspace]\nmembers = ["crates/a"]\n[workspace.dependencies]\nserde = "1"\n'
    new = (b'[workspace]\nmembers = ["crates/a", "crates/b"]\n[workspace.dependencies]\nserde = "1"\n'
           b'foo = { package = "bar", version = "0.3" }\n')
    intents = derive_intents("Cargo.toml", base, new, task="t")
    assert ops(intents) == sorted([
        ("add_dep", "workspace.dependencies", "foo", "0.3", None),
        ("add_member", "workspace.members", "crates/b", "crates/b", None),
    ])
    assert next(i for i in intents if i.name == "foo").package == "bar"
    t = derive_intents("Cargo.toml", b'[package]\nname="c"\n',
                       b"[package]\nname=\"c\"\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n", task="t")
    assert ops(t) == [("add_dep", "target:cfg(unix):dependencies", "libc", "0.2", None)]


def test_requirements_go_mod_and_pnpm_workspace():
    r = derive_intents("requirements-dev.txt", b"# pins\nRequests==2.31.0\n-r base.txt\n",
                       b"# pins\nrequests==2.32.0  # newer\n-r base.txt\nattrs>=23 \\\n  --hash=sha256:abc\n", task="t")
    assert ops(r) == [("add_dep", "requirements", "attrs", ">=23", None),
                      ("set_spec", "requirements", "requests", "==2.32.0", "==2.31.0")]
    g = derive_intents("go.mod", b"module m\n\ngo 1.21\n\nrequire (\n\tgolang.org/x/mod v0.14.0\n)\n",
                       b"module m\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/mod v0.15.0\n\tgithub.com/a/b v1.0.0 // indirect\n)\n",
                       task="t")
    assert ops(g) == sorted([("add_dep", "require", "github.com/a/b", "v1.0.0", None),
                             ("set_spec", "require", "golang.org/x/mod", "v0.15.0", "v0.14.0"),
                             ("set_runtime", "runtime", "go", "1.22", "1.21")])
    p = derive_intents("pnpm-workspace.yaml", b"packages:\n  - 'packages/*'\n",
                       b"packages:\n  - 'packages/*'\n  - 'apps/*'\ncatalog:\n  react: ^18.2.0\n", task="t")
    assert ops(p) == [("add_dep", "catalog", "react", "^18.2.0", None),
                      ("add_member", "workspace.members", "apps/*", "apps/*", None)]
    assert {i.ecosystem for i in p} == {Ecosystem.PNPM}


def test_lockfiles_and_member_manifests_ask_for_a_relock_of_their_root():
    [lock] = derive_intents("uv.lock", b"version = 1\n", b"version = 1\n# x\n", task="t")
    assert (lock.op, lock.ecosystem, lock.root) == (Op.RELOCK, Ecosystem.UV, "")
    [member] = derive_intents("packages/a/package.json", b'{"name":"a"}', b'{"name":"a","dependencies":{"x":"1"}}',
                              task="t", root="")
    assert (member.op, member.ecosystem, member.root) == (Op.RELOCK, Ecosystem.NPM, "")
    [pn] = derive_intents("pnpm-lock.yaml", b"a", b"b", task="t")
    assert pn.ecosystem == Ecosystem.PNPM
    tree = {"package.json", "package-lock.json", "packages/a/package.json", "svc/Cargo.toml", "svc/Cargo.lock",
            "svc/crates/x/Cargo.toml"}
    assert find_root("packages/a/package.json", tree) == ""
    assert find_root("svc/crates/x/Cargo.toml", tree) == "svc"


def test_hostile_inputs_are_refused_clearly():
    with pytest.raises(ManifestParseError, match="'lodash' twice"):
        derive_intents("package.json", b'{"dependencies":{"lodash":"1"}}',
                       b'{"dependencies":{"lodash":"1","lodash":"2"}}', task="t")
    with pytest.raises(ManifestParseError, match="serde.*already exists"):
        derive_intents("Cargo.toml", b'[dependencies]\nserde = "1"\n', b'[dependencies]\nserde = "1"\nserde = "2"\n',
                       task="t")
    with pytest.raises(ManifestParseError, match="conflict markers"):
        derive_intents("package.json", b"{}", b'{\n<<<<<<< ours\n"a": 1\n=======\n"a": 2\n>>>>>>> theirs\n}\n', task="t")
    with pytest.raises(ManifestParseError, match="twice"):
        derive_intents("pnpm-workspace.yaml", b"packages: []\n", b"packages: []\npackages: ['a']\n", task="t")
    with pytest.raises(UsageError, match="deleted the root manifest"):
        derive_intents("package.json", b"{}", None, task="t")


def test_changes_no_intent_can_express_are_reported_not_dropped():
    from worktree_coord.consolidate.derive import unexpressed_changes

    # Keys outside the dependency model are carried as settings (below); only what a setting
    # cannot carry unchanged, and the formats without key-level settings, are reported.
    base = pkg(scripts={"test": "jest"}, dependencies={"a": "1"})
    new = pkg(scripts={"test": "vitest"}, dependencies={"a": "2"}, license="MIT")
    assert unexpressed_changes("package.json", base, new) == []
    cargo = b'[package]\nname = "c"\nversion = "0.1.0"\n[package.metadata]\nreleased = 2024-01-01\n'
    assert unexpressed_changes("Cargo.toml", cargo, cargo.replace(b"2024-01-01", b"2024-02-01")) \
        == ["package.metadata.released: a date value (datetime.date(2024, 1, 1))"]
    # Every requirements line is an entry intents carry (test_requirements_entries.py): an option line
    # and httpx's editable install with a new extra are expressible; only a reordering is not.
    assert unexpressed_changes("requirements.txt", b"a==1\n", b"--index-url https://x\na==2\n") == []
    assert unexpressed_changes("requirements.txt", b"-e .[cli,http2]\n\npytest==8.4.1\n",
                               b"-e .[cli,http2,yaml]\n\npytest==8.4.2\n") == []
    assert unexpressed_changes("requirements.txt", b"-r a.txt\n-r b.txt\n", b"-r b.txt\n-r a.txt\n") == [
        "options lines (reordered)"]
    assert unexpressed_changes("go.mod", b"module m\n\ngo 1.21\n", b"module m\n\ngo 1.22\n\nexclude x v1.0.0\n") == ["exclude"]
    assert unexpressed_changes("pnpm-workspace.yaml", b"packages: []\nx: 2024-01-01\n", b"packages: []\nx: 2024-02-01\n") \
        == ["x: a date value (datetime.date(2024, 1, 1))"]
    assert unexpressed_changes("package-lock.json", b"{}", b'{"x": 1}') == []


def test_keys_outside_the_dependency_model_become_setting_intents_at_the_deepest_shared_table():
    base = pkg(scripts={"test": "jest", "old": "x"}, dependencies={"a": "1"})
    new = pkg(scripts={"test": "vitest", "lint": "eslint ."}, dependencies={"a": "2"}, license="MIT")
    assert ops(derive_intents("package.json", base, new, task="t")) == [
        ("remove_key", "settings", "scripts.old", None, '"x"'),
        ("set_key", "settings", "license", '"MIT"', None),
        ("set_key", "settings", "scripts.lint", '"eslint ."', None),
        ("set_key", "settings", "scripts.test", '"vitest"', '"jest"'),
        ("set_spec", "dependencies", "a", "2", "1"),
    ]
    cargo = b'[workspace]\nmembers = ["a"]\n\n[workspace.lints.clippy]\ndbg_macro = "warn"\n'
    edited = cargo.replace(b'dbg_macro = "warn"\n', b'dbg_macro = "warn"\nlarge_futures = "warn"\n') \
        + b'\n[profile.release]\nlto = true\n'
    [profile, lint] = derive_intents("Cargo.toml", cargo, edited, task="t")
    assert (lint.op.value, lint.name, lint.spec, dict(lint.options)) == \
        ("set_key", "workspace.lints.clippy.large_futures", '"warn"', {"after": "dbg_macro"})
    # A new table written with a header is taken key by key too (another task may add to it).
    assert (profile.name, profile.spec) == ("profile.release.lto", "true")
    # A new key goes where the task put it, also first (vitejs/vite: a script added at the top).
    from worktree_coord.consolidate.edits import edit_manifest

    scripts = pkg(scripts={"a": "1", "b": "2"})
    for edited in (pkg(scripts={"new": "0", "a": "1", "b": "2"}), pkg(scripts={"a": "1", "new": "0", "b": "2"})):
        [added] = derive_intents("package.json", scripts, edited, task="t")
        assert edit_manifest("package.json", scripts, added) == edited
    # A key that needs quotes in a dotted path reads back exactly.
    exports = derive_intents("package.json", pkg(exports={".": "./i.js"}), pkg(exports={".": "./i.js", "./x.js": "./x.js"}),
                             task="t")
    assert [i.name for i in exports] == ['exports."./x.js"']
    from worktree_coord.consolidate.settings import parse_key

    assert parse_key(exports[0].name) == ("exports", "./x.js")
    with pytest.raises(ValueError, match="quoted part"):
        parse_key('exports."./x')


def test_pnpm_workspace_settings_are_whole_top_level_keys_written_as_the_task_wrote_them():
    from worktree_coord.consolidate.edits import edit_manifest

    base = b"packages:\n  - 'packages/*'\n\n# builds we allow\nonlyBuiltDependencies:\n  - esbuild\n\ncatalog:\n  react: ^18\n"
    # pnpm 10's `pnpm approve-builds` grows onlyBuiltDependencies; another task ignores a build.
    grown = base.replace(b"  - esbuild\n", b"  - esbuild\n  - sharp\n")
    ignored = base + b"\nignoredBuiltDependencies:\n  - core-js\n"
    out = base
    intents = derive_intents("pnpm-workspace.yaml", base, grown, task="a") + \
        derive_intents("pnpm-workspace.yaml", base, ignored, task="b")
    assert [(i.op.value, i.name, i.spec) for i in intents] == [
        ("set_key", "onlyBuiltDependencies", '["esbuild","sharp"]'), ("set_key", "ignoredBuiltDependencies", '["core-js"]')]
    for intent in intents:
        out = edit_manifest("pnpm-workspace.yaml", out, intent)
    assert out == grown + b"\nignoredBuiltDependencies:\n  - core-js\n"
    # Declared by hand: the value as a JSON flow, which YAML reads; a key inside one is refused.
    from worktree_coord.consolidate.derive import declare_intent

    declared = declare_intent("pnpm-workspace.yaml", base, task="c", op="set_key", name="onlyBuiltDependencies",
                              spec='["esbuild", "sharp"]')
    assert edit_manifest("pnpm-workspace.yaml", base, declared) == base.replace(
        b"onlyBuiltDependencies:\n  - esbuild\n", b'onlyBuiltDependencies: ["esbuild","sharp"]\n')
    with pytest.raises(UsageError, match="whole top-level keys"):
        declare_intent("pnpm-workspace.yaml", base, task="c", op="set_key", name="a.b", spec="1")


def test_setting_intents_applied_keep_the_files_layout():
    from worktree_coord.consolidate.edits import edit_manifest

    cargo = (b'[workspace]\nmembers = ["a"]\n\n[workspace.lints.clippy]\n# keep this\ndbg_macro = "warn"\n'
             b'todo = "warn"\n\n# the next table\n[workspace.metadata.x]\ny = 1\n')
    edited = cargo.replace(b'dbg_macro = "warn"\n', b'dbg_macro = "warn"\nlarge_futures = "warn"\n').replace(
        b'todo = "warn"\n', b"")
    out = cargo
    for intent in derive_intents("Cargo.toml", cargo, edited, task="t"):
        out = edit_manifest("Cargo.toml", out, intent)
    assert out == edited
    py = b'[project]\nname = "p"\ndependencies = []\n\n[tool.ruff]\nline-length = 100\n'
    new_py = py.replace(b"100", b"120") + b'\n[tool.ruff.lint]\nselect = ["E", "F"]\n'
    out = py
    for intent in derive_intents("pyproject.toml", py, new_py, task="t"):
        out = edit_manifest("pyproject.toml", out, intent)
    assert out == new_py
    # An array the task grew keeps its comments, also in a table split by another (`[tool.uv]` ...
    # `[tool.ruff]` further on: tomlkit gives such a table as a proxy, not a Table).
    split = (b'[tool.uv]\ndefault-groups = ["dev"]\n\n[project]\nname = "p"\ndependencies = []\n\n'
             b'[tool.ruff.lint]\nselect = [\n    "E",  # pycodestyle\n    "F",  # pyflakes\n]\n')
    grown = split.replace(b'    "E",  # pycodestyle\n', b'    "B",  # bugbear\n    "E",  # pycodestyle\n')
    out = split
    for intent in derive_intents("pyproject.toml", split, grown, task="t"):
        out = edit_manifest("pyproject.toml", out, intent)
    assert out == grown
    # Removing the last key of a table takes the table away with it.
    out = py
    for intent in derive_intents("pyproject.toml", py, b'[project]\nname = "p"\ndependencies = []\n', task="t"):
        out = edit_manifest("pyproject.toml", out, intent)
    assert b"tool" not in out


def test_declared_intents_equal_the_derived_ones_for_the_same_edit():
    from worktree_coord.consolidate.derive import declare_intent

    base = pkg(dependencies={"lodash": "^4.17.0"})
    new = pkg(dependencies={"lodash": "^4.17.21", "chalk": "^5"})
    derived = derive_intents("package.json", base, new, task="t")
    declared = [declare_intent("package.json", base, task="t", op="add_dep", name="chalk", spec="^5"),
                declare_intent("package.json", base, task="t", op="set_spec", name="lodash", spec="^4.17.21")]
    assert sorted(declared, key=lambda i: i.intent_id) == derived
    py = b'[project]\nname = "p"\ndependencies = ["Foo_Bar>=1"]\n'
    i = declare_intent("pyproject.toml", py, task="t", op="set_spec", name="FOO.bar", spec=">=2")
    assert (i.name, i.expected_before, i.ecosystem) == ("foo-bar", ">=1", Ecosystem.UV)
    with pytest.raises(UsageError, match="already in"):
        declare_intent("package.json", base, task="t", op="add_dep", name="lodash", spec="^4")
    with pytest.raises(UsageError, match="not in"):
        declare_intent("package.json", base, task="t", op="remove_dep", name="chalk")
    member = declare_intent("crates/a/Cargo.toml", b'[package]\nname = "a"\n', task="t", op="add_dep", name="b",
                            source={"path": "../b"}, root="")
    assert (member.member, member.root, member.expected_before) == ("crates/a", "", None)


def test_ecosystem_of_a_manifest_comes_from_the_lockfiles_beside_its_root():
    from worktree_coord.consolidate.derive import detect_ecosystem

    tree = {"package.json", "pnpm-lock.yaml", "web/package.json", "web/yarn.lock", "py/pyproject.toml",
            "py/poetry.lock", "rs/Cargo.toml", "tools/pyproject.toml"}
    assert detect_ecosystem("package.json", "", tree) == Ecosystem.PNPM
    assert detect_ecosystem("web/package.json", "web", tree) == Ecosystem.YARN
    assert detect_ecosystem("py/pyproject.toml", "py", tree) == Ecosystem.POETRY
    assert detect_ecosystem("tools/pyproject.toml", "tools", tree) is None      # decided by the file's tables
    assert detect_ecosystem("rs/Cargo.toml", "rs", tree) == Ecosystem.CARGO
    [intent] = derive_intents("package.json", b'{"name": "r"}', b'{"name": "r", "dependencies": {"x": "1"}}',
                              task="t", ecosystem=detect_ecosystem("package.json", "", tree))
    assert intent.ecosystem == Ecosystem.PNPM


@pytest.mark.parametrize(("path", "base", "wrote"), [
    ("pyproject.toml", b'[tool.uv.workspace]\nmembers = [\n    "slim",\n    "graph",  # the graph\n    "examples",\n]\n',
     b'[tool.uv.workspace]\nmembers = [\n    "slim",\n    "foo",\n    "graph",  # the graph\n    "examples",\n]\n'),
    ("Cargo.toml", b'[workspace]\nmembers = ["a", "c"]\n', b'[workspace]\nmembers = ["a", "b", "c"]\n'),
    ("package.json", b'{\n  "workspaces": [\n    "packages/a",\n    "packages/c"\n  ]\n}\n',
     b'{\n  "workspaces": [\n    "packages/a",\n    "packages/b",\n    "packages/c"\n  ]\n}\n'),
])
def test_a_new_member_lands_where_the_task_wrote_it(path, base, wrote):
    """pydantic/pydantic-ai, driven as a user: a task put its new member second in the root's list and
    consolidation appended it last. The member that followed it is recorded, and the edit puts it there."""
    from worktree_coord.consolidate.edits import edit_manifest

    [intent] = [i for i in derive_intents(path, base, wrote, task="t") if i.op.value == "add_member"]
    assert edit_manifest(path, base, intent) == wrote


def test_members_two_tasks_add_at_one_place_keep_the_order_they_are_applied():
    from worktree_coord.consolidate.edits import edit_manifest

    base = b'[workspace]\nmembers = ["a", "z"]\n'
    first = derive_intents("Cargo.toml", base, b'[workspace]\nmembers = ["a", "b", "z"]\n', task="t1")
    second = derive_intents("Cargo.toml", base, b'[workspace]\nmembers = ["a", "c", "z"]\n', task="t2")
    out = base
    for intent in first + second:
        out = edit_manifest("Cargo.toml", out, intent)
    assert out == b'[workspace]\nmembers = ["a", "b", "c", "z"]\n'


@pytest.mark.parametrize(("path", "base", "new", "relock"), [
    ("crates/c/Cargo.toml", b'[package]\nname = "c"\n\n[features]\ndefault = []\nx = ["dep:b"]\n',
     b'[package]\nname = "c"\n\n[features]\ndefault = ["x"]\nx = ["dep:b", "b?/foo"]\n', False),
    ("crates/c/Cargo.toml", b'[package]\nname = "c"\n\n[lints]\nworkspace = true\n',
     b'[package]\nname = "c"\ndescription = "the c crate"\n\n[lints]\nworkspace = false\n', False),
    ("crates/c/Cargo.toml", b'[package]\nname = "c"\n\n[dependencies]\n', b'[package]\nname = "c"\n\n[dependencies]\nb = "1"\n',
     True),
    ("packages/a/package.json", b'{"name": "a", "scripts": {"test": "jest"}}', b'{"name": "a", "scripts": {"test": "vitest"}}',
     False),
    ("packages/a/package.json", b'{"name": "a"}', b'{"name": "a", "dependencies": {"left-pad": "^1.3.0"}}', True),
    # npm records a member's install script (hasInstallScript): that one relocks, a new other script does not.
    ("packages/a/package.json", b'{"name": "a", "scripts": {"test": "jest"}}',
     b'{"name": "a", "scripts": {"test": "jest", "postinstall": "node setup.js"}}', True),
    ("packages/a/package.json", b'{"name": "a"}', b'{"name": "a", "scripts": {"check:size": "node size.js"}}', False),
    ("libs/l/pyproject.toml", b'[project]\nname = "l"\n\n[tool.ruff]\nline-length = 100\n',
     b'[project]\nname = "l"\n\n[tool.ruff]\nline-length = 120\n', False),
    ("libs/l/pyproject.toml", b'[project]\nname = "l"\ndependencies = []\n', b'[project]\nname = "l"\ndependencies = ["x"]\n',
     True),
])
def test_a_member_edit_its_lockfile_records_nothing_of_needs_no_relock(path, base, new, relock):
    """clap, driven as a user: two tasks enabled features in clap_complete's `[features]`; each left a
    relock intent, so consolidation asked for the network to rewrite a Cargo.lock that features never
    change (measured: Cargo.lock records every optional dependency and no feature)."""
    intents = derive_intents(path, base, new, task="t", root="")
    assert [i.op.value for i in intents] == (["relock"] if relock else [])


PYPROJECT_GROUPS = (b'[project]\nname = "p"\ndependencies = []\n\n[project.optional-dependencies]\n'
                    b'extra = ["lxml>=4.6"]\nBoth = []\n\n[dependency-groups]\ntest = ["pytest"]\nboth = []\n')


def test_a_declared_pyproject_group_is_named_as_consolidation_names_it():
    """Found driving wtc on networkx: `wtc intent add --group extra` was accepted, and consolidation
    then rejected it ("unknown pyproject dependency group 'extra'") after the task had merged."""
    from worktree_coord.consolidate.derive import declare_intent
    from worktree_coord.consolidate.edits import edit_manifest

    extra = declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="igraph", spec=">=0.11",
                           group="extra")
    assert extra.group == "optional:extra" and extra.intent_id == "t:pyproject.toml:add_dep:optional:extra:igraph"
    assert derive_intents("pyproject.toml", PYPROJECT_GROUPS, PYPROJECT_GROUPS.replace(
        b'"lxml>=4.6"]', b'"lxml>=4.6", "igraph>=0.11"]'), task="t") == [extra]
    assert b'extra = ["igraph>=0.11", "lxml>=4.6"]' in edit_manifest("pyproject.toml", PYPROJECT_GROUPS, extra)
    test = declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="hypothesis", group="Test")
    assert test.group == "group:test"
    with pytest.raises(UsageError, match="already in"):   # the check of the base value sees the group now
        declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="lxml", group="extra")
    with pytest.raises(UsageError, match="both an extra and a dependency group") as both:
        declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="x", group="both")
    assert "--group optional:both or --group group:both" in both.value.fix
    with pytest.raises(UsageError, match="no extra or dependency group 'docs'") as missing:
        declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="x", group="docs")
    assert "optional:extra" in missing.value.fix and "group:test" in missing.value.fix
    assert declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="x",
                          group="optional:Docs").group == "optional:docs"      # a new extra, said so
    with pytest.raises(UsageError, match="not a pyproject dependency group"):
        declare_intent("pyproject.toml", PYPROJECT_GROUPS, task="t", op="add_dep", name="x", group="dev:docs")


@pytest.mark.parametrize(("path", "base", "wrote"), [
    # networkx's [project.optional-dependencies] arrays are single-quoted (found driving wtc on it:
    # consolidation wrote "igraph>=0.10" among 'lxml>=4.6', ...).
    ("pyproject.toml", b"[project]\nname = \"p\"\n\n[project.optional-dependencies]\nextra = ['lxml>=4.6', 'pydot>=3.0.1']\n",
     b"[project]\nname = \"p\"\n\n[project.optional-dependencies]\nextra = ['igraph>=0.10', 'lxml>=4.6', 'pydot>=3.0.1']\n"),
    ("pyproject.toml", b"[project]\nname = \"p\"\ndependencies = [\n    'attrs>=22',\n    'rich',\n]\n",
     b"[project]\nname = \"p\"\ndependencies = [\n    'attrs>=23',\n    'rich',\n]\n"),
    ("Cargo.toml", b"[workspace]\nmembers = ['a', 'c']\n", b"[workspace]\nmembers = ['a', 'b', 'c']\n"),
    # A double-quoted array stays double-quoted.
    ("pyproject.toml", b'[project]\nname = "p"\ndependencies = ["attrs", "rich"]\n',
     b'[project]\nname = "p"\ndependencies = ["attrs", "numpy>=2", "rich"]\n'),
])
def test_an_entry_consolidation_writes_keeps_the_arrays_quoting(path, base, wrote):
    from worktree_coord.consolidate.edits import edit_manifest

    [intent] = [i for i in derive_intents(path, base, wrote, task="t") if i.op.value != "relock"]
    assert edit_manifest(path, base, intent) == wrote


def test_a_new_dependency_goes_after_the_tables_last_key_not_below_the_next_headers_comment():
    """alacritty's root: `[workspace.dependencies]` ends with a blank line and the comment that
    belongs to `[patch.crates-io]`; tomlkit appended the new key below that comment, with no blank
    line before the next header."""
    from worktree_coord.consolidate.edits import edit_manifest

    base = (b'[workspace]\nmembers = ["a"]\n\n[workspace.dependencies]\ntoml = "0.9.11"\ntoml_edit = "0.24.0"\n\n'
            b'# TODO: remove before the next release.\n[patch.crates-io]\nx = { git = "https://example.invalid/x" }\n')
    wrote = base.replace(b'toml_edit = "0.24.0"\n', b'toml_edit = "0.24.0"\nserde = { version = "1.0.163", features = ["derive"] }\n')
    [intent] = [i for i in derive_intents("Cargo.toml", base, wrote, task="t") if i.op.value != "relock"]
    assert edit_manifest("Cargo.toml", base, intent) == wrote


@pytest.mark.parametrize(("base", "wrote"), [
    # httpx: every extra one entry a line; the task added one the same way.
    (b'[project]\nname = "p"\n\n[project.optional-dependencies]\nhttp2 = [\n    "h2>=3,<5",\n]\n'
     b'zstd = [\n  "zstandard>=0.18.0",\n]\n\n[project.scripts]\np = "p:main"\n',
     b'[project]\nname = "p"\n\n[project.optional-dependencies]\nhttp2 = [\n    "h2>=3,<5",\n]\n'
     b'zstd = [\n  "zstandard>=0.18.0",\n]\nyaml = [\n    "pyyaml>=6",\n]\n\n[project.scripts]\np = "p:main"\n'),
    # Neighbours on one line each: the new group is too.
    (b'[dependency-groups]\ntest = ["pytest"]\n', b'[dependency-groups]\ntest = ["pytest"]\nlint = ["ruff"]\n'),
])
def test_a_new_pyproject_group_is_laid_out_as_the_groups_beside_it(base, wrote):
    """httpx, driven as a user: the task wrote its new extra as `yaml = [` with the entry on a line of
    its own, as every extra beside it; consolidation wrote `yaml = ["pyyaml>=6"]`."""
    from worktree_coord.consolidate.edits import edit_manifest

    [intent] = derive_intents("pyproject.toml", base, wrote, task="t")
    assert intent.op == Op.ADD_DEP
    assert edit_manifest("pyproject.toml", base, intent) == wrote
