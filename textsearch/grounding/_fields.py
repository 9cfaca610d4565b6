"""Reading title/text/link/source/date out of any result shape, for formatting.

Extraction is generic on purpose: grounding must work with every connector (and third-party
ones) without importing them, so it reads well-known attribute or key names. A native model
that keeps its document in a ``fields`` mapping (Azure AI Search documents) is read through
that mapping as well.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from textsearch._links import link_key
from textsearch._types import TextSearchResult

_NAME_KEYS = ("name", "title")
_VALUE_KEYS = ("summary", "snippet", "value", "text", "content", "description", "chunk")
_LINK_KEYS = ("link", "url")
_DISPLAY_KEYS = ("display_url", "displayUrl")
_SITE_KEYS = ("site_name", "siteName")
_ICON_KEYS = ("site_icon", "siteIcon")
_DATE_KEYS = (
    "date_published",
    "datePublished",
    "date_last_crawled",
    "dateLastCrawled",
    "date",
    "published",
    "last_updated",
)


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f]")
_TEXT_FIELDS = ("name", "value", "link", "display_url", "site_name", "site_icon", "date")


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

    def __post_init__(self) -> None:
        # No C0 control character but newline and tab reaches a model (a NUL from a file,
        # an escape sequence from a page): every output style is made from these fields.
        for name in _TEXT_FIELDS:
            text = getattr(self, name)
            if text and _CONTROLS.search(text):
                object.__setattr__(self, name, _CONTROLS.sub("", text))

    @property
    def source(self) -> str | None:
        """The display URL when known, else the link's host as written."""
        if self.display_url:
            return self.display_url
        return link_host(self.link)

    def replace(self, **changes: Any) -> ResultFields:
        """A copy with some fields replaced."""
        return dataclasses.replace(self, **changes)

    def filled_from(self, other: ResultFields) -> ResultFields:
        """A copy whose missing (empty) fields are taken from ``other``."""
        return ResultFields(
            **{
                f.name: getattr(self, f.name) or getattr(other, f.name)
                for f in dataclasses.fields(self)
            }
        )


# What a FetchedPage keeps of the result it was made from, under the same names.
_PAGE_KEPT = ("link", "date", "site_name", "display_url", "site_icon")


def page_origin(result: Any, fields: ResultFields) -> dict[str, Any]:
    """The ``FetchedPage`` fields that come from the result, whatever became of its page."""
    kept = {key: getattr(fields, key) for key in _PAGE_KEPT}
    return {"result": result, "original_snippet": fields.value, **kept}


def link_host(link: str | None) -> str | None:
    if not link or "://" not in link:
        return None
    try:
        netloc = urlsplit(link).netloc
    except ValueError:
        return None
    host = netloc.rsplit("@", 1)[-1]
    return host or None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        # e.g. Azure semantic captions or highlight lists: join the texts.
        parts = [t for t in (_text(v) for v in value) if t]
        return " ".join(parts) if parts else None
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return text if text.strip() else None


def _lookup(item: Any, key: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(key)
    return getattr(item, key, None)


def _get(item: Any, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        text = _text(_lookup(item, key))
        if text is not None:
            return text
    inner = _lookup(item, "fields")
    if isinstance(inner, Mapping):
        for key in keys:
            text = _text(inner.get(key))
            if text is not None:
                return text
    return None


def extract_fields(item: Any) -> ResultFields:
    """Read the fields of a string, a TextSearchResult, a native model or a mapping."""
    if isinstance(item, ResultFields):
        return item
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


# The one URL canonicalisation (textsearch._links); kept under this name for callers here.
normalize_link = link_key


#: Chinese and Japanese script, their punctuation and full-width forms: text written without
#: spaces, where a line break inside a paragraph joins the lines with nothing between them.
_UNSPACED = (
    "\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
)
_UNSPACED_BREAK = re.compile(f"(?<=[{_UNSPACED}])[ \t]*\n\\s*(?=[{_UNSPACED}])")


def one_line(text: str) -> str:
    """``text`` on one line, as a model or a terminal reads a snippet.

    Runs of white space become one space; a line break between two Chinese or Japanese
    characters becomes nothing, as those scripts put no space between words.
    """
    if "\n" in text and not text.isascii():
        text = _UNSPACED_BREAK.sub("", text)
    return " ".join(text.split())
