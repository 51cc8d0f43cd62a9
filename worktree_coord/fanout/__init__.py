"""`wtc fanout`: drives agents (any command line) over the Python API, pipelined, repaired, and
resumed from the store; and `wtc task exec`, its one-task form.

A face beside the CLI, the MCP server and the hooks: it parses a plan, calls the Coordinator, and
shows what happens; it imports no other face except the faces' shared words (output/render.py, for the
repair reports an agent reads: the same text `wtc task finish` prints). One module per stage:

    plan.py       the plan (TOML, JSON, YAML): validated, in dependency order, compared on resume
    runner.py     the run: its lease, the plan against the stored one, the scheduler, the end
    driver.py     one task's pipeline: start, dependencies in, agent, finish, repair, on a worker thread
    process.py    the one place an agent process starts (its own process group; adopted after a kill)
    repair.py     what stopped an attempt, whether `task update` comes first, the repair prompt
    ledger.py     what the run remembers in the store (the plan, each task's steps) and its files
    view.py       the live view: rich on a terminal, plain lines otherwise, JSON lines under --json
    summary.py    the report and the exit code
    exec_task.py  `wtc task exec TASK --run ID -- CMD`
"""

from __future__ import annotations

from .exec_task import ExecResult, exec_task
from .plan import Plan, load
from .runner import FanoutOptions, default_concurrency, run_fanout
from .summary import FanoutReport

__all__ = ["ExecResult", "FanoutOptions", "FanoutReport", "Plan", "default_concurrency", "exec_task", "load",
           "run_fanout"]
