"""``AzureAISearchTextSearch``: Azure AI Search through the official azure-search-documents SDK.

Install with ``pip install "textsearch-sdk[azure]"`` (azure-search-documents and aiohttp, which the
SDK's async client needs). The SDK is imported only when a client is first needed, so importing
this module costs no more than the rest of textsearch.

How the connector talks to the service:

* Async methods use ``azure.search.documents.aio.SearchClient``, blocking twins use
  ``azure.search.documents.SearchClient``. Both get the same keyword arguments from one pure
  request builder and their results go through the same pure parsing functions; only the
  send differs.
* ``top`` (up to 1000) and ``skip`` are sent as such; when the service pages its answer
  (``@search.nextPageParameters``) the SDK follows it, and the connector stops reading as soon
  as it holds ``top`` results. ``total_count`` is read with ``get_count()`` *after* the page is
  read, so the first page is requested once (asking first makes the SDK send it twice).
* Filters are data (:class:`~textsearch.TextSearchFilter`) translated to OData by
  :mod:`textsearch.connectors._odata`; a ``security_filter`` set by the developer is AND-ed in
  parentheses with every query's filter: ``(<security>) and (<query filter>)``.
* azure-core errors are translated in one place (:meth:`AzureAISearchTextSearch._map_error`).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import ipaddress
import logging
import os
import re
import time
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Collection,
    Iterator,
    Mapping,
    Sequence,
)
from contextvars import ContextVar
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from textsearch._types import SearchOptions, SearchResults, TextSearchFilter, TextSearchResult
from textsearch.base import BaseTextSearch
from textsearch.connectors._odata import (
    build_filter,
    check_balanced,
    check_field_name,
    combine_filters,
    odata_literal,
    search_in,
)
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    TextSearchError,
    UnsupportedFilterError,
)

__all__ = [
    "CONTENT_BLOCK_FIELDS",
    "DEFAULT_API_VERSION",
    "DEFAULT_LINK_FIELDS",
    "DEFAULT_NAME_FIELDS",
    "DEFAULT_VALUE_FIELDS",
    "AzureAISearchTextSearch",
    "AzureSearchCaption",
    "AzureSearchDocument",
    "content_block_result",
    "odata_literal",
    "search_in",
]

logger = logging.getLogger("textsearch")

PROVIDER = "azure_ai_search"
#: The REST API version sent unless ``api_version=`` says otherwise (the SDK's own default moves).
DEFAULT_API_VERSION = "2024-07-01"
#: Candidate fields for ``name``, tried in order (first non-empty string wins).
DEFAULT_NAME_FIELDS: tuple[str, ...] = ("title", "name", "sourcefile", "filename")
#: Candidate fields for ``value``, tried in order.
DEFAULT_VALUE_FIELDS: tuple[str, ...] = ("content", "chunk", "text", "description")
#: Candidate fields for ``link``, tried in order.
DEFAULT_LINK_FIELDS: tuple[str, ...] = (
    "url",
    "link",
    "source",
    "sourcepage",
    "filepath",
    "metadata_storage_path",
)
#: Candidate key fields, used to attach semantic answers (which name a document key) to results.
DEFAULT_KEY_FIELDS: tuple[str, ...] = ("id", "chunk_id", "key")
#: Fields of a multimodal RAG index of text and image blocks (see :func:`content_block_result`).
CONTENT_BLOCK_FIELDS: tuple[str, ...] = (
    "id",
    "block_type",
    "content",
    "image_url",
    "image_caption",
    "doc_id",
    "filename",
    "page_number",
)

_INSTALL_HINT = (
    'the Azure AI Search connector needs the azure extra: pip install "textsearch-sdk[azure]"'
)
_ENV_ENDPOINT = "AZURE_SEARCH_ENDPOINT"
_ENV_INDEX = "AZURE_SEARCH_INDEX"
_ENV_KEY = "AZURE_SEARCH_API_KEY"
_INDEX_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,127}$")
_MAX_ANSWERS = 10
# SDK keywords the connector sets itself; ``search_kwargs`` may not override them, so that
# nothing can replace the filter (and with it the security filter) or the paging.
_RESERVED_SEARCH_KWARGS = frozenset(
    {
        "search_text",
        "filter",
        "top",
        "skip",
        "include_total_count",
        "select",
        "search_fields",
        "query_type",
        "semantic_configuration_name",
        "query_caption",
        "query_caption_highlight_enabled",
        "query_answer",
        "query_answer_count",
        "vector_queries",
        "vector_filter_mode",
        "highlight_fields",
        "search_mode",
        "order_by",
        "scoring_profile",
    }
)

QueryType = Literal["simple", "full", "semantic"]
FieldSpec = str | Sequence[str] | None
EmbeddingFunction = Callable[[str], Sequence[float] | Awaitable[Sequence[float]]]
SecurityFilter = str | Callable[[Any], str]

_NO_CONTEXT: Any = object()


# -- native model ---------------------------------------------------------------------------


class AzureSearchCaption(BaseModel):
    """A semantic caption: a passage of the document chosen by the semantic ranker.

    Attributes:
        text: The passage as plain text.
        highlights: The passage with the key phrases wrapped in ``<em>`` tags, when asked for.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    text: str | None = None
    highlights: str | None = None


class AzureSearchDocument(BaseModel):
    """One Azure AI Search hit: the native result of :class:`AzureAISearchTextSearch`.

    Attributes:
        fields: The document's retrievable fields as returned by the service (all of them, or
            those named by ``select``); ``@search.*`` annotations are not included.
        score: The relevance score (``@search.score``); for hybrid queries a fused score.
        reranker_score: The semantic ranker's score (0-4), for ``query_type="semantic"``.
        highlights: Hit highlights per field (``{"content": ["... <em>retry</em> ..."]}``),
            when ``highlight_fields`` were configured.
        captions: Semantic captions, for ``query_type="semantic"`` with captions on.
        answer: The text of a semantic answer extracted from this document, if any.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    fields: dict[str, Any] = Field(default_factory=dict)
    score: float | None = None
    reranker_score: float | None = None
    highlights: dict[str, list[str]] | None = None
    captions: list[AzureSearchCaption] = Field(default_factory=list)
    answer: str | None = None

    def get(self, name: str, default: Any = None) -> Any:
        """Return the field ``name``, or ``default`` when the document has no such field."""
        return self.fields.get(name, default)

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    @property
    def caption(self) -> str | None:
        """The text of the first semantic caption, if any."""
        for cap in self.captions:
            if cap.text:
                return cap.text
        return None


# -- pure helpers: mapping ------------------------------------------------------------------


def _as_text(value: Any) -> str | None:
    """A field value as display text: strings as is, lists of strings joined, scalars str()."""
    if value is None:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        parts = [p for p in (_as_text(v) for v in value) if p]
        return "\n".join(parts) if parts else None
    return None


def _first_text(fields: Mapping[str, Any], names: Sequence[str]) -> str | None:
    for name in names:
        text = _as_text(fields.get(name))
        if text:
            return text
    return None


def content_block_result(doc: AzureSearchDocument) -> TextSearchResult:
    """Map a text or image block of a multimodal RAG index to a normalized result.

    The index holds one block per document: ``block_type`` (``"text"`` or ``"image"``),
    ``content``, ``image_url``, ``image_caption``, ``doc_id``, ``filename``, ``page_number``.

    * name: ``filename`` (or ``doc_id``), with ``" (page N)"`` when the page is known;
    * image block: value = the image caption (else ``content``), link = ``image_url``;
    * text block: value = the semantic answer or caption when present, else ``content``;
      link = a ``url``/``link``/``source`` field when the index has one, else
      ``filename#page=N`` (or just ``filename``) so a citation can point at the page.

    Use it as ``AzureAISearchTextSearch(..., text_search_result_mapper=content_block_result)``
    or through :meth:`AzureAISearchTextSearch.for_content_blocks`.
    """
    f = doc.fields
    source = _as_text(f.get("filename")) or _as_text(f.get("doc_id"))
    page = f.get("page_number")
    has_page = isinstance(page, int) and not isinstance(page, bool)
    name = f"{source} (page {page})" if source and has_page else source
    if str(f.get("block_type") or "text").strip().lower() == "image":
        value = _as_text(f.get("image_caption")) or _as_text(f.get("content"))
        link = _as_text(f.get("image_url"))
    else:
        value = doc.answer or doc.caption or _as_text(f.get("content"))
        filename = _as_text(f.get("filename"))
        link = _first_text(f, ("url", "link", "source")) or (
            f"{filename}#page={page}" if filename and has_page else filename
        )
    return TextSearchResult(name=name, value=value, link=link)


def _field_names(spec: FieldSpec, what: str) -> tuple[str, ...]:
    if spec is None:
        return ()
    names = (spec,) if isinstance(spec, str) else tuple(spec)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"{what} must be field names (strings), got {name!r}")
    return names


def _identifiers(values: Sequence[str] | str | None, what: str) -> tuple[str, ...] | None:
    if values is None:
        return None
    items = (values,) if isinstance(values, str) else tuple(values)
    for item in items:
        try:
            check_field_name(item)
        except UnsupportedFilterError:
            raise ConfigurationError(
                f"{what}: {item!r} is not a valid Azure AI Search field name"
            ) from None
    return items


# -- pure helpers: parsing ------------------------------------------------------------------


def _read(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def parse_document(raw: Mapping[str, Any]) -> AzureSearchDocument:
    """Turn one result dict of the SDK into an :class:`AzureSearchDocument`.

    Raises:
        ResponseFormatError: The result is not a mapping or its annotations have the wrong
            shape.
    """
    if not isinstance(raw, Mapping):
        raise ResponseFormatError(
            f"Azure AI Search returned a result that is not an object ({type(raw).__name__})",
            provider=PROVIDER,
        )
    fields = {k: v for k, v in raw.items() if not k.startswith("@")}
    captions = raw.get("@search.captions") or []
    reranker = raw.get("@search.reranker_score")
    if reranker is None:
        reranker = raw.get("@search.rerankerScore")
    try:
        return AzureSearchDocument(
            fields=fields,
            score=raw.get("@search.score"),
            reranker_score=reranker,
            highlights=raw.get("@search.highlights"),
            captions=[
                AzureSearchCaption(text=_read(c, "text"), highlights=_read(c, "highlights"))
                for c in captions
            ],
        )
    except (ValidationError, TypeError) as exc:
        raise ResponseFormatError(
            "Azure AI Search returned a result in an unexpected shape: " + str(exc).splitlines()[0],
            provider=PROVIDER,
        ) from None


def parse_answers(answers: Any) -> list[dict[str, Any]]:
    """Semantic answers (SDK models or dicts) as plain dicts: key, text, highlights, score."""
    result: list[dict[str, Any]] = []
    for answer in answers or []:
        text = _read(answer, "text")
        if not isinstance(text, str):
            continue
        result.append(
            {
                "key": _read(answer, "key"),
                "text": text,
                "highlights": _read(answer, "highlights"),
                "score": _read(answer, "score"),
            }
        )
    return result


def attach_answers(
    docs: list[AzureSearchDocument], answers: list[dict[str, Any]], key_fields: Sequence[str]
) -> list[AzureSearchDocument]:
    """Give each document the text of the answer whose key is the document's key."""
    if not answers:
        return docs
    by_key: dict[str, str] = {}
    for answer in answers:
        if answer.get("key") is not None:
            by_key.setdefault(str(answer["key"]), answer["text"])
    out: list[AzureSearchDocument] = []
    for doc in docs:
        text = next(
            (
                by_key[str(doc.fields[k])]
                for k in key_fields
                if doc.fields.get(k) is not None and str(doc.fields[k]) in by_key
            ),
            None,
        )
        out.append(doc.model_copy(update={"answer": text}) if text else doc)
    return out


def _retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 1000.0), ("x-ms-retry-after-ms", 1000.0)):
        raw = lowered.get(name)
        if raw:
            try:
                return max(0.0, float(raw) / scale)
            except ValueError:
                pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- request --------------------------------------------------------------------------------


@dataclass
class _Request:
    """Everything one search sends, built without I/O; ``kwargs`` go to ``client.search``."""

    kwargs: dict[str, Any]
    top: int
    include_total_count: bool
    wants_answers: bool
    vector_fields: str | None = None
    vector_text: str | None = None
    vector_k: int = 50
    embed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)

    def sdk_kwargs(self, embedding: Sequence[float] | None) -> dict[str, Any]:
        """The final keyword arguments, with vector queries as SDK models (imports the SDK)."""
        kwargs = dict(self.kwargs)
        if self.vector_fields is not None:
            from azure.search.documents.models import VectorizableTextQuery, VectorizedQuery

            if self.embed:
                if embedding is None:  # pragma: no cover - guarded by the callers
                    raise ConfigurationError("an embedding is required for this vector query")
                query: Any = VectorizedQuery(
                    vector=[float(v) for v in embedding],
                    k_nearest_neighbors=self.vector_k,
                    fields=self.vector_fields,
                )
            else:
                query = VectorizableTextQuery(
                    text=self.vector_text or "",
                    k_nearest_neighbors=self.vector_k,
                    fields=self.vector_fields,
                )
            kwargs["vector_queries"] = [query]
        kwargs.update(self.extras)
        return kwargs


def _check_embedding(value: Any) -> Sequence[float]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise InvalidRequestError("embedding_function must return a non-empty sequence of floats")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise InvalidRequestError("embedding_function must return a sequence of floats")
    return value


# -- the connector --------------------------------------------------------------------------


class AzureAISearchTextSearch(BaseTextSearch[AzureSearchDocument]):
    """Search an Azure AI Search index.

    Example::

        from textsearch import AzureAISearchTextSearch, TextSearchFilter

        search = AzureAISearchTextSearch(
            endpoint="https://my-service.search.windows.net",
            index_name="kb-docs",
            api_key="...",  # or credential=DefaultAzureCredential(); or the environment
            security_filter=lambda user: search_in("acl", user.principals),
        )
        with search.security_context(current_user):
            results = await search.get_text_search_results(
                "retry policy", top=5, filter=TextSearchFilter().equal_to("category", "ops")
            )

    Args:
        endpoint: Service URL, e.g. ``https://<service>.search.windows.net``; defaults to
            ``$AZURE_SEARCH_ENDPOINT``.
        index_name: Index to search; defaults to ``$AZURE_SEARCH_INDEX``.
        api_key: Query or admin key; defaults to ``$AZURE_SEARCH_API_KEY``. Sent only in the
            ``api-key`` header, never shown in ``repr``, logs or errors.
        credential: Instead of a key: an ``AzureKeyCredential`` or any Azure token credential
            (e.g. ``azure.identity.DefaultAzureCredential``; sync or async). Bearer tokens need
            an ``https`` endpoint, except on a loopback host (local emulators and proxies).
        sync_credential: A synchronous token credential for the blocking methods when
            ``credential`` is an async one.
        name_field: Field(s) for ``TextSearchResult.name``; a name or candidates tried in
            order (default :data:`DEFAULT_NAME_FIELDS`); ``None`` for none.
        value_field: Field(s) for ``value`` (default :data:`DEFAULT_VALUE_FIELDS`). A semantic
            answer or caption of the document, when present, is preferred.
        link_field: Field(s) for ``link`` (default :data:`DEFAULT_LINK_FIELDS`).
        key_field: Field(s) holding the document key, used to attach semantic answers
            (default ``("id", "chunk_id", "key")``).
        select: Fields to retrieve (default: all retrievable fields). Fields named explicitly
            (as one string) in ``name_field``/``value_field``/``link_field`` are added.
        security_filter: OData expression AND-ed with every query's filter, in parentheses,
            or a callable that builds it from the current security context (see
            :meth:`security_context`). Nothing passed per call can remove or loosen it.
        filterable_fields: When given, the only fields a :class:`~textsearch.TextSearchFilter`
            may use; otherwise any valid field name is accepted (the service rejects fields
            that are not filterable with a :class:`~textsearch.BadRequestError`).
        query_type: ``"simple"``, ``"full"`` (Lucene syntax) or ``"semantic"``.
        semantic_configuration: Semantic configuration name (``query_type="semantic"`` only;
            default: the index's default configuration).
        captions: Ask for extractive captions (semantic only).
        answers: How many extractive answers to ask for (semantic only; 0 for none; at most 10).
        search_fields: Restrict full-text search to these fields.
        search_mode: ``"any"`` (default of the service) or ``"all"`` terms must match.
        highlight_fields: Fields to return hit highlights for.
        order_by: OData ``$orderby`` clauses, e.g. ``["year desc"]``.
        scoring_profile: Scoring profile name.
        vector_fields: Vector field(s) to query. Without ``embedding_function`` the query text
            is sent as a ``VectorizableTextQuery`` (the index needs a vectorizer); with one,
            the connector embeds the query and sends a ``VectorizedQuery``.
        embedding_function: ``str -> list[float]`` (sync or async; the blocking methods need a
            sync one).
        hybrid: With ``vector_fields``: also run the keyword query and fuse (default); ``False``
            for a pure vector query.
        vector_k: Nearest neighbours to retrieve (default: ``max(50, top + skip)``).
        vector_filter_mode: ``"preFilter"`` or ``"postFilter"``.
        search_kwargs: Other keyword arguments for ``SearchClient.search`` (e.g.
            ``scoring_parameters``); the ones the connector manages (filter, top, skip, ...)
            are refused.
        api_version: REST API version (default :data:`DEFAULT_API_VERSION`).
        search_client: An ``azure.search.documents.aio.SearchClient`` to use (its owner
            closes it).
        sync_search_client: An ``azure.search.documents.SearchClient`` for the blocking
            methods (its owner closes it).
        timeout: Seconds to wait for a connection and for each read.
        max_retries: Retries of failed requests (azure-core retry policy; 0 disables).
        max_retry_wait: Longest wait between retries; a ``Retry-After`` above it is not
            waited for (the error is raised at once with ``retry_after`` set).
        retry_backoff_factor: Exponential backoff factor between retries.
        client_kwargs: Other azure-core client options (``transport``, ``proxies``, ...).
        string_mapper: Overrides how :meth:`search` turns a document into a string.
        text_search_result_mapper: Overrides the document -> ``TextSearchResult`` mapping,
            e.g. :func:`content_block_result`.

    Raises:
        ConfigurationError: A setting is missing or invalid (the message names the argument
            and the environment variable).
        ImportError: The azure extra is not installed.
    """

    max_top: ClassVar[int] = 1000
    provider_name: ClassVar[str] = PROVIDER

    def __init__(
        self,
        *,
        endpoint: str | None = None,
        index_name: str | None = None,
        api_key: str | None = None,
        credential: Any = None,
        sync_credential: Any = None,
        name_field: FieldSpec = DEFAULT_NAME_FIELDS,
        value_field: FieldSpec = DEFAULT_VALUE_FIELDS,
        link_field: FieldSpec = DEFAULT_LINK_FIELDS,
        key_field: FieldSpec = DEFAULT_KEY_FIELDS,
        select: Sequence[str] | None = None,
        security_filter: SecurityFilter | None = None,
        filterable_fields: Collection[str] | None = None,
        query_type: QueryType = "simple",
        semantic_configuration: str | None = None,
        captions: bool = True,
        answers: int = 1,
        search_fields: Sequence[str] | None = None,
        search_mode: Literal["any", "all"] | None = None,
        highlight_fields: Sequence[str] | None = None,
        order_by: Sequence[str] | None = None,
        scoring_profile: str | None = None,
        vector_fields: str | Sequence[str] | None = None,
        embedding_function: EmbeddingFunction | None = None,
        hybrid: bool = True,
        vector_k: int | None = None,
        vector_filter_mode: Literal["preFilter", "postFilter"] | None = None,
        search_kwargs: Mapping[str, Any] | None = None,
        api_version: str = DEFAULT_API_VERSION,
        search_client: Any = None,
        sync_search_client: Any = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        retry_backoff_factor: float = 0.8,
        client_kwargs: Mapping[str, Any] | None = None,
        string_mapper: Callable[[AzureSearchDocument], str] | None = None,
        text_search_result_mapper: Callable[[AzureSearchDocument], TextSearchResult] | None = None,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        injected = search_client is not None or sync_search_client is not None
        self._search_client = search_client
        self._sync_search_client = sync_search_client
        self._owned_async: Any = None
        self._owned_async_loop: asyncio.AbstractEventLoop | None = None
        self._owned_async_keeper: AsyncGenerator[None, None] | None = None
        self._owned_sync: Any = None

        # -- where ----------------------------------------------------------------------
        endpoint = endpoint if endpoint is not None else os.environ.get(_ENV_ENDPOINT)
        index_name = index_name if index_name is not None else os.environ.get(_ENV_INDEX)
        if injected:
            config = getattr(search_client or sync_search_client, "_config", None)
            endpoint = endpoint or getattr(config, "endpoint", None)
            index_name = index_name or getattr(config, "index_name", None)
        if not endpoint:
            if not injected:
                raise ConfigurationError(
                    "Azure AI Search needs an endpoint: pass endpoint="
                    "'https://<service>.search.windows.net' or set the "
                    f"{_ENV_ENDPOINT} environment variable"
                )
        else:
            endpoint = self._check_endpoint(endpoint)
        if not index_name:
            if not injected:
                raise ConfigurationError(
                    "Azure AI Search needs an index name: pass index_name='<index>' or set the "
                    f"{_ENV_INDEX} environment variable"
                )
        elif not isinstance(index_name, str) or not _INDEX_NAME.fullmatch(index_name):
            raise ConfigurationError(
                f"index_name {index_name!r} is not a valid Azure AI Search index name "
                "(lowercase letters, digits and dashes, starting with a letter or digit)"
            )
        self._endpoint: str | None = endpoint or None
        self._index_name: str | None = index_name or None

        # -- credentials ----------------------------------------------------------------
        if api_key is not None and credential is not None:
            raise ConfigurationError(
                "pass either api_key= or credential=, not both (they are alternatives)"
            )
        self._secret: str | None = None
        self._credential: Any = None
        self._auth_kind = "injected client"
        if credential is not None:
            if _is_key_credential(credential):
                self._auth_kind = "key credential"
                self._secret = getattr(credential, "key", None)
            elif callable(getattr(credential, "get_token", None)) or callable(
                getattr(credential, "get_token_info", None)
            ):
                self._auth_kind = "token credential"
            else:
                raise ConfigurationError(
                    "credential must be an AzureKeyCredential or an Azure token credential "
                    "(an object with get_token), e.g. azure.identity.DefaultAzureCredential()"
                )
            self._credential = credential
        else:
            key = api_key if api_key is not None else os.environ.get(_ENV_KEY)
            if key is not None and (not isinstance(key, str) or not key.strip()):
                raise ConfigurationError("api_key must be a non-empty string")
            if key:
                self._secret = key.strip()
                self._auth_kind = "api key"
            elif not injected:
                raise ConfigurationError(
                    "Azure AI Search needs a key or credential: pass api_key='...' (or "
                    "credential=, e.g. DefaultAzureCredential()) or set the "
                    f"{_ENV_KEY} environment variable"
                )
        self._sync_credential = sync_credential
        self._insecure_token_ok = False
        if self._auth_kind == "token credential" and self._endpoint:
            parts = urlsplit(self._endpoint)
            if parts.scheme == "http":
                if not _is_loopback(parts.hostname or ""):
                    raise ConfigurationError(
                        "token credentials send a bearer token, which needs an https "
                        f"endpoint; {self._endpoint} is plain http"
                    )
                self._insecure_token_ok = True

        # -- mapping --------------------------------------------------------------------
        self.name_fields = _field_names(name_field, "name_field")
        self.value_fields = _field_names(value_field, "value_field")
        self.link_fields = _field_names(link_field, "link_field")
        self.key_fields = _field_names(key_field, "key_field")
        selected = _identifiers(select, "select")
        if selected is not None:
            explicit = [
                spec for spec in (name_field, value_field, link_field) if isinstance(spec, str)
            ]
            selected = tuple(dict.fromkeys([*selected, *explicit]))
        self.select = selected

        # -- query shape ----------------------------------------------------------------
        if query_type not in ("simple", "full", "semantic"):
            raise ConfigurationError(
                f"query_type must be 'simple', 'full' or 'semantic', not {query_type!r}"
            )
        if semantic_configuration is not None and query_type != "semantic":
            raise ConfigurationError("semantic_configuration needs query_type='semantic'")
        if (
            isinstance(answers, bool)
            or not isinstance(answers, int)
            or not (0 <= answers <= _MAX_ANSWERS)
        ):
            raise ConfigurationError(f"answers must be a whole number from 0 to {_MAX_ANSWERS}")
        if search_mode not in (None, "any", "all"):
            raise ConfigurationError(f"search_mode must be 'any' or 'all', not {search_mode!r}")
        self.query_type: QueryType = query_type
        self.semantic_configuration = semantic_configuration
        self.captions = bool(captions)
        self.answers = answers
        self.search_fields = _identifiers(search_fields, "search_fields")
        self.search_mode = search_mode
        self.highlight_fields = _identifiers(highlight_fields, "highlight_fields")
        self.order_by = tuple(order_by) if order_by is not None else None
        self.scoring_profile = scoring_profile

        vectors = _identifiers(vector_fields, "vector_fields")
        if vectors is not None and not vectors:
            raise ConfigurationError("vector_fields must name at least one field")
        if vectors is None and embedding_function is not None:
            raise ConfigurationError(
                "embedding_function needs vector_fields= (the fields to query)"
            )
        if vectors is None and not hybrid:
            raise ConfigurationError("hybrid=False (pure vector search) needs vector_fields=")
        if embedding_function is not None and not callable(embedding_function):
            raise ConfigurationError("embedding_function must be callable")
        if vector_k is not None and (
            isinstance(vector_k, bool) or not isinstance(vector_k, int) or vector_k < 1
        ):
            raise ConfigurationError("vector_k must be a whole number of at least 1")
        if vector_filter_mode not in (None, "preFilter", "postFilter"):
            raise ConfigurationError("vector_filter_mode must be 'preFilter' or 'postFilter'")
        self.vector_fields = vectors
        self.embedding_function = embedding_function
        self.hybrid = hybrid
        self.vector_k = vector_k
        self.vector_filter_mode = vector_filter_mode

        extras = dict(search_kwargs or {})
        refused = sorted(set(extras) & _RESERVED_SEARCH_KWARGS)
        if refused:
            raise ConfigurationError(
                "search_kwargs may not set " + ", ".join(refused) + " (use the connector's own "
                "arguments or per-call options)"
            )
        self.search_kwargs = extras

        # -- filters --------------------------------------------------------------------
        if filterable_fields is not None:
            self.filterable_fields: frozenset[str] | None = frozenset(
                _identifiers(tuple(filterable_fields), "filterable_fields") or ()
            )
        else:
            self.filterable_fields = None
        if security_filter is not None and not callable(security_filter):
            if not isinstance(security_filter, str) or not security_filter.strip():
                raise ConfigurationError(
                    "security_filter must be a non-empty OData string or a callable"
                )
            check_balanced(security_filter)
        self._security_filter = security_filter
        self._security_var: ContextVar[Any] = ContextVar(
            f"textsearch_azure_security_context_{id(self)}", default=_NO_CONTEXT
        )

        # -- transport ------------------------------------------------------------------
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigurationError("timeout must be a positive number of seconds")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError("max_retries must be a whole number of at least 0")
        if not isinstance(max_retry_wait, (int, float)) or max_retry_wait < 0:
            raise ConfigurationError("max_retry_wait must be a number of seconds, at least 0")
        if not isinstance(api_version, str) or not re.fullmatch(
            r"^\d{4}-\d{2}-\d{2}(-preview)?$", api_version
        ):
            raise ConfigurationError(f"api_version {api_version!r} is not an API version")
        self.api_version = api_version
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.max_retry_wait = float(max_retry_wait)
        self.retry_backoff_factor = float(retry_backoff_factor)
        self.client_kwargs = dict(client_kwargs or {})

        if not injected:
            _require_sdk()

    # -- alternative constructors -------------------------------------------------------------

    @classmethod
    def for_content_blocks(cls, **kwargs: Any) -> AzureAISearchTextSearch:
        """A connector for a multimodal RAG index of text and image blocks.

        Same arguments as the constructor; ``text_search_result_mapper`` defaults to
        :func:`content_block_result` and ``select`` to :data:`CONTENT_BLOCK_FIELDS`.
        """
        kwargs.setdefault("text_search_result_mapper", content_block_result)
        kwargs.setdefault("select", CONTENT_BLOCK_FIELDS)
        kwargs.setdefault("name_field", None)
        kwargs.setdefault("value_field", None)
        kwargs.setdefault("link_field", None)
        return cls(**kwargs)

    # -- configuration helpers ----------------------------------------------------------------

    @staticmethod
    def _check_endpoint(endpoint: object) -> str:
        if not isinstance(endpoint, str):
            raise ConfigurationError("endpoint must be a URL string")
        parts = urlsplit(endpoint.strip())
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ConfigurationError(
                f"endpoint {endpoint!r} is not a URL like https://<service>.search.windows.net"
            )
        if parts.username or parts.password or parts.query or parts.fragment:
            raise ConfigurationError(
                "endpoint must be the service URL only (no credentials, query or fragment)"
            )
        return endpoint.strip().rstrip("/")

    @property
    def endpoint(self) -> str | None:
        """The service URL (not secret)."""
        return self._endpoint

    @property
    def index_name(self) -> str | None:
        """The index searched."""
        return self._index_name

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(endpoint={self._endpoint!r}, index_name={self._index_name!r}, "
            f"auth={self._auth_kind!r}, query_type={self.query_type!r})"
        )

    # -- security context ---------------------------------------------------------------------

    @contextlib.contextmanager
    def security_context(self, context: Any) -> Iterator[None]:
        """Set the security context that a callable ``security_filter`` receives.

        A context variable: it holds for the ``with`` block in this thread or task, follows
        ``await`` and tasks created inside the block, and does not leak to other requests::

            with search.security_context(current_user):
                await search.search("quarterly report")   # filtered for current_user

        A callable ``security_filter`` called without a context raises
        :class:`~textsearch.ConfigurationError` (fail closed) instead of searching unfiltered.
        """
        token = self._security_var.set(context)
        try:
            yield
        finally:
            self._security_var.reset(token)

    def _security_expression(self) -> str | None:
        rule = self._security_filter
        if rule is None:
            return None
        if isinstance(rule, str):
            return rule
        context = self._security_var.get()
        if context is _NO_CONTEXT:
            raise ConfigurationError(
                "this connector's security_filter needs a security context: wrap the call in "
                "`with search.security_context(user): ...`"
            )
        expression = rule(context)
        if not isinstance(expression, str) or not expression.strip():
            raise ConfigurationError(
                "security_filter returned no filter; return an OData expression (e.g. "
                "\"acl/any(a: a eq 'u1')\"; 'true' only if this user may see everything)"
            )
        return check_balanced(expression)

    # -- filters ------------------------------------------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Check every clause before any request (field names and values).

        Raises:
            UnsupportedFilterError: A field name is not a valid identifier, is an OData keyword,
                or is not in ``filterable_fields``.
            InvalidRequestError: A value cannot be written as an OData literal.
        """
        build_filter(search_filter, self.filterable_fields)

    # -- request building (pure apart from reading the security context) --------------------

    def build_filter_expression(self, search_filter: TextSearchFilter | None) -> str | None:
        """The complete ``$filter`` a search with ``search_filter`` sends (security included).

        Raises:
            UnsupportedFilterError: A filter field is not acceptable.
            ConfigurationError: A callable security filter has no context or returned an
                unbalanced or empty expression.
        """
        return combine_filters(
            self._security_expression(), build_filter(search_filter, self.filterable_fields)
        )

    def _build_request(self, query: str, options: SearchOptions) -> _Request:
        kwargs: dict[str, Any] = {"top": options.top}
        vector_only = self.vector_fields is not None and not self.hybrid
        if not vector_only:
            kwargs["search_text"] = query
        if options.skip:
            kwargs["skip"] = options.skip
        if options.include_total_count:
            kwargs["include_total_count"] = True
        expression = self.build_filter_expression(options.filter)
        if expression is not None:
            kwargs["filter"] = expression
        if self.select is not None:
            kwargs["select"] = list(self.select)
        if self.search_fields is not None:
            kwargs["search_fields"] = list(self.search_fields)
        if self.search_mode is not None:
            kwargs["search_mode"] = self.search_mode
        if self.highlight_fields:
            kwargs["highlight_fields"] = ",".join(self.highlight_fields)
        if self.order_by:
            kwargs["order_by"] = list(self.order_by)
        if self.scoring_profile:
            kwargs["scoring_profile"] = self.scoring_profile
        kwargs["query_type"] = self.query_type
        wants_answers = False
        if self.query_type == "semantic":
            if self.semantic_configuration:
                kwargs["semantic_configuration_name"] = self.semantic_configuration
            if self.captions:
                kwargs["query_caption"] = "extractive"
                kwargs["query_caption_highlight_enabled"] = True
            if self.answers:
                kwargs["query_answer"] = "extractive"
                kwargs["query_answer_count"] = self.answers
                wants_answers = True
        if self.vector_filter_mode and self.vector_fields:
            kwargs["vector_filter_mode"] = self.vector_filter_mode
        if self._insecure_token_ok:
            kwargs["enforce_https"] = False
        return _Request(
            kwargs=kwargs,
            top=options.top,
            include_total_count=options.include_total_count,
            wants_answers=wants_answers,
            vector_fields=",".join(self.vector_fields) if self.vector_fields else None,
            vector_text=query,
            vector_k=self.vector_k or max(50, options.top + options.skip),
            embed=self.embedding_function is not None,
            extras=dict(self.search_kwargs),
        )

    def _assemble(
        self,
        raws: list[Any],
        count: Any,
        answers: Any,
        request: _Request,
    ) -> SearchResults[AzureSearchDocument]:
        docs = [parse_document(raw) for raw in raws[: request.top]]
        parsed_answers = parse_answers(answers) if request.wants_answers else []
        docs = attach_answers(docs, parsed_answers, self.key_fields)
        total: int | None = None
        if request.include_total_count and count is not None:
            if isinstance(count, bool) or not isinstance(count, int):
                raise ResponseFormatError(
                    f"Azure AI Search returned a count that is not a number: {count!r}",
                    provider=PROVIDER,
                )
            total = count
        metadata: dict[str, Any] = {"index": self._index_name}
        if request.wants_answers:
            metadata["answers"] = parsed_answers
        return SearchResults(docs, total, metadata)

    # -- clients ------------------------------------------------------------------------------

    def _client_options(self, *, is_async: bool) -> dict[str, Any]:
        options: dict[str, Any] = {
            "api_version": self.api_version,
            "connection_timeout": self.timeout,
            "read_timeout": self.timeout,
            "retry_policy": _retry_policy(
                is_async,
                total=self.max_retries,
                backoff_factor=self.retry_backoff_factor,
                backoff_max=self.max_retry_wait,
                max_wait=self.max_retry_wait,
            ),
            "user_agent": "textsearch",
        }
        options.update(self.client_kwargs)
        return options

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
            return self._search_client
        loop = asyncio.get_running_loop()
        if self._owned_async is not None and self._owned_async_loop is loop:
            return self._owned_async
        endpoint, index = self._need_location()
        _require_sdk()
        try:
            from azure.search.documents.aio import SearchClient
        except ImportError as exc:  # aiohttp missing
            raise ImportError(_INSTALL_HINT) from exc
        credential = self._key_credential()
        try:
            client = SearchClient(
                endpoint, index, credential, **self._client_options(is_async=True)
            )
        except ImportError as exc:  # aiohttp is imported when the transport is built
            raise ImportError(_INSTALL_HINT) from exc
        # The client's aiohttp session belongs to this loop. A suspended async generator
        # closes it when the loop shuts down its async generators (asyncio.run does, before
        # closing the loop), so a client left open by a caller who never used ``async with``,
        # or replaced because a later call runs in another loop, is still closed in its loop.
        keeper = _close_at_loop_end(client)
        self._owned_async = client
        self._owned_async_loop = loop
        self._owned_async_keeper = keeper
        await keeper.__anext__()  # runs to its ``yield`` at once (no suspension)
        return client

    def _sync_client(self) -> Any:
        if self._sync_search_client is not None:
            return self._sync_search_client
        if self._owned_sync is not None:
            return self._owned_sync
        endpoint, index = self._need_location()
        _require_sdk()
        from azure.search.documents import SearchClient

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
        self._owned_sync = SearchClient(
            endpoint, index, credential, **self._client_options(is_async=False)
        )
        return self._owned_sync

    # -- fetching -----------------------------------------------------------------------------

    async def _fetch(
        self, query: str, options: SearchOptions
    ) -> SearchResults[AzureSearchDocument]:
        request = self._build_request(query, options)
        embedding: Sequence[float] | None = None
        if request.embed and self.embedding_function is not None:
            produced = self.embedding_function(query)
            if inspect.isawaitable(produced):
                produced = await produced
            embedding = _check_embedding(produced)
        kwargs = request.sdk_kwargs(embedding)
        client = await self._async_client()
        started = time.perf_counter()
        raws: list[Any] = []
        count: Any = None
        answers: Any = None
        failure: tuple[Exception, BaseException] | None
        try:
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
        except Exception as exc:
            failure = self._failure(query, started, exc)
            if failure is None:
                raise
        else:
            failure = None
        return self._finish(query, started, request, raws, count, answers, failure)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[AzureSearchDocument]:
        request = self._build_request(query, options)
        embedding: Sequence[float] | None = None
        if request.embed and self.embedding_function is not None:
            produced = self.embedding_function(query)
            if inspect.isawaitable(produced):
                if inspect.iscoroutine(produced):
                    produced.close()
                raise ConfigurationError(
                    "embedding_function is async; the blocking *_sync methods need a "
                    "synchronous one (or use the async methods)"
                )
            embedding = _check_embedding(produced)
        kwargs = request.sdk_kwargs(embedding)
        client = self._sync_client()
        started = time.perf_counter()
        raws: list[Any] = []
        count: Any = None
        answers: Any = None
        failure: tuple[Exception, BaseException] | None
        try:
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
        except Exception as exc:
            failure = self._failure(query, started, exc)
            if failure is None:
                raise
        else:
            failure = None
        return self._finish(query, started, request, raws, count, answers, failure)

    def _failure(
        self, query: str, started: float, exc: Exception
    ) -> tuple[Exception, BaseException] | None:
        """Map and log an SDK failure; ``None`` means: re-raise it as it is."""
        mapped = self._translate(exc)
        self._log_failure(query, started, mapped)
        return None if mapped is exc else (mapped, _detached(exc))

    def _finish(
        self,
        query: str,
        started: float,
        request: _Request,
        raws: list[Any],
        count: Any,
        answers: Any,
        failure: tuple[Exception, BaseException] | None,
    ) -> SearchResults[AzureSearchDocument]:
        if failure is not None:
            # Raised outside the handler so the SDK's exception (whose request headers hold
            # the key) is neither the cause nor the context; a detached copy is the cause.
            raise failure[0] from failure[1]
        try:
            results = self._assemble(raws, count, answers, request)
        except ResponseFormatError as exc:
            self._log_failure(query, started, exc)
            raise
        self._log_success(query, started, results)
        return results

    def _translate(self, exc: Exception) -> Exception:
        from azure.core.exceptions import AzureError

        if isinstance(exc, AzureError):
            return self._map_error(exc)
        if isinstance(exc, (ValueError, TypeError, LookupError, AttributeError)):
            # Only SDK calls run inside the guarded block: these come from the SDK choking on
            # a 2xx body that is not a search result (empty, not JSON, wrong shapes).
            return ResponseFormatError(
                "Azure AI Search answered, but not with a search result the SDK could read "
                f"({type(exc).__name__})",
                provider=PROVIDER,
                hints=[f"endpoint {self._endpoint or '(injected client)'}"],
            )
        return exc

    # -- errors -------------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        if self._secret and self._secret in text:
            text = text.replace(self._secret, "***")
        return text

    def _map_error(self, exc: Exception) -> TextSearchError:
        """Translate one azure-core exception into the textsearch error tree (the one place)."""
        from azure.core.exceptions import (
            ClientAuthenticationError,
            DecodeError,
            DeserializationError,
            HttpResponseError,
            ResourceNotFoundError,
            ServiceRequestError,
            ServiceRequestTimeoutError,
            ServiceResponseError,
            ServiceResponseTimeoutError,
        )

        where = f"endpoint {self._endpoint or '(injected client)'}"
        index = self._index_name or "(unknown)"
        if isinstance(exc, (ServiceRequestTimeoutError, ServiceResponseTimeoutError)):
            return SearchTimeoutError(
                f"Azure AI Search did not answer within {self.timeout:g} s "
                f"(after {self.max_retries} retries)",
                provider=PROVIDER,
                hints=[where, "raise timeout= or check the service's health"],
            )
        if isinstance(exc, (ServiceRequestError, ServiceResponseError)):
            return SearchTransportError(
                f"could not reach Azure AI Search: {type(exc).__name__} "
                f"(after {self.max_retries} retries)",
                provider=PROVIDER,
                hints=[where, "check the endpoint URL and the network"],
            )
        status_of = getattr(exc, "status_code", None)
        if isinstance(exc, (DecodeError, DeserializationError)) and (
            status_of is None or status_of < 400
        ):
            return ResponseFormatError(
                "Azure AI Search answered, but not with a search result the SDK could read",
                provider=PROVIDER,
                hints=[where],
            )
        if isinstance(exc, HttpResponseError):
            status = exc.status_code
            error = getattr(exc, "error", None)
            code = getattr(error, "code", None) or None
            service_message = getattr(error, "message", None) or exc.reason or ""
            service_message = self._redact(" ".join(str(service_message).split()))
            response = getattr(exc, "response", None)
            headers = getattr(response, "headers", None)
            retry_after = _retry_after_seconds(headers)
            common: dict[str, Any] = {"provider": PROVIDER, "status_code": status, "code": code}
            suffix = f": {service_message}" if service_message else ""
            if status == 401 or (isinstance(exc, ClientAuthenticationError) and status is None):
                return AuthenticationError(
                    f"Azure AI Search rejected the credentials (HTTP {status or 'n/a'}){suffix}",
                    hints=[
                        f"check the api key ({_ENV_KEY}) or the token credential",
                        where,
                    ],
                    **common,
                )
            if status == 403:
                return PermissionDeniedError(
                    f"Azure AI Search refused access to index {index!r} (HTTP 403){suffix}",
                    hints=[
                        "check the key (a query key can search; is it for this service?) or "
                        "the role assignment (Search Index Data Reader) of the credential",
                        where,
                    ],
                    **common,
                )
            if status == 404 or isinstance(exc, ResourceNotFoundError):
                return NotFoundError(
                    f"Azure AI Search index {index!r} was not found (HTTP 404){suffix}",
                    hints=[f"check index_name / {_ENV_INDEX}", where],
                    **common,
                )
            if status == 400:
                return BadRequestError(
                    f"Azure AI Search rejected the request (HTTP 400){suffix}",
                    hints=["check filter field names and types, select and search_fields"],
                    **common,
                )
            if status == 402:
                return QuotaExceededError(
                    f"Azure AI Search quota exhausted (HTTP 402){suffix}",
                    hints=["the free semantic ranker quota may be used up"],
                    **common,
                )
            if status == 429:
                return RateLimitError(
                    f"Azure AI Search is throttling requests (HTTP 429){suffix}",
                    retry_after=retry_after,
                    hints=[f"retried {self.max_retries} times; slow down or scale the service"],
                    **common,
                )
            if status is not None and status >= 500:
                return ServiceUnavailableError(
                    f"Azure AI Search failed (HTTP {status}){suffix}",
                    retry_after=retry_after,
                    hints=[f"retried {self.max_retries} times", where],
                    **common,
                )
            return ProviderError(
                f"Azure AI Search answered HTTP {status}{suffix}", hints=[where], **common
            )
        return ProviderError(
            f"Azure AI Search request failed: {type(exc).__name__}",
            provider=PROVIDER,
            hints=[where],
        )

    # -- logging ------------------------------------------------------------------------------

    def _log_success(
        self, query: str, started: float, results: SearchResults[AzureSearchDocument]
    ) -> None:
        latency_ms = (time.perf_counter() - started) * 1000
        extra = {
            "textsearch_provider": PROVIDER,
            "textsearch_index": self._index_name,
            "textsearch_latency_ms": round(latency_ms, 1),
            "textsearch_result_count": len(results),
        }
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "azure_ai_search search index=%s results=%d total=%s latency_ms=%.1f query=%r",
                self._index_name,
                len(results),
                results.total_count,
                latency_ms,
                query,
                extra=extra,
            )
        else:
            logger.info(
                "azure_ai_search search index=%s results=%d total=%s latency_ms=%.1f",
                self._index_name,
                len(results),
                results.total_count,
                latency_ms,
                extra=extra,
            )

    def _log_failure(self, query: str, started: float, error: Exception) -> None:
        latency_ms = (time.perf_counter() - started) * 1000
        status = getattr(error, "status_code", None)
        extra = {
            "textsearch_provider": PROVIDER,
            "textsearch_index": self._index_name,
            "textsearch_latency_ms": round(latency_ms, 1),
            "textsearch_error": type(error).__name__,
        }
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "azure_ai_search search failed index=%s error=%s status=%s latency_ms=%.1f "
                "query=%r",
                self._index_name,
                type(error).__name__,
                status,
                latency_ms,
                query,
                extra=extra,
            )
        else:
            logger.warning(
                "azure_ai_search search failed index=%s error=%s status=%s latency_ms=%.1f",
                self._index_name,
                type(error).__name__,
                status,
                latency_ms,
                extra=extra,
            )

    # -- mapping ------------------------------------------------------------------------------

    def _to_text_search_result(self, item: AzureSearchDocument) -> TextSearchResult:
        fields = item.fields
        value = item.answer or item.caption or _first_text(fields, self.value_fields)
        return TextSearchResult(
            name=_first_text(fields, self.name_fields),
            value=value,
            link=_first_text(fields, self.link_fields),
        )

    # -- provider-specific API ----------------------------------------------------------------

    async def get_documents(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[AzureSearchDocument]:
        """Search and return :class:`AzureSearchDocument` results (same as get_search_results).

        Raises:
            InvalidRequestError: Empty query or invalid options (before any request).
            UnsupportedFilterError: A filter field is not acceptable (before any request).
            ConfigurationError: A callable security filter has no security context.
            ProviderError: The service answered with an error (see the subclasses).
            SearchTransportError: The service could not be reached (or timed out).
        """
        return await self.get_search_results(query, options, **kwargs)

    def get_documents_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[AzureSearchDocument]:
        """Blocking twin of :meth:`get_documents`; raises the same errors."""
        return self.get_search_results_sync(query, options, **kwargs)

    # -- resources ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the SDK clients this connector created (never injected ones)."""
        self._owned_async = None
        keeper, self._owned_async_keeper = self._owned_async_keeper, None
        loop, self._owned_async_loop = self._owned_async_loop, None
        if keeper is not None and loop is asyncio.get_running_loop():
            await keeper.aclose()  # closes the client
        self.close()

    def close(self) -> None:
        """Close the blocking SDK client this connector created (never an injected one).

        An async client it created is closed by :meth:`aclose` (or ``async with``).
        """
        client, self._owned_sync = self._owned_sync, None
        if client is not None:
            client.close()


# -- SDK glue -------------------------------------------------------------------------------


async def _close_at_loop_end(client: Any) -> AsyncGenerator[None, None]:
    """Suspend until closed (by ``aclose`` or the loop's shutdown), then close ``client``."""
    try:
        yield
    finally:
        await client.close()


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


def _detached(error: Exception) -> BaseException:
    """A copy of an SDK error keeping its type and message, without request or traceback."""
    try:
        return type(error)(str(error))
    except Exception:  # an exception type with another constructor: keep its name and text
        return RuntimeError(f"{type(error).__name__}: {error}")
