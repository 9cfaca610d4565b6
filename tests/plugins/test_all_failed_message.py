"""What a model is told when every provider behind a composed search failed."""

from __future__ import annotations

import pytest

from textsearch import (
    AllProvidersFailedError,
    AuthenticationError,
    QuotaExceededError,
    RateLimitError,
    ServiceUnavailableError,
)
from textsearch.compose import FallbackTextSearch
from textsearch.plugins import create_search_function
from textsearch.testing import StaticTextSearch


class Failing(StaticTextSearch):
    def __init__(self, error: Exception, name: str) -> None:
        super().__init__(["unused"], name=name)
        self.error = error

    async def get_text_search_results(self, query, options=None, **kwargs):  # type: ignore[no-untyped-def]
        raise self.error

    def get_text_search_results_sync(self, query, options=None, **kwargs):  # type: ignore[no-untyped-def]
        raise self.error


@pytest.mark.parametrize(
    ("errors", "expected"),
    [
        (
            [QuotaExceededError("spent", provider="a"), QuotaExceededError("spent", provider="b")],
            "retrying will not help",
        ),
        (
            [
                RateLimitError("slow", provider="a", retry_after=30.0),
                RateLimitError("slow", provider="b", retry_after=45.0),
            ],  # soonest: 30 s
            "retry in about 30 seconds",
        ),
        (
            [
                ServiceUnavailableError("down", provider="a"),
                ServiceUnavailableError("down", provider="b"),
            ],
            "retry in about 1 second.",  # the fallback's own cooldown
        ),
    ],
)
def test_model_is_told_whether_retrying_can_help(errors: list[Exception], expected: str) -> None:
    searches = [Failing(error, name=f"p{i}") for i, error in enumerate(errors)]
    fallback = FallbackTextSearch(
        searches, on=(QuotaExceededError, RateLimitError, ServiceUnavailableError), cooldown=1.0
    )
    function = create_search_function(fallback)
    text = function.invoke_sync({"query": "anything"})
    assert expected in text
    assert "answered with an error" not in text  # not the generic provider sentence


def test_an_error_outside_on_is_raised_at_once_and_told_as_itself() -> None:
    fallback = FallbackTextSearch(
        [
            Failing(AuthenticationError("bad key", provider="a"), name="a"),
            StaticTextSearch(["fine"], name="b"),
        ]
    )
    text = create_search_function(fallback).invoke_sync({"query": "x"})
    assert "credentials" in text
    assert not isinstance(AuthenticationError("x"), AllProvidersFailedError)
