"""``--provider a,b`` (fallback), ``--fuse`` and ``--cache`` on the command line."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

import pytest

from textsearch import ConfigurationError, RateLimitError, cli
from textsearch.cli._providers import search_filter
from textsearch.compose import CachedTextSearch, FallbackTextSearch, FusedTextSearch
from textsearch.registry import ProviderSpec, register, unregister
from textsearch.testing import StaticTextSearch

from ._compose_support import docs

BUILT: list[Closing] = []


class Closing(StaticTextSearch):
    closed = False

    def close(self) -> None:
        self.closed = True


def _builder(name: str, *links: str, error: Exception | None = None) -> ProviderSpec:
    def build() -> StaticTextSearch:
        search = Closing(docs(*links, prefix=name), match="always", name=name, error=error)
        BUILT.append(search)
        return search

    return ProviderSpec(name, StaticTextSearch, from_env=build)


def _missing_key() -> StaticTextSearch:
    raise ConfigurationError("--provider nokey needs an API key: set NOKEY_API_KEY")


@pytest.fixture(autouse=True)
def providers() -> Iterator[None]:
    BUILT.clear()
    specs = [
        _builder("limited", "https://l.example/", error=RateLimitError("429")),
        _builder("one", "https://a.example/", "https://b.example/"),
        _builder("two", "https://b.example/", "https://c.example/"),
        ProviderSpec("nokey", StaticTextSearch, from_env=_missing_key),
    ]
    for spec in specs:
        register(spec)
    yield
    for spec in specs:
        unregister(spec.name)


def _args(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_comma_list_falls_back_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "search", "q", "--provider", "limited,one", "--json")
    assert code == 0, err
    assert [r["link"] for r in json.loads(out)["results"]] == [
        "https://a.example/",
        "https://b.example/",
    ]
    assert [s.name for s in BUILT] == ["limited", "one"]
    assert all(s.closed for s in BUILT)  # the command closes what it built


def test_fuse_fuses(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "search", "q", "--provider", "one,two", "--fuse", "--json")
    assert code == 0, err
    # b is 2nd for one and 1st for two: first after fusion
    assert [r["link"] for r in json.loads(out)["results"]] == [
        "https://b.example/",
        "https://a.example/",
        "https://c.example/",
    ]


def test_what_build_provider_builds() -> None:
    assert isinstance(
        cli.build_provider(_args("search", "q", "--provider", "one")), StaticTextSearch
    )
    fallback = cli.build_provider(_args("search", "q", "--provider", "one,two"))
    assert isinstance(fallback, FallbackTextSearch) and fallback.names == ("one", "two")
    assert isinstance(
        cli.build_provider(_args("search", "q", "--provider", "one,two", "--fuse")), FusedTextSearch
    )
    cached = cli.build_provider(_args("search", "q", "--provider", "one", "--cache"))
    assert isinstance(cached, CachedTextSearch)


def test_mcp_caches_by_default_and_closes_everything() -> None:
    search = cli.build_provider(_args("mcp", "--provider", "one,two"))
    assert isinstance(search, CachedTextSearch)
    assert isinstance(search.wrapped, FallbackTextSearch)
    search.search_sync("q")
    search.search_sync("q")
    assert search.stats.hits == 1 and len(BUILT[0].calls) == 1
    search.close()
    assert all(s.closed for s in BUILT)
    assert not isinstance(
        cli.build_provider(_args("mcp", "--provider", "one", "--no-cache")), CachedTextSearch
    )


def test_tools_work_over_a_fallback(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "tools", "--provider", "one,two", "--format", "openai")
    assert code == 0, err
    assert json.loads(out)[0]["function"]["name"] == "search"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--provider", "nope"], "invalid choice: 'nope'"),
        (["--provider", "one,nope"], "invalid choice: 'nope'"),
        (["--provider", "one,"], "invalid choice: ''"),
        (["--provider", "one,one"], "named twice"),
        (["--provider", "one", "--fuse"], "--fuse needs two or more providers"),
        (["--provider", "one,nokey"], "NOKEY_API_KEY"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, "search", "q", *argv)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert message in line
    assert all(s.closed for s in BUILT)  # a provider built before the failing one is closed


def test_filter_options_need_every_provider_to_support_them() -> None:
    flt = search_filter(
        _args("search", "q", "--provider", "bing,bocha", "--freshness", "2024-01-01")
    )
    assert flt is not None and flt.field_names == ("freshness",)
    with pytest.raises(cli.UsageError, match="--freshness is not supported"):
        search_filter(_args("search", "q", "--provider", "bing,local", "--freshness", "Day"))
    with pytest.raises(cli.UsageError, match="--market is not supported"):
        search_filter(_args("search", "q", "--provider", "bing,bocha", "--market", "en-US"))
