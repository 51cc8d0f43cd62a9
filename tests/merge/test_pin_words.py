"""`git grep -lwF` answered from a pin's word index (merge/checks/pin_words.py, merge.tree.files_mentioning),
what the left-behind check at a merge asks of the merged tree: the same files, in the same order, as
git grep itself, over a real repository built here (words beside digits, underscores, `$`, non-ASCII
bytes and punctuation, a binary file, a symlink, an executable, deep folders; then edits, deletions,
an added file, a file made a folder, a file made a symlink) and over the merges of
tests/merge/test_tip_index.py's drain; a word git grep's word characters do not make up alone is
left to the grep; the index is read back by the next process from disk."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pygit2

from tests.conftest import GIT_ENV, commit, git, make_repo
from tests.merge.test_tip_index import _drain
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.tree import files_mentioning

BASE: dict[str, str | bytes] = {
    "src/app.py": "from util import parse_v2\n\ndef run(x):\n    return parse_v2(x) + item_count\n",
    "src/util.py": "def parse_v2(text):\n    return text.strip()  # parse\n",
    "src/deep/er/mod.py": "VALUE = 0x1F\nitem_count = 3\nnaïve_parse = 1\n",
    "web/view.js": "const $el = find('#id');\nexport function parse(a) { return a.item_count; }\n",
    "web/page.ts": "import { parse } from './view';\nconst x = parse(1)+parse2;\n",
    "docs/notes.md": "parse, parse_v2; item-count: 3\n",
    "data/blob.bin": b"\x00\x01parse\x00item_count\xff\xfe",
    "tool.sh": "#!/bin/sh\necho parse\n",
    "a.py": "x = 1\n",
    "a-b/c.py": "run = 2\n",
}
WORDS = ["parse", "parse_v2", "item_count", "run", "VALUE", "x1F", "0x1F", "x", "count", "el", "naïve_parse",
         "parse2", "echo", "find", "id", "sh", "strip", "text", "missing_word", "a", "b", "c"]


def _grep(root: Path, where: str, words: list[str]) -> list[str]:
    args = ["git", "-c", "core.quotePath=false", "grep", "-l", "-w", "-F"]
    for word in words:
        args += ["-e", word]
    done = subprocess.run([*args, where, "--"], cwd=root, env=dict(os.environ, **GIT_ENV), capture_output=True)
    assert done.returncode in (0, 1), done.stderr
    return [line.removeprefix(f"{where}:") for line in done.stdout.decode().splitlines() if line]


def _compare(root: Path, repo: pygit2.Repository, pin: str, where: str, index: MergeIndex, words: list[str]) -> int:
    answered = 0
    for chosen in [[word] for word in words] + [words[:5], words[3:9], words]:
        found = files_mentioning(repo, pin, where, chosen, index=index)
        if any(re.fullmatch(r"[A-Za-z0-9_]+", word) is None for word in chosen):
            assert found is None, chosen   # left to the grep
            continue
        assert found == _grep(root, where, chosen), chosen
        answered += 1
    return answered


def test_the_tables_answer_as_git_grep_on_a_repository(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", BASE)
    (root / "tool.sh").chmod(0o755)
    os.symlink("src/util.py", root / "link_to_parse")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "exec and link")
    pin = git(root, "rev-parse", "HEAD")
    tips = [pin]
    tips.append(commit(root, {"src/util.py": "def parse_v3(text):\n    return text\n", "web/page.ts": None,
                              "src/new.py": "item_count = parse = 4\n"}, "edit, delete, add"))
    (root / "a.py").unlink()
    tips.append(commit(root, {"a.py/inner.py": "parse = 1\n"}, "a file made a folder"))
    (root / "docs/notes.md").unlink()
    os.symlink("parse", root / "docs/notes.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a file made a symlink")
    tips.append(git(root, "rev-parse", "HEAD"))
    repo = pygit2.Repository(str(root))
    index = MergeIndex(tmp_path / "index")
    answered = sum(_compare(root, repo, pin, str(repo[tip].peel(pygit2.Tree).id), index, WORDS) for tip in tips)
    assert answered > 60
    # The next process reads the pin's index from disk and answers the same.
    again = MergeIndex(tmp_path / "index")
    last = str(repo[tips[-1]].peel(pygit2.Tree).id)
    assert files_mentioning(repo, pin, last, ["parse"], index=again) == _grep(root, last, ["parse"])
    assert any(p.name == str(repo[pin].peel(pygit2.Tree).id) for p in (tmp_path / "index").rglob("*"))


def test_the_tables_answer_as_git_grep_over_a_drain(tmp_path: Path) -> None:
    repo, merges = _drain(tmp_path)
    root = Path(repo.workdir)
    index = MergeIndex()
    words = ["parse", "parse_text", "helper", "helper2", "tool", "more", "more_x", "addOne", "incr", "trimAll",
             "Alpha", "Alpha2", "f03", "h05", "h05x", "g00", "deep", "x", "lib", "import", "missing_word"]
    for pin, _, _, merged in merges:
        assert _compare(root, repo, pin, merged, index, words) > 0


def test_a_files_words_are_the_runs_git_grep_calls_words() -> None:
    """git_words cuts at every byte that is not an ASCII letter, digit or `_` (a table and a split,
    not a regex): the same words as the regex of git grep's word characters, on random bytes (every
    byte value, whitespace and NULs among them) and on the repository's own sources."""
    import random

    from worktree_coord.merge.checks.pin_words import git_words

    def by_regex(data: bytes) -> frozenset[bytes]:
        return frozenset(re.findall(rb"[A-Za-z0-9_]+", data))

    rng = random.Random(36)
    samples = [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400))) for _ in range(300)]
    samples += [bytes(rng.choice(b"ab_9 \t\n\r\x0b\x0c\x00\xff$-.") for _ in range(200)) for _ in range(300)]
    samples += [path.read_bytes() for path in sorted(Path(__file__).resolve().parents[2].glob("worktree_coord/**/*.py"))[:80]]
    samples += [b"", b"   ", b"x", bytes(range(256))]
    for data in samples:
        assert git_words(data) == by_regex(data), data[:60]


def test_changed_blobs_words_kept_across_lookups_answer_as_read_each_time(tmp_path: Path) -> None:
    """BlobWords (the changed blobs' words kept by word, a merged tree's paths by blob, the next
    tree's derived by its merge's step) gives the paths a read of each changed blob's words gives,
    at every merge of a drain, for every word: derived from the tree before, built from the
    changes (no step known), bounded to 3 blobs (started again as it fills), and from four threads
    at once."""
    import threading

    from worktree_coord.merge.checks.pin_words import BlobWords, PinWords, git_words, mentioning
    from worktree_coord.merge.tree import _changes

    repo, merges = _drain(tmp_path)
    words = ["parse", "parse_text", "helper", "helper2", "tool", "more", "more_x", "addOne", "incr", "trimAll",
             "Alpha", "Alpha2", "f03", "h05", "g00", "deep", "x", "lib", "import", "missing_word"]
    stepped, fresh, small = BlobWords(), BlobWords(), BlobWords()
    small.MAX_BLOBS = 3
    read = lambda oid: git_words(repo[oid].data)   # noqa: E731
    tree = lambda oid: repo[oid].peel(pygit2.Tree)   # noqa: E731
    compared = 0
    before = None
    for pin, _, _, merged in merges:
        table = PinWords.build(repo, tree(pin))
        changes = _changes(tree(pin), tree(merged), repo=repo)
        key = (pin, merged)
        step = (lambda: None) if before is None else \
            (lambda before=before: ((pin, before), _changes(tree(before), tree(merged), repo=repo)))
        for chosen in [[word] for word in words] + [words[:4], words[5:12]]:
            expected = mentioning(table, changes, chosen, read)
            assert mentioning(table, changes, chosen, read, (stepped, key, step)) == expected, chosen
            assert mentioning(table, changes, chosen, read, (fresh, key, lambda: None)) == expected, chosen
            assert mentioning(table, changes, chosen, read, (small, key, step)) == expected, chosen
            compared += 1
        answers: list[list[str] | None] = []
        shared = BlobWords()
        threads = [threading.Thread(target=lambda: answers.append(mentioning(table, changes, words, read,
                                                                                (shared, key, step))))
                   for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == [mentioning(table, changes, words, read)] * 4
        before = merged
    assert compared > 100
    assert stepped.derived >= len(merges) - 3 and stepped.built <= 3   # (a merge onto another pin: built)
