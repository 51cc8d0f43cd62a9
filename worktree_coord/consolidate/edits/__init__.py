"""Formatting-preserving structural edits of manifests, one module per manifest format.

Stage: apply (the fallback when an ecosystem's native editor is missing or did not produce the
intended value). Input: the manifest bytes and one `Intent`. Output: the new manifest bytes.
Invariants: only the intent's key changes; comments, key order, indentation, end of line and the
final newline of everything else are kept; an intent the format cannot express raises `EditError`.
"""

from __future__ import annotations

from worktree_coord.consolidate.edits.common import EditError, edit_manifest

__all__ = ["EditError", "edit_manifest"]
