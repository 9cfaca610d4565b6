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

import json
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar
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

# None: not looked for yet; False: opentelemetry-api is not installed; else the trace module.
_api: Any = None
_no_op_providers: tuple[type, ...] = ()
_tracer_cache: dict[int, Tracer] = {}


def _load() -> Any:
    global _api, _no_op_providers
    try:
        from opentelemetry import trace
    except ImportError:
        _api = False
        return False
    _no_op_providers = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
    _api = trace
    return trace


def enabled() -> bool:
    """Whether spans are being recorded: the API is installed and a real provider is set."""
    api = _api
    if api is False:
        return False
    if api is None:
        api = _load()
        if api is False:
            return False
    # Until a real provider is set, the API's global one is a proxy that makes no-op spans.
    return not isinstance(api.get_tracer_provider(), _no_op_providers)


def content_enabled() -> bool:
    """Whether query and result text may be recorded (``TEXTSEARCH_TRACE_CONTENT=1``)."""
    return os.environ.get(CONTENT_VARIABLE, "").strip() == "1"


def _tracer() -> Tracer:
    api = _api
    provider = api.get_tracer_provider()
    found = _tracer_cache.get(id(provider))
    if found is None:
        from textsearch._version import __version__

        _tracer_cache.clear()
        found = _tracer_cache[id(provider)] = api.get_tracer(_SCOPE, __version__)
    return found


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[: MAX_CONTENT_CHARS - 1] + "…"


def record_error(span: Span | None, exc: BaseException) -> None:
    """Mark ``span`` failed: status ERROR and ``error.type``, never the message."""
    if span is None:
        return
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", _error_type(exc))
    span.set_status(Status(StatusCode.ERROR, type(exc).__name__))


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


@contextmanager
def operation(
    name: str,
    *,
    span_name: str | None = None,
    kind: str = "client",
    model: str | None = None,
    provider: str | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> Iterator[Span | None]:
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
        yield None
        return
    values: dict[str, Any] = {"gen_ai.operation.name": name}
    if provider:
        values["gen_ai.provider.name"] = provider
    if model:
        values["gen_ai.request.model"] = model
    if attributes:
        values.update((k, v) for k, v in attributes.items() if v is not None)
    title = span_name or (f"{name} {model}" if model else name)
    span, token = _start(title, kind == "client", values)
    try:
        yield span
    except BaseException as exc:
        record_error(span, exc)
        raise
    finally:
        _end(span, token)


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
        model = getattr(getattr(search, attribute, None), "model", None)
        if isinstance(model, str) and model:
            return model
    return None


def _start(name: str, client: bool, values: dict[str, Any]) -> tuple[Span, object]:
    """Start a span and make it current (cheaper than the API's context manager)."""
    api = _api
    kind = api.SpanKind.CLIENT if client else api.SpanKind.INTERNAL
    span = _tracer().start_span(name, kind=kind, attributes=values)
    return span, _context().attach(api.set_span_in_context(span))


def _end(span: Span, token: object) -> None:
    _context().detach(token)
    span.end()


def _context() -> Any:
    from opentelemetry import context

    return context


def _retrieval_attributes(search: object) -> tuple[str, dict[str, Any]]:
    source = data_source_id(search)
    values: dict[str, Any] = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.provider.name": _name_of(search),
        "gen_ai.data_source.id": source,
    }
    model = _model_of(search)
    if model is not None:
        values["gen_ai.request.model"] = model
    _server(values, getattr(search, "base_url", None) or getattr(search, "endpoint", None))
    return f"retrieval {source}", values


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


def _result_attributes(span: Span, results: Any, content: bool) -> None:
    span.set_attribute("textsearch.retrieval.result_count", len(results))
    if content:
        span.set_attribute("gen_ai.retrieval.documents", _documents(results))


def _refused(search: object, exc: BaseException) -> None:
    """A request refused before it was sent (bad query, options or filter): a failed span."""
    name, values = _retrieval_attributes(search)
    span, token = _start(name, True, values)
    record_error(span, exc)
    _end(span, token)


def _prepared(
    search: Any, query: Any, options: Any, kwargs: Mapping[str, Any]
) -> tuple[str, Any, tuple[Span, object], bool]:
    try:
        resolved, effective = search._prepare(query, options, kwargs)
    except BaseException as exc:
        _refused(search, exc)
        raise
    content = content_enabled()
    # Every attribute known now is given at the start: one pass of the SDK's checks.
    name, values = _retrieval_attributes(search)
    _request_attributes(values, resolved, effective, content)
    return resolved, effective, _start(name, True, values), content


async def retrieve(
    search: Any, kind: str, query: Any, options: Any, kwargs: Mapping[str, Any]
) -> SearchResults[Any]:
    """``search._prepare`` then ``search._answer(kind, ...)`` inside a retrieval span."""
    resolved, effective, (span, token), content = _prepared(search, query, options, kwargs)
    try:
        results: SearchResults[Any] = await search._answer(kind, resolved, effective)
        _result_attributes(span, results, content)
        return results
    except BaseException as exc:
        record_error(span, exc)
        raise
    finally:
        _end(span, token)


def retrieve_sync(
    search: Any, kind: str, query: Any, options: Any, kwargs: Mapping[str, Any]
) -> SearchResults[Any]:
    """Blocking twin of `retrieve`."""
    resolved, effective, (span, token), content = _prepared(search, query, options, kwargs)
    try:
        results: SearchResults[Any] = search._answer_sync(kind, resolved, effective)
        _result_attributes(span, results, content)
        return results
    except BaseException as exc:
        record_error(span, exc)
        raise
    finally:
        _end(span, token)


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


def _tool_span(
    name: str, description: str, tool_type: str, arguments: object
) -> tuple[Span, object]:
    values: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.type": tool_type,
        "gen_ai.tool.description": _clip(description),
    }
    if content_enabled():
        values["gen_ai.tool.call.arguments"] = _arguments_text(arguments)
    return _start(f"execute_tool {name}", False, values)


def _tool_outcome(span: Span, outcome: Any) -> None:
    if getattr(outcome, "is_error", False):
        from opentelemetry.trace import Status, StatusCode

        if "error.type" not in getattr(span, "attributes", {}):
            span.set_attribute("error.type", "tool_error")
        span.set_status(Status(StatusCode.ERROR, "tool_error"))
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
    span, token = _tool_span(name, description, tool_type, arguments)
    try:
        outcome = await run()
        _tool_outcome(span, outcome)
        return outcome
    except BaseException as exc:
        record_error(span, exc)
        raise
    finally:
        _end(span, token)


def run_tool_sync(
    name: str, description: str, tool_type: str, arguments: object, run: Callable[[], T]
) -> T:
    """Blocking twin of `run_tool`."""
    span, token = _tool_span(name, description, tool_type, arguments)
    try:
        outcome = run()
        _tool_outcome(span, outcome)
        return outcome
    except BaseException as exc:
        record_error(span, exc)
        raise
    finally:
        _end(span, token)


def note_failure(exc: BaseException) -> None:
    """Record on the current span (a tool call's) the error a tool turned into a message."""
    if not enabled():
        return
    span = _api.get_current_span()
    if span.is_recording():
        span.set_attribute("error.type", _error_type(exc))
