from __future__ import annotations

import pytest

from textsearch import (
    InvalidRequestError,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch._types import AnyTagEqualTo, EqualTo


def test_text_search_result_is_frozen_and_positional() -> None:
    result = TextSearchResult("Title", "Body", "https://example.com")
    assert (result.name, result.value, result.link) == ("Title", "Body", "https://example.com")
    assert TextSearchResult(name="x") == TextSearchResult("x", None, None)
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error type is an implementation detail
        result.name = "other"  # type: ignore[misc]


def test_search_results_behave_like_a_list() -> None:
    results = SearchResults(["a", "b", "c"], total_count=10, metadata={"k": 1})
    assert len(results) == 3
    assert list(results) == ["a", "b", "c"]
    assert results[1] == "b"
    assert results[-1] == "c"
    assert results[:2] == ["a", "b"]
    assert results.total_count == 10
    assert bool(SearchResults[str]()) is False
    assert SearchResults[str]().total_count is None


def test_search_options_defaults() -> None:
    options = SearchOptions()
    assert (options.top, options.skip, options.include_total_count, options.filter) == (
        5,
        0,
        False,
        None,
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"top": 0},
        {"top": -3},
        {"skip": -1},
        {"top": True},
        {"top": 2.5},
        {"top": "many"},
        {"include_totl_count": True},
        {"filter": "site eq 'x'"},
        {"filter": lambda doc: True},
    ],
)
def test_search_options_reject_bad_values_with_the_documented_error(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidRequestError) as info:
        SearchOptions(**bad)
    assert isinstance(info.value, ValueError)
    assert "invalid search options" in str(info.value)


def test_search_options_name_the_unknown_field() -> None:
    with pytest.raises(InvalidRequestError, match="'tpo'"):
        SearchOptions(tpo=3)


def test_search_options_with_updates_validates() -> None:
    base = SearchOptions(top=3)
    assert base.with_updates(skip=6).skip == 6
    assert base.with_updates() is base
    with pytest.raises(InvalidRequestError):
        base.with_updates(top=0)
    with pytest.raises(InvalidRequestError):
        base.with_updates(colour="red")


def test_filter_is_fluent_anded_data() -> None:
    built = (
        TextSearchFilter()
        .equal_to("site", "devblogs.microsoft.com")
        .any_tag_equal_to("tags", "python")
    )
    assert built.clauses == (
        EqualTo(field_name="site", value="devblogs.microsoft.com"),
        AnyTagEqualTo(field_name="tags", value="python"),
    )
    assert built.field_names == ("site", "tags")
    assert len(built) == 2 and bool(built)
    assert not TextSearchFilter()


def test_filters_built_the_same_way_are_equal() -> None:
    def make() -> TextSearchFilter:
        return TextSearchFilter().equal_to("a", 1).any_tag_equal_to("t", "x")

    assert make() == make()
    assert hash(make()) == hash(make())
    assert make() != TextSearchFilter().any_tag_equal_to("t", "x").equal_to("a", 1)
    assert make() != TextSearchFilter().equal_to("a", "1").any_tag_equal_to("t", "x")


def test_filter_mutation_in_place_also_works() -> None:
    f = TextSearchFilter()
    f.equal_to("year", 2024)
    assert f.clauses == (EqualTo(field_name="year", value=2024),)


@pytest.mark.parametrize("value", ["s", 1, 2.5, True, False, None])
def test_filter_accepts_plain_values(value: object) -> None:
    f = TextSearchFilter().equal_to("f", value)  # type: ignore[arg-type]
    assert f.clauses[0].value == value


@pytest.mark.parametrize("value", [[1], {"a": 1}, object(), lambda: 1, b"bytes"])
def test_filter_rejects_anything_but_plain_values(value: object) -> None:
    with pytest.raises(InvalidRequestError, match="filter values"):
        TextSearchFilter().equal_to("f", value)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "a\nb", None, 3])
def test_filter_rejects_bad_field_names(name: object) -> None:
    with pytest.raises(InvalidRequestError, match="field names"):
        TextSearchFilter().equal_to(name, "x")  # type: ignore[arg-type]


def test_filter_copy_and_and_do_not_share_state() -> None:
    preset = TextSearchFilter().equal_to("site", "a.com")
    copy = preset.copy()
    copy.equal_to("lang", "en")
    assert len(preset) == 1 and len(copy) == 2
    combined = preset.and_(TextSearchFilter().equal_to("lang", "en"))
    assert combined.field_names == ("site", "lang")
    assert len(preset) == 1
    assert preset.and_(None) == preset and preset.and_(None) is not preset


def test_filter_round_trips_through_plain_data() -> None:
    f = TextSearchFilter().equal_to("a", None).any_tag_equal_to("tags", "x")
    assert TextSearchFilter.from_dict(f.to_dict()) == f
    with pytest.raises(InvalidRequestError):
        TextSearchFilter.from_dict({"clauses": [{"kind": "exec", "field_name": "a", "value": 1}]})
    with pytest.raises(InvalidRequestError):
        TextSearchFilter.from_dict({"clauses": "nope"})


def test_filter_repr_shows_the_clauses() -> None:
    f = TextSearchFilter().equal_to("site", "x.com")
    assert repr(f) == "TextSearchFilter().equal_to('site', 'x.com')"


@pytest.mark.parametrize("bad", ["\ud800", "ok\udcffok"])
def test_filter_rejects_text_that_is_not_valid_unicode(bad: str) -> None:
    with pytest.raises(InvalidRequestError, match="Unicode"):
        TextSearchFilter().equal_to("f", bad)
    with pytest.raises(InvalidRequestError):
        TextSearchFilter().any_tag_equal_to(bad, "x")
