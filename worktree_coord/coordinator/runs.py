"""Runs: pin a commit and create the run's integration branch (create-only), and the run at a glance."""

from __future__ import annotations

import os
import time

from ..errors import ConfigError, UsageError
from ..isolation import NetworkMode
from ..merge.result import SemanticMode
from ..store.idempotency import Outcome, default_key, run_once
from ..model import RunRecord, RunState, validate_name
from ..results import (RunStarted, RunStatus)
from ..telemetry import RunTrace

from .base import CoordinatorBase
from .status_view import read_status


class RunOperations(CoordinatorBase):
    """Starting runs and reading their state."""

    def start_run(self, run_id: str | None = None, base: str = "HEAD", *, verify: str | None = None,
                  semantic: str | None = None, remote: str | None = None, left_behind: str | None = None,
                  network: str | None = None, key: str | None = None) -> RunStarted:
        """Pin `base` and create the run's integration branch at it. `verify` is a shell command every
        merge candidate must pass (in a scratch worktree) before the integration branch moves.
        `semantic` (block, warn, off) says what a semantic finding does to the run's merges; the
        configuration's `semantic-check` (default block) when not given. `left_behind` (block, warn,
        off) says what a use the landed tree keeps of a name a task removed does to that task's
        merge and to landing; the configuration's `left-behind` (default block) when not given.
        `remote` names a git
        remote of this clone that holds the integration branch (a run across machines: every clone
        with that remote and the shared store works on it; docs/multi-machine.md). `network`
        (isolated, shared) says whether the commands wtc starts for its tasks (verification, worktree
        setup, fanout's agents, `wtc task exec`) each get a network namespace of their own; the
        configuration's `network` (default isolated) when not given. It is recorded with the run, so
        every process acting on the run starts its commands the same way."""
        started_at = time.time()
        if run_id is None:
            if key is not None:
                existing = self.store.get_record(key)
                if existing is not None and existing.result:
                    run_id = existing.result.get("run")
            run_id = run_id or time.strftime("run-%Y%m%d-%H%M%S-") + os.urandom(2).hex()
        validate_name("run", run_id)
        sha = self.git.resolve_commit(base)
        if semantic is not None:
            semantic = SemanticMode.parse(semantic).value
        if left_behind is not None:
            left_behind = SemanticMode.parse(left_behind, option="--left-behind", key="left-behind").value
        if network is not None:
            network = NetworkMode.parse(network).value
        request = {"run": run_id, "base": sha, "verify": verify} | ({"semantic": semantic} if semantic else {}) \
            | ({"remote": remote} if remote else {}) | ({"left_behind": left_behind} if left_behind else {}) \
            | ({"network": network} if network else {})
        if remote is not None:
            from ..gitrepo.remote import Remote

            Remote(self.git, remote).url()   # a clone without that remote: exit 2 naming the fix

        def body() -> Outcome:
            integration = f"wtc/{run_id}/integration"
            existing = self.store.get_run(run_id)
            if existing is not None:
                if (existing.remote or None) != remote:
                    raise UsageError(
                        f"run {run_id!r} exists " + (f"with its integration branch on remote {existing.remote!r}"
                                                     if existing.remote else "in this repository, without a remote"),
                        fix="repeat the original --remote, or start a run with a new --run id")
                if existing.base != sha:
                    raise UsageError(
                        f"run {run_id!r} exists, pinned at {existing.base[:12]}, not {sha[:12]}",
                        fix="start a run with a new --run id, or omit --base to reuse this run",
                    )
                return Outcome(RunStarted(run=run_id, base=sha, integration=integration, remote=remote).to_json())
            ref = f"refs/heads/{integration}"
            if not self.git.create_ref(ref, sha, f"worktree_coord: run {run_id} pinned"):
                current = self.git.ref_target(ref)
                if current != sha:
                    raise UsageError(
                        f"branch {integration} already exists at {str(current)[:12]} but no run {run_id!r} is recorded",
                        fix=f"choose another --run id, or delete the branch (git branch -D {integration})",
                    )
            if remote is not None:
                self._publish_new_integration(remote, ref, sha, run_id)
            options = ({"verify": verify} if verify else {}) | ({"semantic": semantic} if semantic else {}) \
                | ({"left_behind": left_behind} if left_behind else {}) \
                | {"network": network or self.config.network}
            # The run's trace ids, kept whether or not this process traces: every later process joins.
            ids = RunTrace.new()
            record = RunRecord(run_id, sha, integration, RunState.OPEN, time.time(), options,
                               trace_id=ids.trace_hex, root_span_id=ids.root_hex, remote=remote)
            created = self.store.create_run(record)
            self._pin_config_files(record)   # read now, while libgit2 is loaded: no task start of the run loads it
            self.store.log_event(run_id, None, "run.started", {"base": sha})
            if created:   # (a racing start with another key recorded it first: its root span, not ours)
                self.reporter.event("run.started", run=run_id, base=sha, trace_id=ids.trace_hex,
                                    root_span_id=ids.root_hex, started_at=started_at)
            return Outcome(RunStarted(run=run_id, base=sha, integration=integration, remote=remote).to_json())

        done = run_once(self.store, key, "run.start", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=default_key(run_id, "run-start"))
        started = RunStarted.from_json(done.outcome.result, replayed=done.replayed)
        self._keep_pin_words(started.run)
        if remote is not None:
            started = self._with_remote_ahead_note(started, base, remote)
        given = {key for key, value in (("verify", verify), ("semantic-check", semantic),
                                         ("left-behind", left_behind)) if value}
        return self._with_network(self._with_uncommitted_note(started, sha, given))

    def _keep_pin_words(self, run_id: str) -> None:
        """The word index of the run's pin, which the left-behind look at each merge reads
        (merge.tree.files_mentioning), built now and written beside the merge index, unless it is
        there already (another run of the same pin) or the run does not look: every merge of the
        run then loads it instead of the first one reading every file of the pin."""
        run = self.store.get_run(run_id)
        if run is None:
            return
        try:
            mode = self._left_behind_mode(run)
        except ConfigError:
            # The pin's rules do not read: the run starts, and its first task says so, naming the
            # pin (tests/core/test_run_config_from_pin.py); the index is built by a merge, if any.
            return
        if mode is SemanticMode.OFF:
            return
        from ..merge.checks.merge_index import index_folder, shared_index
        from ..merge.checks.pin_words import keep_pin_words

        keep_pin_words(self.git.repo, run.base, shared_index(index_folder(self.git.repo)))

    def _with_network(self, started: RunStarted) -> RunStarted:
        """The run's network as this machine gives it (isolation.py), with the one-line note when the
        run asks isolation and the machine cannot."""
        import dataclasses

        run = self.store.get_run(started.run)
        if run is None:
            return started
        spawn = self._spawn(run)
        return dataclasses.replace(started, network=spawn.network,
                                   notes=list(started.notes) + ([spawn.note] if spawn.note else []))

    def _with_remote_ahead_note(self, started: RunStarted, base: str, remote_name: str) -> RunStarted:
        """A run on a remote pins what was asked; when that is a branch of this clone (HEAD's, or one
        named) which the remote's branch of the same name has moved past, the agents on other
        machines would work from an older commit than the remote's: say by how much, and how to pin
        the remote's instead. Advice, best effort: a remote that cannot be asked adds no note."""
        import dataclasses

        from ..errors import WtcError
        from ..gitrepo.remote import Remote

        if base == "HEAD":
            head = self.git.git("symbolic-ref", "-q", "HEAD", check=False).stdout.decode().strip()
            branch = head.removeprefix("refs/heads/") if head.startswith("refs/heads/") else None
        else:
            name = base.removeprefix("refs/heads/")
            branch = name if self.git.ref_target(f"refs/heads/{name}") is not None else None
        if branch is None:
            return started
        try:
            tip = Remote(self.git, remote_name).branch_tip(branch)
        except WtcError:
            return started
        pin = started.base
        if tip is None or tip == pin or not self.git.has_commit(tip) or self.git.is_ancestor(tip, pin):
            return started
        pin_instead = (f"to pin the remote's instead, start a run with --base {remote_name}/{branch} (fetched: it "
                       f"is {tip[:12]})")
        if self.git.is_ancestor(pin, tip):
            ahead = len(self.git.commits_between(pin, tip))
            note = (f"{remote_name}'s {branch} is {ahead} commit(s) ahead of the pinned {branch} ({pin[:12]}): the run "
                    f"pins what was asked, this clone's {branch}; {pin_instead}")
        else:
            note = (f"{remote_name}'s {branch} ({tip[:12]}) and the pinned {branch} ({pin[:12]}) have diverged: the run "
                    f"pins what was asked, this clone's {branch}; {pin_instead}")
        return dataclasses.replace(started, notes=[*started.notes, note])

    def _with_uncommitted_note(self, started: RunStarted, sha: str, given: set[str]) -> RunStarted:
        """Tasks start from the pinned commit: work the lead has not committed in this checkout is not
        in any task's worktree, and agents would work (and report) without it. Say so, by name; and
        when it is the configuration file, which of its run rules this run will not hold (`given`:
        those `wtc run start` was given itself)."""
        import dataclasses

        if self.git.toplevel is None:
            return started
        head, changed = self.git.working_changes(self.git.toplevel)
        if head != sha or not changed:
            return started
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        notes = [f"this checkout has {len(changed)} uncommitted change(s) ({shown}) that no task will see: tasks "
                 f"start from the pinned commit {sha[:12]}; commit them and start a new run if the tasks need them"]
        notes += self._uncommitted_rules_note(changed, sha, given)
        return dataclasses.replace(started, uncommitted=changed[:50], notes=[*started.notes, *notes])

    def _uncommitted_rules_note(self, changed: list[str], sha: str, given: set[str]) -> list[str]:
        """The run rules an uncommitted configuration file sets and the pinned commit's does not (or
        sets otherwise): a run holds its rules as committed at its pin, so a `verify` written in an
        uncommitted .wtc.toml verified nothing, with only the note above to say the file was
        uncommitted (found driving wtc on httpx). Its settings of this machine apply as they are."""
        from ..config import _KEYS, CONFIG_FILES, RUN_RULES, ConfigError, load_config

        if not any(name in changed for name in CONFIG_FILES):
            return []
        try:
            working = load_config(self.git.toplevel)
            pinned = load_config(None, lambda name: self.git.file_at(sha, name))
        except ConfigError:
            return []   # an invalid file is reported by the calls that read it
        if working.source not in changed:
            return []
        differ = [key for key in RUN_RULES if key not in given
                  and getattr(working, _KEYS[key][0]) != getattr(pinned, _KEYS[key][0])]
        if not differ:
            return []
        return [f"{working.source} is not committed: its {', '.join(differ)} do not apply to this run, which holds "
                f"the rules committed at its pinned commit {sha[:12]} (docs/configuration.md); commit it and start a "
                "new run, or give them to `wtc run start` (--verify, --semantic, --left-behind); its settings of "
                "this machine (worktree-setup, relock, timeouts, the store) apply as they are"]

    def _publish_new_integration(self, remote_name: str, ref: str, sha: str, run_id: str) -> None:
        """Create the integration branch on the remote at the pin (create-only: a lease on "absent").
        A retry whose first push reached the remote finds it there at the pin, which is fine; a
        branch of that name at another commit belongs to someone else."""
        from ..gitrepo.remote import Remote, RemoteStale

        remote = Remote(self.git, remote_name)
        try:
            remote.push_with_lease(ref, sha, None, what=f"creating {ref} on {remote_name}")
        except RemoteStale:
            current = remote.remote_ref(ref)
            if current != sha:
                raise UsageError(
                    f"the remote {remote_name!r} already has {ref} at {str(current)[:12]}, and no run {run_id!r} is recorded",
                    fix=f"choose another --run id, or delete it there (git push {remote_name} --delete {ref})",
                ) from None

    def status(self, run_id: str | None = None) -> RunStatus:
        """The runs (all, or one) and their tasks at a glance (status_view.read_status)."""
        return read_status(self.store if self._has_store() else None, run_id, where=self.git.common_dir)
