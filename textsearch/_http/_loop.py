"""Pooled async connections closed in their own event loop, even when that loop just ends.

A pooled connection (an ``httpx.AsyncClient``'s, an ``aiohttp.ClientSession``'s) belongs to
the event loop it was opened in, and can only be closed by awaiting in that loop. A caller
who runs a connector with ``asyncio.run(connector.search(...))`` and never calls
``aclose()`` ends that loop with the connections still open; once the loop is closed
nothing can close them, and their sockets are left for the garbage collector, which warns
(``ResourceWarning: unclosed transport``) in whatever code happens to run then.

``asyncio.run`` (like ``asyncio.Runner`` and every well-behaved loop owner) ends a loop by
closing the async generators still suspended in it (``loop.shutdown_asyncgens()``), while
the loop still runs. An async generator parked at its ``yield`` is thus a "this loop is
ending" hook that needs no help from the caller: `LoopCloser` parks one per pooled
resource, and its ``finally`` awaits the resource's close in the right loop. A resource
dropped while its loop runs is closed the same way (the loop's finalizer hook for a
collected generator schedules its ``aclose()``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import AsyncGenerator, Awaitable, Callable

__all__ = ["LoopCloser"]

#: Closes scheduled in a loop from outside it, kept until done (a loop holds tasks weakly).
_PENDING: set[concurrent.futures.Future[None]] = set()


async def _close_at_end(close: Callable[[], Awaitable[object]]) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await close()


class LoopCloser:
    """Closes one async resource in the event loop it was opened in.

    Made inside that (running) loop, right after the resource; the owner keeps it as long
    as the resource (the loop only holds the hook weakly).

    Args:
        close: Closes the resource (for example ``client.aclose``); awaited once, in the
            resource's loop: when `aclose` or `release` is called, or when the
            loop shuts down first.
    """

    __slots__ = ("_hook", "loop")

    def __init__(self, close: Callable[[], Awaitable[object]]) -> None:
        self.loop = asyncio.get_running_loop()
        self._hook = _close_at_end(close)
        # Creating the first step registers the generator with the running loop (its
        # firstiter hook); running that step brings it to its yield, which awaits nothing,
        # so it completes here without the loop's help.
        step = self._hook.asend(None)
        try:
            step.send(None)
        except StopIteration:
            pass

    async def aclose(self) -> None:
        """Close the resource now: awaited here in its own loop, else as `release` does.

        A second call does nothing.
        """
        if self.loop is asyncio.get_running_loop():
            await self._hook.aclose()
        else:
            self.release()  # it belongs to another (maybe closed) loop

    def release(self) -> None:
        """Close the resource from outside its loop, as far as that loop still allows.

        A closed loop closed the resource as it ended (or, when its owner closed it without
        shutting its generators down, left nothing that can still be awaited); a running
        one (in this thread or another) is handed the close; an idle one runs it now.
        """
        loop = self.loop
        if loop.is_closed():
            return
        if loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self._hook.aclose(), loop)
            _PENDING.add(future)
            future.add_done_callback(_PENDING.discard)
        else:
            loop.run_until_complete(self._hook.aclose())
