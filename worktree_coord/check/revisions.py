"""Which commits `wtc check` compares: head, target tip and base, with CI-friendly defaults.

Stage: input resolution. Input: what the user passed (or nothing). Output: full commit ids and the
names to show. Defaults: head = HEAD; target = the default branch (origin/HEAD's target, else
`main`, else `master`, local or on origin); base = merge-base(head, target tip). Every name that
resolves to nothing is a UsageError (exit 2) naming it, since a CI step with a wrong revision is a
misconfigured step, not a missing object.
"""

from __future__ import annotations

import os

from ..errors import NotFoundError, UsageError
from ..gitrepo import GitRepo

DEFAULT_BRANCH_CANDIDATES = ("refs/heads/main", "refs/heads/master", "refs/remotes/origin/main",
                             "refs/remotes/origin/master")


def resolve(git: GitRepo, rev: str, what: str, path: str | os.PathLike[str] | None = None) -> str:
    """The commit `rev` names, or UsageError saying which flag named nothing. With `path` (the
    checkout the command runs in), as that checkout reads it: `--head HEAD~1` in a task's worktree
    is that worktree's commit, as the default head is (resolve_head)."""
    try:
        return git.resolve_commit(rev) if path is None else git.resolve_commit_in(path, rev)
    except NotFoundError as error:
        raise UsageError(f"{what} {rev!r} names no commit", fix=error.fix or "pass a branch, tag or sha that exists",
                         details={what: rev}) from None


def resolve_head(git: GitRepo, path: str | os.PathLike[str]) -> str:
    """The commit HEAD names in the checkout at `path`. GitRepo opens the common git dir, whose HEAD
    is the main checkout's; inside a linked worktree (a task's) HEAD is that worktree's own."""
    try:
        head = git.checkout_head(path)
    except NotFoundError:
        return resolve(git, "HEAD", "head")
    if head is None:
        raise UsageError("HEAD has no commits yet", fix="commit first, or pass --head REV")
    return head


def default_target(git: GitRepo) -> str:
    """The default branch's name: origin/HEAD's target, else main or master (local, then origin)."""
    origin_head = git.repo.references.get("refs/remotes/origin/HEAD")
    if origin_head is not None:
        try:
            target = origin_head.target
            if isinstance(target, str):
                return _short(target)
        except Exception:  # noqa: BLE001 - a broken symbolic ref falls through to the next guess
            pass
    for name in DEFAULT_BRANCH_CANDIDATES:
        if git.repo.references.get(name) is not None:
            return _short(name)
    raise UsageError("cannot tell the default branch: no origin/HEAD, main or master",
                     fix="pass --target BRANCH (and --base REV) explicitly")


def merge_base(git: GitRepo, head: str, target_tip: str) -> str:
    try:
        return git.merge_base(head, target_tip)
    except NotFoundError:
        raise UsageError(f"the head {head[:12]} and the target tip {target_tip[:12]} share no history",
                         fix="pass --base REV explicitly, or fetch more history (actions/checkout: fetch-depth: 0)") from None


def _short(ref: str) -> str:
    for prefix in ("refs/heads/", "refs/remotes/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref
