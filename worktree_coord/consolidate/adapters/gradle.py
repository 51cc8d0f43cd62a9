"""Gradle: tomlkit edits of the version catalog (gradle/libs.versions.toml); `gradle.lockfile`, when
the build locks its dependencies, relocked with `gradle dependencies --write-locks`.

Most Gradle builds lock nothing: then the catalog's edits are the whole consolidation. A build
that commits gradle.lockfile needs Gradle to rewrite it, and Gradle is often not installed where
consolidation runs (a build brings its own through ./gradlew, which downloads it): then the edits
are committed all the same and the result says that gradle.lockfile was not relocked and what to
run, as for pixi. `build.gradle(.kts)` files are code, not data: their dependency lines merge as
text (check/gradle_builds.py names them at finish). The relock with a real Gradle has not been run
by this project's tests (no Gradle on its machines).
"""

from __future__ import annotations

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig
from worktree_coord.consolidate.intent import Ecosystem


class GradleAdapter(ToolAdapter):
    ecosystem = Ecosystem.GRADLE
    tool = "gradle"
    lock_name = "gradle.lockfile"
    default_config = ToolConfig(
        relock=("gradle", "dependencies", "--write-locks", "--console=plain"),
        offline_flags=("--offline",),
    )

    def without_tool(self) -> str | None:
        where = self.root or "."
        return (f"gradle is not installed here, so {self.lockfile} was not relocked after the changes to the version "
                f"catalog: run `./gradlew dependencies --write-locks` (or `gradle dependencies --write-locks`) in "
                f"{where} and commit {self.lock_name}, or install Gradle and consolidate again")

    def classify(self, stderr: str) -> FailureKind:
        if "No cached version" in stderr or "offline mode" in stderr:
            return FailureKind.OFFLINE_MISS
        return self._classify_common(stderr) or FailureKind.OTHER
