"""Poetry 2.x: tomlkit edits of the Poetry or PEP 621 tables, `poetry lock` relock, `poetry check --lock`.

Poetry has no offline switch, so offline is enforced from outside: every HTTP(S) request goes to a
proxy on a closed local port and retries are off, so anything not answerable from local files
fails at once with "All attempts to connect ... failed" (an offline miss). Poetry 2's `poetry
lock` keeps the locked versions it can (the old `--no-update`); `--regenerate` is never used.
"""

from __future__ import annotations

from packaging.utils import canonicalize_name

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig
from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.textformat import load_toml, plain

CLOSED_PROXY = "http://127.0.0.1:9"
OFFLINE_ENV = {
    "HTTP_PROXY": CLOSED_PROXY, "HTTPS_PROXY": CLOSED_PROXY, "http_proxy": CLOSED_PROXY,
    "https_proxy": CLOSED_PROXY, "ALL_PROXY": CLOSED_PROXY, "NO_PROXY": "", "no_proxy": "",
    "POETRY_REQUESTS_MAX_RETRIES": "0",
}


class PoetryAdapter(ToolAdapter):
    ecosystem = Ecosystem.POETRY
    tool = "poetry"
    lock_name = "poetry.lock"
    default_config = ToolConfig(
        relock=("poetry", "lock", "--no-interaction"),
        offline_env=OFFLINE_ENV,
        check=(("poetry", "check", "--lock", "--no-interaction"),),
        env={"POETRY_VIRTUALENVS_CREATE": "false", "POETRY_NO_INTERACTION": "1"},
    )

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if "All attempts to connect" in stderr or "ProxyError" in stderr or "Max retries exceeded" in stderr:
            return FailureKind.OFFLINE_MISS
        if "version solving failed" in stderr or "SolverProblemError" in stderr or "Because " in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        lock = self.workdir / self.lockfile
        out: dict[str, set[str]] = {}
        if lock.is_file():
            for package in plain(load_toml(self.lockfile, lock.read_bytes())).get("package") or []:
                out.setdefault(canonicalize_name(package["name"]), set()).add(package["version"])
        return out
