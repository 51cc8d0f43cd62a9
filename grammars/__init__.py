"""Language profiles for the structured merge, as data: one TOML file per language.

Installed as the `worktree_coord.grammars` package so the profiles travel inside the wheel; the
loader in `worktree_coord.merge` reads them with `importlib.resources`.
"""
