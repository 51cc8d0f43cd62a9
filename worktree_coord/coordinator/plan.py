"""The plan: which boundary a task gets when its caller names none, decided ahead of time by the lead.

A rule pairs an agent-name pattern (shell-style: `api-*`, `docs-?`, `[ab]*`, case-sensitive, matched
against the agent's own name and the task name it becomes) with a boundary (own, read, sparse).
Rules belong to one run, or to every run (a plan made before a Claude Code session's run exists).
The boundary of a name is the first rule that matches: the run's own rules in the order they were
added, then the rules of every run, then `[tool.worktree-coord.default-boundary]` as committed at
the run's pinned commit (the run's rules, base.py `_run_rules`), then the built-in
default: own everything (`**`), which still leaves reserved files reserved (their edits become
intents), so a plan is optional.

Adding a rule identical to an existing one returns that rule: a retried `plan add` adds nothing.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Sequence

from .. import boundary as boundaries
from ..config import DefaultBoundary
from ..errors import NotFoundError, UsageError
from ..results import PlanRules

from .base import CoordinatorBase

BUILT_IN_DEFAULT = DefaultBoundary()
EVERY_RUN = ""


class PlanOperations(CoordinatorBase):
    """Adding, listing and removing plan rules; the boundary a name gets."""

    def add_plan_rule(self, pattern: str, own: Sequence[str], read: Sequence[str] = (), *, sparse: bool = False,
                      run_id: str | None = None) -> PlanRules:
        """Append a rule (for `run_id`, or every run when None); an identical rule is returned as is."""
        _check_pattern(pattern)
        scope = self._run(run_id).run_id if run_id else EVERY_RUN
        boundary = boundaries.make_boundary(own, read, sparse=sparse)
        data = {"own": list(boundary.own), "read": list(boundary.read), "sparse": sparse}
        for rule in self.store.list_plan_rules(scope):
            if rule["pattern"] == pattern and rule["boundary"] == data:
                return PlanRules(rules=[_rule_json(rule)], replayed=True)
        rule_id = self.store.add_plan_rule(scope, pattern, data)
        self.store.log_event(scope or "*", None, "plan.added", {"rule": rule_id, "pattern": pattern} | data)
        added = [r for r in self.store.list_plan_rules(scope) if r["rule_id"] == rule_id]
        return PlanRules(rules=[_rule_json(r) for r in added])

    def plan(self, run_id: str | None = None) -> PlanRules:
        """The rules that apply to `run_id` (its own, then every run's) in the order they are tried,
        or every rule when None; with the default that follows them."""
        if run_id:
            self._run(run_id)
            rules = self.store.list_plan_rules(run_id) + self.store.list_plan_rules(EVERY_RUN)
        else:
            rules = self.store.list_plan_rules(None)
        default, source = self._default_boundary(run_id)
        return PlanRules(rules=[_rule_json(r) for r in rules], default=default.to_json() | {"from": source})

    def remove_plan_rule(self, rule_id: int) -> PlanRules:
        rules = [r for r in self.store.list_plan_rules(None) if r["rule_id"] == rule_id]
        if not rules:
            raise NotFoundError(f"no plan rule #{rule_id}", fix="list the rules with `wtc plan list`")
        self.store.delete_plan_rule(rule_id)
        self.store.log_event(rules[0]["run_id"] or "*", None, "plan.removed", {"rule": rule_id})
        return PlanRules(rules=[_rule_json(r) for r in rules])

    def boundary_for(self, run_id: str, name: str, *aliases: str) -> tuple[dict[str, Any], str]:
        """The boundary (`own`, `read`, `sparse`) a task or agent called `name` gets in the run, and
        which rule gave it (shown by `wtc status`). A rule also matches one of `aliases` (an agent's
        task name: the name `wtc status` shows, which a lead may well write the pattern for)."""
        names = (name, *aliases)
        for rule in self.store.list_plan_rules(run_id) + self.store.list_plan_rules(EVERY_RUN):
            if any(fnmatch.fnmatchcase(each, rule["pattern"]) for each in names):
                return dict(rule["boundary"]), f"plan #{rule['rule_id']} {rule['pattern']!r}"
        default, source = self._default_boundary(run_id)
        return default.to_json(), source

    def _default_boundary(self, run_id: str | None) -> tuple[DefaultBoundary, str]:
        """`default-boundary` of the run's rules (as committed at its pin, `_run_rules`: an uncommitted
        edit in the main checkout must not widen the tasks of a run under way), and where it came
        from. With no run (the plan of every run), the main checkout's configuration: what a run
        started from it now would most likely pin."""
        if run_id:
            run = self._run(run_id)
            rules, where = self._run_rules(run), f" at the pin {run.base[:12]}"
        else:
            rules, where = self.config, ""
        if rules.default_boundary is not None:
            return rules.default_boundary, f"default-boundary ({rules.source}{where})"
        return BUILT_IN_DEFAULT, "built-in default (own everything; reserved files stay reserved)"


def _check_pattern(pattern: str) -> None:
    if not isinstance(pattern, str) or not pattern.strip() or len(pattern) > 200:
        raise UsageError(f"invalid plan pattern {pattern!r}",
                         fix="give an agent-name pattern of 1-200 characters, e.g. 'api-*'")


def _rule_json(rule: dict[str, Any]) -> dict[str, Any]:
    return {"rule": rule["rule_id"], "run": rule["run_id"] or None, "pattern": rule["pattern"]} | rule["boundary"]
