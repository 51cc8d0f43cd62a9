"""Text as lines, nothing parsed: the cascade's first stage, its conflict markers, line endings and
the line diffs the post-merge checks read.

`line` (git's diff3 line merge through libgit2, byte-identical to `git merge-file`), `markers`
(conflict blocks found in inputs, read back from merged text, written in git's conflict styles),
`line_endings` (one line-ending convention per result: the one a side changed the file to),
`linediff` (which lines of a version a side touched or added, and where a line of one version
stands in another).
Invariant: nothing here knows a language; this room imports nothing of the merge but `merge.result`.
"""
