"""What the model receives: results as text or compact JSON, and errors as one short sentence."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from textsearch import errors
from textsearch._types import SearchResults, TextSearchResult

__all__ = ["Kind", "Rendered", "error_message", "output_schema", "render", "render_results"]

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


@dataclass(frozen=True)
class Rendered:
    """One search's answer: the text every client reads, and the same as structured data."""

    text: str
    structured: dict[str, Any]


_NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}
_ENVELOPE: dict[str, Any] = {
    "query": {"type": "string", "description": "The query searched for."},
    "total_count": {"type": "integer", "description": "Total matches, when the backend knows."},
    "message": {"type": "string", "description": "Why there are no results, and what to try."},
    "notes": {
        "type": "array",
        "items": {"type": "string"},
        "description": "How the arguments were adjusted (for example a top above its maximum).",
    },
}
_ITEMS: dict[str, dict[str, Any]] = {
    "text": {
        "type": "object",
        "properties": {
            "citation": {"type": "integer", "minimum": 1},
            "text": {"type": "string"},
            "title": _NULLABLE_STRING,
            "link": _NULLABLE_STRING,
        },
        "required": ["citation", "text"],
    },
    "text_search_results": {
        "type": "object",
        "properties": {
            "citation": {"type": "integer", "minimum": 1},
            "name": _NULLABLE_STRING,
            "value": _NULLABLE_STRING,
            "link": _NULLABLE_STRING,
        },
        "required": ["citation", "name", "value", "link"],
    },
    "search_results": {
        "type": "object",
        "properties": {"citation": {"type": "integer", "minimum": 1}, "link": _NULLABLE_STRING},
        "required": ["citation", "link"],
        "additionalProperties": True,
    },
}


def output_schema(kind: Kind, mapped: bool = False) -> dict[str, Any]:
    """The JSON schema of the structured result of a function of this kind (a fresh copy).

    ``mapped``: the function has a ``string_mapper`` (its results are texts).
    """
    item = "text" if kind == "search" or mapped else kind
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": _ENVELOPE["query"],
            "results": {"type": "array", "items": _ITEMS[item]},
            **{k: v for k, v in _ENVELOPE.items() if k != "query"},
        },
        "required": ["query", "results"],
    }
    return copy.deepcopy(schema)


def _unique(items: list[Any]) -> list[Any]:
    """The results numbered as `Citations` numbers them.

    Two results for the same page share one number there, so the later one is left out
    here: ``[n]`` in an answer then names the ``n`` the model saw, and a reference list
    built with ``Citations(results)`` agrees with it.
    """
    from textsearch.grounding.citations import Citations

    numbered = Citations()
    kept: list[Any] = []
    for item in items:
        if numbered.add(item) > len(kept):
            kept.append(item)
    return kept


def _with_notes(text: str, notes: Sequence[str]) -> str:
    if not notes:
        return text
    return "\n".join(f"Note: {n}" for n in notes) + "\n\n" + text


def render(
    kind: Kind,
    query: str,
    skip: int,
    results: SearchResults[Any],
    string_mapper: Callable[[Any], str] | None,
    notes: Sequence[str] = (),
) -> Rendered:
    """Turn one search's results into what the model receives, as text and as data.

    ``"search"`` (or any kind with a ``string_mapper``) gives the numbered text of
    `textsearch.grounding.format_results` (for ``"search"`` without a mapper, of
    ``TextSearchResult`` s: title, text and link); the other kinds give compact JSON with a
    ``citation`` number (from 1, like the numbered text) and a ``link`` per result. The
    structured form has the same numbers. ``notes`` (adjusted arguments) come first.
    """
    items = list(results)
    texts = kind == "search" or string_mapper is not None
    envelope: dict[str, Any] = {"query": query}
    if not items:
        message = _no_results(query, skip)
        structured = {**envelope, "results": [], "message": message}
        if notes:
            structured["notes"] = list(notes)
        if texts:
            return Rendered(_with_notes(message, notes), structured)
        return Rendered(_compact(structured), structured)
    if texts:
        from textsearch.grounding import format_results

        cited: list[dict[str, Any]]
        shown: list[Any]
        cites = kind == "search" and string_mapper is None
        if cites and all(isinstance(i, TextSearchResult) for i in items):
            # The default "search" kind: numbered text with each result's title and link,
            # so that the model has something to cite.
            shown = _unique(items)
            cited = [
                {"citation": n, "text": r.value or r.name or "", "title": r.name, "link": r.link}
                for n, r in enumerate(shown, start=1)
            ]
        else:
            shown = _unique(
                [str(string_mapper(i) if string_mapper is not None else i) for i in items]
            )
            cited = [{"citation": n, "text": t} for n, t in enumerate(shown, start=1)]
        structured = {**envelope, "results": cited}
        if results.total_count is not None:
            structured["total_count"] = results.total_count
        if notes:
            structured["notes"] = list(notes)
        return Rendered(_with_notes(format_results(shown, query=query), notes), structured)
    entries: list[dict[str, Any]] = []
    for number, item in enumerate(_unique(items), start=1):
        if kind == "text_search_results" and isinstance(item, TextSearchResult):
            body: dict[str, Any] = {"name": item.name, "value": item.value, "link": item.link}
        else:
            body = _native_to_dict(item)
        entry: dict[str, Any] = {"citation": number}
        entry.update((k, v) for k, v in body.items() if k != "citation")
        entries.append(entry)
    payload: dict[str, Any] = {**envelope, "results": entries}
    if results.total_count is not None:
        payload["total_count"] = results.total_count
    if notes:
        payload["notes"] = list(notes)
    return Rendered(_compact(payload), payload)


def render_results(
    kind: Kind,
    query: str,
    skip: int,
    results: SearchResults[Any],
    string_mapper: Callable[[Any], str] | None,
) -> str:
    """The text of `render` (kept for callers that need only the text)."""
    return render(kind, query, skip, results, string_mapper).text


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


#: Failures that another attempt a little later may not have.
_TRANSIENT = (errors.RateLimitError, errors.ServiceUnavailableError, errors.SearchTransportError)


def _all_failed_message(exc: errors.AllProvidersFailedError) -> str:
    if exc.errors and not any(isinstance(e, _TRANSIENT) for e in exc.errors):
        return (
            "None of the search services can answer (quota spent, retired or not set up); "
            "retrying will not help, so answer without searching or tell the user."
        )
    if exc.retry_after:
        seconds = max(1, math.ceil(exc.retry_after))
        return (
            "Every search service is busy or rate limited; retry in about "
            f"{seconds} second{'s' if seconds != 1 else ''}."
        )
    return "Every search service failed or is rate limited right now; retry later."


_NOT_SET_UP = "retrying will not help, so tell the user that search is not set up correctly."

#: Error classes -> the sentence for the model (``None``: the request's own message, which
#: the SDK builds from validated input). The first match wins: subclasses before their bases.
_MESSAGES: tuple[tuple[type[Exception] | tuple[type[Exception], ...], str | None], ...] = (
    (
        errors.QuotaExceededError,
        "The search quota is exhausted; retrying will not help, so answer without "
        "searching or tell the user.",
    ),
    (
        (errors.AuthenticationError, errors.PermissionDeniedError, errors.ConfigurationError),
        "The search service rejected this tool's credentials or configuration; " + _NOT_SET_UP,
    ),
    (
        errors.ProviderRetiredError,
        "The search service behind this tool has been retired; retrying will not help, "
        "so tell the user.",
    ),
    (errors.NotFoundError, "The search index or resource was not found; " + _NOT_SET_UP),
    (
        errors.UnsupportedFilterError,
        "This search tool uses a filter the search service does not support; " + _NOT_SET_UP,
    ),
    (
        errors.BadRequestError,
        "The search service rejected the request; try a shorter or simpler query.",
    ),
    (errors.InvalidRequestError, None),
    (
        errors.SearchTimeoutError,
        "The search service did not answer in time; retry later or with a simpler query.",
    ),
    (
        (errors.ServiceUnavailableError, errors.SearchTransportError),
        "The search service is unavailable right now; retry later.",
    ),
    (errors.ResponseFormatError, "The search service sent an unexpected response; retry later."),
    (errors.ProviderError, "The search service answered with an error; retry later."),
)


def error_message(exc: BaseException) -> str:
    """One short, actionable sentence for the model, chosen by the error's class.

    Never includes a traceback, a key or a raw upstream body: only messages that the
    SDK itself builds from validated input are quoted.
    """
    hint = getattr(exc, "model_hint", None)
    if isinstance(hint, str) and hint:  # set only by textsearch's own errors
        return hint
    if isinstance(exc, errors.AllProvidersFailedError):
        return _all_failed_message(exc)
    if isinstance(exc, errors.RateLimitError):
        if exc.retry_after:
            return (
                f"The search service is rate limited; retry in about {exc.retry_after:g} seconds."
            )
        return "The search service is rate limited; retry later."
    for kinds, message in _MESSAGES:
        if isinstance(exc, kinds):
            return message or f"Invalid search request: {_one_line(str(exc))}."
    return "The search failed unexpectedly; retry later or answer without searching."
