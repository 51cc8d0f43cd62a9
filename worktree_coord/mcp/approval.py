"""`land` over MCP: a person approves the change manifest through elicitation, or nothing lands.

Stage: the one tool with a human gate. Input: run, onto, idempotency_key; the client's answer to an
elicitation. Output: the `wtc land --json` object (`Landed` plus the `manifest` that was approved), or
a refusal.

How (the SDK's resolvers, which follow the negotiated protocol: a request sent mid-call on
handshake-era connections, an `input_required` round trip on 2026-07-28 and later):
1. `land_manifest` computes the run's change manifest (`Coordinator.report`, with `onto`);
2. `land_approval` asks the person, showing that manifest, the target and the exact integration tip,
   and naming every leftover landing would leave out; a client that declared no elicitation
   capability is not asked (there is nobody to ask) and gets a refusal that says to land by hand;
3. the tool lands only on an accepted answer with `approve` true, passing the approved tip: if
   integration moved meanwhile the Coordinator refuses, since the approval covered another manifest.
An approval of a question that names leftovers is the person's `--allow-partial`, and of one that
names uses of names the run removed their `--allow-left-behind`, and of one that names files of the
landed tree that do not parse their `--allow-unparsed`, as at the CLI's prompt. A repeat of a land already made is not asked again: its stored result comes back (the
idempotency record of that land: same key, or the default key, and the same tip), and a target that
already holds the tip has nothing to approve. On 2026-07-28 connections the question re-renders
every round; an answer counts only for the exact question it answered (the SDK compares digests),
so a changed manifest is asked again.
"""

# No `from __future__ import annotations`: the SDK evaluates the tool's and resolvers' annotations,
# and `Resolve(land_manifest)` names a function local to build_land.
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from ..frozen import value_class
from ..output import render
from ..errors import UsageError, WtcError
from ..results import Landed, RunReport
from .calls import Reply, Served, call_in_thread, error_result, reply_result, run_call
from .tools import DESTRUCTIVE, KEY, RUN, make_tool, output_schema

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool

    from ..coordinator import Coordinator

MANIFEST_LINES = 60   # of the report shown in the question; the rest is one resource read away


class LandApproval(BaseModel):
    """What the person answers."""

    approve: bool = Field(description="true: fast-forward the branch to the integration tip shown; "
                                      "false: land nothing")


@value_class
class LandManifest:
    """The manifest a person is asked about (or why there is none to ask about): `replay` is the
    stored result of this very land, made before (the same key, or the default key twice), and
    `landed` says the target already holds the tip, so there is nothing to approve."""

    report: RunReport | None
    error: WtcError | None
    question: str = ""
    replay: Landed | None = None
    landed: bool = False


@value_class
class NotAsked:
    """Why the person was not asked: `error` (no manifest) or `no_elicitation` (nobody to ask)."""

    why: str


def question(report: RunReport, onto: str) -> str:
    """The elicitation message: the change manifest as `wtc land` shows it at the prompt, then the
    question, naming the leftovers when there are any."""
    lines = render.run_report(report).splitlines()
    if len(lines) > MANIFEST_LINES:
        lines = lines[:MANIFEST_LINES] + [f"  ... {len(lines) - MANIFEST_LINES} more line(s): read "
                                          f"wtc://runs/{report.run}/report"]
    return "\n".join(lines + ["", render.land_question(report, onto)])


def build_land(served: Served) -> "Tool":
    """The `land` tool of a server bound to `served`."""

    async def land_manifest(run: str, onto: str, idempotency_key: str | None) -> LandManifest:
        def read(c: "Coordinator") -> tuple[RunReport, Landed | None]:
            report = c.report(run, onto=onto)
            # A repeat of a land already made is answered from its record: the person approved
            # it once, and asking again (a decline saying "not approved" of a landed branch)
            # would contradict what happened. A key that landed another tip is refused here too.
            return report, c.landed_before(run, onto, tip=report.tip, key=idempotency_key)

        try:
            report, replay = await call_in_thread(served, read)
        except WtcError as error:
            return LandManifest(report=None, error=error)
        landed = bool(report.target and report.target.get("tip") == report.tip)
        return LandManifest(report=report, error=None, question=question(report, onto), replay=replay,
                            landed=landed)

    def land_approval(manifest: Annotated[LandManifest, Resolve(land_manifest)], ctx: Context) -> Any:
        if manifest.error is not None:
            return NotAsked("error")
        if manifest.replay is not None or manifest.landed:
            return NotAsked("nothing_to_approve")
        capabilities = ctx.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return NotAsked("no_elicitation")
        return Elicit(manifest.question, LandApproval)

    async def land(
        run: Annotated[str, Field(description=RUN)],
        onto: Annotated[str, Field(description="Branch to fast-forward to the integration tip, e.g. main.")],
        manifest: Annotated[LandManifest, Resolve(land_manifest)],
        answer: Annotated[ElicitationResult[LandApproval], Resolve(land_approval)],
        idempotency_key: Annotated[str | None, Field(description=KEY)] = None,
    ) -> CallToolResult:
        """Land the run: show the change manifest to the person through MCP elicitation and, only on
        their approval, fast-forward ONTO to the integration tip by compare-and-swap. A client without
        elicitation gets a refusal (run `wtc land` in a terminal instead); a declined approval lands
        nothing. Call report first: leftovers (intents not applied, tasks not merged) are named in the
        question, and approving them lands without them. Refuses if integration moved after the
        approval, or if ONTO moved since the pin (then call sync). A repeat of a land already made
        (same idempotency_key, or none twice) returns its first result without asking again; so
        does a land when ONTO already holds the integration tip."""
        if manifest.error is not None:
            return error_result(manifest.error)
        report = manifest.report
        assert report is not None
        partial = bool(report.leftovers.get("intents") or report.leftovers.get("tasks"))
        if manifest.replay is not None:
            replay = manifest.replay
            return reply_result(Reply(replay.to_json() | {"manifest": report.to_json()}, "land", render.landed(replay)))
        approval = answer.data if isinstance(answer, AcceptedElicitation) else None
        if manifest.landed:
            # ONTO holds the tip already: landing changes nothing, so there is nothing to ask
            # (the land below answers "already" and moves no ref).
            approval = LandApproval(approve=True)
        if isinstance(approval, NotAsked):
            return error_result(UsageError(
                "landing needs a person's approval, and this MCP client cannot ask for it (it declared no "
                "elicitation capability)",
                fix=f"run `wtc land --run {run} --onto {onto}` in a terminal: it shows the change manifest and "
                    f"asks; or use a client with elicitation",
                details={"manifest_tip": report.tip}))
        if not isinstance(approval, LandApproval) or not approval.approve:
            return error_result(UsageError(
                f"landing was not approved ({'declined' if approval is not None else answer.action})",
                fix="nothing changed; call land again when the person is ready to approve",
                details={"manifest_tip": report.tip}))

        def land_now(c: "Coordinator") -> Reply:
            # The question named each use left behind, each file that does not parse, and a look that
            # gave no answer: approving it approves those names and paths, and landing unchecked.
            landed: Landed = c.land(run, onto, approved=True, allow_partial=partial, key=idempotency_key,
                                    expected_tip=report.tip, allow_left_behind=render.left_behind_names(report),
                                    land_unchecked=bool(report.left_behind_unchecked or report.unparsed_unchecked),
                                    allow_unparsed=render.unparsed_paths(report), manifest=report)
            return Reply(landed.to_json() | {"manifest": report.to_json()}, "land", render.landed(landed))

        return await run_call(served, land_now)

    return make_tool(land, DESTRUCTIVE, "Land the run (asks a person)",
                     output_schema("land", Landed, manifest={"type": "object"}))


__all__ = ["build_land", "LandApproval", "question"]
