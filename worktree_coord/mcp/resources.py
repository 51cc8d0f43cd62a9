"""MCP resources: what a lead reads without a tool call.

Stage: the read-only half of the MCP face. Input: a `wtc://` URI. Output: the same JSON object the
matching command prints under `--json` (`application/json`):

    wtc://status                               every run with its task counts     (wtc status)
    wtc://runs/{run}/status                    the run's tasks and intents        (wtc status --run)
    wtc://runs/{run}/report                    the change manifest                (wtc report --run)
    wtc://runs/{run}/tasks/{task}/conflicts    the task's conflict report: path, declaration, lines,
                                               base/ours/theirs (from the report's conflicts)

A run, task or anything else that is wrong comes back as a protocol error whose `data` is the
`wtc.error/1` object (kind, exit code, message, fix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from ..output.tagging import tagged, tagged_error, to_json_text
from ..errors import EXIT_INTERNAL, NotFoundError, WtcError
from ..model import validate_name
from .calls import Served, call_in_thread

if TYPE_CHECKING:
    from ..coordinator import Coordinator

JSON = "application/json"


def add_resources(server: MCPServer, served: Served) -> None:
    """Register the `wtc://` resources on `server`."""

    async def read(operation: Callable[[Coordinator], dict[str, Any]], uri: str) -> str:
        try:
            return to_json_text(await call_in_thread(served, operation))
        except WtcError as error:
            code = INTERNAL_ERROR if error.exit_code == EXIT_INTERNAL else INVALID_PARAMS
            text = error.message + (f" (fix: {error.fix})" if error.fix else "")
            raise MCPError(code=code, message=text, data=tagged_error(error) | {"uri": uri}) from None

    @server.resource("wtc://status", name="status", title="Every run", mime_type=JSON,
                     description="Every run of the repository with its task counts (wtc status --json).")
    async def all_runs() -> str:
        return await read(lambda c: tagged(c.status().to_json(), schema="status"), "wtc://status")

    @server.resource("wtc://runs/{run}/status", name="run-status", title="Run status", mime_type=JSON,
                     description="One run's tasks (state, files, violations, conflicts, age) and intent counts "
                                 "(wtc status --run RUN --json).")
    async def run_status(run: str) -> str:
        return await read(lambda c: tagged(c.status(run).to_json(), schema="status"), f"wtc://runs/{run}/status")

    @server.resource("wtc://runs/{run}/report", name="run-report", title="Change manifest", mime_type=JSON,
                     description="The run's change manifest: paths with their origins, tasks, intents not applied, "
                                 "conflicts, verification, leftovers (wtc report --run RUN --json).")
    async def run_report(run: str) -> str:
        return await read(lambda c: tagged(c.report(run).to_json(), schema="report"), f"wtc://runs/{run}/report")

    @server.resource("wtc://runs/{run}/tasks/{task}/conflicts", name="task-conflicts", title="Task conflicts",
                     mime_type=JSON,
                     description="One task's conflict report: each conflict's path, declaration, lines, the "
                                 "base/ours/theirs text and the tasks that last changed the file.")
    async def task_conflicts(run: str, task: str) -> str:
        def conflicts(c: Coordinator) -> dict[str, Any]:
            validate_name("task", task)
            report = c.report(run)
            rows = [row for row in report.tasks if row["task"] == task]
            if not rows:
                raise NotFoundError(f"no task {task!r} in run {run!r}",
                                    fix=f"see the run's tasks: wtc://runs/{run}/status")
            found = [{k: v for k, v in item.items() if k != "task"} for item in report.conflicts if item["task"] == task]
            return tagged({"run": run, "task": task, "state": rows[0]["state"], "conflicts": found},
                          schema="task.conflicts")

        return await read(conflicts, f"wtc://runs/{run}/tasks/{task}/conflicts")
