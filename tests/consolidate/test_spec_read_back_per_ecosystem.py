"""Issue 41 item 2, every ecosystem: a read-back compares specs as what they mean, not as text.

How each ecosystem compares (specs.same_spec): uv and pip-tools as PEP 440 specifier sets
(packaging's SpecifierSet, order- and space-insensitive); Poetry as specifier sets, and its caret,
tilde and bare forms as the version ranges they stand for, on PEP 440 versions (so `^1.2` is
`>=1.2,<2.0`: before, comparing the two raised a TypeError, a tuple ordered against a Version); npm,
pnpm, yarn and bun as node-semver ranges normalised to unions of intervals (`||` branches in any
order, `^1.2` is `^1.2.0`, `~1.2.3` is `>=1.2.3 <1.3.0`); Cargo as requirement lists normalised the
same way (`1.2` is `^1.2`, commas with or without spaces, in any order); Go as the one version a
`require` names, compared as text (a Go version is exact: no range to normalise). Pre-releases,
tags, URLs and other forms no library here decides are equal only as identical text."""

from __future__ import annotations

import pytest

from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.specs import same_spec

E = Ecosystem


@pytest.mark.parametrize("ecosystem, written, read, same", [
    (E.UV, ">=1.0.9,==1.*", "==1.*,>=1.0.9", True),           # the spec, as uv wrote it
    (E.UV, ">=1.0.9, ==1.*", "==1.*,>=1.0.9", True),
    (E.UV, ">=1.0.9,==1.*", ">=1.0.9", False),
    (E.PIP_TOOLS, "~=1.0,!=1.3", "!=1.3,~=1.0", True),
    (E.POETRY, ">=1.2,<2.0", "<2.0,>=1.2", True),
    (E.POETRY, "^1.2", ">=1.2,<2.0", True),                   # raised TypeError before
    (E.POETRY, ">=1.2,<2.0", "^1.2", True),
    (E.POETRY, "~1.2", ">=1.2,<1.3", True),
    (E.POETRY, "^1.2", ">=1.2,<3.0", False),
    (E.NPM, ">=1.2.0 <2.0.0", "<2.0.0 >=1.2.0", True),
    (E.NPM, "1.x || >=3.0.0", ">=3.0.0 || 1.x", True),
    (E.PNPM, "^1.2", "^1.2.0", True),
    (E.YARN, "~1.2.3", ">=1.2.3 <1.3.0", True),
    (E.NPM, ">=1.2.0 <2.0.0", ">=1.2.0 <3.0.0", False),
    (E.NPM, "^1.2.0-beta.1", "^1.2.0-beta.2", False),           # pre-releases: text only
    (E.CARGO, ">=1.0.9, <2", "<2,>=1.0.9", True),
    (E.CARGO, "1.2", "^1.2", True),
    (E.CARGO, "1.2", "^1.3", False),
    (E.GO, "v1.2.3", "v1.2.3", True),
    (E.GO, "v1.2.3", "v1.2.4", False),
])
def test_a_spec_reads_back_as_the_same_spec_however_the_tool_wrote_it(ecosystem, written, read, same):
    assert same_spec(ecosystem, written, read) is same
    assert same_spec(ecosystem, read, written) is same
