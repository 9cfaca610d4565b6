"""Paging helpers shared by the web connectors: page numbers and unpaged counts."""

from __future__ import annotations

import pytest

from textsearch import SearchOptions
from textsearch.connectors.web._base import page_index, unpaged_count
from textsearch.errors import InvalidRequestError


@pytest.mark.parametrize(("top", "skip", "page"), [(10, 0, 0), (10, 10, 1), (5, 45, 9), (1, 7, 7)])
def test_page_index_of_a_whole_page(top: int, skip: int, page: int) -> None:
    assert page_index(SearchOptions(top=top, skip=skip), "Acme") == page


def test_page_index_refuses_a_skip_between_pages_and_names_the_nearest() -> None:
    with pytest.raises(InvalidRequestError) as info:
        page_index(SearchOptions(top=10, skip=25), "Acme", " (offset counts pages)")
    message = str(info.value)
    assert message.startswith("Acme pages by page number (offset counts pages), so skip")
    assert "skip=20 or skip=30" in message and "got skip=25, top=10" in message


def test_unpaged_count_is_top_plus_skip_up_to_the_maximum() -> None:
    assert unpaged_count(SearchOptions(top=5, skip=15), 20, "Acme") == 20
    with pytest.raises(InvalidRequestError, match="at most 20"):
        unpaged_count(SearchOptions(top=5, skip=16), 20, "Acme")
