"""Checks and parsing every HTTP client of the SDK shares: keys, URLs, header names, JSON bodies,
and the clean-up of provider text (hit markers, inline decorations, entities).

Web connectors, hosted embedders and rerankers, and Azure AI Search all use these, so one value is
refused in the same words everywhere.
"""

from __future__ import annotations

import html
import ipaddress
import json
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

import httpx
from pydantic_core import from_json

from textsearch.errors import ConfigurationError, ResponseFormatError

if TYPE_CHECKING:
    from textsearch._http._base import HttpResponse

__all__ = [
    "check_header_name",
    "check_url",
    "clean_text",
    "decode_json",
    "in_input_order",
    "is_local_url",
    "load_json_object",
    "malformed",
    "resolve_api_key",
    "text_or_none",
]

_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_DECORATION = re.compile(r"</?(?:b|strong|i|em|u|mark|span|sup|sub|br|wbr)\b[^<>]*>", re.I)


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
    """Parse an endpoint or base URL; http(s) with a host, or a `ConfigurationError`."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{owner}: {argument} must be a non-empty URL string")
    # A message shows the value only when it cannot hold a user or password.
    shown = " (it has an '@')" if "@" in value else f", got {value!r}"
    try:
        url = httpx.URL(value.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ConfigurationError(f"{owner}: {argument} is not a valid URL{shown}") from None
    if url.userinfo:
        raise ConfigurationError(f"{owner}: {argument} must not carry credentials")
    # httpx escapes what a host cannot hold ("[bad", a space) rather than refusing it.
    if url.scheme not in ("http", "https") or not url.host or "%" in url.host:
        raise ConfigurationError(f"{owner}: {argument} must be an http(s) URL with a host{shown}")
    return url


def is_local_url(url: httpx.URL) -> bool:
    """Whether ``url`` names this machine (loopback address, ``localhost`` or ``*.localhost``)."""
    host = (url.host or "").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def text_or_none(value: object) -> str | None:
    """A scalar of an error body as stripped text; ``None`` for nothing, blank, or a container."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def check_header_name(value: object, owner: str) -> str:
    """A valid HTTP header name, or a `ConfigurationError`."""
    if not isinstance(value, str) or not _HEADER_NAME.fullmatch(value):
        raise ConfigurationError(f"{owner}: auth_header= must be an HTTP header name")
    return value


@overload
def clean_text(value: str, *, unescape: bool = False) -> str: ...
@overload
def clean_text(value: None, *, unescape: bool = False) -> None: ...
@overload
def clean_text(value: str | None, *, unescape: bool = False) -> str | None: ...


def clean_text(value: str | None, *, unescape: bool = False) -> str | None:
    """Remove hit-highlight markers (U+E000/U+E001) and inline HTML decorations.

    With ``unescape``, HTML entities are undone too (after the decorations are removed).
    """
    if value is None:
        return None
    if "\ue000" in value or "\ue001" in value:  # two C-level replaces beat a regex here
        value = value.replace("\ue000", "").replace("\ue001", "")
    if "<" in value:
        value = _DECORATION.sub("", value)
    if unescape and "&" in value:
        value = _unescape(value)
    return value


def decode_json(content: bytes) -> Any:
    """A JSON body as Python values: pydantic-core's parser, else the standard library's.

    pydantic-core (a dependency of pydantic, so nothing more to install) parses a page of
    results with about 40% fewer instructions than `json.loads`. What it refuses and
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


def malformed(provider: str, response: HttpResponse) -> Callable[[str], ResponseFormatError]:
    """``bad(reason)``: the error for a 2xx ``response`` whose body is not what it should be."""

    def bad(reason: str) -> ResponseFormatError:
        return ResponseFormatError(
            f"{provider}: HTTP {response.status_code} but {reason}",
            provider=provider,
            status_code=response.status_code,
        )

    return bad


def in_input_order(
    items: object,
    count: int,
    bad: Callable[[str], ResponseFormatError],
    *,
    what: str,
    where: str,
    field: str,
    index_optional: bool = False,
) -> list[dict[str, Any]]:
    """An answer's items joined back to the ``count`` inputs by their ``index``.

    Embedding and rerank APIs answer one object per input text, each holding ``field`` and
    the ``index`` of its text, in any order.

    Args:
        items: The answer's list.
        count: How many texts were sent.
        bad: Makes the error (see `malformed`).
        what: The items, plural, for messages (``"embeddings"``).
        where: The list, for messages (``"'data' list"``).
        field: The key every item must hold (not null).
        index_optional: An item without ``index`` stands for the text at its position.

    Raises:
        ResponseFormatError: Not a list of ``count`` objects, an item without ``field``, or
            indexes that do not name every input exactly once.
    """
    if not isinstance(items, list):
        raise bad(f"the body has no {where}")
    if len(items) != count:
        raise bad(f"it holds {len(items)} {what} for {count} texts")
    ordered: list[Any] = [None] * count
    for position, item in enumerate(items):
        if not isinstance(item, dict) or item.get(field) is None:
            raise bad(f"item {position} has no {field!r}")
        index = item.get("index", position) if index_optional else item.get("index")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise bad(f"item {position} has index {repr(index)[:40]}, outside 0..{count - 1}")
        if ordered[index] is not None:
            raise bad(f"index {index} appears twice")
        ordered[index] = item
    return ordered


def _unescape(value: str) -> str:
    # html.unescape calls back into Python for every entity; the usual case, where every "&"
    # opens an "&amp;", is one replace (a third cheaper per field; same result).
    if value.count("&") == value.count("&amp;"):
        return value.replace("&amp;", "&")
    return html.unescape(value)
