"""A connector used after ``close()``: on every transport it opens again, and closes again.

(Pool exhaustion from many threads is in tests/test_http_urllib3.py.) Warnings are errors in
this suite, so an unclosed session or socket left behind fails the test.
"""

from __future__ import annotations

import asyncio
import gc

import pytest

from tests.emulators.web import Reply, serve
from tests.test_http import BING_OK, bing


@pytest.mark.parametrize("transport", ["httpx", "urllib3", "aiohttp", "fast"])
def test_search_after_close_reopens_and_close_releases_again(transport: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url, transport=transport)
        assert len(connector.search_sync("walrus")) == 1
        connector.close()
        assert len(connector.search_sync("walrus")) == 1  # reopened, not a raw error
        connector.close()
        connector.close()  # closing twice is harmless

        async def scenario() -> None:
            assert len(await connector.search("walrus")) == 1
            await connector.aclose()
            assert len(await connector.search("walrus")) == 1
            await connector.aclose()

        asyncio.run(scenario())
        gc.collect()  # an unclosed session would warn here (warnings are errors)


def test_threads_racing_close_and_search_get_answers_or_nothing_raw() -> None:
    import threading

    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url, transport="urllib3")
        errors: list[BaseException] = []

        def worker() -> None:
            for _ in range(20):
                try:
                    connector.search_sync("walrus")
                except Exception as exc:  # only documented errors may appear
                    errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for _ in range(10):
            connector.close()
        for thread in threads:
            thread.join()
        connector.close()
    from textsearch import TextSearchError

    assert all(isinstance(e, TextSearchError) for e in errors), errors
