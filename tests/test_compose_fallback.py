from __future__ import annotations

import asyncio
import time

import pytest

from textsearch import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    SearchOptions,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    TextSearch,
    TextSearchFilter,
    UnsupportedFilterError,
)
from textsearch.compose import (
    DEFAULT_FALLBACK_ON,
    AllProvidersFailedError,
    FallbackTextSearch,
    FusedTextSearch,
)
from textsearch.errors import AllProvidersFailedError as FromErrors
from textsearch.testing import StaticDocument, StaticTextSearch

from ._compose_support import FakeClock, ProtocolOnly, static


def test_error_is_a_provider_error_in_every_public_place() -> None:
    import textsearch

    assert textsearch.AllProvidersFailedError is AllProvidersFailedError is FromErrors
    assert issubclass(AllProvidersFailedError, ProviderError)


def test_default_on_matches_the_design() -> None:
    assert set(DEFAULT_FALLBACK_ON) == {
        RateLimitError,
        QuotaExceededError,
        ServiceUnavailableError,
        SearchTransportError,
        ProviderRetiredError,
    }


def test_first_provider_answers_and_others_are_not_asked() -> None:
    first, second = static("https://a.example/1", name="brave"), static(name="tavily")
    fallback = FallbackTextSearch([first, second])
    assert isinstance(fallback, TextSearch)
    results = fallback.get_text_search_results_sync("anything")
    assert [r.link for r in results] == ["https://a.example/1"]
    assert results.metadata["provider"] == "brave"
    assert results.metadata["skipped"] == []
    assert len(first.calls) == 1 and second.calls == []


@pytest.mark.parametrize(
    "error",
    [
        RateLimitError("slow down", provider="brave", status_code=429),
        QuotaExceededError("no credit", provider="brave"),
        ServiceUnavailableError("502", provider="brave", status_code=502),
        SearchTransportError("connection refused", provider="brave"),
        SearchTimeoutError("no answer in 10 s", provider="brave"),
        ProviderRetiredError("gone", provider="brave", status_code=410),
    ],
)
def test_falls_over_on_errors_another_provider_can_fix(error: Exception) -> None:
    first = static(name="brave", error=error)
    second = static("https://t.example/", name="tavily")
    fallback = FallbackTextSearch([first, second])
    results = asyncio.run(fallback.get_search_results("q"))
    assert isinstance(results[0], StaticDocument)
    assert results.metadata["provider"] == "tavily"
    (skipped,) = results.metadata["skipped"]
    assert skipped["provider"] == "brave"
    assert skipped["error"] == type(error).__name__
    assert skipped["reason"] == str(error)


@pytest.mark.parametrize(
    "error",
    [
        BadRequestError("bad query", provider="brave", status_code=400),
        AuthenticationError("bad key", provider="brave", status_code=401),
        UnsupportedFilterError("cannot filter on x"),
        ValueError("a bug"),
    ],
)
def test_raises_at_once_on_errors_another_provider_would_not_fix(error: Exception) -> None:
    first = static(name="brave", error=error)
    second = static("https://t.example/", name="tavily")
    fallback = FallbackTextSearch([first, second])
    with pytest.raises(type(error)) as caught:
        fallback.search_sync("q")
    assert caught.value is error
    assert second.calls == []
    # not cooled down: the next call asks brave again
    with pytest.raises(type(error)):
        fallback.search_sync("q")
    assert len(first.calls) == 2


def test_custom_on() -> None:
    first = static(name="a", error=AuthenticationError("expired key"))
    second = static("https://b.example/", name="b")
    fallback = FallbackTextSearch([first, second], on=(AuthenticationError,))
    assert fallback.search_sync("q").metadata["provider"] == "b"
    # a single class is accepted too
    assert FallbackTextSearch([first, second], on=AuthenticationError).on == (  # type: ignore[arg-type]
        AuthenticationError,
    )


def test_cooldown_skips_a_failed_provider_then_asks_it_again() -> None:
    clock = FakeClock()
    first = static("https://a.example/", name="a", error=RateLimitError("429"))
    second = static("https://b.example/", name="b")
    fallback = FallbackTextSearch([first, second], cooldown=30, clock=clock)

    assert fallback.search_sync("q").metadata["provider"] == "b"
    assert len(first.calls) == 1
    assert fallback.cooling_down() == {"a": 30.0}

    clock.advance(10)
    first.error = None  # recovered, but still cooling down: not asked
    results = fallback.search_sync("q")
    assert results.metadata["provider"] == "b"
    assert results.metadata["skipped"] == [
        {
            "provider": "a",
            "reason": "cooling down after RateLimitError",
            "error": "RateLimitError",
            "retry_in": 20.0,
        }
    ]
    assert len(first.calls) == 1

    clock.advance(20)
    results = fallback.search_sync("q")
    assert results.metadata["provider"] == "a"
    assert results.metadata["skipped"] == []
    assert len(first.calls) == 2 and fallback.cooling_down() == {}


def test_cooldown_is_the_longer_of_cooldown_and_retry_after() -> None:
    clock = FakeClock()
    longer = static(name="a", error=RateLimitError("429", retry_after=120))
    shorter = static(name="b", error=RateLimitError("429", retry_after=2))
    last = static("https://c.example/", name="c")
    fallback = FallbackTextSearch([longer, shorter, last], cooldown=60, clock=clock)
    fallback.search_sync("q")
    assert fallback.cooling_down() == {"a": 120.0, "b": 60.0}


def test_cooldown_with_the_real_clock() -> None:
    first = static("https://a.example/", name="a", error=ServiceUnavailableError("503"))
    second = static("https://b.example/", name="b")
    fallback = FallbackTextSearch([first, second], cooldown=0.05)
    assert fallback.search_sync("q").metadata["provider"] == "b"
    first.error = None
    assert fallback.search_sync("q").metadata["provider"] == "b"
    time.sleep(0.08)
    assert fallback.search_sync("q").metadata["provider"] == "a"


def test_all_fail_raises_with_every_failure_and_never_invents_results() -> None:
    clock = FakeClock()
    errors = [
        RateLimitError("429", provider="a", retry_after=5),
        QuotaExceededError("quota", provider="b"),
    ]
    fallback = FallbackTextSearch(
        [static("https://x/", name="a", error=errors[0]), static(name="b", error=errors[1])],
        cooldown=10,
        clock=clock,
    )
    with pytest.raises(AllProvidersFailedError) as caught:
        asyncio.run(fallback.search("q"))
    assert caught.value.errors == errors
    assert caught.value.provider == "fallback"
    assert caught.value.retry_after == 10
    assert "a: RateLimitError" in str(caught.value) and "b: QuotaExceededError" in str(caught.value)

    # Everyone is cooling down: no request is made, the failures that started it are reported.
    clock.advance(4)
    with pytest.raises(AllProvidersFailedError) as again:
        fallback.search_sync("q")
    assert again.value.errors == errors
    assert again.value.retry_after == 6
    assert "cooling down" in str(again.value)

    fallback.reset()
    assert fallback.cooling_down() == {}


def test_all_fail_in_sync_twin_too() -> None:
    fallback = FallbackTextSearch([static(name="a", error=SearchTransportError("down"))])
    with pytest.raises(AllProvidersFailedError) as caught:
        fallback.get_text_search_results_sync("q")
    assert isinstance(caught.value.errors[0], SearchTransportError)


def test_every_shape_and_its_sync_twin() -> None:
    failing = static(name="a", error=RateLimitError("429"))
    fallback = FallbackTextSearch([failing, static("https://b.example/1", name="b")], cooldown=0)
    for method in ("search", "get_text_search_results", "get_search_results"):
        async_result = asyncio.run(getattr(fallback, method)("q"))
        sync_result = getattr(fallback, method + "_sync")("q")
        assert async_result.results == sync_result.results
        assert async_result.metadata["provider"] == sync_result.metadata["provider"] == "b"
    assert fallback.search_sync("q").results == ["text b1"]


def test_options_and_filter_reach_the_provider_that_answers() -> None:
    first = static(name="a", error=RateLimitError("429"))
    second = StaticTextSearch(
        [
            {"name": "x", "value": "v", "link": "https://keep.example/1"},
            {"name": "y", "value": "v", "link": "https://drop.example/1"},
        ],
        match="always",
        name="b",
    )
    flt = TextSearchFilter().equal_to("site", "keep.example")
    results = FallbackTextSearch([first, second]).get_text_search_results_sync(
        "q", SearchOptions(top=3), filter=flt
    )
    assert [r.link for r in results] == ["https://keep.example/1"]
    assert second.calls[0].options == SearchOptions(top=3, filter=flt)
    assert first.calls[0].options == second.calls[0].options


def test_invalid_request_is_rejected_before_any_provider_is_asked() -> None:
    first, second = static(name="a", max_top=20), static(name="b", max_top=10)
    fallback = FallbackTextSearch([first, second])
    assert fallback.max_top == 10
    with pytest.raises(InvalidRequestError):
        fallback.search_sync("   ")
    with pytest.raises(InvalidRequestError):
        fallback.search_sync("q", top=15)
    assert first.calls == [] and second.calls == []


def test_a_filter_the_second_provider_cannot_honour_fails_before_any_request() -> None:
    class SiteOnly(StaticTextSearch):
        supported_filter_fields = frozenset({"site"})

    first, second = static(name="a"), SiteOnly(name="b")
    flt = TextSearchFilter().equal_to("language", "en")
    with pytest.raises(UnsupportedFilterError):
        FallbackTextSearch([first, second]).search_sync("q", filter=flt)
    assert first.calls == []


class _SiteOnly(StaticTextSearch):
    supported_filter_fields = frozenset({"site"})


class _CountsChecks(_SiteOnly):
    """Counts how often the request is validated (its ``check_request`` and its own calls)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.checks = 0

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        self.checks += 1
        super()._check_filter(search_filter)


class _TagOnly(StaticTextSearch):
    supported_filter_fields = frozenset({"tag"})


@pytest.mark.parametrize("cooling", [False, True])
def test_the_first_providers_refusal_comes_first_and_nobody_is_asked(cooling: bool) -> None:
    # Both refuse the filter: the first one's error, as when every provider was checked in
    # order; also while the first is cooling down (it is checked, though not asked).
    first, second = _SiteOnly(name="first"), _TagOnly(name="second")
    fallback = FallbackTextSearch([first, second], clock=FakeClock())
    if cooling:
        first.error = RateLimitError("slow down")
        fallback.search_sync("warm up")
        first.error = None
        assert list(fallback.cooling_down()) == ["first"]
    asked = (len(first.calls), len(second.calls))
    flt = TextSearchFilter().equal_to("language", "en")
    with pytest.raises(UnsupportedFilterError, match="supported filter fields: site$"):
        fallback.search_sync("q", filter=flt)
    with pytest.raises(UnsupportedFilterError, match="supported filter fields: site$"):
        asyncio.run(fallback.get_text_search_results("q", filter=flt))
    assert (len(first.calls), len(second.calls)) == asked


def test_a_refusal_by_a_later_provider_still_stops_the_request_before_the_first_is_asked() -> None:
    first, second = static(name="a"), _SiteOnly(name="b")
    for blocking in (True, False):
        flt = TextSearchFilter().equal_to("language", "en")
        fallback = FallbackTextSearch([first, second])
        with pytest.raises(UnsupportedFilterError):
            if blocking:
                fallback.search_sync("q", filter=flt)
            else:
                asyncio.run(fallback.search("q", filter=flt))
    assert first.calls == [] and second.calls == []


def test_the_provider_asked_first_validates_the_request_once() -> None:
    # It checks the request itself before it answers; the wrapper does not check it again.
    first, second = _CountsChecks(name="a"), _CountsChecks(name="b")
    fallback = FallbackTextSearch([first, second])
    fallback.search_sync("q", filter=TextSearchFilter().equal_to("site", "a.example"))
    assert (first.checks, second.checks) == (1, 1)
    assert len(first.calls) == 1 and second.calls == []
    # With ``on`` catching a refusal, the first is checked up front too (it must not fall over).
    first.checks, everything = 0, static(name="any field")
    broad = FallbackTextSearch([first, everything], on=(Exception,))
    with pytest.raises(UnsupportedFilterError):
        broad.search_sync("q", filter=TextSearchFilter().equal_to("language", "en"))
    assert first.checks == 1 and len(first.calls) == 1 and everything.calls == []
    # check_request (what an outer wrapper asks) still checks every provider.
    first.checks = second.checks = 0
    fallback.check_request("q", SearchOptions(filter=TextSearchFilter().equal_to("site", "x")))
    assert (first.checks, second.checks) == (1, 1)


def test_provider_names_are_stable_and_distinct() -> None:
    searches = [static(), static(), ProtocolOnly([]), static(name="static-2")]
    assert FallbackTextSearch(searches).names == (
        "static",
        "static-2",
        "ProtocolOnly",
        "static-2-2",
    )


def test_protocol_only_provider_works() -> None:
    third_party = ProtocolOnly(["https://p.example/1"])
    fallback = FallbackTextSearch([static(name="a", error=RateLimitError("x")), third_party])
    assert [r.link for r in fallback.get_text_search_results_sync("q")] == ["https://p.example/1"]


def test_a_fused_provider_that_failed_only_in_fixable_ways_falls_over() -> None:
    fused = FusedTextSearch(
        [
            static(name="a", error=RateLimitError("x")),
            static(name="b", error=QuotaExceededError("y")),
        ]
    )
    fallback = FallbackTextSearch([fused, static("https://c.example/", name="c")])
    assert fallback.search_sync("q").metadata["provider"] == "c"
    fused_bad = FusedTextSearch([static(name="a", error=AuthenticationError("key"))])
    with pytest.raises(AllProvidersFailedError):
        FallbackTextSearch([fused_bad, static(name="c")]).search_sync("q")


def test_does_not_change_the_wrapped_results_metadata() -> None:
    class WithMetadata(StaticTextSearch):
        def _fetch_sync(self, query, options):  # type: ignore[no-untyped-def]
            result = super()._fetch_sync(query, options)
            result.metadata["trace"] = "t1"
            return result

    inner = WithMetadata(["x"], match="always")
    results = FallbackTextSearch([inner]).search_sync("q")
    assert results.metadata == {"trace": "t1", "provider": "static", "skipped": []}


@pytest.mark.parametrize(
    "kwargs",
    [{"cooldown": -1}, {"cooldown": float("nan")}, {"on": (42,)}, {"on": "RateLimitError"}],
)
def test_bad_configuration(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        FallbackTextSearch([static()], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("searches", [[], [object()], static(), "abc"])
def test_bad_searches(searches: object) -> None:
    with pytest.raises(ConfigurationError):
        FallbackTextSearch(searches)  # type: ignore[arg-type]


def test_closes_wrapped_searches_only_when_asked() -> None:
    class Closing(StaticTextSearch):
        closed = 0

        def close(self) -> None:
            self.closed += 1

    inner = Closing(name="a")
    with FallbackTextSearch([inner]):
        pass
    assert inner.closed == 0

    async def use() -> None:
        async with FallbackTextSearch([inner], close_wrapped=True):
            pass

    asyncio.run(use())
    assert inner.closed == 1
    with FallbackTextSearch([inner], close_wrapped=True):
        pass
    assert inner.closed == 2


def test_repr_names_providers_only() -> None:
    assert repr(FallbackTextSearch([static(name="a"), static(name="b")], cooldown=5)) == (
        "FallbackTextSearch([a, b], cooldown=5)"
    )
