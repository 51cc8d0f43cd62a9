"""Opening a store from the address a test (or a subprocess it starts) was given."""

from __future__ import annotations

from worktree_coord.store import SQLiteStore


def open_address(address: str):
    """`sqlite:/path` or a postgresql:// address, opened (and migrated) like wtc opens it."""
    if address.startswith("sqlite:"):
        return SQLiteStore(address[len("sqlite:"):])
    from worktree_coord.store.postgres import PostgresStore

    return PostgresStore(address)
