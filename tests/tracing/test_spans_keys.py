"""No span holds a key when a web connector fails in any way (issue #33, 2nd attack).

Every web connector we can point at a loopback server, against servers that echo the key
back (in an error body, in a header, in a redirect's target), answer garbage, or are slow;
with content tracing on, since that is when the most text is written into spans.
"""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.connectors.web.test_web_http_settings import CONNECTORS, KEY
from tests.emulators.web import Reply, call, serve
from textsearch import BingTextSearch, TextSearchError
from textsearch.plugins import create_search_plugin


def _bing(url: str, **kwargs: Any) -> Any:
    return BingTextSearch(KEY, endpoint=url + "/v7.0/search", **kwargs)


MAKERS = {name: make for name, (make, _) in CONNECTORS.items()} | {"bing": _bing}
ECHO = {"error": {"message": f"bad key {KEY}", "detail": f"Bearer {KEY}"}, "key": KEY}
REPLIES = {
    "401-echo": Reply(401, ECHO, {"X-Echo": KEY}),
    "500-echo": Reply(500, ECHO, {"WWW-Authenticate": f'Bearer realm="{KEY}"'}),
    "200-garbage": Reply(200, f"<html>{KEY}</html>", {"Content-Type": "text/html"}),
    "redirect": Reply(307, b"", {"Location": f"http://127.0.0.2:9/?key={KEY}"}),
    "slow": Reply(200, ECHO, delay=30.0),
}


@pytest.mark.parametrize("reply", REPLIES)
@pytest.mark.parametrize("name", MAKERS)
def test_no_span_holds_the_key_of_a_failing_web_connector(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch, name: str, reply: str
) -> None:
    monkeypatch.setenv("TEXTSEARCH_TRACE_CONTENT", "1")
    with serve(REPLIES[reply]) as server:
        make = MAKERS[name]
        with pytest.raises(TextSearchError) as info:
            call(make(server.url, timeout=0.5, max_retries=0), "sync", "search", f"q {KEY[:6]}")
        connector = make(server.url, timeout=0.5, max_retries=0)
        try:
            text = create_search_plugin(connector).invoke_sync("search", {"query": "retry"})
        finally:
            connector.close()
    assert KEY not in str(info.value) and KEY not in text
    finished = spans.get_finished_spans()
    assert finished, "no span was written"
    for span in finished:
        dumped = span.to_json()
        assert KEY not in dumped, (span.name, dumped[:500])
