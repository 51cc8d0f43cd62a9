"""The import-path check (merge/checks/import_paths.py) on real repositories: one side moves an import path
throughout (javax -> jakarta, a Go module path bumped), the other side's new code imports the old one."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.merge.clean_merges import tree_merge_findings

REQ = "package app;\n\nimport javax.servlet.http.HttpServletRequest;\n\nclass {name} {{\n    HttpServletRequest r;\n}}\n"
COOKIE = "package app;\n\nimport javax.servlet.http.Cookie;\n\nclass New {\n    Cookie c;\n}\n"


def _merge(tmp_path: Path, base: dict[str, str], ours: dict[str, str | None], theirs: dict[str, str | None]):
    return tree_merge_findings(make_repo(tmp_path / "repo", base), ours, theirs, renames=False)


def _jakarta(text: str) -> str:
    return text.replace("javax.servlet", "jakarta.servlet")


BASE = {"src/app/A.java": REQ.format(name="A"), "src/app/B.java": REQ.format(name="B"), "README": "x\n"}


def test_a_new_import_of_a_path_the_other_side_moved_everywhere_is_reported_with_both_places(tmp_path: Path) -> None:
    found = _merge(tmp_path, BASE, {p: _jakarta(t) for p, t in BASE.items() if p.endswith(".java")},
                   {"src/app/New.java": COOKIE})
    [finding] = [f for f in found if f.problem == "import_path"]
    assert (finding.name, finding.definition_path, finding.definition_line) == ("javax.servlet.http", "src/app/A.java", 3)
    assert (finding.use_path, finding.use_line, finding.use) == ("src/app/New.java", 3, "import javax.servlet.http.Cookie;")
    assert (finding.removed_by, finding.used_by) == ("integration", "t1")
    assert "src/app/New.java:3 imports javax.servlet.http" in finding.message and "src/app/A.java:3" in finding.message
    assert finding.as_conflict().kind == "semantic"


def test_no_finding_while_a_file_of_that_side_still_imports_the_old_path(tmp_path: Path) -> None:
    base = BASE | {"src/app/C.java": REQ.format(name="C")}   # ours leaves C alone: javax is still there
    found = _merge(tmp_path, base, {p: _jakarta(t) for p, t in BASE.items() if p.endswith(".java")},
                   {"src/app/New.java": COOKIE})
    assert [f for f in found if f.problem == "import_path"] == []


def test_no_finding_when_the_other_side_dropped_the_import_without_a_replacement(tmp_path: Path) -> None:
    plain = {p: t.replace("import javax.servlet.http.HttpServletRequest;\n", "").replace("HttpServletRequest r;", "int r;")
             for p, t in BASE.items() if p.endswith(".java")}
    found = _merge(tmp_path, BASE, plain, {"src/app/New.java": COOKIE})
    assert [f for f in found if f.problem == "import_path"] == []


def test_a_go_module_path_bumped_with_an_alias_is_reported_and_the_new_path_is_not_the_old(tmp_path: Path) -> None:
    old = 'package a\n\nimport (\n\tclientv3 "example.com/etcd/clientv3"\n)\n\nvar C clientv3.Client\n'
    new_use = 'package b\n\nimport (\n\tclientv3 "example.com/etcd/clientv3"\n)\n\nvar D clientv3.Client\n'
    bumped = old.replace("example.com/etcd/clientv3", "example.com/etcd/client/v3")
    base = {"a/a.go": old, "a/b.go": old.replace("var C", "var E"), "go.mod": "module example.com/x\n"}
    ours = {"a/a.go": bumped, "a/b.go": bumped.replace("var C", "var E")}
    [finding] = [f for f in _merge(tmp_path, base, ours, {"b/b.go": new_use}) if f.problem == "import_path"]
    assert (finding.name, finding.use_path, finding.use_line) == ("example.com/etcd/clientv3", "b/b.go", 4)
    # the other side importing the new path (a prefix of nothing old) is fine
    assert [f for f in _merge(tmp_path / "again", base, ours, {"b/b.go": new_use.replace("etcd/clientv3", "etcd/client/v3")})
            if f.problem == "import_path"] == []


def test_a_file_the_using_side_moved_brings_no_new_imports(tmp_path: Path) -> None:
    """The check's diffs do not pair renames: a file moved to another folder reads as added, and its
    old imports are not taken for the using side's new ones (precision first: the moved file is not
    read, whatever it imports)."""
    old = COOKIE.replace("class New", "class Old")
    base = BASE | {"src/app/Old.java": old}
    ours = {p: _jakarta(t) for p, t in BASE.items() if p.endswith(".java")} | {"src/app/Old.java": None}
    found = _merge(tmp_path, base, ours, {"src/app/Old.java": None, "lib/app/Old.java": old})
    assert [f for f in found if f.problem == "import_path"] == []
    moved_and_new = _merge(tmp_path / "again", base, ours, {"src/app/Old.java": None, "lib/app/Old.java": old,
                                                            "src/app/New.java": COOKIE})
    assert [f.use_path for f in moved_and_new if f.problem == "import_path"] == ["src/app/New.java"]


def _import_paths(found) -> list[tuple[str, str, int]]:
    return [(f.name, f.use_path, f.use_line) for f in found if f.problem == "import_path"]


# -- Rust: a path still imported inside a grouped use list (actix-web df3bf79873) -----------------
CARGO = '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nderive_more = "0.99"\n'
NAMED = "use std::ops::Deref;\n\npub struct Named(String);\n\nimpl Deref for Named {\n    type Target = String;\n}\n"
NAMED_DERIVED = "use derive_more::Deref;\n\n#[derive(Deref)]\npub struct Named(String);\n"
POOL = "use std::io;\n\npub fn open() -> io::Result<()> {\n    Ok(())\n}\n"
RETRY = "use std::ops::{Deref, DerefMut};\n\npub fn retry<T: Deref + DerefMut>(t: T) -> T {\n    t\n}\n"
RUST_BASE = {"Cargo.toml": CARGO, "src/named.rs": NAMED, "src/pool.rs": POOL}


def _pool(group: str) -> str:
    return POOL.replace("use std::io;", f"use std::{{\n    io,\n    {group},\n}};")


def test_a_path_the_other_side_still_imports_inside_a_nested_use_list_is_not_replaced(tmp_path: Path) -> None:
    ours = {"src/named.rs": NAMED_DERIVED, "src/pool.rs": _pool("ops::{Deref, Index}")}
    assert _import_paths(_merge(tmp_path, RUST_BASE, ours, {"src/retry.rs": RETRY})) == []


def test_a_path_no_use_list_of_the_other_side_holds_is_reported_once_per_use_line(tmp_path: Path) -> None:
    """The positive twin: the group names fmt, not ops, so std::ops is gone from that side's tree;
    the new line imports two names of it and is one finding (it was two)."""
    ours = {"src/named.rs": NAMED_DERIVED, "src/pool.rs": _pool("fmt::{Debug, Display}")}
    found = _merge(tmp_path, RUST_BASE, ours, {"src/retry.rs": RETRY})
    assert _import_paths(found) == [("std::ops", "src/retry.rs", 1)]


# -- an external dependency the merge still declares (actix-web c7ad677804) -----------------------
ENC_CARGO = '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\nencoding = "0.2"\nencoding_rs = "0.8"\n'
FORM = "use encoding::types::Encoding;\n\npub fn form(e: &dyn Encoding) -> usize {\n    1\n}\n"
READ = "use encoding::types::{DecoderTrap, Encoding};\n\npub fn read(e: &dyn Encoding, t: DecoderTrap) -> usize {\n    2\n}\n"
ENC_BASE = {"Cargo.toml": ENC_CARGO, "src/form.rs": FORM, "src/lines.rs": FORM.replace("fn form", "fn lines")}


def _dropped_encoding(cargo: str | None) -> dict[str, str | None]:
    """Ours stops importing `encoding` (its names come from encoding_rs now), Cargo.toml as given."""
    files: dict[str, str | None] = {path: text.replace("use encoding::types::Encoding;", "use encoding_rs::Encoding;")
                                    for path, text in ENC_BASE.items() if path.endswith(".rs")}
    if cargo is not None:
        files["Cargo.toml"] = cargo
    return files


def test_an_external_crate_one_side_stopped_importing_while_the_manifest_keeps_it_is_not_replaced(tmp_path: Path) -> None:
    assert _import_paths(_merge(tmp_path, ENC_BASE, _dropped_encoding(None), {"src/read.rs": READ})) == []


def test_an_external_crate_the_other_side_dropped_or_bumped_in_its_manifest_is_reported(tmp_path: Path) -> None:
    dropped = ENC_CARGO.replace('encoding = "0.2"\n', "")
    found = _merge(tmp_path, ENC_BASE, _dropped_encoding(dropped), {"src/read.rs": READ})
    assert _import_paths(found) == [("encoding::types", "src/read.rs", 1)]
    bumped = ENC_CARGO.replace('encoding = "0.2"', 'encoding = "0.3"')
    found = _merge(tmp_path / "bumped", ENC_BASE, _dropped_encoding(bumped), {"src/read.rs": READ})
    assert _import_paths(found) == [("encoding::types", "src/read.rs", 1)]


NESTED_FORM = FORM.replace("use encoding::types::Encoding;", "use encoding::{types::{Encoding}};")
NESTED_READ = READ.replace("use encoding::types::{DecoderTrap, Encoding};", "use encoding::{types::{DecoderTrap, Encoding}};")


def test_a_crate_path_the_base_or_the_new_line_spells_only_inside_a_nested_group_is_reported(tmp_path: Path) -> None:
    """`use encoding::{types::{Encoding}};` imports encoding::types without writing it: the narrow
    gate searched each file for the module's text and read neither the base that imported it so
    (nothing replaced was seen) nor, when the using side changed more files, the new line."""
    dropped = ENC_CARGO.replace('encoding = "0.2"\n', "")
    nested_base = {"Cargo.toml": ENC_CARGO, "src/form.rs": NESTED_FORM, "src/lines.rs": NESTED_FORM.replace("fn form", "fn lines")}
    ours = {path: text.replace("use encoding::{types::{Encoding}};", "use encoding_rs::Encoding;")
            for path, text in nested_base.items() if path.endswith(".rs")} | {"Cargo.toml": dropped}
    found = _merge(tmp_path / "base", nested_base, ours, {"src/read.rs": READ})
    assert _import_paths(found) == [("encoding::types", "src/read.rs", 1)]
    # the using side changing more files than the other side: its files are searched for the module
    many = {"src/read.rs": NESTED_READ} | {f"src/more{n}.rs": f"pub fn more{n}() {{}}\n" for n in range(4)}
    found = _merge(tmp_path / "use", ENC_BASE, _dropped_encoding(dropped), many)
    assert _import_paths(found) == [("encoding::types", "src/read.rs", 1)]


def test_a_crate_whose_source_is_in_the_tree_is_not_external(tmp_path: Path) -> None:
    """actix-web df3bf79873's shape: a path dependency (or a [patch] to a path) is the tree's own
    code, which the other side may have changed; its module replaced throughout stays reported."""
    base = ENC_BASE | {"Cargo.toml": ENC_CARGO.replace('encoding = "0.2"', 'encoding = { path = "vendor/encoding" }')}
    found = _merge(tmp_path, base, _dropped_encoding(None), {"src/read.rs": READ})
    assert _import_paths(found) == [("encoding::types", "src/read.rs", 1)]
    patched = ENC_BASE | {"Cargo.toml": ENC_CARGO + '\n[patch.crates-io]\nencoding = { path = "vendor/encoding" }\n'}
    found = _merge(tmp_path / "patched", patched, _dropped_encoding(None), {"src/read.rs": READ})
    assert _import_paths(found) == [("encoding::types", "src/read.rs", 1)]


def test_a_go_module_still_required_alike_is_not_replaced_and_one_dropped_from_go_mod_is(tmp_path: Path) -> None:
    use = 'package {pkg}\n\nimport (\n\t"github.com/pkg/errors"\n)\n\nvar {var} = errors.New("x")\n'
    gomod = "module example.com/x\n\ngo 1.21\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/sync v0.1.0\n)\n"
    base = {"go.mod": gomod, "a/a.go": use.format(pkg="a", var="A"), "a/b.go": use.format(pkg="a", var="B")}
    ours = {p: t.replace('"github.com/pkg/errors"', '"errors"') for p, t in base.items() if p.endswith(".go")}
    theirs = {"c/c.go": use.format(pkg="c", var="C")}
    assert _import_paths(_merge(tmp_path, base, ours, theirs)) == []
    ours_dropped = ours | {"go.mod": gomod.replace("\tgithub.com/pkg/errors v0.9.1\n", "")}
    assert _import_paths(_merge(tmp_path / "dropped", base, ours_dropped, theirs)) == [("github.com/pkg/errors", "c/c.go", 4)]


# -- Python 2's implicit relative import (requests e4c85b318f) ------------------------------------
HOOKS = "def dispatch(x):\n    return x\n"
API = "from .hooks import dispatch\n\n\ndef get(x):\n    return dispatch(x)\n"
SESSION = "from .hooks import dispatch\n\n\ndef run(x):\n    return dispatch(x)\n"
PY_BASE = {"pkg/__init__.py": "", "pkg/hooks.py": HOOKS, "pkg/api.py": API}


def test_a_relative_module_written_without_its_dot_is_not_moved_while_its_file_stays(tmp_path: Path) -> None:
    ours = {"pkg/api.py": API.replace("from .hooks", "from hooks"), "pkg/hooks.py": HOOKS + "\n\nVERSION = 2\n"}
    assert _import_paths(_merge(tmp_path, PY_BASE, ours, {"pkg/session.py": SESSION})) == []


def test_a_relative_module_whose_file_the_other_side_moved_away_is_reported(tmp_path: Path) -> None:
    ours = {"pkg/api.py": API.replace("from .hooks", "from .events"), "pkg/hooks.py": None, "pkg/events.py": HOOKS}
    found = _merge(tmp_path, PY_BASE, ours, {"pkg/session.py": SESSION})
    assert _import_paths(found) == [(".hooks", "pkg/session.py", 1)]


def test_a_relative_module_spelled_alike_in_another_folder_is_another_module(tmp_path: Path) -> None:
    """Found driving wtc on npm/cli: one side moved lib/util/b.js and replaced `./b` in lib/util/x.js;
    the other moved lib/old.js to lib/cmd/new.js, whose `require('./b')` names lib/cmd/b.js. The
    same spelling from another folder is another file: no import of a replaced path. From the same
    folder it is the moved module, and still reported."""
    base = {"lib/util/b.js": "const bf = () => 1\n\nmodule.exports = { bf }\n",
            "lib/util/x.js": "const { bf } = require('./b')\n\nmodule.exports = { x: () => bf() }\n",
            "lib/cmd/b.js": "const cf = () => 2\n\nmodule.exports = { cf }\n",
            "lib/old.js": "const { cf } = require('./cmd/b')\n\nmodule.exports = { old: () => cf() }\n"}
    ours = {"lib/util/b.js": None, "lib/util/bytes.js": base["lib/util/b.js"],
            "lib/util/x.js": base["lib/util/x.js"].replace("'./b'", "'./bytes'")}
    moved = {"lib/old.js": None, "lib/cmd/new.js": base["lib/old.js"].replace("'./cmd/b'", "'./b'")}
    assert _import_paths(_merge(tmp_path, base, ours, moved)) == []
    beside = {"lib/util/y.js": "const { bf } = require('./b')\n\nmodule.exports = { y: () => bf() }\n"}
    assert _import_paths(_merge(tmp_path / "again", base, ours, beside)) == [("./b", "lib/util/y.js", 1)]
