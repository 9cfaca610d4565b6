"""Range, any_of and not_equal_to on PostgresTextSearch (a real server) against the oracle."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.connectors._filter_cases import DOCS, WORD, check_pages, expected_ids, filters
from textsearch import PostgresTextSearch, TextSearchFilter, UnsupportedFilterError


def _stored(meta: dict[str, Any]) -> dict[str, Any]:
    # PostgreSQL text and jsonb cannot hold NUL: the connector drops it when writing.
    return {k: v.replace("\x00", "") if isinstance(v, str) else v for k, v in meta.items()}


@pytest.fixture(scope="module")
def table_name() -> str:
    import uuid

    return f"ts_filters_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def store(pg_dsn: str, table_name: str) -> Any:
    with PostgresTextSearch(pg_dsn, table=table_name) as search:
        with psycopg.connect(pg_dsn) as conn:
            exists = conn.execute("SELECT to_regclass(%s)", (table_name,)).fetchone()[0]
        if exists is None:
            search.create_schema_sync()
            search.add_documents_sync(DOCS)
        yield search


CASES = filters()


@pytest.mark.parametrize(("name", "search_filter"), CASES, ids=[c[0] for c in CASES])
def test_every_clause_matches_the_oracle_on_every_page(
    store: PostgresTextSearch, name: str, search_filter: TextSearchFilter
) -> None:
    expected = expected_ids(search_filter, normalize=_stored)

    def run(top: int, skip: int) -> tuple[list[str], int | None]:
        found = store.get_search_results_sync(
            WORD, top=top, skip=skip, filter=search_filter, include_total_count=True
        )
        return [d.id for d in found], found.total_count

    check_pages(run, expected, tops=(50, 9))


@pytest.mark.anyio
async def test_async_path_agrees(store: PostgresTextSearch) -> None:
    for _, search_filter in CASES[::5]:
        found = await store.get_search_results(
            WORD, top=50, filter=search_filter, include_total_count=True
        )
        expected = expected_ids(search_filter, normalize=_stored)
        assert found.total_count == len(expected)
        assert {d.id for d in found} <= expected and len(found) == min(50, len(expected))


@pytest.mark.parametrize(
    "value",
    ["nul\x00byte", "a' OR '1'='1", "\\", '"}, "s": "x', "%", "$1", "%(f0)s"],
)
def test_hostile_values_stay_values(store: PostgresTextSearch, pg_dsn: str, value: str) -> None:
    # A NUL is dropped from a value as from every value written: compared as stored.
    stored = value.replace("\x00", "")
    for search_filter, oracle in (
        (
            TextSearchFilter().any_of("s", [value, "it's"]),
            TextSearchFilter().any_of("s", [stored, "it's"]),
        ),
        (TextSearchFilter().not_equal_to("s", value), TextSearchFilter().not_equal_to("s", stored)),
    ):
        found = store.get_search_results_sync(
            WORD, top=50, filter=search_filter, include_total_count=True
        )
        expected = expected_ids(oracle, normalize=_stored)
        assert found.total_count == len(expected)
        assert {d.id for d in found} <= expected
    with psycopg.connect(pg_dsn) as conn:
        count = conn.execute(f'SELECT count(*) FROM "{store.table}"').fetchone()[0]
    assert count >= len(DOCS)


@pytest.mark.parametrize(
    "search_filter",
    [
        TextSearchFilter().greater_than("site", 1),
        TextSearchFilter().less_than("id", "2024-01-01"),
        TextSearchFilter().greater_than("bad key", 1),
        TextSearchFilter().any_of("a'); DROP TABLE x; --", [1]),
    ],
)
def test_unsupported_fields_are_refused_before_any_query(
    store: PostgresTextSearch, search_filter: TextSearchFilter
) -> None:
    with pytest.raises(UnsupportedFilterError):
        store.search_sync(WORD, filter=search_filter)
    with pytest.raises(UnsupportedFilterError):
        store.check_filter(search_filter)


def test_a_statement_per_shape_never_per_value(store: PostgresTextSearch) -> None:
    from textsearch.connectors.postgres._sql import _shape

    a = TextSearchFilter().greater_than("n", 1).any_of("s", ["x", "y"])
    b = TextSearchFilter().greater_than("n", 99).any_of("s", ["it's", "z"])
    c = TextSearchFilter().greater_than("n", "2024-01-01").any_of("s", ["x", "y"])
    assert _shape(a) == _shape(b) != _shape(c)
