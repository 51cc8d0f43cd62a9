"""The environment every git process wtc starts runs in: one place, so no call differs.

Variables a caller (an agent's shell, a git hook wtc runs inside) may have set to point git at
another repository, index or object store are dropped; git speaks the C locale (its messages are
parsed and quoted) and never prompts (no terminal is there to answer).
"""

from __future__ import annotations

import os

REDIRECTING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")


def git_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """os.environ without the redirecting variables, with LC_ALL=C and no prompts, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if key not in REDIRECTING}
    env.update({"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
    if extra:
        env.update(extra)
    return env
