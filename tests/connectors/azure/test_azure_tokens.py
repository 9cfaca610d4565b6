"""Azure AI Search: bearer tokens echoed back, a caller's own SDK clients and transports, and
azure-core's WARNING records, through the real SDK clients (async and sync) and the emulator.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest
from azure.core.credentials import AccessToken

from tests.connectors.azure.test_azure_ai_search import KEY, make, run
from tests.connectors.azure.test_azure_hardening import _everything_about
from tests.emulators import azure_faults
from tests.emulators.azure_search import AzureSearchEmulator
from textsearch import (
    AzureAISearchTextSearch,
    ProviderError,
    ResponseFormatError,
    SearchTimeoutError,
    TextSearchError,
)


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture(params=["async", "sync"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class RotatingToken:
    """A credential whose token expires at once, so azure-core fetches a new one per request."""

    def __init__(self) -> None:
        self.issued: list[str] = []

    def _next(self) -> AccessToken:
        token = f"eyJ0eXAi.rotating-secret-{len(self.issued)}-{time.monotonic_ns()}"
        self.issued.append(token)
        # Inside azure-core's refresh window: every request asks for a token again.
        return AccessToken(token, int(time.time()) + 5)

    def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return self._next()


class AsyncRotatingToken(RotatingToken):
    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:  # type: ignore[override]
        return self._next()


def _credential(mode: str) -> RotatingToken:
    return AsyncRotatingToken() if mode == "async" else RotatingToken()


def _raises(mode: str, search: AzureAISearchTextSearch) -> TextSearchError:
    with pytest.raises(TextSearchError) as info:
        run(mode, search)
    return info.value


# -- 1. bearer tokens -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403, 500])
def test_an_echoed_bearer_token_is_scrubbed_everywhere(
    emulator: AzureSearchEmulator, mode: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    credential = _credential(mode)
    emulator.answer_next(azure_faults.echo_key(status), times=5)
    search = make(
        emulator,
        credential=credential,
        max_retries=2,
        retry_backoff_factor=0.01,
        client_kwargs={"logging_enable": True},
    )
    with caplog.at_level(logging.DEBUG):
        error = _raises(mode, search)
    sent = [r.headers.get("Authorization", "") for r in emulator.search_requests()]
    assert sent and all(h.startswith("Bearer ") for h in sent)
    tokens = {h.partition(" ")[2] for h in sent}
    assert tokens <= set(credential.issued)
    if status == 500:
        assert len(tokens) >= 2  # the token changed between attempts: each one is scrubbed
    text = _everything_about(error)
    logged = "\n".join(
        f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''} {vars(r)!r}"
        for r in caplog.records
    )
    for token in tokens:
        assert token not in text
        assert token not in logged
    assert "***" in str(error)
    assert any(r.name.startswith("azure") for r in caplog.records)


def test_tokens_are_never_shown_by_the_connector(emulator: AzureSearchEmulator) -> None:
    credential = RotatingToken()
    emulator.answer_next(azure_faults.echo_key(403))
    search = make(emulator, credential=credential)
    with pytest.raises(ProviderError):
        run("sync", search)
    assert credential.issued
    assert all(t not in repr(search) for t in credential.issued)


# -- 2. a caller's own SDK clients ------------------------------------------------------------


def _sync_client(emulator: AzureSearchEmulator, **kwargs: Any) -> Any:
    from azure.core.credentials import AzureKeyCredential
    from azure.search.documents import SearchClient

    return SearchClient(emulator.endpoint, "kb-docs", AzureKeyCredential(KEY), **kwargs)


def _async_client(emulator: AzureSearchEmulator, **kwargs: Any) -> Any:
    from azure.core.credentials import AzureKeyCredential
    from azure.search.documents.aio import SearchClient

    return SearchClient(emulator.endpoint, "kb-docs", AzureKeyCredential(KEY), **kwargs)


def test_an_injected_client_gets_the_size_cap(emulator: AzureSearchEmulator, mode: str) -> None:
    emulator.answer_next(azure_faults.gzip_bomb(64 << 20))
    if mode == "sync":
        client = _sync_client(emulator, retry_total=0)
        with client:
            search = AzureAISearchTextSearch(sync_search_client=client, max_response_bytes=1 << 20)
            with pytest.raises(ResponseFormatError, match="more than 1048576 bytes"):
                search.search_sync("retry")
            # The caller's own use of the client is untouched by the connector.
            assert [d["id"] for d in client.search("retry", top=1)]
        return

    async def go() -> None:
        async with _async_client(emulator, retry_total=0) as client:
            search = AzureAISearchTextSearch(search_client=client, max_response_bytes=1 << 20)
            with pytest.raises(ResponseFormatError, match="more than 1048576 bytes"):
                await search.search("retry")
            assert [d["id"] async for d in await client.search("retry", top=1)]

    asyncio.run(go())


def test_an_injected_client_scrubs_an_echoed_token(emulator: AzureSearchEmulator) -> None:
    from azure.search.documents import SearchClient

    credential = RotatingToken()
    emulator.answer_next(azure_faults.echo_key(403))
    client = SearchClient(emulator.endpoint, "kb-docs", credential, retry_total=0)
    with client:
        with pytest.raises(ProviderError) as info:
            # The emulator speaks plain http on loopback: the caller allows the bearer token.
            AzureAISearchTextSearch(
                sync_search_client=client, search_kwargs={"enforce_https": False}
            ).search_sync("retry")
    assert credential.issued
    text = _everything_about(info.value)
    assert all(t not in text for t in credential.issued)


def test_an_injected_client_stops_at_the_deadline_async(emulator: AzureSearchEmulator) -> None:
    import threading

    stop = threading.Event()
    emulator.answer_next(azure_faults.drip(in_headers=False, interval=0.05, stop=stop))

    async def go() -> None:
        async with _async_client(emulator, retry_total=0, read_timeout=5) as client:
            search = AzureAISearchTextSearch(search_client=client, deadline=1.0)
            with pytest.raises(SearchTimeoutError):
                await search.search("retry")

    started = time.monotonic()
    try:
        asyncio.run(go())
    finally:
        stop.set()
    assert time.monotonic() - started < 10  # the drip lasts an hour; ten times the deadline


def test_an_injected_sync_client_does_not_start_an_attempt_past_the_deadline(
    emulator: AzureSearchEmulator,
) -> None:
    # Retry-After 30 s is allowed by the caller's client, not by the 1 s deadline: waiting
    # it would pass the bound below, which no load reaches.
    emulator.fail_next(503, retry_after="30", times=5)
    client = _sync_client(emulator, retry_total=3)
    started = time.monotonic()
    with client:
        with pytest.raises(SearchTimeoutError):
            AzureAISearchTextSearch(sync_search_client=client, deadline=1.0).search_sync("retry")
    assert time.monotonic() - started < 10
    assert len(emulator.search_requests()) == 1


# -- azure-core WARNING records ----------------------------------------------------------------


_HTML_ERROR = azure_faults.raw_answer(
    500, b"<html><body>502 Bad Gateway</body></html>", {"Content-Type": "text/html"}
)


def test_azure_core_warning_tracebacks_stay_quiet(
    emulator: AzureSearchEmulator, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    # An error body that is not JSON: the SDK logs "Ran into a deserialization error" as a
    # WARNING with a traceback, although the connector reports the failure itself.
    emulator.answer_next(_HTML_ERROR, times=3)
    with caplog.at_level(logging.WARNING):
        error = _raises(mode, make(emulator))
    assert isinstance(error, ProviderError) and error.status_code == 500
    loud = [r for r in caplog.records if r.name.startswith("azure") and r.levelno >= 30]
    assert loud == []


def test_no_azure_traceback_reaches_stderr_without_logging_configured(
    emulator: AzureSearchEmulator,
) -> None:
    emulator.answer_next(_HTML_ERROR, times=3)
    script = textwrap.dedent(
        f"""
        from textsearch import AzureAISearchTextSearch, ProviderError
        s = AzureAISearchTextSearch(endpoint={emulator.endpoint!r}, index_name="kb-docs",
                                    api_key={KEY!r}, max_retries=0)
        try:
            s.search_sync("retry")
        except ProviderError as e:
            print("mapped", e.status_code)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert "mapped 500" in done.stdout
    assert "deserialization" not in done.stderr
    assert "Traceback" not in done.stderr


# -- 3. a caller's own blocking transport, dripping ------------------------------------------


def _drip_search(
    emulator: AzureSearchEmulator, in_headers: bool, build: Any
) -> tuple[TextSearchError, float]:
    """Search once against a drip server; then the same connector must still work."""
    import threading

    stop = threading.Event()
    emulator.answer_next(azure_faults.drip(in_headers=in_headers, interval=0.05, stop=stop))
    search = build()
    # The drip would last over an hour: cut after a minute, a client without a deadline
    # fails (not with a timeout) instead of hanging the run.
    limit = threading.Timer(60.0, stop.set)
    limit.daemon = True
    limit.start()
    started = time.monotonic()
    try:
        with pytest.raises(TextSearchError) as info:
            search.search_sync("retry")
    finally:
        stop.set()
        limit.cancel()
    elapsed = time.monotonic() - started
    try:
        assert len(search.search_sync("retry")) > 0
    finally:
        search.close()
    return info.value, elapsed


@pytest.mark.parametrize("in_headers", [True, False], ids=["headers", "body"])
def test_a_callers_sync_transport_dripping_is_cut_at_the_deadline(
    emulator: AzureSearchEmulator, in_headers: bool
) -> None:
    from azure.core.pipeline.transport import RequestsTransport

    transport = RequestsTransport()
    error, elapsed = _drip_search(
        emulator,
        in_headers,
        lambda: make(emulator, timeout=5.0, deadline=1.0, client_kwargs={"transport": transport}),
    )
    assert isinstance(error, SearchTimeoutError)
    # the read timeout (5 s) never fires (a byte every 0.05 s): only the 1 s deadline ends
    # it; ten times that is the margin for a loaded machine
    assert elapsed < 10, elapsed
    print(f"\ncaller's transport, drip in {'headers' if in_headers else 'body'}: {elapsed:.2f} s")


@pytest.mark.parametrize("in_headers", [True, False], ids=["headers", "body"])
def test_an_injected_sync_client_dripping_is_cut_at_the_deadline(
    emulator: AzureSearchEmulator, in_headers: bool
) -> None:
    client = _sync_client(emulator, retry_total=0, read_timeout=5)
    with client:
        error, elapsed = _drip_search(
            emulator,
            in_headers,
            lambda: AzureAISearchTextSearch(sync_search_client=client, deadline=1.0),
        )
        assert isinstance(error, SearchTimeoutError)
        assert elapsed < 10, elapsed  # ten times the 1 s deadline
        print(f"\ninjected client, drip in {'headers' if in_headers else 'body'}: {elapsed:.2f} s")
        assert [d["id"] for d in client.search("retry", top=1)]  # the caller's client still works
