"""Beside the merge, merging nothing: what a change touches and what a merge did, in words.

`declarations` (the declarations one version of a file changes against another: the forecast's
"who touches what") and `resolution_words` (one line for the agent whose finish a clean structured
merge settled: "imports of both sides combined; ..."). Imports `languages` and `syntax`.
"""
