"""Each built-in connector reads its own environment: ``Class.from_env()``.

The registry names the classes and calls ``from_env()``; a missing variable is a
`ConfigurationError` naming it (never a value), and keywords given win over the environment.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._secrets import reachable_text
from textsearch import ConfigurationError
from textsearch.connectors.web.bing import BingTextSearch
from textsearch.connectors.web.bocha import BochaTextSearch
from textsearch.connectors.web.brave import BraveTextSearch
from textsearch.connectors.web.exa import ExaTextSearch
from textsearch.connectors.web.searxng import SearxngTextSearch
from textsearch.connectors.web.tavily import TavilyTextSearch
from textsearch.embeddings import (
    EmbedderSpec,
    FunctionEmbedder,
    register_embedder,
    unregister_embedder,
)
from textsearch.registry import ProviderSpec, get_provider

KEY = "k-secret-0123456789"

# class, its key variable, {variable: (attribute, value)} of its other settings
WEB: list[tuple[type[Any], str, dict[str, tuple[str, str]]]] = [
    (
        BingTextSearch,
        "BING_SEARCH_API_KEY",
        {
            "BING_SEARCH_ENDPOINT": ("endpoint", "https://gateway.example.com/v7.0/search"),
            "BING_SEARCH_AUTH_HEADER": ("auth_header", "X-Gateway-Key"),
        },
    ),
    (BochaTextSearch, "BOCHA_API_KEY", {"BOCHA_BASE_URL": ("base_url", "https://bocha.example")}),
    (
        BraveTextSearch,
        "BRAVE_SEARCH_API_KEY",
        {"BRAVE_SEARCH_ENDPOINT": ("endpoint", "https://brave.example/res/v1/web/search")},
    ),
    (TavilyTextSearch, "TAVILY_API_KEY", {"TAVILY_BASE_URL": ("base_url", "https://tv.example")}),
    (ExaTextSearch, "EXA_API_KEY", {"EXA_BASE_URL": ("base_url", "https://exa.example")}),
]


def _close(search: Any) -> None:
    close = getattr(search, "close", None)
    if callable(close):
        close()


@pytest.mark.parametrize(
    ("cls", "key_variable", "settings"), WEB, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_web_connector_reads_its_key_and_address(
    monkeypatch: pytest.MonkeyPatch,
    cls: type[Any],
    key_variable: str,
    settings: dict[str, tuple[str, str]],
) -> None:
    for variable, (_, value) in settings.items():
        monkeypatch.setenv(variable, value)
    # No key: the message names the variable; the other settings' values are not in it.
    with pytest.raises(ConfigurationError, match=key_variable) as caught:
        cls.from_env()
    assert all(value not in str(caught.value) for _, value in settings.values())
    monkeypatch.setenv(key_variable, KEY)
    search = cls.from_env()
    try:
        assert type(search) is cls
        for attribute, value in settings.values():
            assert getattr(search, attribute) == value
        assert KEY not in repr(search)
    finally:
        _close(search)
    # A keyword given wins over the environment; a blank variable counts as unset.
    attribute, _ = next(iter(settings.values()))
    override = "https://other.example/v7.0/search" if attribute == "endpoint" else None
    for variable in settings:
        monkeypatch.setenv(variable, "   ")
    search = cls.from_env(api_key="k-given-0123456789")
    try:
        assert getattr(search, attribute) == getattr(cls(api_key="k"), attribute)
    finally:
        _close(search)
    if override is not None:
        search = cls.from_env(endpoint=override)
        try:
            assert search.endpoint == override
        finally:
            _close(search)


def test_a_bad_key_is_refused_without_showing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-s3cr3t\u00e9value")
    with pytest.raises(ConfigurationError) as caught:
        TavilyTextSearch.from_env()
    assert "s3cr3t" not in reachable_text(caught.value)


def test_brave_reads_its_goggles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", KEY)
    monkeypatch.setenv(
        "BRAVE_SEARCH_GOGGLES", " https://goggles.example/a.goggle\n https://goggles.example/b "
    )
    with BraveTextSearch.from_env() as search:
        assert search.goggles == (
            "https://goggles.example/a.goggle",
            "https://goggles.example/b",
        )
    with BraveTextSearch.from_env(goggles=None) as search:
        assert search.goggles == ()
    monkeypatch.setenv("BRAVE_SEARCH_GOGGLES", "http://plain.example/a")
    with pytest.raises(ConfigurationError, match="https"):
        BraveTextSearch.from_env()


def test_searxng_reads_its_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="SEARXNG_URL"):
        SearxngTextSearch.from_env()
    monkeypatch.setenv("SEARXNG_URL", "http://127.0.0.1:8888/")
    with SearxngTextSearch.from_env() as search:
        assert search.base_url == "http://127.0.0.1:8888"
        assert search.auth_header is None  # no key is needed, none is read


def test_the_registry_builds_web_providers_with_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXA_API_KEY", KEY)
    monkeypatch.setenv("EXA_BASE_URL", "https://exa-gateway.example")
    search = get_provider("exa").create()
    try:
        assert isinstance(search, ExaTextSearch)
        assert search.base_url == "https://exa-gateway.example"
    finally:
        search.close()


# -- Azure ------------------------------------------------------------------------------------

AZURE = ("AZURE_SEARCH_ENDPOINT", "AZURE_SEARCH_INDEX", "AZURE_SEARCH_API_KEY")
needs_azure = pytest.mark.skipif(
    importlib.util.find_spec("azure.search.documents") is None, reason="extra [azure]"
)


def test_azure_names_every_missing_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.connectors.azure import AzureAISearchTextSearch

    monkeypatch.setenv("AZURE_SEARCH_API_KEY", KEY)
    with pytest.raises(ConfigurationError) as caught:
        AzureAISearchTextSearch.from_env()
    message = str(caught.value)
    assert "missing: AZURE_SEARCH_ENDPOINT, AZURE_SEARCH_INDEX" in message
    assert KEY not in reachable_text(caught.value)
    # A keyword stands in for its variable.
    with pytest.raises(ConfigurationError, match=r"missing: AZURE_SEARCH_INDEX$"):
        AzureAISearchTextSearch.from_env(endpoint="https://kb.search.windows.net")


@needs_azure
def test_azure_builds_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.connectors.azure import AzureAISearchTextSearch

    for variable, value in zip(
        AZURE, ("https://kb.search.windows.net", "kb-docs", KEY), strict=True
    ):
        monkeypatch.setenv(variable, value)
    search = AzureAISearchTextSearch.from_env()
    try:
        shown = repr(search)
        assert "https://kb.search.windows.net" in shown and "'kb-docs'" in shown
        assert KEY not in shown
    finally:
        search.close()
    search = AzureAISearchTextSearch.from_env(index_name="other-index")
    try:
        assert "'other-index'" in repr(search)
    finally:
        search.close()


@needs_azure
def test_azure_reads_its_vector_fields_and_embedder(
    monkeypatch: pytest.MonkeyPatch, fake_embedder: list[str]
) -> None:
    from textsearch.connectors.azure import AzureAISearchTextSearch

    for variable, value in zip(
        AZURE, ("https://kb.search.windows.net", "kb-docs", KEY), strict=True
    ):
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", "fake-env:from-env")
    # An embedder has nothing to query without vector fields: the message names the variable.
    with pytest.raises(ConfigurationError, match="AZURE_SEARCH_VECTOR_FIELDS"):
        AzureAISearchTextSearch.from_env()
    monkeypatch.setenv("AZURE_SEARCH_VECTOR_FIELDS", "text_vector, title_vector")
    with AzureAISearchTextSearch.from_env() as search:
        assert search.vector_fields == ("text_vector", "title_vector")
        assert search.embedding_function.model == "from-env"
    # An embedder or a spec given here, or vector_fields=, wins over the environment.
    given = _Fake("given")
    with AzureAISearchTextSearch.from_env(embedder=given, vector_fields="v") as search:
        assert search.embedding_function is given and search.vector_fields == ("v",)
    with AzureAISearchTextSearch.from_env(embedder="fake-env:as-argument") as search:
        assert search.embedding_function.model == "as-argument"
    assert fake_embedder == ["from-env", "from-env", "as-argument"]

    # An embedding function of one's own is not overridden by the variable.
    def embed(text: str) -> list[float]:
        return [1.0] * 8

    with AzureAISearchTextSearch.from_env(embedding_function=embed) as search:
        assert search.embedding_function is embed
    with pytest.raises(ConfigurationError, match="not both"):
        AzureAISearchTextSearch.from_env(embedder=given, embedding_function=embed)
    # No embedder: vector fields alone send the query text to the index's vectorizer.
    monkeypatch.delenv("TEXTSEARCH_EMBEDDER")
    with AzureAISearchTextSearch.from_env() as search:
        assert search.embedding_function is None
        assert search.vector_fields == ("text_vector", "title_vector")
    with pytest.raises(ConfigurationError, match="Embedder or a spec"):
        AzureAISearchTextSearch.from_env(embedder=42)


# -- PostgreSQL -------------------------------------------------------------------------------

needs_psycopg = pytest.mark.skipif(
    importlib.util.find_spec("psycopg") is None, reason="extra [postgres]"
)


@needs_psycopg
def test_postgres_reads_its_dsn_and_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.connectors.postgres import PostgresTextSearch

    # Nothing connects until the first call: the settings are read and checked.
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_DSN", "postgresql://kb:pw-s3cr3t@127.0.0.1:1/kb")
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_TABLE", "docs.pages")
    search = PostgresTextSearch.from_env()
    try:
        assert "table='docs.pages'" in repr(search)
        assert "s3cr3t" not in repr(search)
    finally:
        search.close()
    search = PostgresTextSearch.from_env(table="other")
    try:
        assert "table='other'" in repr(search)
    finally:
        search.close()
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_DSN", "postgresql://kb:pw-s3cr3t@[bad/kb")
    with pytest.raises(ConfigurationError) as caught:
        PostgresTextSearch.from_env()
    assert "s3cr3t" not in reachable_text(caught.value)


@needs_psycopg
def test_postgres_reads_its_embedder(
    monkeypatch: pytest.MonkeyPatch, fake_embedder: list[str]
) -> None:
    from textsearch.connectors.postgres import PostgresTextSearch

    monkeypatch.setenv("TEXTSEARCH_POSTGRES_DSN", "postgresql://kb@127.0.0.1:1/kb")
    with PostgresTextSearch.from_env() as search:  # unset: keyword search only
        assert search.embedder is None and search.mode == "keyword"
    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", "fake-env:from-env")
    with PostgresTextSearch.from_env() as search:
        assert search.embedder is not None and search.embedder.model == "from-env"
        assert search.mode == "hybrid"
    given = _Fake("given")
    with PostgresTextSearch.from_env(embedder=given, mode="semantic") as search:
        assert search.embedder is given and search.mode == "semantic"
    with PostgresTextSearch.from_env(embedder="fake-env:as-argument") as search:
        assert search.embedder is not None and search.embedder.model == "as-argument"
    assert fake_embedder == ["from-env", "as-argument"]
    with pytest.raises(ConfigurationError, match="Embedder or a spec"):
        PostgresTextSearch.from_env(embedder=42)


# -- vector stores ----------------------------------------------------------------------------

STORES = [
    pytest.param("chroma", "ChromaTextSearch", "chromadb", id="chroma"),
    pytest.param("qdrant", "QdrantTextSearch", "qdrant_client", id="qdrant"),
    pytest.param("milvus", "MilvusTextSearch", "pymilvus", id="milvus"),
]


class _Fake(FunctionEmbedder):
    def __init__(self, model: str = "fake-8") -> None:
        super().__init__(lambda texts: [[1.0] * 8 for _ in texts], model=model, dimensions=8)


@pytest.fixture
def fake_embedder() -> Iterator[list[str]]:
    """An embedder spec ``fake-env[:MODEL]``; yields the arguments it was built with."""
    built: list[str] = []

    def build(argument: str) -> _Fake:
        built.append(argument)
        return _Fake(argument or "fake-8")

    register_embedder(EmbedderSpec("fake-env", build, argument="optional"))
    yield built
    unregister_embedder("fake-env")


def _store(name: str, connector: str, library: str) -> type[Any]:
    if importlib.util.find_spec(library) is None:
        pytest.skip(f"extra [{name}]")
    module = importlib.import_module(f"textsearch.connectors.vectors.{name}")
    cls: type[Any] = getattr(module, connector)
    return cls


def _location(name: str, tmp_path: Path) -> str:
    return str(tmp_path / "kb.db") if name == "milvus" else str(tmp_path / "store")


@pytest.mark.parametrize(("name", "connector", "library"), STORES)
def test_a_vector_store_reads_location_collection_and_embedder(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_embedder: list[str],
    name: str,
    connector: str,
    library: str,
) -> None:
    cls = _store(name, connector, library)
    variable = f"TEXTSEARCH_{name.upper()}"
    with pytest.raises(ConfigurationError, match=f"set {variable} to .*TEXTSEARCH_COLLECTION"):
        cls.from_env()
    location = _location(name, tmp_path)
    monkeypatch.setenv(variable, location)
    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", "fake-env:from-env")
    search = cls.from_env()
    try:
        assert search.collection == "textsearch"  # the default
        assert search.embedder.model == "from-env" and fake_embedder == ["from-env"]
        assert location in repr(search)
    finally:
        search.close()
    monkeypatch.setenv("TEXTSEARCH_COLLECTION", "kb_docs")
    given = _Fake("given")
    # An Embedder or a spec given here wins over TEXTSEARCH_EMBEDDER.
    search = cls.from_env(embedder=given)
    try:
        assert search.embedder is given and search.collection == "kb_docs"
    finally:
        search.close()
    search = cls.from_env(embedder="fake-env:as-argument", timeout=7.5)
    try:
        assert search.embedder.model == "as-argument" and search.timeout == 7.5
    finally:
        search.close()
    monkeypatch.delenv("TEXTSEARCH_EMBEDDER")
    search = cls.from_env()
    try:
        assert search.embedder is None
    finally:
        search.close()
    with pytest.raises(ConfigurationError, match="Embedder or a spec"):
        cls.from_env(embedder=42)


@pytest.mark.parametrize(("name", "connector", "library"), STORES)
def test_create_passes_the_embedder_spec_to_a_store(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_embedder: list[str],
    name: str,
    connector: str,
    library: str,
) -> None:
    _store(name, connector, library)
    monkeypatch.setenv(f"TEXTSEARCH_{name.upper()}", _location(name, tmp_path))
    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", "fake-env:from-env")
    search = get_provider(name).create(embedder="fake-env:from-cli")
    try:
        assert search.embedder.model == "from-cli" and fake_embedder == ["from-cli"]
    finally:
        search.close()


def test_a_bad_store_token_never_shows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cls = _store("qdrant", "QdrantTextSearch", "qdrant_client")
    monkeypatch.setenv("TEXTSEARCH_QDRANT", "https://qdrant.example:99999")
    monkeypatch.setenv("QDRANT_API_KEY", "qd-s3cr3t")
    with pytest.raises(ConfigurationError) as caught:
        cls.from_env()
    assert "s3cr3t" not in reachable_text(caught.value)


# -- local, and how create() decides to pass an embedder ----------------------------------------


def test_local_from_env_is_an_in_memory_index(
    monkeypatch: pytest.MonkeyPatch, fake_embedder: list[str]
) -> None:
    from textsearch.connectors.local import LocalTextSearch

    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", "fake-env:never-read")
    with LocalTextSearch.from_env() as search:
        assert search.embedder is None and fake_embedder == []
    with LocalTextSearch.from_env(embedder="fake-env:given", mode="hybrid") as search:
        assert search.embedder is not None and search.embedder.model == "given"
        assert search.mode == "hybrid"
    with get_provider("local").create(embedder="fake-env:cli") as search:
        assert search.embedder is not None and search.embedder.model == "cli"


class _Recorder:
    """A connector stand-in: records what its factory was called with."""

    calls: list[dict[str, Any]] = []

    @classmethod
    def from_env(cls, **settings: Any) -> _Recorder:
        cls.calls.append(settings)
        return cls()


class _TakesEmbedder(_Recorder):
    calls: list[dict[str, Any]] = []

    @classmethod
    def from_env(cls, *, embedder: str | None = None) -> _TakesEmbedder:  # type: ignore[override]
        cls.calls.append({"embedder": embedder})
        return cls()


def test_create_passes_an_embedder_only_to_a_factory_that_takes_one() -> None:
    ProviderSpec("plain", _Recorder).create(embedder="minilm")
    assert _Recorder.calls == [{}]
    ProviderSpec("takes", _TakesEmbedder).create(embedder="minilm")
    ProviderSpec("takes", _TakesEmbedder).create()
    assert _TakesEmbedder.calls == [{"embedder": "minilm"}, {"embedder": None}]
    seen: list[object] = []

    def build(embedder: str | None = None) -> object:
        seen.append(embedder)
        return object()

    ProviderSpec("fn", _Recorder, from_env=build).create(embedder="e5")
    ProviderSpec("fn", _Recorder, from_env=lambda: seen.append("no keyword")).create(embedder="e5")
    assert seen == ["e5", "no keyword"]
