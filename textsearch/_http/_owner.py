"""What a client of a hosted model shares: the `HttpEngine` it owns, made and closed once.

Hosted embedders and rerankers send every request through their own engine. Making it (a bad
setting named with the class that took it) and closing the HTTP clients it created (never an
injected one), in a ``with`` block or by hand, is written here once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from typing_extensions import Self

from textsearch._http._engine import ErrorDetail, HttpEngine, HttpResponse
from textsearch.errors import ConfigurationError

__all__ = ["EngineOwner"]


class EngineOwner:
    """A mixin for an object that sends through an `HttpEngine` it made itself."""

    _engine: HttpEngine

    def _open_engine(
        self,
        provider: str,
        read_error: Callable[[int, HttpResponse], ErrorDetail],
        secret: str | None,
        settings: Mapping[str, Any],
    ) -> None:
        """Make the engine from the HTTP ``settings`` (names checked, defaults filled in).

        Raises:
            ConfigurationError: A bad setting, the message led by the class's name.
        """
        try:
            engine = HttpEngine(provider=provider, read_error=read_error, secret=secret, **settings)
        except ConfigurationError as exc:
            # raised outside the handler: the engine's own error is not kept as context
            error = ConfigurationError(f"{type(self).__name__}: {exc}")
        else:
            self._engine = engine
            return
        raise error

    def close(self) -> None:
        """Close the blocking HTTP client this object created (never an injected one)."""
        self._engine.close()

    async def aclose(self) -> None:
        """Close every HTTP client this object created (never an injected one)."""
        await self._engine.aclose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
