"""Issue #33 item 10: deeply nested arguments get the documented refusal, never RecursionError."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from textsearch import InvalidRequestError
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch

DEPTH = 100_000


def _deep_list() -> Any:
    value: Any = []
    for _ in range(DEPTH):
        value = [value]
    return value


CASES = {
    "json-array-in-an-extra-argument": '{"query": "retry", "x": ' + "[" * DEPTH + "]" * DEPTH + "}",
    "json-objects-as-query": '{"query": ' + '{"a": ' * DEPTH + "1" + "}" * DEPTH + "}",
    "json-bytes": ('{"query": "retry", "top": ' + "[" * DEPTH + "]" * DEPTH + "}").encode(),
    "dict-nested-top": {"query": "retry", "top": _deep_list()},
    "dict-nested-query": {"query": _deep_list()},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_deep_arguments_are_refused_with_the_documented_text(case: str) -> None:
    function = create_search_function(StaticTextSearch(["retry"]), name="search")
    arguments = CASES[case]
    text = function.invoke_sync(arguments)
    assert text.startswith("Invalid arguments for search: ")
    assert asyncio.run(function.invoke(arguments)).startswith("Invalid arguments for search: ")
    with pytest.raises(InvalidRequestError, match="nested"):
        function.invoke_sync(arguments, raise_errors=True)
    with pytest.raises(InvalidRequestError, match="nested"):
        asyncio.run(function.invoke(arguments, raise_errors=True))
    plugin = create_search_plugin(StaticTextSearch(["retry"]))
    assert plugin.invoke_sync("search", arguments).startswith("Invalid arguments for search: ")


def test_ordinary_nesting_still_works() -> None:
    function = create_search_function(StaticTextSearch(["retry policy"]), name="search")
    assert "retry policy" in function.invoke_sync('{"query": "retry"}')
