#!/usr/bin/env bash
# A lead agent's orchestration script: the plan lives here, the agents work in their own shells.
#
#   examples/lead-agent-workflow.sh REPO [RUN]
#
# What a lead agent writes when it fans work out with the `wtc` command line:
#   1. pin a run;
#   2. start one task per plan line (branch wtc/<run>/<task>, its own worktree, its boundary);
#   3. hand each agent its worktree; the agent edits there and runs `wtc task finish` in its shell;
#   4. drain the merge queue and show the run.
#
# Every write passes an idempotency key derived from the run id, `<run>-<op>-<task>`, so the whole
# script can be re-run after a crash or a timeout with the same RUN: calls that already happened
# return their stored result and do nothing, and only the missing work is done. (The keys here are
# spelled like the ones wtc derives itself when --key is omitted, which live apart under `auto:`, so a
# later call without --key, such as a finish again after a conflict, never meets one of these.)
#
# Exit code: 0 when every task merged, 1 when some need attention (conflicts, rejected boundaries).
set -euo pipefail

REPO=${1:?usage: lead-agent-workflow.sh REPO [RUN]}
RUN=${2:-lead-$(date -u +%Y%m%d-%H%M%S)}
WTC=${WTC:-wtc}
STATE=$(mktemp -d "${TMPDIR:-/tmp}/wtc-lead-XXXXXX")
trap 'rm -rf "$STATE"' EXIT
cd "$REPO"

# The plan: task | globs it owns (space separated) | file the (fake) agent edits.
PLAN=$(cat <<'PLAN'
api-health|packages/api/**|packages/api/index.js
web-title|packages/web/**|packages/web/index.js
docs-guide|docs/**|docs/guide.md
PLAN
)

json_field() {  # json_field FILE KEY: one top-level field of a --json result
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' "$1" "$2"
}

task_state() {  # the recorded state of a task ("" when it does not exist yet)
    "$WTC" status --run "$RUN" --json | python3 -c '
import json, sys
tasks = {t["task"]: t["state"] for t in json.load(sys.stdin).get("tasks", [])}
print(tasks.get(sys.argv[1], ""))' "$1"
}

fake_agent() {  # fake_agent TASK FILE: stands for a coding agent working in its worktree
    printf '\n// %s: done by the agent of task %s\n' "$(date -u +%FT%TZ)" "$1" >> "$2"
}

"$WTC" run start --run "$RUN" --key "$RUN-run-start" --json > "$STATE/run.json"
echo "run $RUN pinned at $(json_field "$STATE/run.json" base)"

pids=()
while IFS='|' read -r task own file; do
    [ -n "$task" ] || continue
    case "$(task_state "$task")" in
        merged|finished|empty|abandoned) echo "task $task: already done, skipped"; continue ;;
    esac
    own_flags=()
    for glob in $own; do own_flags+=(--own "$glob"); done
    "$WTC" task start "$task" --run "$RUN" "${own_flags[@]}" --key "$RUN-start-$task" --json > "$STATE/$task.start.json"
    worktree=$(json_field "$STATE/$task.start.json" worktree)
    # Each agent runs in its own shell, in its own worktree, in parallel with the others.
    (
        cd "$worktree"
        fake_agent "$task" "$file"
        "$WTC" task finish "$task" --run "$RUN" -m "$task" --no-merge --key "$RUN-finish-$task" --json \
            > "$STATE/$task.finish.json" || true   # the state in the result says what happened
        echo "task $task: $(json_field "$STATE/$task.finish.json" state)"
    ) &
    pids+=($!)
done <<< "$PLAN"
for pid in "${pids[@]}"; do wait "$pid"; done

# Merge every finished task into wtc/$RUN/integration (dependency order; safe to repeat).
"$WTC" merge --run "$RUN" --key "$RUN-merge-all" --json > "$STATE/merge.json" || true
"$WTC" status --run "$RUN"

left=$("$WTC" status --run "$RUN" --json | python3 -c '
import json, sys
print(sum(1 for t in json.load(sys.stdin)["tasks"] if t["state"] != "merged"))')
[ "$left" = 0 ]
