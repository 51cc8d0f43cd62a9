"""A run's git remote: fetch what a task needs, push task branches, and move the remote's
integration ref with `git push --force-with-lease=<ref>:<expected>` as its compare-and-swap.

Stage: transport, below policy. Input: a `GitRepo` (a clone) and the name of one of its remotes.
Output: refs fetched into local refs, pushes done or refused.

Invariants:
- The remote ref is the truth. The local `refs/heads/wtc/<run>/integration` of a remote run is a
  mirror: every operation fetches it first, and a push's lease names the value the remote must
  still hold, so no clone ever overwrites another's merge (a stale mirror costs one more fetch).
- A lease refused (`[rejected] (stale info)`) is `RemoteStale`, never retried here: the caller
  fetches and merges again. A push that reached the remote but whose answer was lost looks the same
  on retry (the remote holds the new value, not the expected one), and the caller recognises it by
  fetching: its task is already in the remote's history.
- Network failures (refused connections, hung-up remotes, timeouts) get `attempts` tries with
  jittered exponential backoff, then `RemoteUnavailable` (exit 4, `retry_after_seconds`): nothing was
  decided by the store, the same call is safe to repeat. Anything else git refuses (no such remote,
  a hook that declined, permissions) is a `GitError` with git's words: retrying will not help.
- Every git process runs in `git_environment` (environment.py): no prompts, C locale.
- Read-only views (status, watch, report) refresh the integration ref with `refresh_ref`: one fetch
  of one ref, one try, a short timeout; a failure never fails the view, it shows the clone's last
  fetched value and says it is stale.
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..frozen import value_class
from .environment import git_environment
from .held import write_held
from .running import run_to_end
from ..errors import BusyError, GitError, UsageError

if TYPE_CHECKING:
    from .repository import GitRepo

ATTEMPTS = 4
FIRST_DELAY_SECONDS = 0.25
RETRY_AFTER_SECONDS = 10.0

# What git prints when the transport, not the request, failed (C locale): worth a retry.
_TRANSIENT = re.compile(
    r"unable to connect|connection refused|could not read from remote|the remote end hung up|"
    r"early eof|timed out|connection reset|couldn't connect|failed to connect|could not resolve host|"
    r"network is unreachable|no route to host|broken pipe|unexpected disconnect|transfer closed|"
    r"rpc failed|unable to access|temporarily unavailable|"
    # another wtc process of this clone updating the same local ref at this moment (two agents on one
    # machine fetching integration): git failed to take the ref's lock; the next try gets it
    r"cannot lock ref|unable to update local ref|unable to create '.*\.lock'|"
    # another wtc process of this clone adding or removing a task's worktree at this moment: git, telling
    # the remote what this clone holds, read that worktree's HEAD half written (the remote stress test)
    r"bad object worktrees/[^/\s]+/HEAD|"
    # the same race on another admin file: git lists the clone's worktrees and reads the `commondir` of
    # one being added while it is still empty ("failed to read .git/worktrees/<task>/commondir: Success":
    # opened, not yet written), or a file of one being pruned after it saw it ("No such file or directory")
    r"failed to read '?[^'\s]*worktrees/[^/\s]+/",
    re.IGNORECASE,
)


# How long a read-only view waits for the remote before showing the last fetched tip as stale.
VIEW_TIMEOUT_SECONDS = 5.0

# A remote that refused a ref update because another push held the ref's lock at that instant.
_CONTENDED = re.compile(r"lock|failed to update ref|cannot lock", re.IGNORECASE)


class RemoteUnavailable(BusyError):
    """The run's git remote could not be reached after bounded retries: nothing moved; the same call
    is safe to repeat once the remote answers (exit 4 with `retry_after_seconds`)."""

    kind = "remote_unavailable"


class RemoteStale(Exception):
    """A push's lease was refused: the remote ref no longer holds the value the push expected."""

    def __init__(self, ref: str, expected: str | None):
        super().__init__(f"the remote's {ref} no longer holds {expected}")
        self.ref = ref
        self.expected = expected


class Remote:
    """One remote of a clone, as a run uses it. Not thread safe across concurrent pushes of one ref
    (the lease makes that safe on the remote side; each call runs its own git process)."""

    def __init__(self, git: "GitRepo", name: str, *, attempts: int = ATTEMPTS,
                 first_delay: float = FIRST_DELAY_SECONDS):
        if not name or name.startswith("-") or any(c.isspace() for c in name):
            raise UsageError(f"invalid remote name {name!r}", fix="pass the name of a remote of this clone (git remote -v)")
        self.git = git
        self.name = name
        self.attempts = max(1, attempts)
        self.first_delay = first_delay

    # ---- facts about the clone ------------------------------------------------------------------

    def url(self) -> str:
        """The remote's fetch URL; UsageError naming the fix when this clone has no such remote."""
        done = self.git.git("remote", "get-url", self.name, check=False)
        if done.returncode != 0:
            known = self.git.git("remote", check=False).stdout.decode().split()
            raise UsageError(
                f"this clone ({self.git.common_dir}) has no git remote {self.name!r}"
                + (f" (it has {', '.join(known)})" if known else " (it has none)"),
                fix=f"add it (git remote add {self.name} URL), or pass --remote with one of its remotes",
            )
        return done.stdout.decode().strip()

    def is_partial(self) -> bool:
        """Is this clone a partial clone of the remote (objects fetched on demand)?"""
        done = self.git.git("config", "--get", f"remote.{self.name}.promisor", check=False)
        return done.stdout.decode().strip().lower() == "true"

    # ---- transport ------------------------------------------------------------------------------

    def fetch(self, refspecs: Sequence[str], *, what: str) -> None:
        """Fetch `refspecs` (forced updates allowed where the refspec says `+`). In a partial clone
        the clone's own filter applies (blobs come later, on demand, for the paths that are read)."""
        self._run(["fetch", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--quiet",
                   self.name, *refspecs], what=what)

    def fetch_objects(self, oids: Sequence[str], *, what: str) -> None:
        """Fetch these objects (blobs a merge must read in a partial clone) in one request, as git's
        own on-demand fetch does; a clone that has them all asks nothing."""
        wanted = self.git.missing_blobs(oids)
        if not wanted:
            return
        self._run(["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--no-tags", "--no-write-fetch-head",
                   "--recurse-submodules=no", "--quiet", "--filter=blob:none", "--stdin", self.name],
                  what=what, input="\n".join(wanted).encode() + b"\n")

    def remote_ref(self, ref: str) -> str | None:
        """What the remote's `ref` holds now (one `ls-remote`), or None when it does not exist."""
        return self.remote_refs([ref]).get(ref)

    def remote_refs(self, refs: Sequence[str]) -> dict[str, str]:
        """The remote's values of those of `refs` that exist (one `ls-remote`)."""
        out = self._run(["ls-remote", "--refs", self.name, *refs], what=f"reading {', '.join(refs)} on {self.name}")
        found = {}
        for line in out.splitlines():
            sha, _, name = line.partition("\t")
            if name in refs:
                found[name] = sha
        return found

    def branch_tip(self, branch: str) -> str | None:
        """The remote's `branch` now (one `ls-remote`), its commits fetched into the tracking ref
        `refs/remotes/<remote>/<branch>` when that ref lags (so `<remote>/<branch>` names it here);
        None when the remote has no such branch."""
        tip = self.remote_ref(f"refs/heads/{branch}")
        tracking = f"refs/remotes/{self.name}/{branch}"
        if tip is not None and self.git.ref_target(tracking) != tip:
            self.fetch([f"+refs/heads/{branch}:{tracking}"], what=f"fetching {branch} from {self.name}")
        return tip

    def list_refs(self, patterns: Sequence[str]) -> dict[str, str]:
        """The remote's refs matching these patterns (`refs/heads/wtc/r1/*`), one `ls-remote`."""
        out = self._run(["ls-remote", "--refs", self.name, *patterns], what=f"listing {', '.join(patterns)} on {self.name}")
        found = {}
        for line in out.splitlines():
            sha, _, name = line.partition("\t")
            if name:
                found[name] = sha
        return found

    def delete_with_lease(self, refs: dict[str, str], *, what: str) -> list[str]:
        """Delete each of `refs` on the remote only while it holds the given value, in one push (not
        atomic: each ref is decided alone). Returns the refs deleted; a ref that moved since is
        refused by the remote and kept. RemoteUnavailable when the remote stays unreachable."""
        if not refs:
            return []
        args = [f"--force-with-lease={ref}:{old}" for ref, old in refs.items()] + [f":{ref}" for ref in refs]
        out = self._run(["push", "--porcelain", "--no-verify", self.name, *args], what=what, allow_refused=True)
        deleted = []
        for line in out.splitlines():
            flag, _, rest = line.partition("\t")
            target = rest.split("\t")[0].removeprefix(":")
            if flag == "-" and target in refs:
                deleted.append(target)
        return deleted

    def push_with_lease(self, ref: str, new: str, expected: str | None, *, what: str) -> None:
        """Set the remote's `ref` to `new` only if it holds `expected` (None: only if it does not
        exist). Raises RemoteStale when the lease is refused, RemoteUnavailable when the remote
        stays unreachable, GitError when the remote refuses for another reason."""
        lease = f"--force-with-lease={ref}:{expected or ''}"
        self._push([lease, f"{new}:{ref}"], [ref], what=what, expected=expected)

    def push_refs(self, refs: dict[str, str], *, what: str) -> None:
        """Publish refs this caller alone writes (a task's branch under its lease), in one push:
        forced, so a retry after a lost answer, or after `task update` rewrote the branch, just sets them."""
        self._push([f"+{new}:{ref}" for ref, new in refs.items()], list(refs), what=what, expected=None)

    def _push(self, args: list[str], refs: list[str], *, what: str, expected: str | None) -> None:
        delay = self.first_delay
        for attempt in range(1, self.attempts + 1):
            done = self._run(["push", "--porcelain", "--no-verify", self.name, *args], what=what, allow_refused=True)
            contended = ""
            for line in done.splitlines():
                flag, _, rest = line.partition("\t")
                if flag == "!" and any(f":{r}\t" in rest for r in refs):
                    reason = rest.split("\t")[-1]
                    if "stale info" in reason:
                        raise RemoteStale(refs[0], expected)
                    if _CONTENDED.search(reason):
                        contended = reason   # another push held the remote's ref lock this instant
                        continue
                    raise GitError(f"{self.name} refused {what}: {reason}",
                                   fix="check the remote's branch protection and hooks for wtc/* refs",
                                   details={"remote": self.name, "refs": refs})
            if not contended:
                return
            if attempt < self.attempts:
                time.sleep(delay * (0.5 + random.random()))
                delay *= 2
        raise RemoteUnavailable(f"{self.name} kept refusing {what} while other pushes held its ref lock: {contended}",
                                retry_after=1.0, fix="repeat the same command", details={"remote": self.name})

    def _run(self, args: list[str], *, what: str, input: bytes | None = None, allow_refused: bool = False) -> str:
        """Run git against the remote with bounded, jittered retries on transport failures; stdout."""
        delay = self.first_delay
        last = ""
        for attempt in range(1, self.attempts + 1):
            command = ["git", "-c", "gc.auto=0", "-c", "maintenance.auto=false", *args]
            where = str(self.git.toplevel or self.git.common_dir)
            done = run_to_end(command, cwd=where, env=git_environment(), input=input)
            out = done.stdout.decode("utf-8", "replace")
            err = done.stderr.decode("utf-8", "replace").strip()
            if done.returncode == 0:
                return out
            if allow_refused and "\n!\t" in "\n" + out and not _TRANSIENT.search(err):
                return out   # the remote answered: a ref was refused (the caller reads why)
            if not _TRANSIENT.search(err):
                raise GitError(f"{what} failed: {err or out.strip()}", details={"remote": self.name, "args": args})
            last = err.splitlines()[-1] if err else "no answer"
            if attempt < self.attempts:
                time.sleep(delay * (0.5 + random.random()))
                delay *= 2
        raise RemoteUnavailable(
            f"the git remote {self.name!r} could not be reached ({what}; {self.attempts} tries): {last}",
            retry_after=RETRY_AFTER_SECONDS,
            fix=f"check that this machine reaches {self.name} (git ls-remote {self.name}); the same command is "
                "safe to repeat: nothing was recorded",
            details={"remote": self.name},
        )


@value_class
class RefView:
    """A ref as a read-only view shows it: this clone's value after trying to refresh it from the
    remote. `fresh` is False when the remote did not answer (then `stale` says why, and `tip` is the
    last value this clone fetched, None when it never fetched it)."""

    tip: str | None
    fresh: bool
    stale: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"tip": self.tip, "tip_fresh": self.fresh} | ({"tip_stale": self.stale} if self.stale else {})


def refresh_ref(git_dir: Path, remote: str, ref: str, *, timeout: float = VIEW_TIMEOUT_SECONDS) -> RefView:
    """Fetch `ref` from `remote` into the same local ref (one ref; in a partial clone its commits and
    trees only, the clone's filter applies) with one try of at most `timeout` seconds, then read it.
    Never raises for the network or a missing remote: the view says the tip is stale instead. Needs
    no pygit2 (`wtc status` runs without it)."""
    base = ["git", f"--git-dir={git_dir}", "-c", "gc.auto=0", "-c", "maintenance.auto=false"]
    write_held()   # held.py: git reads this repository's objects
    stale = None
    try:
        done = subprocess.run([*base, "fetch", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
                               "--quiet", remote, f"+{ref}:{ref}"],
                              env=git_environment(), capture_output=True, timeout=timeout)
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip().splitlines()
            said = next((line for line in err if line.startswith(("fatal:", "error:"))), err[-1] if err else "")
            stale = f"fetching {ref} from {remote} failed: {said or f'exit {done.returncode}'}"
    except subprocess.TimeoutExpired:
        stale = f"{remote} did not answer within {timeout:g} s"
    read = subprocess.run([*base, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], env=git_environment(),
                          capture_output=True)
    tip = read.stdout.decode().strip() or None
    return RefView(tip, stale is None, stale)
