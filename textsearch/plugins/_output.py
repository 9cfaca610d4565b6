"""What the model receives: results as text or compact JSON, and errors as one short sentence."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from textsearch._types import SearchResults, TextSearchResult
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    UnsupportedFilterError,
)

__all__ = ["Kind", "error_message", "render_results"]

Kind = Literal["search", "text_search_results", "search_results"]

#: Longest string value of a native result passed on to the model; longer ones are cut.
MAX_FIELD_CHARS = 2000
_TRUNCATED = " [...]"
_MAX_DETAIL_CHARS = 300


def _no_results(query: str, skip: int) -> str:
    if skip:
        return (
            f"No more results for query: {query} (after skipping {skip}). "
            "Try a smaller skip or a different query."
        )
    return f"No results found for query: {query}. Try a broader query or other keywords."


def render_results(
    kind: Kind,
    query: str,
    skip: int,
    results: SearchResults[Any],
    string_mapper: Callable[[Any], str] | None,
) -> str:
    """Turn one search's results into the text the model receives.

    ``"search"`` (or any kind with a ``string_mapper``) gives the numbered text of
    :func:`textsearch.grounding.format_results`; the other kinds give compact JSON with a
    ``citation`` number (from 1, like the numbered text) and a ``link`` per result.
    """
    items = list(results)
    if not items:
        if kind == "search" or string_mapper is not None:
            return _no_results(query, skip)
        return _compact({"query": query, "results": [], "message": _no_results(query, skip)})
    if kind == "search" or string_mapper is not None:
        from textsearch.grounding import format_results

        texts = [string_mapper(i) if string_mapper is not None else i for i in items]
        return format_results([str(t) for t in texts], query=query)
    entries: list[dict[str, Any]] = []
    for number, item in enumerate(items, start=1):
        if kind == "text_search_results" and isinstance(item, TextSearchResult):
            body: dict[str, Any] = {"name": item.name, "value": item.value, "link": item.link}
        else:
            body = _native_to_dict(item)
        entries.append({"citation": number, **body})
    payload: dict[str, Any] = {"query": query, "results": entries}
    if results.total_count is not None:
        payload["total_count"] = results.total_count
    return _compact(payload)


def _compact(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def _native_to_dict(item: Any) -> dict[str, Any]:
    """Serialize a native result; always with a ``link`` key (``None`` when it has none)."""
    data: Any
    if isinstance(item, BaseModel):
        data = item.model_dump(mode="json", exclude_none=True)
    elif dataclasses.is_dataclass(item) and not isinstance(item, type):
        data = dataclasses.asdict(item)
    elif isinstance(item, Mapping):
        data = dict(item)
    else:
        data = {"value": item if isinstance(item, str) else str(item)}
    if not isinstance(data, dict):
        data = {"value": data}
    result = {str(k): _cap(v) for k, v in data.items() if v is not None}
    if not result.get("link"):
        url = result.get("url")
        result["link"] = url if isinstance(url, str) and url else None
    return result


def _cap(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        return value[: MAX_FIELD_CHARS - len(_TRUNCATED)] + _TRUNCATED
    if isinstance(value, list):
        return [_cap(v) for v in value]
    if isinstance(value, dict):
        return {k: _cap(v) for k, v in value.items()}
    return value


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    if len(line) > _MAX_DETAIL_CHARS:
        line = line[: _MAX_DETAIL_CHARS - 3] + "..."
    return line


def invalid_arguments_message(function_name: str, detail: str) -> str:
    """The message for arguments the model got wrong."""
    return (
        f"Invalid arguments for {function_name}: {_one_line(detail)}. "
        "Call it again with arguments that match its schema."
    )


def error_message(exc: BaseException) -> str:
    """One short, actionable sentence for the model, chosen by the error's class.

    Never includes a traceback, a key or a raw upstream body: only messages that the
    SDK itself builds from validated input are quoted.
    """
    if isinstance(exc, RateLimitError):
        if exc.retry_after:
            return (
                f"The search service is rate limited; retry in about {exc.retry_after:g} seconds."
            )
        return "The search service is rate limited; retry later."
    if isinstance(exc, QuotaExceededError):
        return (
            "The search quota is exhausted; retrying will not help, so answer without "
            "searching or tell the user."
        )
    if isinstance(exc, (AuthenticationError, PermissionDeniedError, ConfigurationError)):
        return (
            "The search service rejected this tool's credentials or configuration; retrying "
            "will not help, so tell the user that search is not set up correctly."
        )
    if isinstance(exc, ProviderRetiredError):
        return (
            "The search service behind this tool has been retired; retrying will not help, "
            "so tell the user."
        )
    if isinstance(exc, NotFoundError):
        return (
            "The search index or resource was not found; retrying will not help, so tell "
            "the user that search is not set up correctly."
        )
    if isinstance(exc, UnsupportedFilterError):
        return (
            "This search tool uses a filter the search service does not support; retrying "
            "will not help, so tell the user that search is not set up correctly."
        )
    if isinstance(exc, BadRequestError):
        return "The search service rejected the request; try a shorter or simpler query."
    if isinstance(exc, InvalidRequestError):
        return f"Invalid search request: {_one_line(str(exc))}."
    if isinstance(exc, SearchTimeoutError):
        return "The search service did not answer in time; retry later or with a simpler query."
    if isinstance(exc, (ServiceUnavailableError, SearchTransportError)):
        return "The search service is unavailable right now; retry later."
    if isinstance(exc, ResponseFormatError):
        return "The search service sent an unexpected response; retry later."
    if isinstance(exc, ProviderError):
        return "The search service answered with an error; retry later."
    return "The search failed unexpectedly; retry later or answer without searching."
