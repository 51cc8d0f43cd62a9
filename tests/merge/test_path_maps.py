"""The semantic check follows a bare specifier the project's tsconfig maps to its own files
(`"paths": {"@/*": ["src/*"]}`, `baseUrl`): merge/ecosystems/path_maps.py, on real tree merges.

An application imports its modules through an alias (`import { hasProp } from "@/utils"`); the
check took the alias for a package from outside the tree: one side renamed `hasProp`, the other
added a call through the alias, git merged it clean, and the build broke."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.merge.clean_merges import tree_merge_findings
from worktree_coord.merge.ecosystems.path_maps import read_jsonc

UTILS = ("export function hasProp(target: object, prop: string): boolean {\n    return prop in target\n}\n\n"
         "export function noop(): void {}\n")
RENAMED = {"src/utils.ts": UTILS.replace("function hasProp", "function hasOwn")}
APP = 'import { noop } from "@/utils"\n\nexport function run(a: object) {\n    noop()\n}\n'
APP_USES = APP.replace("{ noop }", "{ noop, hasProp }").replace("    noop()\n", "    noop()\n    hasProp(a, \"k\")\n")
TSCONFIG = """{
  // the app's aliases
  "compilerOptions": {
    "strict": true, /* no implicit any */
    "paths": { "@/*": ["./src/*"], },
  },
}
"""


def _merge(tmp_path: Path, start: dict[str, str], ours: dict[str, str | None], theirs: dict[str, str | None]):
    return tree_merge_findings(make_repo(tmp_path / "repo", start), ours, theirs)


def test_an_alias_of_paths_leads_to_the_renamed_definition(tmp_path: Path) -> None:
    start = {"tsconfig.json": TSCONFIG, "src/utils.ts": UTILS, "src/app/main.ts": APP}
    [finding] = _merge(tmp_path, start, RENAMED, {"src/app/main.ts": APP_USES})
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("hasProp", "src/utils.ts", "src/app/main.ts", 5)
    assert finding.replacement == "hasOwn"


def test_paths_inherited_through_extends_and_a_barrel_below_the_alias(tmp_path: Path) -> None:
    """The monorepo shape: tsconfig.base.json at the root holds `paths` (relative to its baseUrl);
    the app's tsconfig.json extends it; `@acme/utils` maps to a barrel."""
    start = {"tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@acme/utils": ["libs/utils/src/index.ts"]}}}\n',
             "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json", "compilerOptions": {"jsx": "react"}}\n',
             "libs/utils/src/index.ts": 'export * from "./lib/props"\n', "libs/utils/src/lib/props.ts": UTILS,
             "apps/web/src/main.ts": APP.replace("@/utils", "@acme/utils")}
    ours = {"libs/utils/src/lib/props.ts": RENAMED["src/utils.ts"]}
    [finding] = _merge(tmp_path, start, ours, {"apps/web/src/main.ts": APP_USES.replace("@/utils", "@acme/utils")})
    assert (finding.name, finding.definition_path, finding.use_path) == \
        ("hasProp", "libs/utils/src/lib/props.ts", "apps/web/src/main.ts")


def test_base_url_alone_maps_a_specifier_below_it(tmp_path: Path) -> None:
    start = {"jsconfig.json": '{"compilerOptions": {"baseUrl": "src"}}\n', "src/utils.ts": UTILS,
             "src/app/main.ts": APP.replace("@/utils", "utils")}
    [finding] = _merge(tmp_path, start, RENAMED, {"src/app/main.ts": APP_USES.replace("@/utils", "utils")})
    assert finding.definition_path == "src/utils.ts"


@pytest.mark.parametrize("case", ["unmapped", "two files", "unreadable", "defined elsewhere"])
def test_what_no_mapping_decides_is_not_a_finding(tmp_path: Path, case: str) -> None:
    start = {"tsconfig.json": TSCONFIG, "src/utils.ts": UTILS, "src/app/main.ts": APP}
    theirs = {"src/app/main.ts": APP_USES}
    if case == "unmapped":        # `~/utils` matches no pattern: a package's name, no file of the tree
        start["src/app/main.ts"] = APP.replace("@/utils", "~/utils")
        theirs = {"src/app/main.ts": APP_USES.replace("@/utils", "~/utils")}
    elif case == "two files":     # src/utils.ts and src/utils/index.ts both answer `@/utils`
        start["src/utils/index.ts"] = "export const other = 1\n"
    elif case == "unreadable":    # a config that does not parse maps nothing
        start["tsconfig.json"] = TSCONFIG.replace('"@/*"', '"@/*" "')
    else:                         # the alias leads to a file no side changed that defines hasProp itself
        start["tsconfig.json"] = TSCONFIG.replace('"./src/*"', '"./lib/*"')
        start["lib/utils.ts"] = UTILS
    assert _merge(tmp_path, start, RENAMED, theirs) == ()


def test_tsconfig_comments_and_trailing_commas_are_read_and_strings_kept() -> None:
    doc = read_jsonc(b'{\n  // c\n  "a": "http://x/*y*/", /* d */\n  "b": [1, 2,],\n}\n')
    assert doc == {"a": "http://x/*y*/", "b": [1, 2]}
