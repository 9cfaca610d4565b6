"""PostgresTextSearch never lets a password reach an error: not its text, chain or attributes.

psycopg's own errors keep the failed connection (and the DSN's parser quotes the DSN), so the
documented error must not reach them through ``__cause__``, ``__context__`` or any attribute.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.pg_server import PASSWORD, PgServer
from textsearch import AuthenticationError, ConfigurationError, PostgresTextSearch


def reachable(error: BaseException) -> list[Any]:
    """Every exception chained to ``error`` and every value held by their attributes."""
    seen: set[int] = set()
    found: list[Any] = []
    todo: list[Any] = [error]
    while todo:
        item = todo.pop()
        if id(item) in seen or item is None:
            continue
        seen.add(id(item))
        found.append(item)
        if isinstance(item, BaseException):
            todo += [item.__cause__, item.__context__, *item.args]
            todo += list(vars(item).values())
        elif isinstance(item, dict):
            todo += list(item.keys()) + list(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            todo += list(item)
        elif not isinstance(item, str | bytes | int | float | bool) and hasattr(item, "__dict__"):
            todo += list(vars(item).values())
    return found


def assert_hidden(error: BaseException, *secrets: str) -> None:
    for item in reachable(error):
        # A third-party exception (psycopg's) must not be reachable at all.
        if isinstance(item, BaseException):
            assert type(item).__module__.startswith("textsearch"), type(item)
        text = item.decode("utf-8", "replace") if isinstance(item, bytes) else repr(item)
        for secret in secrets:
            assert secret not in text, (secret, type(item))


def test_the_walk_finds_a_password_held_in_a_chained_exception() -> None:
    # The check itself can fail: a password two levels down in a context is found.
    try:
        try:
            raise ValueError(f"dsn password={PASSWORD}")
        except ValueError:
            raise ConfigurationError("bad") from None
    except ConfigurationError as exc:
        with pytest.raises(AssertionError):
            assert_hidden(exc, PASSWORD)


def test_wrong_password_sync_keeps_no_psycopg_error(pg_server: PgServer, pg_dsn: str) -> None:
    wrong = "Wr0ng-pa55-Zq9-sync"
    with PostgresTextSearch(pg_server.password_dsn(wrong)) as search:
        with pytest.raises(AuthenticationError) as info:
            search.search_sync("walrus")
        assert_hidden(info.value, wrong, PASSWORD)
        # The second call (pool not yet made) fails the same way.
        with pytest.raises(AuthenticationError) as again:
            search.get_search_results_sync("walrus")
        assert_hidden(again.value, wrong, PASSWORD)


@pytest.mark.anyio
async def test_wrong_password_async_keeps_no_psycopg_error(
    pg_server: PgServer, pg_dsn: str
) -> None:
    wrong = "Wr0ng-pa55-Zq9-async"
    async with PostgresTextSearch(pg_server.password_dsn(wrong)) as search:
        with pytest.raises(AuthenticationError) as info:
            await search.search("walrus")
        assert_hidden(info.value, wrong, PASSWORD)


def test_malformed_dsn_keeps_no_parser_error() -> None:
    secret = "p4ss-in-bad-dsn-7Hq"
    with pytest.raises(ConfigurationError) as info:
        PostgresTextSearch(f"host=x password={secret} 'unterminated")
    assert_hidden(info.value, secret)
    assert info.value.__context__ is None


def test_a_statement_error_through_the_pool_keeps_no_psycopg_error(
    pg_server: PgServer, pg_dsn: str
) -> None:
    from textsearch import NotFoundError

    with PostgresTextSearch(pg_server.password_dsn(), table="missing_table_x") as search:
        with pytest.raises(NotFoundError) as info:
            search.search_sync("walrus")
        assert_hidden(info.value, PASSWORD)
