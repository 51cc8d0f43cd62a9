"""The tables of an integration tip's files (merge/checks/tip_index.py) answer what a walk over every file
answers: a drain of tasks into a tip on a real repository (Python packages with `__init__.py`
barrels, TypeScript with `export *` barrels and kebab-case modules, Go packages, deletions, renames,
a renamed name used through a barrel by a later task), each merge's reach (which words of which
file may break a use) and findings compared between the tables and the walk, with the caps of
reach.py at their defaults and shrunk so every branch of it runs."""

from __future__ import annotations

import contextlib
import subprocess
import sys

from pathlib import Path

import pygit2
import pytest

from tests.conftest import commit, git, make_repo
from tests.merge.drains import merged_in_order, reach_maps
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import reach, tip_index
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.tree import _changes, _tip_tables



def _py(name: str, body: str = "") -> str:
    return f"def {name}(x):\n    return x + 1\n\n\ndef {name}_b(x):\n    return x * 2\n{body}"


def _ts(name: str, body: str = "") -> str:
    return f"export function {name}(x: number): number {{\n  return x + 1;\n}}\n{body}"


BASE_SUB = "def helper():\n    return 1\n\n\n# one\n# two\n# three\n\n\ndef tool():\n    return 2\n"
BASE: dict[str, str] = {
    "__init__.py": "",
    "pkg/__init__.py": "from .util import parse\nfrom .more import *\n",
    "pkg/util.py": _py("parse"),
    "pkg/more.py": _py("more"),
    "pkg/app.py": "from pkg import parse\n\n\ndef run(x):\n    return x\n",
    "pkg/sub/__init__.py": BASE_SUB,
    "pkg/sub/deep.py": _py("deep"),
    "web/src/index.ts": 'export * from "./str-utils";\nexport * from "./num";\n',
    "web/src/str-utils.ts": _ts("trimAll"),
    "web/src/num.ts": _ts("addOne"),
    "web/src/view.ts": 'import { addOne } from "./index";\n\nexport const v = 1;\n',
    "go/lib/a.go": "package lib\n\nfunc Alpha() int {\n\treturn 1\n}\n",
    "go/lib/b.go": "package lib\n\nfunc Beta() int {\n\treturn 2\n}\n",
    **{f"many/m{i:02}.py": _py(f"f{i:02}") for i in range(40)},
    **{f"wide/w{i:02}.py": _py(f"h{i:02}") for i in range(40)},
}

# Each task's change on its own branch off the pin (None deletes a file).
TASKS: list[tuple[str, dict[str, str | None]]] = [
    # Integration's files that later tasks break: by a module word, below a package's __init__.py.
    ("use-more", {"pkg/usemore.py": "from pkg.more import more\n\n\ndef go(x):\n    return more(x)\n"}),
    ("sub-user", {"pkg/sub/user2.py": "from . import tool\n\n\ndef go(x):\n    return tool()\n"}),
    ("init-rename", {"pkg/sub/__init__.py": BASE_SUB.replace("def helper(", "def helper2(")}),
    ("wide-user", {"wide/user.py": "from wide.w05 import h05\n\n\ndef go(x):\n    return h05(x) + 0x1F\n"}),
    ("edit-many", {f"many/m{i:02}.py": _py(f"f{i:02}", f"\n\ndef g{i:02}(x):\n    return x\n") for i in range(0, 40, 2)}),
    ("delete", {"many/m01.py": None}),
    ("rename-file", {"many/m03.py": None, "many/moved03.py": _py("f03")}),
    ("rename-def", {"pkg/util.py": _py("parse").replace("def parse(", "def parse_text(")}),
    # Uses the name the previous task renamed, through the package's __init__.py.
    ("use-barrel", {"pkg/app.py": "from pkg import parse\n\n\ndef run(x):\n    return parse(x)\n"}),
    ("ts-rename", {"web/src/num.ts": _ts("addOne").replace("addOne", "incr")}),
    ("ts-use", {"web/src/view.ts": 'import { addOne } from "./index";\n\nexport const v = addOne(1);\n'}),
    ("kebab", {"web/src/str-utils.ts": _ts("trimAll", "export const extra = 2;\n")}),
    ("kebab-use", {"web/src/page.ts": 'import { trimAll } from "./str-utils";\n\nexport const p = trimAll(2);\n'}),
    ("go-rename", {"go/lib/a.go": "package lib\n\nfunc Alpha2() int {\n\treturn 1\n}\n"}),
    ("go-use", {"go/lib/c.go": "package lib\n\nfunc Gamma() int {\n\treturn Alpha()\n}\n"}),
    ("root-init", {"__init__.py": "VALUE = 1\n"}),
    ("deep", {"pkg/sub/deep.py": None, "pkg/sub/deeper.py": _py("deep", "\n\nmore = 1\n")}),
    ("same-as-tip", {"many/m00.py": _py("f00", "\n\ndef g00(x):\n    return x\n")}),
    ("delete-many", {f"many/m{i:02}.py": None for i in range(21, 40, 2)}),
    ("uses-many", {f"many/use{i:02}.py": f"from many.m{i:02} import f{i:02}\n\nf{i:02}(1)\n" for i in range(21, 40, 2)}),
    ("remove-more", {"pkg/more.py": _py("more").replace("def more(", "def more_x(")}),
    ("tool-rename", {"pkg/sub/__init__.py": BASE_SUB.replace("def tool(", "def tool2(")}),
    ("init-use", {"pkg/sub/inner.py": "from . import helper\n\n\ndef go(x):\n    return helper()\n"}),
    # More than 32 module words on the task's side: integration's users looked up by whole word.
    ("wide-rename", {f"wide/w{i:02}.py": _py(f"h{i:02}").replace(f"def h{i:02}(", f"def h{i:02}x(") for i in range(40)}),
    ("mode-only", {}),
]


def _drain(tmp_path: Path) -> tuple[pygit2.Repository, list[tuple[str, str, str, str]]]:
    root = make_repo(tmp_path / "repo", BASE)
    pin = git(root, "rev-parse", "HEAD")
    tasks = []
    for name, files in TASKS:
        git(root, "checkout", "-q", "-b", f"task-{name}", pin)
        if name == "mode-only":
            (root / "pkg/more.py").chmod(0o755)
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", name)
            tasks.append(git(root, "rev-parse", "HEAD"))
        else:
            tasks.append(commit(root, files, name))
    repo = pygit2.Repository(str(root))
    merges = merged_in_order(repo, pin, tasks)
    return repo, merges


_reach = reach_maps


def _findings(found) -> list[tuple]:
    return [(f.problem, f.name, f.definition_path, f.use_path, f.use_line) for f in found]


def _tasks_merged(root: Path, pin: str, plan) -> tuple[pygit2.Repository, list[tuple[str, str, str, str]]]:
    """Each (name, files) of `plan` a task branch off the pin, merged in order (drains.merged_in_order)."""
    tasks = []
    for name, files in plan:
        git(root, "checkout", "-q", "-b", f"task-{name}", pin)
        tasks.append(commit(root, files, name))
    repo = pygit2.Repository(str(root))
    return repo, merged_in_order(repo, pin, tasks)


def _gone_asked(monkeypatch, sides: tuple[str, ...] = ("left", "right")) -> list[str]:
    """The paths whose gone words reach.py computes (Reach._gone) on `sides`, as they are asked."""
    asked: list[str] = []
    real = reach.Reach._gone

    def counted(self, side: str, path: str) -> frozenset[bytes]:
        if side in sides:
            asked.append(path)
        return real(self, side, path)

    monkeypatch.setattr(reach.Reach, "_gone", counted)
    return asked


@pytest.mark.parametrize("caps", ["default", "small", "held"])
def test_the_tip_tables_reach_what_a_walk_reaches_over_a_drain(tmp_path: Path, monkeypatch, caps: str) -> None:
    """`held`: as `wtc merge` drains (MergeIndex.held), each tip's tables taken over by the next
    tip's instead of copied; the answers are the same."""
    if caps == "small":   # every branch of reach.py's step 1b: few and many candidates, a cut pool
        monkeypatch.setattr(reach, "BARREL_USERS", 3)
        monkeypatch.setattr(reach, "BARREL_CANDIDATES", 4)
    repo, merges = _drain(tmp_path)
    tables, walked = MergeIndex(tmp_path / "index"), MergeIndex()
    lively = 0
    with tables.held() if caps == "held" else contextlib.nullcontext():
        for merge in merges:
            by_tables = _reach(repo, merge, tables, walk=False)
            by_walk = _reach(repo, merge, walked, walk=True)
            assert by_tables == by_walk, merge
            lively += sum(1 for side in by_walk.values() for words in side.values() if words)
        if caps == "held":
            assert tables.stats["tables_derived"] >= len(merges) - 3
            built = tables.stats["tables_built"]
            # A tip checked again after its tables were taken over: built again, the same answers.
            assert _reach(repo, merges[3], tables, walk=False) == _reach(repo, merges[3], walked, walk=True)
            assert tables.stats["tables_built"] == built + 1
    assert lively > 5   # the drain does pair files: the comparison is not of empty maps
    if caps == "held":   # the drain's end wrote its newest tables (the last asked), which another process loads
        other = MergeIndex(tmp_path / "index")
        assert _reach(repo, merges[3], other, walk=False) == _reach(repo, merges[3], MergeIndex(), walk=True)
        assert other.stats["tables_built"] == 0 and other.stats["tables_disk"] == 1


def test_the_tip_tables_find_what_a_walk_finds(tmp_path: Path) -> None:
    repo, merges = _drain(tmp_path)
    warm, found = MergeIndex(), []
    for merge in merges:
        hot = _findings(check_tree_merge(repo, *merge, index=warm))
        assert hot == _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
        found += hot
    # The drain breaks names: through a Python barrel, a TypeScript barrel and a Go package.
    assert ("broken", "parse", "pkg/util.py", "pkg/app.py", 5) in found
    assert any(f[1] == "addOne" and f[3] == "web/src/view.ts" for f in found)
    assert any(f[1] == "Alpha" and f[3] == "go/lib/c.go" for f in found)
    # And a name an earlier task's file (integration's, answered by the tables) uses.
    assert any(f[1] == "more" and f[3] == "pkg/usemore.py" for f in found)
    assert any(f[1] == "h05" and f[3] == "wide/user.py" for f in found)


def test_a_drain_reads_the_gone_words_of_each_pair_of_contents_once(tmp_path: Path, monkeypatch) -> None:
    """Step 1b's gone words (reach._gone_words) of a tip's file, asked on every merge while the tip's
    candidates are few, are kept by the pair of contents (MergeIndex.memo): over the drain each pair
    is read once. They cannot go stale: a later task's edit of the file is another pair (the
    rename-def task's pkg/util.py, whose gone `parse` the use-barrel task's use then breaks), and
    the findings are the walk's."""
    seen: list[tuple[bytes, bytes | None]] = []
    real = reach._gone_words

    def counted(base: bytes, new: bytes | None, kept: frozenset[bytes] | None = None) -> frozenset[bytes]:
        seen.append((base, new))
        return real(base, new, kept)

    monkeypatch.setattr(reach, "_gone_words", counted)
    repo, merges = _drain(tmp_path)
    index, found = MergeIndex(), []
    for merge in merges:
        hot = _findings(check_tree_merge(repo, *merge, index=index))
        assert hot == _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
        found += hot
    assert ("broken", "parse", "pkg/util.py", "pkg/app.py", 5) in found
    seen.clear()
    index = MergeIndex()
    for merge in merges:
        check_tree_merge(repo, *merge, index=index)
    assert len(seen) > len(merges) and len(seen) == len(set(seen))
    seen.clear()
    for merge in merges:
        check_tree_merge(repo, *merge, index=index)
    assert seen == []   # the drain checked again: every pair kept


def test_a_drain_scans_the_words_of_each_task_file_once(tmp_path: Path, monkeypatch) -> None:
    """The words of a task's file are read by three steps: its gone words and the module words it
    spells (reach.py, this merge) and the next tip's tables (tip_index.py, the next merge). They are
    kept by blob id (MergeIndex.memo "words"), so each task file's bytes are scanned once over the
    drain; a blob id names one content, so the words kept cannot go stale; the findings are the walk's."""
    from worktree_coord.merge import tree

    task_blobs = {text.encode() for _, files in TASKS for text in files.values() if text is not None}
    scans: list[bytes] = []

    def counting(real):
        def scan(data: bytes):
            if data in task_blobs:
                scans.append(data)
            return real(data)
        return scan

    monkeypatch.setattr(reach, "words", counting(reach.words))
    monkeypatch.setattr(reach, "standing_words", counting(reach.standing_words))
    monkeypatch.setattr(tree, "standing_words", counting(tree.standing_words))
    repo, merges = _drain(tmp_path)
    index, found = MergeIndex(), []
    for merge in merges:
        found += _findings(check_tree_merge(repo, *merge, index=index))
    assert len(set(scans)) > 10   # the task files were read
    assert sorted(scans) == sorted(set(scans))   # each once
    walked = MergeIndex()
    assert found == [f for merge in merges for f in _findings(check_tree_merge(repo, *merge, index=walked, walk=True))]
    assert ("broken", "parse", "pkg/util.py", "pkg/app.py", 5) in found


def test_a_tip_checked_again_after_the_next_is_answered_from_its_own_tables(tmp_path: Path) -> None:
    """A merge retried against the tip it was first checked on (its CAS lost, say) after the
    tables moved on: the earlier tip's tables are whole, or built again."""
    repo, merges = _drain(tmp_path)
    index = MergeIndex()
    for merge in merges:
        check_tree_merge(repo, *merge, index=index)
    for merge in (merges[4], merges[2], merges[-1], merges[6]):
        assert _reach(repo, merge, index, walk=False) == _reach(repo, merge, MergeIndex(), walk=True)


def test_another_process_loads_a_tips_tables_from_disk_and_a_damaged_one_is_built_again(tmp_path: Path) -> None:
    """One index writes tables as a drain goes (built, then every TABLES_EVERY-th tip); a second
    one on the same folder (what the next `wtc task finish` process opens) loads them for the
    same tip or derives them from a tip before it, and answers as the walk does."""
    repo, merges = _drain(tmp_path)
    folder = tmp_path / "index"
    first = MergeIndex(folder)
    for merge in merges[:12]:
        check_tree_merge(repo, *merge, index=first)
    assert first.stats["tables_built"] == 1 and first.stats["tables_derived"] == 11
    written = sorted((folder / "v1" / "tables").iterdir())
    assert len(written) == 2   # the first tip's, built, and the 9th's (the 8th derived)
    for merge in merges[12:]:
        second = MergeIndex(folder)   # a fresh process per merge
        assert _reach(repo, merge, second, walk=False) == _reach(repo, merge, MergeIndex(), walk=True)
        assert second.stats["tables_built"] == 0 and second.stats["tables_disk"] == 1
    for path in (folder / "v1" / "tables").iterdir():
        path.write_bytes(path.read_bytes()[:20])   # truncated
    damaged = MergeIndex(folder)
    assert _reach(repo, merges[-1], damaged, walk=False) == _reach(repo, merges[-1], MergeIndex(), walk=True)
    assert damaged.stats["corrupt"] > 0 and damaged.stats["tables_built"] == 1


def test_words_after_a_digit_are_held_but_not_spelled_alone(tmp_path: Path) -> None:
    """`0x1F` holds the word x1F (reach.words) but does not spell it whole (reach.spelling): the
    tables keep both answers apart, as the walk's byte searches tell them apart."""
    from worktree_coord.merge.checks.tip_index import standing_words

    clean, dirty = standing_words(b"value = 0x1F + x1F_b\nname\xc3\xa9x = 1\n")
    assert b"x1F" in dirty and b"x1F" not in clean and b"x1F_b" in clean
    assert b"name\xc3\xa9x" in clean
    assert reach.words(b"0x1F") == {b"x1F"} and reach.spelling([b"x1F"]).search(b"0x1F") is None


def test_the_tree_walk_lists_what_gits_tree_diff_lists(tmp_path: Path) -> None:
    """tree._changes with the repository walks the trees itself (libgit2's diff grew with the
    repository's size); it lists the same paths and sides as git's diff: over a drain's tips and
    tasks, and for a file that became a folder, a folder that became a file, a file that became a
    symlink, an executable bit, a deletion and an addition."""
    repo, merges = _drain(tmp_path / "drain")
    trees = {str(repo[x].peel(pygit2.Tree).id): repo[x].peel(pygit2.Tree) for merge in merges for x in merge}
    listed = list(trees.values())
    for old in listed[::3]:
        for new in listed[::2]:
            assert _changes(old, new, repo) == _changes(old, new)
    root = make_repo(tmp_path / "kinds", {"a/x.py": "x = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n",
                                          "d.py": "d = 1\n", "e/f/g.py": "g = 1\n", "h.py": "h = 1\n"})
    before = git(root, "rev-parse", "HEAD")
    git(root, "rm", "-q", "-r", "a", "b.py")
    (root / "a").write_text("now a file\n")
    (root / "b.py").mkdir()
    (root / "b.py" / "inner.py").write_text("inner = 1\n")
    (root / "c.py").unlink()
    (root / "c.py").symlink_to("d.py")
    (root / "d.py").chmod(0o755)
    (root / "h.py").unlink()
    (root / "new.py").write_text("new = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "kinds")
    kinds = pygit2.Repository(str(root))
    old, new = kinds[before].peel(pygit2.Tree), kinds.head.peel(pygit2.Tree)
    walked = _changes(old, new, kinds)
    assert walked == _changes(old, new)
    assert walked == _changes(old, new) and {"a", "a/x.py", "b.py", "b.py/inner.py", "c.py", "d.py", "h.py",
                                             "new.py"} <= set(walked)
    assert _changes(new, old, kinds) == _changes(new, old)


def test_the_tree_walk_reads_a_folder_with_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    """tree._changes reads tree objects' bytes; a folder holding a name that is not UTF-8 is walked
    through pygit2's entries instead, with the same rows."""
    from worktree_coord.merge.tree import _walk_changes

    root = make_repo(tmp_path / "names", {"pkg/a.py": "a = 1\n", "pkg/b.py": "b = 1\n"})
    repo = pygit2.Repository(str(root))
    head = repo.head.peel(pygit2.Tree)
    blob = repo.create_blob(b"odd = 1\n")
    listing = subprocess.run(["git", "ls-tree", str(head["pkg"].id)], cwd=root, capture_output=True, check=True).stdout
    listing += b"100644 blob " + str(blob).encode() + b"\t" + "caf\u00e9.py".encode("latin-1") + b"\n"
    pkg = subprocess.run(["git", "mktree"], cwd=root, input=listing, capture_output=True, check=True).stdout.strip()
    builder = repo.TreeBuilder(head)
    builder.insert("pkg", pygit2.Oid(hex=pkg.decode()), pygit2.GIT_FILEMODE_TREE)
    odd = repo[builder.write()]
    for old, new in ((head, odd), (odd, head)):
        expected: dict = {}
        _walk_changes(repo, old, new, "", expected)
        assert _changes(old, new, repo) == expected and len(expected) == 1


def test_a_part_of_a_word_is_looked_up_as_a_scan_of_the_vocabulary_finds_it(tmp_path: Path) -> None:
    """TipIndex.holding answers from its index of the words' three-byte runs what a scan of every
    word answers, for every part of every word, at each tip of a drain (words come and go)."""
    repo, merges = _drain(tmp_path)
    index = MergeIndex()
    checked = 0
    for merge in merges:
        trees = [repo[x].peel(pygit2.Tree) for x in merge]
        changes = [index.changes(repo, trees[0], trees[1], _changes), _changes(trees[0], trees[2]),
                   index.advance(repo, trees[0], trees[1], trees[3], _changes)]
        tip, _ = _tip_tables(repo, index, trees, changes, merge[1])
        vocabulary = set(tip.words.data) | set(tip.dirty.data)
        assert set().union(*tip.grams.data.values()) <= vocabulary if tip.grams.data else True
        parts = {word[at:at + size] for word in vocabulary for size in (1, 2, 3, 4, 6) for at in range(len(word))}
        for part in parts | {b"zzzq", b"_x_"}:
            scanned = set().union(*(tip.words.get(w) | tip.dirty.get(w) for w in vocabulary if part in w))
            assert tip.holding(part) == scanned, part
            checked += 1
    assert checked > 1000


def test_a_drain_computes_each_paths_module_once(tmp_path: Path, monkeypatch) -> None:
    """The check's index of which file is which module (semantic._Check.resolve: where an import
    leads) lists every file of the merge, which for a tip is every file the run changed; each
    path's module is kept for the process (semantic._module_facts: pure in the path and the
    profile's rules), so over a drain each is asked of `_module_path` once per language's rules, not
    once a merge; the
    findings are the walk's (through a barrel, a TypeScript re-export and a Go package, which
    resolve() answers)."""
    from worktree_coord.merge.checks import semantic

    semantic._MODULE_FACTS.clear()
    computed: list[tuple[str, int]] = []
    real = semantic._module_path

    def counted(path: str, rules) -> str:
        if sys._getframe(1).f_code.co_name == "module_fact":   # kept per path and rules (the index's, may_import's)
            computed.append((path, id(rules)))
        return real(path, rules)

    monkeypatch.setattr(semantic, "_module_path", counted)
    repo, merges = _drain(tmp_path)
    index, found = MergeIndex(), []
    for merge in merges:
        found += _findings(check_tree_merge(repo, *merge, index=index))
    assert len(computed) > 10 and len(computed) == len(set(computed))
    semantic._MODULE_FACTS.clear()
    walked = MergeIndex()
    assert found == [f for merge in merges for f in _findings(check_tree_merge(repo, *merge, index=walked, walk=True))]
    assert ("broken", "parse", "pkg/util.py", "pkg/app.py", 5) in found
    assert any(f[1] == "addOne" and f[3] == "web/src/view.ts" for f in found)


def test_a_drain_of_a_language_without_re_exports_reads_no_gone_words(tmp_path: Path, monkeypatch) -> None:
    """Step 1b follows imports through files that re-export names (profile module_files): in a run
    whose files are of languages without re-exports (Go here), no file of either side is read
    there, so the task's files' gone words (a line diff and word scans each) are not computed for
    it; the findings are the walk's, the renamed function's use among them."""
    go = {f"go/lib/f{i}.go": f"package lib\n\nfunc F{i}() int {{\n\treturn {i}\n}}\n" for i in range(6)}
    root = make_repo(tmp_path / "repo", go)
    pin = git(root, "rev-parse", "HEAD")
    repo, merges = _tasks_merged(root, pin, [
        ("rename", {"go/lib/f0.go": go["go/lib/f0.go"].replace("F0", "G0")}),
        ("delete", {"go/lib/f1.go": None}),
        ("edit", {"go/lib/f2.go": go["go/lib/f2.go"].replace("return 2", "return 22")}),
        ("use", {"go/lib/g.go": "package lib\n\nfunc G() int {\n\treturn F0() + F1()\n}\n"})])
    asked = _gone_asked(monkeypatch)
    index, found = MergeIndex(), []
    for merge in merges:
        hot = _findings(check_tree_merge(repo, *merge, index=index))
        assert hot == _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
        found += hot
    assert {(name, use) for _, name, _, use, _ in found} == {("F0", "go/lib/g.go"), ("F1", "go/lib/g.go")}
    assert asked == []


def test_a_merge_whose_task_lost_no_word_reads_no_imports_of_the_tip(tmp_path: Path, monkeypatch) -> None:
    """Step 1b looks, through files that re-export names, for the users of a name gone from the
    task's files: when no word is gone (the task added lines, or kept every word of the lines it
    edited: a comment appended, as the swarm's agents do), nothing can be looked for, so the tip's
    imports are not read (`may_import`: each unread file parsed, and a query compiled in a process
    that had none). The findings are the walk's; a later rename still reads them and is found."""
    root = make_repo(tmp_path / "repo", BASE)
    pin = git(root, "rev-parse", "HEAD")
    plan = [("barrel-use", {"pkg/app2.py": "from pkg import parse\n\n\ndef go(x):\n    return parse(x)\n"}),
            ("comment", {"pkg/sub/deep.py": _py("deep").replace("return x + 1\n", "return x + 1  # one more\n", 1)}),
            ("append", {"pkg/more.py": _py("more", "\n\ndef extra(x):\n    return x\n")}),
            ("rename", {"pkg/util.py": _py("parse").replace("def parse(", "def parse_text(")})]
    tasks = []
    for name, changed in plan:
        git(root, "checkout", "-q", "-b", f"task-{name}", pin)
        tasks.append(commit(root, changed, name))
    repo = pygit2.Repository(str(root))
    merges = merged_in_order(repo, pin, tasks)
    asked: list[frozenset[bytes]] = []
    real = tip_index.TipIndex.may_import

    def counted(self, names, most):
        asked.append(frozenset(names))
        return real(self, names, most)

    monkeypatch.setattr(tip_index.TipIndex, "may_import", counted)
    index = MergeIndex()
    found = []
    for number, merge in enumerate(merges):
        hot = _findings(check_tree_merge(repo, *merge, index=index))
        assert hot == _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True)), plan[number][0]
        found.append(hot)
        if number in (1, 2):
            assert asked == [], plan[number][0]
    assert asked and all(names for names in asked)   # the rename's merge read them, for its gone name
    assert ("parse", "pkg/app2.py") in [(name, use) for _, name, _, use, _ in found[3]]


def test_a_drain_looks_each_path_the_pin_lacks_up_once(tmp_path: Path, monkeypatch) -> None:
    """Locating what a file imports (reexports.py: `os`, `.base` from each folder up to the root,
    with each file pattern) tries many paths that the pin holds no file at; every check of a drain
    reads the pin's tree, so a path found missing there is not looked up again by a later merge's
    check (tree._ABSENT, keyed by the tree's id). The findings are the walk's."""
    files = {f"pkg{p}/base.py": _py("f0") for p in range(3)}
    files.update({f"pkg{p}/m{i}.py": "import os\nfrom .base import f0\n\n\n" + _py(f"g{i}", "\n\ndef use(x):\n    return f0(x)\n")
                  for p in range(3) for i in range(3)})
    root = make_repo(tmp_path / "repo", files)
    pin = git(root, "rev-parse", "HEAD")
    # Each task edits its package's base.py (every tip file spells `base`) and a user.
    repo, merges = _tasks_merged(root, pin, [(f"t{p}", {f"pkg{p}/base.py": _py("f0").replace("x + 1", "x + 2"),
                                                        f"pkg{p}/m0.py": files[f"pkg{p}/m0.py"].replace("x * 2", "x * 3")})
                                             for p in range(3)])
    from worktree_coord.merge import tree as tree_module

    monkeypatch.setattr(tree_module, "_ABSENT", set())
    looked: list[tuple[str, str]] = []
    real = tree_module._entry

    def counted(tree, path):
        try:
            return real(tree, path)
        except KeyError:
            looked.append((str(tree.id), path))
            raise

    monkeypatch.setattr(tree_module, "_entry", counted)
    index = MergeIndex()
    for merge in merges:
        hot = _findings(check_tree_merge(repo, *merge, index=index))
        assert hot == _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
    pin_tree = str(repo[pin].peel(pygit2.Tree).id)
    missing = [path for tree_id, path in looked if tree_id == pin_tree]
    assert missing, "the drain located imports in the pin"
    assert len(missing) == len(set(missing)), sorted(path for path in set(missing) if missing.count(path) > 1)
