"""Range, any_of and not_equal_to on LocalTextSearch (both engines) against the oracle."""

from __future__ import annotations

from typing import Any

import pytest

from tests.connectors._filter_cases import (
    DOCS,
    WORD,
    check_pages,
    expected_ids,
    filters,
    hostile_build_errors,
)
from tests.connectors._local_engines import local_engine  # noqa: F401
from textsearch import (
    InvalidRequestError,
    LocalTextSearch,
    SearchOptions,
    TextSearchFilter,
    UnsupportedFilterError,
)


@pytest.fixture(scope="module")
def indexes() -> dict[str, LocalTextSearch]:
    return {}


@pytest.fixture
def store(local_engine: str, indexes: dict[str, LocalTextSearch]) -> LocalTextSearch:  # noqa: F811
    if local_engine not in indexes:
        search = LocalTextSearch(":memory:", engine=local_engine)
        search.add_documents(DOCS)
        indexes[local_engine] = search
    return indexes[local_engine]


CASES = filters()


@pytest.mark.parametrize(("name", "search_filter"), CASES, ids=[c[0] for c in CASES])
def test_every_clause_matches_the_oracle_on_every_page(
    store: LocalTextSearch, name: str, search_filter: TextSearchFilter
) -> None:
    expected = expected_ids(search_filter)

    def run(top: int, skip: int) -> tuple[list[str], int | None]:
        found = store.get_search_results_sync(
            WORD, top=top, skip=skip, filter=search_filter, include_total_count=True
        )
        return [d.id for d in found], found.total_count

    check_pages(run, expected)


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "search_filter"), CASES[:12], ids=[c[0] for c in CASES[:12]])
async def test_async_path_agrees(
    store: LocalTextSearch, name: str, search_filter: TextSearchFilter
) -> None:
    found = await store.get_search_results(
        WORD, top=50, filter=search_filter, include_total_count=True
    )
    expected = expected_ids(search_filter)
    assert found.total_count == len(expected)
    assert {d.id for d in found} <= expected and len(found) == min(50, len(expected))


def test_the_cases_are_not_trivial() -> None:
    # Each filter keeps some documents and leaves some out (else the check proves little),
    # apart from the ones built to match nothing.
    empty = {"gt-int-max", "empty-range", "date-late", "date-ancient", "tiny", "lt-int-min"}
    for name, search_filter in CASES:
        found = expected_ids(search_filter)
        if name not in empty:
            assert found and len(found) < len(DOCS), name


@pytest.mark.parametrize("build", hostile_build_errors())
def test_invalid_values_are_refused_when_built(build: Any) -> None:
    with pytest.raises(InvalidRequestError):
        build()


@pytest.mark.parametrize(
    "search_filter",
    [
        TextSearchFilter().greater_than("site", 1),
        TextSearchFilter().any_tag_equal_to("link", "x"),
        TextSearchFilter().equal_to("never-indexed", 1),
        TextSearchFilter().less_than("id", "2024-01-01"),
        TextSearchFilter().greater_than("link", 3),
        TextSearchFilter().any_of("unknown", [1]),
        TextSearchFilter().not_equal_to("unknown", 1),
        TextSearchFilter().greater_than("unknown", 1),
    ],
)
def test_unsupported_fields_are_refused_by_every_check(
    store: LocalTextSearch, search_filter: TextSearchFilter
) -> None:
    with pytest.raises(UnsupportedFilterError):
        store.search_sync(WORD, filter=search_filter)
    with pytest.raises(UnsupportedFilterError):
        store.check_filter(search_filter)
    with pytest.raises(UnsupportedFilterError):
        store.check_request(WORD, SearchOptions(filter=search_filter))
    with pytest.raises(UnsupportedFilterError):
        store.prepare_request(WORD, filter=search_filter)


def test_reserved_fields_take_any_of_and_not_equal_to(store: LocalTextSearch) -> None:
    picked = store.get_search_results_sync(
        WORD, top=50, filter=TextSearchFilter().any_of("id", ["doc01", "doc02", "nope'"])
    )
    assert {d.id for d in picked} == {"doc01", "doc02"}
    others = store.get_search_results_sync(
        WORD,
        top=50,
        include_total_count=True,
        filter=TextSearchFilter().not_equal_to("site", "site0.example.com"),
    )
    assert others.total_count == len([d for d in DOCS if "site0." not in d["link"]])
    assert all("site0." not in (d.link or "") for d in others)


def test_a_date_read_back_after_reopening_a_file(local_engine: str, tmp_path: Any) -> None:  # noqa: F811
    path = str(tmp_path / "index.db")
    with LocalTextSearch(path, engine=local_engine) as first:
        first.add_documents(DOCS)
    search_filter = TextSearchFilter().greater_than_or_equal("d", "2024-01-01")
    with LocalTextSearch(path, engine=local_engine) as again:
        found = again.get_search_results_sync(WORD, top=50, filter=search_filter)
    assert {d.id for d in found} == expected_ids(search_filter)


def test_fusion_and_fallback_pre_checks_agree_with_search(store: LocalTextSearch) -> None:
    from textsearch import FallbackTextSearch, FusedTextSearch

    # refused by search() on main too, but accepted by these pre-checks there (#33 item 16)
    bad = TextSearchFilter().any_tag_equal_to("site", "example.com")
    for wrapper in (FusedTextSearch([store, store]), FallbackTextSearch([store, store])):
        with pytest.raises(UnsupportedFilterError):
            wrapper.prepare_request(WORD, filter=bad)
    good = TextSearchFilter().greater_than("n", 1)
    query, options = FusedTextSearch([store, store]).prepare_request(WORD, filter=good)
    assert options.filter == good


def test_random_ranges_on_many_distinct_values(local_engine: str) -> None:  # noqa: F811
    import random

    from tests.connectors._filter_cases import admits

    rng = random.Random(5)
    values: list[Any] = [
        rng.choice([rng.randint(-(10**6), 10**6), rng.uniform(-1e3, 1e3)]) for _ in range(300)
    ]
    values += [2**53 + rng.randint(-3, 3) for _ in range(10)] + [
        rng.randint(-(2**63), 2**63 - 1) for _ in range(10)
    ]
    docs = [
        {
            "id": f"v{i}",
            "title": "t",
            "text": f"{WORD} v{i}",
            "metadata": {
                "x": value,
                "when": f"{2000 + i % 30:04d}-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00Z",
            },
        }
        for i, value in enumerate(values)
    ]
    search = LocalTextSearch(":memory:", engine=local_engine)
    search.add_documents(docs)
    pool = [*values, 0, 2**53, -1.5, 10**6 + 1]
    kinds = ["greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal"]
    for _ in range(60):
        f = TextSearchFilter()
        for _ in range(rng.randint(1, 2)):
            bound = rng.choice(pool)
            getattr(f, rng.choice(kinds))("x", bound)
        if rng.random() < 0.3:
            day = f"{rng.randint(1999, 2031)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            getattr(f, rng.choice(kinds))("when", day)
        found = search.get_search_results_sync(WORD, top=5, filter=f, include_total_count=True)
        expected = {d["id"] for d in docs if admits(d["metadata"], f)}
        assert found.total_count == len(expected), f
        assert {d.id for d in found} <= expected
