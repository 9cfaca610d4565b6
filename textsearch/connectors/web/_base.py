"""What the web providers share besides their connector class: keys, URLs, parsing, cleanup.

Everything here is I/O-free; the connector class is in
`textsearch.connectors.web._connector`, the sending in `textsearch._http._engine`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Final, TypeGuard, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    TypeAdapter,
    ValidationError,
)
from pydantic.alias_generators import to_camel

from textsearch._http import HttpResponse
from textsearch._http._checks import (
    clean_text,
    decode_json,
)
from textsearch._types import SearchOptions, TextSearchResult, result_window
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    ResponseFormatError,
)

NativeT = TypeVar("NativeT")
ModelT = TypeVar("ModelT", bound=BaseModel)
ItemT = TypeVar("ItemT")

# Inline decorations Bing adds with textDecorations/textFormat=HTML; nothing else is touched,
# so that a raw snippet such as "a < b" keeps its text.


class WireModel(BaseModel):
    """Base of the provider payload models: camelCase aliases, unknown fields ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
        use_attribute_docstrings=True,
    )


def check_choice(value: str, choices: tuple[str, ...], argument: str, connector: object) -> str:
    """``value``, one of ``choices``; else a `ConfigurationError` naming them."""
    if value not in choices:
        raise ConfigurationError(
            f"{type(connector).__name__}: {argument} must be one of {', '.join(choices)}, "
            f"not {value!r}"
        )
    return value


def check_flag(value: bool, argument: str, connector: object) -> bool:
    """``value``, ``True`` or ``False``; else a `ConfigurationError`."""
    if not isinstance(value, bool):
        raise ConfigurationError(f"{type(connector).__name__}: {argument} must be True or False")
    return value


def unpaged_count(options: SearchOptions, most: int, provider: str) -> int:
    """How many results to ask a provider without paging for: ``top + skip``, sliced after.

    Raises:
        InvalidRequestError: ``top + skip`` is above the provider's maximum.
    """
    wanted = result_window(options)
    if wanted > most:
        raise InvalidRequestError(
            f"{provider} has no paging: skip is served by asking for top + skip results, at "
            f"most {most} (got top={options.top}, skip={options.skip})"
        )
    return wanted


def page_index(options: SearchOptions, provider: str, how: str = "") -> int:
    """The 0-based page of ``top`` results that ``skip`` starts, for a provider paged by number.

    Raises:
        InvalidRequestError: ``skip`` is not a multiple of ``top`` (with the two nearest that
            are).
    """
    top, skip = options.top, options.skip
    if skip % top:
        below = skip - skip % top
        raise InvalidRequestError(
            f"{provider} pages by page number{how}, so skip must be a multiple of top (got "
            f"skip={skip}, top={top}); e.g. skip={below} or skip={below + top}"
        )
    return skip // top


def no_results(response: HttpResponse, provider: str) -> ResponseFormatError:
    """The error for a 2xx body without its ``results``."""
    return ResponseFormatError(
        f"{provider}: HTTP {response.status_code} but the body has no 'results'",
        provider=provider,
        status_code=response.status_code,
    )


#: How a provider's error statuses read: status -> (error class or None, hints).
StatusTable = dict[int, tuple["type[ProviderError] | None", tuple[str, ...]]]


def by_status(
    status: int, table: StatusTable, extra: str | None = None
) -> tuple[type[ProviderError] | None, tuple[str, ...]]:
    """The error class and hints ``table`` gives ``status`` (``None`` and none if absent),
    with ``extra`` (e.g. a request id) as a last hint."""
    error_class, hints = table.get(status, (None, ()))
    return error_class, (*hints, extra) if extra else hints


def as_text(value: object) -> str | None:
    """A string field of an error body, whatever JSON type it came as."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


# -- tolerance of real payloads ----------------------------------------------------------
#
# Real answers (and the gateways that re-serialise them) write ``null`` where the schema has a
# list, ``""`` where it has a date, start with a byte-order mark, send more results than
# asked, or one broken item among good ones. None of that should fail a whole page.

_BOM: Final = b"\xef\xbb\xbf"


def none_to_empty(value: Any) -> Any:
    """``null`` where a list is expected is an empty list."""
    return [] if value is None else value


def blank_to_none(value: Any) -> Any:
    """An empty (or blank) string where a value is expected is an unknown value."""
    return None if isinstance(value, str) and not value.strip() else value


def _plain(value: str | None) -> str | None:
    return unescaped_text(value) if value is not None else None


# Plain after-validators: much cheaper per field than a field_validator.
#: Text without hit-highlight markers or inline decoration tags.
CleanText = Annotated[str | None, AfterValidator(clean_text)]
#: Text without markers, decoration tags or HTML entities.
PlainText = Annotated[str | None, AfterValidator(_plain)]


def lenient_date(value: Any) -> Any:
    """A date written in a shape we do not know is an unknown date, not a bad answer."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    return value if isinstance(value, datetime) else None


#: A date-time that may come in any shape (unknown shapes are ``None``).
AnyDate = Annotated[datetime | None, BeforeValidator(lenient_date)]
#: A list that may come as ``null``.
NullableList = Annotated[list[ItemT], BeforeValidator(none_to_empty)]
#: A date-time that may come as ``""`` (unknown).
LenientDatetime = Annotated[datetime | None, BeforeValidator(blank_to_none)]


def _refuse_empty(content: bytes, response: HttpResponse, provider: str, what: str) -> None:
    if not content.strip():
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} with an empty body instead of a {what}",
            provider=provider,
            status_code=response.status_code,
            hints=("an empty 200 answer can mean the service suspects abuse; retry later",),
        )


def load_json_body(
    response: HttpResponse, provider: str, *, what: str = "search response"
) -> dict[str, Any]:
    """A 2xx body as a JSON object (a leading byte-order mark is fine).

    Raises:
        ResponseFormatError: The body is empty, not JSON, nested beyond reason, or not an
            object.
    """
    content = response.content
    _refuse_empty(content, response, provider, what)
    try:
        # bytes: json detects UTF-8/16/32 and skips a UTF-8 byte-order mark by itself
        data = decode_json(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        data = _NOT_JSON
    if not isinstance(data, dict):
        reason = "the body is not JSON" if data is _NOT_JSON else "the body is not a JSON object"
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} but not a valid {what} ({reason})",
            provider=provider,
            status_code=response.status_code,
        )
    return data


_NOT_JSON: Final = object()


def object_field(
    body: dict[str, Any], name: str, provider: str, status: int
) -> dict[str, Any] | None:
    """``body[name]`` when it is an object, ``None`` when absent or null; else an error."""
    value = body.get(name)
    if value is None or isinstance(value, dict):
        return value
    raise ResponseFormatError(
        f"{provider}: HTTP {status} but {name!r} is a {type(value).__name__}, not an object",
        provider=provider,
        status_code=status,
    )


def int_field(body: dict[str, Any], name: str) -> int | None:
    """``body[name]`` when it is a whole number (``None`` otherwise: counts are optional)."""
    value = body.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def validate_items(
    items: object, model: type[ModelT], *, top: int, provider: str, status: int
) -> tuple[list[ModelT], int]:
    """Validate each result on its own; at most ``top`` of them.

    A malformed result is skipped and counted (the count goes to ``metadata["skipped"]``)
    rather than failing the page; items past ``top`` (a gateway sending more than asked) are
    neither validated nor returned. When every result is malformed, the body is not the
    documented shape at all: `ResponseFormatError`.

    Returns:
        The valid results (at most ``top``) and how many were skipped.

    Raises:
        ResponseFormatError: ``items`` is neither a list nor null, or no item is valid.
    """
    if not _is_list(items, provider, status):
        return [], 0
    head = items[:top]
    try:
        # One call into the validator for the usual, all-valid page (a third cheaper than
        # one call per item); item by item only when something is wrong.
        return _list_adapter(model).validate_python(head), 0
    except ValidationError:
        pass
    results: list[ModelT] = []
    skipped = 0
    validate = model.model_validate
    for item in items:
        if len(results) >= top:
            break
        if not isinstance(item, dict):
            skipped += 1
            continue
        try:
            results.append(validate(item))
        except ValidationError:
            skipped += 1
    _refuse_all_skipped(results, skipped, provider, status)
    return results, skipped


def _is_list(items: object, provider: str, status: int) -> TypeGuard[list[Any]]:
    """Whether there are results to read: ``False`` for null, a list is; else an error."""
    if items is None:
        return False
    if not isinstance(items, list):
        raise ResponseFormatError(
            f"{provider}: HTTP {status} but the results are a {type(items).__name__}, not a list",
            provider=provider,
            status_code=status,
        )
    return True


def _refuse_all_skipped(results: list[Any], skipped: int, provider: str, status: int) -> None:
    if skipped and not results:
        # Not one result has the documented shape: that is a different format, not noise.
        raise ResponseFormatError(
            f"{provider}: HTTP {status} but none of the {skipped} results has the expected shape",
            provider=provider,
            status_code=status,
        )


def text_items(
    items: object,
    fields: tuple[str, str, str],
    clean: Callable[[str], str] | None,
    *,
    top: int,
    provider: str,
    status: int,
    ignore_nulls: bool = False,
) -> tuple[list[TextSearchResult], int]:
    """Like `validate_items`, straight to ``TextSearchResult``s: only the three fields
    that are used (title, text, link) are read and checked (each a string or null).

    A result whose other fields are odd is kept (they are not used here); one whose title,
    text or link is not text is skipped and counted (a ``null`` item too, unless
    ``ignore_nulls``: a provider whose native model drops them). ``clean``
    removes markup from a title or text (the link is kept as sent).
    """
    if not _is_list(items, provider, status):
        return [], 0
    first, second, third = fields
    results: list[TextSearchResult] = []
    append = results.append
    skipped = 0
    for item in items:
        if len(results) >= top:
            break
        if type(item) is not dict:
            if item is not None or not ignore_nulls:
                skipped += 1
            continue
        a, b, c = item.get(first), item.get(second), item.get(third)
        if (
            (a is not None and type(a) is not str)
            or (b is not None and type(b) is not str)
            or (c is not None and type(c) is not str)
        ):
            skipped += 1
            continue
        if clean is not None:  # the title and text; the link is kept as sent
            if a is not None:
                a = clean(a)
            if b is not None:
                b = clean(b)
        append(TextSearchResult(name=a, value=b, link=c))
    _refuse_all_skipped(results, skipped, provider, status)
    return results, skipped


def unescaped_text(value: str) -> str:
    """A title or text without markers, decorations or HTML entities (``text_items``).

    ``clean_text(value, unescape=True)`` for a string (never ``None``).
    """
    return clean_text(value, unescape=True)


_ADAPTERS: dict[type[BaseModel], TypeAdapter[Any]] = {}


def _list_adapter(model: type[ModelT]) -> TypeAdapter[list[ModelT]]:
    adapter = _ADAPTERS.get(model)
    if adapter is None:
        adapter = _ADAPTERS[model] = TypeAdapter(list[model])  # type: ignore[valid-type]
    return adapter


def validate_body(
    model: type[ModelT],
    response: HttpResponse,
    provider: str,
    *,
    content: bytes | None = None,
    what: str = "search response",
) -> ModelT:
    """Validate a 2xx body against ``model``; any surprise is a `ResponseFormatError`.

    ``content`` replaces the response body (e.g. after a connector's byte-level cleanup).
    """
    if content is None:
        content = response.content
    if content.startswith(_BOM):
        content = content[len(_BOM) :]  # pydantic's JSON parser refuses it; json.loads skips it
    _refuse_empty(content, response, provider, what)
    try:
        return model.model_validate_json(content)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False, include_context=False)
        first = errors[0] if errors else {"type": "", "loc": (), "msg": ""}
        if first["type"] == "json_invalid":
            reason = "the body is not JSON"
        else:
            where = ".".join(str(p) for p in first["loc"]) or "body"
            reason = f"unexpected shape at {where}: {first['msg']}"
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} but not a valid {what} ({reason})",
            provider=provider,
            status_code=response.status_code,
        ) from None
