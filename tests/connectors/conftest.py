"""Fixtures of the connector tests: one real PostgreSQL server for the whole session."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tests.pg_server import PgServer, remove_server, start_server

SKIP_ENV = "TEXTSEARCH_SKIP_POSTGRES"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL server started once per session and stopped by its own pid.

    Skipped only on an explicit opt-out (TEXTSEARCH_SKIP_POSTGRES=1); a server that cannot
    start makes the tests fail, never skip.
    """
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"{SKIP_ENV}=1: the PostgreSQL tests were opted out")
    server = start_server()
    yield server
    remove_server(server)


@pytest.fixture
def pg_dsn(pg_server: PgServer, monkeypatch: pytest.MonkeyPatch) -> str:
    # The developer's own settings must not leak into the tests.
    for name in list(os.environ):
        if name.startswith("PG") or name == "TEXTSEARCH_POSTGRES_DSN":
            monkeypatch.delenv(name, raising=False)
    return pg_server.dsn


@pytest.fixture
def pg_table() -> str:
    """A table name of its own for each test."""
    return f"ts_{uuid.uuid4().hex[:12]}"
