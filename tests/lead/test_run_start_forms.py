"""`wtc run start` takes the run id as an argument, as `wtc task start` takes its task's, or as
--run; both given must name the same run (else exit 2, nothing made). The real command line."""

from __future__ import annotations

from tests.conftest import git, wtc


def test_run_start_takes_the_run_id_as_an_argument(repo):
    code, started = wtc(repo, "run", "start", "r1")
    assert code == 0 and started["run"] == "r1" and started["integration"] == "wtc/r1/integration", started
    assert git(repo, "rev-parse", "wtc/r1/integration") == git(repo, "rev-parse", "HEAD")
    code, again = wtc(repo, "run", "start", "r1", "--run", "r1")        # the same id twice: one run
    assert code == 0 and again["run"] == "r1" and again["replayed"], again
    code, by_option = wtc(repo, "run", "start", "--run", "r2")
    assert code == 0 and by_option["run"] == "r2", by_option


def test_two_different_run_ids_are_refused_naming_both(repo):
    code, refused = wtc(repo, "run", "start", "r1", "--run", "r2")
    assert code == 2 and refused["error"]["kind"] == "usage", refused
    assert "'r1'" in refused["error"]["message"] and "'r2'" in refused["error"]["message"], refused
    assert "wtc run start r1" in refused["error"]["fix"], refused
    assert git(repo, "branch", "--list", "wtc/*") == ""                  # nothing made


def test_an_invalid_run_id_as_the_argument_is_refused_like_one_given_by_option(repo):
    code, refused = wtc(repo, "run", "start", "bad/name")
    assert code == 2 and "invalid run name 'bad/name'" in refused["error"]["message"], refused
