"""The end of a run: the change manifest (`report`), `land` after approval (a compare-and-swap
fast-forward of the target, or `merge --ff-only` where it is checked out), and `sync` for a target
that moved since the pin.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..store import leases
from ..errors import ActionRequired, BusyError, LookUnanswered, NotFoundError, StateError, UsageError
from ..store.idempotency import Outcome, default_key, recorded, run_once, variant_key
from ..model import UNAPPLIED_INTENT_STATES, RunRecord, RunState, TaskRecord, TaskState
from ..results import Landed, MergeReport, RunReport

from .base import CoordinatorBase, staged

if TYPE_CHECKING:
    from ..check import CheckReport
    from ..gitrepo.repository import Change


class _RunChanges:
    """What a report's looks read of the run's change, taken once in the call: the paths that differ
    between the pin and the integration tip, and each version of a changed file, read once and shared
    by the look for uses left behind, for declarations twice and for files that no longer parse
    (each took them again: `changes(pin, tip)` three times, each version up to three reads). Made
    per call and dropped with it: a tip that moves is a new call, never a stale answer."""

    def __init__(self, changes: list["Change"], read_blob: Callable[[str], bytes]) -> None:
        self.changes = changes
        self._read = read_blob
        self._blobs: dict[str, bytes] = {}

    def read_blob(self, oid: str) -> bytes:
        blob = self._blobs.get(oid)
        if blob is None:
            blob = self._read(oid)
            if len(blob) <= KEPT_BLOB_BYTES:   # a larger one (no look parses it) is read again, not held
                self._blobs[oid] = blob
        return blob


KEPT_BLOB_BYTES = 1_000_000   # as merge/checks/versions.py MAX_BYTES: at most 400 changed files (MAX_RUN_CHANGED), two versions each


class LandingOperations(CoordinatorBase):
    """The change manifest, landing and syncing."""

    def check(self, *, head: str | None = None, base: str | None = None, target: str | None = None,
              own: Sequence[str] = (), read: Sequence[str] = (), run: str | None = None, task: str | None = None,
              manifest: str | None = None, merge: bool = True, semantic: str | None = None,
              left_behind: str | None = None) -> "CheckReport":
        """The CI pre-merge check of a branch (boundary, reserved files, dry-run structured merge,
        uses left behind), read-only; the same as `wtc check` and `worktree_coord.check.check`. The
        rules (reserved files, `left-behind`, `semantic-check`, `max-file-size`) are the target tip's
        committed configuration, or for a task of a run (`run` + `task`) the run's own (its options,
        then its pin's), as for `wtc check`; not this coordinator's (read from the main checkout's
        working files, which a dirty checkout or the branch under review checked out would relax).
        `semantic` and `left_behind` (block, warn, off) override the modes for this call, as `wtc
        check --semantic` and `--left-behind` do."""
        from ..check import check

        return check(self.git.toplevel or self.git.common_dir, head=head, base=base, target=target, own=own,
                     read=read, run=run, task=task, manifest=manifest, merge=merge, reporter=self.reporter,
                     semantic=semantic, left_behind=left_behind)

    def report(self, run_id: str, *, onto: str | None = None) -> RunReport:
        """The run's change manifest: every path landing changes with where it came from (task,
        consolidation root, sync), tasks, intents not applied, conflicts, verification, the
        leftovers landing would leave out, and (with `onto`) whether the target fast-forwards."""
        run = self._run(run_id)
        tasks, conflicts, checks, warnings = [], [], [], []
        view = self._view_integration(run)   # a remote run: the remote's tip now; offline, the last one
        if view is not None and not view.fresh:
            warnings.append(f"stale: {view.stale}; this report is of the integration tip this clone fetched "
                            "last, not necessarily the remote's now")
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        task_records = self.store.list_tasks(run_id)
        events = self.store.events(run_id)
        widened: dict[str, list[dict[str, Any]]] = {}
        for event in events:   # boundaries the lead widened after start: part of what a reviewer checks
            if event.get("kind") == "task.widened":
                widened.setdefault(event["task_id"], []).append(event["data"])
        for task in task_records:
            merge = task.result.get("merge") or {}
            tasks.append({"task": task.task_id, "state": task.state.value, "branch": task.branch, "head": task.head,
                          "merge_commit": merge.get("merge_commit"),
                          "files": [c["path"] for c in task.result.get("changed", [])],
                          "widened": widened.get(task.task_id, [])})
            if task.state is TaskState.MERGED:
                if merge.get("verification"):
                    checks.append({"task": task.task_id} | merge["verification"])
                for finding in merge.get("semantic", []):   # the run's semantic check warned
                    if finding.get("problem") == "left_behind":
                        continue   # the run-wide left_behind below reads them on the tip as it is now
                    from ..merge.result import problem_words   # a finding's words: the merge engine's

                    other = problem_words(finding.get("problem", "broken")).other
                    warnings.append(f"semantic: task {task.task_id}: {finding['message']}"
                                    + (f" ({other} task {finding['removed_by_task']})"
                                       if finding.get("removed_by_task") not in (None, task.task_id) else ""))
            elif task.state is TaskState.CONFLICT:
                conflicts += [{"task": task.task_id} | c for c in task.result.get("conflicts", [])]
            elif task.state is TaskState.FAILED and task.result.get("verification"):
                checks.append({"task": task.task_id} | task.result["verification"])
        leftovers = self._leftovers(run_id, task_records)
        warnings += leftover_warnings(run_id, leftovers, reasons=False)   # intents_pending holds them
        unapplied = [row for rows in leftovers["intents"].values() for row in rows]
        target = None
        land_from = run.base
        if onto is not None:
            if view is not None and not view.fresh:   # offline: the remote's branch as this clone last fetched it
                target_tip = self.git.ref_target(f"refs/remotes/{run.remote}/{onto.removeprefix('refs/heads/')}")
            else:
                target_tip = self._target_tip(run, onto)
            if target_tip is None:
                raise NotFoundError(f"no branch {onto!r} to land onto", fix=self._branch_fix(run, "--onto"))
            forward = self.git.is_ancestor(target_tip, tip)
            target = {"branch": onto, "tip": target_tip, "fast_forward": forward,
                      "commits": len(self.git.commits_between(target_tip, tip)) if forward else None}
            if forward:
                land_from = target_tip
            else:
                warnings.append(f"{onto} moved since the run was pinned: landing needs the integration branch "
                                f"brought up to date (wtc sync --run {run_id} --from {onto})")
        looked = self._run_changes(run, tip)   # once: the file list and every look below read it
        files = self._landing_files(run, land_from, tip, task_records,
                                    looked.changes if land_from == run.base else None)
        unchecked: list[str] = []   # why the look for uses left behind gave no answer ("" when it did)
        left_behind = self._left_behind_in_run(run, tip, task_records, warnings, unchecked, looked)
        unread = self._names_unread_in_run(run, looked.changes)
        if unread:
            from ..check.names_unread import unread_note

            warnings.append(f"left behind: {unread_note(unread)}")
        from ..check.unrelocked_lockfiles import unrelocked_notes

        warnings += [f"not relocked: {note}" for note in unrelocked_notes((c.path for c in looked.changes),
                                                                          whose="the run's edits of it merged")]
        declared_twice = self._declared_twice_in_run(run, tip, task_records, warnings, looked)
        not_parsed: list[str] = []   # why the look for files that no longer parse gave no answer
        unparsed = self._unparsed_in_run(run, tip, task_records, warnings, not_parsed, looked)
        consolidation = self._consolidation_rows(run_id, events)
        for row in consolidation:     # e.g. the relock moved packages no intent names: a person reviews it
            warnings += [f"consolidation of {row.get('tool') or row['ecosystem']} root {row['root'] or '.'}: {w}"
                         for w in row["warnings"]]
        return RunReport(run=run_id, base=run.base, integration=run.integration_ref, tip=tip, tasks=tasks,
                         files=files, intents_pending=unapplied, intents=self._intent_rows(run_id), conflicts=conflicts, verification=checks,
                         target=target, warnings=warnings, leftovers=leftovers,
                         timeline=_timeline(run, task_records, events),
                         consolidation=consolidation, left_behind=left_behind, declared_twice=declared_twice,
                         left_behind_unchecked=unchecked[0] if unchecked else "", unparsed=unparsed,
                         unparsed_unchecked=not_parsed[0] if not_parsed else "", names_unread=unread)

    def _names_unread_in_run(self, run: RunRecord, changes: Sequence[Any]) -> dict[str, Any]:
        """The run's changed files of a language no check reads names in (check/names_unread.py), as
        `names_unread` (empty when none, or when the run's left-behind mode is off)."""
        if not changes:
            return {}       # before merge/result.py's import: a report with nothing merged loads no merge code
        from ..merge.result import SemanticMode

        if self._left_behind_mode(run) is SemanticMode.OFF:
            return {}
        from ..check.names_unread import names_unread

        found = names_unread(changes, self.git.read_blob)
        return found.to_json() if found else {}

    def _run_changes(self, run: RunRecord, tip: str) -> _RunChanges:
        """The run's change from its pin to `tip`, for the looks of one call."""
        return _RunChanges(self.git.changes(run.base, tip) if tip != run.base else [], self.git.read_blob)

    def _left_behind_in_run(self, run: RunRecord, tip: str, task_records: Sequence[TaskRecord],
                     warnings: list[str], unchecked: list[str] | None = None,
                     looked: _RunChanges | None = None) -> list[dict[str, Any]]:
        """Uses the integration tip keeps of names the run removed or renamed (left_behind.py): each
        task's merge refused its own (the run's left-behind mode), but a merge made with the mode at
        `warn` or `off`, a hand resolution, or a removal no merge could see shows here. With the
        mode at `block`, landing refuses while any remains that the person did not approve by
        name (`land`); each is also a warning. A look that gave no answer (it failed inside, or the
        run changed more files than it reads) puts its reason in `unchecked`: the run is NOT
        CHECKED, never read as leaving none. A rename guess (`replacement`) is kept only where
        the removing task's own change added that name: another task's new function in the same
        file is not what the name became."""
        if tip == run.base:
            return []
        from ..check.left_behind import MAX_RUN_CHANGED, look_for_uses   # the semantic check: only with work to look at

        looked = looked or self._run_changes(run, tip)
        partial: list[str] = []   # files mentioning a removed name left unread: no answer for them either
        found, not_looked = look_for_uses(self.git, looked.changes, run.base, at=tip, max_changed=MAX_RUN_CHANGED,
                                          partial=partial, read_blob=looked.read_blob)
        if partial and not not_looked:
            # Read in part: what was read stands, and the rest is NOT CHECKED (land refuses, as below).
            warnings.append(f"left behind: NOT CHECKED in full: {partial[0]}" + (
                "; `wtc land` refuses until they are looked for, unless told to land unchecked (--land-unchecked)"
                if self._left_behind_mode(run).value == "block" else ""))
            if unchecked is not None:
                unchecked.append(partial[0])
        if not_looked:
            warnings.append(f"left behind: NOT CHECKED: uses of names the run removed were not looked for: "
                            f"{not_looked}" + ("; `wtc land` refuses until they are looked for, unless told to land "
                                               "unchecked (--land-unchecked)"
                                               if self._left_behind_mode(run).value == "block" else ""))
            if unchecked is not None:
                unchecked.append(not_looked)
            return []
        from . import merge_queue as queue

        merged = [t for t in task_records if t.state is TaskState.MERGED]
        own_lines = queue.added_lines_reader(self.git.repo, run.base, merged)
        blocking = self._left_behind_mode(run).value == "block"
        rows = []
        for use in found:
            # The tasks that removed it: of the merged tasks that changed its file, those whose own
            # change took the name out (not the others that edited elsewhere in it, nor one that
            # only took the removal in from integration with `task update`).
            tasks = [t.task_id for t in merged
                     if any(c.get("path") == use.definition_path for c in t.result.get("changed", []))
                     and (use.kind == "module" or own_lines.removed(t.task_id, use.definition_path, use.name))]
            if use.replacement and not any(_spells(own_lines(name, use.definition_path), use.replacement)
                                           for name in tasks):
                use = dataclasses.replace(use, replacement="")
            by = f"task {', '.join(tasks)}" if tasks else "the run"
            warnings.append(f"left behind: {use.use_path} (line{'s' if len(use.use_lines) > 1 else ''} {use.lines}) still uses "
                            f"{use.name}, which {by} {use.what_happened}; the landed tree would not resolve it: "
                            f"{use.keep}, or update the use (a task that owns {use.use_path}, or `wtc task widen`)"
                            + (f"; `wtc land` refuses it until then, unless approved by name (--allow-left-behind "
                               f"{use.name})" if blocking else ""))
            rows.append(use.to_json() | {"tasks": tasks})
        return rows

    def _declared_twice_in_run(self, run: RunRecord, tip: str, task_records: Sequence[TaskRecord],
                               warnings: list[str], looked: _RunChanges | None = None) -> list[dict[str, Any]]:
        """Declarations the integration tip holds twice in one scope where the pin did not: the last
        net under every merge of the run (duplicates.py). Each merge is checked as it lands, but a
        merge made with `--semantic warn` or `off`, or a hand resolution the check could not see,
        can still leave an import or a function twice, which does not compile (Go, Rust, Java,
        TypeScript) or silently replaces the first (Python). Advice: each is a warning, never a
        refusal to land."""
        if tip == run.base:
            return []
        from ..merge.checks.duplicates import duplicate_rules, find_duplicates   # only with work to look at
        from ..merge.checks.semantic import FileVersions
        from ..check.left_behind import MAX_RUN_CHANGED

        looked = looked or self._run_changes(run, tip)
        changes = [c for c in looked.changes if c.new_oid is not None and duplicate_rules(c.path) is not None]
        if len(changes) > MAX_RUN_CHANGED:
            warnings.append(f"declared twice: not looked for in the run's {len(changes)} changed source files "
                            f"(more than {MAX_RUN_CHANGED})")
            return []
        rows = []
        for change in changes:
            pin = looked.read_blob(change.old_oid) if change.old_oid else None
            landed = looked.read_blob(change.new_oid)
            # The pin stands for both sides: a pair the landed file holds that the pin did not is
            # the run's doing, whichever task's merge or resolution made it.
            for found in find_duplicates([FileVersions(change.path, pin, pin, pin, landed)], labels=("run", "pin", "run")):
                tasks = [t.task_id for t in task_records if t.state is TaskState.MERGED
                         and any(c.get("path") == change.path for c in t.result.get("changed", []))]
                by = f"task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}" if tasks else "the run"
                warnings.append(f"declared twice: {change.path} declares {found.name} at lines {found.definition_line} "
                                f"and {found.use_line}, which the pin did not ({by} changed the file): the landed "
                                f"tree would not compile, or the second silently replaces the first; keep one (a "
                                f"task that owns {change.path}, or `wtc task widen`)")
                rows.append({"path": change.path, "name": found.name, "kind": found.kind,
                             "lines": [found.definition_line, found.use_line], "tasks": tasks})
        return rows

    def _unparsed_in_run(self, run: RunRecord, tip: str, task_records: Sequence[TaskRecord],
                         warnings: list[str], unchecked: list[str] | None = None,
                         looked: _RunChanges | None = None) -> list[dict[str, Any]]:
        """Files of the integration tip whose language's grammar does not parse them where the pin's
        version parsed (or that the run added): syntax.broken_syntax over pin..tip, the comparison a
        task's finish makes of its own change. That finish only notes it (a note, never a block), so
        a run can hold a file that will not load; `land` refuses while one remains that a person did
        not approve by path. Each is also a warning. Over MAX_RUN_CHANGED readable files the look is
        not made and `unchecked` gets why: NOT CHECKED, never read as none."""
        if tip == run.base:
            return []
        from ..merge.languages.profile_index import profile_name_for_path
        from ..check.left_behind import MAX_RUN_CHANGED

        looked = looked or self._run_changes(run, tip)
        changes = [c for c in looked.changes if c.new_oid is not None and profile_name_for_path(c.path) is not None]
        if not changes:
            return []   # before the import: the grammars load only for a file one of them reads
        if len(changes) > MAX_RUN_CHANGED:
            why = (f"the run changed {len(changes)} files a grammar reads, more than the {MAX_RUN_CHANGED} "
                   "looked at")
            warnings.append(f"does not parse: NOT CHECKED: files that no longer parse were not looked for: {why}; "
                            "`wtc land` refuses until they are looked for, unless told to land unchecked "
                            "(--land-unchecked)")
            if unchecked is not None:
                unchecked.append(why)
            return []
        from ..merge.checks.syntax import broken_syntax

        added = {c.path for c in changes if c.old_oid is None}
        found = broken_syntax((c.path, None if c.old_oid is None else looked.read_blob(c.old_oid),
                               looked.read_blob(c.new_oid)) for c in changes)
        rows = []
        for broken in found:
            tasks = [t.task_id for t in task_records if t.state is TaskState.MERGED
                     and any(c.get("path") == broken.path for c in t.result.get("changed", []))]
            by = f"task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}" if tasks else "the run"
            row = {"path": broken.path, "language": broken.language, "line": broken.line, "column": broken.column,
                   "added": broken.path in added, "tasks": tasks}
            warnings.append(f"does not parse: {unparsed_place(row)} as {broken.language} "
                            f"({'a file the run added' if row['added'] else 'it did at the pin'}; {by} changed it): "
                            f"the landed tree will not load it; fix the syntax (a task that owns {broken.path}); "
                            f"`wtc land` refuses it until then, unless approved by path (--allow-unparsed "
                            f"{broken.path}): syntax newer than wtc's grammar for the language is what that is for")
            rows.append(row)
        return rows

    def _consolidation_rows(self, run_id: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Per root and ecosystem: its last consolidation (state, commit, when) and the run's intents
        on it by state. One folder can be the root of two ecosystems (httpx: uv's pyproject.toml and a
        requirements.txt at the top), each consolidated on its own."""
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for event in events:
            if event["kind"] == "run.consolidated":
                for root in event["data"].get("roots", []):
                    key = (root["root"], root.get("ecosystem", ""))
                    rows[key] = {"root": root["root"], "ecosystem": root.get("ecosystem", ""),
                                 **({"tool": root["tool"]} if root.get("tool") else {}), "state": root["state"], "commit": root.get("commit"), "at": event["at"],
                                 "intents": {}, "warnings": list(root.get("warnings", []))}
        consolidated = sorted(rows, key=lambda key: len(key[0]), reverse=True)
        for intent in self.store.list_intents(run_id):
            manifest = str(intent["data"].get("manifest") or "")
            ecosystem = str(intent["data"].get("ecosystem") or "")
            folder = manifest.rsplit("/", 1)[0] if "/" in manifest else ""
            # An intent belongs to the innermost consolidated root of its ecosystem holding its
            # manifest (a member manifest's intent is consolidated with its workspace root), else
            # to its own folder.
            key = next(((r, e) for r, e in consolidated if e in ("", ecosystem)
                        and (r in ("", ".") or folder == r or folder.startswith(r + "/"))), (folder, ecosystem))
            row = rows.setdefault(key, {"root": key[0], "ecosystem": key[1], "state": "not consolidated",
                                        "commit": None, "at": None, "intents": {}, "warnings": []})
            row["intents"][intent["state"]] = row["intents"].get(intent["state"], 0) + 1
        return [rows[key] for key in sorted(rows)]

    def _intent_rows(self, run_id: str) -> list[dict[str, Any]]:
        """Each intent of the run, what became of it and why: the report names every one (the
        consolidation rows count them by state, which told nobody which task's change landed)."""
        recorded = self.store.list_intents(run_id)
        if not recorded:
            return []   # (a run with no intent loads none of consolidation: `wtc report`'s start-up)
        from ..consolidate.intent import Intent

        rows = []
        for row in recorded:
            data = row["data"] or {}
            try:
                what = Intent.from_json(data).summary()
            except UsageError:    # a record an older wtc wrote: its op and name say enough
                what = " ".join(str(data.get(k)) for k in ("op", "name", "spec") if data.get(k))
            applied = row["state"] in ("applied", "satisfied")
            rows.append({"intent": row["intent_id"], "task": row["task_id"], "manifest": data.get("manifest"),
                         "what": what, "state": row["state"],
                         "why": None if applied else _intent_reason(row["detail"] or {}),
                         "commit": row.get("commit_sha") if applied else None})
        return rows

    def _leftovers(self, run_id: str, task_records: Sequence[TaskRecord]) -> dict[str, Any]:
        """What landing now would leave out: intents not applied (by state) and tasks whose work is
        not in integration (by state)."""
        intents: dict[str, list[dict[str, Any]]] = {}
        merged = {t.task_id for t in task_records if t.state is TaskState.MERGED}
        closed = {t.task_id for t in task_records if t.state in (TaskState.ABANDONED, TaskState.EMPTY)}
        for row in self.store.list_intents(run_id, UNAPPLIED_INTENT_STATES):
            data = row["data"]
            detail = row["detail"] or {}
            intents.setdefault(row["state"], []).append({
                "intent": row["intent_id"], "task": row["task_id"], "state": row["state"],
                "manifest": data.get("manifest"), "op": data.get("op"), "name": data.get("name"),
                "spec": data.get("spec"), "reason": _intent_reason(detail),
                "fix": intent_fix(run_id, row, task_merged=row["task_id"] in merged,
                                  task_closed=row["task_id"] in closed)})
        tasks: dict[str, list[str]] = {}
        for task in task_records:
            if task.state in LEFTOVER_TASK_STATES:
                tasks.setdefault(task.state.value, []).append(task.task_id)
        return {"intents": intents, "tasks": tasks}

    def _landing_files(self, run: RunRecord, land_from: str, tip: str, task_records: Sequence[TaskRecord],
                       changes: list["Change"] | None = None) -> list[dict[str, Any]]:
        """Every path that differs between `land_from` (the target's tip, or the pin) and the
        integration tip, with the origins of its change: each commit on integration's first-parent
        line that touched it is a task merge, a consolidation root, a sync, or (someone committed
        to the branch by hand) another commit. Measured against the target, a sync that brought
        the target's own commits changed nothing the diff shows: it is named for a path only when
        nothing else on the line changed it (its merge made that content itself). `changes`: those
        of `land_from` to `tip`, when the caller has them."""
        if land_from == tip:
            return []
        by_commit = {t.result["merge"]["merge_commit"]: t.task_id for t in task_records
                     if (t.result.get("merge") or {}).get("merge_commit")}
        consolidated = self._consolidated_intents(run.run_id)
        touched: dict[str, list[dict[str, Any]]] = {}
        from_target: set[str] = set()   # syncs whose source the target already holds
        for commit, parent, message in self.git.first_parent_line(tip, run.base):
            origin = _origin(commit, message, by_commit)
            if origin["kind"] == "sync" and land_from != run.base:
                source = self.git.parents(commit)[1:]
                if source and self.git.is_ancestor(source[0], land_from):
                    from_target.add(commit)
            for change in self.git.changes(parent, commit):
                # A consolidation's commit names the tasks whose intents it applied to this file.
                named = (_with_tasks(origin, change.path, consolidated.get(commit, []))
                         if origin["kind"] == "consolidation" else origin)
                touched.setdefault(change.path, []).insert(0, named)
        files = []
        for change in changes if changes is not None else self.git.changes(land_from, tip):
            origins = touched.get(change.path) or [{"kind": "other", "commit": None}]
            own = [o for o in origins if o.get("commit") not in from_target]
            origins = own or origins
            tasks = [o["task"] for o in origins if o["kind"] == "task"]
            files.append({"path": change.path, "status": change.status, "origins": origins,
                          "task": tasks[-1] if tasks else None, "origin": describe_origins(origins)})
        return _moves_folded(files, lambda: self.git.renames(land_from, tip))

    def _consolidated_intents(self, run_id: str) -> dict[str, list[tuple[str, str]]]:
        """Consolidation commit -> (task, manifest) of each intent it applied or found satisfied (the
        store records the commit with the intent's state)."""
        out: dict[str, list[tuple[str, str]]] = {}
        for row in self.store.list_intents(run_id, ("applied", "satisfied")):
            if row.get("commit_sha"):
                manifest = (row["data"] or {}).get("manifest") or ""
                out.setdefault(row["commit_sha"], []).append((row["task_id"], manifest))
        return out

    @staged("land")
    def land(self, run_id: str, onto: str, *, approved: bool, allow_partial: bool = False,
             allow_left_behind: Sequence[str] = (), key: str | None = None,
             expected_tip: str | None = None, land_unchecked: bool = False,
             allow_unparsed: Sequence[str] = (), manifest: RunReport | None = None) -> Landed:
        """Fast-forward `onto` to the integration tip by compare-and-swap, after approval. Refuses
        when the target moved (not a fast-forward) and says how to bring integration up to date.
        Refuses (exit 1) while intents are not applied or tasks are in conflict, failed, rejected,
        still started or finished but not merged, unless `allow_partial`: then the result lists
        every leftover in `left_out` and `warnings`. With `expected_tip` (the tip of the manifest
        that was approved), refuses when integration has moved since: an approval covers exactly
        the change manifest it was given. With the run's left-behind mode at `block` (the default),
        refuses (exit 1) while the landed tree would keep a use of a name the run removed or
        renamed, unless each such name is in `allow_left_behind` (a person approved it by name), and
        while the look for those uses gave no answer (it failed inside, or the run changed more files
        than it reads: exit 6, as `wtc check` ends), unless `land_unchecked` (a person said to land
        without it). Refuses (exit 1) while a file of the landed tree does not parse where the pin's
        version did (or the run added it unparseable: the report's `unparsed`), unless each such
        path is in `allow_unparsed` (a person read it: e.g. syntax newer than wtc's grammar), and
        (exit 6) while that look gave no answer (more files than it reads), unless `land_unchecked`.
        `manifest`: the change manifest (`report`) the caller made in this call, of this run, to ask
        for the approval: while integration's tip is still the one it read, its looks for uses left
        behind and for files that no longer parse are the answer (the same tree read the same way),
        not made a second time; a tip that moved since is looked at anew."""
        run = self._run(run_id)
        if not approved:
            raise UsageError("landing needs approval", fix=f"review `wtc report --run {run_id} --onto {onto}`, "
                                                          "then land with --yes (or confirm at the prompt)")
        self._sync_integration(run)
        leftovers = self._leftovers(run_id, self.store.list_tasks(run_id))
        warnings = leftover_warnings(run_id, leftovers)
        if warnings and not allow_partial and not self._holds_integration(run, onto):
            raise ActionRequired(
                f"landing run {run_id} now would leave out: {leftover_summary(leftovers)}",
                fix=f"finish them (see `wtc report --run {run_id} --onto {onto}`: each leftover says how), "
                    f"or land without them: wtc land --run {run_id} --onto {onto} --yes --allow-partial",
                details={"leftovers": leftovers, "warnings": warnings})
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        if expected_tip is not None and tip != expected_tip:
            raise StateError(
                f"integration of run {run_id} moved to {tip[:12]} after the change manifest at "
                f"{expected_tip[:12]} was approved; that approval does not cover what merged since",
                fix=f"review the new manifest (wtc report --run {run_id} --onto {onto}) and approve landing again",
                details={"approved_tip": expected_tip, "integration": tip})
        request = _land_request(run_id, onto, tip)

        def body() -> Outcome:
            ref = _branch_ref(onto)
            old = self._target_tip(run, onto)
            if old is None:
                raise NotFoundError(f"no branch {onto!r} to land onto", fix=self._branch_fix(run, "--onto"))
            if old == tip or self.git.is_ancestor(tip, old):
                return Outcome(Landed(run=run_id, onto=onto, old=old, new=old, tip=tip, how="already").to_json())
            # Checked here, in the call that lands (a repeat replays what it landed): read once, by the
            # manifest of this call when it read this tip.
            looked = manifest if manifest is not None and (manifest.run, manifest.base, manifest.tip) == (
                run_id, run.base, tip) else None
            left_behind = self._left_behind_to_approve(run, tip, allow_left_behind, onto, land_unchecked, looked)
            unparsed = self._unparsed_to_approve(run, tip, allow_unparsed, onto, land_unchecked, looked)
            unread = looked.names_unread if looked is not None else \
                self._names_unread_in_run(run, self._run_changes(run, tip).changes)
            if not self.git.is_ancestor(old, tip):
                raise StateError(
                    f"{onto} moved to {old[:12]} since the run was pinned at {run.base[:12]}; "
                    f"landing {tip[:12]} would not be a fast-forward",
                    fix=f"bring integration up to date: `wtc sync --run {run_id} --from {onto}` (merges {onto} into "
                        f"the integration branch), check it, then land again",
                    details={"target": old, "integration": tip},
                )
            checked_out = self.git.worktree_on_branch(ref)
            remote = self._remote(run)
            if remote is not None:
                # The target is the remote's branch; its lease is the value this land was checked against.
                from ..gitrepo.remote import RemoteStale

                try:
                    remote.push_with_lease(ref, tip, old, what=f"landing run {run_id} on {remote.name}'s {onto}")
                except RemoteStale:
                    raise BusyError(f"{onto} moved on {remote.name} while landing", fix="run land again",
                                    retry_after=1.0) from None
                how = f"push --force-with-lease to {remote.name}"
            elif checked_out is not None:
                # Moving a checked-out branch behind git's back would leave its files stale.
                self.git.fast_forward_worktree(checked_out, tip)
                how = f"git merge --ff-only in {checked_out}"
            else:
                from ..integrate import StaleRef, fast_forward   # here: a report loads no merge engine

                try:
                    fast_forward(self.git.repo, ref, tip, old, message=f"worktree_coord: land run {run_id}")
                except StaleRef:
                    raise BusyError(f"{onto} moved while landing", fix="run land again", retry_after=1.0) from None
                how = "compare-and-swap"
            self.store.set_run_state(run_id, RunState.LANDED)
            self.store.log_event(run_id, None, "run.landed", {"onto": onto, "old": old, "new": tip,
                                                              "left_out": leftovers})
            if not any(t.state.live or t.state is TaskState.FINISHED for t in self.store.list_tasks(run_id)):
                self.drop_kept_verification(run_id)   # the run's end: nothing of it verifies any more
            return Outcome(Landed(run=run_id, onto=onto, old=old, new=tip, tip=tip, how=how,
                                  left_behind=left_behind, unparsed=unparsed, names_unread=unread).to_json())

        done = run_once(self.store, key, "run.land",
                        request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=_land_key(run_id, onto, tip))
        return Landed.from_json(done.outcome.result, replayed=done.replayed, left_out=leftovers, warnings=warnings)

    def _left_behind_to_approve(self, run: RunRecord, tip: str, approved: Sequence[str],
                                onto: str, land_unchecked: bool = False,
                                looked: RunReport | None = None) -> list[dict[str, Any]]:
        """The uses the landed tree would keep of names the run removed (the report's `left_behind`);
        with the run's mode at `block`, a refusal (ActionRequired, exit 1) while one is of a name
        not in `approved`, and one (LookUnanswered, exit 6) while the look gave no answer, unless
        `land_unchecked`. Returns them (approved ones land, listed in the result). `looked`: a
        manifest of this tip, whose look is taken as it is."""
        from ..merge.result import SemanticMode

        mode = self._left_behind_mode(run)
        if mode is SemanticMode.OFF:
            return []
        unchecked: list[str] = []
        if looked is not None:
            rows = list(looked.left_behind)
            unchecked += [looked.left_behind_unchecked] if looked.left_behind_unchecked else []
        else:
            rows = self._left_behind_in_run(run, tip, self.store.list_tasks(run.run_id), [], unchecked)
        if mode is not SemanticMode.BLOCK:
            return rows
        if unchecked and not land_unchecked:
            # No answer is not "none left behind": the landed tree may not resolve a name the run removed.
            raise LookUnanswered(
                f"landing run {run.run_id} is NOT CHECKED for uses of names the run removed: the look gave no "
                f"answer ({unchecked[0]})",
                fix=f"check the uses of what the run removed by hand (`wtc report --run {run.run_id} --onto {onto}` "
                    f"lists the run's files), then land without the look: wtc land --run {run.run_id} --onto {onto} "
                    f"--yes --land-unchecked",
                details={"left_behind_unchecked": unchecked[0]})
        names = sorted({row["name"] for row in rows})
        unknown = sorted(set(approved) - set(names))
        if unknown:
            raise UsageError(f"--allow-left-behind names {', '.join(unknown)}, which the landed tree does not use "
                             "after the run removed it" + (f" (it uses {', '.join(names)})" if names else ""),
                             fix=f"approve exactly the names `wtc report --run {run.run_id} --onto {onto}` lists "
                                 "under left behind")
        waiting = [row for row in rows if row["name"] not in set(approved)]
        if waiting:
            pending = sorted({row["name"] for row in waiting})
            raise ActionRequired(
                f"landing run {run.run_id} now would land code that uses names the run removed or renamed: "
                f"{left_behind_summary(waiting)}; the landed tree would not resolve them",
                fix=f"update those uses (a task that owns the files, or `wtc task widen` of the task that removed "
                    f"the name), or keep the old names; or, having read them, approve them by name: wtc land --run "
                    f"{run.run_id} --onto {onto} --yes " + " ".join(f"--allow-left-behind {n}" for n in pending),
                details={"left_behind": waiting})
        return rows

    def _unparsed_to_approve(self, run: RunRecord, tip: str, approved: Sequence[str], onto: str,
                             land_unchecked: bool = False, looked: RunReport | None = None) -> list[dict[str, Any]]:
        """The files of the landed tree that do not parse where the pin's version did (the report's
        `unparsed`): a refusal (ActionRequired, exit 1) while one is at a path not in `approved`, and
        one (LookUnanswered, exit 6) while the look gave no answer, unless `land_unchecked`. Returns
        them (approved ones land, listed in the result). `looked`: a manifest of this tip, whose look
        is taken as it is."""
        unchecked: list[str] = []
        if looked is not None:
            rows = list(looked.unparsed)
            unchecked += [looked.unparsed_unchecked] if looked.unparsed_unchecked else []
        else:
            rows = self._unparsed_in_run(run, tip, self.store.list_tasks(run.run_id), [], unchecked)
        if unchecked and not land_unchecked:
            raise LookUnanswered(
                f"landing run {run.run_id} is NOT CHECKED for files that no longer parse: {unchecked[0]}",
                fix=f"check that the run's files load (its verify command, an import) by hand, then land without "
                    f"the look: wtc land --run {run.run_id} --onto {onto} --yes --land-unchecked",
                details={"unparsed_unchecked": unchecked[0]})
        paths = sorted({row["path"] for row in rows})
        unknown = sorted(set(approved) - set(paths))
        if unknown:
            raise UsageError(f"--allow-unparsed names {', '.join(unknown)}, which the landed tree does not hold "
                             "as a file that no longer parses" + (f" (those are {', '.join(paths)})" if paths else ""),
                             fix=f"approve exactly the paths `wtc report --run {run.run_id} --onto {onto}` lists as "
                                 "not parsing")
        waiting = [row for row in rows if row["path"] not in set(approved)]
        if waiting:
            raise ActionRequired(
                f"landing run {run.run_id} now would land files that do not parse: {unparsed_summary(waiting)}; "
                f"the landed tree would not load them",
                fix=f"fix the syntax in a task that owns each file (wtc task start FIX --run {run.run_id} --own "
                    f"PATH, then finish it); or, having read them (syntax newer than wtc's grammar for the "
                    f"language parses where wtc's does not), approve them by path: wtc land --run {run.run_id} "
                    f"--onto {onto} --yes " + " ".join(f"--allow-unparsed {row['path']}" for row in waiting),
                details={"unparsed": waiting})
        return rows

    def landed_before(self, run_id: str, onto: str, *, tip: str, key: str | None = None) -> Landed | None:
        """The stored result of the land of `tip` onto `onto` with this key (or the default key),
        when that land was made: a face that asks a person (MCP `land`) returns it instead of asking
        again. None when none is on record; IdempotencyMismatch when the key landed something else."""
        done = recorded(self.store, key, "run.land", _land_request(run_id, onto, tip),
                        wait_timeout=self.config.wait_timeout, derived=_land_key(run_id, onto, tip))
        if done is None:
            return None
        leftovers = self._leftovers(run_id, self.store.list_tasks(run_id))
        return Landed.from_json(done.outcome.result, replayed=True, left_out=leftovers,
                                warnings=leftover_warnings(run_id, leftovers))

    def _holds_integration(self, run: RunRecord, onto: str) -> bool:
        """Does `onto` already hold the integration tip (the run landed there before)? Then a land
        again says so ("already") instead of refusing for the leftovers that land left out."""
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        target = self._target_tip(run, onto)
        return target is not None and (target == tip or self.git.is_ancestor(tip, target))

    def _branch_fix(self, run: RunRecord, flag: str) -> str:
        """The fix for a branch name that names nothing: branches of this repository on the line of
        the run's pin (the main checkout's first), not a guess at `main`. Found driving wtc on
        commander.js, whose branch is `master`: `--onto main` was refused with "e.g. --onto main"."""
        if self._remote(run) is not None:
            return f"name an existing branch of the run's remote, e.g. {flag} main"
        current = None
        if not self.git.repo.head_is_detached and not self.git.repo.head_is_unborn:
            current = self.git.repo.head.name.removeprefix("refs/heads/")
        names = [ref.removeprefix("refs/heads/") for ref in self.git.refs_under("refs/heads/")]
        tips = {name: self.git.ref_target(_branch_ref(name)) for name in names if not name.startswith("wtc/")}
        # On the pin's line: behind it (land fast-forwards it) or ahead of it (sync merges it in).
        holding = [name for name, tip in tips.items() if tip is not None
                   and (self.git.is_ancestor(tip, run.base) or self.git.is_ancestor(run.base, tip))]
        holding.sort(key=lambda name: (name != current, name))
        if not holding:
            return "name an existing branch (git branch --list)"
        return f"name an existing branch, e.g. {flag} {holding[0]}" + (
            f" (branches on the run's pin's line: {', '.join(holding[:5])})" if len(holding) > 1 else "")

    def _target_tip(self, run: RunRecord, onto: str) -> str | None:
        """Where the branch to land onto is: this repository's, or for a remote run the remote's
        (fetched into refs/remotes/<remote>/<onto> so its history can be compared here)."""
        remote = self._remote(run)
        if remote is None:
            return self.git.ref_target(_branch_ref(onto))
        ref, tracking = _branch_ref(onto), f"refs/remotes/{remote.name}/{onto.removeprefix('refs/heads/')}"
        if remote.remote_ref(ref) is None:
            return None
        remote.fetch([f"+{ref}:{tracking}"], what=f"fetching {onto} from {remote.name}")
        return self.git.ref_target(tracking)

    @staged("sync")
    def sync(self, run_id: str, source: str, *, key: str | None = None) -> MergeReport:
        """Merge branch `source` (e.g. main, which moved since the pin) into the integration branch,
        so a later land is a fast-forward. Conflicts leave integration untouched and are reported."""
        from . import merge_queue as queue
        from ..integrate import IntegrationState, labelled_resolver

        run = self._run(run_id)
        self._sync_integration(run)
        source_tip = self._target_tip(run, source)
        if source_tip is None:
            raise NotFoundError(f"no branch {source!r}", fix=self._branch_fix(run, "--from"))
        if not self.git.is_ancestor(run.base, source_tip):
            raise StateError(f"{source} does not descend from the run's pinned commit {run.base[:12]}",
                             fix="start a new run from it instead")
        with leases.hold(self.store, f"integration:{run_id}", timeout=self.config.wait_timeout,
                         what=f"run {run_id} integration"), self._heavy("merge"):
            outcome = self._integrator().merge_into(
                f"refs/heads/{run.integration_ref}", source_tip, run.base,
                message=f"wtc: sync run {run_id} with {source}", author=queue.signature(),
                resolve=labelled_resolver(f"integration {run_id}", source), publish=self._publisher(run))
        row = {"task": f"sync:{source}", "state": outcome.state.value,
               "conflicts": [c.to_json() for c in outcome.conflicts], "merge_commit": outcome.merge_commit}
        self.store.log_event(run_id, None, "run.synced", {"source": source, "state": outcome.state.value})
        return MergeReport(exit_code=1 if outcome.state is IntegrationState.CONFLICT else 0, run=run_id,
                           integration=run.integration_ref, tip=outcome.new_tip, tasks=[row])


def _spells(lines: set[str], name: str) -> bool:
    """Does one of `lines` hold `name` (its last part) as a word?"""
    from ..merge.result import name_word

    word = re.compile(r"(?<![\w$])" + re.escape(name_word(name)) + r"(?![\w$])")
    return any(word.search(line) for line in lines)


def left_behind_summary(rows: Sequence[dict[str, Any]]) -> str:
    """`unquote (httpx/_auth.py:13, 240), quote (...)`: the names a landing would leave used, with
    their first uses."""
    by_name: dict[str, list[str]] = {}
    for row in rows:
        by_name.setdefault(row["name"], []).append(
            f"{row['use_path']}:{', '.join(str(line) for line in row['use_lines'][:4])}")
    return ", ".join(f"{name} ({'; '.join(places[:3])}{'; ...' if len(places) > 3 else ''})"
                     for name, places in by_name.items())


def unparsed_place(row: dict[str, Any]) -> str:
    """`xarray/core/dtypes.py:212:6`: where a file of the landed tree first fails to parse."""
    return f"{row['path']}:{row['line']}:{row['column']}"


def unparsed_summary(rows: Sequence[dict[str, Any]]) -> str:
    """`pkg/a.py:5:5 (task t1), pkg/new.py:1:9 (the run)`: the files that do not parse, with the
    tasks whose merged changes touched each."""
    return ", ".join(f"{unparsed_place(row)} ({'task ' + ', '.join(row['tasks']) if row['tasks'] else 'the run'})"
                     for row in rows)


def _land_request(run_id: str, onto: str, tip: str) -> dict[str, str]:
    return {"run": run_id, "onto": onto, "tip": tip}


def _land_key(run_id: str, onto: str, tip: str) -> str:
    # A run may land more than once (again after more work merged): each tip is its own request.
    return variant_key(default_key(run_id, "land", onto), tip=tip)


def _branch_ref(name: str) -> str:
    return name if name.startswith("refs/") else f"refs/heads/{name}"


LEFTOVER_TASK_STATES = frozenset({TaskState.STARTED, TaskState.FINISHED, TaskState.CONFLICT, TaskState.FAILED,
                                  TaskState.REJECTED})
_TASK_FIX = {"started": "finish it (wtc task finish T --run R) or abandon it (wtc task abandon T --run R)",
             "finished": "merge it (wtc merge --run R) or abandon it (wtc task abandon T --run R)",
             "conflict": "wtc task update T --run R, resolve the markers (a semantic conflict has none: use the "
                         "name that replaced the removed one, or restore it; a use left behind in a file the task "
                         "does not change has none either: keep the old name too, or widen the task with "
                         "wtc task widen T --run R --own FILE and update the use), then wtc task finish T --run R",
             "failed": "wtc task update T --run R, fix what verification reported, then wtc task finish T --run R",
             "rejected": "fix the violations in its worktree, then wtc task finish T --run R"}


def intent_fix(run_id: str, row: dict[str, Any], *, task_merged: bool = True, task_closed: bool = False) -> str:
    """What to run for an intent that is not applied, by its state (`task_closed`: its task was
    abandoned or ended empty, so it will never merge)."""
    intent = row["intent_id"]
    state = row["state"]
    if task_closed:   # left by a wtc that did not drop them at abandon
        return f"wtc intent drop {intent} --run {run_id}: its task {row['task_id']} will never merge"
    if state in ("pending", "declared"):
        if not task_merged:
            return (f"merge its task {row['task_id']} first (intents apply once their task has merged), "
                    f"then wtc consolidate --run {run_id}")
        return f"wtc consolidate --run {run_id}"
    if state == "needs_network":
        return (f"wtc consolidate --run {run_id} --online --retry-failed (or put the packages in the local cache, "
                f"then --retry-failed)")
    if state == "failed":
        return (f"fix what failed (see its reason), then wtc consolidate --run {run_id} --retry-failed; "
                f"or wtc intent drop {intent} --run {run_id}")
    if state == "conflict":
        return (f"re-declare one side with the value to keep (wtc intent add TASK --run {run_id} --manifest M "
                f"--op OP --name N --spec S) or drop one (wtc intent drop ID --run {run_id}); then "
                f"wtc consolidate --run {run_id} --retry-failed")
    return f"wtc intent retry {intent} --run {run_id}, or wtc intent drop {intent} --run {run_id}"


def _intent_reason(detail: dict[str, Any]) -> str | None:
    """One line (a tool's output summarized; `wtc intent list --json` keeps all of it)."""
    error = detail.get("error")
    if isinstance(error, dict):
        reason = error.get("message")
    else:
        reason = detail.get("message") or detail.get("reason") or (str(error) if error else None)
    if not reason:
        return None
    # Here, not at import: only a report of a failed intent reads a tool's output (its regexes, ~1 ms).
    from ..consolidate.tool_output import summarize_message

    return summarize_message(reason)


def leftover_summary(leftovers: dict[str, Any]) -> str:
    parts = []
    for state, rows in sorted(leftovers["intents"].items()):
        parts.append(f"{len(rows)} intent(s) {state} ({', '.join(r['intent'] for r in rows[:4])}"
                     + (", ..." if len(rows) > 4 else "") + ")")
    for state, names in sorted(leftovers["tasks"].items()):
        parts.append(f"{len(names)} task(s) {state} ({', '.join(names[:6])}" + (", ..." if len(names) > 6 else "") + ")")
    return "; ".join(parts)


def leftover_warnings(run_id: str, leftovers: dict[str, Any], *, reasons: bool = True) -> list[str]:
    """One line per leftover, each with its fix; without `reasons` an intent's reason (a tool's
    error, often long) is left to where it is shown already (the report's intent lines)."""
    out = []
    for state, rows in sorted(leftovers["intents"].items()):
        for row in rows:
            why = f": {row['reason']}" if row.get("reason") and reasons else ""
            what = " ".join(part for part in (row["op"], row["name"]) if part)   # a relock has no name
            out.append(f"intent {row['intent']} ({what} in {row['manifest']}, task {row['task']}) "
                       f"is {state}{why}; landing leaves it out. Fix: {row['fix']}")
    for state, names in sorted(leftovers["tasks"].items()):
        for name in names:
            fix = _TASK_FIX[state].replace(" T ", f" {name} ").replace(" R", f" {run_id}")
            out.append(f"task {name} is {state}; its work is not in integration and landing leaves it out. Fix: {fix}")
    return out


def _moves_folded(files: list[dict[str, Any]], renames: Callable[[], dict[str, str]]) -> list[dict[str, Any]]:
    """The manifest's rows with each file the run moved as one row, `moved` from its old path (git's
    rename detection, as the merge followed it), not a deletion and an unrelated addition: a
    reviewer reads a move, and the origins of both paths' changes. `renames()` is asked only when
    the manifest holds both a deletion and an addition."""
    if not any(f["status"] == "deleted" for f in files) or not any(f["status"] == "added" for f in files):
        return files
    rows = {f["path"]: f for f in files}
    moved = {old: new for old, new in renames().items()
             if rows.get(old, {}).get("status") == "deleted" and rows.get(new, {}).get("status") == "added"}
    if not moved:
        return files
    out = []
    for row in files:
        if row["path"] in moved:
            continue   # the deletion is the moved row's `from`
        old = next((o for o, n in moved.items() if n == row["path"]), None)
        if old is not None:
            origins = [*rows[old]["origins"], *(o for o in row["origins"] if o not in rows[old]["origins"])]
            tasks = [o["task"] for o in origins if o["kind"] == "task"]
            row = row | {"status": "moved", "from": old, "origins": origins,
                         "task": tasks[-1] if tasks else None, "origin": describe_origins(origins)}
        out.append(row)
    return out


def _origin(commit: str, message: str, tasks_by_merge: dict[str, str]) -> dict[str, Any]:
    """Where one commit on the integration branch came from, from the store or its message."""
    if commit in tasks_by_merge:
        return {"kind": "task", "task": tasks_by_merge[commit], "commit": commit}
    subject = message.split("\n", 1)[0]
    if found := re.match(r"wtc: merge task (\S+) into run ", subject):
        return {"kind": "task", "task": found.group(1), "commit": commit}
    if found := re.match(r"wtc: consolidate (\S+) root '([^']*)'", subject):
        # A pyproject root not uv's is named by what it uses (consolidate/project_tool.py); its ecosystem is uv.
        from ..consolidate.project_tool import TOOL_WORDS

        word = found.group(1)
        named = {"ecosystem": "uv", "tool": word} if word in TOOL_WORDS else {"ecosystem": word}
        return {"kind": "consolidation", **named, "root": found.group(2), "commit": commit}
    if found := re.match(r"wtc: sync run \S+ with (\S+)", subject):
        return {"kind": "sync", "from": found.group(1), "commit": commit}
    return {"kind": "other", "commit": commit, "subject": subject}


def _with_tasks(origin: dict[str, Any], path: str, intents: list[tuple[str, str]]) -> dict[str, Any]:
    """A consolidation's origin of one file, with the tasks whose intents it applied there: those
    that named this manifest, else (a lockfile, a file the tool rewrote) every task of the commit."""
    tasks = [task for task, manifest in intents if manifest == path] or [task for task, _ in intents]
    return {**origin, "tasks": sorted(set(tasks))}


def describe_origins(origins: list[dict[str, Any]]) -> str:
    """`task api, consolidation uv root . for task web` for the text report."""
    words = []
    for origin in origins:
        if origin["kind"] == "task":
            word = f"task {origin['task']}"
        elif origin["kind"] == "consolidation":
            tasks = origin.get("tasks") or []
            word = f"consolidation {origin.get('tool') or origin['ecosystem']} root {origin['root'] or '.'}" + (
                f" for task{'s' if len(tasks) > 1 else ''} {', '.join(tasks)}" if tasks else "")
        elif origin["kind"] == "sync":
            word = f"sync from {origin['from']}"
        else:
            word = f"commit {str(origin.get('commit'))[:12]} (not made by wtc)" if origin.get("commit") else "unknown"
        if word not in words:
            words.append(word)
    return ", ".join(words)


TIMELINE_KINDS = ("task.started", "task.finished", "task.merged", "task.conflict", "task.rejected", "task.updated",
                  "task.abandoned", "task.empty", "task.failed", "task.failed_verification",
                  "fanout.agent", "fanout.repair")   # agent runs `wtc fanout` made: the first, then repairs


def _timeline(run: RunRecord, tasks: Sequence[TaskRecord], events: list[dict[str, Any]]) -> dict[str, Any]:
    """Every task's life as points in time, from the store's event log (a task recorded before the
    log kept its start gets its creation time as `task.started`)."""
    import time

    per_task: dict[str, list[dict[str, Any]]] = {t.task_id: [] for t in tasks}
    run_events = []
    for event in events:
        if event["task_id"] in per_task and event["kind"] in TIMELINE_KINDS:
            per_task[event["task_id"]].append({"at": event["at"], "kind": event["kind"]})
        elif event["task_id"] is None and event["kind"].startswith("run."):
            run_events.append({"at": event["at"], "kind": event["kind"]})
    rows = []
    for task in sorted(tasks, key=lambda t: (t.created_at, t.task_id)):
        points = per_task[task.task_id]
        if not any(p["kind"] == "task.started" for p in points):
            points.insert(0, {"at": task.created_at, "kind": "task.started"})
        rows.append({"task": task.task_id, "state": task.state.value, "events": points})
    return {"started_at": run.created_at, "now": time.time(), "tasks": rows, "run": run_events}

