"""list_documents is written once (DocumentListing) for every store that keeps documents."""

from __future__ import annotations

from typing import Any

import pytest

from textsearch import LocalTextSearch
from textsearch._types import TextSearchFilter
from textsearch.connectors.postgres._reads import DocumentReads
from textsearch.connectors.vectors._reads import ReadableStore
from textsearch.documents._listing import DocumentListing
from textsearch.errors import InvalidRequestError


class _Pages(DocumentListing[str]):
    def __init__(self) -> None:
        self.asked: list[tuple[Any, ...]] = []

    def _page_of_documents(
        self, filter: TextSearchFilter | None, after: str | None, limit: int
    ) -> list[str]:
        self.asked.append((filter, after, limit))
        return ["a"]


@pytest.mark.parametrize("limit", [0, 1001, True, 2.0, "5", None])
def test_a_limit_out_of_range_is_refused_before_the_store_reads(limit: Any) -> None:
    pages = _Pages()
    with pytest.raises(InvalidRequestError, match="limit must be a whole number"):
        pages.list_documents(limit=limit)
    assert pages.asked == []


def test_the_arguments_reach_the_store_as_given() -> None:
    pages = _Pages()
    flt = TextSearchFilter().equal_to("site", "a.com")
    assert pages.list_documents(filter=flt, after="x", limit=1000) == ["a"]
    assert pages.list_documents() == ["a"]
    assert pages.asked == [(flt, "x", 1000), (None, None, 100)]


@pytest.mark.parametrize("store", [LocalTextSearch, DocumentReads, ReadableStore])
def test_every_store_lists_with_the_one_method(store: type[Any]) -> None:
    assert store.list_documents is DocumentListing.list_documents


def test_the_local_index_refuses_a_bad_limit() -> None:
    search = LocalTextSearch(":memory:")
    search.add_documents([{"id": "d1", "text": "one"}])
    with pytest.raises(InvalidRequestError):
        search.list_documents(limit=0)
    assert [d.id for d in search.list_documents(limit=1)] == ["d1"]
