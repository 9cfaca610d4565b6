"""Calling code this package does not own: a model's adapter, a user's function.

Embedders and rerankers share these: what such a call raises becomes a documented error, a
short name says whose it was, and a callable that may be sync or async is run the right
way on either path.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, Final

from textsearch.errors import ProviderError, ResponseFormatError, TextSearchError

__all__ = [
    "IN_LOOP",
    "call_async",
    "call_blocking",
    "foreign_errors",
    "one_per_text",
    "provider_of",
]

#: What `call_blocking` returns for an async callable called inside a running event loop.
IN_LOOP: Final = object()


def provider_of(model: object) -> str:
    """A short name for a model, for errors: its ``provider_name``, else its class."""
    return str(getattr(model, "provider_name", None) or type(model).__name__)


@contextlib.contextmanager
def foreign_errors(provider: str, failed: str) -> Iterator[None]:
    """One of ours passes unchanged; anything else becomes a ``ProviderError``.

    The message starts with ``failed`` (e.g. ``"the embedder failed"``) and holds the
    original's type and message, scrubbed of known keys; the original is ``__cause__``.
    """
    try:
        yield
    except TextSearchError:
        raise
    except Exception as exc:  # every other failure becomes a documented error
        from textsearch._http._redact import scrub

        raise ProviderError(
            f"{failed}: {type(exc).__name__}: {scrub(str(exc))[:300]}", provider=provider
        ) from exc


def one_per_text(
    output: object, count: int, *, who: str, items: str, provider: str
) -> Sequence[Any]:
    """A model's output as a list of ``count`` items (a numpy array as Python lists).

    Args:
        output: What the model returned.
        count: How many texts it was given.
        who: Who returned it, for messages (``"the embedder"``).
        items: What it returns, plural (``"vectors"``).
        provider: For the error's ``provider``.

    Raises:
        ResponseFormatError: Not a list (a string is not), or not one item per text.
    """
    if type(output).__module__ == "numpy" and hasattr(output, "tolist"):
        output = output.tolist()
    if not isinstance(output, Sequence) or isinstance(output, (str, bytes)):
        raise ResponseFormatError(
            f"{who} returned {type(output).__name__}, not a list of {items}", provider=provider
        )
    if len(output) != count:
        raise ResponseFormatError(
            f"{who} returned {len(output)} {items} for {count} texts", provider=provider
        )
    return output


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


async def call_async(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` from async code: awaited, or run on a worker thread when it blocks."""
    import asyncio  # here: a blocking search never needs it

    if inspect.iscoroutinefunction(fn):
        return await fn(*args)
    result = await asyncio.to_thread(fn, *args)
    return await result if inspect.isawaitable(result) else result


def call_blocking(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` from blocking code; `IN_LOOP` for an async ``fn`` in a running loop.

    An awaitable answer runs on a private event loop when no loop runs in this thread;
    inside one it cannot (the caller says so), and a coroutine is closed unawaited.
    """
    result = fn(*args)
    if not inspect.isawaitable(result):
        return result
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(result))
    if inspect.iscoroutine(result):
        result.close()
    return IN_LOOP
