"""The fanout plan: TOML, JSON and YAML read the same; every mistake is refused naming the file, the
task and the key; dependency order; the differences a resume lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worktree_coord.errors import UsageError
from worktree_coord.fanout.plan import differences, load

TOML = '''
[agent]
command = ["aider", "--yes", "--message-file", "{prompt_file}"]
concurrency = 8
attempts = 2
timeout = 600

[run]
verify = "make test"

[[task]]
name = "api-health"
prompt = "Add a GET /health endpoint to packages/api with a test."
own = ["packages/api/**"]
read = ["libs/**"]

[[task]]
name = "web-health"
prompt = "Show the health in the web app."
own = ["packages/web/**"]
depends_on = ["api-health"]
command = "claude -p '{prompt}'"
attempts = 1
'''

YAML = '''
agent:
  command: [aider, --yes, --message-file, "{prompt_file}"]
  concurrency: 8
  attempts: 2
  timeout: 600
run:
  verify: make test
tasks:
  - name: api-health
    prompt: Add a GET /health endpoint to packages/api with a test.
    own: [packages/api/**]
    read: [libs/**]
  - name: web-health
    prompt: Show the health in the web app.
    own: [packages/web/**]
    depends_on: [api-health]
    command: "claude -p '{prompt}'"
    attempts: 1
'''


def test_toml_json_and_yaml_plans_read_the_same(tmp_path):
    toml = tmp_path / "plan.toml"
    toml.write_text(TOML)
    yaml = tmp_path / "plan.yaml"
    yaml.write_text(YAML)
    as_json = tmp_path / "plan.json"
    as_json.write_text(json.dumps({
        "agent": {"command": ["aider", "--yes", "--message-file", "{prompt_file}"], "concurrency": 8, "attempts": 2,
                  "timeout": 600},
        "run": {"verify": "make test"},
        "task": [{"name": "api-health", "prompt": "Add a GET /health endpoint to packages/api with a test.",
                  "own": ["packages/api/**"], "read": ["libs/**"]},
                 {"name": "web-health", "prompt": "Show the health in the web app.", "own": ["packages/web/**"],
                  "depends_on": ["api-health"], "command": "claude -p '{prompt}'", "attempts": 1}]}))
    plans = [load(p) for p in (toml, yaml, as_json)]
    assert plans[0].to_json() == plans[1].to_json() == plans[2].to_json()
    plan = plans[0]
    web = plan.task("web-health")
    assert plan.command_of(web) == ("claude", "-p", "{prompt}")       # a string command splits like a shell
    assert plan.attempts_of(web) == 1 and plan.attempts_of(plan.task("api-health")) == 2
    assert plan.verify == "make test" and plan.agent.concurrency == 8 and plan.timeout_of(web) == 600.0


def test_tasks_come_after_what_they_depend_on(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"agent": {"command": ["a"]}, "tasks": [
        {"name": "c", "prompt": "p", "depends_on": ["b"]}, {"name": "a", "prompt": "p"},
        {"name": "b", "prompt": "p", "depends_on": ["a"]}, {"name": "d", "prompt": "p"}]}))
    assert load(plan).names() == ["a", "b", "c", "d"]


def _error(tmp_path: Path, body: dict | str, suffix: str = ".json") -> UsageError:
    path = tmp_path / f"plan{suffix}"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    with pytest.raises(UsageError) as caught:
        load(path)
    assert caught.value.exit_code == 2 and caught.value.fix
    assert str(path) in caught.value.message
    return caught.value


AGENT = {"command": ["agent", "{prompt}"]}


@pytest.mark.parametrize(("body", "words"), [
    ({"agent": AGENT, "tasks": [{"name": "api", "prompt": "p", "onw": ["x/**"]}]},
     ["task 'api'", "'onw'", "unknown key", "did you mean 'own'"]),
    ({"agent": AGENT, "tasks": [{"name": "api"}]}, ["task 'api'", "'prompt'", "missing"]),
    ({"agent": AGENT, "tasks": [{"name": "api", "prompt": "p", "own": ["../etc/**"]}]},
     ["task 'api'", "'own'", "outside the repository"]),
    ({"agent": AGENT, "tasks": [{"name": "bad name", "prompt": "p"}]}, ["task #1", "'name'", "' '"]),
    ({"agent": AGENT, "tasks": [{"name": "a", "prompt": "p"}, {"name": "a", "prompt": "q"}]},
     ["task 'a' (task #2)", "task #1 has that name already"]),
    ({"agent": AGENT, "tasks": [{"name": "a", "prompt": "p", "depends_on": ["nope"]}]},
     ["task 'a'", "'depends_on'", "'nope'", "does not hold"]),
    ({"agent": AGENT, "tasks": [{"name": "a", "prompt": "p", "depends_on": ["b"]},
                                {"name": "b", "prompt": "p", "depends_on": ["c"]},
                                {"name": "c", "prompt": "p", "depends_on": ["a"]}]},
     ["'depends_on'", "loop: a -> b -> c -> a"]),
    ({"agent": {"command": ["agent", "{promt}"]}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["[agent]", "'command'", "unknown placeholder {promt}", "{prompt_file}"]),
    ({"agent": {"attempts": 3}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["task 'a'", "'command'", "no command runs this task"]),
    ({"agent": {"command": ["a"], "concurrency": 0}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["[agent]", "'concurrency'", "from 1 to 256"]),
    ({"agent": AGENT, "tasks": [{"name": "a", "prompt": "p", "timeout": -1}]}, ["task 'a'", "'timeout'"]),
    ({"agent": AGENT | {"env": {"WTC_TASK": "x"}}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["[agent]", "'env'", "WTC_TASK"]),
    ({"agent": AGENT, "tasks": []}, ["the plan", "no task"]),
    ({"agent": AGENT, "task": [{"name": "a", "prompt": "p"}], "tasks": []}, ["both 'task' and 'tasks'"]),
    ({"agents": AGENT, "tasks": [{"name": "a", "prompt": "p"}]}, ["'agents'", "did you mean 'agent'"]),
    ({"agent": AGENT, "run": {"verify": "make test", "batch": 0}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["[run]", "'batch'", "from 1 to 256", "write batch = 1..256"]),
    ({"agent": AGENT, "run": {"verify": "make test", "batch": "4"}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["[run]", "'batch'", "'4' is not a whole number"]),
    ({"agent": AGENT, "run": {"batch": 4}, "tasks": [{"name": "a", "prompt": "p"}]},
     ["[run]", "'batch'", "no verify command", "add [run] verify"]),
])
def test_a_mistake_is_refused_naming_the_task_and_the_key(tmp_path, body, words):
    error = _error(tmp_path, body)
    for word in words:
        assert word in str(error), (word, str(error))


def test_a_plan_that_does_not_parse_or_has_no_known_format_is_refused(tmp_path):
    assert "does not parse" in _error(tmp_path, "[agent\ncommand = 1", ".toml").message
    assert "does not parse" in _error(tmp_path, "agent: [unclosed", ".yaml").message
    assert "cannot tell its format" in _error(tmp_path, "x", ".txt").message
    with pytest.raises(UsageError, match="no plan file"):
        load(tmp_path / "missing.toml")


def test_differences_name_added_removed_and_changed_keys(tmp_path):
    first = tmp_path / "one.json"
    first.write_text(json.dumps({"agent": AGENT, "tasks": [{"name": "a", "prompt": "p", "own": ["a/**"]},
                                                           {"name": "b", "prompt": "p"}]}))
    second = tmp_path / "two.json"
    second.write_text(json.dumps({"agent": AGENT | {"attempts": 5}, "tasks": [
        {"name": "a", "prompt": "p, better", "own": ["a/**"]}, {"name": "c", "prompt": "p"}]}))
    lines = differences(load(first).to_json(), load(second).to_json())
    assert "[agent] attempts: 3 -> 5" in lines
    assert "tasks added: c" in lines and "tasks removed: b" in lines
    assert 'task \'a\' prompt: "p" -> "p, better"' in lines
    assert differences(load(first).to_json(), load(first).to_json()) == []
