"""A module a barrel passes on whole, read through the barrel bound whole: `import * as lib from
'./lib'` where lib/index.ts says `export * as sub from './sub'`, then `lib.sub.parse()` (or `import
{ns} from './lib/ns'; ns.sub.parse()`, a path of such modules). The use is sub.ts's parse, so its
rename blocks at `wtc check`, `task check`, the finish, the queue's merge and a drain (trust-left12's
note: the barrel's file was reached, the module it passes on was not, and every face said clean;
`import {sub} from './lib'; sub.parse()` was caught), also through `export * from` files two deep
before that barrel, which never spell `sub`. TypeScript and JavaScript (.js, .mjs). Never
where sub.ts keeps the member, or a parameter of the barrel's name hides the import.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _drained, _second_finish, _task_edited

SUB = "export function parse(s) {\n  return s;\n}\n\nexport function other() {\n  return 1;\n}\n"


def _files(ext: str) -> dict[str, str]:
    suffix = "" if ext == "ts" else f".{ext}"   # (TypeScript's specifiers name no extension)
    return {f"src/lib/index.{ext}": f"export * as sub from './sub{suffix}';\n", f"src/lib/sub.{ext}": SUB,
            f"src/lib/ns.{ext}": f"export * as ns from './index{suffix}';\n", f"src/other.{ext}": "export const y = 1;\n",
            # `export * from` two deep before the barrel that passes sub on whole
            f"src/lib/all.{ext}": f"export * from './mid{suffix}';\n", f"src/lib/mid.{ext}": f"export * from './index{suffix}';\n"}


def _user(ext: str, shape: str) -> str:
    suffix = "" if ext == "ts" else f".{ext}"
    return {"namespace": f"import * as lib from './lib/index{suffix}';\n\nexport const x = lib.sub.parse('a');\n",
            "named": f"import {{ ns }} from './lib/ns{suffix}';\n\nexport const x = ns.sub.parse('a');\n",
            "two-deep": f"import * as lib from './lib/ns{suffix}';\n\nexport const x = lib.ns.sub.parse('a');\n",
            "two-stars-deep": f"import * as lib from './lib/all{suffix}';\n\nexport const x = lib.sub.parse('a');\n",
            "split-lines": f"import * as lib from './lib/index{suffix}';\n\nexport const x = lib\n  .sub\n  .parse('a');\n",
            "kept-member": f"import * as lib from './lib/index{suffix}';\n\nexport const x = lib.sub.other();\n",
            "parameter": f"import * as lib from './lib/index{suffix}';\n\nexport function f(lib) {{\n  return lib.sub.parse('a');\n}}\n",
            }[shape]


def _renamed(ext: str) -> dict[str, str]:
    return {f"src/lib/sub.{ext}": SUB.replace("function parse", "function parse2")}


def _rows(body: dict) -> list[tuple[str, str, list[int]]]:
    return sorted((row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"])


@pytest.mark.parametrize("ext, shape, line", [("ts", "namespace", 3), ("js", "namespace", 3), ("mjs", "namespace", 3),
                                              ("ts", "named", 3), ("ts", "two-deep", 3), ("js", "split-lines", 5),
                                              ("ts", "two-stars-deep", 3), ("mjs", "two-stars-deep", 3)])
def test_a_rename_in_a_module_a_barrel_passes_on_whole_blocks_wtc_check(tmp_path: Path, ext: str, shape: str, line: int) -> None:
    code, report = _branch_checked(tmp_path, {**_files(ext), f"src/app.{ext}": _user(ext, shape)}, _renamed(ext))
    assert code == 1 and _rows(report) == [(f"src/app.{ext}", "parse", [line])], report


@pytest.mark.parametrize("shape", ["kept-member", "parameter"])
def test_a_member_kept_or_a_parameter_hiding_the_barrel_is_clean(tmp_path: Path, shape: str) -> None:
    code, report = _branch_checked(tmp_path, {**_files("ts"), "src/app.ts": _user("ts", shape)}, _renamed("ts"))
    assert (code, report["left_behind"]) == (0, []), report


def test_task_check_and_the_queues_merge_block_it(tmp_path: Path) -> None:
    """`task check` of the renaming task names app.ts; a task adding `lib.sub.parse()` beside a
    rename merged meanwhile is a conflict at its finish."""
    files = {**_files("ts"), "src/app.ts": _user("ts", "namespace")}
    repo = _task_edited(tmp_path / "check", files, "rn", ("src/lib/**",), _renamed("ts"), None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and _rows(body) == [("src/app.ts", "parse", [3])], body
    code, body = _second_finish(tmp_path / "queue", _files("ts"), ("rn", "src/lib/**", _renamed("ts")),
                                ("use", "src/app.ts", {"src/app.ts": _user("ts", "namespace")}))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any(c.get("semantic", {}).get("name") == "parse" for c in body["conflicts"]), body


@pytest.mark.parametrize("shape", ["namespace", "two-deep"])
def test_a_drain_refuses_the_use_merged_after_the_rename(tmp_path: Path, shape: str) -> None:
    code, states = _drained(tmp_path, _files("js"), [
        ("rn", "src/lib/**", _renamed("js")), ("other", "src/other.js", {"src/other.js": "export const y = 2;\n"}),
        ("use", "src/app.js", {"src/app.js": _user("js", shape)})])
    assert code == 1 and states["rn"][0] == states["other"][0] == "merged", states
    assert states["use"] == ("conflict", [("semantic", "src/app.js", "parse")]), states
