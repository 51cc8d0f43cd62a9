"""The structured merge: a declaration-level three-way merge over tree-sitter syntax trees.

Stage 2 of the cascade. Input: the three parsed versions of a file and its profile; output: pieces
(bytes and `Conflict` records) or `Unmergeable`. `structured` is the driver (containers walked,
both sides' hunks grouped, the rule that settles each group picked); each rule lives in a module of
its own: `members` (a container cut into members, matched by identity), `member_diff` (each
side's members diffed against base into hunks; moves), `group_rules` (which rule settles a group),
`statement_forms` (what one statement is), `insertion_order` and `insertion_layout` (where both
sides' insertions at one place go, and the whitespace they take), `name_loss`, `names` and
`bindings` (names an edit takes away that the other side's new code uses; imports counted),
`pieces` (the output, also used by the appended files' merge and the cascade).
Invariants: code nobody touched is copied byte for byte; what the rules cannot settle is
`Unmergeable` (the cascade keeps the line merge), never a guess. Imports `languages` and `lines`.
"""
