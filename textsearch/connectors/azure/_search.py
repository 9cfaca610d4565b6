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
* Filters are data (`TextSearchFilter`) translated to OData by
  `textsearch.connectors.azure._odata`; a ``security_filter`` set by the developer is AND-ed in
  parentheses with every query's filter: ``(<security>) and (<query filter>)``.
* azure-core errors are translated in one place (`._azure_errors.map_error`).

The connector is split by concern: `._query` (pure request building), `._clients`
(the connector's SDK clients, one read's scope and outcome), `._sdk` (the SDK bridge:
clients, credentials, retry policy), `._transport` (pipeline guards: same-origin
redirects, size cap, deadline), `._parse` (response parsing and the native model) and
`._errors` (error mapping, logs, key scrubbing).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, ClassVar, Literal

from typing_extensions import Self, Unpack

from textsearch._http import check_limits, check_positive_seconds, check_seconds
from textsearch._types import (
    SearchOptionArgs,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch
from textsearch.connectors.azure._clients import _AzureClients, _Read
from textsearch.connectors.azure._errors import (
    ENV_ENDPOINT,
    ENV_INDEX,
    ENV_KEY,
    ENV_VECTOR_FIELDS,
    protect_logs,
)
from textsearch.connectors.azure._errors import (
    _retry_after_seconds as _retry_after_seconds,
)
from textsearch.connectors.azure._odata import (
    build_filter,
    check_balanced,
    combine_filters,
    odata_literal,
    search_in,
)
from textsearch.connectors.azure._parse import (
    CONTENT_BLOCK_FIELDS,
    DEFAULT_KEY_FIELDS,
    DEFAULT_LINK_FIELDS,
    DEFAULT_NAME_FIELDS,
    DEFAULT_VALUE_FIELDS,
    PROVIDER,
    AzureSearchCaption,
    AzureSearchDocument,
    _first_text,
    content_block_result,
)

# Module-level helpers of the connector before the split, still importable from here.
from textsearch.connectors.azure._parse import attach_answers as attach_answers
from textsearch.connectors.azure._parse import parse_answers as parse_answers
from textsearch.connectors.azure._parse import parse_document as parse_document
from textsearch.connectors.azure._query import (
    DEFAULT_API_VERSION,
    EmbeddingFunction,
    FieldSpec,
    QueryType,
    SecurityFilter,
    _check_embedding,
    _field_names,
    _identifiers,
    build_request,
    check_query_shape,
    check_search_kwargs,
    check_vector_settings,
    security_expression,
)
from textsearch.connectors.azure._sdk import (
    _read_async,
    _read_sync,
    _require_sdk,
    check_api_version,
    insecure_token_ok,
    resolve_auth,
    resolve_location,
)
from textsearch.connectors.azure._sdk import _retry_policy as _retry_policy
from textsearch.connectors.azure._transport import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RESPONSE_BYTES,
    deadline_watch,
)
from textsearch.embeddings import Embedder, embed_query, embed_query_sync
from textsearch.errors import ConfigurationError

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


# Module logger kept for callers that configured it through this module.
logger = logging.getLogger("textsearch")

_NO_CONTEXT: Any = object()


# -- the connector --------------------------------------------------------------------------


class AzureAISearchTextSearch(_AzureClients, BaseTextSearch[AzureSearchDocument]):
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
            order (default `DEFAULT_NAME_FIELDS`); ``None`` for none.
        value_field: Field(s) for ``value`` (default `DEFAULT_VALUE_FIELDS`). A semantic
            answer or caption of the document, when present, is preferred.
        link_field: Field(s) for ``link`` (default `DEFAULT_LINK_FIELDS`).
        key_field: Field(s) holding the document key, used to attach semantic answers
            (default ``("id", "chunk_id", "key")``).
        select: Fields to retrieve (default: all retrievable fields). Fields named explicitly
            (as one string) in ``name_field``/``value_field``/``link_field`` are added.
        security_filter: OData expression AND-ed with every query's filter, in parentheses,
            or a callable that builds it from the current security context (see
            `security_context`). Nothing passed per call can remove or loosen it.
        filterable_fields: When given, the only fields a `TextSearchFilter`
            may use; otherwise any valid field name is accepted (the service rejects fields
            that are not filterable with a `BadRequestError`).
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
            sync one), or an `Embedder` (e.g. ``OpenAIEmbedder``,
            ``OnnxEmbedder.default()``), whose ``embed_query`` is used and whose output is
            checked (a malformed vector is a ``ResponseFormatError``, an exception inside it a
            ``ProviderError``).
        hybrid: With ``vector_fields``: also run the keyword query and fuse (default); ``False``
            for a pure vector query.
        vector_k: Nearest neighbours to retrieve (default: ``max(50, top + skip)``).
        vector_filter_mode: ``"preFilter"`` or ``"postFilter"``.
        search_kwargs: Other keyword arguments for ``SearchClient.search`` (e.g.
            ``scoring_parameters``); the ones the connector manages (filter, top, skip, ...)
            are refused.
        api_version: REST API version (default `DEFAULT_API_VERSION`).
        search_client: An ``azure.search.documents.aio.SearchClient`` to use (its owner
            closes it). Its pipeline transport is wrapped once by the connector's guard
            (size cap, deadline, bearer-token capture), which is inert outside the
            connector's searches.
        sync_search_client: An ``azure.search.documents.SearchClient`` for the blocking
            methods (its owner closes it); guarded the same way.
        timeout: Seconds to wait for a connection and for each read.
        deadline: Seconds one search may take in all: every attempt, every wait between
            attempts and every byte read (default 60). Past it:
            `SearchTimeoutError`.
        max_response_bytes: Largest response body, counted after decompression (default
            10 MiB, as for every connector); a larger one raises
            `ResponseFormatError` without being read into memory.
        max_retries: Retries of failed requests (azure-core retry policy; 0 disables).
        max_retry_wait: Longest wait between retries; a ``Retry-After`` above it is not
            waited for (the error is raised at once with ``retry_after`` set).
        retry_backoff_factor: Exponential backoff factor between retries.
        client_kwargs: Other azure-core client options (``transport``, ``proxies``, ...); a
            ``transport`` of yours is wrapped by the size cap and deadline guard.
        string_mapper: Overrides how `search` turns a document into a string.
        text_search_result_mapper: Overrides the document -> ``TextSearchResult`` mapping,
            e.g. `content_block_result`.

    Raises:
        ConfigurationError: A setting is missing or invalid (the message names the argument
            and the environment variable).
        ImportError: The azure extra is not installed.
    """

    max_top: ClassVar[int] = 1000
    provider_name: ClassVar[str] = PROVIDER

    @classmethod
    def from_env(cls, *, embedder: Embedder | str | None = None, **settings: Any) -> Self:
        """Build the connector from ``AZURE_SEARCH_ENDPOINT``, ``AZURE_SEARCH_INDEX`` and
        ``AZURE_SEARCH_API_KEY``; keywords given here win over the environment.

        Every missing variable is named in one message, before the Azure SDK is imported.
        For vector queries, ``AZURE_SEARCH_VECTOR_FIELDS`` names the index's vector field(s)
        (comma-separated) and, unless ``embedder`` or ``embedding_function`` is given,
        ``TEXTSEARCH_EMBEDDER`` the embedder of the query (a spec such as ``minilm``);
        vector fields without an embedder send the query text to the index's vectorizer.

        Args:
            embedder: An `Embedder`, or a spec for `textsearch.embeddings.from_spec`
                (``None``: the spec in ``TEXTSEARCH_EMBEDDER``, if any); it becomes the
                ``embedding_function``.
            **settings: Any other constructor keyword (``credential=`` stands in for the key).

        Raises:
            ConfigurationError: A variable is missing (named, never a value), a bad embedder
                spec, an embedder without vector fields, or an invalid setting.
        """
        from textsearch.embeddings import embedder_from_env

        needed = (
            (ENV_ENDPOINT, "endpoint"),
            (ENV_INDEX, "index_name"),
            (ENV_KEY, "credential" if "credential" in settings else "api_key"),
        )
        missing = [
            variable
            for variable, keyword in needed
            if keyword not in settings and not os.environ.get(variable, "").strip()
        ]
        if missing:
            raise ConfigurationError(
                "the azure provider needs the environment variables "
                + ", ".join(variable for variable, _ in needed)
                + "; missing: "
                + ", ".join(missing)
            )
        fields = os.environ.get(ENV_VECTOR_FIELDS, "").strip()
        if fields and "vector_fields" not in settings:
            settings["vector_fields"] = [field.strip() for field in fields.split(",")]
        if "embedding_function" in settings:
            if embedder is not None:
                raise ConfigurationError("give embedder= or embedding_function=, not both")
            return cls(**settings)
        found = embedder_from_env(embedder)
        if found is not None:
            if settings.get("vector_fields") is None:
                raise ConfigurationError(
                    f"an embedder needs the vector field(s) to query: set {ENV_VECTOR_FIELDS} "
                    "(comma-separated) or pass vector_fields="
                )
            settings["embedding_function"] = found
        return cls(**settings)

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
        embedding_function: EmbeddingFunction | Embedder | None = None,
        hybrid: bool = True,
        vector_k: int | None = None,
        vector_filter_mode: Literal["preFilter", "postFilter"] | None = None,
        search_kwargs: Mapping[str, Any] | None = None,
        api_version: str = DEFAULT_API_VERSION,
        search_client: Any = None,
        sync_search_client: Any = None,
        timeout: float = 30.0,
        deadline: float = DEFAULT_DEADLINE,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
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
        self._owned_async = None
        self._owned_async_closer = None
        self._owned_sync = None

        # -- where and who ----------------------------------------------------------------
        client = search_client or sync_search_client
        self._endpoint, self._index_name = resolve_location(endpoint, index_name, client)
        auth = resolve_auth(api_key, credential, injected=injected)
        self._secret = auth.secret
        self._credential = auth.credential
        self._auth_kind = auth.kind
        self._sync_credential = sync_credential
        self._insecure_token_ok = insecure_token_ok(self._auth_kind, self._endpoint)
        # The bearer tokens this connector's searches sent (a credential refreshes them): what
        # an echo of the service could hold. Never logged, never in repr; a few recent ones.
        self._tokens = deque(maxlen=8)
        protect_logs(self)

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
        check_query_shape(query_type, semantic_configuration, answers, search_mode)
        self.query_type: QueryType = query_type
        self.semantic_configuration = semantic_configuration
        self.captions = bool(captions)
        self.answers = answers
        self.search_fields = _identifiers(search_fields, "search_fields")
        self.search_mode = search_mode
        self.highlight_fields = _identifiers(highlight_fields, "highlight_fields")
        self.order_by = tuple(order_by) if order_by is not None else None
        self.scoring_profile = scoring_profile

        # An Embedder is not a callable; its query method stands in for the callable checks.
        self._embedder = embedding_function if isinstance(embedding_function, Embedder) else None
        self._embed_fn: EmbeddingFunction | None = (
            None if self._embedder is not None else embedding_function  # type: ignore[assignment]
        )
        vectors = check_vector_settings(
            vector_fields,
            self._embedder.embed_query_sync if self._embedder is not None else embedding_function,
            hybrid,
            vector_k,
            vector_filter_mode,
        )
        self.vector_fields = vectors
        self.embedding_function = embedding_function
        self.hybrid = hybrid
        self.vector_k = vector_k
        self.vector_filter_mode = vector_filter_mode

        extras = check_search_kwargs(search_kwargs)
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
        # The limits every HTTP connector checks the same way (see textsearch._http).
        self.max_retries, self.max_retry_wait, self.max_response_bytes, self.deadline = (
            check_limits(max_retries, max_retry_wait, max_response_bytes, deadline)
        )
        self.timeout = check_positive_seconds("timeout", timeout)
        self.retry_backoff_factor = check_seconds("retry_backoff_factor", retry_backoff_factor)
        self.api_version = check_api_version(api_version)
        self.client_kwargs = dict(client_kwargs or {})

        if not injected:
            _require_sdk()

    # -- alternative constructors -------------------------------------------------------------

    @classmethod
    def for_content_blocks(cls, **kwargs: Any) -> AzureAISearchTextSearch:
        """A connector for a multimodal RAG index of text and image blocks.

        Same arguments as the constructor; ``text_search_result_mapper`` defaults to
        `content_block_result` and ``select`` to `CONTENT_BLOCK_FIELDS`.
        """
        kwargs.setdefault("text_search_result_mapper", content_block_result)
        kwargs.setdefault("select", CONTENT_BLOCK_FIELDS)
        kwargs.setdefault("name_field", None)
        kwargs.setdefault("value_field", None)
        kwargs.setdefault("link_field", None)
        return cls(**kwargs)

    # -- configuration helpers ----------------------------------------------------------------

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
        `ConfigurationError` (fail closed) instead of searching unfiltered.
        """
        token = self._security_var.set(context)
        try:
            yield
        finally:
            self._security_var.reset(token)

    def _security_expression(self) -> str | None:
        context = self._security_var.get()
        return security_expression(
            self._security_filter, None if context is _NO_CONTEXT else (context,)
        )

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

    # -- fetching -----------------------------------------------------------------------------

    async def _fetch(
        self, query: str, options: SearchOptions
    ) -> SearchResults[AzureSearchDocument]:
        request = build_request(self, query, options, self.build_filter_expression(options.filter))
        embedding: Sequence[float] | None = None
        if request.embed and self._embedder is not None:
            embedding = await embed_query(self._embedder, query)
        elif request.embed and self._embed_fn is not None:
            produced = self._embed_fn(query)
            if inspect.isawaitable(produced):
                produced = await produced
            embedding = _check_embedding(produced)
        kwargs = request.sdk_kwargs(embedding)
        client = await self._async_client()
        kwargs.update(self._per_call_options())
        read = _Read()
        with self._scope() as deadline:
            try:
                # The deadline cancels the whole search, waits between attempts included: a
                # read that receives a byte now and then would otherwise never time out.
                read.raws, read.count, read.answers = await asyncio.wait_for(
                    _read_async(client, kwargs, request), self.deadline
                )
            except (Exception, asyncio.TimeoutError) as exc:
                read.failure = self._failure(query, read.started, exc, deadline)
                if read.failure is None:
                    raise
        return self._finish(query, request, read)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[AzureSearchDocument]:
        request = build_request(self, query, options, self.build_filter_expression(options.filter))
        embedding: Sequence[float] | None = None
        if request.embed and self._embedder is not None:
            embedding = embed_query_sync(self._embedder, query)
        elif request.embed and self._embed_fn is not None:
            produced = self._embed_fn(query)
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
        kwargs.update(self._per_call_options())
        read = _Read()
        with self._scope() as deadline, deadline_watch():
            try:
                read.raws, read.count, read.answers = _read_sync(client, kwargs, request)
            except Exception as exc:
                read.failure = self._failure(query, read.started, exc, deadline)
                if read.failure is None:
                    raise
        return self._finish(query, request, read)

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
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[AzureSearchDocument]:
        """Search and return `AzureSearchDocument` results (same as get_search_results).

        Raises:
            InvalidRequestError: Empty query or invalid options (before any request).
            UnsupportedFilterError: A filter field is not acceptable (before any request).
            ConfigurationError: A callable security filter has no security context.
            ProviderError: The service answered with an error (see the subclasses).
            SearchTransportError: The service could not be reached (or timed out).
        """
        return await self.get_search_results(query, options, **kwargs)

    def get_documents_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[AzureSearchDocument]:
        """Blocking twin of `get_documents`; raises the same errors."""
        return self.get_search_results_sync(query, options, **kwargs)
