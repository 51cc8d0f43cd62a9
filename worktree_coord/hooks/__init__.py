"""The agent-harness face: wtc as Claude Code's worktree provider.

`wtc hook claude worktree-create|worktree-remove` are the commands Claude Code runs as its
WorktreeCreate and WorktreeRemove hooks; `wtc hooks install|uninstall claude` writes them into its
settings. Like every face this one only parses, calls the Coordinator and renders:

    payload.py    the hook payloads on stdin (every shape seen in the field)
    claude.py     the two hooks: repository lookup, Claude's output and exit-code contract
    settings.py   install/uninstall in .claude/settings*.json, byte-for-byte restore
    json_text.py  small in-place edits of a JSON file's text

The policy underneath (a run per session, task names from agent names, the plan, worktree set-up,
finishing) lives in `coordinator/agents.py`, `plan.py` and `worktree_setup.py`, shared with
`wtc task start` and the MCP face.
"""
