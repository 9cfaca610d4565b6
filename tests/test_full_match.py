"""Name validators match the whole name: ``$`` alone also matches before a final newline.

Each case below was accepted while the checks used ``re.match(r"^...$")`` (issue #9).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from textsearch import (
    BingTextSearch,
    ConfigurationError,
    InvalidRequestError,
    LocalTextSearch,
    TextSearchFilter,
)
from textsearch.connectors.azure._odata import FIELD_NAME_PATTERN
from textsearch.plugins import SearchParameter, create_search_function


def _tool(name: str) -> Any:
    return create_search_function(LocalTextSearch(), name=name)


def _document(key: str) -> Any:
    return LocalTextSearch().add_documents([{"id": "1", "text": "t", "metadata": {key: "v"}}])


CASES: list[tuple[str, Callable[[str], Any], str]] = [
    ("tool name", _tool, "search"),
    ("filter field", lambda n: TextSearchFilter().equal_to(n, "x"), "site"),
    ("parameter name", lambda n: SearchParameter(n, "d"), "query"),
    ("parameter filter_field", lambda n: SearchParameter("q", "d", filter_field=n), "site"),
    ("auth header", lambda n: BingTextSearch("k" * 16, auth_header=n), "X-Key"),
    ("metadata key", _document, "author"),
]


@pytest.mark.parametrize(("what", "check", "good"), CASES, ids=[c[0] for c in CASES])
def test_a_trailing_newline_is_rejected(what: str, check: Callable[[str], Any], good: str) -> None:
    check(good)  # the plain name is fine
    with pytest.raises((ConfigurationError, InvalidRequestError, ValueError)):
        check(good + "\n")


def test_odata_field_pattern_is_used_as_a_full_match() -> None:
    from textsearch.connectors.azure._odata import check_field_name

    assert FIELD_NAME_PATTERN.fullmatch("title")
    with pytest.raises(InvalidRequestError):
        check_field_name("title\n")
