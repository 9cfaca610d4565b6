"""OpenTelemetry spans for searches, embeddings, reranking and tool calls (extra ``otel``).

Spans follow the OpenTelemetry GenAI semantic conventions: ``gen_ai.operation.name`` is
``retrieval``, ``embeddings``, ``execute_tool`` (and ``rerank``, a custom value until the
conventions define one), with ``gen_ai.data_source.id``, ``gen_ai.provider.name``,
``gen_ai.request.model`` and ``gen_ai.retrieval.top_k`` where they apply. A failure sets the
span status to ERROR and ``error.type`` to the exception's class; the exception's message
and traceback are never recorded (a message of a third-party library may quote a URL with a
key in it).

Query and result text (``gen_ai.retrieval.query.text``, ``gen_ai.retrieval.documents``,
``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``) is recorded only when the
environment variable ``TEXTSEARCH_TRACE_CONTENT`` is ``1`` (read on every span, so it can
be switched without a restart). Keys, tokens and DSNs are never read by this module: the
attributes come from the model id, the provider's name, the store's name and the server's
host.

Without ``opentelemetry-api`` nothing is imported and every hook is one check of a
module-level flag. With it but no SDK tracer provider set (the API's default no-op
provider), no span is built either.

For code outside the core (the rerankers), `operation` is the one context manager to
use::

    with _tracing.operation("rerank", model=reranker.model, provider="cohere") as span:
        scores = ...
        if span is not None:
            span.set_attribute("gen_ai.rerank.candidate.count", len(texts))
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from textsearch._types import SearchResults

__all__ = [
    "CONTENT_VARIABLE",
    "content_enabled",
    "enabled",
    "operation",
    "record_error",
]

T = TypeVar("T")

#: The environment variable that lets query and result text into spans (``1`` to allow).
CONTENT_VARIABLE = "TEXTSEARCH_TRACE_CONTENT"
#: Most characters of one text attribute (a query, a tool's arguments or result).
MAX_CONTENT_CHARS = 4_000
#: Most results described in ``gen_ai.retrieval.documents``.
MAX_DOCUMENTS = 50

_SCOPE = "textsearch"
#: The variable from which opentelemetry builds a tracer provider on first use.
_PROVIDER_VARIABLE = "OTEL_PYTHON_TRACER_PROVIDER"

# None: not looked for yet; False: opentelemetry-api is not installed; else the trace module.
_api: Any = None
_context_api: Any = None
_no_op_providers: tuple[type, ...] = ()
# The provider the tracer was made by, and that tracer: made again when the global changes.
_tracer_of: tuple[object, Any] = (None, None)
# What a search's spans say of it that does not change: provider, data source, server.
_identities: weakref.WeakKeyDictionary[Any, tuple[str, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)


def _load() -> Any:
    global _api, _context_api, _no_op_providers
    try:
        from opentelemetry import context, trace
    except ImportError:
        _api = False
        return False
    _context_api = context
    _no_op_providers = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
    _api = trace
    return trace


def enabled() -> bool:
    """Whether spans are being recorded: the API is installed and a real provider is set."""
    api = _api
    if api is False:
        return False
    if api is None:
        if "opentelemetry.trace" not in sys.modules and not _provider_named():
            # No provider can be set before the API is imported (by the application or by
            # ``opentelemetry-instrument``) unless the environment names one: nothing to
            # record, and importing the API here would only make a first search slower.
            return False
        api = _load()
        if api is False:
            return False
    provider = api.get_tracer_provider()
    if provider is _tracer_of[0]:
        return True
    # Until a real provider is set, the API's global one is a proxy that makes no-op spans.
    return not isinstance(provider, _no_op_providers)


@functools.cache
def _provider_named() -> bool:
    # Read once: the variable names a provider for the process (``opentelemetry-instrument``
    # sets it before the program starts); the API, once imported, is asked directly.
    return bool(os.environ.get(_PROVIDER_VARIABLE))


def content_enabled() -> bool:
    """Whether query and result text may be recorded (``TEXTSEARCH_TRACE_CONTENT=1``)."""
    return os.environ.get(CONTENT_VARIABLE, "").strip() == "1"


def _tracer() -> Tracer:
    global _tracer_of
    provider = _api.get_tracer_provider()
    made_by, tracer = _tracer_of
    if provider is not made_by:
        from textsearch._version import __version__

        tracer = provider.get_tracer(_SCOPE, __version__)
        _tracer_of = (provider, tracer)
    return cast("Tracer", tracer)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[: MAX_CONTENT_CHARS - 1] + "…"


def record_error(span: Span | None, exc: BaseException) -> None:
    """Mark ``span`` failed: status ERROR and ``error.type``, never the message."""
    if span is None:
        return
    span.set_attribute("error.type", _error_type(exc))
    _error_status(span, exc)


def _error_status(span: Span, exc: BaseException) -> None:
    api = _api
    span.set_status(api.Status(api.StatusCode.ERROR, type(exc).__name__))


def _error_type(exc: BaseException) -> str:
    kind = type(exc)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def _server(attributes: dict[str, Any], url: object) -> None:
    # Only the host and port of a base URL: never its user, password, path or query.
    if not isinstance(url, str) or "://" not in url:
        return
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    if host:
        attributes["server.address"] = host
        if port is not None:
            attributes["server.port"] = port


class _Opened:
    """A started span that ends with its ``with`` block, recording an exception leaving it.

    With ``current`` the span is the context's current span inside the block, so that the
    spans opened there are its children; without it nothing is attached.
    """

    __slots__ = ("_token", "span")

    def __init__(
        self, name: str, client: bool, values: dict[str, Any], *, current: bool = True
    ) -> None:
        api = _api
        kind = api.SpanKind.CLIENT if client else api.SpanKind.INTERNAL
        self.span: Span = _tracer().start_span(name, kind=kind, attributes=values)
        self._token = _context_api.attach(api.set_span_in_context(self.span)) if current else None

    def __enter__(self) -> Span:
        return self.span

    def __exit__(self, kind: object, exc: BaseException | None, traceback: object) -> None:
        if exc is not None:
            record_error(self.span, exc)
        if self._token is not None:
            _context_api.detach(self._token)
        self.span.end()


def operation(
    name: str,
    *,
    span_name: str | None = None,
    kind: str = "client",
    model: str | None = None,
    provider: str | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> AbstractContextManager[Span | None]:
    """A span for one GenAI operation, or ``None`` when tracing is off.

    The span is current inside the block (so nested operations are its children); an
    exception leaving the block is recorded by `record_error` and re-raised.

    Args:
        name: ``gen_ai.operation.name`` (``retrieval``, ``embeddings``, ``execute_tool``,
            ``rerank``...), set when the span starts.
        span_name: The span's name; ``"{name} {model}"`` (or ``name``) by default.
        kind: ``"client"`` or ``"internal"``.
        model: ``gen_ai.request.model``.
        provider: ``gen_ai.provider.name``.
        attributes: More attributes (values must be OpenTelemetry attribute values).
    """
    if not enabled():
        return nullcontext()
    values: dict[str, Any] = {"gen_ai.operation.name": name}
    if provider:
        values["gen_ai.provider.name"] = provider
    if model:
        values["gen_ai.request.model"] = model
    if attributes:
        values.update((k, v) for k, v in attributes.items() if v is not None)
    title = span_name or (f"{name} {model}" if model else name)
    return _Opened(title, kind == "client", values)


# -- retrieval (TextSearchMethods' public methods) -------------------------------------------


def _name_of(search: object) -> str:
    provider = getattr(search, "provider_name", None)
    return provider if isinstance(provider, str) and provider else type(search).__name__


def data_source_id(search: object) -> str:
    """The name of what ``search`` searches: its collection, index or table, else its kind."""
    for attribute in ("data_source_id", "collection_name", "collection", "index_name", "table"):
        value = getattr(search, attribute, None)
        if isinstance(value, str) and value:
            return value
    path = getattr(search, "path", None)
    if isinstance(path, str) and path:
        return os.path.basename(path) or path
    return _name_of(search)


def _model_of(search: object) -> str | None:
    for attribute in ("embedder", "reranker"):
        used = getattr(search, attribute, None)
        model = None if used is None else getattr(used, "model", None)
        if isinstance(model, str) and model:
            return model
    return None


def _describe(search: object) -> tuple[str, dict[str, Any]]:
    source = data_source_id(search)
    values: dict[str, Any] = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.provider.name": _name_of(search),
        "gen_ai.data_source.id": source,
    }
    _server(values, getattr(search, "base_url", None) or getattr(search, "endpoint", None))
    return f"retrieval {source}", values


def _retrieval_attributes(search: object) -> tuple[str, dict[str, Any]]:
    # A search's provider, data source and server are fixed when it is made: described once.
    try:
        found = _identities.get(search)
        if found is None:
            found = _identities[search] = _describe(search)
    except TypeError:  # neither hashable nor weakly referable: described every time
        found = _describe(search)
    name, values = found[0], dict(found[1])
    model = _model_of(search)  # an embedder can be swapped: read on every search
    if model is not None:
        values["gen_ai.request.model"] = model
    return name, values


def _request_attributes(values: dict[str, Any], query: str, options: Any, content: bool) -> None:
    values["gen_ai.retrieval.top_k"] = options.top
    if options.skip:
        values["textsearch.retrieval.skip"] = options.skip
    search_filter = options.filter
    if search_filter:
        values["textsearch.retrieval.filter.fields"] = list(search_filter.field_names)
    if content:
        values["gen_ai.retrieval.query.text"] = _clip(query)


def _documents(results: Any) -> str:
    described: list[dict[str, Any]] = []
    for item in list(results)[:MAX_DOCUMENTS]:
        entry: dict[str, Any] = {}
        key = getattr(item, "id", None) or getattr(item, "link", None)
        if isinstance(key, str):
            entry["id"] = key
        elif isinstance(item, str):
            entry["id"] = _clip(item)[:200]
        score = getattr(item, "score", None)
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            entry["score"] = float(score)
        described.append(entry)
    return json.dumps(described, ensure_ascii=False)


def _refused(search: object, exc: BaseException) -> None:
    """A request refused before it was sent (bad query, options or filter): a failed span."""
    name, values = _retrieval_attributes(search)
    with _Opened(name, True, values, current=False) as span:
        record_error(span, exc)


class _Retrieval:
    """The span of one search, around ``with _Retrieval(...) as call: call.results = ...``.

    A search that can open spans of its own (an embedder's, a wrapped search's, an HTTP
    client's) gets a span that is current while it runs. One that cannot (``_trace_children``
    false: a local keyword search) attaches nothing: its span is made when it is over, with
    the time it started and every attribute at once, which is the SDK's cheapest way.
    """

    __slots__ = (
        "_content",
        "_name",
        "_opened",
        "_parent",
        "_start",
        "_values",
        "options",
        "query",
        "results",
    )

    def __init__(self, search: Any, query: Any, options: Any, kwargs: Mapping[str, Any]) -> None:
        try:
            self.query, self.options = search._prepare(query, options, kwargs)
        except BaseException as exc:
            _refused(search, exc)
            raise
        self.results: Any = None
        self._content = content_enabled()
        self._name, self._values = _retrieval_attributes(search)
        _request_attributes(self._values, self.query, self.options, self._content)
        self._opened: _Opened | None = None
        if getattr(search, "_trace_children", True):
            self._opened = _Opened(self._name, True, self._values)
        else:
            self._parent = _context_api.get_current()
            self._start = time.time_ns()

    def __enter__(self) -> _Retrieval:
        return self

    def __exit__(self, kind: object, exc: BaseException | None, traceback: object) -> None:
        found: dict[str, Any] = {}
        if self.results is not None:
            found["textsearch.retrieval.result_count"] = len(self.results)
            if self._content:
                found["gen_ai.retrieval.documents"] = _documents(self.results)
        opened = self._opened
        if opened is not None:
            if found:
                opened.span.set_attributes(found)
            opened.__exit__(kind, exc, traceback)
            return
        values = self._values
        values.update(found)
        if exc is not None:
            values["error.type"] = _error_type(exc)
        span = _tracer().start_span(
            self._name,
            context=self._parent,
            kind=_api.SpanKind.CLIENT,
            attributes=values,
            start_time=self._start,
        )
        if exc is not None:
            _error_status(span, exc)
        span.end()


async def retrieve(
    search: Any, kind: str, query: Any, options: Any, kwargs: Mapping[str, Any]
) -> SearchResults[Any]:
    """``search._prepare`` then ``search._answer(kind, ...)`` inside a retrieval span."""
    with _Retrieval(search, query, options, kwargs) as call:
        call.results = await search._answer(kind, call.query, call.options)
    return cast("SearchResults[Any]", call.results)


def retrieve_sync(
    search: Any, kind: str, query: Any, options: Any, kwargs: Mapping[str, Any]
) -> SearchResults[Any]:
    """Blocking twin of `retrieve`."""
    with _Retrieval(search, query, options, kwargs) as call:
        call.results = search._answer_sync(kind, call.query, call.options)
    return cast("SearchResults[Any]", call.results)


# -- embeddings ----------------------------------------------------------------------------


def _embedding_attributes(embedder: Any, count: int) -> dict[str, Any]:
    values: dict[str, Any] = {"textsearch.embeddings.input_count": count}
    dimensions = getattr(embedder, "dimensions", None)
    if isinstance(dimensions, int) and not isinstance(dimensions, bool):
        values["gen_ai.embeddings.dimension.count"] = dimensions
    _server(values, getattr(embedder, "base_url", None))
    return values


def embedding_span(embedder: Any, provider: str, count: int) -> Any:
    """The context manager of one embedding call (use only when `enabled`)."""
    model = getattr(embedder, "model", None)
    return operation(
        "embeddings",
        model=model if isinstance(model, str) else None,
        provider=provider,
        attributes=_embedding_attributes(embedder, count),
    )


# -- tool calls ------------------------------------------------------------------------------


def _arguments_text(arguments: object) -> str:
    if isinstance(arguments, str):
        return _clip(arguments)
    try:
        return _clip(json.dumps(arguments, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return "<unserializable>"


def _tool_span(name: str, description: str, tool_type: str, arguments: object) -> _Opened:
    values: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.type": tool_type,
        "gen_ai.tool.description": _clip(description),
    }
    if content_enabled():
        values["gen_ai.tool.call.arguments"] = _arguments_text(arguments)
    return _Opened(f"execute_tool {name}", False, values)


def _tool_outcome(span: Span, outcome: Any) -> None:
    if getattr(outcome, "is_error", False):
        if "error.type" not in getattr(span, "attributes", {}):
            span.set_attribute("error.type", "tool_error")
        span.set_status(_api.Status(_api.StatusCode.ERROR, "tool_error"))
    if content_enabled():
        text = getattr(outcome, "text", None)
        if isinstance(text, str):
            span.set_attribute("gen_ai.tool.call.result", _clip(text))


async def run_tool(
    name: str,
    description: str,
    tool_type: str,
    arguments: object,
    run: Callable[[], Awaitable[T]],
) -> T:
    """``run()`` (a tool call giving an outcome with ``text``/``is_error``) in a span."""
    with _tool_span(name, description, tool_type, arguments) as span:
        outcome = await run()
        _tool_outcome(span, outcome)
    return outcome


def run_tool_sync(
    name: str, description: str, tool_type: str, arguments: object, run: Callable[[], T]
) -> T:
    """Blocking twin of `run_tool`."""
    with _tool_span(name, description, tool_type, arguments) as span:
        outcome = run()
        _tool_outcome(span, outcome)
    return outcome


def note_failure(exc: BaseException) -> None:
    """Record on the current span (a tool call's) the error a tool turned into a message."""
    if not enabled():
        return
    span = _api.get_current_span()
    if span.is_recording():
        span.set_attribute("error.type", _error_type(exc))
