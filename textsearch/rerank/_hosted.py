"""Hosted rerank APIs on the shared HTTP engine: Cohere, Jina (and vLLM, llama.cpp), Voyage, TEI.

Every request goes through `HttpEngine`, so a rerank call has what
a search has: a total deadline, retries on 429/5xx honouring ``Retry-After``, a response
size cap, the key only in the ``Authorization`` header and scrubbed from every message and
log, redirects followed only within the same origin, and the provider's error body read
into the documented error classes.

Wire facts (``PROVIDERS_RERANK.md``):

* Cohere ``POST /v2/rerank`` ``{model, query, documents}`` → ``{"results": [{index,
  relevance_score}]}``; errors ``{"message", "id"}``; 498 is a deny-listed key.
* Jina ``POST /v1/rerank`` ``{model, query, documents, top_n, return_documents}`` →
  ``{"results": [...]}``; errors ``{"detail": ...}``; 402 is a spent quota. vLLM and
  llama.cpp serve the same shape (their errors ``{"error": {"message", ...}}``).
* Voyage ``POST /v1/rerank`` ``{model, query, documents, top_k, truncation}`` →
  ``{"data": [...]}``; errors ``{"detail": ...}``.
* TEI ``POST /rerank`` ``{query, texts, truncate, raw_scores}`` → a bare array of
  ``{index, score}``; errors ``{"error", "error_type"}``; 424 (a backend error, also "the
  model is not a reranker") is not retried.

Every answer is joined back to the input by ``index``: each index must appear exactly once,
in range, with a finite score; anything else is a ``ResponseFormatError``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from textsearch._http import ErrorDetail, HttpRequest, HttpResponse
from textsearch._http._checks import is_local_url, text_or_none
from textsearch._http._owner import EngineOwner
from textsearch._http._settings import HTTP_DEFAULTS, HttpSettings, http_settings
from textsearch.errors import (
    AuthenticationError,
    ConfigurationError,
    ProviderError,
    QuotaExceededError,
)
from textsearch.rerank._base import check_query_and_texts, check_scores

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["CohereReranker", "JinaReranker", "TEIReranker", "VoyageReranker"]

#: A rerank answer is small (an index and a score per text): 4 MB is room for thousands.
DEFAULT_MAX_RESPONSE_BYTES: Final = 4 * 1024 * 1024


class RerankSettings(HttpSettings, total=False):
    """What every hosted reranker takes besides its model, key and address."""

    batch_size: int | None
    """Texts per request (1-10000); longer lists go in several requests. Default: the
    provider's (1000; TEI 32)."""


_DEFAULTS: Final = {
    **HTTP_DEFAULTS,
    "max_response_bytes": DEFAULT_MAX_RESPONSE_BYTES,
    "batch_size": None,
}


def _detail_text(value: object) -> str | None:
    """FastAPI's ``detail``: a string, or a list of ``{"msg", "loc"}`` items."""
    if isinstance(value, list):
        parts = [
            text_or_none(item.get("msg")) if isinstance(item, dict) else text_or_none(item)
            for item in value
        ]
        joined = "; ".join(p for p in parts if p)
        return joined or None
    return text_or_none(value)


def read_rerank_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read any rerank server's error body: ``detail``, ``message``, ``error.message``, ``error``.

    The order Jina's own client reads them in; it covers Cohere (``message``), Voyage and
    Jina (``detail``), TEI (``error`` + ``error_type``), and vLLM, llama.cpp and Infinity
    (``error.message``).
    """
    from textsearch._http._checks import load_json_object

    body = load_json_object(response.content) or {}
    error = body.get("error")
    message = _detail_text(body.get("detail")) or text_or_none(body.get("message"))
    code: str | None = None
    if isinstance(error, dict):
        message = message or text_or_none(error.get("message"))
        code = text_or_none(error.get("type")) or text_or_none(error.get("code"))
    else:
        message = message or text_or_none(error)
        code = text_or_none(body.get("error_type"))
    error_class: type[ProviderError] | None = None
    retryable: bool | None = None
    hints: tuple[str, ...] = ()
    if status == 401 or status == 498:
        error_class = AuthenticationError
        hints = ("check api_key= (or the provider's API key environment variable)",)
    elif status == 402:
        error_class, retryable = QuotaExceededError, False
        hints = ("the key's balance or quota is spent; check the provider's billing page",)
    elif status == 424:
        retryable = False  # TEI: a backend error, or the model is not a reranker
        hints = ("check that the server runs a reranker (cross-encoder) model",)
    elif status == 429:
        hints = ("too many requests for this key; slow down",)
    return ErrorDetail(code=code, message=message, error_class=error_class, hints=hints,
                       retryable=retryable)  # fmt: skip


class _HostedReranker(EngineOwner):
    """What the four hosted rerankers share: settings, the engine, batching, parsing.

    A subclass names its path, its key's environment variable, its default model and its
    wire form (`_body`, `_items`, the score key); its constructor takes only what differs.
    """

    provider_name: ClassVar[str] = "rerank"
    default_model: ClassVar[str] = ""
    default_base_url: ClassVar[str | None] = None
    path: ClassVar[str] = "/v1/rerank"
    env_key: ClassVar[str | None] = None
    #: Whether a key is required (for a non-local base URL).
    needs_key: ClassVar[bool] = True
    score_key: ClassVar[str] = "relevance_score"
    default_batch_size: ClassVar[int] = 1000

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        **settings: Unpack[RerankSettings],
    ) -> None:
        from textsearch._http._checks import check_url, resolve_api_key

        owner = type(self).__name__
        given = http_settings(settings, owner, _DEFAULTS)
        batch_size = given.pop("batch_size")
        if model is None:
            model = self.default_model
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError(f"{owner}: model= must be a non-empty model name")
        size = self.default_batch_size if batch_size is None else batch_size
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 10_000:
            raise ConfigurationError(
                f"{owner}: batch_size= must be a whole number from 1 to 10000, got {size!r}"
            )
        raw = base_url if base_url is not None else self.default_base_url
        if raw is None or not str(raw).strip():
            raise ConfigurationError(
                f"{owner} needs base_url=, the server's origin (e.g. http://127.0.0.1:8080)"
            )
        url = check_url(str(raw).strip(), "base_url=", owner)
        if url.path not in ("", "/") or url.query:
            raise ConfigurationError(
                f"{owner}: base_url= is the service's origin (scheme://host[:port]); "
                f"{self.path} is appended to it, so give no path or query"
            )
        env_value = os.environ.get(self.env_key, "").strip() if self.env_key else ""
        key: str | None
        if api_key or env_value:
            key = resolve_api_key(api_key, self.env_key or "the API key variable", owner)
        elif not self.needs_key or is_local_url(url):
            key = None
        else:
            key = resolve_api_key(api_key, self.env_key or "the API key variable", owner)
        self._model = model.strip()
        self.batch_size = size
        self.base_url = f"{url.scheme}://{url.netloc.decode('ascii')}"
        self._url = self.base_url + self.path
        self._headers = {"Accept": "application/json"}
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        self._open_engine(self.provider_name, read_rerank_error, key, given)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, base_url={self.base_url!r})"

    @property
    def model(self) -> str:
        """The model named in every request (and in results' metadata)."""
        return self._model

    # -- requests and answers (pure) -----------------------------------------------------

    def _body(self, query: str, texts: list[str]) -> dict[str, Any]:
        """The request body most rerank APIs share; a subclass adds its own fields."""
        return {"model": self._model, "query": query, "documents": texts}

    def _items(self, body: Any) -> Any:
        """The list of results in a decoded answer (``None`` when it has none)."""
        return body.get("results") if isinstance(body, dict) else None

    def _batches(self, query: object, texts: object) -> tuple[str, list[list[str]]]:
        query, items = check_query_and_texts(query, texts)
        size = self.batch_size
        return query, [items[i : i + size] for i in range(0, len(items), size)]

    def _request(self, query: str, batch: list[str]) -> HttpRequest:
        return HttpRequest("POST", self._url, (), self._body(query, batch), self._headers)

    def _parser(self, count: int) -> Callable[[HttpResponse], list[float]]:
        def parse(response: HttpResponse) -> list[float]:
            return self._parse(response, count)

        return parse

    def _parse(self, response: HttpResponse, count: int) -> list[float]:
        from textsearch._http._checks import decode_json, in_input_order, malformed

        bad = malformed(self.provider_name, response)
        try:
            body = decode_json(response.content)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise bad("the body is not JSON") from None
        items = in_input_order(
            self._items(body),
            count,
            bad,
            what="results",
            where="list of results",
            field=self.score_key,
        )
        scores = [item[self.score_key] for item in items]
        return check_scores(scores, count, provider=self.provider_name)

    # -- the Reranker protocol ---------------------------------------------------------

    async def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in input order (several requests for long lists).

        Raises:
            InvalidRequestError: An empty query, or texts that are not strings (no request).
            ProviderError: The service answered with an error (a subclass: 401
                ``AuthenticationError``, 429 ``RateLimitError``, spent quota
                ``QuotaExceededError``, 400 ``BadRequestError``, 5xx
                ``ServiceUnavailableError``; a redirect to another origin is refused).
            ResponseFormatError: A 2xx answer that is not one finite score per text, with
                every index in range exactly once.
            SearchTransportError: The service could not be reached.
            SearchTimeoutError: No complete answer within the deadline.
        """
        query, batches = self._batches(query, texts)
        out: list[float] = []
        for batch in batches:
            out.extend(
                await self._engine.send(self._request(query, batch), self._parser(len(batch)))
            )
        return out

    def rerank_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        """Blocking twin of `rerank`; raises the same errors."""
        query, batches = self._batches(query, texts)
        out: list[float] = []
        for batch in batches:
            out.extend(
                self._engine.send_sync(self._request(query, batch), self._parser(len(batch)))
            )
        return out


class CohereReranker(_HostedReranker):
    """Cohere Rerank v2 (``POST {base_url}/v2/rerank``; key ``CO_API_KEY``).

    Args:
        model: ``rerank-v3.5`` (default), ``rerank-v4.0-fast``, ``rerank-multilingual-v3.0``...
        max_tokens_per_doc: Cohere truncates longer documents (its default 4096).
        api_key: The key; defaults to ``CO_API_KEY``.
        base_url: Default ``https://api.cohere.com``.
        **settings: ``batch_size`` (default 1000, Cohere's recommended most) and the HTTP
            settings (`HttpSettings`: ``http_client``, ``timeout``, ``max_retries``,
            ``max_retry_wait``, ``deadline``, ``max_response_bytes`` (default 4 MiB),
            ``verify``, ``transport``).

    Raises:
        ConfigurationError: No key (pass ``api_key=`` or set ``CO_API_KEY``), a bad URL
            or a bad setting.
    """

    provider_name = "cohere"
    default_base_url = "https://api.cohere.com"
    path = "/v2/rerank"
    env_key = "CO_API_KEY"
    default_model = "rerank-v3.5"

    def __init__(
        self,
        model: str = "rerank-v3.5",
        *,
        max_tokens_per_doc: int | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        **settings: Unpack[RerankSettings],
    ) -> None:
        if max_tokens_per_doc is not None and (
            isinstance(max_tokens_per_doc, bool)
            or not isinstance(max_tokens_per_doc, int)
            or max_tokens_per_doc < 1
        ):
            raise ConfigurationError("CohereReranker: max_tokens_per_doc= must be >= 1")
        self.max_tokens_per_doc = max_tokens_per_doc
        super().__init__(model, api_key=api_key, base_url=base_url, **settings)

    def _body(self, query: str, texts: list[str]) -> dict[str, Any]:
        body = super()._body(query, texts)
        if self.max_tokens_per_doc is not None:
            body["max_tokens_per_doc"] = self.max_tokens_per_doc
        return body


class JinaReranker(_HostedReranker):
    """Jina Reranker (``POST {base_url}/v1/rerank``; key ``JINA_API_KEY``).

    The same shape is served by vLLM (``vllm serve MODEL``) and llama.cpp's
    ``llama-server --reranking``: give their origin as ``base_url`` (a loopback server
    needs no key).

    Args:
        model: ``jina-reranker-v3`` (default), ``jina-reranker-v2-base-multilingual``...;
            for vLLM, the served model's name.
        api_key: The key; defaults to ``JINA_API_KEY``.
        base_url: Default ``https://api.jina.ai``.
        **settings: As for `CohereReranker` (``batch_size`` default 1000).

    Raises:
        ConfigurationError: No key for a non-local ``base_url`` (pass ``api_key=`` or set
            ``JINA_API_KEY``), a bad URL or a bad setting.
    """

    provider_name = "jina"
    default_base_url = "https://api.jina.ai"
    env_key = "JINA_API_KEY"
    default_model = "jina-reranker-v3"

    def _body(self, query: str, texts: list[str]) -> dict[str, Any]:
        return {**super()._body(query, texts), "top_n": len(texts), "return_documents": False}


class VoyageReranker(_HostedReranker):
    """Voyage AI rerank (``POST {base_url}/v1/rerank``; key ``VOYAGE_API_KEY``).

    Args:
        model: ``rerank-2.5`` (default), ``rerank-2.5-lite``, ``rerank-2``...
        api_key: The key; defaults to ``VOYAGE_API_KEY``.
        base_url: Default ``https://api.voyageai.com``.
        **settings: As for `CohereReranker` (``batch_size`` default 1000, Voyage's most).

    Raises:
        ConfigurationError: No key (pass ``api_key=`` or set ``VOYAGE_API_KEY``), a bad
            URL or a bad setting.
    """

    provider_name = "voyage"
    default_base_url = "https://api.voyageai.com"
    env_key = "VOYAGE_API_KEY"
    default_model = "rerank-2.5"

    def _body(self, query: str, texts: list[str]) -> dict[str, Any]:
        return {**super()._body(query, texts), "top_k": None, "truncation": True}

    def _items(self, body: Any) -> Any:
        return body.get("data") if isinstance(body, dict) else None


class TEIReranker(_HostedReranker):
    """Hugging Face text-embeddings-inference serving a reranker (``POST {base_url}/rerank``).

    TEI takes at most ``--max-client-batch-size`` texts per request (32 by default), so
    longer lists go in batches of ``batch_size``. Scores are the server's (a sigmoid of
    the logit unless ``raw_scores=True``).

    Args:
        base_url: The server's origin, e.g. ``http://127.0.0.1:8080`` (required).
        model: The name recorded in metadata (TEI serves one model; default ``"tei"``).
        raw_scores: Ask for raw logits instead of probabilities.
        api_key: The server's ``--api-key``, if it has one (no environment variable).
        **settings: As for `CohereReranker` (``batch_size`` default 32).

    Raises:
        ConfigurationError: No ``base_url``, a bad URL or a bad setting.
    """

    provider_name = "tei"
    path = "/rerank"
    needs_key = False
    score_key = "score"
    default_batch_size = 32

    def __init__(
        self,
        base_url: str | None = None,
        *,
        model: str = "tei",
        raw_scores: bool = False,
        api_key: str | None = None,
        **settings: Unpack[RerankSettings],
    ) -> None:
        if not isinstance(raw_scores, bool):
            raise ConfigurationError("TEIReranker: raw_scores= must be True or False")
        self.raw_scores = raw_scores
        super().__init__(model, api_key=api_key, base_url=base_url, **settings)

    def _body(self, query: str, texts: list[str]) -> dict[str, Any]:
        return {"query": query, "texts": texts, "truncate": True, "raw_scores": self.raw_scores}

    def _items(self, body: Any) -> Any:
        return body if isinstance(body, list) else None
