"""`python -m worktree_coord` runs the `wtc` command line."""

from .cli import main

main()
