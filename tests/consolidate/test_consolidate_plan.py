"""plan(): merging, narrowing and rejecting intents that share a key, against the current tree."""

import itertools
import json

from worktree_coord.consolidate.derive import derive_intents
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.planning import ConflictKind, plan
from worktree_coord.consolidate.specs import Relation, compare, satisfies


def pkg(**fields) -> bytes:
    return (json.dumps({"name": "root", **fields}, indent=2) + "\n").encode()


def reader(files: dict[str, bytes]):
    return lambda path: files.get(path)


BASE = pkg(dependencies={"lodash": "^4.17.0"})
TREE = reader({"package.json": BASE})


def npm_intents(task: str, **fields) -> list[Intent]:
    return derive_intents("package.json", BASE, pkg(**fields), task=task)


def test_equal_specs_written_differently_merge_into_one_change():
    a = npm_intents("a", dependencies={"lodash": "^4.17.0", "left-pad": "^1.2"})
    b = npm_intents("b", dependencies={"lodash": "^4.17.0", "left-pad": "^1.2.0"})
    p = plan(a + b, TREE)
    assert not p.conflicts and not p.warnings
    [change] = p.changes
    assert change.intent.name == "left-pad" and change.tasks == ("a", "b")
    py_base = b'[project]\nname = "x"\ndependencies = []\n'
    pa = derive_intents("pyproject.toml", py_base, b'[project]\nname = "x"\ndependencies = ["Foo_Bar>=1"]\n', task="a")
    pb = derive_intents("pyproject.toml", py_base, b'[project]\nname = "x"\ndependencies = ["foo-bar >=1.0"]\n', task="b")
    p2 = plan(pa + pb, reader({"pyproject.toml": py_base}))
    assert not p2.conflicts and len(p2.changes) == 1 and p2.changes[0].tasks == ("a", "b")


def test_nested_ranges_take_the_narrower_with_a_warning_disjoint_ones_conflict():
    a = npm_intents("a", dependencies={"lodash": "^4.17.0", "x": "^1.2.0"})
    b = npm_intents("b", dependencies={"lodash": "^4.17.0", "x": "^1.4.0"})
    p = plan(b + a, TREE)
    assert [c.intent.spec for c in p.changes] == ["^1.4.0"] and len(p.warnings) == 1
    assert "narrower '^1.4.0' (task b)" in p.warnings[0]
    c = npm_intents("c", dependencies={"lodash": "^4.17.0", "x": "^1"})
    d = npm_intents("d", dependencies={"lodash": "^4.17.0", "x": "^2"})
    p = plan(c + d, TREE)
    assert not p.changes
    [conflict] = p.conflicts
    assert conflict.kind == ConflictKind.DISJOINT_RANGES and conflict.tasks == ("c", "d")
    assert "task c wants '^1'" in conflict.message and "task d wants '^2'" in conflict.message
    e = npm_intents("e", dependencies={"lodash": "^4.17.0", "x": "latest"})
    p = plan(c + e, TREE)
    assert [k.kind for k in p.conflicts] == [ConflictKind.UNDECIDABLE_RANGES]


def test_pep440_and_cargo_ranges():
    assert compare(Ecosystem.UV, ">=1.5", ">=1.2,<2") == Relation.OVERLAP
    assert compare(Ecosystem.UV, ">=1.5,<2", ">=1.2,<2") == Relation.SUBSET
    assert compare(Ecosystem.CARGO, "1.4", "1.2") == Relation.SUBSET
    assert compare(Ecosystem.CARGO, "1", "2") == Relation.DISJOINT
    assert compare(Ecosystem.NPM, "1.2.3 - 2", ">=1.2.3 <3.0.0-0".replace("-0", "")) == Relation.EQUAL
    assert satisfies(Ecosystem.NPM, "1.9.9", "^1.2") and not satisfies(Ecosystem.NPM, "2.0.0", "^1.2")
    assert satisfies(Ecosystem.CARGO, "0.2.9", "0.2.3") and not satisfies(Ecosystem.CARGO, "0.3.0", "0.2.3")
    assert satisfies(Ecosystem.UV, "1.4.2", "~=1.4") and satisfies(Ecosystem.NPM, "1.0.0", "git+https://x") is None
    base = b'[project]\nname = "x"\ndependencies = []\n'
    a = derive_intents("pyproject.toml", base, b'[project]\nname = "x"\ndependencies = ["attrs>=1.2,<2"]\n', task="a")
    b = derive_intents("pyproject.toml", base, b'[project]\nname = "x"\ndependencies = ["attrs>=1.5"]\n', task="b")
    p = plan(a + b, reader({"pyproject.toml": base}))
    assert [c.intent.spec for c in p.changes] == ["<2,>=1.2,>=1.5"] and "conjunction" in p.warnings[0]


def test_add_vs_remove_and_different_sources_conflict():
    a = npm_intents("a", dependencies={})
    b = npm_intents("b", dependencies={"lodash": "^4.17.5"})
    [conflict] = plan(a + b, TREE).conflicts
    assert conflict.kind == ConflictKind.ADD_VS_REMOVE and conflict.tasks == ("a", "b")
    c = npm_intents("c", dependencies={"lodash": "^4.17.0", "core": "workspace:^"})
    d = npm_intents("d", dependencies={"lodash": "^4.17.0", "core": "^1.0.0"})
    [conflict] = plan(c + d, TREE).conflicts
    assert conflict.kind == ConflictKind.DIFFERENT_SOURCES and conflict.tasks == ("c", "d")


def test_same_package_in_two_groups_conflicts_naming_both_tasks():
    a = npm_intents("a", dependencies={"lodash": "^4.17.0", "chalk": "^5"})
    b = npm_intents("b", dependencies={"lodash": "^4.17.0"}, devDependencies={"chalk": "^5"})
    p = plan(a + b, TREE)
    assert not p.changes
    [conflict] = p.conflicts
    assert conflict.kind == ConflictKind.GROUP_COLLISION and conflict.tasks == ("a", "b")
    # Against the current manifest too: lodash is already a dependency.
    c = npm_intents("c", dependencies={"lodash": "^4.17.0"}, devDependencies={"lodash": "^4"})
    [conflict] = plan(c, TREE).conflicts
    assert conflict.kind == ConflictKind.GROUP_COLLISION and conflict.tasks == ("c", "integration")
    # Cargo: [dependencies] and a target table are different groups and both fine; two names for one crate are not.
    cb = b'[package]\nname = "c"\n'
    x = derive_intents("Cargo.toml", cb, cb + b'[dependencies]\nbar = "1"\n', task="x")
    y = derive_intents("Cargo.toml", cb, cb + b"[target.'cfg(unix)'.dependencies]\nbar = \"1\"\n", task="y")
    z = derive_intents("Cargo.toml", cb, cb + b'[dependencies]\nfoo = { package = "bar", version = "1" }\n', task="z")
    tree = reader({"Cargo.toml": cb})
    assert not plan(x + y, tree).conflicts
    [conflict] = plan(x + z, tree).conflicts
    assert conflict.kind == ConflictKind.ALIAS_COLLISION and conflict.tasks == ("x", "z")


def test_stale_base_value_is_a_conflict_and_an_applied_intent_is_satisfied():
    a = npm_intents("a", dependencies={"lodash": "^4.17.21"})
    b = npm_intents("b", dependencies={"lodash": "^4.17.15"})   # b saw ^4.17.0 too
    now = reader({"package.json": pkg(dependencies={"lodash": "^4.17.21"})})   # a was consolidated already
    p = plan(a + b, now)
    assert not p.changes and [c.intent.task for c in p.satisfied] == ["a"]
    [conflict] = p.conflicts
    assert conflict.kind == ConflictKind.STALE_BASE and conflict.tasks == ("a", "b")
    assert "'^4.17.0'" in conflict.message and "'^4.17.21'" in conflict.message
    # Idempotence at plan level: everything already applied gives no change and no conflict.
    p2 = plan(a, now)
    assert not p2.changes and not p2.conflicts and len(p2.satisfied) == 1


def test_plan_does_not_depend_on_intent_order():
    intents = (npm_intents("a", dependencies={"lodash": "^4.17.0", "x": "^1.2.0", "y": "1"})
               + npm_intents("b", dependencies={"lodash": "^4.17.5", "x": "^1.4.0"})
               + npm_intents("c", dependencies={"lodash": "^4.17.0", "x": "^1.3", "y": "2"}))
    results = {json.dumps(plan(list(order), TREE).to_json(), sort_keys=True)
               for order in itertools.permutations(intents)}
    assert len(results) == 1
    p = plan(intents, TREE)
    assert [(c.intent.name, c.intent.spec) for c in p.changes] == [("lodash", "^4.17.5"), ("x", "^1.4.0")]
    assert [c.kind for c in p.conflicts] == [ConflictKind.DISJOINT_RANGES]
    assert p.relock_roots == (("npm", ""),)
    assert all(i.op != Op.RELOCK for c in p.changes for i in c.sources)


def test_single_version_workspaces_reject_disjoint_ranges_across_members():
    from worktree_coord.consolidate.derive import declare_intent

    member = b'[project]\nname = "m"\ndependencies = []\n'
    a = declare_intent("libs/a/pyproject.toml", member, task="ta", op="add_dep", name="pydantic", spec="<2", root="")
    b = declare_intent("libs/b/pyproject.toml", member, task="tb", op="add_dep", name="pydantic", spec=">=2", root="")
    c = declare_intent("libs/c/pyproject.toml", member, task="tc", op="add_dep", name="attrs", spec=">=22", root="")
    tree = reader({f"libs/{x}/pyproject.toml": member for x in "abc"})
    p = plan([a, b, c], tree)
    assert [ch.intent.name for ch in p.changes] == ["attrs"]
    [conflict] = p.conflicts
    assert conflict.kind == ConflictKind.DISJOINT_RANGES and conflict.tasks == ("ta", "tb")
    assert "resolves one version for all members" in conflict.message
    # npm allows duplicates across members: no conflict there.
    npm_member = b'{"name": "m"}'
    x = declare_intent("packages/a/package.json", npm_member, task="ta", op="add_dep", name="react", spec="^17", root="")
    y = declare_intent("packages/b/package.json", npm_member, task="tb", op="add_dep", name="react", spec="^18", root="")
    assert not plan([x, y], reader({"packages/a/package.json": npm_member, "packages/b/package.json": npm_member})).conflicts


def test_adding_a_member_a_glob_already_covers_is_satisfied():
    base = pkg(workspaces=["packages/*"])
    a = derive_intents("package.json", base, pkg(workspaces=["packages/*", "packages/new"]), task="a")
    b = derive_intents("package.json", base, pkg(workspaces=["packages/*", "tools/x"]), task="b")
    p = plan(a + b, reader({"package.json": base}))
    assert [c.intent.name for c in p.satisfied] == ["packages/new"]
    assert [c.intent.name for c in p.changes] == ["tools/x"]


def test_a_python_package_may_be_a_main_dependency_and_in_an_extra_if_the_ranges_meet():
    # pytest's own pyproject: attrs in the `dev` extra; a task makes it a runtime dependency too.
    base = (b'[project]\nname = "x"\ndependencies = ["pluggy>=1"]\n'
            b'[project.optional-dependencies]\ndev = ["attrs>=19.2"]\n')
    tree = reader({"pyproject.toml": base})
    workspace = {("uv", ""): ["pyproject.toml"]}
    meet = derive_intents("pyproject.toml", base, base.replace(b'["pluggy>=1"]', b'["pluggy>=1", "attrs>=23"]'),
                          task="a")
    p = plan(meet, tree, workspace_manifests=workspace)
    assert not p.conflicts
    [change] = p.changes
    assert (change.intent.group, change.intent.name, change.intent.spec) == ("dependencies", "attrs", ">=23")
    # Ranges that cannot both hold are still refused: one resolution serves both groups.
    apart = derive_intents("pyproject.toml", base, base.replace(b'["pluggy>=1"]', b'["pluggy>=1", "attrs<19"]'),
                           task="b")
    [conflict] = plan(apart, tree, workspace_manifests=workspace).conflicts
    assert conflict.kind == ConflictKind.DISJOINT_RANGES and conflict.tasks == ("b", "integration")


def test_settings_conflict_by_key_and_by_nesting_and_otherwise_fold_key_by_key():
    py = b'[project]\nname = "p"\ndependencies = []\n\n[tool.ruff]\nline-length = 100\nselect = ["E"]\n'
    dropped = derive_intents("pyproject.toml", py, b'[project]\nname = "p"\ndependencies = []\n', task="a")
    longer = derive_intents("pyproject.toml", py, py.replace(b"100", b"120"), task="b")
    same = derive_intents("pyproject.toml", py, py.replace(b"100", b"120"), task="c")
    other = derive_intents("pyproject.toml", py, py.replace(b'["E"]', b'["E", "F"]'), task="d")
    # a takes the whole table away, b changes a key inside it: neither can apply after the other.
    result = plan(dropped + longer, reader({"pyproject.toml": py}))
    assert [(c.kind, c.tasks) for c in result.conflicts] == [(ConflictKind.NESTED_KEYS, ("a", "b"))]
    assert result.changes == ()
    # One value set by two tasks folds into one change; another key of the table is its own.
    result = plan(longer + same + other, reader({"pyproject.toml": py}))
    assert result.conflicts == ()
    assert [(c.intent.name, c.intent.spec, c.tasks) for c in result.changes] == [
        ("tool.ruff.line-length", "120", ("b", "c")), ("tool.ruff.select", '["E","F"]', ("d",))]
    # Already what the manifest holds: satisfied, not applied again.
    result = plan(longer, reader({"pyproject.toml": py.replace(b"100", b"120")}))
    assert result.changes == () and [c.intent.name for c in result.satisfied] == ["tool.ruff.line-length"]


def test_two_tasks_growing_one_array_both_land_in_place_and_a_reorder_still_conflicts():
    from worktree_coord.consolidate.edits import edit_manifest

    py = (b'[project]\nname = "p"\ndependencies = []\n\n[tool.ruff.lint]\n'
          b'select = [\n    "E",  # pycodestyle\n    "F",  # pyflakes\n]\n')
    bugbear = py.replace(b'    "F",  # pyflakes\n', b'    "F",  # pyflakes\n    "B",  # bugbear\n')
    upgrade = py.replace(b'    "E",  # pycodestyle\n', b'    "UP",  # pyupgrade\n    "E",  # pycodestyle\n')
    a = derive_intents("pyproject.toml", py, bugbear, task="a")
    b = derive_intents("pyproject.toml", py, upgrade, task="b")
    result = plan(a + b, reader({"pyproject.toml": py}))
    assert result.conflicts == () and "merged the array edits of tasks a and b" in result.warnings[0]
    [change] = result.changes
    out = edit_manifest("pyproject.toml", py, change.intent)
    assert out == py.replace(b'    "F",  # pyflakes\n', b'    "F",  # pyflakes\n    "B",\n    "UP",\n'), out.decode()
    # b's intent after a's was consolidated on its own: its base is stale, its addition still applies.
    result = plan(b, reader({"pyproject.toml": bugbear}))
    assert result.conflicts == () and [c.intent.spec for c in result.changes] == ['["E","F","B","UP"]']
    # A side that reorders the items it kept may mean the order: a conflict, as before.
    swapped = derive_intents("pyproject.toml", py, py.replace(b'    "E",  # pycodestyle\n    "F",  # pyflakes\n',
                                                                 b'    "F",  # pyflakes\n    "E",  # pycodestyle\n'),
                             task="c")
    assert [c.kind for c in plan(a + swapped, reader({"pyproject.toml": py})).conflicts] == \
        [ConflictKind.DIFFERENT_VALUES]
