"""PostgresTextSearch failures on a real server: errors, secrets, pools, restarts, concurrency."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time

import psycopg
import pytest

from tests._secrets import reachable_text
from tests.pg_server import PASSWORD, PgServer
from textsearch import (
    AuthenticationError,
    ConfigurationError,
    NotFoundError,
    PostgresTextSearch,
    SearchTimeoutError,
    SearchTransportError,
)

DOCS = [
    {"id": str(i), "title": f"Doc {i}", "text": f"walrus number{i} ice floe"} for i in range(30)
]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def filled(pg_dsn: str, pg_table: str) -> str:
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS)
    return pg_table


# -- errors and secrets --------------------------------------------------------------------


def test_connection_refused_is_a_transport_error_with_a_hint(pg_dsn: str) -> None:
    search = PostgresTextSearch(
        f"host=127.0.0.1 port={_closed_port()} dbname=x user=u password=hunter2-secret",
        connect_timeout=2,
    )
    started = time.monotonic()
    with pytest.raises(SearchTransportError) as info:
        search.search_sync("walrus")
    assert time.monotonic() - started < 20  # ten times the connect timeout: no retrying on
    assert info.value.hints and "DSN" in str(info.value)
    assert "hunter2-secret" not in str(info.value) + repr(info.value)


@pytest.mark.anyio
async def test_connection_refused_async(pg_dsn: str) -> None:
    async with PostgresTextSearch(f"host=127.0.0.1 port={_closed_port()} dbname=x") as search:
        with pytest.raises(SearchTransportError):
            await search.search("walrus")


def test_wrong_password_is_an_authentication_error_and_never_shows_the_password(
    pg_server: PgServer, pg_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "Wr0ng-pa55-Zq9"
    search = PostgresTextSearch(pg_server.password_dsn(wrong))
    with pytest.raises(AuthenticationError) as info:
        search.search_sync("walrus")
    error = info.value
    assert error.provider == "postgres" and error.hints
    shown = " ".join([str(error), repr(error), repr(search), caplog.text, str(error.__cause__)])
    assert wrong not in shown and PASSWORD not in shown
    # nothing reachable from the error (chain, attributes) holds the password: psycopg's
    # error, whose connection shows the DSN, is neither the cause nor the context
    assert error.__cause__ is None and error.__context__ is None
    assert wrong not in reachable_text(error)


@pytest.mark.anyio
async def test_wrong_password_async_keeps_no_secret_reachable(pg_server: PgServer) -> None:
    wrong = "Wr0ng-async-Zq9"
    async with PostgresTextSearch(pg_server.password_dsn(wrong)) as search:
        with pytest.raises(AuthenticationError) as info:
            await search.search("walrus")
    assert info.value.__context__ is None and wrong not in reachable_text(info.value)


def test_wrong_password_mid_use_keeps_no_secret_reachable(pg_server: PgServer) -> None:
    wrong = "Wr0ng-later-Zq9"
    search = PostgresTextSearch(pg_server.password_dsn(wrong))
    for _ in range(2):  # the first connection and a retry after it
        with pytest.raises(AuthenticationError) as info:
            search.count_documents_sync()
        assert wrong not in reachable_text(info.value)


def test_right_password_works_and_repr_hides_it(
    pg_server: PgServer, pg_dsn: str, pg_table: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with PostgresTextSearch(pg_server.password_dsn(), table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS[:3])
        assert len(search.get_search_results_sync("walrus")) == 3
        assert PASSWORD not in repr(search) and "127.0.0.1" in repr(search)
        with pytest.raises(NotFoundError) as info:
            PostgresTextSearch(pg_server.password_dsn(), table="nope_missing").search_sync("x")
        assert PASSWORD not in str(info.value) + repr(info.value)
    assert PASSWORD not in caplog.text


def test_invalid_dsn_is_reported_without_echoing_it() -> None:
    with pytest.raises(ConfigurationError) as info:
        PostgresTextSearch("host=x password=p4ss-in-bad-dsn 'unterminated")
    assert "p4ss-in-bad-dsn" not in str(info.value)
    assert info.value.__context__ is None
    assert "p4ss-in-bad-dsn" not in reachable_text(info.value)


def test_missing_table_is_not_found_with_a_hint(pg_dsn: str) -> None:
    with PostgresTextSearch(pg_dsn, table="does_not_exist") as search:
        with pytest.raises(NotFoundError) as info:
            search.search_sync("walrus")
        assert "create_schema" in str(info.value)
        with pytest.raises(NotFoundError):
            search.add_documents_sync([{"id": "1", "text": "x"}])


def test_unknown_text_search_config_is_a_configuration_error(pg_dsn: str, filled: str) -> None:
    with PostgresTextSearch(pg_dsn, table=filled, text_search_config="klingon") as search:
        with pytest.raises(ConfigurationError) as info:
            search.search_sync("walrus")
        assert "text_search_config" in str(info.value)


def test_missing_column_in_existing_table_is_not_found(pg_dsn: str, filled: str) -> None:
    search = PostgresTextSearch.from_table(pg_dsn, table=filled, value_column="no_such_column")
    with search, pytest.raises(NotFoundError):
        search.search_sync("walrus")


def test_statement_timeout_is_a_search_timeout(pg_dsn: str, filled: str) -> None:
    slow = f"{filled}_slow"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f'CREATE VIEW "{slow}" AS SELECT id, title, text FROM "{filled}" '
            "WHERE pg_sleep(0.05) IS NOT NULL"
        )
    search = PostgresTextSearch.from_table(
        pg_dsn, table=slow, name_column="title", value_column="text", timeout=0.3
    )
    with search:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError) as info:
            search.search_sync("walrus")
        assert time.monotonic() - started < 3
        assert "timeout" in str(info.value)


# -- pool ----------------------------------------------------------------------------------


def test_pool_exhaustion_is_a_timeout_not_a_hang(pg_dsn: str, filled: str) -> None:
    search = PostgresTextSearch(pg_dsn, table=filled, min_size=0, max_size=1, pool_timeout=0.5)
    with search:
        search.search_sync("walrus")  # opens the pool
        pool = search._sync._get()
        with pool.connection():  # the only connection is taken
            started = time.monotonic()
            with pytest.raises(SearchTimeoutError) as info:
                search.search_sync("walrus")
            assert time.monotonic() - started < 5  # ten times pool_timeout: no hang
            assert "max_size" in str(info.value)
        assert len(search.search_sync("walrus")) == 5  # usable again once it is returned


@pytest.mark.anyio
async def test_async_pool_exhaustion(pg_dsn: str, filled: str) -> None:
    async with PostgresTextSearch(
        pg_dsn, table=filled, min_size=0, max_size=1, pool_timeout=0.5
    ) as search:
        await search.search("walrus")
        pool = await search._async._get()
        async with pool.connection():
            with pytest.raises(SearchTimeoutError):
                await search.search("walrus")
        assert len(await search.search("walrus")) == 5


def test_server_restart_mid_use_recovers(pg_server: PgServer, pg_dsn: str, filled: str) -> None:
    with PostgresTextSearch(pg_dsn, table=filled, min_size=2, max_size=4) as search:
        before = search.get_search_results_sync("walrus")
        pg_server.restart()
        # The pooled connections died with the old server; the call retries on a fresh one.
        after = search.get_search_results_sync("walrus")
        assert [d.id for d in after] == [d.id for d in before]
        assert search.add_documents_sync([{"id": "new", "text": "walrus returns"}]) == 1


@pytest.mark.anyio
async def test_server_restart_mid_use_recovers_async(
    pg_server: PgServer, pg_dsn: str, filled: str
) -> None:
    async with PostgresTextSearch(pg_dsn, table=filled, min_size=2, max_size=4) as search:
        before = await search.get_search_results("walrus")
        pg_server.restart()
        after = await search.get_search_results("walrus")
        assert [d.id for d in after] == [d.id for d in before]


def test_server_down_is_a_transport_error_then_recovers(
    pg_server: PgServer, pg_dsn: str, filled: str
) -> None:
    with PostgresTextSearch(pg_dsn, table=filled, pool_timeout=1, connect_timeout=2) as search:
        search.search_sync("walrus")
        pg_server.stop()
        try:
            with pytest.raises(SearchTransportError):
                search.search_sync("walrus")
        finally:
            pg_server.start()
        assert len(search.search_sync("walrus")) == 5


# -- concurrency ---------------------------------------------------------------------------


def test_many_threads_share_one_instance(pg_dsn: str, filled: str) -> None:
    errors: list[BaseException] = []
    counts: list[int] = []
    with PostgresTextSearch(pg_dsn, table=filled, max_size=4) as search:

        def worker(n: int) -> None:
            try:
                for i in range(10):
                    found = search.get_search_results_sync(f"number{(n * 10 + i) % 30}")
                    counts.append(len(found))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert not errors and counts == [1] * 80


@pytest.mark.anyio
async def test_many_tasks_share_one_instance(pg_dsn: str, filled: str) -> None:
    async with PostgresTextSearch(pg_dsn, table=filled, max_size=4) as search:
        results = await asyncio.gather(
            *(search.get_search_results(f"number{i % 30}") for i in range(60))
        )
        assert [r[0].id for r in results] == [str(i % 30) for i in range(60)]
        writes = await asyncio.gather(
            *(search.add_documents([{"id": f"w{i}", "text": "walrus"}]) for i in range(10))
        )
        assert writes == [1] * 10


@pytest.mark.anyio
async def test_async_search_does_not_block_the_event_loop(pg_dsn: str, filled: str) -> None:
    slow = f"{filled}_slowview"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f'CREATE VIEW "{slow}" AS SELECT id, title, text FROM "{filled}" '
            "WHERE pg_sleep(0.01) IS NOT NULL"
        )
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.01)

    search = PostgresTextSearch.from_table(pg_dsn, table=slow, value_column="text")
    async with search:
        task = asyncio.create_task(ticker())
        await search.search("walrus")  # ~0.3 s of server time
        stop.set()
        await task
    assert ticks >= 10


def test_secrets_do_not_reach_logs_when_the_pool_fails_in_the_background(
    pg_server: PgServer, pg_dsn: str, filled: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    search = PostgresTextSearch(
        pg_server.password_dsn(), table=filled, min_size=2, pool_timeout=0.5
    )
    with search:
        try:
            search.count_documents_sync()
        except Exception as exc:  # the password role may lack rights on this table
            assert PASSWORD not in str(exc)
        pg_server.restart()
        try:
            search.count_documents_sync()
        except Exception as exc:
            assert PASSWORD not in str(exc)
    assert PASSWORD not in caplog.text
