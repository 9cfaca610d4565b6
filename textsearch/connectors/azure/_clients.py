"""The Azure connector's SDK clients and what one search's read turns into.

A mixin of `AzureAISearchTextSearch`: it makes
(or guards, when injected) the async and blocking ``SearchClient``, scopes a read to the
deadline and size cap, maps a failed read to the documented error and a good one to results,
and closes the clients the connector created. The connector's constructor sets every
attribute declared here.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from textsearch._http._loop import LoopCloser
from textsearch._types import SearchResults
from textsearch.connectors.azure._errors import ENV_KEY as _ENV_KEY
from textsearch.connectors.azure._errors import (
    ErrorContext,
    log_failure,
    log_success,
    translate,
)
from textsearch.connectors.azure._parse import AzureSearchDocument, assemble
from textsearch.connectors.azure._query import _Request
from textsearch.connectors.azure._sdk import (
    _detached,
    _is_async_credential,
    _require_sdk,
    client_options,
    new_async_client,
    new_sync_client,
)
from textsearch.connectors.azure._transport import deadline_scope, guard_injected_client
from textsearch.errors import ConfigurationError, ResponseFormatError


class _Read:
    """One search's SDK read, shared by the async path and its blocking twin: what came
    back, or the documented error mapped from the failure (with its detached cause)."""

    __slots__ = ("answers", "count", "failure", "raws", "started")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.failure: tuple[Exception, BaseException] | None = None
        self.raws: list[Any] = []
        self.count: Any = None
        self.answers: Any = None


class _AzureClients:
    """The SDK clients of one connector, one read's scope and its outcome (a mixin)."""

    # Set by the connector's constructor.
    _search_client: Any
    _sync_search_client: Any
    _owned_async: Any
    _owned_async_closer: LoopCloser | None
    _owned_sync: Any
    _endpoint: str | None
    _index_name: str | None
    _secret: str | None
    _credential: Any
    _auth_kind: str
    _sync_credential: Any
    _tokens: deque[str]
    api_version: str
    timeout: float
    deadline: float
    max_retries: int
    max_retry_wait: float
    retry_backoff_factor: float
    max_response_bytes: int
    client_kwargs: dict[str, Any]
    key_fields: tuple[str, ...]

    # -- clients ------------------------------------------------------------------------------

    def _client_options(self, *, is_async: bool) -> dict[str, Any]:
        return client_options(
            is_async=is_async,
            api_version=self.api_version,
            timeout=self.timeout,
            max_retries=self.max_retries,
            backoff_factor=self.retry_backoff_factor,
            max_retry_wait=self.max_retry_wait,
            max_response_bytes=self.max_response_bytes,
            client_kwargs=self.client_kwargs,
        )

    def _key_credential(self) -> Any:
        if self._credential is not None:
            return self._credential
        from azure.core.credentials import AzureKeyCredential

        return AzureKeyCredential(self._secret or "")

    def _need_location(self) -> tuple[str, str]:
        if not self._endpoint or not self._index_name:
            raise ConfigurationError(
                "cannot create an Azure SDK client: the endpoint or index name is unknown "
                "(pass endpoint= and index_name=, or inject both clients)"
            )
        if self._secret is None and self._credential is None:
            raise ConfigurationError(
                "cannot create an Azure SDK client without a key or credential; pass api_key= "
                f"or credential= (or set {_ENV_KEY}), or inject the client"
            )
        return self._endpoint, self._index_name

    async def _async_client(self) -> Any:
        if self._search_client is not None:
            guard_injected_client(self._search_client, is_async=True)
            return self._search_client
        closer = self._owned_async_closer
        if closer is not None:
            if closer.loop is asyncio.get_running_loop():
                return self._owned_async
            closer.release()  # made in another loop (maybe one already ended)
        endpoint, index = self._need_location()
        client = new_async_client(
            endpoint, index, self._key_credential(), self._client_options(is_async=True)
        )
        # The client's aiohttp session belongs to this loop: closed there by aclose(), or as
        # the loop ends when the caller never uses ``async with`` (textsearch._http._loop).
        self._owned_async = client
        self._owned_async_closer = LoopCloser(client.close)
        return client

    def _sync_client(self) -> Any:
        if self._sync_search_client is not None:
            guard_injected_client(self._sync_search_client, is_async=False)
            return self._sync_search_client
        if self._owned_sync is not None:
            return self._owned_sync
        endpoint, index = self._need_location()
        _require_sdk()
        credential: Any
        if self._auth_kind == "token credential":
            credential = self._sync_credential or self._credential
            if _is_async_credential(credential):
                raise ConfigurationError(
                    "the blocking *_sync methods need a synchronous token credential; pass "
                    "sync_credential= (e.g. azure.identity.DefaultAzureCredential()) or use "
                    "the async methods"
                )
        else:
            credential = self._key_credential()
        self._owned_sync = new_sync_client(
            endpoint, index, credential, self._client_options(is_async=False)
        )
        return self._owned_sync

    # -- one read -----------------------------------------------------------------------------

    def _scope(self) -> Any:
        return deadline_scope(self.deadline, max_bytes=self.max_response_bytes, tokens=self._tokens)

    def _per_call_options(self) -> dict[str, Any]:
        """Per-call SDK options: no redirects through a pipeline the connector did not build."""
        injected = self._search_client is not None or self._sync_search_client is not None
        if injected or "redirect_policy" in self.client_kwargs:
            return {"permit_redirects": False}
        return {}

    def _failure(
        self, query: str, started: float, exc: BaseException, deadline: float
    ) -> tuple[Exception, BaseException] | None:
        """Map and log an SDK failure; ``None`` means: re-raise it as it is."""
        mapped = translate(exc, self._error_context(), past_deadline=time.monotonic() >= deadline)
        if not isinstance(mapped, Exception):  # pragma: no cover - only Exceptions are caught
            return None
        log_failure(self._index_name, query, started, mapped)
        if mapped is exc:
            return None
        return mapped, _detached(exc, self._error_context().redact)

    def _finish(
        self, query: str, request: _Request, read: _Read
    ) -> SearchResults[AzureSearchDocument]:
        failure = read.failure
        if failure is not None:
            # Raised outside the handler so the SDK's exception (whose request headers hold
            # the key) is neither the cause nor the context; a detached copy is the cause.
            raise failure[0] from failure[1]
        try:
            results = assemble(
                read.raws,
                read.count,
                read.answers,
                top=request.top,
                include_total_count=request.include_total_count,
                wants_answers=request.wants_answers,
                key_fields=self.key_fields,
                index_name=self._index_name,
            )
        except ResponseFormatError as exc:
            log_failure(self._index_name, query, read.started, exc)
            raise
        log_success(self._index_name, query, read.started, results)
        return results

    def _error_context(self) -> ErrorContext:
        return ErrorContext(
            self._endpoint,
            self._index_name,
            self.timeout,
            self.max_retries,
            self._secret,
            self.deadline,
            tuple(self._tokens),
        )

    # -- resources ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the SDK clients this connector created (never injected ones)."""
        self._owned_async = None
        closer, self._owned_async_closer = self._owned_async_closer, None
        if closer is not None:
            await closer.aclose()
        self.close()

    def close(self) -> None:
        """Close the blocking SDK client this connector created (never an injected one).

        An async client it created is closed by `aclose` (or ``async with``).
        """
        client, self._owned_sync = self._owned_sync, None
        if client is not None:
            client.close()
