"""Claude Code's WorktreeCreate and WorktreeRemove hooks, as wtc runs them.

The contract with Claude Code (../shared/research/agent-harnesses.md, the hooks reference):
- **WorktreeCreate** replaces Claude Code's `git worktree add`. The hook prints the worktree's
  absolute path as the last line of stdout and nothing else there; everything else goes to stderr.
  Any non-zero exit fails that agent's creation (Claude Code does not fall back to its own step,
  so the agent never runs in the main checkout).
- **WorktreeRemove** replaces Claude Code's removal. It runs with its working directory inside the
  worktree, so wtc works from the main checkout (found through the worktree's git common dir).
  Claude Code reads a non-zero exit as "not removed" and keeps its record of the worktree (it
  deletes nothing itself: the hook is the removal). So the exit code says whether the worktree is
  still there: 0 when it is gone (merged, unchanged, or in conflict with its work kept on its
  branch) or was never wtc's (left to git, untouched); 2 when the payload is bad or names the main
  checkout (never an agent's worktree: refused); 3 when a boundary violation keeps it; 4 when the
  repository stayed busy past the timeout; 6 for a bug.

This module only reads payloads, finds the repository and renders; the policy (runs per session,
task names, the plan, finishing) is `Coordinator.start_agent` / `finish_agent_worktree`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO, Mapping

from ..errors import NotFoundError
from ..results import AgentFinished, AgentStarted
from .payload import STDIN_TIMEOUT_SECONDS, create_payload, read_object, remove_payload

HARNESS = "claude"


def worktree_create(stdin: BinaryIO, *, run: str | None, environ: Mapping[str, str] = os.environ,
                    timeout: float = STDIN_TIMEOUT_SECONDS) -> AgentStarted:
    """Read a WorktreeCreate payload (within `timeout` seconds) and make the agent's task worktree."""
    from ..coordinator import Coordinator

    payload = create_payload(read_object(stdin, what="wtc hook claude worktree-create", timeout=timeout))
    folder = _first_folder(payload.cwd, payload.base_path, environ.get("CLAUDE_PROJECT_DIR"))
    _check_repository(folder)
    with Coordinator(folder) as coordinator:
        return coordinator.start_agent(payload.name, harness=HARNESS, session_id=payload.session_id, run_id=run,
                                       source_ref=payload.source_ref, checkout=folder)


def worktree_remove(stdin: BinaryIO, *, environ: Mapping[str, str] = os.environ,
                    timeout: float = STDIN_TIMEOUT_SECONDS) -> AgentFinished:
    """Read a WorktreeRemove payload (within `timeout` seconds) and hand the worktree back (finish its task)."""
    from ..coordinator import Coordinator
    from ..gitrepo import GitRepo

    payload = remove_payload(read_object(stdin, what="wtc hook claude worktree-remove", timeout=timeout))
    given = payload.worktree_path or payload.cwd or _cwd()
    target = Path(payload.cwd or _cwd(), given) if not os.path.isabs(given) else Path(given)
    try:
        # Work from the main checkout: the hook's own folder is the worktree about to go away.
        repo = GitRepo(_first_folder(str(target), payload.cwd, environ.get("CLAUDE_PROJECT_DIR")))
    except NotFoundError:
        return AgentFinished(worktree=str(target), action="not_ours", kept=target.exists(),
                             message=f"{target} is in no git repository wtc knows; left untouched")
    main = repo.toplevel or repo.common_dir
    os.chdir(main)
    with Coordinator(main) as coordinator:
        return coordinator.finish_agent_worktree(target)


def _check_repository(folder: str) -> None:
    """NotFoundError that says where the hook looks for its repository (it takes no --repo, which
    the git layer's own fix offers)."""
    from ..gitrepo import GitRepo

    try:
        GitRepo(folder)
    except NotFoundError as error:
        raise NotFoundError(
            error.message,
            fix="the hook works in the repository of the payload's cwd (else its base_path, else "
                "CLAUDE_PROJECT_DIR, else the folder it runs in): start Claude Code inside a git repository",
            details=error.details | {"folder": folder}) from None


def _first_folder(*candidates: str | None) -> str:
    """The first candidate that is an existing folder (the payload's, then Claude Code's project
    folder, then our own working directory)."""
    for candidate in candidates:
        if candidate and os.path.isdir(candidate):
            return candidate
    return _cwd()


def _cwd() -> str:
    try:
        return os.getcwd()
    except FileNotFoundError:  # the folder we were started in was removed under us
        return "/"


def describe_created(result: AgentStarted) -> str:
    """What stderr says about a created worktree (Claude Code shows it in debug mode)."""
    run = f"run {result.run}" + (f" (started now for session {result.session}, pinned at {result.base[:12]})"
                                 if result.run_created else "")
    lines = [f"wtc: agent {result.agent!r} -> task {result.task} of {run}" + (" (again)" if result.replayed else ""),
             f"wtc:   worktree {result.worktree}",
             f"wtc:   own {' '.join(result.boundary.get('own', []))} ({result.boundary_from})"]
    prepared = result.prepared
    if prepared.get("ports"):
        ports = prepared["ports"]
        lines.append(f"wtc:   ports {ports['base']}-{ports['last']} (WTC_PORT_BASE in {prepared.get('env_file')})")
    if prepared.get("included", {}).get("copied"):
        lines.append(f"wtc:   copied {prepared['included']['copied']} file(s) named in .worktreeinclude")
    for name in prepared.get("linked", []):
        lines.append(f"wtc:   linked {name} from the main checkout")
    for item in prepared.get("skipped", []):
        lines.append(f"wtc:   skipped {item['path']}: {item['why']}")
    if prepared.get("setup"):
        setup = prepared["setup"]
        lines.append(f"wtc:   setup `{setup['command']}` ok in {setup['seconds']} s (log {setup['log']})")
    lines += [f"wtc:   note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def describe_removed(result: AgentFinished) -> str:
    lines = [f"wtc: {result.message}"]
    if result.finish:
        for violation in result.finish.get("violations", [])[:10]:
            lines.append(f"wtc:   {violation['rule']}: {violation['path'] or '-'}: {violation['detail']}")
        for conflict in result.finish.get("conflicts", [])[:10]:
            where = f" in {conflict['declaration']}" if conflict.get("declaration") else ""
            lines.append(f"wtc:   conflict: {conflict['path']}{where} ({conflict.get('kind', '')})")
    lines += [f"wtc:   next: {step}" for step in result.next]
    return "\n".join(lines) + "\n"
