"""One line out of a package manager's output, for the places a person reads.

A failed relock prints dozens of lines (cargo's retries and "Caused by:" chain, npm's log file
notice); the full text stays in the JSON (`stderr`, the intent's detail), while the report, the
consolidation summary and land's warnings show one line: the first error the tool names and, when
it explains itself in a chain, the last cause, which is the root of it.
"""

from __future__ import annotations

import re

MAX_CHARS = 300
_ERROR = re.compile(r"^(error|fatal|npm ERR!|npm error|ERR_|YN\d{4}: .*(Error|error))", re.IGNORECASE)
_NOISE = re.compile(r"^(warning|warn|npm WARN|npm warn|note|hint|help)\b[:!]?|^go: (downloading|finding|extracting) ",
                    re.IGNORECASE)
# A tool that prints no "error:" line (go) still names the network failure on some line: that one tells.
_NETWORK = re.compile(r"dial tcp|no such host|connection refused|i/o timeout|TLS handshake|Could not resolve host|"
                      r"ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|network is unreachable", re.IGNORECASE)
_CAUSED_BY = re.compile(r"^(Caused by:?|caused by:?)\s*$")
# uv puts each cause of its chain on the cause's own line ("cause: Because x was not found ...").
_INLINE_CAUSE = re.compile(r"^cause:\s+(\S.*)$")
# The consolidation relocks in a scratch checkout (<worktrees>/<run>/.consolidate/consolidate-<hex>,
# see consolidation_phase.py) that is gone when a person reads the line: its paths are shown
# relative to the repository ("clap_bench" rather than /tmp/.../consolidate-e940edb1/clap_bench).
_SCRATCH = re.compile(r"(?<![^\s(\'\"`])(?:/[^\s/()'\"`]+)*/\.consolidate/consolidate-[0-9a-f]+(/|\b)")


def summarize_tool_output(text: str) -> str:
    """The telling line of `text` (the first error, plus the last cause of a chain), at most
    MAX_CHARS characters, paths in the consolidation's scratch checkout made repository-relative;
    text of one line comes back as it is (trimmed)."""
    text = _SCRATCH.sub(lambda m: "" if m.group(1) == "/" else ".", text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        return _clip(lines[0] if lines else "")
    first_error = next((line for line in lines if _ERROR.match(line)), None)
    if first_error is None:
        first_error = next((line for line in lines if _NETWORK.search(line)), None)
    if first_error is None:
        first_error = next((line for line in lines if not _NOISE.match(line)), lines[0])
    cause = None
    for index, line in enumerate(lines):
        inline = _INLINE_CAUSE.match(line)
        if inline:
            cause = inline.group(1)
        elif _CAUSED_BY.match(line) and index + 1 < len(lines):
            cause = lines[index + 1]
    if cause and cause not in first_error:
        return _clip(f"{first_error} (cause: {cause})")
    return _clip(first_error)


def summarize_message(message: str) -> str:
    """A message whose head is wtc's own words and whose tail is a tool's output ("the base of .
    does not relock: <cargo's stderr>"): wtc's head kept, the tool's part summarized."""
    head, sep, tail = message.partition(": ")
    if sep and "\n" in tail and "\n" not in head:
        return _clip(f"{head}: {summarize_tool_output(tail)}", limit=MAX_CHARS + len(head) + 2)
    return summarize_tool_output(message) if "\n" in message else message


def _clip(text: str, limit: int = MAX_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."
