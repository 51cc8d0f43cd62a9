"""The forecast's cache answers only for the engine that computed it: a wtc upgraded or edited in place
(a language rule is data in grammars/*.toml) computes again instead of replaying an older engine's
verdict (found driving mockito: a fixed rule still said "clean" from the cache of the old one)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import make_repo
from worktree_coord import Coordinator
from worktree_coord.coordinator import forecast as forecast_module


def test_the_fingerprint_moves_with_any_file_of_the_engine_and_only_with_them(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "merge" / "checks").mkdir(parents=True)
    (package / "grammars").mkdir()
    rule = package / "grammars" / "java.toml"
    rule.write_text("[semantic]\nmember_imports = false\n")
    (package / "merge" / "checks" / "reach.py").write_text("X = 1\n")
    (package / "cli.py").write_text("A = 1\n")
    roots = [(package, ("merge", "grammars"))]
    first = forecast_module.engine_fingerprint(roots)
    assert forecast_module.engine_fingerprint(roots) == first
    (package / "cli.py").write_text("A = 22\n")     # not part of the engine
    assert forecast_module.engine_fingerprint(roots) == first
    rule.write_text("[semantic]\nmember_imports = true\n")
    changed = forecast_module.engine_fingerprint(roots)
    assert changed != first
    stat = rule.stat()
    os.utime(rule, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))   # same size, rewritten later
    assert forecast_module.engine_fingerprint(roots) != changed
    (package / "merge" / "checks" / "new_rule.py").write_text("")
    assert len({first, changed, forecast_module.engine_fingerprint(roots)}) == 3


@pytest.fixture
def engine_named():
    kept = list(forecast_module._INSTALLED_ENGINE)

    def name(value: str) -> None:
        forecast_module._INSTALLED_ENGINE[:] = [value]

    yield name
    forecast_module._INSTALLED_ENGINE[:] = kept


def test_a_forecast_cached_by_another_engine_is_computed_again(tmp_path: Path, engine_named):
    service = "def alpha(x):\n    return x + 1\n\n\ndef beta(x):\n    return x * 2\n"
    repo = make_repo(tmp_path / "repo", {"app/service.py": service})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        for task, new in (("a", "x * 3"), ("b", "x * 4")):
            worktree = Path(coordinator.start_task("r1", task, ["**"]).worktree)
            file = worktree / "app/service.py"
            file.write_text(file.read_text().replace("x * 2", new))
        engine_named("engine one")
        first = coordinator.forecast("r1")
        assert [(c["left"], c["right"]) for c in first.conflicts] == [("a", "b")]
        assert first.stats["files_merged"] >= 1
        again = coordinator.forecast("r1")
        assert again.stats["files_merged"] == 0 and again.stats["cache_hits"] >= 1
        engine_named("engine two")
        upgraded = coordinator.forecast("r1")
        assert upgraded.stats["files_merged"] >= 1, "another engine must not answer from the first one's cache"
        assert upgraded.conflicts == first.conflicts
