"""The fanout plan: how to run one agent, and the tasks to run it on.

Stage: the first thing `wtc fanout` does. Input: a plan file, TOML, JSON or YAML (the same keys in
each: an `agent` table, a list of tasks under `task` or `tasks`, an optional `run` table). Output: a
frozen `Plan`, validated, with its tasks in an order where every task comes after what it depends on,
and its canonical JSON (`to_json`), which the run stores so that a resume can compare the plan it is
given with the one the run began with (`differences`).

Invariants: a plan that loads is one the runner can drive to the end: every name is a valid task
name and unique, every `depends_on` names a task of the plan and no chain of them loops, every glob
is one `task start` accepts, every placeholder in a command is one the runner fills, and each
problem is refused with the file, the task (its name, or its place when the name is the problem)
and the key it is about.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import tomllib
from dataclasses import field
from pathlib import Path
from typing import Any

from ..boundary import validate_globs
from ..errors import UsageError
from ..frozen import value_class
from ..isolation import NetworkMode
from ..model import validate_name

PLACEHOLDERS = ("task", "run", "worktree", "prompt", "prompt_file")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

DEFAULT_ATTEMPTS = 3
MAX_ATTEMPTS = 20
MAX_CONCURRENCY = 256
AGENT_KEYS = ("command", "concurrency", "attempts", "timeout", "env", "network")
TASK_KEYS = ("name", "prompt", "own", "read", "depends_on", "command", "sparse", "attempts", "timeout", "env",
             "network")
RUN_KEYS = ("base", "verify", "batch")
MAX_BATCH = 256
TOP_KEYS = ("agent", "task", "tasks", "run")


@value_class
class AgentSettings:
    """`[agent]`: the command every task runs (unless a task names its own), how many at once, how
    many runs each task gets (the first and its repairs), the timeout of one run, extra environment."""

    command: tuple[str, ...] | None = None
    concurrency: int | None = None
    attempts: int = DEFAULT_ATTEMPTS
    timeout: float | None = None
    env: dict[str, str] = field(default_factory=dict)
    network: str | None = None          # "isolated" or "shared"; None: shared (module docstring of process.py)

    def to_json(self) -> dict[str, Any]:
        # `network` only when given: a plan stored before the key existed compares equal on resume.
        return {"command": list(self.command) if self.command is not None else None,
                "concurrency": self.concurrency, "attempts": self.attempts, "timeout": self.timeout,
                "env": dict(sorted(self.env.items()))} | ({"network": self.network} if self.network else {})


@value_class
class TaskPlan:
    """One `[[task]]`: its name, its prompt, its boundary, the tasks whose merged work it needs, and
    what it overrides of `[agent]`."""

    name: str
    prompt: str
    own: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    command: tuple[str, ...] | None = None
    sparse: bool = False
    attempts: int | None = None
    timeout: float | None = None
    env: dict[str, str] = field(default_factory=dict)
    network: str | None = None

    def to_json(self) -> dict[str, Any]:
        return ({"name": self.name, "prompt": self.prompt, "own": list(self.own), "read": list(self.read),
                "depends_on": list(self.depends_on), "command": list(self.command) if self.command is not None else None,
                "sparse": self.sparse, "attempts": self.attempts, "timeout": self.timeout,
                "env": dict(sorted(self.env.items()))} | ({"network": self.network} if self.network else {}))


@value_class
class Plan:
    """A validated plan; `tasks` in dependency order (a task after every task it depends on, plan
    order otherwise). `source` is where it was read from (not part of the plan's identity)."""

    agent: AgentSettings
    tasks: tuple[TaskPlan, ...]
    base: str | None = None
    verify: str | None = None
    source: str = ""
    # `[run] batch`: 1, each finish merges (verified) itself; N > 1, finishes only commit and the
    # runner's drain merges up to N at once, verified once, bisected when they fail (runner.py).
    batch: int = 1

    def task(self, name: str) -> TaskPlan:
        return next(t for t in self.tasks if t.name == name)

    def names(self) -> list[str]:
        return [t.name for t in self.tasks]

    def command_of(self, task: TaskPlan) -> tuple[str, ...]:
        command = task.command if task.command is not None else self.agent.command
        assert command is not None   # load() refuses a task with neither
        return command

    def attempts_of(self, task: TaskPlan) -> int:
        return task.attempts if task.attempts is not None else self.agent.attempts

    def timeout_of(self, task: TaskPlan) -> float | None:
        return task.timeout if task.timeout is not None else self.agent.timeout

    def env_of(self, task: TaskPlan) -> dict[str, str]:
        return self.agent.env | task.env

    def network_of(self, task: TaskPlan) -> str:
        """The agent's network: the task's, else `[agent]`'s, else shared. Shared by default because an
        agent talks to its model over the internet, which an isolated namespace (its own loopback
        only) cannot reach; a local or scripted agent may ask `isolated`."""
        return task.network or self.agent.network or NetworkMode.SHARED.value

    def to_json(self) -> dict[str, Any]:
        """The plan as the run stores it: every key, in one order, so two equal plans are equal JSON."""
        # `batch` only when above 1: a plan stored before the key existed compares equal on resume.
        return {"agent": self.agent.to_json(), "run": {"base": self.base, "verify": self.verify}
                | ({"batch": self.batch} if self.batch > 1 else {}),
                "tasks": [t.to_json() for t in sorted(self.tasks, key=lambda t: t.name)]}


def load(path: str | os.PathLike[str]) -> Plan:
    """Read and validate the plan at `path` (.toml, .json, .yaml or .yml)."""
    where = Path(path)
    shown = str(path)
    if not where.is_file():
        raise UsageError(f"no plan file {shown!r}" + (" (it is a folder)" if where.is_dir() else ""),
                         fix="give the path of a TOML, JSON or YAML plan (see docs/fanout.md)")
    suffix = where.suffix.lower()
    text = where.read_text(encoding="utf-8", errors="replace")
    try:
        if suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        elif suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            raise UsageError(f"plan {shown!r}: cannot tell its format from {suffix or 'no extension'!r}",
                             fix="name it .toml, .json, .yaml or .yml")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"plan {shown!r} does not parse: {error}", fix="fix the syntax at the place named") from None
    except Exception as error:  # yaml.YAMLError, whose module loads only for a YAML plan
        if type(error).__module__.startswith("yaml"):
            raise UsageError(f"plan {shown!r} does not parse: {error}",
                             fix="fix the syntax at the place named") from None
        raise
    return _build(data, shown)


# ---- validation ------------------------------------------------------------------------------

class _Where:
    """Names the place of a problem: the file, the table or task, the key."""

    def __init__(self, source: str, table: str):
        self.source, self.table = source, table

    def fail(self, key: str | None, why: str, fix: str) -> UsageError:
        at = f"{self.table}, key {key!r}" if key else self.table
        return UsageError(f"plan {self.source}: {at}: {why}", fix=fix,
                          details={"plan": self.source, "at": self.table, "key": key})


def _build(data: Any, source: str) -> Plan:
    top = _Where(source, "the plan")
    if not isinstance(data, dict):
        raise top.fail(None, f"it holds {_kind(data)}, not a table of keys",
                       "write an [agent] table and [[task]] entries (see docs/fanout.md)")
    _unknown(data, TOP_KEYS, top)
    if "task" in data and "tasks" in data:
        raise top.fail("tasks", "both 'task' and 'tasks' are given", "put every task under one of them")
    agent = _agent(data.get("agent", {}), _Where(source, "[agent]"))
    run = data.get("run", {})
    run_where = _Where(source, "[run]")
    if not isinstance(run, dict):
        raise run_where.fail(None, f"it holds {_kind(run)}, not a table", "write it as a table: [run] base = 'main'")
    _unknown(run, RUN_KEYS, run_where)
    base = _optional_text(run, "base", run_where)
    verify = _optional_text(run, "verify", run_where)
    batch = _int(run, "batch", run_where, 1, MAX_BATCH) or 1
    if batch > 1 and not verify:
        raise run_where.fail("batch", f"batch = {batch} verifies finished tasks together, and the plan has no "
                                      "verify command", "add [run] verify = \"your test command\", or remove batch "
                                      "(without a verify command each finish merges at once, nothing to batch)")
    raw_tasks = data.get("task", data.get("tasks"))
    if raw_tasks is None or raw_tasks == []:
        raise top.fail("task", "the plan has no task", "add at least one [[task]] with a name and a prompt")
    if not isinstance(raw_tasks, list):
        raise top.fail("task", f"it holds {_kind(raw_tasks)}, not a list of tasks",
                       "write each task as a [[task]] table (TOML) or an item of a `tasks` list (JSON, YAML)")
    tasks: list[TaskPlan] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_tasks, start=1):
        task = _task(raw, index, source)
        if task.name in seen:
            raise _Where(source, f"task {task.name!r} (task #{index})").fail(
                "name", f"task #{seen[task.name]} has that name already", "give every task its own name")
        seen[task.name] = index
        if task.command is None and agent.command is None:
            raise _Where(source, f"task {task.name!r}").fail(
                "command", "no command runs this task: neither [agent] nor the task names one",
                "set [agent] command = [\"your-agent\", \"{prompt}\"] (or a command in the task)")
        tasks.append(task)
    names = set(seen)
    for task in tasks:
        unknown = [d for d in task.depends_on if d not in names]
        if unknown:
            raise _Where(source, f"task {task.name!r}").fail(
                "depends_on", f"names {', '.join(repr(u) for u in unknown)}, which the plan does not hold",
                "name tasks of this plan (their `name`), or remove the entry")
        if task.name in task.depends_on:
            raise _Where(source, f"task {task.name!r}").fail("depends_on", "the task depends on itself",
                                                             "remove its own name from depends_on")
    ordered = _dependency_order(tasks, source)
    return Plan(agent=agent, tasks=tuple(ordered), base=base, verify=verify, source=source, batch=batch)


def _agent(raw: Any, where: _Where) -> AgentSettings:
    if not isinstance(raw, dict):
        raise where.fail(None, f"it holds {_kind(raw)}, not a table",
                         "write [agent] with command = [...] (see docs/fanout.md)")
    _unknown(raw, AGENT_KEYS, where)
    command = _command(raw.get("command"), where) if "command" in raw else None
    concurrency = _int(raw, "concurrency", where, 1, MAX_CONCURRENCY)
    attempts = _int(raw, "attempts", where, 1, MAX_ATTEMPTS)
    return AgentSettings(command=command, concurrency=concurrency,
                         attempts=attempts if attempts is not None else DEFAULT_ATTEMPTS,
                         timeout=_seconds(raw, "timeout", where), env=_env(raw, where),
                         network=_network(raw, where))


def _network(raw: dict[str, Any], where: "_Where") -> str | None:
    value = raw.get("network")
    if value is None or value in {mode.value for mode in NetworkMode}:
        return value
    raise where.fail("network", f"{value!r} is not isolated or shared",
                     'write network = "shared" (the default: the agent reaches its model) or "isolated" (its own '
                     "loopback only: for an agent that needs no network)")


def _task(raw: Any, index: int, source: str) -> TaskPlan:
    where = _Where(source, f"task #{index}")
    if not isinstance(raw, dict):
        raise where.fail(None, f"it holds {_kind(raw)}, not a table", "write each task as a table with name and prompt")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise where.fail("name", "missing or not a string", "give the task a name (1-64 of A-Z a-z 0-9 . _ -)")
    try:
        validate_name("task", name)
    except UsageError as error:
        raise where.fail("name", error.message, error.fix or "") from None
    where = _Where(source, f"task {name!r}")
    _unknown(raw, TASK_KEYS, where)
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise where.fail("prompt", "missing or empty", "write what the agent should do as the task's prompt")
    own = _globs(raw, "own", where)
    read = _globs(raw, "read", where)
    depends = raw.get("depends_on", [])
    if isinstance(depends, str):
        depends = [depends]
    if not isinstance(depends, list) or not all(isinstance(d, str) and d for d in depends):
        raise where.fail("depends_on", f"it holds {_kind(depends)}, not a list of task names",
                         "write depends_on = [\"other-task\"]")
    sparse = raw.get("sparse", False)
    if not isinstance(sparse, bool):
        raise where.fail("sparse", f"it holds {_kind(sparse)}, not true or false", "write sparse = true or false")
    return TaskPlan(name=name, prompt=prompt, own=own, read=read, depends_on=tuple(dict.fromkeys(depends)),
                    command=_command(raw["command"], where) if "command" in raw else None, sparse=sparse,
                    attempts=_int(raw, "attempts", where, 1, MAX_ATTEMPTS), timeout=_seconds(raw, "timeout", where),
                    env=_env(raw, where), network=_network(raw, where))


def _command(raw: Any, where: _Where) -> tuple[str, ...]:
    """A command as a list of arguments; a string is split as a shell would split it (no shell runs)."""
    if isinstance(raw, str):
        try:
            parts = shlex.split(raw)
        except ValueError as error:
            raise where.fail("command", f"it does not split into arguments: {error}",
                             "write it as a list of arguments: [\"agent\", \"--flag\", \"{prompt}\"]") from None
    elif isinstance(raw, list) and all(isinstance(p, str) for p in raw):
        parts = list(raw)
    else:
        raise where.fail("command", f"it holds {_kind(raw)}, not a list of strings",
                         "write it as a list of arguments: [\"agent\", \"--flag\", \"{prompt}\"]")
    if not parts or not parts[0].strip():
        raise where.fail("command", "it is empty", "name the program to run first: [\"agent\", ...]")
    for part in parts:
        for name in _PLACEHOLDER.findall(part):
            if name not in PLACEHOLDERS:
                close = difflib.get_close_matches(name, PLACEHOLDERS, n=1)
                raise where.fail("command", f"unknown placeholder {{{name}}} in {part!r}"
                                 + (f" (did you mean {{{close[0]}}}?)" if close else ""),
                                 "use " + ", ".join("{" + p + "}" for p in PLACEHOLDERS))
    return tuple(parts)


def _globs(raw: dict[str, Any], key: str, where: _Where) -> tuple[str, ...]:
    value = raw.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise where.fail(key, f"it holds {_kind(value)}, not a list of globs", f"write {key} = [\"packages/api/**\"]")
    try:
        return validate_globs(key, value)
    except UsageError as error:
        raise where.fail(key, error.message, error.fix or "") from None


def _int(raw: dict[str, Any], key: str, where: _Where, low: int, high: int) -> int | None:
    if key not in raw:
        return None
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise where.fail(key, f"{value!r} is not a whole number from {low} to {high}", f"write {key} = {low}..{high}")
    return value


def _seconds(raw: dict[str, Any], key: str, where: _Where) -> float | None:
    if key not in raw:
        return None
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise where.fail(key, f"{value!r} is not a number of seconds above 0", f"write {key} = 1800 (seconds)")
    return float(value)


def _env(raw: dict[str, Any], where: _Where) -> dict[str, str]:
    value = raw.get("env", {})
    if not isinstance(value, dict) or not all(isinstance(k, str) and k and "=" not in k and isinstance(v, str)
                                              for k, v in value.items()):
        raise where.fail("env", f"it holds {_kind(value)}, not a table of names to strings",
                         "write env = { NAME = \"value\" }")
    reserved = sorted(k for k in value if k.startswith("WTC_"))
    if reserved:
        raise where.fail("env", f"{', '.join(reserved)}: WTC_ variables are set by the runner",
                         "use another name for your own variables")
    return dict(value)


def _optional_text(raw: dict[str, Any], key: str, where: _Where) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise where.fail(key, f"it holds {_kind(value)}, not a non-empty string", f"write {key} = \"...\" or leave it out")
    return value


def _unknown(raw: dict[str, Any], known: tuple[str, ...], where: _Where) -> None:
    for key in raw:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            raise where.fail(str(key), "unknown key" + (f" (did you mean {close[0]!r}?)" if close else ""),
                             "known keys here: " + ", ".join(known))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value[:40]!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "nothing" if value is None else type(value).__name__


def _dependency_order(tasks: list[TaskPlan], source: str) -> list[TaskPlan]:
    """Tasks in plan order, each moved after everything it depends on; a loop is refused naming it."""
    by_name = {t.name: t for t in tasks}
    placed: dict[str, None] = {}
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in placed:
            return
        if name in visiting:
            loop = visiting[visiting.index(name):] + [name]
            raise _Where(source, f"task {name!r}").fail(
                "depends_on", f"the dependencies loop: {' -> '.join(loop)}",
                "remove one depends_on entry of the loop: a task cannot wait for its own work")
        visiting.append(name)
        for dependency in by_name[name].depends_on:
            visit(dependency)
        visiting.pop()
        placed[name] = None

    for task in tasks:
        visit(task.name)
    return [by_name[name] for name in placed]


# ---- comparing a plan with the one the run stored ------------------------------------------

def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed from the stored plan `old` to `new` (both `Plan.to_json()`), one line each:
    tasks added and removed, then each changed key of [agent], [run] and of each task."""
    lines: list[str] = []
    for table in ("agent", "run"):
        for key in sorted(set(old.get(table, {})) | set(new.get(table, {}))):
            before, after = old.get(table, {}).get(key), new.get(table, {}).get(key)
            if before != after:
                lines.append(f"[{table}] {key}: {_shown(before)} -> {_shown(after)}")
    old_tasks = {t["name"]: t for t in old.get("tasks", [])}
    new_tasks = {t["name"]: t for t in new.get("tasks", [])}
    added = [n for n in new_tasks if n not in old_tasks]
    removed = [n for n in old_tasks if n not in new_tasks]
    if added:
        lines.append(f"tasks added: {', '.join(added)}")
    if removed:
        lines.append(f"tasks removed: {', '.join(removed)}")
    for name in new_tasks:
        if name in old_tasks and old_tasks[name] != new_tasks[name]:
            for key in new_tasks[name]:
                before, after = old_tasks[name].get(key), new_tasks[name].get(key)
                if before != after:
                    lines.append(f"task {name!r} {key}: {_shown(before)} -> {_shown(after)}")
    return lines


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
