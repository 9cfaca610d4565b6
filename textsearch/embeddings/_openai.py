"""``OpenAIEmbedder``: any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

OpenAI itself, Azure OpenAI (``base_url`` naming the deployment, ``auth_header="api-key"``),
and the servers that speak the same protocol on a laptop or a cluster: Ollama, vLLM, text
embeddings inference (TEI), llama.cpp's server, LM Studio. Requests go through the shared
`HttpEngine`, so an embedding call has what a search has: a total
deadline, retries on 429/5xx with ``Retry-After``, a response size cap, the key scrubbed from
every message and log, same-origin redirects only, and the provider's error body read into the
documented error classes.

Wire facts this module relies on:

* Request: ``{"model": ..., "input": [texts], "encoding_format": "float"|"base64"}``, plus
  ``"dimensions"`` when set (text-embedding-3 models shorten their vectors on request).
* Answer: ``{"object": "list", "data": [{"object": "embedding", "index": i, "embedding":
  [...]}], "model": ..., "usage": {...}}``. ``data`` may come in any order; ``index`` says
  which input each vector belongs to. With ``base64`` each embedding is the base64 of
  little-endian float32 values (a third of the size of the JSON numbers).
* Errors: ``{"error": {"message", "type", "code", "param"}}``. A 429 whose code or type is
  ``insufficient_quota`` is a spent balance, not a rate limit: never retried. Compatible
  servers vary (``{"error": "text"}`` from Ollama and TEI, ``{"object": "error", "message"}``
  from older vLLM, ``{"statusCode", "message"}`` from Azure's gateway); all are read.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import sys
from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import httpx

from textsearch._http import ErrorDetail, HttpRequest, HttpResponse, bearer_or_plain
from textsearch._http._checks import is_local_url, text_or_none
from textsearch._http._owner import EngineOwner
from textsearch._http._settings import HTTP_DEFAULTS, HttpSettings, http_settings
from textsearch.embeddings._base import (
    _checks_its_output,
    _EmbedderBase,
    _texts,
    checked_vectors,
)
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ProviderError,
    QuotaExceededError,
    ResponseFormatError,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["OpenAIEmbedder"]

DEFAULT_MODEL: Final = "text-embedding-3-small"
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
ENV_KEY: Final = "OPENAI_API_KEY"
ENV_BASE_URL: Final = "OPENAI_BASE_URL"
#: Texts per request. OpenAI takes up to 2048 inputs (and 300k tokens) per request; 128
#: keeps a request well under the token limit and a 3072-d answer near 8 MB as JSON.
DEFAULT_BATCH_SIZE: Final = 128
MAX_BATCH_SIZE: Final = 2048
#: An answer of 128 vectors of 3072 floats is ~8 MB as JSON numbers: room for that and more.
DEFAULT_MAX_RESPONSE_BYTES: Final = 64 * 1024 * 1024
#: Vector lengths of OpenAI's own models when ``dimensions=`` is not given.
KNOWN_DIMENSIONS: Final = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
PROVIDER: Final = "openai-embeddings"
_DEFAULTS: Final = {**HTTP_DEFAULTS, "max_response_bytes": DEFAULT_MAX_RESPONSE_BYTES}


def read_openai_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read an OpenAI-style error body (and the shapes compatible servers use)."""
    from textsearch._http._checks import load_json_object

    body = load_json_object(response.content) or {}
    error = body.get("error")
    if isinstance(error, dict):
        message = text_or_none(error.get("message"))
        code = text_or_none(error.get("code"))
        kind = text_or_none(error.get("type"))
    else:
        # Ollama/TEI: {"error": "text"}; vLLM: {"object": "error", "message", "type", "code"};
        # Azure's gateway: {"statusCode": 401, "message": "..."}.
        message = text_or_none(error) or text_or_none(body.get("message"))
        code = text_or_none(body.get("code")) if isinstance(body.get("code"), str) else None
        kind = text_or_none(body.get("type")) or text_or_none(body.get("error_type"))
    error_class: type[ProviderError] | None = None
    retryable: bool | None = None
    hints: tuple[str, ...] = ()
    if "insufficient_quota" in (code, kind):
        error_class, retryable = QuotaExceededError, False
        hints = ("the account's credit or monthly budget is spent; check the billing page",)
    elif status == 401:
        hints = (f"check api_key= / {ENV_KEY} (or auth_header= for Azure's 'api-key')",)
    elif status == 404 or code == "model_not_found":
        error_class = NotFoundError
        hints = ("check model= (the model or deployment name) and base_url=",)
    elif status == 429:
        hints = ("too many requests or tokens per minute for this key; slow down",)
    return ErrorDetail(
        code=code or kind,
        sub_code=kind if code and kind and kind != code else None,
        message=message,
        error_class=error_class,
        hints=hints,
        retryable=retryable,
    )


def _decode_base64(value: str, i: int) -> list[float]:
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b"\x01"  # not base64: reported below like any odd length
    if len(raw) % 4:
        raise ResponseFormatError(
            f"embedding {i} is not base64-encoded float32 values", provider=PROVIDER
        )
    values = array("f")
    values.frombytes(raw)
    if sys.byteorder == "big":
        values.byteswap()  # the wire order is little-endian
    return values.tolist()


def parse_embeddings(
    response: HttpResponse, count: int, dimensions: int | None
) -> list[list[float]]:
    """The vectors of an ``/embeddings`` answer, in input order, checked.

    Raises:
        ResponseFormatError: Not JSON, no ``data`` list, indexes that do not cover the
            inputs exactly once, or malformed vectors (see ``check_vectors``).
    """
    from textsearch._http._checks import in_input_order, load_json_object, malformed

    bad = malformed(PROVIDER, response)
    body = load_json_object(response.content)
    if body is None:
        raise bad("the body is not a JSON object")
    items = in_input_order(
        body.get("data"),
        count,
        bad,
        what="embeddings",
        where="'data' list",
        field="embedding",
        index_optional=True,
    )
    ordered: list[Any] = []
    for index, item in enumerate(items):
        vector = item["embedding"]
        ordered.append(_decode_base64(vector, index) if isinstance(vector, str) else vector)
    # the rows were parsed from this answer: nobody else holds them to be copied from
    return checked_vectors(ordered, count, dimensions, provider=PROVIDER, copy=False)


def _check_count(owner: str, name: str, value: object, most: int) -> None:
    """Refuse ``value`` unless it is a whole number from 1 to ``most`` (a bool is not)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise ConfigurationError(
            f"{owner}: {name}= must be a whole number from 1 to {most}, got {value!r}"
        )


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or {"http": 80, "https": 443}.get(url.scheme)


def _env_key_belongs_to(url: httpx.URL, base_url: str | None) -> bool:
    """Whether ``OPENAI_API_KEY`` may go to ``url``: the endpoint came from the environment
    too, or is the origin of ``OPENAI_BASE_URL`` (else of OpenAI's API)."""
    if base_url is None:
        return True
    home = (os.environ.get(ENV_BASE_URL) or "").strip() or DEFAULT_BASE_URL
    try:
        return _origin(httpx.URL(home)) == _origin(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return False


@_checks_its_output
class OpenAIEmbedder(EngineOwner, _EmbedderBase):
    """An `Embedder` on any OpenAI-compatible ``/embeddings``.

    Examples of ``base_url``: ``https://api.openai.com/v1`` (default), Ollama
    ``http://localhost:11434/v1``, vLLM ``http://127.0.0.1:8000/v1``, TEI
    ``http://127.0.0.1:8080/v1``, llama.cpp ``http://127.0.0.1:8080/v1``, LM Studio
    ``http://localhost:1234/v1``, Azure OpenAI
    ``https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-10-21``
    with ``auth_header="api-key"`` (a query string in ``base_url`` is kept on every request).

    Args:
        model: The model (or deployment) name sent as ``model`` and recorded with vectors.
        api_key: The key; defaults to ``OPENAI_API_KEY``, which is only ever sent to the
            endpoint it belongs to (``OPENAI_BASE_URL``, else OpenAI's API): a
            ``base_url=`` of another origin needs ``api_key=``. Not needed for a local
            server (loopback address, ``localhost`` or ``*.localhost``); ``""`` sends none
            (a remote server that needs no key, e.g. Ollama).
        base_url: The API root; ``/embeddings`` is appended. Defaults to ``OPENAI_BASE_URL``,
            else ``https://api.openai.com/v1``.
        dimensions: Ask for vectors this long (text-embedding-3 models); also the length
            every vector must have. Without it the length is known for OpenAI's models
            and otherwise learnt from the first answer.
        batch_size: Texts per request (1-2048); longer lists are sent in several requests
            and the vectors come back in input order.
        max_concurrency: Requests in flight at once on the async path when a list needs
            several (default 1: one after the other, gentle on rate limits). The blocking
            path always sends one at a time.
        encoding_format: ``"float"`` (JSON numbers, what every compatible server speaks) or
            ``"base64"`` (float32 bytes, a third of the size; OpenAI and vLLM).
        auth_header: The header that carries the key: ``"Authorization"`` (``Bearer`` is
            added) or e.g. ``"api-key"`` for Azure OpenAI.
        query_prefix: Put before each query (e.g. ``"search_query: "`` for nomic-embed).
        document_prefix: Put before each document (e.g. ``"search_document: "``).
        **settings: The HTTP settings (`HttpSettings`: ``http_client``, ``timeout``,
            ``max_retries``, ``max_retry_wait``, ``deadline`` per request,
            ``max_response_bytes`` (default 64 MiB), ``verify``, ``transport``).

    Raises:
        ConfigurationError: No key for a non-local ``base_url`` (pass ``api_key=`` or set
            ``OPENAI_API_KEY``), a bad URL, or a bad setting.
    """

    provider_name: Final = PROVIDER

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_concurrency: int = 1,
        encoding_format: Literal["float", "base64"] = "float",
        auth_header: str = "Authorization",
        query_prefix: str = "",
        document_prefix: str = "",
        **settings: Unpack[HttpSettings],
    ) -> None:
        from textsearch._http._checks import check_header_name, check_url, resolve_api_key

        owner = type(self).__name__
        given = http_settings(settings, owner, _DEFAULTS)
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError(f"{owner}: model= must be a non-empty model name")
        if dimensions is not None and (
            isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1
        ):
            raise ConfigurationError(
                f"{owner}: dimensions= must be a positive integer, got {dimensions!r}"
            )
        _check_count(owner, "batch_size", batch_size, MAX_BATCH_SIZE)
        _check_count(owner, "max_concurrency", max_concurrency, 64)
        if encoding_format not in ("float", "base64"):
            raise ConfigurationError(
                f"{owner}: encoding_format= must be 'float' or 'base64', got {encoding_format!r}"
            )
        if not isinstance(query_prefix, str) or not isinstance(document_prefix, str):
            raise ConfigurationError(f"{owner}: query_prefix= and document_prefix= are strings")
        header = check_header_name(auth_header, owner)
        raw_url = base_url if base_url is not None else os.environ.get(ENV_BASE_URL) or ""
        url = check_url(raw_url.strip() or DEFAULT_BASE_URL, "base_url=", owner)
        self.local = is_local_url(url)
        key: str | None
        if api_key == "":  # asked for no key: a server that needs none
            key = None
        elif api_key is None and not _env_key_belongs_to(url, base_url):
            # OPENAI_API_KEY is OpenAI's (or OPENAI_BASE_URL's): another server named by
            # base_url= (an Ollama, a gateway) never receives it.
            if not self.local:
                raise ConfigurationError(
                    f"{owner}: base_url= names a server other than the one {ENV_KEY} is for "
                    f"({ENV_BASE_URL} or OpenAI's API): pass its key with api_key=..."
                )
            key = None
        elif self.local and not (api_key or os.environ.get(ENV_KEY, "").strip()):
            key = None
        else:
            key = resolve_api_key(api_key, ENV_KEY, owner)
        self._model = model.strip()
        self._requested_dimensions = dimensions
        self._dimensions = dimensions or KNOWN_DIMENSIONS.get(self._model)
        self.batch_size = batch_size
        self.max_concurrency = max_concurrency
        self.encoding_format = encoding_format
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.base_url = str(url.copy_with(query=None)).rstrip("/")
        self._url = self.base_url + "/embeddings"
        # A query string in base_url (Azure's api-version) goes with every request.
        self._params = tuple((k, v) for k, v in url.params.multi_items())
        self._headers = {header: bearer_or_plain(header, key)} if key else {}
        self._open_engine(PROVIDER, read_openai_error, key, given)

    def _repr_fields(self) -> list[tuple[str, object]]:
        return [
            ("model", self._model),
            ("base_url", self.base_url),
            ("dimensions", self._dimensions),
        ]

    # -- requests (pure) ---------------------------------------------------------------

    def _batches(self, texts: Sequence[str], prefix: str) -> list[list[str]]:
        items = _texts(texts)
        for i, text in enumerate(items):
            if not text.strip():
                # OpenAI answers 400 for an empty input; say which one before sending.
                raise InvalidRequestError(
                    f"text {i} is empty: an embeddings endpoint refuses empty input"
                )
        if prefix:
            items = [prefix + t for t in items]
        size = self.batch_size
        return [items[i : i + size] for i in range(0, len(items), size)]

    def _request(self, batch: list[str]) -> HttpRequest:
        body: dict[str, Any] = {
            "model": self._model,
            "input": batch,
            "encoding_format": self.encoding_format,
        }
        if self._requested_dimensions is not None:
            body["dimensions"] = self._requested_dimensions
        return HttpRequest("POST", self._url, self._params, body, self._headers)

    def _parser(self, count: int) -> Callable[[HttpResponse], list[list[float]]]:
        def parse(response: HttpResponse) -> list[list[float]]:
            vectors = parse_embeddings(response, count, self._dimensions)
            if vectors and self._dimensions is None:
                self._dimensions = len(vectors[0])
            return vectors

        return parse

    # -- the Embedder protocol ---------------------------------------------------------

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in input order (several requests for long lists).

        Raises:
            InvalidRequestError: ``texts`` is not a list of non-empty strings (no request).
            ProviderError: The endpoint answered with an error (a subclass: 401
                ``AuthenticationError``, 429 ``RateLimitError``, spent credit
                ``QuotaExceededError``, 400 ``BadRequestError``, unknown model
                ``NotFoundError``, 5xx ``ServiceUnavailableError``).
            ResponseFormatError: A 2xx answer that is not one finite vector per text.
            SearchTransportError: The endpoint could not be reached.
            SearchTimeoutError: No answer within the deadline.
        """
        batches = self._batches(texts, self.document_prefix)
        if self.max_concurrency == 1 or len(batches) == 1:
            out: list[list[float]] = []
            for batch in batches:
                out.extend(await self._engine.send(self._request(batch), self._parser(len(batch))))
            return out
        gate = asyncio.Semaphore(self.max_concurrency)
        failed = asyncio.Event()

        async def one(batch: list[str]) -> list[list[float]]:
            async with gate:
                if failed.is_set():
                    return []  # never used: the first failure is what the caller gets
                try:
                    return await self._engine.send(self._request(batch), self._parser(len(batch)))
                except BaseException:
                    failed.set()
                    raise

        tasks = [asyncio.ensure_future(one(batch)) for batch in batches]
        try:
            results = await asyncio.gather(*tasks)
        except BaseException:
            # The first failure is the answer: the batches still waiting are not sent.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return [vector for result in results for vector in result]

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking twin of `embed_documents`; raises the same errors."""
        out: list[list[float]] = []
        for batch in self._batches(texts, self.document_prefix):
            out.extend(self._engine.send_sync(self._request(batch), self._parser(len(batch))))
        return out

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query; raises as `embed_documents`."""
        (batch,) = self._batches([text], self.query_prefix)
        return (await self._engine.send(self._request(batch), self._parser(1)))[0]

    def embed_query_sync(self, text: str) -> list[float]:
        """Blocking twin of `embed_query`; raises the same errors."""
        (batch,) = self._batches([text], self.query_prefix)
        return self._engine.send_sync(self._request(batch), self._parser(1))[0]
