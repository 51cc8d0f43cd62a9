"""The semantic check follows a name imported through a file that re-exports it (a TypeScript
barrel of `export * from`, a Python package's `__init__.py`), on real repositories and tree merges.

Found driving wtc on mobxjs/mobx: every module imports from `../internal`, sixty lines of `export *
from "./utils/utils"`; one task renamed `hasProp` in utils.ts, another added a call of it in eq.ts,
the merge was clean and the landed tree did not build."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.merge.clean_merges import tree_merge_findings

UTILS_TS = ("export function hasProp(target: Object, prop: PropertyKey): boolean {\n"
            "    return Object.prototype.hasOwnProperty.call(target, prop)\n}\n\n"
            "export function isObject(value: any): value is Object {\n    return value !== null\n}\n")
OTHER_TS = "export function noop() {}\n"
INTERNAL_TS = 'export * from "./utils/other"\nexport * from "./utils/utils"\n'
EQ_TS = ('import { hasProp, isObject } from "../internal"\n\n'
         "export function deepEqual(a: any, b: any): boolean {\n    return isObject(a) && a === b\n}\n")
EQ_USES = EQ_TS.replace("return isObject(a) && a === b", "return isObject(a) && hasProp(a, \"x\") && a === b")


def _merge(tmp_path: Path, start: dict[str, str], ours: dict[str, str | None], theirs: dict[str, str | None]):
    return tree_merge_findings(make_repo(tmp_path / "repo", start), ours, theirs)


TS_START = {"src/utils/utils.ts": UTILS_TS, "src/utils/other.ts": OTHER_TS, "src/internal.ts": INTERNAL_TS,
            "src/utils/eq.ts": EQ_TS}
RENAMED = {"src/utils/utils.ts": UTILS_TS.replace("function hasProp", "function hasOwnProp")}


def test_a_rename_meets_a_new_use_imported_through_a_star_barrel(tmp_path: Path) -> None:
    [finding] = _merge(tmp_path, TS_START, RENAMED, {"src/utils/eq.ts": EQ_USES})
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("hasProp", "src/utils/utils.ts", "src/utils/eq.ts", 4)
    assert finding.replacement == "hasOwnProp"


def test_a_name_a_file_no_side_changed_still_defines_is_not_a_finding(tmp_path: Path) -> None:
    """The barrel's other module defines `hasProp` too: the use resolves there (never guessed)."""
    start = dict(TS_START, **{"src/utils/other.ts": OTHER_TS + "\nexport function hasProp(a: any, b: any) {\n"
                                                               "    return false\n}\n"})
    assert _merge(tmp_path, start, RENAMED, {"src/utils/eq.ts": EQ_USES}) == ()


def test_a_name_moved_to_a_new_file_the_barrel_now_exports_is_not_a_finding(tmp_path: Path) -> None:
    moved = {"src/utils/utils.ts": UTILS_TS.split("\n\nexport function isObject")[0].replace("hasProp", "unused")
             + "\n\nexport function isObject(value: any): value is Object {\n    return value !== null\n}\n",
             "src/utils/props.ts": UTILS_TS.split("\n\nexport function isObject")[0] + "\n",
             "src/internal.ts": INTERNAL_TS + 'export * from "./utils/props"\n'}
    assert _merge(tmp_path, TS_START, moved, {"src/utils/eq.ts": EQ_USES}) == ()


def test_a_named_re_export_is_followed_to_its_module(tmp_path: Path) -> None:
    """(A use through an alias, `export { hasProp as owns }`, is not followed: the check reads only
    files whose added lines spell a removed name, reach.py.)"""
    start = {"src/utils/utils.ts": UTILS_TS, "src/index.ts": 'export { isObject, hasProp } from "./utils/utils"\n',
             "src/app.ts": 'import { hasProp } from "./index"\n\nexport function run(a: any) {\n    return a\n}\n'}
    theirs = {"src/app.ts": start["src/app.ts"].replace("return a\n", "return hasProp(a, \"k\")\n")}
    [finding] = _merge(tmp_path, start, RENAMED, theirs)
    assert (finding.name, finding.definition_path, finding.use_path) == ("hasProp", "src/utils/utils.ts", "src/app.ts")


def test_without_the_barrel_in_the_tree_nothing_is_guessed(tmp_path: Path) -> None:
    start = {k: v for k, v in TS_START.items() if k != "src/internal.ts"}
    assert _merge(tmp_path, start, RENAMED, {"src/utils/eq.ts": EQ_USES}) == ()


PY_UTIL = "def parse(text):\n    return text.split()\n\n\ndef other():\n    return 1\n"
PY_APP = "from pkg import parse\n\n\ndef main(text):\n    return text\n"


def test_a_python_package_init_passes_a_name_on_from_its_module(tmp_path: Path) -> None:
    start = {"src/pkg/__init__.py": "from .util import parse\n", "src/pkg/util.py": PY_UTIL,
             "src/pkg/app.py": PY_APP}
    ours = {"src/pkg/util.py": PY_UTIL.replace("def parse", "def split_words")}
    theirs = {"src/pkg/app.py": PY_APP.replace("return text", "return parse(text)")}
    [finding] = _merge(tmp_path, start, ours, theirs)
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "src/pkg/util.py", "src/pkg/app.py", 5)


def test_a_python_star_import_in_init_is_followed_and_a_defining_init_answers(tmp_path: Path) -> None:
    start = {"pkg/__init__.py": "from .util import *\n", "pkg/util.py": PY_UTIL, "pkg/app.py": PY_APP}
    ours = {"pkg/util.py": PY_UTIL.replace("def parse", "def split_words")}
    theirs = {"pkg/app.py": PY_APP.replace("return text", "return parse(text)")}
    [finding] = _merge(tmp_path / "star", start, ours, theirs)
    assert finding.definition_path == "pkg/util.py"
    # __init__.py defining parse itself answers the use, whatever util.py does.
    start["pkg/__init__.py"] = "from .util import *\n\n\ndef parse(text):\n    return [text]\n"
    assert _merge(tmp_path / "own", start, ours, theirs) == ()


def test_a_star_re_exported_file_that_only_imported_the_name_is_not_its_origin(tmp_path: Path) -> None:
    """eq.ts imported hasProp (through the barrel) and renamed its uses with the definition: the
    barrel's `export * from "./utils/eq"` passes on no import, so the finding names utils.ts."""
    start = dict(TS_START, **{"src/internal.ts": INTERNAL_TS + 'export * from "./utils/eq"\n',
                              "src/types/map.ts": 'import { hasProp } from "../internal"\n\nexport const n = 1\n'})
    ours = dict(RENAMED, **{"src/utils/eq.ts": EQ_TS.replace("hasProp", "hasOwnProp")})
    theirs = {"src/types/map.ts": start["src/types/map.ts"] + "export const has = (m: any) => hasProp(m, \"k\")\n"}
    [finding] = _merge(tmp_path, start, ours, theirs)
    assert (finding.name, finding.definition_path, finding.use_path) == ("hasProp", "src/utils/utils.ts", "src/types/map.ts")


def test_a_module_one_side_turned_into_a_package_that_re_exports_the_name_is_not_a_finding(tmp_path: Path) -> None:
    """pip 8ba11ed565: one side turned urllib3's util.py into util/__init__.py re-exporting
    is_fp_closed from util/response.py; the other side's new file imports it through an unchanged
    compat.py (`from pkg.util import is_fp_closed`). util.py and util/__init__.py both name pkg.util:
    resolve() declines to pick, and the tree lookup must not pick the deleted one."""
    util = "def is_fp_closed(obj):\n    return obj.closed\n\n\ndef other():\n    return 1\n"
    start = {"pkg/__init__.py": "", "pkg/util.py": util, "lib/__init__.py": "",
             "lib/compat.py": "from pkg.util import is_fp_closed\n", "lib/app.py": "X = 1\n"}
    ours = {"pkg/util.py": None, "pkg/util/__init__.py": "from .response import is_fp_closed\n",
            "pkg/util/response.py": util}
    theirs = {"lib/wrapper.py": "from .compat import is_fp_closed\n\n\ndef closed(fp):\n    return is_fp_closed(fp)\n"}
    assert _merge(tmp_path, start, ours, theirs) == ()


# -- the src layout, a module used by its attribute, a barrel the renaming side updated ----------
PY_TEST = "from pkg import other\n\n\ndef test_x():\n    assert other() == 1\n"
PY_TEST_USES = "from pkg import other, parse\n\n\ndef test_x():\n    assert other() == 1\n    assert parse('a b')\n"
SRC_START = {"src/pkg/__init__.py": "from .util import parse, other\n", "src/pkg/util.py": PY_UTIL,
             "tests/test_app.py": PY_TEST}
SRC_RENAMED = {"src/pkg/util.py": PY_UTIL.replace("def parse", "def split_words")}


def test_a_test_imports_a_src_layout_package_through_its_init(tmp_path: Path) -> None:
    """tests/test_app.py's `from pkg import parse` names src/pkg/__init__.py (profile source_folders)."""
    [finding] = _merge(tmp_path, SRC_START, SRC_RENAMED, {"tests/test_app.py": PY_TEST_USES})
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "src/pkg/util.py", "tests/test_app.py", 6)


def test_a_name_used_through_its_imported_module_is_followed(tmp_path: Path) -> None:
    """`import pkg` then `pkg.parse(...)`: Reach pairs the test with util.py through the package."""
    start = dict(SRC_START, **{"tests/test_app.py": "import pkg\n\n\ndef test_x():\n    assert pkg.other() == 1\n"})
    theirs = {"tests/test_app.py": start["tests/test_app.py"] + "    assert pkg.parse('a b')\n"}
    [finding] = _merge(tmp_path, start, SRC_RENAMED, theirs)
    assert (finding.name, finding.definition_path, finding.use_path) == ("parse", "src/pkg/util.py", "tests/test_app.py")


def test_a_package_both_in_src_and_at_the_root_is_not_guessed(tmp_path: Path) -> None:
    start = dict(SRC_START, **{"pkg/__init__.py": "from .util import parse, other\n", "pkg/util.py": PY_UTIL})
    assert _merge(tmp_path, start, SRC_RENAMED, {"tests/test_app.py": PY_TEST_USES}) == ()


def test_a_rename_that_also_updates_the_barrel_meets_a_new_use_through_it(tmp_path: Path) -> None:
    """The renaming task updated `export { hasProp }` too (an agent renames everywhere it looks),
    and the new use imports from "./index" spelled out."""
    start = {"src/utils/utils.ts": UTILS_TS, "src/index.ts": 'export { isObject, hasProp } from "./utils/utils"\n',
             "src/app.ts": 'import { isObject } from "./index"\n\nexport function run(a: any) {\n    return isObject(a)\n}\n'}
    ours = dict(RENAMED, **{"src/index.ts": 'export { isObject, hasOwnProp } from "./utils/utils"\n'})
    theirs = {"src/app.ts": start["src/app.ts"].replace("{ isObject }", "{ isObject, hasProp }")
              .replace("return isObject(a)", "return isObject(a) && hasProp(a, \"k\")")}
    [finding] = _merge(tmp_path, start, ours, theirs)
    assert (finding.name, finding.use_path, finding.use_line) == ("hasProp", "src/app.ts", 4)
    assert finding.definition_path in ("src/index.ts", "src/utils/utils.ts")


def test_a_name_moved_with_its_barrel_entry_is_not_a_finding(tmp_path: Path) -> None:
    """The barrel now passes parse on from the module it moved to: the base's re-export is not followed."""
    ours = {"src/pkg/util.py": PY_UTIL.replace("def parse(text):\n    return text.split()\n\n\n", ""),
            "src/pkg/words.py": "def parse(text):\n    return text.split()\n",
            "src/pkg/__init__.py": "from .util import other\nfrom .words import parse\n"}
    assert _merge(tmp_path, SRC_START, ours, {"tests/test_app.py": PY_TEST_USES}) == ()


# -- Rust: a crate's root re-exports (merge/ecosystems/crate_paths.py) --------------------------------------
RS_UTIL = "pub fn parse(s: &str) -> usize {\n    s.len()\n}\n\npub fn other() -> u8 {\n    1\n}\n"
RS_START = {"Cargo.toml": '[package]\nname = "my-crate"\nversion = "0.1.0"\n',
            "src/lib.rs": "mod util;\nmod app;\npub use util::{parse, other};\n", "src/util.rs": RS_UTIL,
            "src/app.rs": "use crate::util::other;\n\npub fn run() -> u8 {\n    other()\n}\n",
            "tests/it.rs": "use my_crate::other;\n\n#[test]\nfn t() {\n    assert_eq!(other(), 1);\n}\n"}
RS_RENAMED = {"src/util.rs": RS_UTIL.replace("fn parse", "fn parse_len"),
              "src/lib.rs": "mod util;\nmod app;\npub use util::{parse_len, other};\n"}
RS_TEST_USES = ("use my_crate::{other, parse};\n\n#[test]\nfn t() {\n    assert_eq!(other(), 1);\n"
                "    let n = parse(\"ab\");\n    assert_eq!(n, 2);\n}\n")


def test_a_rust_test_imports_a_renamed_function_by_the_crate_name(tmp_path: Path) -> None:
    [finding] = _merge(tmp_path, RS_START, RS_RENAMED, {"tests/it.rs": RS_TEST_USES})
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "src/util.rs", "tests/it.rs", 6)
    assert finding.replacement == "parse_len"


def test_a_rust_module_imports_a_renamed_function_from_the_crate_root(tmp_path: Path) -> None:
    theirs = {"src/app.rs": "use crate::parse;\nuse crate::util::other;\n\npub fn run() -> u8 {\n"
                            "    other() + parse(\"a\") as u8\n}\n"}
    [finding] = _merge(tmp_path, RS_START, RS_RENAMED, theirs)
    assert (finding.name, finding.definition_path, finding.use_path) == ("parse", "src/util.rs", "src/app.rs")


def test_a_rust_workspace_crate_imports_a_path_dependency(tmp_path: Path) -> None:
    """`my-core = { workspace = true }`, the workspace's entry a path: `use my_core::parse` names
    crates/core/src/lib.rs."""
    start = {"Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\n'
                           'my-core = { path = "crates/core" }\n',
             "crates/core/Cargo.toml": '[package]\nname = "my-core"\n',
             "crates/core/src/lib.rs": "mod util;\npub use util::*;\n", "crates/core/src/util.rs": RS_UTIL,
             "crates/app/Cargo.toml": '[package]\nname = "app"\n\n[dependencies]\nmy-core = { workspace = true }\n',
             "crates/app/src/main.rs": "use my_core::other;\n\nfn main() {\n    other();\n}\n"}
    ours = {"crates/core/src/util.rs": RS_UTIL.replace("fn parse", "fn parse_len")}
    theirs = {"crates/app/src/main.rs": "use my_core::{other, parse};\n\nfn main() {\n    other();\n"
                                        "    let n = parse(\"a\");\n}\n"}
    [finding] = _merge(tmp_path, start, ours, theirs)
    assert (finding.name, finding.definition_path, finding.use_path) == \
        ("parse", "crates/core/src/util.rs", "crates/app/src/main.rs")


def test_rust_names_that_lead_to_no_changed_definition_are_not_findings(tmp_path: Path) -> None:
    # moved to a new module, the root's re-export updated with it
    moved = {"src/util.rs": RS_UTIL.split("\n\npub fn other")[0].replace("parse", "unused") + "\n\npub fn other() -> u8 {\n    1\n}\n",
             "src/words.rs": "pub fn parse(s: &str) -> usize {\n    s.len()\n}\n",
             "src/lib.rs": "mod util;\nmod app;\nmod words;\npub use util::other;\npub use words::parse;\n"}
    assert _merge(tmp_path / "moved", RS_START, moved, {"tests/it.rs": RS_TEST_USES}) == ()
    # a crate of the same name that is not this package (an external dependency): nothing to read
    external = dict(RS_START, **{"Cargo.toml": '[package]\nname = "other-name"\n\n[dependencies]\nmy-crate = "1"\n'})
    assert _merge(tmp_path / "external", external, RS_RENAMED, {"tests/it.rs": RS_TEST_USES}) == ()


def test_a_rust_call_through_a_crate_path_meets_the_rename(tmp_path: Path) -> None:
    """`my_core::util::parse(...)` with no import, and `use my_core::util;` then `util::parse(...)`."""
    start = {"Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
             "crates/core/Cargo.toml": '[package]\nname = "my-core"\n',
             "crates/core/src/lib.rs": "pub mod util;\n", "crates/core/src/util.rs": RS_UTIL,
             "crates/app/Cargo.toml": '[package]\nname = "app"\n\n[dependencies]\nmy-core = { path = "../core" }\n',
             "crates/app/src/main.rs": "fn main() {\n    my_core::util::other();\n}\n"}
    ours = {"crates/core/src/util.rs": RS_UTIL.replace("fn parse", "fn parse_len")}
    theirs = {"crates/app/src/main.rs": "fn main() {\n    my_core::util::other();\n    my_core::util::parse(\"a\");\n}\n"}
    [finding] = _merge(tmp_path / "path", start, ours, theirs)
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "crates/core/src/util.rs", "crates/app/src/main.rs", 3)
    start["crates/app/src/main.rs"] = "use my_core::util;\n\nfn main() {\n    util::other();\n}\n"
    theirs = {"crates/app/src/main.rs": "use my_core::util;\n\nfn main() {\n    util::other();\n    util::parse(\"a\");\n}\n"}
    [finding] = _merge(tmp_path / "imported", start, ours, theirs)
    assert (finding.definition_path, finding.use_line) == ("crates/core/src/util.rs", 5)
    # std's paths name no file of the tree
    theirs = {"crates/app/src/main.rs": start["crates/app/src/main.rs"].replace(
        "util::other();", "util::other();\n    let v: Vec<u8> = std::vec::Vec::new();")}
    assert _merge(tmp_path / "std", start, ours, theirs) == ()


# -- an import of a removed name is a use by itself ------------------------------------------------
def test_a_new_re_export_of_a_renamed_name_is_a_finding_without_any_call(tmp_path: Path) -> None:
    """Rust `pub use`, a Python package's `from .util import parse`, a TypeScript `export { } from`:
    the importing line is broken (E0432, ImportError, TS2305) though nothing calls the name."""
    rust = dict(RS_START, **{"src/lib.rs": "mod util;\nmod app;\npub use util::other;\n"})
    ours = {"src/util.rs": RS_UTIL.replace("fn parse", "fn parse_len")}
    [finding] = _merge(tmp_path / "rust", rust, ours, {"src/lib.rs": rust["src/lib.rs"] + "pub use util::parse;\n"})
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "src/util.rs", "src/lib.rs", 4)
    python = {"pkg/__init__.py": "from .util import other\n", "pkg/util.py": PY_UTIL}
    [finding] = _merge(tmp_path / "python", python, {"pkg/util.py": PY_UTIL.replace("def parse", "def split_words")},
                       {"pkg/__init__.py": "from .util import other, parse\n"})
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "pkg/util.py", "pkg/__init__.py", 1)
    ts = {"src/utils/utils.ts": UTILS_TS, "src/index.ts": 'export { isObject } from "./utils/utils"\n'}
    [finding] = _merge(tmp_path / "ts", ts, RENAMED, {"src/index.ts": 'export { isObject, hasProp } from "./utils/utils"\n'})
    assert (finding.name, finding.definition_path, finding.use_path) == ("hasProp", "src/utils/utils.ts", "src/index.ts")


def test_an_import_whose_calls_are_reported_adds_no_finding_of_its_own(tmp_path: Path) -> None:
    start = {"pkg/__init__.py": "", "pkg/util.py": PY_UTIL, "pkg/app.py": "X = 1\n"}
    theirs = {"pkg/app.py": "from pkg.util import parse\n\nX = parse('a')\n"}
    [finding] = _merge(tmp_path, start, {"pkg/util.py": PY_UTIL.replace("def parse", "def split")}, theirs)
    assert (finding.use_path, finding.use_line) == ("pkg/app.py", 3)


def test_an_import_of_a_name_the_module_still_has_is_not_a_finding(tmp_path: Path) -> None:
    """The importing side re-exports `other`, which nobody removed; and a name moved to another
    module that the import follows (the other side's own new import names the new module)."""
    python = {"pkg/__init__.py": "from .util import other\n", "pkg/util.py": PY_UTIL}
    ours = {"pkg/util.py": PY_UTIL.replace("def parse", "def split_words")}
    assert _merge(tmp_path / "kept", python, ours, {"pkg/__init__.py": "from .util import other\nfrom .util import other as o\n"}) == ()
    moved = {"pkg/util.py": PY_UTIL.replace("def parse(text):\n    return text.split()\n\n\n", ""),
             "pkg/words.py": "def parse(text):\n    return text.split()\n"}
    assert _merge(tmp_path / "moved", python, moved, {"pkg/app.py": "from .words import parse\n"}) == ()


def test_a_rust_call_inside_a_macro_call_is_a_use(tmp_path: Path) -> None:
    """Rust tests call through assert macros (`assert_eq!(parse("ab"), 2)`): the macro's tokens are
    not parsed as an expression, so the call was no reference; a definition written inside one
    (`fn helper()`) and a method call (`a.parse()`) are still none."""
    theirs = {"tests/it.rs": "use my_crate::{other, parse};\n\n#[test]\nfn t() {\n    assert_eq!(other(), 1);\n"
                             "    assert_eq!(parse(\"ab\"), 2);\n}\n"}
    [finding] = _merge(tmp_path / "assert", RS_START, RS_RENAMED, theirs)
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "src/util.rs", "tests/it.rs", 6)
    theirs = {"tests/it.rs": "use my_crate::other;\n\n#[test]\nfn t() {\n    assert_eq!(other(), 1);\n"
                             "    let s = \"ab\".to_string();\n    assert_eq!(s.parse::<u8>().is_err(), true);\n"
                             "    my_macro! { fn parse() {} }\n}\n"}
    assert _merge(tmp_path / "method", RS_START, RS_RENAMED, theirs) == ()


def test_a_renamed_rust_dependency_is_named_by_its_key(tmp_path: Path) -> None:
    """`utils = { package = "my-core", path = "../core" }`: code says `utils::`, never `my_core::`."""
    start = {"Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
             "crates/core/Cargo.toml": '[package]\nname = "my-core"\n',
             "crates/core/src/lib.rs": "mod util;\npub use util::*;\n", "crates/core/src/util.rs": RS_UTIL,
             "crates/app/Cargo.toml": '[package]\nname = "app"\n\n[dependencies]\n'
                                      'utils = { package = "my-core", path = "../core" }\n',
             "crates/app/src/main.rs": "use utils::other;\n\nfn main() {\n    other();\n}\n"}
    ours = {"crates/core/src/util.rs": RS_UTIL.replace("fn parse", "fn parse_len")}
    uses = "use utils::{other, parse};\n\nfn main() {\n    other();\n    let n = parse(\"a\");\n}\n"
    [finding] = _merge(tmp_path / "key", start, ours, {"crates/app/src/main.rs": uses})
    assert finding.definition_path == "crates/core/src/util.rs"
    assert _merge(tmp_path / "package", start, ours,
                  {"crates/app/src/main.rs": uses.replace("utils::", "my_core::")}) == ()


def test_a_crate_one_side_moved_out_to_the_registry_is_no_file_of_the_tree(tmp_path: Path) -> None:
    """serde 431636af0d: one side deleted serde_test/ and took `serde_test = "1.0.176"` from the
    registry; the other side's new tests use `serde_test::Token`. The tests build against the
    registry's crate: nothing is broken (the merge's findings were 80 false ones)."""
    start = {"Cargo.toml": '[workspace]\nmembers = ["serde_test", "test_suite"]\n',
             "serde_test/Cargo.toml": '[package]\nname = "serde_test"\n',
             "serde_test/src/lib.rs": "mod token;\npub use token::Token;\n",
             "serde_test/src/token.rs": "pub enum Token {\n    Str(&'static str),\n}\n",
             "test_suite/Cargo.toml": '[package]\nname = "test_suite"\n\n[dev-dependencies]\nserde_test = { path = "../serde_test" }\n',
             "test_suite/tests/test_de.rs": "use serde_test::Token;\n\n#[test]\nfn t() {\n}\n"}
    ours = {"serde_test/Cargo.toml": None, "serde_test/src/lib.rs": None, "serde_test/src/token.rs": None,
            "Cargo.toml": '[workspace]\nmembers = ["test_suite"]\n',
            "test_suite/Cargo.toml": start["test_suite/Cargo.toml"].replace('{ path = "../serde_test" }', '"1.0.176"')}
    theirs = {"test_suite/tests/test_de.rs": "use serde_test::Token;\n\n#[test]\nfn t() {\n"
                                             "    let t = Token::Str(\"a\");\n}\n"}
    assert _merge(tmp_path, start, ours, theirs) == ()


RS_SER = "pub trait Serialize {}\n\npub fn emit() -> u8 {\n    1\n}\n"
RS_EXTRACT_START = {"Cargo.toml": '[workspace]\nmembers = ["app"]\n',
                    "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
                    "app/src/lib.rs": "pub mod ser;\nmod other;\n\npub fn run() -> u8 {\n    ser::emit()\n}\n",
                    "app/src/ser.rs": RS_SER, "app/src/other.rs": "pub fn other() {}\n"}
RS_USES_SER = {"app/src/other.rs": "use crate::ser::Serialize;\n\npub struct S;\n\nimpl Serialize for S {}\n\n"
                                   "pub fn other() {}\n"}


def test_a_module_moved_to_another_crate_and_re_exported_by_the_root_is_not_a_finding(tmp_path: Path) -> None:
    """serde f3869307cc moved `ser` into serde_core and re-exported it (`pub use serde_core::ser;`):
    `crate::ser::Serialize` still resolves, through the root, not the deleted src/ser.rs."""
    extracted = {"app/src/ser.rs": None, "core/Cargo.toml": '[package]\nname = "core_x"\nversion = "0.1.0"\n',
                 "core/src/lib.rs": "pub mod ser;\n", "core/src/ser.rs": RS_SER,
                 "app/Cargo.toml": RS_EXTRACT_START["app/Cargo.toml"] + '\n[dependencies]\ncore_x = { path = "../core" }\n',
                 "app/src/lib.rs": "pub use core_x::ser;\nmod other;\n\npub fn run() -> u8 {\n    ser::emit()\n}\n"}
    assert _merge(tmp_path / "use", RS_EXTRACT_START, extracted, RS_USES_SER) == ()
    # the same through a glob, and through a macro at the root that may declare it
    globbed = dict(extracted, **{"app/src/lib.rs": "pub use core_x::*;\nmod other;\n"})
    assert _merge(tmp_path / "glob", RS_EXTRACT_START, globbed, RS_USES_SER) == ()
    macro = dict(extracted, **{"app/src/lib.rs": "mod other;\n\ncrate_root!();\n"})
    assert _merge(tmp_path / "macro", RS_EXTRACT_START, macro, RS_USES_SER) == ()


def test_a_module_deleted_with_its_mod_declaration_still_breaks_a_new_use(tmp_path: Path) -> None:
    deleted = {"app/src/ser.rs": None,
               "app/src/lib.rs": "mod other;\n\npub fn run() -> u8 {\n    1\n}\n\nfn log() {\n    println!(\"x\");\n}\n"}
    [finding] = _merge(tmp_path, RS_EXTRACT_START, deleted, RS_USES_SER)
    assert (finding.name, finding.definition_path, finding.use_path) == ("Serialize", "app/src/ser.rs", "app/src/other.rs")


def test_a_module_imported_inside_a_function_is_no_re_export_to_follow(tmp_path: Path) -> None:
    """Found on sympy/sympy 396a9d0542 (the generalisation corpus, issue 39): a test added
    `import sympy` inside a function while the other side changed more files than the check reads
    removed names of; the module's own name was followed as an imported name (None) into the
    package's `from .core import *` and the whole-merge check raised AttributeError."""
    start = {"pkg/__init__.py": "from .core import *\n", "pkg/core.py": "def parse(text):\n    return text.split()\n",
             "tests/test_app.py": "def test_main():\n    return 1\n"}
    start.update({f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(70)})
    ours = {f"pkg/m{i}.py": f"def g{i}():\n    return {i}\n" for i in range(70)}
    theirs = {"tests/test_app.py": "def test_main():\n    import pkg\n    return pkg.parse('a')\n"}
    assert _merge(tmp_path, start, ours, theirs) == ()


# -- Python: what a star import takes is its module's `__all__` ------------------------------------

PY_LISTED = '__all__ = ["parse", "other"]\n\n\n' + PY_UTIL
STAR_START = {"pkg/__init__.py": "from .util import *\n", "pkg/util.py": PY_LISTED, "pkg/app.py": PY_APP}
NEW_USE = {"pkg/app.py": PY_APP.replace("return text", "return parse(text)")}


def test_a_name_dropped_from_all_meets_a_new_use_through_the_star_import(tmp_path: Path) -> None:
    """util.py keeps `parse` but drops it from `__all__`: the package's `from .util import *` no
    longer takes it, so the new call through `from pkg import parse` is broken."""
    ours = {"pkg/util.py": PY_LISTED.replace('["parse", "other"]', '["other"]')}
    [finding] = _merge(tmp_path, STAR_START, ours, NEW_USE)
    assert (finding.name, finding.kind, finding.definition_path, finding.use_path, finding.use_line, finding.star_list) \
        == ("parse", "export", "pkg/util.py", "pkg/app.py", 5, "__all__")


def test_a_name_dropped_from_all_is_still_there_for_an_import_of_its_module(tmp_path: Path) -> None:
    start = STAR_START | {"pkg/app.py": PY_APP.replace("from pkg import", "from pkg.util import")}
    ours = {"pkg/util.py": PY_LISTED.replace('["parse", "other"]', '["other"]')}
    theirs = {"pkg/app.py": start["pkg/app.py"].replace("return text", "return parse(text)")}
    assert _merge(tmp_path, start, ours, theirs) == ()


def test_a_name_one_side_lists_in_all_that_the_other_renamed_is_a_finding(tmp_path: Path) -> None:
    """`__all__`'s strings are uses: `from pkg import *` fails on a listed name the module lacks."""
    start = {"pkg/__init__.py": 'from .util import *\n\n__all__ = ["other"]\n', "pkg/util.py": PY_UTIL}
    ours = {"pkg/util.py": PY_UTIL.replace("def parse", "def split_words")}
    theirs = {"pkg/__init__.py": 'from .util import *\n\n__all__ = ["other", "parse"]\n'}
    [finding] = _merge(tmp_path, start, ours, theirs)
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line, finding.replacement) == \
        ("parse", "pkg/util.py", "pkg/__init__.py", 3, "split_words")
