"""The command line with Brave, Tavily, Exa and SearXNG (keys from the environment, loopback)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from tests.emulators.searxng import searxng
from tests.emulators.web import Reply, serve
from textsearch.cli import main

BRAVE_BODY: dict[str, Any] = {
    "type": "search",
    "query": {"original": "retry"},
    "web": {
        "results": [
            {
                "title": "Retry <strong>guide</strong>",
                "url": "https://kb.example/retry",
                "description": "Back off &amp; retry.",
            }
        ]
    },
}
TAVILY_BODY: dict[str, Any] = {
    "query": "retry",
    "results": [
        {"title": "Retry guide", "url": "https://kb.example/retry", "content": "Back off."}
    ],
}
EXA_BODY: dict[str, Any] = {
    "requestId": "r1",
    "results": [
        {
            "id": "1",
            "url": "https://kb.example/retry",
            "title": "Retry guide",
            "highlights": ["Back off."],
        }
    ],
}


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


@pytest.mark.parametrize(
    ("provider", "variable"),
    [
        ("brave", "BRAVE_SEARCH_API_KEY"),
        ("tavily", "TAVILY_API_KEY"),
        ("exa", "EXA_API_KEY"),
        ("searxng", "SEARXNG_URL"),
    ],
)
@pytest.mark.parametrize("command", ["search", "tools"])
def test_missing_setting_is_one_line_naming_the_variable(
    provider: str, variable: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "q"] if command == "search" else ["tools", "--format", "openai"]
    code, _ = run([*argv, "--provider", provider])
    err = capsys.readouterr().err
    assert code == 2
    assert variable in err
    assert err.count("\n") == 1


def test_brave_search_with_site_and_freshness(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(Reply(200, BRAVE_BODY)) as server:
        monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "BSA-0123456789")
        monkeypatch.setenv("BRAVE_SEARCH_ENDPOINT", server.url + "/res/v1/web/search")
        code, out = run(
            [
                "search",
                "retry",
                "--provider",
                "brave",
                "--site",
                "kb.example",
                "--freshness",
                "week",
                "--json",
                "--top",
                "3",
            ]
        )
    assert code == 0
    payload = json.loads(out)
    assert payload["results"] == [
        {"name": "Retry guide", "value": "Back off & retry.", "link": "https://kb.example/retry"}
    ]
    assert server.requests[0].path == "/res/v1/web/search"
    assert server.requests[0].query == [
        ("q", "retry site:kb.example"),
        ("count", "3"),
        ("text_decorations", "false"),
        ("freshness", "pw"),
    ]
    assert server.requests[0].headers["x-subscription-token"] == "BSA-0123456789"


GOGGLE = "https://gist.githubusercontent.com/kb/0a1b/raw/docs_first.goggle"


def test_brave_goggles_from_the_environment_reach_every_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve(Reply(200, BRAVE_BODY)) as server:
        monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "BSA-0123456789")
        monkeypatch.setenv("BRAVE_SEARCH_ENDPOINT", server.url + "/res/v1/web/search")
        monkeypatch.setenv("BRAVE_SEARCH_GOGGLES", f" {GOGGLE}\n {GOGGLE}-2 ")
        first, _ = run(["search", "retry", "--provider", "brave", "--json"])
        second, _ = run(["search", "backoff", "--provider", "brave", "--site", "kb.example"])
    assert (first, second) == (0, 0)
    assert len(server.requests) == 2
    for request in server.requests:
        assert [v for k, v in request.query if k == "goggles"] == [GOGGLE, GOGGLE + "-2"]


def test_a_bad_brave_goggle_in_the_environment_is_one_line_before_any_request(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(Reply(200, BRAVE_BODY)) as server:
        monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "BSA-0123456789")
        monkeypatch.setenv("BRAVE_SEARCH_ENDPOINT", server.url + "/res/v1/web/search")
        monkeypatch.setenv("BRAVE_SEARCH_GOGGLES", "http://kb.example/plain.goggle")
        code, _ = run(["search", "retry", "--provider", "brave"])
    err = capsys.readouterr().err
    assert code == 2
    assert "https://" in err and err.count("\n") == 1
    assert "BSA-0123456789" not in err
    assert server.requests == []


@pytest.mark.parametrize(
    ("provider", "key_var", "url_var", "body", "wire_key"),
    [
        ("tavily", "TAVILY_API_KEY", "TAVILY_BASE_URL", TAVILY_BODY, "max_results"),
        ("exa", "EXA_API_KEY", "EXA_BASE_URL", EXA_BODY, "numResults"),
    ],
)
def test_tavily_and_exa_search(
    provider: str,
    key_var: str,
    url_var: str,
    body: dict[str, Any],
    wire_key: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve(Reply(200, body)) as server:
        monkeypatch.setenv(key_var, "k-0123456789")
        monkeypatch.setenv(url_var, server.url)
        code, out = run(
            [
                "search",
                "retry",
                "--provider",
                provider,
                "--top",
                "2",
                "--skip",
                "1",
                "--freshness",
                "month",
            ]
        )
    assert code == 0
    assert "No results" in out  # one result came back, and it was skipped
    sent = json.loads(server.requests[0].body)
    assert sent[wire_key] == 3
    assert server.requests[0].path == "/search"


def test_searxng_search_through_an_emulated_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    with searxng(total=4, page_size=10) as instance:
        monkeypatch.setenv("SEARXNG_URL", instance.url)
        code, out = run(["search", "corpus", "--provider", "searxng", "--json", "--top", "2"])
    assert code == 0
    assert [r["link"] for r in json.loads(out)["results"]] == [
        "https://site0.example/page-0",
        "https://site1.example/page-1",
    ]
    assert instance.requests[0]["query"]["format"] == "json"


def test_searxng_json_off_exits_1_with_the_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with searxng(json_enabled=False) as instance:
        monkeypatch.setenv("SEARXNG_URL", instance.url)
        code, _ = run(["search", "q", "--provider", "searxng"])
    assert code == 1
    assert "403" in capsys.readouterr().err


def test_brave_paging_mistake_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "BSA-0123456789")
    code, _ = run(["search", "q", "--provider", "brave", "--top", "10", "--skip", "5"])
    assert code == 2
    assert "multiple of top" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("provider", "variable", "value", "expected"),
    [
        (
            "brave",
            "BRAVE_SEARCH_API_KEY",
            "k-0123456789",
            {"site", "exclude_site", "freshness", "language", "country", "safe_search"},
        ),
        (
            "tavily",
            "TAVILY_API_KEY",
            "k-0123456789",
            {"site", "exclude_site", "freshness", "country"},
        ),
        (
            "searxng",
            "SEARXNG_URL",
            "http://127.0.0.1:9",
            {"site", "exclude_site", "freshness", "language", "safe_search"},
        ),
    ],
)
def test_tools_offer_the_portable_filters_the_provider_honours(
    provider: str, variable: str, value: str, expected: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, value)
    code, out = run(["tools", "--provider", provider, "--format", "openai"])
    assert code == 0
    properties = json.loads(out)[0]["function"]["parameters"]["properties"]
    assert set(properties) == {"query", "top", "skip"} | expected
    assert value not in out


def test_local_tools_are_unchanged() -> None:
    code, out = run(["tools", "--format", "anthropic"])
    assert code == 0
    assert set(json.loads(out)[0]["input_schema"]["properties"]) == {"query", "top", "skip"}
