"""The store contract suite runs every test against both stores: `store` is a fresh SQLite file or a
fresh PostgreSQL database on the session's real server (tests/pg_server.py)."""

from __future__ import annotations

import pytest

from tests.store.store_helpers import open_address


@pytest.fixture(params=["sqlite", "postgresql"])
def store_address(request, tmp_path) -> str:
    """The address of a fresh store of each kind (what WTC_STORE would hold)."""
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'state.sqlite3'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(store_address):
    opened = open_address(store_address)
    yield opened
    opened.close()
