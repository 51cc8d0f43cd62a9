"""Which operation class gives the Coordinator each attribute (generated: scripts/gen_coordinator_names.py).

The facade (coordinator/__init__.py) reads it when a Coordinator attribute is missing and loads that
operation's module only. Data only: importing it costs nothing.
"""

# module (under worktree_coord.coordinator): (class, the attributes it gives, sorted)
OPERATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "runs": ("RunOperations", (
        "_keep_pin_words", "_publish_new_integration", "_uncommitted_rules_note", "_with_network",
        "_with_remote_ahead_note", "_with_uncommitted_note", "start_run", "status",
    )),
    "agents": ("AgentOperations", (
        "_agent_of", "_agent_task", "_commit_or_none", "_continue_from", "_continue_unfinished", "_handed_back",
        "_not_ours", "_rewrite_manifest", "_session_base", "_session_run", "_task_at", "finish_agent_worktree",
        "start_agent",
    )),
    "tasks": ("TaskOperations", (
        "_allow_unchecked_merge", "_blob_size", "_check_branch", "_clear_old_locks", "_clear_stale_locks",
        "_commit_worktree", "_copy_included", "_default_boundary", "_drop_abandoned_intents", "_ended_task",
        "_ensure_worktree", "_finish_task_locked", "_finished_earlier", "_glob_notes", "_has_new_work",
        "_keep_task_facts", "_large_committed_files", "_large_working_files", "_left_behind_notes",
        "_leftover_markers", "_names_unread", "_overlaps", "_own_folders", "_own_message", "_place_folders",
        "_port_block", "_prepare_worktree", "_prepared", "_record_finished", "_recover_branch", "_refuse_markers",
        "_reject", "_relock_tool", "_roll_back_start", "_size_at", "_start_task_locked", "_syntax_notes",
        "_task_cone", "_task_tip", "_update_findings", "_update_task_locked", "_widen_locked", "_write_manifest",
        "abandon_task", "add_plan_rule", "boundary_for", "finish_task", "plan", "remove_plan_rule", "setup_config",
        "setup_log_path", "start_task", "update_task", "widen_task",
    )),
    "merging": ("MergeOperations", (
        "_added_lines_reader", "_advance_verified", "_before_merge", "_boundary_again", "_candidate_ref", "_carry",
        "_check_integration", "_drain", "_drop_finished_worktree", "_findings", "_left_behind_conflict_notes",
        "_merge_batches", "_merge_direct", "_merge_message", "_merge_one", "_merge_task_locked", "_merge_verified",
        "_mergeable", "_merged_recorded", "_merged_write", "_packages", "_prepare_remote_merge", "_raced_out",
        "_read_packages", "_record_conflict", "_record_failed_verification", "_record_merged", "_record_merges",
        "_record_outcome", "_record_rejected_at_merge", "_report_merge", "_semantic", "_task_changes", "_unanswered",
        "_verify", "_verify_command", "drop_kept_verification", "merge",
    )),
    "consolidating": ("ConsolidationOperations", (
        "_declare_locked", "_intent_row", "add_intent", "consolidate", "drop_intent", "intents", "retry_intent",
    )),
    "landing": ("LandingOperations", (
        "_branch_fix", "_consolidated_intents", "_consolidation_rows", "_declared_twice_in_run",
        "_holds_integration", "_intent_rows", "_landing_files", "_left_behind_in_run", "_left_behind_to_approve",
        "_leftovers", "_names_unread_in_run", "_run_changes", "_target_tip", "_unparsed_in_run",
        "_unparsed_to_approve", "check", "land", "landed_before", "report", "sync",
    )),
    "cleanup": ("CleanupOperations", (
        "_collect_folder", "_in_integration", "_prune_merge_index", "_remove_leftover", "_settled_runs",
        "_stale_scratch", "_unmerged_bases", "_unowned_work", "gc",
    )),
    "snapshot": ("SnapshotOperations", (
        "snapshot",
    )),
    "forecast": ("ForecastOperations", (
        "_left_behind", "_refused_at_finish", "_state", "_states", "_working_listing", "check_task", "forecast",
        "forecast_column",
    )),
}
