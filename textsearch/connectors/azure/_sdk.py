"""The bridge to azure-search-documents: SDK loading, credentials, pipeline policies.

Everything that touches azure-core lives here, imported lazily so that ``import textsearch``
never loads the SDK.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from textsearch.connectors.azure._errors import (
    ENV_ENDPOINT,
    ENV_INDEX,
    ENV_KEY,
    _retry_after_seconds,
)
from textsearch.connectors.azure._query import _INDEX_NAME, _is_loopback, check_endpoint
from textsearch.connectors.azure._transport import (
    default_transport,
    guarded_transport,
    redirect_policy,
)
from textsearch.errors import ConfigurationError

_INSTALL_HINT = (
    'the Azure AI Search connector needs the azure extra: pip install "textsearch-sdk[azure]"'
)


def _require_sdk() -> None:
    try:
        import azure.search.documents  # noqa: F401
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc


def _is_key_credential(credential: Any) -> bool:
    try:
        from azure.core.credentials import AzureKeyCredential
    except ImportError:  # pragma: no cover - without the SDK no credential can be built
        return False
    return isinstance(credential, AzureKeyCredential)


def _is_async_credential(credential: Any) -> bool:
    method = getattr(credential, "get_token_info", None) or getattr(credential, "get_token", None)
    return inspect.iscoroutinefunction(method)


_POLICY_CLASSES: dict[bool, Any] = {}
# Methods retried on transient failures; POST because the search POST is read-only.
_RETRY_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "POST"})


def _retry_policy(
    is_async: bool, *, total: int, backoff_factor: float, backoff_max: float, max_wait: float
) -> Any:
    """An azure-core retry policy that refuses to wait longer than ``max_wait`` seconds."""
    cls = _POLICY_CLASSES.get(is_async)
    if cls is None:
        from azure.core.pipeline.policies import AsyncRetryPolicy, RetryPolicy

        base: Any = AsyncRetryPolicy if is_async else RetryPolicy

        class _CappedRetryPolicy(base):  # type: ignore[misc]
            """Retry like azure-core, but never for a Retry-After longer than the cap.

            azure-core treats POST as unsafe: without ``Retry-After`` it retries a POST only
            on 500/503/504, and never after a connection or read error. The SDK sends every
            search as a POST, yet a search is read-only, so this policy retries it like a
            GET: 408/429/500/502/503/504, dropped connections and read timeouts.
            """

            def __init__(self, *, max_wait: float, **kwargs: Any) -> None:
                super().__init__(**kwargs)
                self._max_wait = max_wait

            def configure_retries(self, options: dict[str, Any]) -> dict[str, Any]:
                options.setdefault("retry_on_methods", _RETRY_METHODS)
                return dict(super().configure_retries(options))

            def get_retry_after(self, response: Any) -> float | None:
                # azure-core raises ValueError on a Retry-After it cannot parse; a garbage
                # value means "not said", and the backoff applies.
                headers = getattr(response.http_response, "headers", None)
                return _retry_after_seconds(headers)

            def is_retry(self, settings: Any, response: Any) -> bool:
                retry_after = self.get_retry_after(response)
                if retry_after is not None and retry_after > self._max_wait:
                    return False
                return bool(super().is_retry(settings, response))

        cls = _CappedRetryPolicy
        _POLICY_CLASSES[is_async] = cls
    return cls(
        max_wait=max_wait,
        retry_total=total,
        retry_backoff_factor=backoff_factor,
        retry_backoff_max=backoff_max,
    )


def _detached(error: BaseException, redact: Callable[[str], str] = str) -> BaseException:
    """A copy of an SDK error keeping its type and (redacted) message, nothing else.

    Never the original: an azure-core error holds the request, whose headers carry the key,
    and its traceback frames hold the client. The copy has no request, no traceback, no chain.
    """
    try:
        text = redact(str(error))
    except RecursionError:  # pragma: no cover - a message that cannot even be rendered
        text = "(message not shown)"
    try:
        copy = type(error)(text)
    except Exception:  # an exception type with another constructor: keep its name and text
        copy = RuntimeError(f"{type(error).__name__}: {text}")
    # azure-core's constructor records ``sys.exc_info()`` (the original error, whose request
    # holds the key) and a message built from it: keep plain values only, redacted.
    for name, value in list(vars(copy).items()):
        if isinstance(value, str):
            setattr(copy, name, redact(value))
        elif not isinstance(value, (int, float, type, type(None))):
            setattr(copy, name, None)
    if redact(str(copy)) != str(copy):  # the constructor rebuilt a message from elsewhere
        copy = RuntimeError(f"{type(error).__name__}: {text}")
    return copy


def resolve_location(
    endpoint: str | None, index_name: str | None, client: Any
) -> tuple[str | None, str | None]:
    """The endpoint and index: arguments, else the environment, else an injected client's.

    Raises:
        ConfigurationError: One is missing (and no client was injected) or invalid.
    """
    injected = client is not None
    endpoint = endpoint if endpoint is not None else os.environ.get(ENV_ENDPOINT)
    index_name = index_name if index_name is not None else os.environ.get(ENV_INDEX)
    if injected:
        config = getattr(client, "_config", None)
        endpoint = endpoint or getattr(config, "endpoint", None)
        index_name = index_name or getattr(config, "index_name", None)
    if not endpoint:
        if not injected:
            raise ConfigurationError(
                "Azure AI Search needs an endpoint: pass endpoint="
                "'https://<service>.search.windows.net' or set the "
                f"{ENV_ENDPOINT} environment variable"
            )
    else:
        endpoint = check_endpoint(endpoint)
    if not index_name:
        if not injected:
            raise ConfigurationError(
                "Azure AI Search needs an index name: pass index_name='<index>' or set the "
                f"{ENV_INDEX} environment variable"
            )
    elif not isinstance(index_name, str) or not _INDEX_NAME.fullmatch(index_name):
        raise ConfigurationError(
            f"index_name {index_name!r} is not a valid Azure AI Search index name "
            "(lowercase letters, digits and dashes, starting with a letter or digit)"
        )
    return endpoint or None, index_name or None


@dataclass(frozen=True)
class Auth:
    """How the connector authenticates; ``secret`` is the key, when there is one."""

    kind: str
    secret: str | None = field(default=None, repr=False)
    credential: Any = field(default=None, repr=False)


def resolve_auth(api_key: str | None, credential: Any, *, injected: bool) -> Auth:
    """The key or credential: arguments, else ``$AZURE_SEARCH_API_KEY``.

    Raises:
        ConfigurationError: Both or (without an injected client) neither were given, or the
            credential is of an unknown kind.
    """
    if api_key is not None and credential is not None:
        raise ConfigurationError(
            "pass either api_key= or credential=, not both (they are alternatives)"
        )
    if credential is not None:
        if _is_key_credential(credential):
            return Auth("key credential", getattr(credential, "key", None), credential)
        if callable(getattr(credential, "get_token", None)) or callable(
            getattr(credential, "get_token_info", None)
        ):
            return Auth("token credential", None, credential)
        raise ConfigurationError(
            "credential must be an AzureKeyCredential or an Azure token credential "
            "(an object with get_token), e.g. azure.identity.DefaultAzureCredential()"
        )
    key = api_key if api_key is not None else os.environ.get(ENV_KEY)
    if key is not None and (not isinstance(key, str) or not key.strip()):
        raise ConfigurationError("api_key must be a non-empty string")
    if key:
        return Auth("api key", key.strip())
    if not injected:
        raise ConfigurationError(
            "Azure AI Search needs a key or credential: pass api_key='...' (or "
            "credential=, e.g. DefaultAzureCredential()) or set the "
            f"{ENV_KEY} environment variable"
        )
    return Auth("injected client")


def insecure_token_ok(auth_kind: str, endpoint: str | None) -> bool:
    """Whether a bearer token may go over plain http (loopback only).

    Raises:
        ConfigurationError: A token credential with a plain-http endpoint that is not loopback.
    """
    if auth_kind != "token credential" or not endpoint:
        return False
    parts = urlsplit(endpoint)
    if parts.scheme != "http":
        return False
    if not _is_loopback(parts.hostname or ""):
        raise ConfigurationError(
            "token credentials send a bearer token, which needs an https "
            f"endpoint; {endpoint} is plain http"
        )
    return True


def client_options(
    *,
    is_async: bool,
    api_version: str,
    timeout: float,
    max_retries: int,
    backoff_factor: float,
    max_retry_wait: float,
    max_response_bytes: int,
    client_kwargs: Mapping[str, Any],
) -> dict[str, Any]:
    """Keyword arguments for a ``SearchClient`` the connector creates.

    The transport, the caller's (``client_kwargs["transport"]``) or azure-core's default,
    is wrapped by the size cap and deadline guard; the redirect policy follows same-origin
    redirects only, unless the caller replaces it (the connector then disables redirects
    per call).
    """
    options: dict[str, Any] = {
        "api_version": api_version,
        "connection_timeout": timeout,
        "read_timeout": timeout,
        "retry_policy": _retry_policy(
            is_async,
            total=max_retries,
            backoff_factor=backoff_factor,
            backoff_max=max_retry_wait,
            max_wait=max_retry_wait,
        ),
        "user_agent": "textsearch",
    }
    options.update(client_kwargs)
    options.setdefault("redirect_policy", redirect_policy(is_async))
    inner = options.get("transport") or default_transport(is_async=is_async, timeout=timeout)
    options["transport"] = guarded_transport(inner, is_async=is_async, max_bytes=max_response_bytes)
    return options


def new_async_client(endpoint: str, index: str, credential: Any, options: dict[str, Any]) -> Any:
    """An ``azure.search.documents.aio.SearchClient``.

    Raises:
        ImportError: The azure extra (the SDK or aiohttp) is not installed.
    """
    _require_sdk()
    try:
        from azure.search.documents.aio import SearchClient
    except ImportError as exc:  # aiohttp missing
        raise ImportError(_INSTALL_HINT) from exc
    try:
        return SearchClient(endpoint, index, credential, **options)
    except ImportError as exc:  # aiohttp is imported when the transport is built
        raise ImportError(_INSTALL_HINT) from exc


def new_sync_client(endpoint: str, index: str, credential: Any, options: dict[str, Any]) -> Any:
    """An ``azure.search.documents.SearchClient``.

    Raises:
        ImportError: The azure extra is not installed.
    """
    _require_sdk()
    from azure.search.documents import SearchClient

    return SearchClient(endpoint, index, credential, **options)


async def _read_async(
    client: Any, kwargs: dict[str, Any], request: Any
) -> tuple[list[Any], Any, Any]:
    raws: list[Any] = []
    count: Any = None
    answers: Any = None
    paged = await client.search(**kwargs)
    if request.top > 0:
        async for raw in paged:
            raws.append(raw)
            if len(raws) >= request.top:
                break
    # After reading: the SDK re-sends the first page if asked before iterating.
    if request.include_total_count:
        count = await paged.get_count()
    if request.wants_answers:
        answers = await paged.get_answers()
    return raws, count, answers


def _read_sync(client: Any, kwargs: dict[str, Any], request: Any) -> tuple[list[Any], Any, Any]:
    raws: list[Any] = []
    count: Any = None
    answers: Any = None
    paged = client.search(**kwargs)
    if request.top > 0:
        for raw in paged:
            raws.append(raw)
            if len(raws) >= request.top:
                break
    if request.include_total_count:
        count = paged.get_count()
    if request.wants_answers:
        answers = paged.get_answers()
    return raws, count, answers


def check_api_version(api_version: object) -> str:
    """``api_version`` if it names an Azure AI Search REST API version.

    Raises:
        ConfigurationError: It does not (``YYYY-MM-DD``, optionally ``-preview``).
    """
    if not isinstance(api_version, str) or not re.fullmatch(
        r"^\d{4}-\d{2}-\d{2}(-preview)?$", api_version
    ):
        raise ConfigurationError(f"api_version {api_version!r} is not an API version")
    return api_version
