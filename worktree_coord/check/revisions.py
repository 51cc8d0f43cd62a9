"""Which commits `wtc check` compares: head, target tip and base, with CI-friendly defaults.

Stage: input resolution. Input: what the user passed (or nothing). Output: full commit ids and the
names to show. Defaults: head = HEAD; target = the branch the checked-out branch tracks when it
tracks another one, else the default branch (origin/HEAD's target, else `main`, else `master`, local
or on origin), the local one when origin's is behind the branch's base (`pick_target`, which says
why it picked another than the default); base = merge-base(head, target tip). Every name that
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


def pick_target(git: GitRepo, path: str | os.PathLike[str], head: str) -> tuple[str, str]:
    """The target a check of the checkout at `path` (its commit `head`) means when none is named,
    and why, when it is not the default branch as `default_target` names it ("" when it is):

    - the branch's upstream, when it tracks another branch (`git checkout --track -b topic develop`);
      an upstream of the branch's own name is where it is pushed, not what it merges into;
    - the local default branch, when origin's is behind the branch's base: the branch started from
      local commits not pushed yet, which measured from origin's tip would read as the branch's own
      changes, and the merge as a fast-forward; not for the default branch itself, whose unpushed
      commits are what is checked against origin's."""
    here = git.checkout_branch(path)
    branch, upstream = here if here is not None else (None, None)
    name = default_target(git)
    if branch and upstream and upstream.split("/", 1)[-1] != branch:
        if upstream == name:
            return name, ""
        return upstream, f"the upstream of {branch}; pass --target BRANCH to check against another"
    remote, _, local = name.partition("/")
    if not local or local == branch or git.repo.references.get(f"refs/remotes/{name}") is None \
            or git.repo.references.get(f"refs/heads/{local}") is None:
        return name, ""
    remote_tip, local_tip = resolve(git, name, "target"), resolve(git, local, "target")
    if remote_tip == local_tip or not git.is_ancestor(remote_tip, local_tip):
        return name, ""
    try:
        base = git.merge_base(head, local_tip)
    except NotFoundError:
        return name, ""
    if base == remote_tip or not git.is_ancestor(remote_tip, base):
        return name, ""
    return local, (f"not {name}, which is behind the branch's base {base[:12]} on {local} (commits not pushed "
                   f"yet); pass --target {name} to check against it")


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
