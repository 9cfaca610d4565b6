"""Failures inside native extensions (Rust through pyo3) as documented errors.

A Rust panic reaches Python as ``pyo3_runtime.PanicException``, which derives from
``BaseException``: an ``except Exception`` lets it through, and it would end a tool call,
an MCP request or the process's worker thread. The code that calls a native library
turns it into a `ProviderError` here, in one place.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from textsearch.errors import ProviderError

__all__ = ["is_native_panic", "native_calls", "panic_error"]


def is_native_panic(exc: BaseException) -> bool:
    """Whether ``exc`` is a panic a pyo3 extension raised (each has its own class)."""
    if isinstance(exc, Exception):
        return False
    return any(
        kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"
        for kind in type(exc).__mro__
    )


def panic_error(provider: str, what: str) -> ProviderError:
    """The error a caller gets for a panic in the native library behind ``what``."""
    return ProviderError(
        f"{what} failed inside its native library",
        provider=provider,
        code="native_panic",
        hints=("the request was refused; other requests are not affected",),
    )


@contextmanager
def native_calls(provider: str, what: str) -> Iterator[None]:
    """Turn a native panic raised inside the block into `panic_error`.

    The panic is not chained (its text may quote the library's internals); every other
    exception passes unchanged.

    Raises:
        ProviderError: A native library panicked (``code="native_panic"``).
    """
    try:
        yield
        return
    except BaseException as exc:
        if not is_native_panic(exc):
            raise
        error = panic_error(provider, what)
    raise error
