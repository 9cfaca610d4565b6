"""AzureAISearchTextSearch errors through the real SDK clients and the emulator: statuses,
retries, timeouts, logs, malformed answers and what is chained (async and sync)."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.connectors.azure.test_azure_ai_search import KEY, make, run
from tests.emulators.azure_search import AzureSearchEmulator
from textsearch import (
    AuthenticationError,
    AzureAISearchTextSearch,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
)


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture(params=["async", "sync"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- errors -----------------------------------------------------------------------------------


def test_wrong_key_is_an_authentication_error(
    emulator: AzureSearchEmulator, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthenticationError) as info:
        run(mode, make(emulator, api_key="wrong-secret-key"))
    err = info.value
    assert err.status_code == 401
    assert "AZURE_SEARCH_API_KEY" in str(err)
    assert emulator.endpoint in str(err)
    for text in (str(err), repr(err), caplog.text, str(err.__cause__)):
        assert "wrong-secret-key" not in text


def test_forbidden_key_is_permission_denied(emulator: AzureSearchEmulator, mode: str) -> None:
    with pytest.raises(PermissionDeniedError, match="check the key") as info:
        run(mode, make(emulator, api_key="test-forbidden-key"))
    assert info.value.status_code == 403
    assert "test-forbidden-key" not in str(info.value)


def test_unknown_index_is_not_found(emulator: AzureSearchEmulator, mode: str) -> None:
    with pytest.raises(NotFoundError, match="'no-such-index'") as info:
        run(mode, make(emulator, index_name="no-such-index"))
    assert info.value.status_code == 404


def test_throttling_with_retry_after(emulator: AzureSearchEmulator, mode: str) -> None:
    emulator.fail_next(429, retry_after="7")
    with pytest.raises(RateLimitError) as info:
        run(mode, make(emulator))
    assert info.value.retry_after == 7.0
    assert info.value.status_code == 429


def test_throttling_is_retried_then_succeeds(emulator: AzureSearchEmulator, mode: str) -> None:
    emulator.fail_next(429, retry_after="0", times=2)
    results = run(mode, make(emulator, max_retries=2, retry_backoff_factor=0.01), query="jitter")
    assert [r.name for r in results] == ["Backoff strategies"]
    assert len(emulator.bodies()) == 3


@pytest.mark.parametrize("status", [429, 502, 408])
def test_throttling_without_retry_after_is_retried(
    emulator: AzureSearchEmulator, mode: str, status: int
) -> None:
    # azure-core retries a POST without Retry-After only on 500/503/504; a search is read-only,
    # so the connector retries the other transient statuses too (with backoff).
    emulator.fail_next(status, times=2)
    results = run(mode, make(emulator, max_retries=2, retry_backoff_factor=0.01), query="jitter")
    assert [r.name for r in results] == ["Backoff strategies"]
    assert len(emulator.bodies()) == 3
    emulator.fail_next(429, times=5)
    with pytest.raises(RateLimitError) as info:
        run(mode, make(emulator, max_retries=1, retry_backoff_factor=0.01))
    assert info.value.retry_after is None
    assert len(emulator.bodies()) == 3 + 2


def test_long_retry_after_is_not_waited_for(emulator: AzureSearchEmulator, mode: str) -> None:
    # Waiting max_retry_wait (60 s) would be refused again; the caller gets the wait at once.
    # A wait of any length is caught by the bound (half of it) and a retry by the count.
    emulator.fail_next(429, retry_after="120", times=5)
    started = time.monotonic()
    with pytest.raises(RateLimitError) as info:
        run(mode, make(emulator, max_retries=3, max_retry_wait=60))
    assert time.monotonic() - started < 30
    assert info.value.retry_after == 120.0
    assert len(emulator.bodies()) == 1


def test_unavailable_after_retries(emulator: AzureSearchEmulator, mode: str) -> None:
    emulator.fail_next(503, times=3)
    with pytest.raises(ServiceUnavailableError) as info:
        run(mode, make(emulator, max_retries=1, retry_backoff_factor=0.01))
    assert info.value.status_code == 503
    assert len(emulator.bodies()) == 2
    emulator.faults.clear()
    emulator.fail_next(503)
    assert run(mode, make(emulator, max_retries=1, retry_backoff_factor=0.01), query="jitter")


def test_slow_answer_is_a_timeout(emulator: AzureSearchEmulator, mode: str) -> None:
    # The answer would come after 30 s: only the 0.3 s timeout ends it (a margin of 10x
    # the quiet figure below the delay).
    emulator.delay_next(30)
    started = time.monotonic()
    with pytest.raises(SearchTimeoutError) as info:
        run(mode, make(emulator, timeout=0.3, api_key="secret-for-timeout"))
    assert time.monotonic() - started < 15
    assert emulator.endpoint in str(info.value)
    assert "secret-for-timeout" not in str(info.value)


def test_slow_answer_is_retried(emulator: AzureSearchEmulator, mode: str) -> None:
    # A search is read-only, so a read timeout is retried although the SDK sends it as POST.
    # The first answer would come after 30 s; the second request proves the retry.
    emulator.delay_next(30)
    started = time.monotonic()
    search = make(emulator, timeout=0.5, max_retries=1, retry_backoff_factor=0.01)
    results = run(mode, search, query="jitter")
    assert [r.name for r in results] == ["Backoff strategies"]
    assert len(emulator.bodies()) == 2
    assert time.monotonic() - started < 15


def test_connection_refused_is_a_transport_error(mode: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    search = AzureAISearchTextSearch(
        endpoint=endpoint, index_name="kb-docs", api_key="secret-xyz", max_retries=0
    )
    with pytest.raises(SearchTransportError) as info:
        run(mode, search)
    assert not isinstance(info.value, SearchTimeoutError)
    assert endpoint in str(info.value) and "secret-xyz" not in str(info.value)


# -- logging ----------------------------------------------------------------------------------


def _records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "textsearch"]


def test_one_log_record_per_search_without_key_or_query_above_debug(
    emulator: AzureSearchEmulator, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="textsearch")
    run(mode, make(emulator, api_key=KEY), query="jitter secret-query")
    (record,) = _records(caplog)
    assert record.levelno == logging.INFO
    message = record.getMessage()
    assert "index=kb-docs" in message and "results=1" in message and "latency_ms=" in message
    assert "secret-query" not in message and KEY not in message
    caplog.clear()
    caplog.set_level(logging.DEBUG, logger="textsearch")
    run(mode, make(emulator), query="jitter secret-query")
    (record,) = _records(caplog)
    assert "secret-query" in record.getMessage()
    assert KEY not in caplog.text


def test_failed_search_logs_one_warning(
    emulator: AzureSearchEmulator, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="textsearch")
    with pytest.raises(NotFoundError):
        run(mode, make(emulator, index_name="gone"), query="secret-query")
    (record,) = _records(caplog)
    assert record.levelno == logging.WARNING
    assert "NotFoundError" in record.getMessage() and "secret-query" not in record.getMessage()


# -- malformed answers and other statuses ------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "fault", "error"),
    [
        (200, {"raw": b"{not json"}, ResponseFormatError),
        (200, {"raw": b""}, ResponseFormatError),
        (200, {"body": {"value": "x"}}, ResponseFormatError),
        (200, {"body": {"value": [1, 2]}}, ResponseFormatError),
        (200, {"body": {"value": [{"@search.score": "high"}]}}, ResponseFormatError),
        (200, {"body": {"@odata.count": "many", "value": []}}, ResponseFormatError),
        (402, {}, QuotaExceededError),
        (418, {}, ProviderError),
        (500, {"raw": b"<html>oops</html>"}, ServiceUnavailableError),
    ],
)
def test_malformed_answers_and_other_statuses(
    emulator: AzureSearchEmulator,
    mode: str,
    status: int,
    fault: dict[str, Any],
    error: type[Exception],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="textsearch")
    emulator.fail_next(status, **fault)
    with pytest.raises(error) as info:
        run(mode, make(emulator), include_total_count=True)
    assert type(info.value) is error
    assert len(_records(caplog)) == 1


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "12"}, 12.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"x-ms-retry-after-ms": "250"}, 0.25),
        ({"Retry-After": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_parsing(headers: dict[str, str] | None, seconds: float | None) -> None:
    from textsearch.connectors.azure._search import _retry_after_seconds

    assert _retry_after_seconds(headers) == seconds


def test_retry_after_http_date() -> None:
    from email.utils import formatdate

    from textsearch.connectors.azure._search import _retry_after_seconds

    value = _retry_after_seconds({"Retry-After": formatdate(time.time() + 30, usegmt=True)})
    assert value is not None and 25 <= value <= 31


def test_the_sdk_error_with_the_key_is_not_chained(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    with pytest.raises(AuthenticationError) as info:
        run(mode, make(emulator, api_key="wrong-secret-key"))
    chained: list[BaseException] = []
    error: BaseException | None = info.value
    while error is not None and error not in chained:
        chained.append(error)
        error = error.__cause__ or error.__context__
    assert len(chained) == 2  # our error, then a detached copy of the SDK's
    cause = chained[1]
    assert type(cause).__name__ == "ClientAuthenticationError"
    assert cause.__traceback__ is None
    assert getattr(cause, "response", None) is None
