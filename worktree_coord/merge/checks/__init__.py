"""The post-merge checks: what a clean merge broke, read from each file's four versions.

Stage: after a merge (one file from the cascade, or every file of a tree merge), before its result
is called clean. `semantic` is the driver (names one side removed that the other side's new code
uses, in one file or across files); beside it `duplicates` (a declaration held twice), `signatures`
(a function one side reshaped, called the old way by the other), `import_paths` (an import path
one side replaced throughout that the other still adds). Their parts: `reach` (which files must be
parsed, decided before any parse), `symbols` (what one version defines, binds, imports and
references), `reexports` (names imported through a module that re-exports them), `versions` (a
file's four versions), `merge_index` (what is kept between merges, so a merge costs what it changes),
`disjoint` (tree merges the fast path noted as disjoint: their changes composed, not walked).
Output: `result.SemanticFinding`s; the merged bytes are never changed here.
Imports `languages`, `lines` (linediff) and `ecosystems`.
"""
