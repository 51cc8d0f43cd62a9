"""Shared state: the `Store` protocol, its default SQLite implementation, and the machinery over any
store (idempotency, leases, heartbeats, admission). The PostgreSQL store (`store.postgres`) is not
imported here: `store.address.open_store` loads it only for a postgresql:// address."""

from .base import Claim, ClaimStatus, IdempotencyRecord, Lease, Store, TaskWrite
from .sqlite import SCHEMA_VERSION, SQLiteStore

__all__ = ["Claim", "ClaimStatus", "IdempotencyRecord", "Lease", "SCHEMA_VERSION", "SQLiteStore", "Store", "TaskWrite"]
