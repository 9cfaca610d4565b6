"""The contract every vector-store connector keeps (DESIGN §11.3), on the real engines.

Each test runs against each store in-process: Chroma's EphemeralClient, Qdrant's local mode
and Milvus Lite. Expected results are computed from the documents, not copied from a run.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.connectors.vectors._support import (
    DOCS,
    CountingEmbedder,
    bag_of_words,
    chroma_factory,
    milvus_factory,
    qdrant_factory,
    unique_name,
)
from textsearch import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ProviderError,
    ResponseFormatError,
    TextSearchFilter,
    UnsupportedFilterError,
)
from textsearch.connectors.vectors._base import host_suffixes
from textsearch.embeddings import FunctionEmbedder

FACTORIES: dict[str, Callable[[Path], Any]] = {
    "chroma": chroma_factory,
    "qdrant": qdrant_factory,
    "milvus": milvus_factory,
}


@pytest.fixture(params=sorted(FACTORIES))
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    return FACTORIES[request.param](tmp_path)


@pytest.fixture
def filled(make: Any) -> tuple[Any, str, CountingEmbedder]:
    embedder = CountingEmbedder()
    name = unique_name()
    search = make(name, embedder=embedder)
    assert search.add_documents_sync(DOCS) == 3
    return search, name, embedder


def _ids(results: Any) -> list[str]:
    return [r.id for r in results]


def test_search_finds_the_passage_and_maps_every_field(filled: Any) -> None:
    search, _, _ = filled
    results = search.get_search_results_sync("exponential backoff jitter", top=3)
    first = results.results[0]
    assert first.id == "retry"
    assert first.title == "Retry policy"
    assert first.text == "Exponential backoff with jitter between attempts."
    # the passage of a section links to its anchor, as LocalTextSearch links it
    assert first.link == "https://docs.example.com/retry#backoff"
    assert first.metadata["lang"] == "en" and first.metadata["tags"] == ["http", "python"]
    assert first.metadata["stars"] == 5
    assert isinstance(first.score, float) and math.isfinite(first.score)
    text = search.get_text_search_results_sync("exponential backoff jitter", top=1).results[0]
    assert (text.name, text.value, text.link) == (first.title, first.text, first.link)
    assert search.search_sync("boil pasta", top=1).results == [
        "Boil the pasta in salted water for nine minutes."
    ]


def test_async_methods_return_what_the_blocking_ones_return(filled: Any) -> None:
    search, _, _ = filled

    async def run() -> tuple[Any, Any]:
        native = await search.get_search_results("cache stale pages", top=4)
        strings = await search.search("cache stale pages", top=4)
        return native, strings

    native, strings = asyncio.run(run())
    blocking = search.get_search_results_sync("cache stale pages", top=4)
    assert _ids(native) == _ids(blocking)
    assert strings.results == [r.text for r in blocking]
    assert native.results[0].id == "cache"


def test_chunking_stores_a_record_per_passage_and_replacing_drops_old_ones(make: Any) -> None:
    name = unique_name()
    search = make(name, embedder=CountingEmbedder())
    search.add_documents_sync(DOCS[:1])
    assert make.count(name) == 2  # the top of the document and its "Backoff" section
    search.add_documents_sync([{**DOCS[0], "text": "Only one paragraph now."}])
    assert make.count(name) == 1
    found = search.get_search_results_sync("paragraph", top=5)
    assert [(r.id, r.text) for r in found] == [("retry", "Only one paragraph now.")]
    search.add_documents_sync(DOCS[1:2], chunk=False)
    assert make.count(name) == 2


def _expected(predicate: Callable[[dict[str, Any]], bool]) -> set[str]:
    return {d["id"] for d in DOCS if predicate(d)}


FILTERS = [
    (TextSearchFilter().equal_to("id", "cache"), _expected(lambda d: d["id"] == "cache")),
    (
        TextSearchFilter().equal_to("link", "https://example.com/cache"),
        {"cache"},
    ),
    # site: the host and its subdomains
    (TextSearchFilter().equal_to("site", "example.com"), {"retry", "cache"}),
    (TextSearchFilter().equal_to("site", "Docs.Example.com"), {"retry"}),
    (TextSearchFilter().equal_to("site", "example.org"), {"pasta"}),
    (TextSearchFilter().equal_to("site", "ample.com"), set()),
    (TextSearchFilter().equal_to("lang", "en"), {"retry", "cache"}),
    (TextSearchFilter().equal_to("stars", 5), {"retry", "pasta"}),
    (TextSearchFilter().equal_to("score", 1.25), {"pasta"}),
    (TextSearchFilter().equal_to("draft", True), {"cache"}),
    (TextSearchFilter().equal_to("draft", False), {"retry"}),
    (TextSearchFilter().any_tag_equal_to("tags", "http"), {"retry", "cache"}),
    (TextSearchFilter().any_tag_equal_to("tags", "python"), {"retry"}),
    (TextSearchFilter().any_tag_equal_to("tags", "htt"), set()),
    (
        TextSearchFilter().any_tag_equal_to("tags", "http").equal_to("stars", 5),
        {"retry"},
    ),
    (TextSearchFilter().equal_to("lang", "en").equal_to("lang", "it"), set()),
    (TextSearchFilter().equal_to("missing_key", "x"), set()),
]


@pytest.mark.parametrize(("search_filter", "expected"), FILTERS)
def test_filters_select_exactly_the_matching_documents(
    filled: Any, search_filter: TextSearchFilter, expected: set[str]
) -> None:
    search, _, _ = filled
    found = search.get_search_results_sync("retry cache pasta", top=10, filter=search_filter)
    assert set(_ids(found)) == expected
    counted = search.get_search_results_sync(
        "retry", top=1, filter=search_filter, include_total_count=True
    )
    passages = {"retry": 2, "cache": 1, "pasta": 1}
    assert counted.total_count == sum(passages[i] for i in expected)


BAD_FILTERS = [
    (TextSearchFilter().equal_to("lang", None), UnsupportedFilterError),
    (TextSearchFilter().equal_to("stars", math.nan), InvalidRequestError),
    (TextSearchFilter().equal_to("stars", math.inf), InvalidRequestError),
    (TextSearchFilter().equal_to("stars", 2**64), InvalidRequestError),
    (TextSearchFilter().equal_to("id", 3), UnsupportedFilterError),
    (TextSearchFilter().equal_to("site", True), UnsupportedFilterError),
    (TextSearchFilter().any_tag_equal_to("tags", 1), UnsupportedFilterError),
    (TextSearchFilter().any_tag_equal_to("site", "example.com"), UnsupportedFilterError),
    (TextSearchFilter().equal_to('lang"] or 1==1 or x["', "en"), UnsupportedFilterError),
    (TextSearchFilter().equal_to("$and", "en"), UnsupportedFilterError),
    (TextSearchFilter().equal_to("a b", "en"), UnsupportedFilterError),
]


@pytest.mark.parametrize(("search_filter", "error"), BAD_FILTERS)
def test_a_value_the_store_cannot_compare_is_refused_before_any_search(
    filled: Any, search_filter: TextSearchFilter, error: type[Exception]
) -> None:
    search, _, embedder = filled
    before = embedder.calls
    with pytest.raises(error):
        search.search_sync("retry", filter=search_filter)
    with pytest.raises(error):
        asyncio.run(search.search("retry", filter=search_filter))
    assert embedder.calls == before  # refused before the query was even embedded


def test_paging_is_a_window_of_the_ranking(filled: Any) -> None:
    search, _, _ = filled
    everything = _ids(search.get_search_results_sync("retry calls cache pasta", top=4))
    assert len(everything) == 4
    window = _ids(search.get_search_results_sync("retry calls cache pasta", top=2, skip=2))
    assert window == everything[2:4]
    assert search.get_search_results_sync("retry", top=1).total_count is None


def test_a_missing_collection_is_not_found_and_a_search_never_creates_it(make: Any) -> None:
    name = unique_name("missing")
    search = make(name, embedder=CountingEmbedder())
    with pytest.raises(NotFoundError) as caught:
        search.search_sync("anything")
    assert name in str(caught.value) and caught.value.hints
    assert caught.value.__context__ is None and caught.value.__cause__ is None
    with pytest.raises(NotFoundError):
        asyncio.run(search.search("anything"))
    assert not make.exists(name)
    assert search.delete_documents_sync(["a"]) == 1  # nothing to delete is not an error
    assert not make.exists(name)


def test_dimension_mismatch_names_both_numbers(filled: Any, make: Any) -> None:
    _, name, _ = filled
    other = make(name, embedder=CountingEmbedder(dimensions=8, model="small"))
    for call in (
        lambda: other.search_sync("retry"),
        lambda: asyncio.run(other.search("retry")),
        lambda: other.add_documents_sync([{"id": "x", "text": "new"}]),
    ):
        with pytest.raises(ConfigurationError) as caught:
            call()
        assert "32" in str(caught.value) and "8" in str(caught.value)
    assert make.count(name) == 4  # nothing was written


def test_embedder_failures_are_documented_errors_and_write_nothing(make: Any) -> None:
    name = unique_name()

    def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("model crashed")

    search = make(name, embedder=FunctionEmbedder(broken, model="broken", dimensions=32))
    with pytest.raises(ProviderError) as caught:
        search.add_documents_sync(DOCS)
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert not make.exists(name)

    def not_finite(texts: list[str]) -> list[list[float]]:
        return [[math.nan] * 32 for _ in texts]

    search = make(name, embedder=FunctionEmbedder(not_finite, model="nan", dimensions=32))
    with pytest.raises(ResponseFormatError):
        search.add_documents_sync(DOCS)
    with pytest.raises(ResponseFormatError):
        asyncio.run(search.add_documents(DOCS))
    assert not make.exists(name)

    def refuses(texts: list[str]) -> list[list[float]]:
        raise InvalidRequestError("text too long")

    search = make(name, embedder=FunctionEmbedder(refuses, model="r", dimensions=32))
    with pytest.raises(InvalidRequestError, match="text too long") as refused:
        search.search_sync("retry")
    assert type(refused.value) is InvalidRequestError  # a TextSearchError passes unchanged


def test_no_embedder_is_a_configuration_error(make: Any) -> None:
    search = make(unique_name())
    with pytest.raises(ConfigurationError, match="embedder"):
        search.search_sync("retry")
    with pytest.raises(ConfigurationError, match="embedder"):
        search.add_documents_sync(DOCS)


def test_writing_rules(make: Any) -> None:
    name = unique_name()
    search = make(name, embedder=CountingEmbedder())
    with pytest.raises(InvalidRequestError):
        search.add_documents_sync([{"id": "a", "text": "x", "metadata": {"bad key": 1}}])
    with pytest.raises(InvalidRequestError):
        search.add_documents_sync("not a list")
    with pytest.raises(InvalidRequestError):
        search.delete_documents_sync("retry")
    assert not make.exists(name)
    assert search.add_documents_sync([]) == 0


def test_delete_documents_removes_every_passage(filled: Any, make: Any) -> None:
    search, name, _ = filled
    assert search.delete_documents_sync(["retry"]) == 1
    assert make.count(name) == 2
    assert "retry" not in _ids(search.get_search_results_sync("backoff jitter", top=5))

    async def run() -> int:
        return await search.delete_documents(["cache", "nope"])

    assert asyncio.run(run()) == 2
    assert _ids(search.get_search_results_sync("anything", top=5)) == ["pasta"]


def test_async_writes_then_search(make: Any) -> None:
    name = unique_name()
    search = make(name, embedder=CountingEmbedder())

    async def run() -> list[str]:
        assert await search.add_documents(DOCS) == 3
        return _ids(await search.get_search_results("boil pasta water", top=1))

    assert asyncio.run(run()) == ["pasta"]
    assert make.count(name) == 4


def test_close_never_closes_an_injected_client(filled: Any) -> None:
    search, _, _ = filled
    search.close()
    with search:
        pass
    # the connector is still usable after close(): the injected client was left open
    assert _ids(search.get_search_results_sync("boil pasta", top=1)) == ["pasta"]
    assert bag_of_words(["x"])  # the helper is deterministic and importable


def test_async_methods_use_the_in_process_client_off_the_event_loop(filled: Any) -> None:
    search, _, _ = filled
    real_client = search._client
    seen: list[int] = []

    def spy() -> Any:
        seen.append(threading.get_ident())
        return real_client()

    search._client = spy

    async def run() -> int:
        await search.search("retry", top=2)
        await search.add_documents([{"id": "extra", "text": "one more"}])
        await search.delete_documents(["extra"])
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert len(seen) == 3 and loop_thread not in seen


_PIECES = list("\"'\\\n\r\t{}[]()$#%&|=!<>,.;:` ") + [
    "or",
    "and",
    "$and",
    "$or",
    "$ne",
    "||",
    "1==1",
    "en",
    "http",
    "\x00",
    "é",
    "😀",
    "*",
]
_VALUES = st.lists(st.sampled_from(_PIECES), max_size=10).map("".join) | st.text(max_size=10)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=_VALUES | st.integers() | st.floats(allow_nan=False, allow_infinity=False))
def test_hostile_values_select_only_documents_holding_them(filled: Any, value: Any) -> None:
    search, _, _ = filled
    cases = [
        ("lang", TextSearchFilter().equal_to("lang", value)),
        ("tags", TextSearchFilter().any_tag_equal_to("tags", value)),
        ("id", TextSearchFilter().equal_to("id", value)),
        ("site", TextSearchFilter().equal_to("site", value)),
    ]
    for field, flt in cases:
        try:
            found = search.get_search_results_sync("retry cache pasta", top=10, filter=flt)
        except InvalidRequestError:
            continue  # refused before the search (a documented error), never a store's own
        ids = {r.id for r in found}
        if field == "lang":
            expected = {d["id"] for d in DOCS if d["metadata"]["lang"] == value}
        elif field == "tags":
            expected = {d["id"] for d in DOCS if value in d["metadata"]["tags"]}
        elif field == "id":
            expected = {d["id"] for d in DOCS if d["id"] == value}
        else:
            wanted = value.strip().lower().rstrip(".")
            expected = {d["id"] for d in DOCS if wanted in host_suffixes(d["link"])}
        assert ids == expected, (field, value, ids)


def test_a_store_embeds_what_the_local_index_embeds(make: Any) -> None:
    # Moving a collection from LocalTextSearch to a vector store must not change what each
    # passage's vector means: both embed the title, the section name and the text.
    from textsearch import LocalTextSearch

    def recorder() -> tuple[FunctionEmbedder, list[str]]:
        seen: list[str] = []

        def fn(texts: list[str]) -> list[list[float]]:
            seen.extend(texts)
            return bag_of_words(texts, 32)

        return FunctionEmbedder(fn, model="bag-of-words", dimensions=32), seen

    local_embedder, local_seen = recorder()
    store_embedder, store_seen = recorder()
    with LocalTextSearch(embedder=local_embedder) as local:
        local.add_documents(DOCS, chunk=True)  # the stores split by default
    make(unique_name(), embedder=store_embedder).add_documents_sync(DOCS)
    assert sorted(store_seen) == sorted(local_seen)
    # the section's heading is part of what is embedded, not only the passage's words
    assert any(t.startswith("Retry policy\nBackoff\n") for t in store_seen), store_seen
