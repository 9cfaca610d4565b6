"""A range as a model-facing parameter, and a preset range the model cannot widen."""

from __future__ import annotations

import json
from typing import Any

import pytest

from textsearch import ConfigurationError, LocalTextSearch, TextSearchFilter
from textsearch.plugins import SearchParameter, create_search_function

DOCS = [
    {
        "id": f"r{year}",
        "title": f"Release {year}",
        "text": f"release notes for {year}",
        "link": f"https://example.com/{year}",
        "metadata": {"year": year, "published": f"{year}-06-01"},
    }
    for year in range(2015, 2026)
]


@pytest.fixture
def index() -> LocalTextSearch:
    search = LocalTextSearch(":memory:")
    search.add_documents(DOCS)
    return search


def _function(index: LocalTextSearch, preset: TextSearchFilter | None = None) -> Any:
    return create_search_function(
        index,
        kind="text_search_results",
        filter=preset,
        top=10,
        parameters=[
            SearchParameter("query", "What to search for.", required=True),
            SearchParameter(
                "since",
                "Only releases published on or after this date (YYYY-MM-DD).",
                filter_field="published",
                operator="greater_than_or_equal",
            ),
            SearchParameter(
                "before_year",
                "Only releases before this year.",
                type=int,
                filter_field="year",
                operator="less_than",
            ),
        ],
    )


def _years(text: str) -> list[int]:
    return sorted(int(r["link"].rsplit("/", 1)[1]) for r in json.loads(text)["results"])


def test_the_model_sends_a_range(index: LocalTextSearch) -> None:
    search = _function(index)
    schema = search.to_openai_tool()["function"]["parameters"]
    assert schema["properties"]["since"]["type"] == "string"
    assert schema["properties"]["before_year"]["type"] == "integer"
    text = search.invoke_sync(
        {"query": "release notes", "since": "2020-01-01", "before_year": 2023}
    )
    assert _years(text) == [2020, 2021, 2022]


def test_a_preset_range_is_never_widened(index: LocalTextSearch) -> None:
    preset = TextSearchFilter().greater_than_or_equal("year", 2021)
    search = _function(index, preset)
    # the model asks for everything since 2000: the preset's 2021 still holds
    wide = search.invoke_sync({"query": "release notes", "since": "2000-01-01"})
    assert _years(wide) == [2021, 2022, 2023, 2024, 2025]
    # and its own bound narrows further
    narrow = search.invoke_sync({"query": "release notes", "before_year": 2023})
    assert _years(narrow) == [2021, 2022]
    # a bound below the preset's leaves nothing, rather than replacing the preset
    none = search.invoke_sync({"query": "release notes", "before_year": 2019})
    assert _years(none) == []


@pytest.mark.parametrize("since", ["last year", "2024-02-30", "2024-01-01'; --", "\x00"])
def test_a_value_that_is_no_date_is_refused_with_a_message(
    index: LocalTextSearch, since: str
) -> None:
    search = _function(index)
    text = search.invoke_sync({"query": "release notes", "since": since})
    assert "since" in text and "ISO-8601" in text
    assert not text.lstrip().startswith("{")  # an explanation, not results


@pytest.mark.parametrize(
    "kwargs",
    [
        {"operator": "between", "filter_field": "year"},
        {"operator": "greater_than"},  # no filter_field
        {"operator": "less_than", "filter_field": "flag", "type": bool},
    ],
)
def test_inconsistent_range_parameters_are_configuration_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        SearchParameter("p", "A parameter.", **kwargs)


def test_a_url_is_never_admitted_by_a_clause_it_cannot_be_checked_against() -> None:
    # the read tools' fetch check: any_of, not_equal_to and ranges are closed, never an error
    from textsearch.plugins._reading import url_admitted

    for preset in (
        TextSearchFilter().any_of("site", ["a.example"]),
        TextSearchFilter().not_equal_to("site", "b.example"),
        TextSearchFilter().greater_than("year", 2020),
    ):
        assert url_admitted("https://a.example/page", preset) is False
    assert url_admitted("https://a.example/page", TextSearchFilter().equal_to("site", "a.example"))
