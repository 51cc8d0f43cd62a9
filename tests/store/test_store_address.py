"""Which store a command opens, and how its address is shown: WTC_STORE wins over `store` in the
configuration, `sqlite` is the default, and a password is never part of what is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from worktree_coord.config import ConfigError, has_password, parse_config, redact_address
from worktree_coord.errors import StoreError
from worktree_coord.store.address import resolve

DEFAULT = Path("/repo/.git/wtc/state.sqlite3")


def test_the_environment_wins_over_the_configuration_and_sqlite_is_the_default():
    assert resolve(None, None, DEFAULT, {}).kind == "sqlite"
    assert resolve(None, None, DEFAULT, {}).target == str(DEFAULT)
    assert resolve("sqlite", ".wtc.toml", DEFAULT, {}).source == ".wtc.toml"
    configured = resolve("postgresql://wtc@db/wtc", ".wtc.toml", DEFAULT, {})
    assert (configured.kind, configured.source) == ("postgresql", ".wtc.toml")
    chosen = resolve("postgresql://wtc@db/wtc", ".wtc.toml", DEFAULT, {"WTC_STORE": "sqlite:/tmp/s.sqlite3"})
    assert (chosen.kind, chosen.target, chosen.source) == ("sqlite", "/tmp/s.sqlite3", "WTC_STORE")
    assert resolve(None, None, DEFAULT, {"WTC_STORE": "  "}).kind == "sqlite", "an empty variable is unset"
    assert resolve(None, None, DEFAULT, {"WTC_STORE": "postgres://h/db"}).kind == "postgresql"


@pytest.mark.parametrize("address", ["sqlite:relative/path.sqlite3", "mysql://h/db", "postgresql:db",
                                     "postgresql://u:pw@[::1/db", "postgresql://h:port/db", "redis://x"])
def test_an_address_wtc_cannot_open_is_refused_with_the_forms_it_can(address):
    with pytest.raises(StoreError) as refused:
        resolve(None, None, DEFAULT, {"WTC_STORE": address})
    assert refused.value.exit_code == 2 and "WTC_STORE" in refused.value.message
    assert "postgresql://user@host" in refused.value.fix and "pw" not in refused.value.message


@pytest.mark.parametrize("address, shown", [
    ("postgresql://wtc:s3cr%40t@db:5432/wtc", "postgresql://wtc:***@db:5432/wtc"),
    ("postgresql://wtc@db/wtc?password=s3cret&sslmode=require", "postgresql://wtc@db/wtc?password=***&sslmode=require"),
    ("postgresql://:s3cret@db/wtc", "postgresql://:***@db/wtc"),
    ("postgresql://wtc@db/wtc", "postgresql://wtc@db/wtc"),
    ("postgresql:///wtc?host=/tmp&port=5433", "postgresql:///wtc?host=/tmp&port=5433"),
])
def test_redaction_hides_the_password_and_nothing_else(address, shown):
    assert redact_address(address) == shown
    assert has_password(address) is (shown != address)


def test_a_configured_store_with_a_password_is_refused_without_echoing_it():
    with pytest.raises(ConfigError) as refused:
        parse_config({"store": "postgresql://wtc:hunter2@db/wtc"}, ".wtc.toml")
    assert "hunter2" not in str(refused.value) and "PGPASSWORD" in refused.value.message
    assert parse_config({"store": "postgresql://wtc@db/wtc", "lease-ttl": 5}, ".wtc.toml").lease_ttl == 5.0
    with pytest.raises(ConfigError):
        parse_config({"store": 5}, ".wtc.toml")
    assert parse_config({"store": "postgresql://wtc@db/wtc"}, "x").to_json()["store"] == "postgresql://wtc@db/wtc"
