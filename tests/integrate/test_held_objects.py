"""A drain's objects held in memory (gitrepo/held_objects.py): one pack written before the ref
moves, every git process started mid-drain finding what the drain wrote, writes going to disk
again after it, small drains writing loose objects as before."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pygit2
import pytest

from integrate_helpers import REF, SIG, base_repo, commit, git
from worktree_coord.coordinator.verification import verify_commit
from worktree_coord.gitrepo import GitRepo
from worktree_coord.gitrepo.mergetree import MergeTreeProcess
from worktree_coord.gitrepo.refs import compare_and_swap
from worktree_coord.gitrepo.remote import Remote
from worktree_coord.integrate import IntegrationState, Integrator
from worktree_coord.integrate.engine import HOLD_ENV, HOLD_FROM
from worktree_coord.isolation import spawn_for


@pytest.fixture(autouse=True)
def _threshold(monkeypatch):
    monkeypatch.delenv(HOLD_ENV, raising=False)   # the product's own choice, whatever the caller's shell says


@pytest.fixture()
def repo_and_base(tmp_path):
    return base_repo(tmp_path / "repo")


def on_disk(repo: pygit2.Repository, oid) -> bool:
    """Does a git process, started without wtc's help, find the object?"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-C", repo.path, "cat-file", "-e", str(oid)], env=env).returncode == 0


def packs(repo: pygit2.Repository) -> set[str]:
    return {p.name for p in (Path(repo.path) / "objects" / "pack").glob("*.pack")}


def loose(repo: pygit2.Repository) -> set[str]:
    root = Path(repo.path) / "objects"
    return {d.name + f.name for d in root.iterdir() if len(d.name) == 2 for f in d.iterdir()}


def tasks_for(repo, base, n: int, *, same_file: bool = False) -> list[pygit2.Oid]:
    """n tasks from `base`, each in its own package (or, `same_file`, each a different line of one
    file: git merge-tree merges them, not the fast path)."""
    if same_file:
        text = git(repo.path, "show", f"{base}:README.md").splitlines()
        out = []
        for i in range(n):
            lines = list(text)
            lines[i * 4] = f"task {i}"
            out.append(commit(repo, [base], {"README.md": ("\n".join(lines) + "\n").encode()}))
        return out
    return [commit(repo, [base], {f"packages/p0{i % 6}/src/m0{i // 6}.py": b"task %d\n" % i}) for i in range(n)]


def held_drain(engine: Integrator, repo, base, n: int, **kwargs):
    drain = engine.drain(REF, signature=SIG, tasks=n)
    results = [drain.merge(t, base, message=f"wtc: merge t{i}", author=SIG)
               for i, t in enumerate(tasks_for(repo, base, n, **kwargs))]
    assert [r.state for r in results] == [IntegrationState.MERGED] * n
    return drain, results


def test_a_held_drain_writes_one_whole_pack_before_the_ref_moves(repo_and_base):
    repo, base = repo_and_base
    packs_before, loose_before = packs(repo), loose(repo)
    with Integrator(repo) as engine:
        drain, results = held_drain(engine, repo, base, HOLD_FROM + 2)
        tip = drain.tip
        assert not on_disk(repo, tip), "held in memory until publish"
        assert repo[tip].tree_id, "read in this process all along"
        assert loose(repo) == loose_before and packs(repo) == packs_before
        assert drain.publish() == tip == repo.references[REF].target
    new = packs(repo) - packs_before
    assert len(new) == 1 and loose(repo) == loose_before, "one pack, no loose object"
    pack = Path(repo.path) / "objects" / "pack" / new.pop()
    verified = git(repo.path, "verify-pack", "-v", str(pack.with_suffix(".idx")))
    assert sum(1 for r in results for oid in (r.merge_commit, r.tree) if oid in verified) == 2 * len(results)
    git(repo.path, "fsck", "--full", "--strict")
    for r in results:
        assert on_disk(repo, r.merge_commit) and on_disk(repo, r.tree)


def test_the_same_tree_held_or_not(repo_and_base, monkeypatch):
    repo, base = repo_and_base
    other = "refs/heads/wtc/run2/integration"
    repo.references.create(other, base)
    tasks = tasks_for(repo, base, HOLD_FROM + 1)
    tips = {}
    for ref, hold in ((REF, "1"), (other, "0")):
        monkeypatch.setenv(HOLD_ENV, hold)
        with Integrator(repo) as engine:
            drain = engine.drain(ref, signature=SIG, tasks=len(tasks))
            for i, t in enumerate(tasks):
                drain.merge(t, base, message=f"m{i}", author=SIG)
            tips[ref] = drain.publish()
    assert repo[tips[REF]].tree_id == repo[tips[other]].tree_id


@pytest.mark.parametrize("n", [1, HOLD_FROM - 1])
def test_a_small_drain_writes_loose_objects_and_no_pack(repo_and_base, n):
    repo, base = repo_and_base
    before = packs(repo)
    with Integrator(repo) as engine:
        drain, results = held_drain(engine, repo, base, n)
        assert on_disk(repo, drain.tip), "not held: a loose object at once"
        drain.publish()
    assert packs(repo) == before


# -- every git process started mid-drain finds what the drain wrote -----------------------------------

@pytest.mark.parametrize("persistent", [True, False], ids=["merge-tree --stdin", "merge_tree_once"])
def test_git_merge_tree_mid_drain_reads_the_drains_commits(repo_and_base, persistent):
    """Tasks editing one file go through git merge-tree, onto the drain's last commit (held)."""
    repo, base = repo_and_base
    before = packs(repo)
    merger = MergeTreeProcess(repo.path, persistent=persistent)
    with Integrator(repo, merger=merger) as engine:
        drain, results = held_drain(engine, repo, base, HOLD_FROM, same_file=True)
        assert results[1].path.value == "merge-tree"
        drain.publish()
    merger.close()
    assert len(packs(repo) - before) == 1, "written once, when git first needed it; loose after that"
    git(repo.path, "fsck", "--full")
    text = git(repo.path, "show", f"{REF}:README.md")
    assert all(f"task {i}" in text for i in range(HOLD_FROM))


def test_the_git_runner_mid_drain_finds_the_drains_commit(repo_and_base):
    repo, base = repo_and_base
    with Integrator(repo) as engine:
        drain, _ = held_drain(engine, repo, base, HOLD_FROM)
        assert not on_disk(repo, drain.tip)
        GitRepo(repo.path).git("cat-file", "-e", str(drain.tip))   # raises GitError when git cannot
        assert on_disk(repo, drain.tip)
        drain.publish()


def test_the_grep_of_a_drains_tree_mid_drain(repo_and_base):
    """The left-behind check's fallback: `git grep` over a merged tree the drain wrote."""
    repo, base = repo_and_base
    with Integrator(repo) as engine:
        drain, _ = held_drain(engine, repo, base, HOLD_FROM)
        found = GitRepo(repo.path).files_mentioning(str(drain.tip), ["task"])
        assert "packages/p00/src/m00.py" in found
        drain.publish()


def test_a_worktree_and_a_verification_at_a_drains_commit_mid_drain(repo_and_base, tmp_path):
    repo, base = repo_and_base
    gitrepo = GitRepo(repo.path)
    with Integrator(repo) as engine:
        drain, _ = held_drain(engine, repo, base, HOLD_FROM)
        gitrepo.add_detached_worktree(tmp_path / "wt", str(drain.tip))
        assert (tmp_path / "wt" / "packages" / "p01" / "src" / "m00.py").read_bytes() == b"task 1\n"
        drain.merge(commit(repo, [base], {"packages/p05/src/m03.py": b"more\n"}), base, message="m", author=SIG)
        verified = verify_commit(gitrepo, str(drain.tip), "git cat-file -e $WTC_VERIFY_COMMIT^{tree}",
                                 tmp_path / "scratch", timeout=60, spawn=spawn_for("shared"))
        assert verified.ok, verified.output_tail
        drain.publish()


def test_a_ref_moved_to_a_drains_commit_mid_drain_names_an_object_on_disk(repo_and_base):
    repo, base = repo_and_base
    with Integrator(repo) as engine:
        drain, _ = held_drain(engine, repo, base, HOLD_FROM)
        compare_and_swap(repo, "refs/heads/elsewhere", drain.tip, None, message="test")
        git(repo.path, "fsck", "--full")   # every ref's objects on disk
        drain.publish()


def test_a_push_of_a_drains_commit_mid_drain(repo_and_base, tmp_path):
    """A remote run's publisher pushes the drain's last commit with a lease."""
    repo, base = repo_and_base
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    git(repo.path, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(repo.path, "push", "-q", "origin", f"{REF}:{REF}")
    remote = Remote(GitRepo(repo.path), "origin")
    with Integrator(repo) as engine:
        drain = engine.drain(REF, signature=SIG, tasks=HOLD_FROM,
                             publish=lambda ref, new, old: remote.push_with_lease(ref, str(new), str(old), what="push"))
        for i, t in enumerate(tasks_for(repo, base, HOLD_FROM)):
            drain.merge(t, base, message=f"m{i}", author=SIG)
        assert not on_disk(repo, drain.tip)
        remote.push_with_lease("refs/heads/mid-drain", str(drain.tip), None, what="push mid-drain")
        tip = drain.publish()
    assert git(tmp_path / "remote.git", "rev-parse", REF).strip() == str(tip)
    git(tmp_path / "remote.git", "fsck", "--full")


# -- after the drain -------------------------------------------------------------------------------

def test_after_publish_writes_go_to_disk_and_the_drains_objects_still_read(repo_and_base):
    repo, base = repo_and_base
    with Integrator(repo) as engine:
        drain, results = held_drain(engine, repo, base, HOLD_FROM)
        drain.publish()
        # Each kind of write: a blob (libgit2 streams it), a tree, a commit (git_odb_write).
        blob = repo.create_blob(b"after the drain\n")
        builder = repo.TreeBuilder(repo[drain.tip].tree)
        builder.insert("after.txt", blob, pygit2.GIT_FILEMODE_BLOB)
        tree = builder.write()
        made = repo.create_commit(None, SIG, SIG, "after", tree, [drain.tip])
        for oid in (blob, tree, made):
            assert on_disk(repo, oid), "written through, not held"
        # A merge after the drain writes loose objects, and everything the drain wrote still reads.
        before = packs(repo)
        after = engine.merge_into(REF, commit(repo, [base], {"packages/p05/src/m03.py": b"x\n"}), base,
                                  message="alone", author=SIG)
        assert after.state is IntegrationState.MERGED and on_disk(repo, after.merge_commit)
        assert packs(repo) == before
        for r in results:
            assert repo[r.merge_commit].tree_id == pygit2.Oid(hex=r.tree)
            assert repo[pygit2.Oid(hex=r.tree)]["packages"]
    fresh = pygit2.Repository(repo.path)
    for r in results:
        assert fresh[r.merge_commit].tree_id == pygit2.Oid(hex=r.tree)


def test_another_threads_writes_during_a_drain_go_to_disk(repo_and_base):
    repo, base = repo_and_base
    with Integrator(repo) as engine:
        drain, _ = held_drain(engine, repo, base, HOLD_FROM)
        written = []
        thread = threading.Thread(target=lambda: written.append(repo.create_blob(b"another thread\n")))
        thread.start()
        thread.join()
        assert on_disk(repo, written[0]) and not on_disk(repo, drain.tip)
        drain.publish()


def test_a_drain_given_up_writes_what_it_held_on_close(repo_and_base):
    repo, base = repo_and_base
    with Integrator(repo) as engine:
        drain, results = held_drain(engine, repo, base, HOLD_FROM)
        drain.close()
        assert on_disk(repo, drain.tip) and repo.references[REF].target == base
        blob = repo.create_blob(b"after close\n")
        assert on_disk(repo, blob)


def test_the_pack_holds_each_kind_of_object_as_git_reads_it(repo_and_base):
    """write_pack's own format (no PackBuilder): blobs of every size class, a tree, a commit, read
    back by git from the pack alone; verify-pack and fsck accept it."""
    repo, base = repo_and_base
    before = packs(repo)
    with Integrator(repo) as engine:
        held = engine._held_objects()
        held.hold(repo)
        blobs = {size: repo.create_blob(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
                 for size in (0, 15, 16, 2047, 2048, 300_000)}
        builder = repo.TreeBuilder(repo[base].tree)
        for size, oid in blobs.items():
            builder.insert(f"blob{size}", oid, pygit2.GIT_FILEMODE_BLOB)
        tree = builder.write()
        made = repo.create_commit(None, SIG, SIG, "held\n\nwith a body", tree, [base])
        assert held.count == len(blobs) + 2 and not on_disk(repo, made)
        held.release()
    (new,) = packs(repo) - before
    idx = Path(repo.path) / "objects" / "pack" / new.replace(".pack", ".idx")
    listed = git(repo.path, "verify-pack", "-v", str(idx))
    assert all(str(oid) in listed for oid in [*blobs.values(), tree, made])
    for size, oid in blobs.items():
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        shown = subprocess.run(["git", "-C", repo.path, "cat-file", "blob", str(oid)], capture_output=True,
                               env=env, check=True).stdout
        assert len(shown) == size and shown == pygit2.Repository(repo.path)[oid].data
    assert git(repo.path, "log", "-1", "--format=%B", str(made)).strip() == "held\n\nwith a body"
    git(repo.path, "fsck", "--full", "--strict")
