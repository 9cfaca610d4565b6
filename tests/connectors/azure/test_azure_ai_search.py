"""AzureAISearchTextSearch through the real azure-search-documents clients (async and sync)
against the loopback emulator; live tests only when the three environment variables are set."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from azure.core.credentials import AccessToken, AzureKeyCredential

from tests.conftest import LIVE_ENV
from tests.emulators.azure_search import AzureSearchEmulator, toy_embedding
from textsearch import (
    AzureAISearchTextSearch,
    AzureSearchDocument,
    BadRequestError,
    BraveTextSearch,
    ConfigurationError,
    InvalidRequestError,
    SearchResults,
    TextSearch,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)
from textsearch.connectors.azure_ai_search import content_block_result, search_in

KEY = "test-admin-key"
ACL = "acl/any(a: search.in(a, 'u1,g-ops', ','))"
ALLOWED_FOR_U1 = {"doc-1", "doc-2", "doc-6", "doc-7"}


class FakeToken:
    def __init__(self, token: str = "test-bearer-token") -> None:
        self.token = token
        self.calls = 0

    def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        self.calls += 1
        return AccessToken(self.token, int(time.time()) + 3600)


class FakeAsyncToken(FakeToken):
    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:  # type: ignore[override]
        self.calls += 1
        return AccessToken(self.token, int(time.time()) + 3600)


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture(params=["async", "sync"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make(emulator: AzureSearchEmulator, **kwargs: Any) -> AzureAISearchTextSearch:
    kwargs.setdefault("endpoint", emulator.endpoint)
    kwargs.setdefault("index_name", "kb-docs")
    if "credential" not in kwargs:
        kwargs.setdefault("api_key", KEY)
    kwargs.setdefault("max_retries", 0)
    return AzureAISearchTextSearch(**kwargs)


def run(
    mode: str,
    search: AzureAISearchTextSearch,
    method: str = "get_text_search_results",
    query: str = "retry",
    **options: Any,
) -> Any:
    """Call one public method in the given mode and close the connector afterwards."""
    if mode == "sync":
        with search:
            return getattr(search, method + "_sync")(query, **options)

    async def go() -> Any:
        async with search:
            return await getattr(search, method)(query, **options)

    return asyncio.run(go())


def ids(results: SearchResults[AzureSearchDocument]) -> list[str]:
    return [d.fields["id"] for d in results]


# -- configuration ----------------------------------------------------------------------------


def test_missing_settings_name_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="endpoint=.*AZURE_SEARCH_ENDPOINT"):
        AzureAISearchTextSearch(index_name="kb", api_key="k")
    with pytest.raises(ConfigurationError, match="index_name=.*AZURE_SEARCH_INDEX"):
        AzureAISearchTextSearch(endpoint="https://svc.search.windows.net", api_key="k")
    with pytest.raises(ConfigurationError, match="api_key=.*AZURE_SEARCH_API_KEY"):
        AzureAISearchTextSearch(endpoint="https://svc.search.windows.net", index_name="kb")
    monkeypatch.setenv("AZURE_SEARCH_ENDPOINT", "https://svc.search.windows.net/")
    monkeypatch.setenv("AZURE_SEARCH_INDEX", "kb-docs")
    monkeypatch.setenv("AZURE_SEARCH_API_KEY", "env-secret-key")
    search = AzureAISearchTextSearch()
    assert search.endpoint == "https://svc.search.windows.net"
    assert search.index_name == "kb-docs"
    assert "env-secret-key" not in repr(search)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"api_key": "k", "credential": AzureKeyCredential("k")},
        {"api_key": "k", "index_name": "Bad Index"},
        {"api_key": "k", "endpoint": "ftp://svc"},
        {"api_key": "k", "endpoint": "https://user:pw@svc.search.windows.net"},
        {"api_key": "  "},
        {"credential": object()},
        {"api_key": "k", "query_type": "vector"},
        {"api_key": "k", "semantic_configuration": "default"},
        {"api_key": "k", "answers": 11},
        {"api_key": "k", "select": ["ok", "not ok"]},
        {"api_key": "k", "embedding_function": toy_embedding},
        {"api_key": "k", "hybrid": False},
        {"api_key": "k", "search_kwargs": {"filter": "true"}},
        {"api_key": "k", "security_filter": "acl eq 'a') or (true"},
        {"api_key": "k", "security_filter": ""},
        {"api_key": "k", "timeout": 0},
        {"api_key": "k", "max_retries": -1},
    ],
)
def test_bad_configuration_is_refused(kwargs: dict[str, Any]) -> None:
    kwargs.setdefault("endpoint", "https://svc.search.windows.net")
    kwargs.setdefault("index_name", "kb-docs")
    with pytest.raises(ConfigurationError):
        AzureAISearchTextSearch(**kwargs)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("deadline", 0),
        ("deadline", -1.0),
        ("deadline", True),
        ("deadline", "60"),
        ("max_retries", -1),
        ("max_retries", 1.5),
        ("max_retries", False),
        ("max_retry_wait", -0.1),
        ("max_retry_wait", "10"),
        ("max_response_bytes", 0),
        ("max_response_bytes", 1024.0),
    ],
)
def test_limits_are_checked_as_every_http_connector_checks_them(name: str, value: object) -> None:
    # One policy: Azure (azure-core underneath) refuses what the web connectors refuse, in
    # the same words, before any client exists.
    with pytest.raises(ConfigurationError) as azure:
        AzureAISearchTextSearch(
            endpoint="https://svc.search.windows.net", index_name="kb", api_key="k",
            **{name: value},
        )  # fmt: skip
    with pytest.raises(ConfigurationError) as web:
        BraveTextSearch(api_key="k", **{name: value})
    assert f"{name}= must be" in str(azure.value)
    assert str(web.value).endswith(str(azure.value))


@pytest.mark.parametrize("value", ["0.8", -0.5, None, True])
def test_a_bad_retry_backoff_factor_is_a_configuration_error(value: object) -> None:
    with pytest.raises(ConfigurationError, match="retry_backoff_factor="):
        AzureAISearchTextSearch(
            endpoint="https://svc.search.windows.net", index_name="kb", api_key="k",
            retry_backoff_factor=value,
        )  # fmt: skip


def test_token_credential_needs_https_except_on_loopback() -> None:
    with pytest.raises(ConfigurationError, match="https"):
        AzureAISearchTextSearch(
            endpoint="http://svc.example", index_name="kb", credential=FakeToken()
        )
    AzureAISearchTextSearch(endpoint="http://127.0.0.1:1", index_name="kb", credential=FakeToken())


def test_repr_never_shows_the_key(emulator: AzureSearchEmulator) -> None:
    search = make(emulator, api_key="super-secret-123")
    assert "super-secret-123" not in repr(search)
    assert "api key" in repr(search)
    assert isinstance(search, TextSearch)


def test_missing_sdk_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "azure.search.documents", None)
    with pytest.raises(ImportError, match=r'pip install "textsearch-sdk\[azure\]"'):
        AzureAISearchTextSearch(
            endpoint="https://s.search.windows.net", index_name="kb", api_key="k"
        )


def test_importing_textsearch_or_the_module_loads_no_azure_sdk() -> None:
    code = (
        "import sys, textsearch, textsearch.connectors.azure_ai_search;"
        "from textsearch import AzureAISearchTextSearch, AzureSearchDocument;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'azure', 'aiohttp'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- mapping ----------------------------------------------------------------------------------


def test_default_mapping(emulator: AzureSearchEmulator, mode: str) -> None:
    results = run(mode, make(emulator), query="semantic ranking reorders", top=10)
    by_name = {r.name: r for r in results}
    assert by_name["Semantic ranking"] == TextSearchResult(
        name="Semantic ranking",
        value="Semantic ranking reorders results and extracts captions and answers.",
        link=None,  # doc-10 has no url
    )
    assert by_name["Search relevance tuning"].link == "https://kb.example/relevance"


def test_explicit_fields_select_and_string_mapper(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(
        emulator,
        name_field="id",
        value_field=["missing", "category"],
        link_field="owner",
        select=["id"],
        string_mapper=lambda d: f"{d['id']}:{d.get('owner')}",
    )
    results = run(mode, search, "get_text_search_results", "jitter")
    assert results.results == [TextSearchResult(name="doc-2", value=None, link="O'Brien")]
    assert emulator.bodies()[-1]["select"] == "id,owner"  # explicit single fields are added
    custom = make(emulator, string_mapper=lambda d: f"{d['id']}:{d.get('owner')}")
    assert run(mode, custom, "search", "jitter").results == ["doc-2:O'Brien"]


def test_custom_text_search_result_mapper(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(
        emulator,
        text_search_result_mapper=lambda d: TextSearchResult(name=d["id"], value=str(d.score)),
    )
    results = run(mode, search, query="jitter")
    assert results[0].name == "doc-2"
    assert float(results[0].value or "0") > 0


def test_content_blocks_mapping(emulator: AzureSearchEmulator, mode: str) -> None:
    search = AzureAISearchTextSearch.for_content_blocks(
        endpoint=emulator.endpoint, index_name="kb-blocks", api_key=KEY, max_retries=0
    )
    results = run(mode, search, query="turbine bearing", top=10)
    by_value = {r.value: r for r in results}
    image = by_value["Diagram of the turbine bearing assembly with inspection points."]
    assert image.link == "https://blobs.example/manual-7/p4-fig1.png"
    assert image.name == "turbine-manual.pdf (page 4)"
    text = by_value["The turbine inspection checklist covers blades and bearings."]
    assert text.link == "turbine-manual.pdf#page=3"
    no_page = by_value["Bearing wear shows as noise at low turbine speed."]
    assert (no_page.name, no_page.link) == ("turbine-manual.pdf", "turbine-manual.pdf")
    assert emulator.bodies()[-1]["select"] == (
        "id,block_type,content,image_url,image_caption,doc_id,filename,page_number"
    )


def test_content_block_result_is_a_plain_function() -> None:
    doc = AzureSearchDocument(
        fields={"block_type": "IMAGE", "image_url": "u", "content": "fallback", "doc_id": "d"}
    )
    assert content_block_result(doc) == TextSearchResult(name="d", value="fallback", link="u")


def test_get_documents_native_model(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(emulator, highlight_fields=["content"], search_fields=["content"])
    results = run(mode, search, "get_documents", "jitter")
    doc = results[0]
    assert isinstance(doc, AzureSearchDocument)
    assert doc["id"] == "doc-2" and doc.fields["owner"] == "O'Brien"
    assert "acl" not in doc.fields and "@search.score" not in doc.fields
    assert doc.score and doc.score > 0
    assert doc.highlights == {
        "content": [
            "Exponential backoff with <em>jitter</em> spreads retry attempts. "
            "Cap the wait between attempts."
        ]
    }
    body = emulator.bodies()[-1]
    assert body["searchFields"] == "content" and body["highlight"] == "content"


# -- semantic and vector ----------------------------------------------------------------------


def test_semantic_captions_and_answers(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(emulator, query_type="semantic", semantic_configuration="default", answers=2)
    docs = run(mode, search, "get_documents", "retry backoff", top=3)
    body = emulator.bodies()[-1]
    assert body["queryType"] == "semantic"
    assert body["semanticConfiguration"] == "default"
    assert body["captions"] == "extractive|highlight-true"
    assert body["answers"] == "extractive|count-2"
    assert [a["key"] for a in docs.metadata["answers"]] == ["doc-1", "doc-2"]
    first = docs[0]
    assert first.reranker_score is not None and first.reranker_score > 0
    assert first.captions[0].text == "Configure retry with exponential backoff."
    assert (
        first.captions[0].highlights
        == "Configure <em>retry</em> with exponential <em>backoff</em>."
    )
    assert first.answer == "Configure retry with exponential backoff."
    texts = run(mode, make(emulator, query_type="semantic", answers=0), query="idempotent")
    assert texts[0].value == "Retry idempotent requests only."  # the caption wins over content
    assert "answers" not in emulator.bodies()[-1]


def test_unknown_semantic_configuration_is_a_bad_request(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    with pytest.raises(BadRequestError, match="Unknown semantic configuration 'nope'"):
        run(mode, make(emulator, query_type="semantic", semantic_configuration="nope"))


def test_vectorizable_text_query_hybrid(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(emulator, vector_fields="contentVector", vector_k=7)
    results = run(mode, search, "get_documents", "hybrid keyword vector", top=3)
    body = emulator.bodies()[-1]
    assert body["search"] == "hybrid keyword vector"
    assert body["vectorQueries"] == [
        {"text": "hybrid keyword vector", "k": 7, "fields": "contentVector", "kind": "text"}
    ]
    assert ids(results)[0] == "doc-9"


def test_embedding_function_sends_a_vector_query(emulator: AzureSearchEmulator, mode: str) -> None:
    calls: list[str] = []

    def embed(text: str) -> list[float]:
        calls.append(text)
        return toy_embedding(text)

    search = make(emulator, vector_fields=["contentVector"], embedding_function=embed, hybrid=False)
    results = run(mode, search, "get_documents", "vector search finds passages by meaning", top=2)
    body = emulator.bodies()[-1]
    assert "search" not in body
    assert body["vectorQueries"][0]["kind"] == "vector"
    assert body["vectorQueries"][0]["vector"] == pytest.approx(
        toy_embedding("vector search finds passages by meaning")
    )
    assert body["vectorQueries"][0]["k"] == 50
    assert calls == ["vector search finds passages by meaning"]
    assert ids(results)[0] == "doc-9"


def test_async_embedding_function(emulator: AzureSearchEmulator) -> None:
    async def embed(text: str) -> list[float]:
        return toy_embedding(text)

    search = make(emulator, vector_fields="contentVector", embedding_function=embed)
    assert ids(run("async", search, "get_documents", "vector meaning", top=1)) == ["doc-9"]
    with pytest.raises(ConfigurationError, match="synchronous"):
        make(emulator, vector_fields="contentVector", embedding_function=embed).search_sync("x")
    assert len(emulator.bodies()) == 1


def test_bad_embedding_is_refused_before_sending(emulator: AzureSearchEmulator) -> None:
    search = make(emulator, vector_fields="contentVector", embedding_function=lambda t: "nope")
    with pytest.raises(InvalidRequestError, match="sequence of floats"):
        search.search_sync("x")
    assert emulator.requests == []


# -- top, skip, count, paging -----------------------------------------------------------------


def _bulk(emulator: AzureSearchEmulator, n: int = 130) -> None:
    emulator.add_index(
        "bulk",
        [
            {"name": "id", "type": "Edm.String", "key": True, "filterable": True},
            {"name": "title", "type": "Edm.String", "searchable": True},
            {"name": "acl", "type": "Collection(Edm.String)", "filterable": True},
        ],
        [
            {"id": f"d{i:03d}", "title": f"item {i}", "acl": ["u1"] if i % 2 == 0 else ["u9"]}
            for i in range(n)
        ],
    )


def test_top_skip_and_total_count_in_one_request(emulator: AzureSearchEmulator, mode: str) -> None:
    results = run(
        mode, make(emulator), "get_documents", "retry", top=2, skip=1, include_total_count=True
    )
    assert results.total_count == 6
    assert len(results) == 2
    assert len(emulator.bodies()) == 1  # get_count() after reading: no repeated first page
    assert emulator.bodies()[0] == {
        "search": "retry",
        "count": True,
        "queryType": "simple",
        "skip": 1,
        "top": 2,
    }
    assert run(mode, make(emulator), "get_documents", "retry").total_count is None


def test_paging_beyond_one_server_page(emulator: AzureSearchEmulator, mode: str) -> None:
    _bulk(emulator)
    emulator.max_page_size = 50
    results = run(
        mode,
        make(emulator, index_name="bulk"),
        "get_documents",
        "*",
        top=120,
        include_total_count=True,
    )
    assert ids(results) == [f"d{i:03d}" for i in range(120)]
    assert results.total_count == 130
    bodies = emulator.bodies()
    assert [(b.get("skip"), b["top"]) for b in bodies] == [(None, 120), (50, 70), (100, 20)]


def test_stops_reading_at_top(emulator: AzureSearchEmulator, mode: str) -> None:
    _bulk(emulator)
    emulator.max_page_size = 50
    results = run(mode, make(emulator, index_name="bulk"), "get_documents", "*", top=50)
    assert len(results) == 50
    assert len(emulator.bodies()) == 1


def test_top_limits(emulator: AzureSearchEmulator, mode: str) -> None:
    _bulk(emulator, 1001)
    assert len(run(mode, make(emulator, index_name="bulk"), "get_documents", "*", top=1000)) == 1000
    with pytest.raises(InvalidRequestError, match="1000"):
        run(mode, make(emulator, index_name="bulk"), "search", "*", top=1001)
    with pytest.raises(InvalidRequestError):
        run(mode, make(emulator), "search", "   ")
    assert len(emulator.bodies()) == 1


# -- filters ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("search_filter", "expression", "expected"),
    [
        (
            TextSearchFilter().equal_to("owner", "O'Brien"),
            "owner eq 'O''Brien'",
            {"doc-2", "doc-6"},
        ),
        (
            TextSearchFilter().equal_to("category", "x') or (1 eq 1"),
            "category eq 'x'') or (1 eq 1'",
            {"doc-5"},
        ),
        (
            TextSearchFilter().any_tag_equal_to("tags", "x') or (1 eq 1"),
            "tags/any(t: t eq 'x'') or (1 eq 1')",
            {"doc-5"},
        ),
        (TextSearchFilter().equal_to("year", 2022), "year eq 2022", {"doc-2"}),
        (TextSearchFilter().equal_to("rating", 4.8), "rating eq 4.8", {"doc-6"}),
        (TextSearchFilter().equal_to("published", False), "published eq false", {"doc-4"}),
        (TextSearchFilter().equal_to("rating", None), "rating eq null", {"doc-4"}),
        (
            TextSearchFilter().any_tag_equal_to("tags", "python").equal_to("category", "dev"),
            "tags/any(t: t eq 'python') and category eq 'dev'",
            {"doc-3"},
        ),
    ],
)
def test_filters_are_translated_and_applied(
    emulator: AzureSearchEmulator,
    mode: str,
    search_filter: TextSearchFilter,
    expression: str,
    expected: set[str],
) -> None:
    results = run(mode, make(emulator), "get_documents", "*", top=50, filter=search_filter)
    assert emulator.bodies()[-1]["filter"] == expression
    assert set(ids(results)) == expected


@pytest.mark.parametrize(
    "field", ["bad field", "owner eq 'x' or true", "x') or (1 eq 1", "and", "tags/any(t: true)"]
)
def test_bad_field_names_fail_before_any_request(
    emulator: AzureSearchEmulator, mode: str, field: str
) -> None:
    with pytest.raises(UnsupportedFilterError):
        run(mode, make(emulator), filter=TextSearchFilter().equal_to(field, "x"))
    assert emulator.requests == []


def test_filterable_fields_are_enforced(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(emulator, filterable_fields=["category", "tags"])
    with pytest.raises(UnsupportedFilterError) as info:
        run(mode, search, filter=TextSearchFilter().equal_to("owner", "bob"))
    assert info.value.supported_fields == ("category", "tags")
    with pytest.raises(InvalidRequestError, match="finite"):
        run(mode, make(emulator), filter=TextSearchFilter().equal_to("rating", float("nan")))
    assert emulator.requests == []


def test_raw_filter_strings_are_not_options(emulator: AzureSearchEmulator, mode: str) -> None:
    with pytest.raises(InvalidRequestError):
        run(mode, make(emulator), filter="true")
    with pytest.raises(InvalidRequestError):
        run(mode, make(emulator), security_filter=None)
    assert emulator.requests == []


def test_unknown_field_is_a_bad_request_with_the_service_message(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    with pytest.raises(BadRequestError) as info:
        run(mode, make(emulator), filter=TextSearchFilter().equal_to("categ", "ops"))
    err = info.value
    assert isinstance(err, InvalidRequestError)
    assert err.status_code == 400 and err.provider == "azure_ai_search"
    assert "Could not find a property named 'categ'" in str(err)


# -- security filter --------------------------------------------------------------------------


def test_static_security_filter_alone(emulator: AzureSearchEmulator, mode: str) -> None:
    results = run(mode, make(emulator, security_filter=ACL), "get_documents", "*", top=50)
    assert emulator.bodies()[-1]["filter"] == f"({ACL})"
    assert set(ids(results)) == ALLOWED_FOR_U1


@pytest.mark.parametrize(
    "query_filter",
    [
        TextSearchFilter().equal_to("owner", "O'Brien"),
        TextSearchFilter().equal_to("owner", "x') or (true"),
        TextSearchFilter().equal_to("category", "x') or (1 eq 1"),
        TextSearchFilter().any_tag_equal_to("acl", "u3"),
        TextSearchFilter().any_tag_equal_to("tags", "') or acl/any(a: a eq 'u3') or ('"),
    ],
)
def test_security_filter_with_any_query_filter(
    emulator: AzureSearchEmulator, mode: str, query_filter: TextSearchFilter
) -> None:
    from textsearch.connectors.azure._odata import build_filter

    results = run(
        mode, make(emulator, security_filter=ACL), "get_documents", "*", top=50, filter=query_filter
    )
    assert emulator.bodies()[-1]["filter"] == f"({ACL}) and ({build_filter(query_filter)})"
    assert set(ids(results)) <= ALLOWED_FOR_U1


def test_security_filter_rides_on_every_page(emulator: AzureSearchEmulator, mode: str) -> None:
    _bulk(emulator)
    emulator.max_page_size = 20
    search = make(emulator, index_name="bulk", security_filter="acl/any(a: a eq 'u1')")
    results = run(
        mode, search, "get_documents", "*", top=60, filter=TextSearchFilter().equal_to("id", "d000")
    )
    assert ids(results) == ["d000"]
    results = run(
        mode,
        make(emulator, index_name="bulk", security_filter="acl/any(a: a eq 'u1')"),
        "get_documents",
        "*",
        top=60,
    )
    assert len(results) == 60 and all(int(i[1:]) % 2 == 0 for i in ids(results))
    bodies = emulator.bodies()[1:]
    assert len(bodies) == 3
    assert all(b["filter"] == "(acl/any(a: a eq 'u1'))" for b in bodies)


def test_callable_security_filter_uses_the_context(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    search = make(emulator, security_filter=lambda user: search_in("acl", user["principals"]))
    with search.security_context({"principals": ["u3"]}):
        results = run(mode, search, "get_documents", "*", top=50)
    assert ids(results) == ["doc-5"]
    assert emulator.bodies()[-1]["filter"] == "(acl/any(a: search.in(a, 'u3', ',')))"


def test_callable_security_filter_fails_closed(emulator: AzureSearchEmulator, mode: str) -> None:
    search = make(emulator, security_filter=lambda user: search_in("acl", user))
    with pytest.raises(ConfigurationError, match="security_context"):
        run(mode, search)
    for bad in ("", "acl/any(a: a eq 'u1')) or (true", None):
        rogue = make(emulator, security_filter=lambda user, bad=bad: bad)
        with rogue.security_context("u1"), pytest.raises(ConfigurationError):
            run(mode, rogue)
    assert emulator.requests == []


def test_security_context_is_per_task(emulator: AzureSearchEmulator) -> None:
    search = make(emulator, security_filter=lambda user: search_in("acl", [user]))

    async def as_user(user: str) -> list[str]:
        with search.security_context(user):
            await asyncio.sleep(0)
            docs = await search.get_documents("*", top=50)
            return sorted(ids(docs))

    async def main() -> tuple[list[str], list[str]]:
        async with search:
            a, b = await asyncio.gather(as_user("u3"), as_user("g-admin"))
            return a, b

    assert asyncio.run(main()) == (["doc-5"], ["doc-4"])


# -- command line -----------------------------------------------------------------------------


def test_cli_provider_azure(
    emulator: AzureSearchEmulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io
    import json

    from textsearch.cli import main

    assert main(["search", "retry", "--provider", "azure"]) == 2
    assert "AZURE_SEARCH_ENDPOINT" in capsys.readouterr().err
    monkeypatch.setenv("AZURE_SEARCH_ENDPOINT", emulator.endpoint)
    monkeypatch.setenv("AZURE_SEARCH_INDEX", "kb-docs")
    monkeypatch.setenv("AZURE_SEARCH_API_KEY", KEY)
    out = io.StringIO()
    assert main(["search", "jitter", "--provider", "azure", "--json"], out=out) == 0
    payload = json.loads(out.getvalue())
    assert payload["total_count"] == 1
    assert payload["results"][0]["link"] == "https://kb.example/backoff"


# -- live -------------------------------------------------------------------------------------

_LIVE = all(
    k in LIVE_ENV for k in ("AZURE_SEARCH_ENDPOINT", "AZURE_SEARCH_INDEX", "AZURE_SEARCH_API_KEY")
)


@pytest.mark.live
@pytest.mark.skipif(
    not _LIVE, reason="set AZURE_SEARCH_ENDPOINT, AZURE_SEARCH_INDEX, AZURE_SEARCH_API_KEY"
)
def test_live_search(mode: str) -> None:
    search = AzureAISearchTextSearch(
        endpoint=LIVE_ENV["AZURE_SEARCH_ENDPOINT"],
        index_name=LIVE_ENV["AZURE_SEARCH_INDEX"],
        api_key=LIVE_ENV["AZURE_SEARCH_API_KEY"],
    )
    results = run(mode, search, "get_documents", "*", top=3, include_total_count=True)
    assert len(results) <= 3
    assert results.total_count is not None and results.total_count >= len(results)


def test_every_lazy_export_imports() -> None:
    import textsearch
    import textsearch.connectors as connectors

    for name in ("AzureAISearchTextSearch", "AzureSearchDocument"):
        assert name in connectors.__all__ and name in textsearch.__all__
        assert getattr(connectors, name) is getattr(textsearch, name)


def test_example_explains_itself_then_runs_against_the_emulator(
    emulator: AzureSearchEmulator,
) -> None:
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    script = str(root / "examples" / "azure_rag.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AZURE_SEARCH_")}
    env["PYTHONPATH"] = str(root)
    quiet = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True)
    assert quiet.returncode == 0 and "AZURE_SEARCH_ENDPOINT" in quiet.stdout
    assert emulator.requests == []
    env.update(
        AZURE_SEARCH_ENDPOINT=emulator.endpoint,
        AZURE_SEARCH_INDEX="kb-docs",
        AZURE_SEARCH_API_KEY=KEY,
    )
    live = subprocess.run(
        [sys.executable, script, "retry", "--user", "u2", "--top", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert live.returncode == 0, live.stderr
    assert "Timeouts and retries in HTTP clients" in live.stdout
    assert emulator.bodies()[-1]["filter"] == "(acl/any(a: search.in(a, 'u2', ',')))"
