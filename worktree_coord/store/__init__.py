"""Shared state: the `Store` protocol and its default SQLite implementation."""

from .base import Claim, ClaimStatus, IdempotencyRecord, Lease, Store
from .sqlite import SCHEMA_VERSION, SQLiteStore

__all__ = ["Claim", "ClaimStatus", "IdempotencyRecord", "Lease", "SCHEMA_VERSION", "SQLiteStore", "Store"]
