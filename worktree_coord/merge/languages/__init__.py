"""What the merge knows about languages: the profiles that make the engine generic, and the few
languages it also knows as code.

`profiles` loads and validates `grammars/<language>.toml` (node kinds of declarations, keys,
unordered containers, the semantic check's queries): adding a language is a profile, not code.
The rest is knowledge a profile cannot hold, each a stage of the cascade on a clean result:
`python_cst` (Python's libcst refinements), `validate` (the strict parsers of Python, JSON and
TOML as a second opinion), `data_semantics` (a JSON or TOML result holds the key-level merge of
the inputs' values).
Invariant: this room imports nothing of the merge but `merge.result`; every other room reads it.
"""
