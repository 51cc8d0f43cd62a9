"""A package manager's failure, read: network failures told from resolver refusals, and one line
for people out of dozens (the full text stays in the JSON)."""

from __future__ import annotations

from pathlib import Path

import pytest

from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import CannotRun, FailureKind, cannot_run, unreachable_registry, unreached
from worktree_coord.consolidate.tool_output import MAX_CHARS, summarize_message, summarize_tool_output

CARGO_NO_DNS = """    Updating crates.io index
warning: spurious network error (3 tries remaining): [6] Could not resolve hostname (Could not resolve host: index.crates.io)
error: failed to get `divan` as a dependency of package `clap_bench v0.0.0 (/w/clap_bench)`

Caused by:
  download of config.json failed

Caused by:
  [6] Could not resolve hostname (Could not resolve host: index.crates.io)
"""
NPM_REFUSED = """npm error code ECONNREFUSED
npm error syscall connect
npm error errno ECONNREFUSED
npm error FetchError: request to http://127.0.0.1:9/left-pad failed, reason: connect ECONNREFUSED 127.0.0.1:9
npm error A complete log of this run can be found in: /root/.npm/_logs/x.log
"""
CARGO_NO_VERSION = """    Updating crates.io index
error: failed to select a version for the requirement `memchr = "^99"`
candidate versions found which didn't match: 2.8.0
"""
NPM_NO_VERSION = "npm error code ETARGET\nnpm error notarget No matching version found for left-pad@^99.0.0.\n"


@pytest.mark.parametrize("text", [CARGO_NO_DNS, NPM_REFUSED, "go: github.com/x/y@v1: dial tcp: lookup proxy.golang.org: no such host",
                                  "error: Failed to fetch: `https://pypi.org/simple/idna/`\n  Caused by: dns error: failed to lookup address information"])
def test_network_failures_are_told_apart(text):
    assert unreachable_registry(text)


@pytest.mark.parametrize("text", [CARGO_NO_VERSION, NPM_NO_VERSION, "npm error code ENOTCACHED"])
def test_resolver_refusals_and_cache_misses_are_not_network_failures(text):
    assert not unreachable_registry(text)


def test_adapters_classify_an_unreachable_registry_before_their_own_rules(tmp_path: Path):
    cargo = adapter_for("cargo", tmp_path, "")
    npm = adapter_for("npm", tmp_path, "")
    assert cargo.classify(CARGO_NO_DNS) == FailureKind.UNREACHABLE
    assert npm.classify(NPM_REFUSED) == FailureKind.UNREACHABLE
    assert cargo.classify(CARGO_NO_VERSION) == FailureKind.RESOLUTION
    assert npm.classify(NPM_NO_VERSION) == FailureKind.RESOLUTION


def test_one_line_names_the_error_and_its_root_cause():
    line = summarize_tool_output(CARGO_NO_DNS)
    assert line.startswith("error: failed to get `divan`")
    assert line.endswith("(cause: [6] Could not resolve hostname (Could not resolve host: index.crates.io))")
    assert "warning" not in line and "\n" not in line
    assert summarize_tool_output(NPM_REFUSED) == "npm error code ECONNREFUSED"
    assert summarize_tool_output("  just one line  ") == "just one line"
    assert len(summarize_tool_output("error: " + "x" * 1000 + "\nmore")) == MAX_CHARS


def test_wtcs_own_head_is_kept_and_only_the_tools_tail_summarized():
    message = "the base of packages/a does not relock: " + CARGO_NO_DNS
    assert summarize_message(message).startswith("the base of packages/a does not relock: error: failed to get")
    assert summarize_message("an ordinary one-line reason: with a colon") == "an ordinary one-line reason: with a colon"


GO_NO_DNS = """\
go: downloading github.com/Masterminds/semver/v3 v3.5.0
go: downloading github.com/fatih/color v1.20.0
go: example.com/app/pkg/kube tested by
\texample.com/app/pkg/kube.test imports
\tk8s.io/client-go/testing: k8s.io/client-go@v0.36.3: Get "https://proxy.golang.org/k8s.io/client-go/@v/v0.36.3.zip": dial tcp: lookup proxy.golang.org on 10.0.0.53:53: no such host
go: example.com/app/pkg/kube tested by
\texample.com/app/pkg/kube.test imports
\tk8s.io/kubectl/pkg/scheme: k8s.io/kubectl@v0.36.3: Get "https://proxy.golang.org/k8s.io/kubectl/@v/v0.36.3.zip": dial tcp: lookup proxy.golang.org on 10.0.0.53:53: no such host
"""


def test_go_progress_is_noise_and_the_line_naming_the_network_failure_tells():
    line = summarize_tool_output(GO_NO_DNS)
    assert line.startswith("k8s.io/client-go/testing: k8s.io/client-go@v0.36.3: Get")
    assert "no such host" in line and "downloading" not in line
    # Without a network failure, a go progress line is still not what a person is shown.
    assert summarize_tool_output("go: downloading a v1\ngo: updates to go.mod needed; to update it:\n\tgo mod tidy") \
        == "go: updates to go.mod needed; to update it:"


CARGO_UNREACHABLE = """\
    Updating crates.io index
error: failed to get `divan` as a dependency of package `clap_bench v0.0.0 (/tmp/u24/clap/.wtc/worktrees/r1/.consolidate/consolidate-e940edb1/clap_bench)`

Caused by:
  download of config.json failed

Caused by:
  [6] Could not resolve hostname (Could not resolve host: index.crates.io)
"""


def test_paths_in_the_consolidation_scratch_checkout_read_relative_to_the_repository():
    # The scratch checkout is gone when a person reads the line: its absolute path says nothing.
    line = summarize_tool_output(CARGO_UNREACHABLE)
    assert "`clap_bench v0.0.0 (clap_bench)`" in line and ".consolidate" not in line
    assert summarize_tool_output('npm error in "/w/.wtc/worktrees/r/.consolidate/consolidate-0a1b2c3d/package.json"') \
        == 'npm error in "package.json"'
    assert summarize_tool_output("error: in /w/.consolidate/consolidate-0a1b2c3d") == "error: in ."
    # A path with a space cannot be told apart from the words before it: left as it is, never mangled.
    spaced = "error: /tmp/a b/.consolidate/consolidate-0a1b2c3d/package.json"
    assert summarize_tool_output(spaced) == spaced


UV_GIT_DEPENDENCY = """   Updating https://github.com/pydantic/strict-no-cover.git (7fc59da2c4dff919db2095a0f0e47101b657131d)
error: Failed to download and build `strict-no-cover @ git+https://github.com/pydantic/strict-no-cover.git@7fc59da2c4`
  cause: Git operation failed
  cause: process didn't exit successfully: `/usr/bin/git fetch --force 'https://github.com/pydantic/strict-no-cover.git'` (exit status: 128)
         --- stderr
         fatal: unable to access 'https://github.com/pydantic/strict-no-cover.git/': Could not resolve host: github.com
"""


@pytest.mark.parametrize(("text", "host", "git_source"), [
    (UV_GIT_DEPENDENCY, "github.com", "https://github.com/pydantic/strict-no-cover.git@7fc59da2c4"),
    (CARGO_NO_DNS, "index.crates.io", ""),
    ("go: github.com/x/y@v1: dial tcp: lookup proxy.golang.org: no such host", "proxy.golang.org", ""),
    ("error: Failed to fetch: `https://pypi.org/simple/idna/`\n  Caused by: dns error: failed to lookup address "
     "information", "pypi.org", ""),
])
def test_a_network_failure_names_the_host_and_a_git_dependency(text, host, git_source):
    """A lock that needs a git host (not the registry) says so: the user's fix is another host's access,
    or a registry release, and "could not reach its package registry" sent them to the wrong place."""
    missed = unreached(text)
    assert (missed.host, missed.git_source) == (host, git_source)
    assert ("git dependency" in missed.what()) == bool(git_source)
    assert host in missed.what()


def test_uv_causes_on_their_own_lines_are_the_summary_cause():
    text = ("Using CPython 3.11.7 interpreter at: /usr/bin/python3\n"
            "error: No solution found when resolving dependencies for split (markers: python_full_version >= '3.15')\n"
            "  cause: Because probe-pkg-1 was not found in the package registry and lib depends on probe-pkg-1>=1.0, "
            "we can conclude that lib's requirements are unsatisfiable.\n\n"
            "hint: While the active Python version is 3.11, the resolution failed for other Python versions\n")
    summary = summarize_tool_output(text)
    assert summary.startswith("error: No solution found")
    assert "(cause: Because probe-pkg-1 was not found in the package registry" in summary


# pnpm 11.19.0 (vuejs/core pins it in packageManager) started by Node.js 20, as measured on this
# machine: it warns that it needs Node 22.13, then dies loading `node:sqlite`.
PNPM_NEEDS_NEWER_NODE = """warn: This version of pnpm requires at least Node.js v22.13
warn: The current version of Node.js is v20.20.2
warn: Visit https://r.pnpm.io/comp to see the list of past pnpm versions with respective Node.js version support.
node:internal/modules/cjs/loader:1031
      throw new ERR_UNKNOWN_BUILTIN_MODULE(request);
            ^

Error [ERR_UNKNOWN_BUILTIN_MODULE]: No such built-in module: node:sqlite
    at Module._load (node:internal/modules/cjs/loader:1031:13)
    at require (node:internal/modules/helpers:182:18)
    at ../store/index/lib/index.js (file:///root/.npm/_npx/2a6889d81a455288/node_modules/pnpm/dist/pnpm.mjs:100515:25) {
  code: 'ERR_UNKNOWN_BUILTIN_MODULE'
}

Node.js v20.20.2
"""


def test_a_tool_that_refuses_this_machines_node_is_told_from_manifests_that_do_not_resolve():
    """Driving vuejs/core: the pinned pnpm could not run on Node 20, and consolidation said "the base
    of . does not relock: fix the manifests on the integration branch first"."""
    why = cannot_run(PNPM_NEEDS_NEWER_NODE)
    assert why is not None and (why.need, why.have) == ("22.13", "v20.20.2")
    assert why.what("pnpm") == "pnpm needs Node.js 22.13 or newer and this machine runs v20.20.2"
    assert adapter_for("pnpm", Path("/nonexistent"), "").classify(PNPM_NEEDS_NEWER_NODE) is FailureKind.TOOL_CANNOT_RUN
    assert not unreachable_registry(PNPM_NEEDS_NEWER_NODE)
    # Yarn Berry's own check, as it prints it (a range, then the running version without its "v").
    yarn = ("Usage Error: This tool requires a Node version compatible with >=18.12.0 (got 16.20.1). Upgrade Node, "
            "or set `YARN_IGNORE_NODE=1` in your environment.\n\nYarn Package Manager - 4.0.1\n")
    assert cannot_run(yarn).what("yarn") == "yarn needs Node.js 18.12.0 or newer and this machine runs v16.20.1"
    # A resolver's refusal and a network failure are neither.
    for text in (CARGO_NO_VERSION, NPM_REFUSED, CARGO_NO_DNS):
        assert cannot_run(text) is None, text


def test_a_crash_of_the_tool_itself_names_the_error_it_died_of():
    node = "/x/cli.js:3\n  throw new TypeError('boom')\n  ^\n\nTypeError: boom\n    at Object.<anonymous> (/x/cli.js:3:9)\n\nNode.js v20.20.2\n"
    assert cannot_run(node) == CannotRun(crash="TypeError: boom")
    rust = "thread 'main' panicked at src/resolver.rs:12:5:\nindex out of bounds\nnote: run with `RUST_BACKTRACE=1`\n"
    assert cannot_run(rust).crash == "src/resolver.rs:12:5:"
    python = "Traceback (most recent call last):\n  File \"/x/poetry\", line 8, in <module>\nKeyError: 'packages'\n"
    assert cannot_run(python).crash == "KeyError: 'packages'"
    assert cannot_run(python).what("poetry") == "poetry crashed (KeyError: 'packages')"
