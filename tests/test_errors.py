from __future__ import annotations

import pytest

import textsearch
import textsearch.errors as errors

TREE = {
    "ConfigurationError": "TextSearchError",
    "InvalidRequestError": "TextSearchError",
    "UnsupportedFilterError": "InvalidRequestError",
    "ProviderError": "TextSearchError",
    "BadRequestError": "ProviderError",
    "AuthenticationError": "ProviderError",
    "PermissionDeniedError": "ProviderError",
    "QuotaExceededError": "ProviderError",
    "NotFoundError": "ProviderError",
    "RateLimitError": "ProviderError",
    "ServiceUnavailableError": "ProviderError",
    "ProviderRetiredError": "ProviderError",
    "ResponseFormatError": "ProviderError",
    "SearchTransportError": "TextSearchError",
    "SearchTimeoutError": "SearchTransportError",
}


@pytest.mark.parametrize(("child", "parent"), sorted(TREE.items()))
def test_error_tree_matches_the_design(child: str, parent: str) -> None:
    cls = getattr(errors, child)
    assert issubclass(cls, getattr(errors, parent))
    assert getattr(textsearch, child) is cls


def test_invalid_request_errors_are_value_errors() -> None:
    assert issubclass(errors.InvalidRequestError, ValueError)
    assert issubclass(errors.BadRequestError, errors.InvalidRequestError)
    assert issubclass(errors.SearchTimeoutError, TimeoutError)


def test_provider_error_carries_data() -> None:
    err = errors.RateLimitError(
        "slow down",
        provider="bing",
        status_code=429,
        code="RateLimitExceeded",
        sub_code=None,
        retry_after=2.0,
        hints=("retry later",),
    )
    assert (err.provider, err.status_code, err.code, err.retry_after) == (
        "bing",
        429,
        "RateLimitExceeded",
        2.0,
    )
    assert str(err) == "slow down (hint: retry later)"
    assert "RateLimitError" in repr(err)
    assert errors.ProviderError("x").retry_after is None


def test_unsupported_filter_error_names_supported_fields() -> None:
    err = errors.UnsupportedFilterError(
        "no", field_name="colour", supported_fields=["site", "tags"]
    )
    assert err.field_name == "colour"
    assert err.supported_fields == ("site", "tags")
