"""The shared web connector: one set of settings, one translation per search, one parser."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
import respx

from textsearch import (
    BingTextSearch,
    BochaTextSearch,
    BraveTextSearch,
    ExaTextSearch,
    ResponseFormatError,
    SearxngTextSearch,
    TavilyTextSearch,
    TextSearchFilter,
)
from textsearch._http import DEFAULT_MAX_RESPONSE_BYTES, HttpSettings

KEY = "k-0123456789abcdef-secret"
CLASSES = [
    BingTextSearch,
    BochaTextSearch,
    BraveTextSearch,
    TavilyTextSearch,
    ExaTextSearch,
    SearxngTextSearch,
]
SETTINGS = {
    "http_client": None,
    "timeout": None,
    "max_retries": 2,
    "max_retry_wait": 10.0,
    "deadline": 60.0,
    "max_response_bytes": DEFAULT_MAX_RESPONSE_BYTES,
    "verify": True,
    "transport": "auto",
    "string_mapper": None,
    "text_search_result_mapper": None,
}


def _make(cls: type[Any], **kwargs: Any) -> Any:
    if cls is SearxngTextSearch:
        return cls("http://127.0.0.1:8888", **kwargs)
    return cls(KEY, **kwargs)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_setting_is_a_typed_keyword_with_its_default(cls: type[Any]) -> None:
    # The settings are typed keywords (PEP 692: **settings: Unpack[WebSettings]), which type
    # checkers and editors show one by one; each is accepted, with the documented default.
    from typing import get_args, get_origin

    from typing_extensions import Unpack, get_type_hints

    from textsearch.connectors.web._connector import _WEB_DEFAULTS, WebSettings

    parameters = inspect.signature(cls).parameters
    settings = parameters["settings"]
    assert settings.kind is inspect.Parameter.VAR_KEYWORD
    hint = get_type_hints(cls.__init__, include_extras=True)["settings"]
    assert get_origin(hint) is Unpack
    assert get_origin(get_args(hint)[0]) is WebSettings
    assert set(HttpSettings.__annotations__) <= set(SETTINGS)
    assert set(WebSettings.__annotations__) == set(SETTINGS)
    assert dict(_WEB_DEFAULTS) == SETTINGS
    connector = _make(cls, **{k: v for k, v in SETTINGS.items() if k != "timeout"})
    assert connector.max_retries == SETTINGS["max_retries"]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_an_unknown_keyword_is_a_type_error(cls: type[Any]) -> None:
    with pytest.raises(TypeError, match="max_retrys"):
        _make(cls, max_retrys=3)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_settings_reach_the_engine(cls: type[Any]) -> None:
    connector = _make(cls, max_retries=0, deadline=5, max_response_bytes=1234)
    assert (connector.max_retries, connector.deadline) == (0, 5.0)
    assert connector.max_response_bytes == 1234
    assert KEY not in repr(connector)


def test_max_response_bytes_caps_the_body() -> None:
    rows = [
        {"title": f"t{i}", "url": f"https://a{i}.example/", "description": "x" * 200}
        for i in range(20)
    ]
    body = {"type": "search", "web": {"results": rows}}
    with respx.mock() as mock:
        mock.get("https://api.search.brave.com/res/v1/web/search").respond(200, json=body)
        roomy = BraveTextSearch(KEY, max_retries=0, max_response_bytes=1 << 20)
        assert len(roomy.search_sync("q", top=20)) == 20
        with pytest.raises(ResponseFormatError):
            BraveTextSearch(KEY, max_retries=0, max_response_bytes=2048).search_sync("q")


def test_the_filter_is_translated_once_per_search(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    translate = BraveTextSearch._translate

    def counting(self: BraveTextSearch, search_filter: Any) -> Any:
        calls.append(search_filter)
        return translate(self, search_filter)

    monkeypatch.setattr(BraveTextSearch, "_translate", counting)
    brave = BraveTextSearch(KEY, max_retries=0)
    only = TextSearchFilter().equal_to("site", "a.example").equal_to("freshness", "week")
    row = {"title": "A", "url": "https://a.example/x", "description": "alpha"}
    body = {"type": "search", "web": {"results": [row]}}
    with respx.mock() as mock:
        mock.get("https://api.search.brave.com/res/v1/web/search").respond(200, json=body)
        for method in ("search_sync", "get_text_search_results_sync", "get_search_results_sync"):
            calls.clear()
            assert len(getattr(brave, method)("q", filter=only)) == 1
            assert calls == [only], method
        for method in ("search", "get_text_search_results", "get_search_results"):
            calls.clear()
            assert len(asyncio.run(getattr(brave, method)("q", filter=only))) == 1
            assert calls == [only], method


def test_one_parser_gives_the_same_results_in_every_shape() -> None:
    row = {
        "title": "A &amp; <strong>B</strong>",
        "url": "https://a.example/x",
        "description": "The <strong>alpha</strong> doc",
    }
    bad = {"title": 5, "url": "https://b.example/", "description": "beta"}
    body = {"type": "search", "web": {"results": [row, None, bad]}}
    brave = BraveTextSearch(KEY, max_retries=0)
    with respx.mock() as mock:
        mock.get("https://api.search.brave.com/res/v1/web/search").respond(200, json=body)
        texts = brave.get_text_search_results_sync("q")
        natives = brave.get_search_results_sync("q")
        strings = brave.search_sync("q")
    assert [(r.name, r.value, r.link) for r in texts] == [
        ("A & B", "The alpha doc", "https://a.example/x")
    ]
    assert [(n.title, n.description, n.url) for n in natives] == [
        (r.name, r.value, r.link) for r in texts
    ]
    assert list(strings) == ["The alpha doc"]
    assert texts.metadata == natives.metadata == strings.metadata == {"skipped": 1}
