"""AzureAISearchTextSearch credentials and SDK clients: token credentials, injected and owned
clients, their closing (async and sync), against the loopback emulator."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from azure.core.credentials import AzureKeyCredential

from tests.connectors.azure.test_azure_ai_search import KEY, FakeAsyncToken, FakeToken, make, run
from tests.emulators.azure_search import AzureSearchEmulator
from textsearch import (
    AuthenticationError,
    AzureAISearchTextSearch,
    ConfigurationError,
    SearchOptions,
    TextSearchFilter,
)


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture(params=["async", "sync"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- credentials and clients ------------------------------------------------------------------


def test_token_credential_over_loopback(emulator: AzureSearchEmulator, mode: str) -> None:
    credential = FakeToken()
    results = run(mode, make(emulator, credential=credential), query="jitter")
    assert [r.name for r in results] == ["Backoff strategies"]
    assert credential.calls == 1
    assert emulator.requests[-1].headers["Authorization"] == "Bearer test-bearer-token"
    with pytest.raises(AuthenticationError):
        run(mode, make(emulator, credential=FakeToken("bad-token")))


def test_async_token_credential(emulator: AzureSearchEmulator) -> None:
    credential = FakeAsyncToken()
    assert run("async", make(emulator, credential=credential), query="jitter")
    with pytest.raises(ConfigurationError, match="sync_credential"):
        make(emulator, credential=credential).search_sync("jitter")
    synced = make(emulator, credential=credential, sync_credential=FakeToken())
    assert run("sync", synced, query="jitter")


def test_injected_clients_are_used_and_not_closed(emulator: AzureSearchEmulator) -> None:
    from azure.search.documents import SearchClient
    from azure.search.documents.aio import SearchClient as AsyncSearchClient

    sync_client = SearchClient(
        emulator.endpoint, "kb-docs", AzureKeyCredential(KEY), api_version="2024-07-01"
    )
    with sync_client:
        search = AzureAISearchTextSearch(sync_search_client=sync_client)
        assert search.index_name == "kb-docs"
        with search:
            assert search.search_sync("jitter").results
        # still usable: the connector did not close what it did not create
        assert list(sync_client.search(search_text="jitter"))

    async def with_async() -> None:
        async with AsyncSearchClient(
            emulator.endpoint, "kb-docs", AzureKeyCredential(KEY), api_version="2024-07-01"
        ) as client:
            search = AzureAISearchTextSearch(search_client=client)
            async with search:
                assert (await search.search("jitter")).results
            assert [d async for d in await client.search(search_text="jitter")]

    asyncio.run(with_async())


def test_owned_client_is_reused_then_closed(emulator: AzureSearchEmulator) -> None:
    search = make(emulator)
    with search:
        search.search_sync("retry")
        first = search._owned_sync
        search.search_sync("jitter")
        assert search._owned_sync is first
    assert search._owned_sync is None
    assert search.search_sync("jitter")  # a closed connector makes a new client on demand
    search.close()


def test_async_client_is_closed_when_its_event_loop_ends(emulator: AzureSearchEmulator) -> None:
    # asyncio.run() twice without `async with`: each loop's client (and its aiohttp session
    # and sockets) must be closed in that loop, not dropped and left to the garbage collector.
    import gc
    import warnings

    search = make(emulator)

    async def once() -> int:
        return len(await search.search("jitter"))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert asyncio.run(once()) == 1
        assert asyncio.run(once()) == 1
        gc.collect()
    leaks = [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert leaks == []
    assert len(emulator.bodies()) == 2


def test_options_object_and_kwargs(emulator: AzureSearchEmulator, mode: str) -> None:
    options = SearchOptions(top=1, filter=TextSearchFilter().equal_to("category", "dev"))
    results = run(mode, make(emulator), "search", "*", options=options, top=2)
    assert len(results) == 2
    assert emulator.bodies()[-1]["filter"] == "category eq 'dev'"
