"""Numbered sources ``[1]..[n]``: built from results, mapped back, rendered, checked."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from textsearch._links import link_key
from textsearch.errors import InvalidRequestError
from textsearch.grounding._fields import ResultFields, extract_fields
from textsearch.grounding.formatting import one_line

__all__ = ["Citations", "Source"]

# [1]  [1, 2]  [1,2,3]  [1-3]  [1][2]  【1】 (full-width brackets, as Chinese-language models write)
_MARKER = re.compile(r"[\[【]\s*(\d{1,4}(?:\s*(?:,|，|、|-|–)\s*\d{1,4})*)\s*[\]】]")
_PART = re.compile(r"(\d{1,4})\s*(?:(?:-|–)\s*(\d{1,4}))?")
_MAX_RANGE = 100


@dataclass(frozen=True)
class Source:
    """One numbered source.

    Attributes:
        number: Its citation number, from 1.
        title: Title, when known.
        link: URL or path, when known.
        date: Publication (or crawl) date as given by the backend, when known.
        snippet: The result's text.
        site_name: The site's name, when the backend gives one.
        source: Display URL or host of the link.
        result: The result it was made from (first one, when duplicates were merged).
    """

    number: int
    title: str | None
    link: str | None
    date: str | None = None
    snippet: str | None = None
    site_name: str | None = None
    source: str | None = None
    result: Any = None
    display_url: str | None = None
    site_icon: str | None = None

    @property
    def fields(self) -> ResultFields:
        """The source as fields, for formatters."""
        return ResultFields(**{key: getattr(self, name) for name, key in _FIELD_KEYS.items()})

    def marker(self) -> str:
        """``[n]``."""
        return f"[{self.number}]"


# A Source's attributes that come from a result's fields, and their names in ResultFields.
_FIELD_KEYS = {
    "title": "name",
    "snippet": "value",
    "link": "link",
    "date": "date",
    "site_name": "site_name",
    "display_url": "display_url",
    "site_icon": "site_icon",
}


def _source(number: int, fields: ResultFields, result: Any, source: str | None) -> Source:
    values: dict[str, Any] = {name: getattr(fields, key) for name, key in _FIELD_KEYS.items()}
    return Source(number=number, source=source, result=result, **values)


class Citations:
    """Sources numbered once, deduplicated by URL, mapped back from ``[n]`` markers.

    Two results whose links are the same page after
    `canonical_link` (host case, default port, escapes, fragment
    and tracking parameters are ignored; so are ``http`` versus ``https`` and a trailing
    ``/``) share one number; the first one's fields are kept and
    missing ones are filled from the duplicates. Results without a link are deduplicated
    only when title and text are identical.

    Example::

        cites = Citations.from_results(results)
        prompt = ...  # cite as [1]..[n]
        answer = call_model(prompt)
        used = cites.used_in(answer)          # [2, 1]
        print(cites.render(only=used))        # the reference list of what was cited
    """

    def __init__(self, results: Iterable[Any] = ()) -> None:
        """Number the given results (any shape `format_results` accepts)."""
        self._sources: list[Source] = []
        self._keys: dict[str, int] = {}
        for item in results:
            self.add(item)

    @classmethod
    def from_results(cls, results: Iterable[Any]) -> Citations:
        """Number ``results`` (strings, TextSearchResult, native models, mappings)."""
        return cls(results)

    @staticmethod
    def _key(fields: ResultFields) -> str:
        if fields.link and fields.link.strip():
            return "link:" + link_key(fields.link)
        return f"text:{fields.name or ''}\x00{fields.value or ''}"

    def add(self, result: Any, *, fields: ResultFields | None = None) -> int:
        """Add a result; returns its number (the existing one for a duplicate).

        Args:
            result: The result (kept as `Source.result`).
            fields: Its fields when already known; by default read from ``result``.
        """
        if fields is None:
            fields = extract_fields(result)
        key = self._key(fields)
        existing = self._keys.get(key)
        if existing is not None:
            old = self._sources[existing - 1]
            merged = old.fields.filled_from(fields)
            self._sources[existing - 1] = _source(
                old.number, merged, old.result, old.source or fields.source
            )
            return existing
        number = len(self._sources) + 1
        self._sources.append(_source(number, fields, result, fields.source))
        self._keys[key] = number
        return number

    def number_for(self, link: str) -> int | None:
        """The number of the source with this link (normalized), or ``None``."""
        return self._keys.get("link:" + link_key(link))

    def __len__(self) -> int:
        return len(self._sources)

    def __iter__(self) -> Iterator[Source]:
        return iter(tuple(self._sources))

    def __contains__(self, number: object) -> bool:
        return isinstance(number, int) and 1 <= number <= len(self._sources)

    def __getitem__(self, number: int) -> Source:
        """The source numbered ``number`` (from 1).

        Raises:
            KeyError: No source has that number.
        """
        if number not in self:
            raise KeyError(f"no source [{number}] (there are {len(self._sources)})")
        return self._sources[number - 1]

    def get(self, number: int) -> Source | None:
        """The source numbered ``number``, or ``None``."""
        return self._sources[number - 1] if number in self else None

    @property
    def sources(self) -> list[Source]:
        """The sources in number order (a copy)."""
        return list(self._sources)

    # -- reading a model's answer -------------------------------------------------------

    @staticmethod
    def markers_in(text: str) -> list[int]:
        """Every number cited in ``text``, in order of first appearance, whether it exists or not.

        Understands ``[1]``, ``[1, 2]``, ``[1-3]``, ``[1][2]`` and full-width ``【1】``.
        """
        seen: dict[int, None] = {}
        for match in _MARKER.finditer(text):
            for part in _PART.finditer(match.group(1)):
                first = int(part.group(1))
                last = int(part.group(2)) if part.group(2) else first
                if last < first or last - first > _MAX_RANGE:
                    last = first
                for n in range(first, last + 1):
                    seen.setdefault(n, None)
        return list(seen)

    def used_in(self, answer: str) -> list[int]:
        """Numbers of existing sources that ``answer`` cites, in order of first citation.

        Markers naming no source (``[0]``, ``[99]``) are ignored; see `unknown_in`.
        """
        return [n for n in self.markers_in(answer) if n in self]

    def unknown_in(self, answer: str) -> list[int]:
        """Numbers cited in ``answer`` that name no source (a sign of a made-up citation)."""
        return [n for n in self.markers_in(answer) if n not in self]

    def used_sources(self, answer: str) -> list[Source]:
        """The sources ``answer`` cites, in order of first citation."""
        return [self._sources[n - 1] for n in self.used_in(answer)]

    # -- rendering ----------------------------------------------------------------------

    def render(
        self,
        *,
        only: Iterable[int] | None = None,
        style: Literal["plain", "markdown"] = "plain",
        dates: bool = True,
    ) -> str:
        """The reference list, one source per line.

        ``plain``: ``[1] Title - https://link (2024-05-01)``; ``markdown``:
        ``1. [Title](https://link) (2024-05-01)``. A source without a title shows its
        link (or its text), one without a link shows only its title.

        Args:
            only: Numbers to list (for example `used_in` of an answer), in number
                order; unknown numbers are ignored. ``None`` lists every source.
            style: ``"plain"`` or ``"markdown"``.
            dates: Add the date in parentheses when known.

        Raises:
            InvalidRequestError: Unknown style.
        """
        if style not in ("plain", "markdown"):
            raise InvalidRequestError(f"unknown reference style {style!r}")
        wanted = sorted({n for n in only if n in self}) if only is not None else None
        sources = self._sources if wanted is None else [self._sources[n - 1] for n in wanted]
        lines: list[str] = []
        for src in sources:
            title = one_line(src.title or "")
            link = one_line(src.link or "")
            label = title or link or _short(src.snippet) or "(untitled)"
            when = f" ({one_line(src.date)})" if dates and src.date else ""
            if style == "markdown":
                if link:
                    lines.append(f"{src.number}. [{_md_text(label)}]({_md_url(link)}){when}")
                else:
                    lines.append(f"{src.number}. {_md_text(label)}{when}")
            elif link and title:
                lines.append(f"[{src.number}] {title} - {link}{when}")
            else:
                lines.append(f"[{src.number}] {label}{when}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Citations({len(self._sources)} sources)"


def _short(text: str | None, limit: int = 80) -> str:
    line = one_line(text or "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _md_text(text: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _md_url(url: str) -> str:
    return "%20".join(url.split()).replace("(", "%28").replace(")", "%29")
