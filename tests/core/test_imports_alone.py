"""What the left-behind look keeps of a file its parser does not read cleanly: its import statements.

A file with a syntax error gives the semantic check nothing; the look then reads it by its
top-level import statements alone (check/left_behind.py `_imports_alone`): an import of a name the
task removed fails whatever the rest of the file holds. Which statements import is each language's
fact, the profile's `import_statements` query (`@import`), not a test of node names in the code:
one case per language, and Rust, whose `use` the old test of names (`"import" in node.type`) never
took, proving the profile drives it.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_refused
from worktree_coord.check.left_behind import _imports_alone


def _blanked(text: str, *kept: str) -> str:
    """`text` with every character outside the `kept` statements a space (newlines kept)."""
    out = "".join(ch if ch == "\n" else " " for ch in text)
    for statement in kept:
        start = text.index(statement)
        out = out[:start] + statement + out[start + len(statement):]
    return out


@pytest.mark.parametrize("path, text, kept", [
    ("a.py", "from __future__ import annotations\nimport os\nfrom .u import parse\n\nx = parse(1 +\n",
     ("from __future__ import annotations", "import os", "from .u import parse")),
    ("a.js", 'import { parse } from "./u";\nexport { other } from "./o";\nexport const v = 1;\nconst x = parse(1 +;\n',
     ('import { parse } from "./u";', 'export { other } from "./o";')),
    ("a.ts", 'import { parse } from "./u";\nimport N = Space.Inner;\nexport { other } from "./o";\nconst x = parse(1 +;\n',
     ('import { parse } from "./u";', "import N = Space.Inner;", 'export { other } from "./o";')),
    ("a.go", 'package a\n\nimport "example.com/m/util"\nimport (\n\t"fmt"\n)\n\nfunc F() { util.Parse( }\n',
     ('import "example.com/m/util"', 'import (\n\t"fmt"\n)')),
    ("A.java", "package a;\n\nimport b.Util;\nimport static b.Util.parse;\n\nclass A { void f() { parse( } }\n",
     ("import b.Util;", "import static b.Util.parse;")),
    ("src/a.rs", "use crate::util::parse;\npub use crate::util::other;\n\nfn f() -> u32 { parse(1 +) }\n",
     ("use crate::util::parse;", "pub use crate::util::other;")),
], ids=["python", "javascript", "typescript", "go", "java", "rust"])
def test_a_file_that_does_not_parse_is_read_by_its_profiles_import_statements(path, text, kept):
    assert _imports_alone(path, text.encode()).decode() == _blanked(text, *kept)


def test_a_rust_use_of_a_renamed_function_in_a_file_that_does_not_parse_is_left_behind(tmp_path):
    """The look at task check and finish: `use crate::util::parse;` in a file with a syntax error."""
    util = "pub fn parse(x: u32) -> u32 {\n    x\n}\n\npub fn other() -> u32 {\n    1\n}\n"
    files = {"Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n', "src/util.rs": util,
             "src/lib.rs": "pub mod util;\npub mod user;\n",
             "src/user.rs": "use crate::util::parse;\n\npub fn f() -> u32 {\n    parse(1 +)\n}\n"}
    _, left = _removal_refused(tmp_path, files, "src/util.rs", {"src/util.rs": util.replace("parse", "parse_num")})
    assert len(left) == 1 and left[0].startswith("src/user.rs:1 still uses parse, which this task removed or renamed "
                                                 "(to parse_num, it seems) in src/util.rs"), left
