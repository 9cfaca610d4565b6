"""Azure AI Search under attack and under stress (issue 9 section 1), through the real
azure-search-documents clients (async and sync) and the loopback emulator's wire faults:
redirects to another origin, gzip bombs, drip servers, echoed keys, broken error bodies."""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Iterator
from typing import Any

import pytest

from tests.connectors.azure.test_azure_ai_search import KEY, make, run
from tests.emulators import azure_faults
from tests.emulators.azure_search import AzureSearchEmulator
from textsearch import (
    AzureAISearchTextSearch,
    ConfigurationError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    TextSearchError,
)


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture
def other_origin() -> Iterator[AzureSearchEmulator]:
    """A second server on another port of 127.0.0.1: another origin, accepting the same key."""
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture(params=["async", "sync"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _raises(mode: str, search: AzureAISearchTextSearch, **options: Any) -> TextSearchError:
    with pytest.raises(TextSearchError) as info:
        run(mode, search, **options)
    return info.value


# -- redirects ------------------------------------------------------------------------------


def _to(server: AzureSearchEmulator) -> Any:
    return lambda path: server.endpoint + path


def test_cross_origin_redirect_is_not_followed_with_the_key(
    emulator: AzureSearchEmulator, other_origin: AzureSearchEmulator, mode: str
) -> None:
    emulator.answer_next(azure_faults.redirect(_to(other_origin), status=307))
    error = _raises(mode, make(emulator))
    assert isinstance(error, ProviderError) and error.status_code == 307
    assert "another origin" in str(error)
    assert other_origin.requests == []  # nothing at all reached the other origin


@pytest.mark.parametrize("status", [301, 302, 308])
def test_other_redirect_statuses_do_not_carry_the_key_either(
    emulator: AzureSearchEmulator, other_origin: AzureSearchEmulator, status: int
) -> None:
    emulator.answer_next(azure_faults.redirect(_to(other_origin), status=status))
    with pytest.raises(ProviderError):
        run("sync", make(emulator))
    assert all("api-key" not in {k.lower() for k in r.headers} for r in other_origin.requests)


def test_same_origin_redirect_is_followed(emulator: AzureSearchEmulator, mode: str) -> None:
    emulator.answer_next(azure_faults.redirect(_to(emulator), status=307))
    results = run(mode, make(emulator))
    assert len(results) > 0
    assert len(emulator.search_requests()) == 2


def test_a_same_origin_redirect_loop_stops_at_the_engines_limit(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    from textsearch._http._guards import MAX_REDIRECTS

    emulator.answer_next(azure_faults.redirect(_to(emulator), status=307), times=50)
    error = _raises(mode, make(emulator, max_retries=0))
    assert isinstance(error, TextSearchError)
    # The first request and MAX_REDIRECTS hops, as on every other path (azure-core: 30).
    assert len(emulator.search_requests()) == MAX_REDIRECTS + 1


def test_a_users_redirect_policy_or_transport_does_not_reopen_the_hole(
    emulator: AzureSearchEmulator, other_origin: AzureSearchEmulator, mode: str
) -> None:
    from azure.core.pipeline.policies import AsyncRedirectPolicy, RedirectPolicy
    from azure.core.pipeline.transport import AioHttpTransport, RequestsTransport

    policy = AsyncRedirectPolicy() if mode == "async" else RedirectPolicy()
    for kwargs in (
        {"redirect_policy": policy},
        {"transport": AioHttpTransport() if mode == "async" else RequestsTransport()},
    ):
        emulator.answer_next(azure_faults.redirect(_to(other_origin), status=307))
        error = _raises(mode, make(emulator, client_kwargs=kwargs))
        assert isinstance(error, ProviderError) and error.status_code == 307
    assert other_origin.requests == []


def test_injected_clients_do_not_follow_redirects(
    emulator: AzureSearchEmulator, other_origin: AzureSearchEmulator
) -> None:
    from azure.core.credentials import AzureKeyCredential
    from azure.search.documents import SearchClient
    from azure.search.documents.aio import SearchClient as AsyncSearchClient

    credential = AzureKeyCredential(KEY)
    emulator.answer_next(azure_faults.redirect(_to(other_origin), status=308), times=2)
    sync_client = SearchClient(emulator.endpoint, "kb-docs", credential, retry_total=0)
    search = AzureAISearchTextSearch(sync_search_client=sync_client)
    with pytest.raises(ProviderError):
        search.search_sync("retry")
    sync_client.close()

    async def go() -> None:
        async with AsyncSearchClient(
            emulator.endpoint, "kb-docs", credential, retry_total=0
        ) as client:
            with pytest.raises(ProviderError):
                await AzureAISearchTextSearch(search_client=client).search("retry")

    asyncio.run(go())
    assert other_origin.requests == []


# -- size cap ---------------------------------------------------------------------------------


def test_gzip_bomb_is_cut_at_the_cap(emulator: AzureSearchEmulator, mode: str) -> None:
    emulator.answer_next(azure_faults.gzip_bomb(1 << 30))
    started = time.monotonic()
    error = _raises(mode, make(emulator, max_response_bytes=8 * 1024 * 1024))
    elapsed = time.monotonic() - started
    assert isinstance(error, ResponseFormatError)
    assert "more than 8388608 bytes" in str(error)
    # Not a timed assertion: printed for the report (pytest -s).
    print(f"\ngzip bomb 1 GiB ({mode}): refused after {elapsed:.2f} s")


def test_the_default_cap_is_the_one_of_every_connector(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    from textsearch._http import DEFAULT_MAX_RESPONSE_BYTES

    emulator.answer_next(azure_faults.gzip_bomb(64 << 20))
    error = _raises(mode, make(emulator))
    assert isinstance(error, ResponseFormatError)
    assert f"more than {DEFAULT_MAX_RESPONSE_BYTES} bytes" in str(error)


def test_gzip_bomb_in_an_error_answer_is_cut_too(emulator: AzureSearchEmulator) -> None:
    emulator.answer_next(azure_faults.gzip_bomb(64 << 20, status=500))
    error = _raises("sync", make(emulator, max_response_bytes=1 << 20))
    assert isinstance(error, ResponseFormatError)


def test_a_compressed_answer_below_the_cap_is_read(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    import gzip
    import json

    body = gzip.compress(
        json.dumps({"value": [{"@search.score": 1.0, "id": "z", "title": "Zipped"}]}).encode()
    )
    emulator.answer_next(azure_faults.raw_answer(200, body, {"Content-Encoding": "gzip"}))
    results = run(mode, make(emulator))
    assert [r.name for r in results] == ["Zipped"]


def test_bad_size_cap_and_deadline_are_refused(emulator: AzureSearchEmulator) -> None:
    for kwargs in ({"max_response_bytes": 0}, {"deadline": 0}, {"deadline": True}):
        with pytest.raises(ConfigurationError):
            make(emulator, **kwargs)


# -- total deadline ---------------------------------------------------------------------------


@pytest.mark.parametrize("in_headers", [True, False], ids=["headers", "body"])
def test_drip_server_is_cut_at_the_deadline(
    emulator: AzureSearchEmulator, mode: str, in_headers: bool
) -> None:
    import threading

    stop = threading.Event()
    emulator.answer_next(azure_faults.drip(in_headers=in_headers, interval=0.05, stop=stop))
    # The read timeout (2 s) never fires: a byte arrives every 0.05 s.
    search = make(emulator, timeout=2.0, deadline=1.0, max_retries=2)
    started = time.monotonic()
    try:
        error = _raises(mode, search)
    finally:
        stop.set()
    elapsed = time.monotonic() - started
    assert isinstance(error, SearchTimeoutError)
    assert "1 s deadline" in str(error)
    print(f"\ndrip in {'headers' if in_headers else 'body'} ({mode}): cut after {elapsed:.2f} s")
    assert len(emulator.search_requests()) == 1  # no retry after the deadline


def test_retry_waits_count_against_the_deadline(emulator: AzureSearchEmulator, mode: str) -> None:
    # Retry-After 30 s is allowed by max_retry_wait but not by the 1 s deadline.
    emulator.fail_next(503, retry_after="30", times=5)
    started = time.monotonic()
    error = _raises(mode, make(emulator, deadline=1.0, max_retries=3, max_retry_wait=60))
    assert isinstance(error, SearchTimeoutError)
    assert time.monotonic() - started < 10  # did not sleep the 30 s
    assert len(emulator.search_requests()) == 1


def test_the_default_deadline_is_sixty_seconds(emulator: AzureSearchEmulator) -> None:
    assert make(emulator).deadline == 60.0


# -- keys echoed back -------------------------------------------------------------------------


def _everything_about(error: BaseException) -> str:
    parts = [str(error), repr(error), repr(getattr(error, "code", None))]
    parts += [str(h) for h in getattr(error, "hints", None) or []]
    parts.append("".join(traceback.format_exception(error)))
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        parts += [str(link), repr(link), repr(vars(link)) if hasattr(link, "__dict__") else ""]
        link = link.__cause__ or link.__context__
    return "\n".join(parts)


@pytest.mark.parametrize("status", [400, 401, 403, 429, 500])
def test_an_echoed_key_is_scrubbed_everywhere(
    emulator: AzureSearchEmulator, mode: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    emulator.answer_next(azure_faults.echo_key(status), times=5)
    with caplog.at_level(logging.DEBUG):
        error = _raises(mode, make(emulator))
    text = _everything_about(error)
    assert KEY not in text
    assert "***" in str(error)
    chained = error.__cause__
    assert chained is not None and getattr(chained, "response", None) is None
    assert getattr(chained, "__traceback__", None) is None
    logged = "\n".join(f"{r.name} {r.getMessage()} {r.args!r} {vars(r)!r}" for r in caplog.records)
    assert KEY not in logged
    assert any(r.name == "textsearch" for r in caplog.records)


def test_an_echoed_key_is_not_logged_with_azure_core_network_logging(
    emulator: AzureSearchEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    emulator.answer_next(azure_faults.echo_key(403))
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(PermissionDeniedError) as info:
            run("sync", make(emulator, client_kwargs={"logging_enable": True}))
    assert KEY not in _everything_about(info.value)
    names = {r.name.split(".")[0] for r in caplog.records}
    assert "azure" in names  # azure-core did log the exchange
    assert KEY not in "\n".join(r.getMessage() for r in caplog.records)


# -- error mapping ----------------------------------------------------------------------------


def test_deeply_nested_error_body_is_not_a_recursion_error(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    emulator.answer_next(azure_faults.deeply_nested(400))
    error = _raises(mode, make(emulator))
    assert isinstance(error, ProviderError) and error.status_code == 400


def test_deeply_nested_success_body_is_a_format_error(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    body = b'{"value": [{"id": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}]}"
    emulator.answer_next(azure_faults.raw_answer(200, body))
    error = _raises(mode, make(emulator))
    assert isinstance(error, ResponseFormatError)


def test_garbage_retry_after_is_still_a_rate_limit(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    emulator.fail_next(429, retry_after="soon, maybe", times=3)
    error = _raises(mode, make(emulator, max_retries=1, retry_backoff_factor=0.01))
    assert isinstance(error, RateLimitError)
    assert error.retry_after is None
    assert len(emulator.search_requests()) == 2  # retried once


def test_retry_after_longer_than_max_retry_wait_raises_at_once_with_it(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    emulator.fail_next(429, retry_after="86400", times=3)
    started = time.monotonic()
    # a wait of max_retry_wait (60 s) would pass the bound below; the count shows no retry
    error = _raises(mode, make(emulator, max_retries=3, max_retry_wait=60))
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 86400
    assert len(emulator.search_requests()) == 1
    assert time.monotonic() - started < 30


def test_connection_reset_mid_body_is_a_transport_error(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    emulator.answer_next(azure_faults.reset_mid_body(), times=3)
    error = _raises(mode, make(emulator, max_retries=0))
    assert type(error) is SearchTransportError


def test_a_bearer_token_is_not_sent_to_another_origin(
    emulator: AzureSearchEmulator, other_origin: AzureSearchEmulator, mode: str
) -> None:
    from tests.connectors.azure.test_azure_ai_search import FakeAsyncToken, FakeToken

    credential: Any = FakeAsyncToken() if mode == "async" else FakeToken()
    emulator.answer_next(azure_faults.redirect(_to(other_origin), status=307))
    error = _raises(mode, make(emulator, credential=credential))
    assert isinstance(error, ProviderError) and error.status_code == 307
    assert emulator.search_requests()[0].headers.get("Authorization", "").startswith("Bearer ")
    assert other_origin.requests == []


def test_a_callers_transport_still_stops_a_silent_server_at_the_deadline(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    from azure.core.pipeline.transport import AioHttpTransport, RequestsTransport

    # No watchdog for a transport the connector did not build: the read timeout of the
    # attempt is shortened to the time left instead.
    transport = AioHttpTransport() if mode == "async" else RequestsTransport()
    emulator.delay_next(30.0)  # silent far past ten times the deadline
    search = make(emulator, timeout=30, deadline=1.0, client_kwargs={"transport": transport})
    started = time.monotonic()
    error = _raises(mode, search)
    assert isinstance(error, SearchTimeoutError)
    assert time.monotonic() - started < 10
