"""The files every task appends to and no language profile covers, merged entry by entry.

The cascade's step 4 for line lists (.gitignore, CODEOWNERS, requirements-style lists, AUTHORS),
gettext PO and Java .properties catalogs (which files: grammars/append/kinds.toml): `appendable`
(the kinds and their own order rules), `entries` (a file cut into entries whose texts concatenate
back to exactly its bytes), `keyed_sequence` (the three-way merge of entry sequences: both sides'
additions become a union). Output: pieces, or `Unmergeable` with the reason.
Imports `syntax` (pieces) and `precision` (the guards a kind may skip).
"""
