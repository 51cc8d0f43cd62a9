"""JSX elements and CommonJS requires in a function are uses of the names they reach.

Found last session: a task renamed `Portal` in portal.tsx; a test rendering `<P.Portal />` through
`import * as P from './portal'`, and code doing `const { Portal } = require('./portal')` inside a
function, went unnamed (`task check` clean, the finish merged, the landed tree did not type-check).
A component written as a JSX element (`<Portal />`, `<P.Portal>`) is a use of its name as a call is,
and a require destructured in a function body imports its names as one at the top level does, in
TypeScript as in JavaScript (grammars/javascript.toml, tsx.toml, typescript.toml); its line is a
use by itself, as a top-level import's is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write
from tests.core.test_star_list_gaps import _use_added_after
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

PORTAL = "export function Portal() {\n  return null;\n}\n\nexport function Other() {\n  return null;\n}\n"
RENAMED = PORTAL.replace("Portal", "Gate")
NAMESPACE = "import * as P from './portal';\n\nexport function App() {\n  return <P.Portal />;\n}\n"
REQUIRED = "export function make() {\n  const { Portal } = require('./portal');\n  return Portal();\n}\n"


@pytest.mark.parametrize("ext, user, where", [
    ("tsx", NAMESPACE, "src/user.tsx:4"),
    ("jsx", NAMESPACE, "src/user.jsx:4"),
    ("tsx", NAMESPACE.replace("<P.Portal />", "<P.Portal>x</P.Portal>"), "src/user.tsx:4"),
    ("tsx", REQUIRED, "src/user.tsx (lines 2, 3: 2 uses)"),
    ("ts", REQUIRED, "src/user.ts (lines 2, 3: 2 uses)"),
    ("js", REQUIRED, "src/user.js (lines 2, 3: 2 uses)"),
    ("js", REQUIRED.replace("return Portal();", "return 1;"), "src/user.js:2"),
    ("jsx", "export function App() {\n  const { Portal } = require('./portal');\n  return <Portal />;\n}\n",
     "src/user.jsx (lines 2, 3: 2 uses)"),
], ids=["tsx-namespace-element", "jsx-namespace-element", "tsx-namespace-open-tag", "tsx-require-in-function",
        "ts-require-in-function", "js-require-in-function", "js-require-alone", "jsx-required-element"])
def test_a_renamed_component_used_there_is_left_behind(tmp_path, ext, user, where):
    files = {f"src/portal.{ext}": PORTAL, f"src/user.{ext}": user}
    _, left = _removal_refused(tmp_path, files, f"src/portal.{ext}", {f"src/portal.{ext}": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"{where} still uses Portal, which this task removed or renamed "
                                                 f"(to Gate, it seems) in src/portal.{ext}"), left


@pytest.mark.parametrize("user", [
    "import * as P from './portal';\n\nexport function App() {\n  return <P.Other />;\n}\n",
    "export function App() {\n  const Portal = () => null;\n  return <Portal />;\n}\n",
    "import * as P from './portal';\n\nexport function App() {\n  return <portal />;\n}\n",
    "import * as P from './portal';\n\nexport function V(P: any) {\n  return <P.Portal />;\n}\n",
    "import * as P from './portal';\n\nexport function V(P: any) {\n  return P.Portal({});\n}\n",
], ids=["another-member", "a-local-component", "an-intrinsic-element", "a-parameter-hides-the-namespace-element",
        "a-parameter-hides-the-namespace-call"])
def test_an_element_that_does_not_reach_the_renamed_name_is_not_left_behind(tmp_path, user):
    _removal_merged(tmp_path, {"src/portal.tsx": PORTAL, "src/user.tsx": user}, {"src/portal.tsx": RENAMED})


def test_wtc_check_names_a_namespace_element(tmp_path):
    repo = make_repo(tmp_path / "repo", {"src/portal.tsx": PORTAL, "src/user.tsx": NAMESPACE})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"src/portal.tsx": RENAMED})
    commit_all(repo, "feature: Portal renamed")
    done = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 1 and [(u["use_path"], u["use_lines"]) for u in body["left_behind"]] == \
        [("src/user.tsx", [4])], done.stdout


def test_a_namespace_element_another_task_adds_is_a_semantic_conflict(tmp_path):
    """The merge's own check: the rename merged first, the element arrives on a line another task added."""
    repo = make_repo(tmp_path / "repo", {"src/portal.tsx": PORTAL, "src/user.tsx": NAMESPACE.replace("Portal", "Other")})
    second = _use_added_after(repo, {"src/portal.tsx": RENAMED}, "src/portal.tsx", {"src/user.tsx": NAMESPACE},
                              "src/user.tsx")
    assert second.state == "conflict", (second.state, second.notes)
    [conflict] = second.conflicts
    assert conflict["kind"] == "semantic" and conflict["semantic"]["name"] == "Portal"
    assert (conflict["semantic"]["use_path"], conflict["semantic"]["use_line"]) == ("src/user.tsx", 4)
