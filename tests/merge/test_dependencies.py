"""What the import-path check reads from manifests (merge/ecosystems/dependencies.py) and from grouped imports
(import_paths.grouped_paths): the dependency a module belongs to, whether its source is the tree's,
and every path a nested use list spells out."""

from __future__ import annotations

import pytest

from worktree_coord.merge.ecosystems.dependencies import declared_dependency, workspace_entry
from worktree_coord.merge.checks.import_paths import grouped_paths

CARGO = b'''[package]
name = "app"
version = "0.1.0"

[dependencies]
encoding = "0.2"
actix-http = { version = "3", features = ["ws"] }
local-util = { path = "../util" }
tokio = { workspace = true }

[target.'cfg(unix)'.dev-dependencies]
nix = "0.27"
'''
WORKSPACE = b'[workspace]\nmembers = ["app"]\n\n[workspace.dependencies]\ntokio = { version = "1", features = ["rt"] }\n'


def test_a_crate_is_found_by_its_key_read_with_underscores_and_a_path_dependency_is_local() -> None:
    encoding = declared_dependency("Cargo.toml", "encoding::types", [CARGO])
    assert encoding is not None and (encoding.name, encoding.local) == ("encoding", False)
    actix = declared_dependency("Cargo.toml", "actix_http::client", [CARGO])
    assert actix is not None and actix.name == "actix-http" and not actix.local
    util = declared_dependency("Cargo.toml", "local_util::fs", [CARGO])
    assert util is not None and util.local
    assert declared_dependency("Cargo.toml", "nix::unistd", [CARGO]) is not None   # target-specific tables too
    assert declared_dependency("Cargo.toml", "std::ops", [CARGO]) is None
    assert declared_dependency("Cargo.toml", "crate::util", [CARGO]) is None


def test_a_declaration_compares_by_content_not_spelling() -> None:
    spaced = CARGO.replace(b'encoding = "0.2"', b'encoding   =   "0.2"   # text encodings')
    assert declared_dependency("Cargo.toml", "encoding", [CARGO]) == declared_dependency("Cargo.toml", "encoding", [spaced])
    bumped = CARGO.replace(b'encoding = "0.2"', b'encoding = "0.3"')
    assert declared_dependency("Cargo.toml", "encoding", [CARGO]) != declared_dependency("Cargo.toml", "encoding", [bumped])


def test_a_workspace_inherited_crate_takes_the_workspace_entry_and_a_patch_to_a_path_is_local() -> None:
    tokio = declared_dependency("Cargo.toml", "tokio::net", [CARGO, WORKSPACE])
    bumped = declared_dependency("Cargo.toml", "tokio::net", [CARGO, WORKSPACE.replace(b'"1"', b'"2"')])
    assert tokio is not None and bumped is not None and tokio.entry != bumped.entry
    assert declared_dependency("Cargo.toml", "tokio::net", [CARGO]) is None   # no workspace above: unknown
    patched = WORKSPACE + b'\n[patch.crates-io]\nencoding = { path = "vendor/encoding" }\n'
    found = declared_dependency("Cargo.toml", "encoding::types", [CARGO, patched])
    assert found is not None and found.local


def test_the_workspace_a_crate_inherits_from_is_the_nearest_manifest_with_a_workspace_table() -> None:
    """Cargo's rule, one reader for the import-path check (the entry) and crate_paths.py (the folder
    its `path =` is relative to). Before, the import-path check skipped a nearer `[workspace]`
    without the key and took an outer workspace's entry, which Cargo refuses."""
    import tomllib

    own_workspace = CARGO + b'\n[workspace]\nmembers = ["."]\n'   # a fuzz crate kept out of the outer one
    app, outer, fuzz = (tomllib.loads(data.decode()) for data in (CARGO, WORKSPACE, own_workspace))
    assert workspace_entry("tokio", [("rs/app", app), ("rs", outer)]) == ({"version": "1", "features": ["rt"]}, "rs")
    assert workspace_entry("tokio", [("rs/fuzz", fuzz), ("rs", outer)]) is None
    assert workspace_entry("tokio", [("rs/app", app)]) is None
    assert workspace_entry("serde", [("rs/app", app), ("rs", outer)]) is None
    assert declared_dependency("Cargo.toml", "tokio::net", [own_workspace, WORKSPACE]) is None


def test_a_go_import_belongs_to_the_longest_required_module_above_it() -> None:
    gomod = (b"module example.com/x\n\ngo 1.21\n\nrequire (\n\tgithub.com/a/b v1.2.0 // indirect\n"
             b"\tgithub.com/a/b/v2 v2.0.1\n)\n\nrequire golang.org/x/sync v0.1.0\n\nreplace golang.org/x/sync => ./third_party/sync\n")
    found = declared_dependency("go.mod", "github.com/a/b/v2/client", [gomod])
    assert found is not None and found.name == "github.com/a/b/v2"
    old = declared_dependency("go.mod", "github.com/a/b/client", [gomod])
    assert old is not None and old.name == "github.com/a/b"
    sync = declared_dependency("go.mod", "golang.org/x/sync/errgroup", [gomod])
    assert sync is not None and sync.local
    assert declared_dependency("go.mod", "example.com/x/internal", [gomod]) is None   # the module itself
    assert declared_dependency("go.mod", "github.com/a/bc", [gomod]) is None          # a folder boundary, not a prefix


def test_a_javascript_specifier_names_its_package_and_workspace_packages_are_local() -> None:
    package = (b'{"dependencies": {"lodash": "^4.17.0", "@scope/ui": "workspace:*"},'
               b' "devDependencies": {"local": "file:../local"}}')
    lodash = declared_dependency("package.json", "lodash/fp", [package])
    assert lodash is not None and (lodash.name, lodash.local) == ("lodash", False)
    scoped = declared_dependency("package.json", "@scope/ui/button", [package])
    assert scoped is not None and scoped.local
    assert declared_dependency("package.json", "./dnode", [package]) is None
    assert declared_dependency("package.json", "node:fs", [package]) is None


def test_a_python_module_matches_a_requirement_by_normalized_name() -> None:
    pyproject = (b'[project]\nname = "x"\ndependencies = ["Simple_JSON>=3", "pyyaml"]\n\n'
                 b'[project.optional-dependencies]\nfast = ["ujson"]\n\n'
                 b'[tool.uv.sources]\nujson = { path = "vendor/ujson" }\n')
    found = declared_dependency("pyproject.toml", "simple_json.decoder", [pyproject])
    assert found is not None and not found.local
    ujson = declared_dependency("pyproject.toml", "ujson", [pyproject])
    assert ujson is not None and ujson.local
    assert declared_dependency("pyproject.toml", "yaml", [pyproject]) is None      # import name differs: not matched
    assert declared_dependency("pyproject.toml", ".hooks", [pyproject]) is None


def test_a_manifest_that_does_not_parse_declares_nothing_and_an_unknown_manifest_is_an_error() -> None:
    assert declared_dependency("Cargo.toml", "encoding", [b"[dependencies\nencoding = 1\n"]) is None
    assert declared_dependency("package.json", "lodash", [b"{not json"]) is None
    assert declared_dependency("Cargo.toml", "encoding", []) is None
    with pytest.raises(ValueError, match="no dependency reader for 'setup.py'"):
        declared_dependency("setup.py", "encoding", [b""])


def test_grouped_paths_spell_out_nested_use_lists() -> None:
    text = b"""use std::{
    fs::Metadata,
    io, // the io module
    ops::{self, Deref as D},
};
use actix_web::{dev::{self, AppService}, http::header::{self, HeaderValue}, Error};
use crate::ChunkedReadFile;
"""
    paths = grouped_paths(text, "::")
    assert {"std::fs::Metadata", "std::io", "std::ops::self", "std::ops::Deref", "actix_web::dev::AppService",
            "actix_web::http::header::HeaderValue", "actix_web::Error"} <= paths
    assert not any(path.startswith(("crate", "dev::", "header::")) for path in paths)   # inner groups read once
    assert grouped_paths(b"use std::io;\n", "::") == set()
    assert grouped_paths(b"// see a::{b, c}\n", "::") == {"a::b", "a::c"}   # text, not a parse: a mention too many
    assert grouped_paths(b'let s = "a::{b";\n', "::") == set()             # a group never closed names nothing
