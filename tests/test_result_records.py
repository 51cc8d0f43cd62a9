"""The typed views of result payloads (results.py): on a real run with a boundary violation, a
content conflict, a semantic conflict, an intent left unapplied and a partial landing, each view
holds exactly what its JSON field says, as frozen records, and `to_json()` is what it was."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.conftest import make_repo, write
from worktree_coord import (
    ConflictRecord,
    ConsolidationReport,
    Coordinator,
    Landed,
    LeftoverRecord,
    RunReport,
    SemanticRecord,
    SkippedRecord,
    TaskCheck,
    TaskFinished,
    ViolationRecord,
)

FILES = {
    "api/app.py": "def health():\n    return 'ok'\n",
    "api/util.py": "def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
    "web/page.html": "<h1>hi</h1>\n",
    "package.json": '{\n  "name": "x",\n  "version": "1.0.0"\n}\n',
}


def test_each_view_holds_its_field_as_frozen_records_and_to_json_is_unchanged(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        started = {name: coord.start_task("r", name, own) for name, own in (
            ("a", ["api/app.py"]), ("b", ["api/app.py"]), ("d", ["api/util.py"]), ("u", ["api/use.py"]),
            ("w", ["web/**"]))}
        worktree = {name: Path(s.worktree) for name, s in started.items()}
        write(worktree["a"], {"api/app.py": "def health():\n    return 'fine'\n"})
        write(worktree["b"], {"api/app.py": "def health():\n    return 'great'\n"})
        write(worktree["d"], {"api/util.py": "def other():\n    return 2\n"})
        write(worktree["u"], {"api/use.py": "from api.util import helper\n\n\ndef twice():\n    return 2 * helper()\n"})
        write(worktree["w"], {"web/page.html": "<h1>hello</h1>\n", "api/app.py": "oops\n"})

        assert coord.finish_task("r", "a").state == "merged"
        assert coord.finish_task("r", "d").state == "merged"
        content = coord.finish_task("r", "b")
        semantic = coord.finish_task("r", "u")
        rejected = coord.finish_task("r", "w")
        coord.add_intent("r", "w", manifest="package.json", op="add_dep", name="leftpad", spec="^1.0.0")
        consolidated = coord.consolidate("r")
        check = coord.check_task("r", "w")
        report = coord.report("r", onto="main")
        landed = coord.land("r", "main", approved=True, allow_partial=True)

    [violation] = rejected.violation_records
    assert violation == ViolationRecord(path="api/app.py", rule="outside_own", detail=rejected.violations[0]["detail"])
    assert check.violation_records == rejected.violation_records

    [conflict] = content.conflict_records
    row = content.conflicts[0]
    assert conflict == ConflictRecord(path="api/app.py", kind="content", declaration="def health",
                                      start_line=row["start_line"], end_line=row["end_line"], base="    return 'ok'\n",
                                      ours="    return 'fine'\n", theirs="    return 'great'\n",
                                      last_changed_by=("a",), written_by=("a",), why=(), semantic=None, task=None)
    assert isinstance(conflict.start_line, int) and conflict.start_line <= conflict.end_line

    [broken] = semantic.conflict_records
    assert (broken.kind, broken.path) == ("semantic", semantic.conflicts[0]["path"])
    assert isinstance(broken.semantic, SemanticRecord)
    assert (broken.semantic.name, broken.semantic.removed_by_task, broken.semantic.used_by_task) == ("helper", "d", "u")
    assert (broken.semantic.definition_path, broken.semantic.use_path) == ("api/util.py", "api/use.py")
    assert broken.semantic.message == semantic.conflicts[0]["semantic"]["message"] and "helper" in broken.semantic.message

    [skipped] = consolidated.skipped_records
    assert skipped == SkippedRecord(intent="w:package.json:add_dep:dependencies:leftpad", task="w", state="declared",
                                    why=consolidated.skipped[0]["why"], fix=consolidated.skipped[0]["fix"])
    assert "task w is rejected" in skipped.why

    assert {(c.task, c.kind) for c in report.conflict_records} == {("b", "content"), ("u", "semantic")}
    [intent] = report.leftovers["intents"]["declared"]
    expected = (LeftoverRecord("intent", "w:package.json:add_dep:dependencies:leftpad", "declared", task="w",
                               reason=intent["reason"] or "", fix=intent["fix"]),
                LeftoverRecord("task", "b", "conflict", task="b"), LeftoverRecord("task", "u", "conflict", task="u"),
                LeftoverRecord("task", "w", "rejected", task="w"))
    assert "merge its task w first" in expected[0].fix
    assert report.leftover_records == expected, report.leftovers
    assert landed.leftover_records == expected, landed.left_out

    # Frozen records; the views are no fields: the JSON and a replay from it are what they were.
    with pytest.raises(dataclasses.FrozenInstanceError):
        violation.path = "elsewhere"  # type: ignore[misc]
    for result in (rejected, content, semantic, consolidated, check, report, landed):
        data = result.to_json()
        assert not [key for key in data if key.endswith("_records")]
        assert set(data) == {f.name for f in dataclasses.fields(result)}
        replayed = type(result).from_json(data)
        for view in ("violation_records", "conflict_records", "skipped_records", "leftover_records"):
            if hasattr(result, view):
                assert getattr(replayed, view) == getattr(result, view)
    assert (type(rejected), type(consolidated), type(check), type(report), type(landed)) == (
        TaskFinished, ConsolidationReport, TaskCheck, RunReport, Landed)


def test_views_read_payloads_of_older_results_that_lack_keys():
    # A result replayed from a store written by an earlier version: missing keys take defaults.
    old = TaskFinished.from_json({"state": "conflict", "conflicts": [{"path": "a.py", "kind": "content"}],
                                  "violations": [{"path": "b.py", "rule": "outside_own"}]})
    assert old.conflict_records == (ConflictRecord(path="a.py"),)
    assert old.violation_records == (ViolationRecord(path="b.py", rule="outside_own", detail=""),)
    assert RunReport().leftover_records == () and Landed(left_out={"tasks": {}}).leftover_records == ()


def test_a_left_behind_conflict_carries_what_broke_as_a_semantic_record(tmp_path):
    # A use, in code no task changed, of a name the task removed: a conflict of kind left_behind.
    repo = make_repo(tmp_path / "repo", {"api/util.py": "def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
                                         "api/caller.py": "from api.util import helper\n\nVALUE = helper()\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r")
        task = coord.start_task("r", "d", ["api/util.py"])
        write(Path(task.worktree), {"api/util.py": "def other():\n    return 2\n"})
        done = coord.finish_task("r", "d")
    assert done.exit_code == 1 and len(done.conflict_records) == len(done.conflicts) == 2   # the import, the call
    for conflict, row in zip(done.conflict_records, done.conflicts):
        assert (conflict.kind, conflict.path, conflict.start_line) == ("left_behind", row["path"], row["start_line"])
        assert conflict.semantic is not None and conflict.semantic.use_line == conflict.start_line
        assert (conflict.semantic.name, conflict.semantic.problem, conflict.semantic.use_path,
                conflict.semantic.removed_by_task) == ("helper", "left_behind", "api/caller.py", "d")
    assert [c.start_line for c in done.conflict_records] == [1, 3]


def test_the_store_records_are_frozen_dataclasses_whose_init_matches_their_fields() -> None:
    """model.py's records write their own `__init__` (no compiled dataclass methods at import, issue 36):
    each takes exactly its fields, in order, with the fields' defaults, and behaves as `frozen=True` did."""
    import dataclasses
    import inspect

    from worktree_coord import model

    for cls in (model.Boundary, model.RunRecord, model.TaskRecord):
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert [p.name for p in params] == [f.name for f in dataclasses.fields(cls)], cls
        for param, f in zip(params, dataclasses.fields(cls)):
            if f.default_factory is not dataclasses.MISSING:
                assert param.default is model._NEW, (cls, f.name)
            else:
                assert param.default == (inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default), \
                    (cls, f.name)
        values = {p.name: (object() if p.default is inspect.Parameter.empty else p.default) for p in params}
        values = {k: ({} if v is model._NEW else v) for k, v in values.items()}
        made = cls(*values.values())
        assert {f.name: getattr(made, f.name) for f in dataclasses.fields(cls)} == values
        assert made == cls(**values) and made != dataclasses.replace(made, **{params[0].name: object()})
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, params[0].name, 1)
    first = model.RunRecord("r", "b", "i", model.RunState.OPEN, 0.0)
    assert first.options == {} and first.options is not model.RunRecord("r", "b", "i", model.RunState.OPEN, 0.0).options
    assert hash(model.Boundary(("a/**",))) == hash(model.Boundary(("a/**",)))


def test_to_json_copies_every_payload_as_dataclasses_asdict_does() -> None:
    """`to_json()` walks JSON values itself (results._plain: asdict's generic walk was a drain's
    largest bookkeeping cost); for any payload, nested or not, it gives what `dataclasses.asdict`
    gives, and a copy: changing what it returned changes no result."""
    import collections

    from hypothesis import given, settings, strategies as st

    from worktree_coord import results

    atoms = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
    values = st.recursive(atoms, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
                          | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=3), max_leaves=12)
    kinds = [cls for cls in vars(results).values()
             if isinstance(cls, type) and issubclass(cls, results.Result) and cls.__module__ == results.__name__]
    assert TaskFinished in kinds and len(kinds) > 10

    @settings(max_examples=60, deadline=None)
    @given(st.sampled_from(kinds), st.data())
    def check(kind: type, data: st.DataObject) -> None:
        fields = {f.name: data.draw(values) for f in dataclasses.fields(kind) if f.init and f.name != "replayed"}
        result = kind(**fields)
        made = result.to_json()
        assert made == dataclasses.asdict(result)
        assert [type(v) for v in made.values()] == [type(v) for v in dataclasses.asdict(result).values()]
        for name, value in made.items():
            if isinstance(value, (list, dict)) and value:
                value.clear()
                assert getattr(result, name), name   # a copy, not the result's own value
        assert kind.from_json(dataclasses.asdict(result)).to_json() == dataclasses.asdict(result)

    check()
    named = collections.namedtuple("named", "a b")
    odd = TaskFinished(changed=[{"at": named(1, [2])}], conflicts=[collections.OrderedDict(a=[1])])
    assert odd.to_json() == dataclasses.asdict(odd)
    assert type(odd.to_json()["changed"][0]["at"]) is named


def test_a_result_s_fields_uncopied_serialise_as_its_copy_does():
    """`to_json(copy=False)`: the same fields and values as `to_json()` (what the store writes of a
    drain's records), the values themselves rather than copies of them."""
    from worktree_coord.model import dumps
    from worktree_coord.results import TaskFinished

    result = TaskFinished(run="r", task="t", state="merged", changed=[{"path": "a.py", "status": "modified"}],
                          merge={"merge_commit": "c" * 40, "resolved": ["a.py"]}, notes=["n"])
    shared = result.to_json(copy=False)
    assert shared == result.to_json() and dumps(shared) == dumps(result.to_json())
    assert shared["changed"] is result.changed and result.to_json()["changed"] is not result.changed
