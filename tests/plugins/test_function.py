"""Invocation: arguments, fresh options, preset filters, outputs and error messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.plugins._support import ARTICLES, DOCS, ThirdPartySearch
from textsearch import (
    AuthenticationError,
    BadRequestError,
    InvalidRequestError,
    LocalTextSearch,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    TextSearchFilter,
    UnsupportedFilterError,
)
from textsearch.grounding import format_results
from textsearch.plugins import SearchParameter, create_search_function
from textsearch.testing import StaticTextSearch

SITE_PARAMS = [
    SearchParameter("query", "Query."),
    SearchParameter("top", "How many.", type=int),
    SearchParameter("skip", "Skip.", type=int),
    SearchParameter("lang", "Language.", filter_field="lang", choices=["en", "fr"]),
]


def _preset() -> TextSearchFilter:
    return TextSearchFilter().equal_to("site", "kb.example")


# -- peer failure 1: the preset filter is dropped when validation fails ---------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "backoff", "top": 500},
        {"query": "backoff", "top": 0},
        {"query": "backoff", "top": -7},
        {"query": "backoff", "top": "50"},
        {"query": "backoff", "top": 12.0},
        '{"query": "backoff", "top": 99}',
    ],
)
def test_preset_filter_survives_invalid_top(arguments: Any) -> None:
    ts = StaticTextSearch(DOCS, match="any")
    fn = create_search_function(ts, filter=_preset(), max_top=8)
    text = fn.invoke_sync(arguments)
    assert len(ts.calls) == 1
    options = ts.calls[0].options
    assert options.filter == _preset()
    assert 1 <= options.top <= 8  # clamped into the advertised bounds
    assert "blog.example" not in text and "Backoff on the blog" not in text


@pytest.mark.parametrize(
    "extra",
    [
        {"filter": None},
        {"filter": {"clauses": []}},
        {"site": "blog.example"},
        {"options": {"top": 50, "filter": None}},
        {"include_total_count": True, "top_k": 9, "": 1},
    ],
)
def test_unexpected_extra_arguments_are_refused_by_name(extra: dict[str, Any]) -> None:
    # An argument the schema does not have never reaches the search (so it cannot touch
    # the preset filter), and the model is told which names were wrong.
    ts = StaticTextSearch(DOCS, match="any")
    fn = create_search_function(ts, kind="text_search_results", filter=_preset())
    text = fn.invoke_sync({"query": "backoff", **extra})
    assert ts.calls == []
    assert text.startswith("Invalid arguments for get_text_search_results: unknown argument")
    for name in extra:
        assert repr(name) in text
    assert "the parameters are query, top, skip" in text
    with pytest.raises(InvalidRequestError, match="unknown argument"):
        fn.invoke_sync({"query": "backoff", **extra}, raise_errors=True)


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "backoff", "top": "many"},
        {"query": "backoff", "top": True},
        {"query": "backoff", "top": 2.5},
        {"query": "backoff", "top": [3]},
        {"query": "backoff", "skip": "first"},
        {"query": "backoff", "lang": "de"},
        {"query": "backoff", "lang": 5},
        {"query": 42},
        {"query": ["backoff"]},
        {"query": "   "},
        {"query": None},
        {},
        "not json",
        "[1, 2]",
        42,
    ],
)
def test_preset_filter_survives_wrong_types(arguments: Any) -> None:
    ts = StaticTextSearch(DOCS, match="any")
    fn = create_search_function(ts, parameters=SITE_PARAMS, filter=_preset())
    text = fn.invoke_sync(arguments)
    # nothing is searched without the preset filter: the model gets a message instead
    assert ts.calls == []
    assert text.startswith("Invalid arguments for search: ")
    assert "Traceback" not in text
    # and the next valid call still carries the preset filter
    fn.invoke_sync({"query": "backoff"})
    assert [c.options.filter for c in ts.calls] == [_preset()]


def test_invalid_argument_messages_are_specific() -> None:
    fn = create_search_function(StaticTextSearch(DOCS), parameters=SITE_PARAMS)
    assert "query: is required" in fn.invoke_sync({})
    assert "lang: Input should be 'en' or 'fr'" in fn.invoke_sync({"query": "x", "lang": "de"})
    assert "top: must be a number" in fn.invoke_sync({"query": "x", "top": True})
    assert "not valid JSON" in fn.invoke_sync("{oops")
    assert "must be a JSON object, not list" in fn.invoke_sync("[1]")
    assert "query: must not be empty" in fn.invoke_sync({"query": " \n"})


# -- peer failure 2: the first call's options leak into later calls -------------------------


@pytest.mark.anyio
async def test_every_call_builds_fresh_options() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(ts, parameters=SITE_PARAMS, filter=_preset())
    await fn.invoke({"query": "one", "top": 2, "skip": 1, "lang": "fr"})
    await fn.invoke({"query": "two"})
    await fn.invoke({"query": "three", "lang": "en"})
    fn.invoke_sync({"query": "four", "top": 1})
    first, second, third, fourth = (c.options for c in ts.calls)
    assert (first.top, first.skip, first.filter) == (2, 1, _preset().equal_to("lang", "fr"))
    assert (second.top, second.skip, second.filter) == (5, 0, _preset())
    assert (third.top, third.skip, third.filter) == (5, 0, _preset().equal_to("lang", "en"))
    assert (fourth.top, fourth.skip, fourth.filter) == (1, 0, _preset())
    assert len({id(c.options.filter) for c in ts.calls}) == 4  # never the same filter object


def test_developer_filter_is_snapshotted_and_never_mutated() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    preset = _preset()
    fn = create_search_function(ts, parameters=SITE_PARAMS, filter=preset)
    preset.equal_to("lang", "de")  # changed after creation: must not affect the function
    fn.invoke_sync({"query": "x", "lang": "fr"})
    fn.invoke_sync({"query": "x", "lang": "en"})
    assert len(preset) == 2  # the model's clauses were never added to the developer's object
    assert ts.calls[0].options.filter == _preset().equal_to("lang", "fr")
    assert ts.calls[1].options.filter == _preset().equal_to("lang", "en")
    assert fn.filter == _preset()
    fn.filter.equal_to("x", 1)  # type: ignore[union-attr]  # a copy: harmless
    assert fn.filter == _preset()


# -- peer failure 3: developer-fixed values must not be overridable --------------------------


def test_hidden_fixed_parameters_cannot_be_overridden() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(
        ts, parameters=[SearchParameter("query", "Query.")], filter=_preset(), top=2
    )
    refused = fn.invoke_sync(
        {
            "query": "x",
            "top": 50,
            "skip": 3,
            "filter": {"clauses": []},
            "site": "blog.example",
            "options": {"top": 50},
        }
    )
    assert ts.calls == []
    assert "unknown arguments 'top', 'skip', 'filter', 'site', 'options'" in refused
    fn.invoke_sync({"query": "x"})
    (call,) = ts.calls
    assert (call.options.top, call.options.skip, call.options.filter) == (2, 0, _preset())
    assert call.options.include_total_count is False


def test_model_filter_parameter_only_narrows_the_preset() -> None:
    ts = StaticTextSearch(DOCS, match="any")
    fn = create_search_function(
        ts,
        kind="text_search_results",
        parameters=[
            SearchParameter("query", "Query."),
            SearchParameter("site", "Only this site.", filter_field="site"),
        ],
        filter=TextSearchFilter().equal_to("lang", "en"),
    )
    # the model asks for another site: both clauses apply, the preset is not replaced
    out = json.loads(fn.invoke_sync({"query": "backoff", "site": "blog.example"}))
    assert [r["link"] for r in out["results"]] == ["https://blog.example/backoff"]
    assert ts.calls[-1].options.filter == TextSearchFilter().equal_to("lang", "en").equal_to(
        "site", "blog.example"
    )
    # kb.example also has a French page: the lang=en preset still excludes it
    out = json.loads(fn.invoke_sync({"query": "backoff", "site": "kb.example"}))
    assert [r["link"] for r in out["results"]] == ["https://kb.example/retry"]


def test_filter_parameter_default_is_applied_when_absent() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(
        ts,
        parameters=[
            SearchParameter("query", "Query."),
            SearchParameter("lang", "Language.", filter_field="lang", default="en"),
        ],
    )
    assert fn.parameters_json_schema["properties"]["lang"]["default"] == "en"
    fn.invoke_sync({"query": "x"})
    assert ts.calls[-1].options.filter == TextSearchFilter().equal_to("lang", "en")


# -- outputs ------------------------------------------------------------------------------


def test_search_kind_gives_numbered_text_with_titles_and_links() -> None:
    ts = StaticTextSearch(DOCS, match="any")
    fn = create_search_function(ts)
    text = fn.invoke_sync({"query": "backoff", "top": 2})
    expected = format_results(ts.get_text_search_results_sync("backoff", top=2), query="backoff")
    assert text == expected
    assert text.startswith('Found 2 results for "backoff":\n\n1. Retry guide\n')
    assert "URL: https://kb.example/retry" in text and "Backoff on the blog" in text


def test_search_kind_structured_result_carries_titles_and_links() -> None:
    import asyncio

    import jsonschema

    fn = create_search_function(StaticTextSearch(DOCS, match="any"))
    outcome = asyncio.run(fn._run({"query": "backoff", "top": 2}))
    jsonschema.validate(outcome.structured, fn.output_json_schema)
    assert outcome.structured["results"][0] == {
        "citation": 1,
        "text": "Use exponential backoff when a call fails.",
        "title": "Retry guide",
        "link": "https://kb.example/retry",
    }


def test_search_kind_with_a_string_mapper_maps_the_search_strings() -> None:
    ts = StaticTextSearch(DOCS, match="any")
    fn = create_search_function(ts, string_mapper=lambda s: f"<{s}>")
    text = fn.invoke_sync({"query": "backoff", "top": 1})
    assert "1. <Use exponential backoff when a call fails.>" in text


def test_text_search_results_kind_gives_compact_json_with_citations() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, match="any"), kind="text_search_results")
    text = fn.invoke_sync('{"query": "backoff", "top": 2}')
    payload = json.loads(text)
    assert payload == {
        "query": "backoff",
        "results": [
            {
                "citation": 1,
                "name": "Retry guide",
                "value": "Use exponential backoff when a call fails.",
                "link": "https://kb.example/retry",
            },
            {
                "citation": 2,
                "name": "Backoff on the blog",
                "value": "Backoff stories from the blog.",
                "link": "https://blog.example/backoff",
            },
        ],
    }
    assert text == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def test_search_results_kind_serializes_native_models_with_link() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, match="any"), kind="search_results")
    payload = json.loads(fn.invoke_sync({"query": "exponential backoff"}))
    first = payload["results"][0]
    assert first["citation"] == 1
    assert first["link"] == "https://kb.example/retry"
    assert first["metadata"] == {"lang": "en"}


def test_search_results_with_local_connector_cuts_long_fields(tmp_path: Path) -> None:
    long = {"id": "long", "title": "Long", "text": "backoff " * 2000, "link": "/x/long.md"}
    with LocalTextSearch() as local:
        local.add_documents([long])  # one unsplit document: its text is 16,000 characters
        fn = create_search_function(local, kind="search_results")
        payload = json.loads(fn.invoke_sync({"query": "backoff"}))
    doc = payload["results"][0]
    assert doc["link"].endswith("long.md") and doc["title"] == "Long"
    assert len(doc["text"]) == 2000 and doc["text"].endswith(" [...]")
    assert "score" in doc and "snippet" in doc


def test_string_mapper_shapes_each_result() -> None:
    fn = create_search_function(
        StaticTextSearch(DOCS, match="any"),
        kind="text_search_results",
        string_mapper=lambda r: f"{r.name} <{r.link}>",
    )
    text = fn.invoke_sync({"query": "backoff", "top": 1})
    assert text == 'Found 1 result for "backoff":\n\n1. Retry guide <https://kb.example/retry>'


def test_no_results_suggests_a_broader_query() -> None:
    for kind in ("search", "text_search_results", "search_results"):
        fn = create_search_function(StaticTextSearch(DOCS), kind=kind)
        text = fn.invoke_sync({"query": "quantum gravity"})
        assert "No results found for query: quantum gravity" in text
        assert "broader query" in text
        if kind != "search":
            assert json.loads(text)["results"] == []
    paged = create_search_function(StaticTextSearch(DOCS, match="any"))
    assert "No more results" in paged.invoke_sync({"query": "backoff", "skip": 10})


# -- third-party connector (protocol only) ---------------------------------------------------


@pytest.mark.anyio
async def test_third_party_protocol_connector_all_kinds() -> None:
    ts = ThirdPartySearch(ARTICLES)
    params = [
        SearchParameter("query", "Query."),
        SearchParameter("lang", "Language.", filter_field="lang"),
    ]
    preset = TextSearchFilter().equal_to("lang", "en")
    search = create_search_function(ts, parameters=params, filter=preset)
    assert (await search.invoke({"query": "backoff"})).startswith('Found 1 result for "backoff"')
    texts = create_search_function(ts, kind="text_search_results", filter=preset)
    out = json.loads(await texts.invoke({"query": "backoff", "top": 15}))
    assert [r["link"] for r in out["results"]] == ["https://a.example/retry"]
    native = create_search_function(ts, kind="search_results", parameters=params, filter=preset)
    out = json.loads(native.invoke_sync({"query": "backoff", "lang": "fr"}))
    assert out["results"] == []  # lang=fr AND lang=en: the preset cannot be widened
    out = json.loads(native.invoke_sync({"query": "backoff"}))
    assert out["results"] == [
        {
            "citation": 1,
            "title": "Retry with backoff",
            "body": "Retry failed calls with exponential backoff.",
            "url": "https://a.example/retry",
            "lang": "en",
            "link": "https://a.example/retry",
        }
    ]
    assert all(
        opts.filter is not None and opts.filter.clauses[0] == preset.clauses[0]
        for _, opts in ts.calls
    )
    assert ts.calls[1][1].top == 10  # clamped to max_top (10 < the connector's 20)
    assert texts.open_world is True
    assert texts.to_mcp_tool()["annotations"]["openWorldHint"] is True


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            RateLimitError("429 body secret-key-123", retry_after=7),
            "rate limited; retry in about 7 seconds",
        ),
        (RateLimitError("429"), "rate limited; retry later"),
        (QuotaExceededError("quota body secret-key-123"), "quota is exhausted"),
        (AuthenticationError("bad key secret-key-123"), "credentials or configuration"),
        (PermissionDeniedError("denied secret-key-123"), "credentials or configuration"),
        (NotFoundError("no index secret-key-123"), "not found"),
        (ProviderRetiredError("gone secret-key-123"), "retired"),
        (BadRequestError("upstream body secret-key-123"), "rejected the request"),
        (
            UnsupportedFilterError("cannot filter on 'x' secret-key-123"),
            "filter the search service does not support",
        ),
        (ServiceUnavailableError("503 body secret-key-123"), "unavailable right now; retry later"),
        (SearchTransportError("conn reset secret-key-123"), "unavailable right now; retry later"),
        (SearchTimeoutError("timeout secret-key-123"), "did not answer in time"),
        (ResponseFormatError("weird body secret-key-123"), "unexpected response"),
        (ProviderError("other secret-key-123"), "answered with an error"),
        (RuntimeError("bug secret-key-123"), "failed unexpectedly"),
    ],
)
def test_errors_become_one_short_sentence(error: Exception, expected: str) -> None:
    fn = create_search_function(StaticTextSearch(DOCS, error=error))
    text = fn.invoke_sync({"query": "backoff"})
    assert expected in text
    assert "secret-key-123" not in text and "Traceback" not in text and "\n" not in text
    assert len(text) < 200


def test_invalid_request_from_connector_is_quoted() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, error=InvalidRequestError("query too long")))
    assert fn.invoke_sync({"query": "x"}) == "Invalid search request: query too long."


@pytest.mark.anyio
async def test_raise_errors_opts_into_exceptions() -> None:
    error = RateLimitError("slow down", retry_after=3)
    fn = create_search_function(StaticTextSearch(DOCS, error=error))
    with pytest.raises(RateLimitError):
        await fn.invoke({"query": "x"}, raise_errors=True)
    with pytest.raises(RateLimitError):
        fn.invoke_sync({"query": "x"}, raise_errors=True)
    with pytest.raises(InvalidRequestError, match="top"):
        await fn.invoke({"query": "x", "top": "lots"}, raise_errors=True)


def test_cancellation_is_not_swallowed() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, error=KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        fn.invoke_sync({"query": "x"})


def test_repr_names_the_function() -> None:
    fn = create_search_function(StaticTextSearch(DOCS), name="kb")
    assert repr(fn) == "SearchFunction(name='kb', kind='search', text_search=StaticTextSearch)"


def test_failures_the_model_causes_are_logged_quietly_and_bugs_loudly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    from textsearch import InvalidRequestError as Invalid
    from textsearch.testing import StaticTextSearch

    caplog.set_level(logging.INFO, logger="textsearch")
    rejected = create_search_function(StaticTextSearch(["x"], error=Invalid("skip not allowed")))
    assert rejected.invoke_sync({"query": "x"}).startswith("Invalid search request")
    assert [(r.levelno, r.exc_info) for r in caplog.records] == [(logging.INFO, None)]
    caplog.clear()
    broken = create_search_function(StaticTextSearch(["x"], error=RuntimeError("bug")))
    broken.invoke_sync({"query": "x"})
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert caplog.records[0].exc_info is not None


def test_arguments_model_is_the_public_model_behind_the_schema() -> None:
    import pydantic

    from textsearch.plugins import create_search_function
    from textsearch.testing import StaticTextSearch

    function = create_search_function(StaticTextSearch(["a"]), max_top=7)
    model = function.arguments_model
    assert model.model_validate({"query": "q", "top": 7}).model_dump(by_alias=True)["top"] == 7
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"query": "q", "top": 8})  # above max_top
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"top": 3})  # query is required
    assert set(model.model_json_schema()["properties"]) == {"query", "top", "skip"}


def test_json_citations_agree_with_citations_for_duplicated_links() -> None:
    from textsearch import TextSearchResult
    from textsearch.grounding import Citations

    results = [
        TextSearchResult(name="A", value="first", link="https://a.example/page"),
        TextSearchResult(name="A copy", value="dup", link="https://a.example/page#top"),
        TextSearchResult(name="B", value="second", link="https://b.example/"),
    ]
    ts = StaticTextSearch(results, match="always")
    fn = create_search_function(ts, kind="text_search_results")
    payload = json.loads(fn.invoke_sync({"query": "x"}))
    cited = Citations(results)
    assert [(r["citation"], r["link"]) for r in payload["results"]] == [
        (s.number, s.link) for s in cited
    ]
    assert [r["citation"] for r in payload["results"]] == [1, 2]
