"""Generate the reference pages that must not drift from the code.

- docs/cli.md: every `wtc` command, argument and option, walked from the typer app itself;
- the generated section of docs/configuration.md: every `[tool.worktree-coord]` key, from
  `worktree_coord.config._KEYS` (names and validators) and `Config` (defaults);
- the generated section of docs/ci.md: the exact lines `wtc driver install` writes, from
  `worktree_coord.cli.merge_file` (driver name, command, attribute patterns of the language profiles);
- the generated section of docs/mcp.md: every tool and resource of `wtc mcp`, listed by the MCP server
  itself (names, descriptions, argument schemas);
- worktree_coord/cli_help.py: `wtc --help` as typer prints it 80 columns wide, which the quick path
  (fastcli.py) prints without loading typer.

    python scripts/gen_cli_docs.py           # rewrite the pages
    python scripts/gen_cli_docs.py --check   # exit 1 and show a diff when a page is stale

tests/ci/test_docs.py runs the check, so a command or key added without regenerating fails CI.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CLI_PAGE = ROOT / "docs" / "cli.md"
CONFIG_PAGE = ROOT / "docs" / "configuration.md"
CI_PAGE = ROOT / "docs" / "ci.md"
MCP_PAGE = ROOT / "docs" / "mcp.md"
HELP_MODULE = ROOT / "worktree_coord" / "cli_help.py"
BEGIN = "<!-- BEGIN GENERATED: scripts/gen_cli_docs.py -->"
END = "<!-- END GENERATED -->"

# What each configuration key means. A key in config._KEYS without an entry here fails generation,
# so a new key cannot ship undocumented.
CONFIG_DOCS: dict[str, tuple[str, str]] = {
    "worktree-root": ('".wtc/worktrees"', "Folder (relative to the repository root, or absolute) under which task "
                      "worktrees are created, one per `<run>/<task>`."),
    "reserved-add": ('["config/*.yml"]', "Extra reserved-file globs (gitignore-style) on top of the built-in root "
                     "manifests and lockfiles. Edits to them become intents for consolidation."),
    "reserved-remove": ('["requirements*.txt"]', "Built-in reserved patterns to drop (exact pattern text, e.g. "
                        "`go.sum`, `/package.json`), so those files merge like any other; an entry that is not a "
                        "built-in pattern is refused (exit 2), naming the pattern it was probably meant for."),
    "idempotency-ttl": ("86400", "Seconds an idempotency record is kept; a repeat within it returns the stored "
                        "result. Must outlast a run."),
    "lock-timeout": ("120", "Seconds to wait for the repository-wide registration lock (worktree add/prune, ref "
                     "deletion) before failing with exit 4."),
    "wait-timeout": ("600", "Seconds a call waits for another holder of the same task lease or idempotency key "
                     "before failing with exit 4."),
    "verify": ('"npm test"', "Shell command a candidate integration commit must pass before the integration "
               "branch moves (merges and consolidation); `wtc merge --verify` overrides it for one drain."),
    "verify-timeout": ("1800", "Seconds the verify command may run before it counts as failed."),
    "relock": ('{ npm = "npm install --package-lock-only" }', "Lockfile regeneration command per ecosystem for "
               "the consolidation phase, replacing its built-in one."),
    "max-parallel": ("4", "How many heavy operations (merges, verifications, relocks) run at once across every "
                     "process on one machine (default: the CPU count); callers beyond it queue first come, "
                     "first served, and get exit 4 with a retry hint past `wait-timeout`."),
    "worktree-setup": ('{ link = ["node_modules"], run = "npm ci --offline" }', "How a new task worktree is made "
                       "ready to run (docs/claude-code.md): `link` / `copy` git-ignored folders of the main checkout "
                       "into it (skipped where unsafe: tracked, where the worktree checks out its own copy, a sparse "
                       "one too, its cone taking the folder in; not ignored; a venv with an editable install of the "
                       "main checkout; a node_modules holding workspace links gets them pointing at the worktree's "
                       "packages); `run` a shell command in it (`timeout` seconds, default 600; output in a log "
                       "`wtc status` names; failure rolls the start back); `ports` per task (default 10, 0 for none) "
                       "from `port-base` (default 20000), a block no live task of any repository on this machine "
                       "holds (the machine's lease folder, `ports/` in the user's state folder: "
                       "docs/claude-code.md), as `WTC_PORT_BASE` in `.wtc/env`. Files named in `.worktreeinclude` are copied "
                       "either way."),
    "default-boundary": ('{ own = ["src/**"], read = ["libs/**"] }', "The boundary (`own`, `read`, `sparse`) a "
                         "task gets when neither its caller nor a `wtc plan` rule names one; without it, the "
                         "built-in default owns everything (`**`), reserved files staying reserved."),
    "store": ('"postgresql://wtc@db.internal/wtc"', "Where the coordination store lives: `sqlite` (the default: "
              "one file in the git common dir, for agents on one machine) or a `postgresql://` address shared by "
              "agents on several machines (needs `pip install 'worktree-coord[postgres]'`). No password here: "
              "give it in `PGPASSWORD` or `~/.pgpass`. The `WTC_STORE` environment variable wins over this key "
              "(see docs/multi-machine.md)."),
    "lease-ttl": ("30", "Seconds a process's leases and running calls outlive its last heartbeat. A process renews "
                  "every third of it while it works; one on another machine that was killed or cut off from the "
                  "store loses what it held this long after its last beat (on the same machine a dead process "
                  "is seen at once)."),
    "semantic-check": ('"warn"', "What the post-merge semantic check does with a name one side removed or renamed "
                       "that the other side's new code uses: `block` (default: a conflict of kind `semantic`, "
                       "the merge held back), `warn` (merged, reported in `task finish`, `wtc report` and "
                       "`wtc check`), or `off`. `wtc run start --semantic` overrides it for one run, "
                       "`wtc check --semantic` and `wtc merge-file --semantic` for one call. A run reads it as "
                       "committed at its pinned commit (above)."),
    "left-behind": ('"warn"', "What a use the landed tree keeps of a name a task removed or renamed does, when "
                    "no task changed that use (old code that still imports or calls it): `block` (default: the "
                    "task's merge is a conflict of kind `left_behind` naming the file, lines and name, and the "
                    "live task owning that file; `wtc task check` exits 1, and 6 when its look for such uses "
                    "gave no answer: it failed at an error of wtc's, or the task changed more source files, or more "
                    "files mention a name it removed, than it reads (`left_behind_unchecked` says which), and `wtc "
                    "task finish` then does not merge it (exit 6) unless `--merge-unchecked`; `wtc land` refuses while one remains unless approved "
                    "by name with `--allow-left-behind NAME`, and (exit 6) while the run's look gave no answer, which "
                    "`wtc report` says as NOT CHECKED, unless `--land-unchecked`), `warn` (merged, reported in the "
                    "finish's notes and `wtc report`), or `off`. `wtc run start --left-behind` overrides it for "
                    "one run, `wtc check --left-behind` for one call. A run reads it as committed at its pinned "
                    "commit (above)."),
    "max-file-size": ('"200MB"', "The largest file a task may merge: bytes, or a size like `100MB` or `1.5GiB` "
                      "(units of 1024), 0 for no limit. `task finish` refuses a bigger one before committing it (an "
                      "agent's build output, dataset or dump the `.gitignore` does not name), and one in any of the "
                      "agent's own commits, even when a later commit removed it (the merge would bring that history "
                      "in), naming the command that takes it out; `wtc check` flags a branch that adds one. A file "
                      "the repository already tracked over the limit is left alone. The default, 50 MiB, is where "
                      "GitHub starts warning; it refuses pushes holding a file over 100 MiB."),
    "network": ('"shared"', "The network of the commands wtc starts for a task (the verify command, "
                "`worktree-setup.run`, `wtc task exec`; fanout's agents only when their plan asks "
                "`network = \"isolated\"`): `isolated` (default, Linux: each in a "
                "network namespace of its own with only its loopback, so two tasks' test servers bind "
                "127.0.0.1:8000 at once; nothing outside the machine is reachable from it) or `shared` (the "
                "host's network; use the port block in `.wtc/env`). Where the machine cannot isolate, commands "
                "share the host's network and results say why. Recorded with the run at `wtc run start` "
                "(`--network` overrides it for one run). See \"Network isolation\" below."),
}


# ---- the command line ----------------------------------------------------------------------------

def _walk(command: Any, path: list[str]):
    yield path, command
    for name in sorted(getattr(command, "commands", {}) or {}):
        yield from _walk(command.commands[name], path + [name])


def _argument_name(param: Any) -> str:
    """An argument by its metavar when that is one word (`wtc run start [RUN]`, whose parameter is
    named apart from --run's), else by its name (`task exec`'s `-- CMD [ARGS]...` is help, not a name)."""
    metavar = getattr(param, "metavar", None) or ""
    return metavar if metavar.isalpha() and metavar.isupper() else param.name.upper()


def _param_row(param: Any) -> str:
    from worktree_coord.cli import value_kind

    if param.param_type_name == "argument":
        names = f"`{_argument_name(param)}`"
    else:
        names = ", ".join(f"`{o}`" for o in list(param.opts) + list(param.secondary_opts))
    is_flag = getattr(param, "is_flag", False)
    secondary = list(getattr(param, "secondary_opts", []))
    kind = "flag" if is_flag else value_kind(param)
    kind = " \\| ".join(kind) if isinstance(kind, tuple) else kind
    if param.multiple:
        kind += " (repeatable)"
    default = param.default
    if getattr(default, "value", None) is not None:
        default = default.value
    if param.required:
        shown = "required"
    elif default in (None, (), []) or (default is False and is_flag and not secondary) \
            or getattr(param, "show_default", True) is False:
        shown = ""
    elif secondary and isinstance(default, bool):
        shown = f"`{param.opts[0] if default else secondary[0]}`"
    else:
        shown = f"`{default}`"
    help_text = (getattr(param, "help", None) or "").replace("|", "\\|").replace("\n", " ")
    return f"| {names} | {kind} | {shown} | {help_text} |"


def render_cli() -> str:
    from worktree_coord.cli import build_command
    from worktree_coord.errors import exit_code_table

    root = build_command()
    out = ["# `wtc` command line reference", "",
           "<!-- generated by scripts/gen_cli_docs.py from the typer app; do not edit by hand -->", "",
           "Every command takes `--json` unless noted: exactly one JSON object on stdout, with `schema` and",
           "`exit_code` at its top level (errors too: `{\"schema\": \"wtc.error/1\", \"exit_code\": N, \"error\": {...}}`).",
           "Exit codes (`worktree_coord.errors.EXIT_CODES`, the same for every command):", "",
           exit_code_table(), ""]
    for path, command in _walk(root, ["wtc"]):
        if command is root:
            continue
        is_group = bool(getattr(command, "commands", None))
        out.append(f"{'#' * min(len(path), 4)} `{' '.join(path)}`")
        out.append("")
        help_text = (command.help or "").strip()
        if help_text:
            out.append(help_text)
            out.append("")
        if is_group:
            out.append("Subcommands: " + ", ".join(f"`{n}`" for n in sorted(command.commands)) + ".")
            out.append("")
            continue
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        usage = " ".join(path + [_argument_name(a) if a.required else f"[{_argument_name(a)}]" for a in arguments]
                         + ["[OPTIONS]"])
        out.append(f"```\n{usage}\n```")
        out.append("")
        if command.params:
            out.append("| argument / option | type | default | meaning |")
            out.append("|---|---|---|---|")
            for param in command.params:
                out.append(_param_row(param))
            out.append("")
    return "\n".join(out).rstrip() + "\n"


# ---- the configuration reference ----------------------------------------------------------------

def _expected(convert: Any) -> str:
    try:
        convert(object())
    except TypeError as expected:
        return str(expected)
    return "any value"


def render_config_section() -> str:
    from worktree_coord.config import _KEYS, RECORDED_AT_RUN_START, RUN_RULES, Config

    missing = sorted(set(_KEYS) - set(CONFIG_DOCS))
    if missing:
        raise SystemExit(f"configuration keys without documentation in scripts/gen_cli_docs.py: {missing}")
    defaults = {f.name: (f.default if f.default is not dataclasses.MISSING else f.default_factory())  # type: ignore[misc]
                for f in dataclasses.fields(Config)}
    lines = [BEGIN, "", "| key | read from | value | default | example | meaning |", "|---|---|---|---|---|---|"]
    for key in sorted(_KEYS):
        attribute, convert = _KEYS[key]
        default = defaults[attribute]
        shown = "none" if default in (None, (), {}) else f"`{default}`"
        example, meaning = CONFIG_DOCS[key]
        read_from = ("the run's pin" if key in RUN_RULES else
                     "the checkout, at run start" if key in RECORDED_AT_RUN_START else "the checkout")
        lines.append(f"| `{key}` | {read_from} | {_expected(convert)} | {shown} | `{key} = {example}` | {meaning} |")
    lines += ["", END]
    return "\n".join(lines)


def render_driver_section() -> str:
    from worktree_coord.cli.merge_file import DRIVER_COMMAND, DRIVER_NAME, _ATTRIBUTES_HEADER, attribute_patterns

    config = [f'[merge "{DRIVER_NAME}"]', "\tname = worktree_coord structured merge", f"\tdriver = {DRIVER_COMMAND}"]
    attributes = [_ATTRIBUTES_HEADER] + [f"{pattern} merge={DRIVER_NAME}" for pattern in attribute_patterns()]
    return "\n".join([BEGIN, "", "In `.git/config` (`~/.gitconfig` with `--global`), with the absolute path of the "
                      "`wtc` that ran the install (or `/abs/python -m worktree_coord`), so git finds it without "
                      "a virtual environment on PATH; install prints the exact line. `%X %S %Y` are the labels git "
                      "passes (git 2.44 and later; an older git leaves them unexpanded and the driver reads "
                      "HEAD's branch and the name of the commit being merged instead):", "", "```ini", *config, "```", "",
                      "In `.git/info/attributes` (your global attributes file with `--global`), lines not already "
                      "there:", "", "```", *attributes, "```", "", END])


# ---- the MCP server's tools ------------------------------------------------------------------------

def _schema_type(shape: dict[str, Any]) -> str:
    """A readable type for a JSON schema property: string, boolean, list of string, one of a|b, ..."""
    if "enum" in shape:
        return "one of " + " \\| ".join(f"`{value}`" for value in shape["enum"])
    if "anyOf" in shape:
        kinds = [_schema_type(option) for option in shape["anyOf"] if option.get("type") != "null"]
        return " or ".join(kinds) + (" or null" if len(kinds) < len(shape["anyOf"]) else "")
    if shape.get("type") == "array":
        return f"list of {_schema_type(shape.get('items', {}))}"
    return str(shape.get("type", "any"))


def render_mcp_section() -> str:
    """Every tool and resource as `wtc mcp` lists them to a client (the server asked in-process)."""
    import anyio

    from worktree_coord.mcp import build_server

    server = build_server(ROOT)

    async def listing() -> tuple[list[Any], list[Any], list[Any]]:
        return await server.list_tools(), await server.list_resources(), await server.list_resource_templates()

    tools, resources, templates = anyio.run(listing)
    lines = [BEGIN, "", "Listed by the server itself (`tools/list`, `resources/list`, `resources/templates/list`).", "",
             "| tool | kind | result `schema` |", "|---|---|---|"]
    for tool in tools:
        kind = "read-only" if tool.annotations.read_only_hint else (
            "write, destructive" if tool.annotations.destructive_hint else "write")
        lines.append(f"| [`{tool.name}`](#{tool.name}) | {kind} | "
                     f"`{tool.output_schema['properties']['schema']['const']}` |")
    for tool in tools:
        lines += ["", f"### `{tool.name}`", "", tool.description.replace("\n", " "), ""]
        properties = tool.input_schema.get("properties", {})
        required = set(tool.input_schema.get("required", []))
        if properties:
            lines += ["| argument | type | default | meaning |", "|---|---|---|---|"]
            for name, shape in properties.items():
                default = "required" if name in required else (
                    "" if shape.get("default") in (None, [], "") else f"`{json.dumps(shape['default'])}`")
                meaning = (shape.get("description") or "").replace("|", "\\|").replace("\n", " ")
                lines.append(f"| `{name}` | {_schema_type(shape)} | {default} | {meaning} |")
    lines += ["", "### Resources", "", "| URI | what it holds |", "|---|---|"]
    for resource in resources:
        lines.append(f"| `{resource.uri}` | {resource.description} |")
    for template in templates:
        lines.append(f"| `{template.uri_template}` | {template.description} |")
    return "\n".join(lines + ["", END])


def _replace_section(current: str, section: str, page: Path) -> str:
    if BEGIN not in current or END not in current:
        raise SystemExit(f"{page} lacks the {BEGIN} ... {END} markers")
    head, _, rest = current.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + section + tail


def render_config(current: str) -> str:
    return _replace_section(current, render_config_section(), CONFIG_PAGE)


def render_help_module() -> str:
    """worktree_coord/cli_help.py: typer's own `wtc --help` (a `wtc` process, typer's path), as click
    formats it for a terminal of 80 columns or more (click caps the width at 80)."""
    import os
    import subprocess

    done = subprocess.run([sys.executable, "-m", "worktree_coord", "--help"], capture_output=True, check=True,
                          env=dict(os.environ, COLUMNS="80", WTC_NO_FAST="1", WTC_NO_SERVE="1",
                               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])))
    return ('"""`wtc --help` as typer prints it on a terminal 80 columns wide or wider: generated by\n'
            'scripts/gen_cli_docs.py (tests/ci/test_docs.py fails when it is stale), printed by fastcli.py\n'
            'without loading typer (issue 36, start-up). Do not edit: regenerate."""\n\n'
            "TOP_HELP = (\n" + "".join(f"    {line!r}\n" for line in done.stdout.decode().splitlines(True)) + ")\n")


def pages() -> dict[Path, str]:
    """Every generated page with the text it must have now."""
    return {CLI_PAGE: render_cli(), CONFIG_PAGE: render_config(CONFIG_PAGE.read_text()),
            CI_PAGE: _replace_section(CI_PAGE.read_text(), render_driver_section(), CI_PAGE),
            MCP_PAGE: _replace_section(MCP_PAGE.read_text(), render_mcp_section(), MCP_PAGE),
            HELP_MODULE: render_help_module()}


def main(argv: list[str]) -> int:
    stale = 0
    for path, wanted in pages().items():
        current = path.read_text() if path.exists() else ""
        if current == wanted:
            continue
        if "--check" in argv:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), wanted.splitlines(True),
                                                       str(path), f"{path} (regenerated)"))
        else:
            path.write_text(wanted)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"\n{stale} generated page(s) are stale: run `python scripts/gen_cli_docs.py`")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
