"""Precision: where a clean result is not trusted, and which rule settled each place.

`guards` is the cascade's last check on a clean structured, data or Python-union result whose line
merge conflicted: shapes where the three inputs cannot tell the right merge (a generated file, a
forward-port between release lines), answered by a sentence saying why the result is not kept.
`provenance` says, for each place git's line merge conflicts on, which rule of the structured merge
settled it: some guards read it, and docs/merge-precision.md counts it.
Imports `languages` and `syntax` (the structured merge's trace words).
"""
