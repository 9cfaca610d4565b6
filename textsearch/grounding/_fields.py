"""Reading title/text/link/source/date out of any result shape, for formatting."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from textsearch._types import TextSearchResult

_NAME_KEYS = ("name", "title")
_VALUE_KEYS = ("summary", "snippet", "value", "text", "content", "description")
_LINK_KEYS = ("link", "url")
_DISPLAY_KEYS = ("display_url",)
_SITE_KEYS = ("site_name",)
_ICON_KEYS = ("site_icon",)
_DATE_KEYS = ("date_published", "date_last_crawled", "date")


@dataclass(frozen=True)
class ResultFields:
    """What a formatter needs from one result, whatever its type."""

    name: str | None
    value: str | None
    link: str | None
    display_url: str | None = None
    site_name: str | None = None
    site_icon: str | None = None
    date: str | None = None

    @property
    def source(self) -> str | None:
        """The display URL when known, else the link's host as written."""
        if self.display_url:
            return self.display_url
        return link_host(self.link)


def link_host(link: str | None) -> str | None:
    if not link or "://" not in link:
        return None
    try:
        netloc = urlsplit(link).netloc
    except ValueError:
        return None
    host = netloc.rsplit("@", 1)[-1]
    return host or None


def _get(item: Any, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)
        if value is None:
            continue
        text = value.isoformat() if hasattr(value, "isoformat") else str(value)
        if text.strip():
            return text
    return None


def extract_fields(item: Any) -> ResultFields:
    """Read the fields of a string, a TextSearchResult, a native model or a mapping."""
    if isinstance(item, str):
        return ResultFields(name=None, value=item, link=None)
    if isinstance(item, TextSearchResult):
        return ResultFields(name=item.name, value=item.value, link=item.link)
    return ResultFields(
        name=_get(item, _NAME_KEYS),
        value=_get(item, _VALUE_KEYS),
        link=_get(item, _LINK_KEYS),
        display_url=_get(item, _DISPLAY_KEYS),
        site_name=_get(item, _SITE_KEYS),
        site_icon=_get(item, _ICON_KEYS),
        date=_get(item, _DATE_KEYS),
    )
