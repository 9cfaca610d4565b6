"""The command line with the web providers: keys from the environment, filter options."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from tests.emulators.web import Reply, serve
from textsearch.cli import main

BING_BODY: dict[str, Any] = {
    "_type": "SearchResponse",
    "webPages": {
        "totalEstimatedMatches": 1,
        "value": [
            {"name": "Retry guide", "url": "https://kb.example/retry", "snippet": "Back off."}
        ],
    },
}


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


@pytest.mark.parametrize(
    ("provider", "variable"), [("bing", "BING_SEARCH_API_KEY"), ("bocha", "BOCHA_API_KEY")]
)
def test_missing_key_is_one_line_naming_the_variable(
    provider: str, variable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run(["search", "q", "--provider", provider])
    err = capsys.readouterr().err
    assert code == 2
    assert variable in err
    assert err.count("\n") == 1


def test_bing_search_with_freshness_market_and_site(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(Reply(200, BING_BODY)) as server:
        monkeypatch.setenv("BING_SEARCH_API_KEY", "k-0123456789")
        monkeypatch.setenv("BING_SEARCH_ENDPOINT", server.url + "/v7.0/search")
        code, out = run(
            [
                "search",
                "retry",
                "--provider",
                "bing",
                "--site",
                "kb.example",
                "--freshness",
                "week",
                "--market",
                "en-GB",
                "--json",
                "--top",
                "3",
            ]
        )
    assert code == 0
    payload = json.loads(out)
    assert payload["total_count"] == 1
    assert payload["results"][0]["link"] == "https://kb.example/retry"
    assert server.requests[0].query == [
        ("q", "site:kb.example retry"),
        ("count", "3"),
        ("freshness", "Week"),
        ("mkt", "en-GB"),
    ]


def test_bocha_search_with_freshness(monkeypatch: pytest.MonkeyPatch) -> None:
    body = {
        "code": 200,
        "data": {
            "webPages": {
                "value": [{"name": "T", "url": "https://x.cn/", "snippet": "s", "summary": "long"}]
            }
        },
    }
    with serve(Reply(200, body)) as server:
        monkeypatch.setenv("BOCHA_API_KEY", "sk-0123456789")
        monkeypatch.setenv("BOCHA_BASE_URL", server.url)
        code, out = run(["search", "q", "--provider", "bocha", "--freshness", "oneDay"])
    assert code == 0
    assert "long" in out
    assert json.loads(server.requests[0].body)["freshness"] == "oneDay"


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "q", "--provider", "bocha", "--market", "zh-CN"],
        ["search", "q", "--freshness", "Day"],  # local
    ],
)
def test_unsupported_option_is_a_usage_error(
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Any,
) -> None:
    monkeypatch.setenv("BOCHA_API_KEY", "sk-0123456789")
    code, _ = run([*argv, "--path", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "not supported" in err


def test_bad_freshness_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BING_SEARCH_API_KEY", "k-0123456789")
    code, _ = run(["search", "q", "--provider", "bing", "--freshness", "yesterday"])
    assert code == 2
    assert "freshness" in capsys.readouterr().err
