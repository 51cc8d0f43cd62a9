"""A member one side added stays in the container that side put it in, whatever the other side moved.

Found by user-drive12 (serde_json-like): one task swaps two impl blocks of a file (moves the second
above the first), another appends a method to the second; git's line merge of the two is clean and
the method lands in the other block (`impl<T> E<T>` instead of `impl E<u8>`: other bounds, other
generics), and since git called the file clean, the structured merge was never asked. Now
`merge_file` consults the structured merge when a clean line merge misplaces a member (placement.py),
and a tree merge that holds one (git's own, in the merge queue and `wtc check`) is a semantic
conflict, problem `misplaced` (merge/checks/misplaced.py). The same shape in Python (two classes
swapped, a method appended to the one that moved), TypeScript and Java. Every merge here is one git's
line merge calls clean (asserted).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc_in_process
from tests.merge.clean_merges import clean_merge, findings
from worktree_coord.merge import merge_file

RS_FIRST = b"impl<T> E<T> {\n    pub fn a(&self) -> u8 {\n        1\n    }\n}\n"
RS_SECOND = b"impl E<u8> {\n    pub fn b(&self) -> u8 {\n        1\n    }\n}\n"
RS_NEW = b"\n    pub fn c(&self) -> u8 {\n        1\n    }\n"
PY_FIRST = b"class A:\n    def a(self):\n        return 1\n"
PY_SECOND = b"class B:\n    def b(self):\n        return 1\n"
PY_NEW = b"\n    def c(self):\n        return 1\n"
TS_FIRST = b"export class A {\n  a(): number {\n    return 1;\n  }\n}\n"
TS_SECOND = b"export class B {\n  b(): number {\n    return 1;\n  }\n}\n"
TS_NEW = b"\n  c(): number {\n    return 1;\n  }\n"
JAVA_FIRST = b"class A {\n    int a() {\n        return 1;\n    }\n}\n"
JAVA_SECOND = b"class B {\n    int b() {\n        return 1;\n    }\n}\n"
JAVA_NEW = b"\n    int c() {\n        return 1;\n    }\n"


def _appended(block: bytes, new: bytes) -> bytes:
    """`block` with `new` before its closing line (a brace), or at its end (Python)."""
    if block.rstrip().endswith(b"}"):
        body, closing = block.rstrip(b"\n").rsplit(b"\n", 1)
        return body + b"\n" + new + closing + b"\n"
    return block + new


SHAPES = {
    "rust": ("src/lib.rs", b"pub struct E<T>(T);\n\n", RS_FIRST, RS_SECOND, RS_NEW, b"\n"),
    "python": ("pkg/shapes.py", b"", PY_FIRST, PY_SECOND, PY_NEW, b"\n\n"),
    "typescript": ("src/shapes.ts", b"", TS_FIRST, TS_SECOND, TS_NEW, b"\n"),
    "java": ("src/Shapes.java", b"", JAVA_FIRST, JAVA_SECOND, JAVA_NEW, b"\n"),
}


def _swap_and_append(language: str, to: str = "second") -> tuple[str, bytes, bytes, bytes]:
    """(path, base, left: the two blocks swapped, right: a member appended to the `to` block)."""
    path, head, first, second, new, gap = SHAPES[language]
    base = head + first + gap + second
    if to == "first":
        return path, base, head + second + gap + first, head + _appended(first, new) + gap + second
    return path, base, head + second + gap + first, head + first + gap + _appended(second, new)


def _holder(merged: bytes, member: bytes, containers: tuple[bytes, bytes]) -> bytes:
    """Which of `containers` (their header lines) holds `member` in `merged`: the last one opened before it."""
    at = merged.index(member)
    return max(containers, key=lambda header: merged.rfind(header, 0, at))


@pytest.mark.parametrize("to", ["first", "second"])
@pytest.mark.parametrize("language", sorted(SHAPES))
def test_merge_file_keeps_the_appended_member_in_the_block_its_side_put_it_in(language: str, to: str) -> None:
    path, base, left, right = _swap_and_append(language, to)
    _, _, first, second, new, _ = SHAPES[language]
    headers = (first.split(b"\n", 1)[0], second.split(b"\n", 1)[0])
    wanted, other = headers if to == "first" else headers[::-1]
    member = new.strip().split(b"\n", 1)[0]
    assert _holder(clean_merge(base, left, right), member, headers) == other, "git's line merge misplaces it"
    result = merge_file(base, left, right, path)
    assert result.clean, result.notes
    assert _holder(result.merged, member, headers) == wanted, result.merged.decode()
    assert result.merged.count(member) == 1


@pytest.mark.parametrize("language", sorted(SHAPES))
def test_the_post_merge_check_names_a_member_git_put_in_the_other_block(language: str) -> None:
    path, base, left, right = _swap_and_append(language)
    [finding] = findings("misplaced", path, base, left, right)
    assert finding.use_path == path and finding.as_conflict().kind == "semantic"
    assert (finding.removed_by, finding.used_by) == ("ours", "theirs")
    assert "theirs added it to" in finding.message and "which ours moved" in finding.message


SPACED = RS_SECOND.replace(b"{\n    pub", b"{\n    // the u8 one\n\n    pub", 1)
RUST_RENAMED = RS_FIRST + b"\n" + RS_SECOND.replace(b"impl E<u8>", b"impl E<u16>")


@pytest.mark.parametrize("base, left, right", [
    # the other side renamed the block the member was added to: it is the same block
    (RS_FIRST + b"\n" + RS_SECOND, RUST_RENAMED, RS_FIRST + b"\n" + _appended(RS_SECOND, RS_NEW)),
    # one side moved a method from one block to the other, the other added a function after them
    (RS_FIRST + b"\n" + RS_SECOND, RS_FIRST.replace(b"    pub fn a(&self) -> u8 {\n        1\n    }\n", b"")
     + b"\n" + _appended(RS_SECOND, b"\n    pub fn a(&self) -> u8 {\n        1\n    }\n"),
     RS_FIRST + b"\n" + RS_SECOND + b"\nfn d() {}\n"),
    # one side renamed the block, the other renamed its method (the merged block shares no key with the base's)
    (RS_FIRST + b"\n" + SPACED, RS_FIRST + b"\n" + SPACED.replace(b"impl E<u8>", b"impl E<u16>"),
     RS_FIRST + b"\n" + SPACED.replace(b"fn b(", b"fn bee(")),
    # both sides added a method of one name to one block (overloads, in Java)
    (JAVA_FIRST, JAVA_FIRST.replace(b"class A {\n", b"class A {\n    int c(int x) {\n        return x;\n    }\n\n"),
     _appended(JAVA_FIRST, b"\n    int c(String s) {\n        return 2;\n    }\n")),
], ids=["block-renamed", "method-moved-between-blocks", "block-and-method-renamed", "overloads-added-by-both"])
def test_legal_merges_are_not_called_misplaced(base: bytes, left: bytes, right: bytes) -> None:
    path = "src/Shapes.java" if base.startswith(b"class") else "src/lib.rs"
    clean_merge(base, left, right)
    merged = merge_file(base, left, right, path)
    assert merged.clean and not merged.conflicts, merged.notes
    assert findings("misplaced", path, base, left, right) == []


def _two_tasks(tmp_path: Path, language: str) -> tuple[Path, tuple[str, bytes, bytes, bytes]]:
    """A run whose first task swapped the blocks (merged) and whose second appended a member to the
    first block (git's own tree merge conflicts on the file: the resolver merges it)."""
    shape = path, base, left, right = _swap_and_append(language, "first")
    repo = make_repo(tmp_path / "repo", {path: base.decode()})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    for task, text in (("swap", left), ("add", right)):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", path)
        assert code == 0, body
        (Path(body["worktree"]) / path).write_bytes(text)
    code, body = wtc_in_process(repo, "task", "finish", "swap", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    return repo, shape


@pytest.mark.parametrize("language", sorted(SHAPES))
def test_finish_lands_the_member_in_the_block_its_task_put_it_in(tmp_path: Path, language: str) -> None:
    repo, (path, _, _, _) = _two_tasks(tmp_path, language)
    code, body = wtc_in_process(repo, "task", "finish", "add", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    landed = git(repo, "show", f"wtc/r1/integration:{path}").encode() + b"\n"
    _, _, first, second, new, _ = SHAPES[language]
    headers = (first.split(b"\n", 1)[0], second.split(b"\n", 1)[0])
    assert _holder(landed, new.strip().split(b"\n", 1)[0], headers) == headers[0], landed.decode()
