"""The faces' shared output, below every face (CLI, MCP server, hooks, CI renderers, fanout):
`tagging.py` (a result's `--json` object: `schema` and `exit_code` first; errors as `wtc.error/1`;
printing them), `render.py` (a result's text for people), `progress.py` (the words of an event and
the live display a terminal draws from them). A face imports these, never another face.
"""
