"""The integrations and examples run for real: the orchestrator, the lead agent's shell workflow,
the GitHub Actions workflow's commands and the pre-commit hook."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

from tests.ci.ci_helpers import SCHEMAS, commit_all
from tests.conftest import git, make_repo, write

ROOT = Path(__file__).resolve().parents[2]
BIN = str(Path(sys.executable).parent)


def env_with_wtc() -> dict[str, str]:
    return dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
                GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")


def orchestrator(*args: str, cwd: Path) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "orchestrator.py"), *args, "--json"],
                          capture_output=True, text=True, timeout=600, cwd=cwd, stdin=subprocess.DEVNULL)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_orchestrator_fans_out_merges_consolidates_lands_when_approved_and_replays(tmp_path):
    # Not approved (no --yes, no terminal to ask on): everything up to landing, then exit 1.
    code, result = orchestrator("--tasks", "4", "--parallel", "2", cwd=tmp_path)
    repo = Path(result["repo"])
    base = git(repo, "rev-parse", "main")
    assert code == 1 and result["landed"] is False and result["land"] is None
    assert result["not_landed"].startswith("not approved: review the change manifest, then run again with --yes")
    assert git(repo, "rev-parse", "main") == base, "nothing lands without approval"
    assert {row["task"]: row["state"] for row in result["status"]["tasks"]} == {
        f"p{i}-feature": "merged" for i in range(4)}
    assert [a["reserved"] for a in result["agents"] if a["task"] == "p0-feature"] == [["package.json"]]
    tip = git(repo, "rev-parse", "wtc/orchestrated/integration")
    for index in range(4):
        assert f"p{index}Twice" in git(repo, "show", f"{tip}:packages/p{index}/src/index.js")
    # the reserved edit never went through a text merge: consolidation applied it and relocked, offline
    [root] = result["consolidate"]["roots"]
    assert (root["ecosystem"], root["state"]) == ("npm", "applied")
    assert tip == root["commit"] == result["tip"], "the tip printed is the one after consolidation"
    assert json.loads(git(repo, "show", f"{tip}:package.json"))["dependencies"] == {"p1": "1.0.0"}
    assert '"packages/p1"' in git(repo, "show", f"{tip}:package-lock.json")

    # Approved: the same run goes on (the agents' work is not done again) and lands.
    code, landed = orchestrator("--repo", str(repo), "--tasks", "4", "--yes", cwd=tmp_path)
    assert code == 0 and landed["landed"] is True and landed["agents"] == [], landed
    assert landed["land"]["old"] == base and landed["land"]["new"] == tip == landed["tip"]
    assert git(repo, "rev-parse", "main") == tip
    assert landed["replayed"]["run_start"] is True and landed["replayed"]["land"] is False

    # Run again: every write replays through its idempotency key, nothing moves.
    code, again = orchestrator("--repo", str(repo), "--tasks", "4", "--yes", cwd=tmp_path)
    assert code == 0 and again["landed"] is True and again["agents"] == []
    assert again["replayed"]["run_start"] is True and again["replayed"]["land"] is True
    assert again["land"] == landed["land"] | {"replayed": True}
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "wtc/orchestrated/integration") == tip


def test_lead_agent_workflow_script_runs_and_is_safe_to_repeat(tmp_path):
    repo = make_repo(tmp_path / "repo", {"packages/api/index.js": "export const a = 1;\n",
                                         "packages/web/index.js": "export const w = 1;\n",
                                         "docs/guide.md": "# guide\n"})
    script = str(ROOT / "examples" / "lead-agent-workflow.sh")
    first = subprocess.run(["bash", script, str(repo), "L1"], capture_output=True, text=True, timeout=600,
                           env=env_with_wtc())
    assert first.returncode == 0, first.stdout + first.stderr
    tip = git(repo, "rev-parse", "wtc/L1/integration")
    for path in ("packages/api/index.js", "packages/web/index.js", "docs/guide.md"):
        assert "done by the agent of task" in git(repo, "show", f"{tip}:{path}")
    second = subprocess.run(["bash", script, str(repo), "L1"], capture_output=True, text=True, timeout=600,
                            env=env_with_wtc())
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("already done, skipped") == 3
    assert git(repo, "rev-parse", "wtc/L1/integration") == tip
    # the keys it passed are <run>-<op>-<task>: a repeat of one with another request is refused
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", "api-health", "--run", "L1",
                           "--own", "elsewhere/**", "--key", "L1-start-api-health", "--json"],
                          cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["kind"] == "idempotency_mismatch"


def _pr_repository(tmp_path: Path) -> tuple[Path, str]:
    """A clone as actions/checkout leaves it (fetch-depth 0), with a PR branch that has a manifest."""
    origin = make_repo(tmp_path / "origin", {"api/app.py": "x = 1\n", "web/page.html": "<p>1</p>\n"})
    git(origin, "checkout", "-q", "-b", "pr")
    write(origin, {".wtc-boundary.toml": 'own = ["api/**"]\n', "api/app.py": "x = 2\n",
                   "web/page.html": "<p>2</p>\n"})
    head = commit_all(origin, "pr")
    git(origin, "checkout", "-q", "main")
    clone = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "--detach", head)
    return clone, head


def test_github_workflow_commands_run_and_produce_valid_sarif(tmp_path):
    workflow = yaml.safe_load((ROOT / "examples" / "github-action.yml").read_text())
    assert "pull_request" in workflow[True]  # YAML 1.1 reads the `on` key as True
    job = workflow["jobs"]["wtc-check"]
    steps = job["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert upload["with"]["sarif_file"] == "wtc.sarif"
    commands = [s["run"] for s in steps if "wtc check" in s.get("run", "")]
    assert any("--format sarif" in c for c in commands) and any("--format github" in c for c in commands)
    clone, head = _pr_repository(tmp_path)
    env = env_with_wtc() | {"HEAD_SHA": head, "TARGET": "origin/main"}
    codes = []
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, timeout=300)
        codes.append(done.returncode)
        if "--format github" in command:
            assert "::error file=web/page.html,line=1,endLine=1,title=wtc outside_own::" in done.stdout
            assert "::warning file=.wtc-boundary.toml" in done.stdout
    assert codes == [3, 3]
    log = json.loads((clone / "wtc.sarif").read_text())
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"outside_own", "manifest_changed"}


def test_pre_commit_hook_checks_staged_changes(tmp_path):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = [h for h in hooks if h["id"] == "wtc-boundary"]
    assert hook["pass_filenames"] is False and hook["language"] == "python"
    repo = make_repo(tmp_path / "repo", {"api/app.py": "x = 1\n", "web/page.html": "<p>1</p>\n"})
    # pre-commit runs `entry` + `args` from the repository root
    command = shlex.split(hook["entry"]) + ["--own", "api/**"]
    write(repo, {"api/app.py": "x = 2\n"})
    git(repo, "add", "-A")
    ok = subprocess.run(command, cwd=repo, env=env_with_wtc(), capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    write(repo, {"web/page.html": "<p>2</p>\n"})
    git(repo, "add", "-A")
    refused = subprocess.run(command, cwd=repo, env=env_with_wtc(), capture_output=True, text=True, timeout=120)
    assert refused.returncode == 3 and "web/page.html" in refused.stdout
    # with a manifest in the working tree instead of args
    write(repo, {".wtc-boundary.toml": 'own = ["api/**", "web/**"]\n'})
    git(repo, "add", "-A")
    manifest = subprocess.run(shlex.split(hook["entry"]), cwd=repo, env=env_with_wtc(), capture_output=True,
                              text=True, timeout=120)
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
