"""`python -m worktree_coord` runs the `wtc` command line."""

from .entry import main

main()
