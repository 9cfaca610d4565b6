"""The one web connector class, and what its providers share: keys, URLs, parsing, cleanup.

A web provider is a small spec over :class:`WebSearchConnector` (see there). Everything here
but the connector's send is I/O-free; the sending lives in :mod:`textsearch._http._engine`.
"""

from __future__ import annotations

import html
import inspect
import json
import os
import re
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar, Final, Generic, NamedTuple, Protocol, TypeVar

import httpx
from pydantic import BaseModel, BeforeValidator, ConfigDict, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import from_json

from textsearch._http import ErrorDetail, HttpEngine, HttpRequest, HttpResponse, bearer_or_plain
from textsearch._http._settings import (
    HTTP_DEFAULTS,
    HttpSettings,
    http_parameters,
    http_settings,
)
from textsearch._types import SearchOptions, SearchResults, TextSearchFilter, TextSearchResult
from textsearch.base import BaseTextSearch
from textsearch.errors import ConfigurationError, InvalidRequestError, ResponseFormatError

NativeT = TypeVar("NativeT")
ModelT = TypeVar("ModelT", bound=BaseModel)
ItemT = TypeVar("ItemT")

_HIGHLIGHT = re.compile("[\ue000\ue001]")
# Inline decorations Bing adds with textDecorations/textFormat=HTML; nothing else is touched,
# so that a raw snippet such as "a < b" keeps its text.
_DECORATION = re.compile(r"</?(?:b|strong|i|em|u|mark|span|sup|sub|br|wbr)\b[^<>]*>", re.I)
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


class WireModel(BaseModel):
    """Base of the provider payload models: camelCase aliases, unknown fields ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
        use_attribute_docstrings=True,
    )


def resolve_api_key(api_key: str | None, env_var: str, owner: str) -> str:
    """The key from ``api_key=`` or the environment; a clear error when neither is set."""
    if api_key is not None and not isinstance(api_key, str):
        raise ConfigurationError(f"{owner}: api_key= must be a string")
    key = (api_key or os.environ.get(env_var) or "").strip()
    if not key:
        raise ConfigurationError(
            f"{owner} needs an API key: pass api_key=... or set the {env_var} environment variable"
        )
    if any(ch in key for ch in "\r\n\x00"):
        raise ConfigurationError(f"{owner}: the API key contains a line break or NUL character")
    if not key.isascii() or not key.isprintable():
        # An HTTP header cannot carry it: httpx would fail on every request, key in the repr.
        raise ConfigurationError(
            f"{owner}: the API key must be printable ASCII text (check for a pasted "
            "non-ASCII or invisible character)"
        )
    return key


def check_url(value: object, argument: str, owner: str) -> httpx.URL:
    """Parse an endpoint or base URL; http(s) with a host, or a :class:`ConfigurationError`."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{owner}: {argument} must be a non-empty URL string")
    try:
        url = httpx.URL(value.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ConfigurationError(f"{owner}: {argument} {value!r} is not a valid URL") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigurationError(
            f"{owner}: {argument} must be an http(s) URL with a host, got {value!r}"
        )
    if url.userinfo:
        raise ConfigurationError(f"{owner}: {argument} must not carry credentials")
    return url


def check_header_name(value: object, owner: str) -> str:
    """A valid HTTP header name, or a :class:`ConfigurationError`."""
    if not isinstance(value, str) or not _HEADER_NAME.fullmatch(value):
        raise ConfigurationError(f"{owner}: auth_header= must be an HTTP header name")
    return value


def check_choice(value: str, choices: tuple[str, ...], argument: str, connector: object) -> str:
    """``value``, one of ``choices``; else a :class:`ConfigurationError` naming them."""
    if value not in choices:
        raise ConfigurationError(
            f"{type(connector).__name__}: {argument} must be one of {', '.join(choices)}, "
            f"not {value!r}"
        )
    return value


def check_flag(value: bool, argument: str, connector: object) -> bool:
    """``value``, ``True`` or ``False``; else a :class:`ConfigurationError`."""
    if not isinstance(value, bool):
        raise ConfigurationError(f"{type(connector).__name__}: {argument} must be True or False")
    return value


def unpaged_count(options: SearchOptions, most: int, provider: str) -> int:
    """How many results to ask a provider without paging for: ``top + skip``, sliced after.

    Raises:
        InvalidRequestError: ``top + skip`` is above the provider's maximum.
    """
    wanted = options.top + options.skip
    if wanted > most:
        raise InvalidRequestError(
            f"{provider} has no paging: skip is served by asking for top + skip results, at "
            f"most {most} (got top={options.top}, skip={options.skip})"
        )
    return wanted


def no_results(response: HttpResponse, provider: str) -> ResponseFormatError:
    """The error for a 2xx body without its ``results``."""
    return ResponseFormatError(
        f"{provider}: HTTP {response.status_code} but the body has no 'results'",
        provider=provider,
        status_code=response.status_code,
    )


def clean_text(value: str | None, *, unescape: bool = False) -> str | None:
    """Remove hit-highlight markers (U+E000/U+E001) and inline HTML decorations."""
    if value is None:
        return None
    if "\ue000" in value or "\ue001" in value:
        value = _HIGHLIGHT.sub("", value)
    if "<" in value:
        value = _DECORATION.sub("", value)
    if unescape and "&" in value:
        value = html.unescape(value)
    return value


def decode_json(content: bytes) -> Any:
    """A JSON body as Python values: pydantic-core's parser, else the standard library's.

    pydantic-core (a dependency of pydantic, so nothing more to install) parses a page of
    results with about 40% fewer instructions than :func:`json.loads`. What it refuses and
    ``json.loads`` accepts -- a byte-order mark, UTF-16 or UTF-32, an escaped lone
    surrogate, nesting deeper than 200 -- goes to ``json.loads``, so the answer is the same;
    only a body that is not JSON at all is parsed twice, to fail in ``json.loads``'s words.

    Raises:
        ValueError: Not JSON (``json.JSONDecodeError``).
        UnicodeDecodeError: Not text in any encoding JSON allows.
        RecursionError: Nested beyond the standard library's reach.
    """
    try:
        return from_json(content)
    except ValueError:
        return json.loads(content)


def load_json_object(content: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or ``None`` (error bodies of any shape must not crash)."""
    try:
        data = decode_json(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


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


#: A list that may come as ``null``.
NullableList = Annotated[list[ItemT], BeforeValidator(none_to_empty)]
#: A date-time that may come as ``""`` (unknown).
LenientDatetime = Annotated[datetime | None, BeforeValidator(blank_to_none)]


def load_json_body(
    response: HttpResponse, provider: str, *, what: str = "search response"
) -> dict[str, Any]:
    """A 2xx body as a JSON object (a leading byte-order mark is fine).

    Raises:
        ResponseFormatError: The body is empty, not JSON, nested beyond reason, or not an
            object.
    """
    content = response.content
    if not content.strip():
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} with an empty body instead of a {what}",
            provider=provider,
            status_code=response.status_code,
            hints=("an empty 200 answer can mean the service suspects abuse; retry later",),
        )
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
    documented shape at all: :class:`ResponseFormatError`.

    Returns:
        The valid results (at most ``top``) and how many were skipped.

    Raises:
        ResponseFormatError: ``items`` is neither a list nor null, or no item is valid.
    """
    if items is None:
        return [], 0
    if not isinstance(items, list):
        raise ResponseFormatError(
            f"{provider}: HTTP {status} but the results are a {type(items).__name__}, not a list",
            provider=provider,
            status_code=status,
        )
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
    if skipped and not results:
        # Not one result has the documented shape: that is a different format, not noise.
        raise ResponseFormatError(
            f"{provider}: HTTP {status} but none of the {skipped} results has the expected shape",
            provider=provider,
            status_code=status,
        )
    return results, skipped


# Slot setters of pydantic's BaseModel: the trusted build below fills a TextSearchResult the
# way base.trusted_text_search_result does, without a function call and four attribute
# look-ups per result (a page maps ten or more per search).
_SET_DICT: Final = BaseModel.__dict__["__dict__"].__set__
_SET_FIELDS_SET: Final = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA: Final = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE: Final = BaseModel.__dict__["__pydantic_private__"].__set__


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
    """Like :func:`validate_items`, straight to ``TextSearchResult``s: only the three fields
    that are used (title, text, link) are read and checked (each a string or null).

    A result whose other fields are odd is kept (they are not used here); one whose title,
    text or link is not text is skipped and counted (a ``null`` item too, unless
    ``ignore_nulls``: a provider whose native model drops them). ``clean``
    removes markup from a title or text (the link is kept as sent). The results are built
    without validating them again (see :func:`~textsearch.base.trusted_text_search_result`):
    each field is a ``str`` or ``None``, checked here.
    """
    if items is None:
        return [], 0
    if not isinstance(items, list):
        raise ResponseFormatError(
            f"{provider}: HTTP {status} but the results are a {type(items).__name__}, not a list",
            provider=provider,
            status_code=status,
        )
    first, second, third = fields
    results: list[TextSearchResult] = []
    append = results.append
    new = object.__new__
    cls = TextSearchResult
    skipped = 0
    for item in items:
        if len(results) >= top:
            break
        if type(item) is not dict:
            if item is not None or not ignore_nulls:
                skipped += 1
            continue
        a, b, c = item.get(first), item.get(second), item.get(third)
        if a is not None:
            if type(a) is not str:
                skipped += 1
                continue
            if clean is not None:
                a = clean(a)
        if b is not None:
            if type(b) is not str:
                skipped += 1
                continue
            if clean is not None:
                b = clean(b)
        if c is not None and type(c) is not str:
            skipped += 1
            continue
        result = new(cls)
        _SET_DICT(result, {"name": a, "value": b, "link": c})
        _SET_FIELDS_SET(result, {"name", "value", "link"})
        _SET_EXTRA(result, None)
        _SET_PRIVATE(result, None)
        append(result)
    if skipped and not results:
        raise ResponseFormatError(
            f"{provider}: HTTP {status} but none of the {skipped} results has the expected shape",
            provider=provider,
            status_code=status,
        )
    return results, skipped


def unescaped_text(value: str) -> str:
    """A title or text without markers, decorations or HTML entities (``text_items``).

    ``clean_text(value, unescape=True)`` for a string, in one call per field.
    """
    if "\ue000" in value or "\ue001" in value:
        value = _HIGHLIGHT.sub("", value)
    if "<" in value:
        value = _DECORATION.sub("", value)
    if "&" in value:
        value = _unescape(value)
    return value


def _unescape(value: str) -> str:
    # html.unescape calls back into Python for every entity; the usual case, where every "&"
    # opens an "&amp;", is one replace (a third cheaper per field; same result).
    if value.count("&") == value.count("&amp;"):
        return value.replace("&amp;", "&")
    return html.unescape(value)


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
    """Validate a 2xx body against ``model``; any surprise is a :class:`ResponseFormatError`.

    ``content`` replaces the response body (e.g. after a connector's byte-level cleanup).
    """
    if content is None:
        content = response.content
    if content.startswith(_BOM):
        content = content[len(_BOM) :]  # pydantic's JSON parser refuses it; json.loads skips it
    if not content.strip():
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} with an empty body instead of a {what}",
            provider=provider,
            status_code=response.status_code,
            hints=("an empty 200 answer can mean the service suspects abuse; retry later",),
        )
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


def _strings(results: SearchResults[TextSearchResult]) -> SearchResults[str]:
    # The same default as BaseTextSearch._default_string: the text, else the title or link.
    return SearchResults(
        [r.value or r.name or r.link or "" for r in results.results],
        results.total_count,
        results.metadata,
    )


class Page(NamedTuple):
    """What a provider reads around the results of one answer (see ``_read_page``)."""

    items: object
    """The results as sent (a list, or ``None``); the shared code validates them."""
    metadata: dict[str, Any]
    """What the answer says besides its results (ids, altered query, ...)."""
    total: int | None = None
    """The estimated number of matches, when asked for and known."""
    skip: int = 0
    """Results to drop from the front: a provider without paging serves ``skip`` so."""


def web_pages(answer: dict[str, Any] | None, metadata: dict[str, Any], include_total: bool) -> Page:
    """A Bing v7 ``webPages`` answer (Bing's and Bocha's) as a page: results, link, total."""
    if answer is None:
        return Page(None, metadata, 0 if include_total else None)
    web_search_url = as_text(answer.get("webSearchUrl"))
    if web_search_url:
        metadata["web_search_url"] = web_search_url
    if answer.get("someResultsRemoved") is True:
        metadata["some_results_removed"] = True
    total = int_field(answer, "totalEstimatedMatches") if include_total else None
    return Page(answer.get("value"), metadata, total)


@dataclass(frozen=True)
class WebSpec:
    """The declarative part of a web provider: who it is, where it is, what it answers."""

    provider: str
    """Short name, in errors and logs (``provider_name``)."""
    env_var: str
    """The environment variable of its key (``""``: none)."""
    filter_fields: frozenset[str]
    """The filter fields it accepts (``supported_filter_fields``)."""
    read_error: Callable[[int, HttpResponse], ErrorDetail]
    """Reads an error answer (status and body) into an :class:`ErrorDetail`."""
    model: type[BaseModel]
    """The native model each result is validated as."""
    max_top: int = 50
    """Largest ``top``."""
    text_fields: tuple[str, str, str] | None = None
    """Keys of a result's title, text and link, read straight into ``TextSearchResult``s
    (``None``: the text shapes are mapped from the native model)."""
    path: str | None = None
    """Appended to ``base_url=``; ``None``: the ``endpoint=`` URL is the whole address (its
    query parameters are sent with every request)."""
    auth: str = "Authorization"
    """The header that carries the key (``Authorization`` sends ``Bearer <key>``)."""
    headers: tuple[tuple[str, str], ...] = ()
    """Headers sent with every request, besides the key."""
    shown: tuple[str, ...] = ("base_url",)
    """The attributes the ``repr`` shows (never the key)."""


class WebSettings(HttpSettings, Generic[NativeT], total=False):
    """The keywords every web connector takes: the HTTP settings and two mappers."""

    string_mapper: Callable[[NativeT], str] | None
    """Turns one native result into the string ``search`` returns (default: its text, else
    its title or link)."""
    text_search_result_mapper: Callable[[NativeT], TextSearchResult] | None
    """Turns one native result into a ``TextSearchResult`` (default: the connector's own
    mapping)."""


_WEB_DEFAULTS: Final = {**HTTP_DEFAULTS, "string_mapper": None, "text_search_result_mapper": None}


#: One request and its parser; or a paging plan (several requests, see :class:`PagedPlan`).
Step = tuple[HttpRequest, Callable[[HttpResponse], SearchResults[Any]]]


class PagedPlan(Protocol):
    """A search served by several requests (a provider with a fixed page size)."""

    def step(self) -> Step | None:
        """The next request, or ``None`` when the search has what it needs."""

    def take(self, page: SearchResults[Any]) -> None:
        """Take in one page's results."""

    def result(self) -> SearchResults[Any]:
        """The search's results, from the pages taken."""


_UNSET: Final = object()


class WebSearchConnector(BaseTextSearch[NativeT]):
    """The one connector class behind every web provider; a provider is a small spec.

    A provider class sets :attr:`spec` (a :class:`WebSpec`: name, key variable, filter
    fields, error reader, native model, address, key header; ``provider_name``,
    ``env_var``, ``max_top`` and ``supported_filter_fields`` follow from it), takes its own
    keywords and ``**settings: Unpack[WebSettings[Native]]`` and passes them on with
    ``super().__init__(api_key, url, settings)``, and writes three pure hooks:
    :meth:`_translate` (its filter in its own wire form, or an error before any request),
    :meth:`_request` (the :class:`HttpRequest`) and :meth:`_read_page` (the answer's
    envelope: errors inside a 2xx body, metadata, the list of results). Everything else is
    here, once: the key, the address, the HTTP settings, validating the results for every
    shape, the async and blocking paths, the client lifecycle, the ``repr``. The filter is
    translated once per search: :meth:`_check_filter` keeps its translation for the fetch
    that follows.
    """

    env_var: ClassVar[str] = ""
    open_world: ClassVar[bool] = True
    spec: ClassVar[WebSpec]

    def __init__(
        self,
        api_key: str | None,
        url: object,
        settings: Mapping[str, Any],
        *,
        auth: str | None = None,
    ) -> None:
        spec, owner = self.spec, type(self).__name__
        where = check_url(url, "endpoint=" if spec.path is None else "base_url=", owner)
        given = http_settings(settings, owner, _WEB_DEFAULTS)
        super().__init__(
            string_mapper=given.pop("string_mapper"),
            text_search_result_mapper=given.pop("text_search_result_mapper"),
        )
        self._api_key = self._resolve_key(api_key, owner)
        self._last: tuple[object, Any] = (_UNSET, None)
        try:
            self._engine = HttpEngine(
                provider=spec.provider, read_error=spec.read_error, secret=self._api_key, **given
            )
        except ConfigurationError as exc:
            raise ConfigurationError(f"{owner}: {exc}") from None
        address = where.copy_with(query=None)
        if spec.path is None:
            self.endpoint = str(where)
            self._url = str(address)
            # Parameters already in the endpoint are kept (httpx would replace them).
            self._fixed_params: tuple[tuple[str, str], ...] = tuple(where.params.multi_items())
        else:
            self.base_url = str(where).rstrip("/")
            self._url = str(address).rstrip("/") + spec.path
            self._fixed_params = ()
        header = auth or spec.auth
        self._headers = dict(spec.headers)
        if self._api_key:
            self._headers[header] = bearer_or_plain(header, self._api_key)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:
            cls.provider_name, cls.env_var, cls.max_top = spec.provider, spec.env_var, spec.max_top
            cls.supported_filter_fields = spec.filter_fields
        init = cls.__dict__.get("__init__")
        if init is not None:
            # ``**settings: Unpack[WebSettings]`` shows as its keywords, with their defaults.
            init.__signature__ = _with_settings(inspect.signature(init))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.spec.shown)
        return f"{type(self).__name__}({shown})"

    def _resolve_key(self, api_key: str | None, owner: str) -> str:
        # A service that needs no key (a self-hosted SearXNG) overrides this; "" is no key.
        return resolve_api_key(api_key, self.env_var, owner)

    @property
    def timeout(self) -> httpx.Timeout:
        """The timeout applied to each request."""
        return self._engine.timeout

    @property
    def deadline(self) -> float:
        """Total seconds per search: every attempt, wait and redirect included."""
        return self._engine.deadline

    @property
    def max_retries(self) -> int:
        """Retries after the first attempt."""
        return self._engine.max_retries

    @property
    def max_retry_wait(self) -> float:
        """Longest single wait between attempts, in seconds."""
        return self._engine.max_retry_wait

    @property
    def max_response_bytes(self) -> int:
        """Largest body read, after decompression."""
        return self._engine.max_response_bytes

    # -- the provider's hooks (pure) -----------------------------------------------------

    @abstractmethod
    def _translate(self, search_filter: TextSearchFilter | None) -> Any:
        """The filter in the provider's wire form; raises for what it cannot honour."""

    @abstractmethod
    def _request(self, query: str, options: SearchOptions, translated: Any) -> HttpRequest:
        """The request of one search (raises for options the provider cannot serve)."""

    @abstractmethod
    def _read_page(self, response: HttpResponse, options: SearchOptions, translated: Any) -> Page:
        """Read a 2xx answer's envelope: raise for an error in it, return its results."""

    def _clean(self, translated: Any) -> Callable[[str], str] | None:
        """Cleans a title or text read straight from an answer (``spec.text_fields``)."""
        return unescaped_text

    def _finish(self, results: list[Any], translated: Any) -> list[Any]:
        """Last touch to a page of validated native results."""
        return results

    # -- one search: translate once, plan, send ------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise for unsupported fields and bad values before any request."""
        self._last = (search_filter, self._translate(search_filter))

    def _translated(self, search_filter: TextSearchFilter | None) -> Any:
        # What _check_filter made of this very filter (a search calls it just before),
        # else a fresh translation (a concurrent search may have taken the slot).
        last = self._last
        if last[0] is search_filter:
            return last[1]
        translated = self._translate(search_filter)
        self._last = (search_filter, translated)
        return translated

    def _plan(self, query: str, options: SearchOptions, text: bool) -> Step | PagedPlan:
        """The request and its parser (``text``: straight to ``TextSearchResult``s)."""
        translated = self._translated(options.filter)
        request = self._request(query, options, translated)
        read_page, top = self._read_page, options.top

        def parse(response: HttpResponse) -> SearchResults[Any]:
            page = read_page(response, options, translated)
            return self._map_page(page, top, translated, text, response.status_code)

        return request, parse

    def _map_page(
        self, page: Page, top: int, translated: Any, text: bool, status: int
    ) -> SearchResults[Any]:
        """One page's results in the shape asked for: each validated once, at most ``top``.

        A malformed result is skipped and counted (``metadata["skipped"]``), see
        :func:`validate_items`.
        """
        spec, provider, skip = self.spec, self.provider_name, page.skip
        results: list[Any]
        if text:
            fields = spec.text_fields
            assert fields is not None
            results, skipped = text_items(
                page.items, fields, self._clean(translated), top=skip + top, provider=provider,
                status=status,
            )  # fmt: skip
        else:
            results, skipped = validate_items(
                page.items, spec.model, top=skip + top, provider=provider, status=status
            )
            results = self._finish(results, translated)
        metadata = page.metadata
        if skipped:
            metadata["skipped"] = skipped
        return SearchResults(results[skip:] if skip else results, page.total, metadata)

    def _text_plan(
        self, query: str, options: SearchOptions | None, kwargs: dict[str, Any]
    ) -> Step | PagedPlan | None:
        if self.spec.text_fields is None or self.text_search_result_mapper is not None:
            return None
        query, effective = self._prepare(query, options, kwargs)
        return self._plan(query, effective, True)

    async def _run(self, plan: Step | PagedPlan) -> SearchResults[Any]:
        if isinstance(plan, tuple):
            return await self._engine.send(*plan)
        while (step := plan.step()) is not None:
            plan.take(await self._engine.send(*step))
        return plan.result()

    def _run_sync(self, plan: Step | PagedPlan) -> SearchResults[Any]:
        send = self._engine.send_sync
        if isinstance(plan, tuple):
            return send(*plan)
        while (step := plan.step()) is not None:
            plan.take(send(*step))
        return plan.result()

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        return await self._run(self._plan(query, options, False))

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        return self._run_sync(self._plan(query, options, False))

    # -- the text shapes: validate only what is used -------------------------------------

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        """Search and return normalized name/value/link results.

        Raises:
            InvalidRequestError: Empty query or invalid options (before any request).
            UnsupportedFilterError: The filter names a field this connector cannot honour.
            ProviderError: The backend answered with an error.
            SearchTransportError: The backend could not be reached.
        """
        plan = self._text_plan(query, options, kwargs)
        if plan is None:
            return await super().get_text_search_results(query, options, **kwargs)
        return await self._run(plan)

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        """Blocking twin of :meth:`get_text_search_results`; raises the same errors."""
        plan = self._text_plan(query, options, kwargs)
        if plan is None:
            return super().get_text_search_results_sync(query, options, **kwargs)
        return self._run_sync(plan)

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        """Search and return each result as a string (by default the result's text).

        Raises:
            InvalidRequestError: Empty query or invalid options (before any request).
            UnsupportedFilterError: The filter names a field this connector cannot honour.
            ProviderError: The backend answered with an error.
            SearchTransportError: The backend could not be reached.
        """
        plan = None if self.string_mapper is not None else self._text_plan(query, options, kwargs)
        if plan is None:
            return await super().search(query, options, **kwargs)
        return _strings(await self._run(plan))

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        """Blocking twin of :meth:`search`; raises the same errors."""
        plan = None if self.string_mapper is not None else self._text_plan(query, options, kwargs)
        if plan is None:
            return super().search_sync(query, options, **kwargs)
        return _strings(self._run_sync(plan))

    def close(self) -> None:
        """Close the blocking HTTP client this connector created (never an injected one).

        An async client it created is closed by :meth:`aclose` (or ``async with``).
        """
        self._engine.close()

    async def aclose(self) -> None:
        """Close every HTTP client this connector created (never an injected one)."""
        await self._engine.aclose()


def _with_settings(signature: inspect.Signature) -> inspect.Signature:
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD and parameter.name == "settings":
            parameters.extend(http_parameters(WebSettings, _WEB_DEFAULTS))
        else:
            parameters.append(parameter)
    return signature.replace(parameters=parameters)
