"""Task facts (check/task_facts.py): what a merge reads of the task alone (its changed files'
versions extracted, an edit's reshaped functions and gone words, its files' module specifiers),
computed by the task's finish before any merge lock and kept in the merge index on disk, where the
drain that merges it finds them in one query (merge.tree._prefetch).

A drain after the finishes answers as a cold one (the same check and look findings at every merge,
over the generated plans of test_drain_left_behind_property), also when every entry on disk is
damaged; and it parses none of a finished task's versions: before, each merge of a drain extracted
each edited file's two versions again for the look, and signatures.reshaped parsed them once more.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import make_repo, wtc_in_process
from tests.merge.drains import drain_of, findings_of
from tests.merge.test_drain_imports_property import KEEP, PIN, SHADOW, TAKE_AWAY, USES
from tests.merge.test_drain_left_behind_property import ALL, MOVES
from worktree_coord.check.left_behind import left_behind_at_merge
from worktree_coord.check.task_facts import keep_task_facts
from worktree_coord.gitrepo.repository import GitRepo
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import merge_index
from worktree_coord.merge.checks.merge_index import FORMAT, MergeIndex, index_folder, shared_index
from worktree_coord.merge.languages.profiles import Profile


def _writes_of(number: int, change: str) -> dict[str, str | None]:
    if change in USES:
        folder, text = USES[change]
        return {f"{folder}/use_{number}_{change.replace('-', '_')}.py": text}
    return {**TAKE_AWAY, **SHADOW, **KEEP, **MOVES}[change]


def _drained(root: Path, pin: dict[str, str], plan: list[list[str]], writes_of, *, finished: bool,
             damage: bool = False, draining: list[bool] | None = None) -> list[tuple[list, list]]:
    """Each merge's (check findings, look findings) of a drain of `plan`, its tasks' facts computed
    first by another index (another process: `finished`), their rows on disk damaged (`damage`);
    `draining` holds True while the drain runs."""
    repo, merges = drain_of(root / "repo.git", pin, plan, writes_of)
    git = GitRepo(str(root / "repo.git"))
    folder = index_folder(repo)
    if finished:
        finisher = MergeIndex(folder)
        for base, _tip, task, _merged in merges:
            keep_task_facts(git, base, task, finisher)
        finisher.flush()
    if damage:
        with sqlite3.connect(str(folder / f"v{FORMAT}" / "symbols.sqlite3")) as db:
            assert db.execute("UPDATE symbols SET value = x'80'").rowcount > 0
    index = shared_index(folder)   # the drain's process: its own index, which loads them from disk
    out = []
    draining = draining if draining is not None else []
    draining.append(True)
    with index.held():   # as `wtc merge` holds it for its drain
        for base, tip, task, merged in merges:
            found = check_tree_merge(repo, base, tip, task, merged, index=index)
            out.append((findings_of(found), findings_of(left_behind_at_merge(git, base, task, merged, "t"))))
    draining.clear()
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(ALL), min_size=1, max_size=3), min_size=2, max_size=6))
def test_a_drain_after_the_finishes_answers_as_a_cold_drain(tmp_path_factory, plan: list[list[str]]) -> None:
    cold = _drained(tmp_path_factory.mktemp("cold"), PIN, plan, _writes_of, finished=False)
    assert _drained(tmp_path_factory.mktemp("finished"), PIN, plan, _writes_of, finished=True) == cold, plan


def test_damaged_facts_are_computed_again(tmp_path: Path) -> None:
    plan = [["rename-a1", "use-barrel"], ["remove-b2"], ["reshape-a2", "use-alias"], ["move-d"], ["stub-b"]]
    cold = _drained(tmp_path / "cold", PIN, plan, _writes_of, finished=False)
    assert any(look for _check, look in cold)   # (uses are left behind: the look reads the facts)
    assert _drained(tmp_path / "damaged", PIN, plan, _writes_of, finished=True, damage=True) == cold


# A drain as bench_merge's: each task edits two functions' bodies in two files of its package,
# adds a file and deletes one.
def _module(p: int, j: int, tag: str = "") -> str:
    return f"import os\nfrom .m0 import f0\n\n\n" + "".join(
        f"def f{k}(x):\n    return f0(x) * {k} + {p + j}{tag}\n\n\n" for k in range(1, 6))


BENCH_PIN = {f"p{p}/m{j}.py": _module(p, j) for p in range(4) for j in range(4)} | \
    {f"p{p}/m0.py": "def f0(x):\n    return x\n" for p in range(4)}


def _bench_writes(number: int, _change: str) -> dict[str, str | None]:
    return {f"p{number}/m1.py": _module(number, 1, f"  # task {number}"),
            f"p{number}/m2.py": _module(number, 2, f"  # task {number}"),
            f"p{number}/new_{number}.py": _module(number, 9), f"p{number}/m3.py": None}


def _task_texts(number: int) -> set[bytes]:
    """Every version of task `number`'s changed files (the pin's and the task's)."""
    writes = _bench_writes(number, "")
    return {text.encode() for path in writes for text in (BENCH_PIN.get(path), writes[path]) if text is not None}


def test_a_drain_parses_none_of_a_finished_tasks_versions(tmp_path: Path, monkeypatch) -> None:
    parsed: Counter[str] = Counter()
    texts = set().union(*(_task_texts(number) for number in range(4)))
    parse = Profile.parse

    draining: list[bool] = []

    def counted(self, source, like=None):
        if draining and bytes(source) in texts:
            parsed[drain] += 1
        return parse(self, source, like)

    monkeypatch.setattr(Profile, "parse", counted)
    plan = [["edit"]] * 4
    answers = {}
    for drain in ("cold", "finished"):
        answers[drain] = _drained(tmp_path / drain, BENCH_PIN, plan, _bench_writes, finished=drain == "finished",
                                  draining=draining)
    assert answers["finished"] == answers["cold"]
    assert parsed["cold"] > 0, parsed       # (each merge reads the task's versions)
    assert parsed["finished"] == 0, parsed  # all read at the finishes, loaded from disk


def test_a_finish_keeps_its_facts_for_the_drain_of_another_process(tmp_path: Path, monkeypatch) -> None:
    """`wtc task finish --no-merge` computes them and writes them to disk; a `wtc merge` in another
    process (here: this one, its indexes forgotten) reads the task's versions from there."""
    files = {f"pkg/m{j}.py": _module(0, j) for j in range(1, 4)} | {"pkg/m0.py": "def f0(x):\n    return x\n"}
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    written = {}
    for number, path in enumerate(("pkg/m1.py", "pkg/m2.py")):
        code, body = wtc_in_process(repo, "task", "start", f"t{number}", "--run", "r", "--own", path)
        assert code == 0, body
        written[path] = _module(0, number + 1, f"  # task {number}").replace("def f5", "def f5b")
        (Path(body["worktree"]) / path).write_text(written[path])
        code, body = wtc_in_process(repo, "task", "finish", f"t{number}", "--run", "r", "--no-merge")
        assert code == 0 and body["state"] == "finished", body
    # (the tasks' versions: a pin version may be read by another task's merge, as a user of its names)
    texts = {text.encode() for text in written.values()}
    monkeypatch.setattr(merge_index, "_SHARED", {})   # another process: nothing kept in memory
    parsed = []
    parse = Profile.parse

    def counted(self, source, like=None):
        if bytes(source) in texts:
            parsed.append(bytes(source))
        return parse(self, source, like)

    monkeypatch.setattr(Profile, "parse", counted)
    code, body = wtc_in_process(repo, "merge", "--run", "r")
    assert code == 0 and [row["state"] for row in body["tasks"]] == ["merged", "merged"], body
    assert not parsed, len(parsed)


def test_a_drain_diffs_none_of_a_finished_tasks_edits_for_their_words(tmp_path: Path, monkeypatch) -> None:
    """The words of the lines each edit added (the task's file as a user of the tip's) and touched
    with those above (as a candidate) are the task's alone: its finish computes them, and the
    drain's check takes them from the index, as it takes the edit's gone words."""
    from worktree_coord.merge.checks import reach

    def writes(number: int, change: str) -> dict[str, str | None]:
        # (and its package's m0, which every file of the run imports: the tip's files spelling `m0`
        # pair with it, as the tip's users of the task's candidates)
        return _bench_writes(number, change) | {f"p{number}/m0.py": f"def f0(x):\n    return x + {number}\n"}

    texts = {text.encode() for number in range(4) for path, text in writes(number, "").items()
             for text in (BENCH_PIN.get(path), text) if text is not None}
    draining: list[bool] = []
    diffed: Counter[str] = Counter()
    for name in ("added_words", "near_words"):
        def counted(base, new, _name=name, _real=getattr(reach, name)):
            if draining and base in texts and new in texts:
                diffed[f"{drain} {_name}"] += 1
            return _real(base, new)
        monkeypatch.setattr(reach, name, counted)
    answers = {}
    for drain in ("cold", "finished"):
        answers[drain] = _drained(tmp_path / drain, BENCH_PIN, [["edit"]] * 4, writes,
                                  finished=drain == "finished", draining=draining)
    assert answers["finished"] == answers["cold"]
    assert diffed["cold added_words"] and diffed["cold near_words"], diffed   # (each merge reads them)
    assert not diffed["finished added_words"] and not diffed["finished near_words"], diffed


def test_a_new_files_added_words_are_its_words_read_once(tmp_path: Path, monkeypatch) -> None:
    """A file the task added is all added lines: its words, by its blob (which the tip's tables read
    of it too), not a diff against nothing keyed by hashes at every merge."""
    from worktree_coord.merge.checks import reach

    draining: list[bool] = []
    asked: list[str] = []
    diffed: list[bytes] = []
    real_added, real_words = reach.Reach._added, reach.added_words

    def added(self, side, path):
        if draining and not self._files[path].exists("base"):
            asked.append(path)
        return real_added(self, side, path)

    def words_added(base, new):
        if draining and not base:
            diffed.append(new)
        return real_words(base, new)

    monkeypatch.setattr(reach.Reach, "_added", added)
    monkeypatch.setattr(reach, "added_words", words_added)
    _drained(tmp_path, BENCH_PIN, [["edit"]] * 4, _bench_writes, finished=True, draining=draining)
    assert asked, "no new file was asked for its added words: the drain no longer pairs what the test says"
    assert not diffed, len(diffed)


def _cold_then_finished(root: Path, draining: list[bool], current: list[str]) -> None:
    """bench_merge's drain of 4 tasks cold, then after the finishes (`current` names the one
    running, `draining` holds True while it does): the same answers."""
    answers = {}
    for name in ("cold", "finished"):
        current[:] = [name]
        answers[name] = _drained(root / name, BENCH_PIN, [["edit"]] * 4, _bench_writes,
                                 finished=name == "finished", draining=draining)
    assert answers["finished"] == answers["cold"]


def test_a_drain_reads_a_finished_tasks_facts_in_one_row(tmp_path: Path, monkeypatch) -> None:
    """The finish keeps its task's facts as one row too (MergeIndex.keep_task): the drain's
    prefetch reads that row, not a row per fact (a query of ~55 keys a merge); the answers are
    the cold drain's."""
    rows = merge_index._SymbolRows
    draining: list[bool] = []
    asked: Counter[str] = Counter()
    real_many, real_get = rows.get_many, rows.get

    current: list[str] = []

    def get_many(self, keys):
        if draining:
            asked[f"{current[0]} many"] += 1
        return real_many(self, keys)

    def get(self, key):
        if draining and key.startswith(b"\0t"):
            asked[f"{current[0]} task"] += 1
        return real_get(self, key)

    monkeypatch.setattr(rows, "get_many", get_many)
    monkeypatch.setattr(rows, "get", get)
    _cold_then_finished(tmp_path, draining, current)
    assert asked["cold many"] == 4, asked          # (no finish: a query of the facts' rows a merge)
    assert asked["finished task"] == 4 and not asked["finished many"], asked


def test_a_damaged_task_row_is_computed_again(tmp_path: Path, monkeypatch) -> None:
    """A task's row that does not unpickle (and no row of its own for any of its facts): each fact
    is computed again when asked, as a damaged row's is; the answers are the cold drain's."""
    plan = [["rename-a1", "use-barrel"], ["remove-b2"], ["reshape-a2", "use-alias"], ["move-d"], ["stub-b"]]
    cold = _drained(tmp_path / "cold", PIN, plan, _writes_of, finished=False)
    real = MergeIndex.keep_task
    kept: list[bytes] = []

    def task_rows_only(self, edits):
        real(self, edits)
        with self._lock:
            self._pending = {row: value for row, value in self._pending.items() if row.startswith(b"\0t")}
        kept.extend(self._pending)

    monkeypatch.setattr(MergeIndex, "keep_task", task_rows_only)
    damaged = []
    real_unpickle = merge_index._unpickle

    def unpickle(data, stats):
        value = real_unpickle(data, stats)
        if isinstance(value, dict) and any(key.startswith(b"\0t") for key in kept):
            damaged.append(len(value))
            return real_unpickle(b"\x80", stats)   # (as a torn row reads: counted, computed again)
        return value

    monkeypatch.setattr(merge_index, "_unpickle", unpickle)
    assert _drained(tmp_path / "damaged", PIN, plan, _writes_of, finished=True) == cold
    assert damaged, "no task row was read"


def test_a_drain_scans_none_of_a_finished_tasks_new_versions_for_their_words(tmp_path: Path, monkeypatch) -> None:
    """A task's new versions' words (reach.standing_words, by the blob: what the next tip's tables
    take in and reach.py's pairing reads) are the task's alone: its finish scans them and keeps
    them with its other facts, and the drain reads them there."""
    from worktree_coord.merge import tree
    from worktree_coord.merge.checks import reach

    new_texts = {text.encode() for number in range(4) for text in _bench_writes(number, "").values() if text}
    draining: list[bool] = []
    scanned: Counter[str] = Counter()
    real = reach.standing_words
    current: list[str] = []

    def counted(data):
        if draining and bytes(data) in new_texts:
            scanned[current[0]] += 1
        return real(data)

    monkeypatch.setattr(reach, "standing_words", counted)
    monkeypatch.setattr(tree, "standing_words", counted)
    _cold_then_finished(tmp_path, draining, current)
    assert scanned["cold"] > 0, scanned   # (the tables take each new version in)
    assert scanned["finished"] == 0, scanned


def test_a_finish_pickles_each_fact_once_and_every_reader_finds_it(tmp_path: Path, monkeypatch) -> None:
    """A finish keeps each fact in its task's row (keep_task) and in a row of its own: the value is
    pickled once, in the task's row, and its own row names that row (a finish pickled every fact
    twice, +4.6 M instructions a task); a reader of the fact's own row alone (another task's finish
    sharing a version, `known_symbols`) gets the same value, and one whose task row is gone
    computes it again."""
    import pickle

    from worktree_coord.merge.checks.semantic import semantic_profile
    from worktree_coord.merge.checks.symbols import fingerprint

    repo, merges = drain_of(tmp_path / "repo.git", BENCH_PIN, [["edit"]], _bench_writes)
    git = GitRepo(str(tmp_path / "repo.git"))
    base, _tip, task, _merged = merges[0]
    finisher = MergeIndex(index_folder(repo))
    pickled: Counter[int] = Counter()
    real_dumps = pickle.dumps

    def dumps(value, *args, **kwargs):
        seen, stack = set(), [value]
        while stack:   # each Symbols value inside what is pickled, by identity
            item = stack.pop()
            if id(item) in seen:
                continue
            seen.add(id(item))
            if type(item).__name__ == "Symbols":
                pickled[id(item)] += 1
            elif isinstance(item, dict):
                stack += item.values()
            elif isinstance(item, (tuple, list)):
                stack += item
        return real_dumps(value, *args, **kwargs)

    monkeypatch.setattr(pickle, "dumps", dumps)
    keep_task_facts(git, base, task, finisher)
    finisher.flush()
    monkeypatch.setattr(pickle, "dumps", real_dumps)
    assert pickled and set(pickled.values()) == {1}, sorted(pickled.values())
    # Another process reads one version's extraction by its own row: the finish's value.
    key = fingerprint(semantic_profile("p0/m1.py"))
    new_blob = bytes.fromhex(str(git.repo.revparse_single(f"{task}:p0/m1.py").id))
    mode = (True, False)   # (the check's extraction, as _keep_version asks)
    wanted = finisher.kept_symbols(key, new_blob, False)
    assert wanted is not merge_index.MISSING
    reader = MergeIndex(index_folder(repo))
    assert reader.known_symbols(key, new_blob, mode) == wanted
    # Its task's row gone: the fact's row answers nothing (computed again), never another value.
    with sqlite3.connect(str(index_folder(repo) / f"v{FORMAT}" / "symbols.sqlite3")) as db:
        assert db.execute("DELETE FROM symbols WHERE substr(key, 1, 2) = x'0074'").rowcount == 1
    assert MergeIndex(index_folder(repo)).known_symbols(key, new_blob, mode) is merge_index.MISSING
