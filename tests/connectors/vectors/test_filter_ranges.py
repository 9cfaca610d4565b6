"""Range, any_of and not_equal_to on Chroma, Qdrant and Milvus (in-process) against the oracle.

Also #33 item 9: on Milvus ``equal_to(k, True)`` must not admit ``1`` (nor ``False`` ``0``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.connectors._filter_cases import DOCS, WORD, check_pages, expected_ids, filters
from tests.connectors.vectors._support import (
    chroma_factory,
    milvus_factory,
    qdrant_factory,
    unique_name,
)
from textsearch import TextSearchFilter, UnsupportedFilterError
from textsearch.embeddings import FunctionEmbedder

_NUMBER = re.compile(r"gamma(\d+)")


def _vectors(texts: list[str]) -> list[list[float]]:
    # Every document at its own angle from the query (no ties): paging by top + skip is then
    # one ranking, whatever the page size.
    out = []
    for text in texts:
        found = _NUMBER.search(text)
        out.append([1.0, 0.001 + int(found.group(1)) / 50] if found else [1.0, 0.0])
    return out


def _embedder() -> FunctionEmbedder:
    return FunctionEmbedder(_vectors, model="angles", dimensions=2)


FACTORIES: dict[str, Callable[[Path], Any]] = {
    "chroma": chroma_factory,
    "qdrant": qdrant_factory,
    "milvus": milvus_factory,
}

# Qdrant compares ranges as float64: 2**63 - 1 as a bound is 2**63 (documented).
_FLOAT64_BOUNDS = {"gte-int-max"}

CASES = filters(none_values=False)


def _stored(meta: dict[str, Any]) -> dict[str, Any]:
    # A None value is left out when written (a vector store has no null test that agrees).
    return {k: v for k, v in meta.items() if v is not None}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return {}


@pytest.fixture(params=sorted(FACTORIES))
def store(request: pytest.FixtureRequest, stores: dict[str, Any], tmp_path: Path) -> Any:
    kind = request.param
    if kind not in stores:
        search = FACTORIES[kind](tmp_path)(unique_name(), embedder=_embedder())
        assert search.add_documents_sync(DOCS) == len(DOCS)
        stores[kind] = search
    return stores[kind]


@pytest.mark.parametrize(("name", "search_filter"), CASES, ids=[c[0] for c in CASES])
def test_every_clause_matches_the_oracle_on_every_page(
    store: Any, name: str, search_filter: TextSearchFilter
) -> None:
    if name in _FLOAT64_BOUNDS and type(store).__name__ == "QdrantTextSearch":
        pytest.skip("Qdrant rounds a range bound to float64 (documented)")
    expected = expected_ids(search_filter, normalize=_stored)

    def run(top: int, skip: int) -> tuple[list[str], int | None]:
        found = store.get_search_results_sync(
            WORD, top=top, skip=skip, filter=search_filter, include_total_count=True
        )
        return [d.id for d in found], found.total_count

    check_pages(run, expected, tops=(50, 16))


def test_results_never_show_the_companion_fields(store: Any) -> None:
    found = store.get_search_results_sync(
        WORD, top=50, filter=TextSearchFilter().greater_than_or_equal("d", "2024-01-01")
    )
    assert found
    for item in found:
        assert not any("~" in key for key in item.metadata), item.metadata
        original = next(d for d in DOCS if d["id"] == item.id)["metadata"]
        assert item.metadata["d"] == original["d"]


@pytest.mark.parametrize(
    ("value", "other"), [(True, 1), (False, 0), (1, True), (0, False), (1.0, True)]
)
def test_a_boolean_is_never_a_number(make_boolean_store: Any, value: Any, other: Any) -> None:
    search = make_boolean_store
    found = search.get_search_results_sync(
        "flag", top=10, filter=TextSearchFilter().equal_to("flag", value)
    )
    wanted = "bool" if isinstance(value, bool) else "number"
    assert {d.id for d in found} == {f"{wanted}-{int(value)}"}
    # a preset on True, with a model's clause AND-ed: never widened to 1
    widened = search.get_search_results_sync(
        "flag",
        top=10,
        filter=TextSearchFilter().equal_to("flag", value).any_of("flag", [value, other]),
    )
    assert {d.id for d in widened} == {f"{wanted}-{int(value)}"}
    ranged = search.get_search_results_sync(
        "flag", top=10, filter=TextSearchFilter().greater_than_or_equal("flag", 0)
    )
    assert {d.id for d in ranged} == {"number-0", "number-1"}


@pytest.fixture(params=sorted(FACTORIES))
def make_boolean_store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    search = FACTORIES[request.param](tmp_path)(unique_name(), embedder=_embedder())
    search.add_documents_sync(
        [
            {"id": "bool-1", "title": "t", "text": "flag one", "metadata": {"flag": True}},
            {"id": "bool-0", "title": "t", "text": "flag zero", "metadata": {"flag": False}},
            {"id": "number-1", "title": "t", "text": "flag one", "metadata": {"flag": 1}},
            {"id": "number-0", "title": "t", "text": "flag zero", "metadata": {"flag": 0}},
        ]
    )
    return search


@pytest.mark.parametrize(
    "search_filter",
    [
        TextSearchFilter().greater_than("site", 1),
        TextSearchFilter().less_than("id", "2024-01-01"),
        TextSearchFilter().greater_than("bad key", 1),
        TextSearchFilter().not_equal_to("s", None),
        TextSearchFilter().any_of("id", [1, 2]),
        TextSearchFilter().any_of("a'); drop", ["x"]),
    ],
)
def test_unsupported_clauses_are_refused_before_any_search(
    store: Any, search_filter: TextSearchFilter
) -> None:
    with pytest.raises(UnsupportedFilterError):
        store.search_sync(WORD, filter=search_filter)


@pytest.mark.parametrize(
    "value",
    ["nul\x00byte", 'a" or pk != "', "\\", '"}, "s": "x', "$and", "a' OR '1'='1", "\n"],
)
def test_hostile_values_stay_values(store: Any, value: str) -> None:
    for search_filter in (
        TextSearchFilter().any_of("s", [value, "it's"]),
        TextSearchFilter().not_equal_to("s", value),
    ):
        found = store.get_search_results_sync(
            WORD, top=50, filter=search_filter, include_total_count=True
        )
        expected = expected_ids(search_filter, normalize=_stored)
        assert found.total_count == len(expected)
        assert {d.id for d in found} <= expected
