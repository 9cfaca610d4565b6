"""The small corpus the contract kit loads into a connector, and what each probe expects of it.

Five documents, each holding the word ``contract`` (the kit's query) and one word of its own,
with a link on its own host and three metadata fields: a string (``topic``), a list of
strings (``tags``) and a whole number (``year``). A connector under test is handed these
documents (as plain dicts) by its factory and must be able to find each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from textsearch._types import TextSearchFilter

__all__ = ["CONTRACT_DOCUMENTS", "CONTRACT_QUERY", "FilterProbe", "filter_probes", "link_key"]

#: The query every document of `CONTRACT_DOCUMENTS` answers.
CONTRACT_QUERY = "contract"


def _document(
    name: str, kind: str, about: str, host: str, topic: str, tags: list[str], year: int
) -> Mapping[str, Any]:
    return {
        "id": name,
        "title": f"{name.title()} contract {kind}",
        "text": f"The {name} contract {about}.",
        "link": f"https://{name}.{host}/{kind}",
        "metadata": {"topic": topic, "tags": tags, "year": year},
    }


CONTRACT_DOCUMENTS: tuple[Mapping[str, Any], ...] = (
    _document(
        "alpha",
        "notes",
        "covers retries with backoff",
        "example.org",
        "ops",
        ["retry", "network"],
        2019,
    ),
    _document(
        "bravo", "guide", "explains caching of answers", "example.net", "ops", ["cache"], 2021
    ),
    _document(
        "charlie",
        "primer",
        "describes ranking by relevance",
        "example.com",
        "search",
        ["ranking", "retry"],
        2022,
    ),
    _document(
        "delta",
        "handbook",
        "lists the filters a search keeps",
        "example.org",
        "search",
        ["filters"],
        2023,
    ),
    _document(
        "echo", "appendix", "gathers the remaining errors", "example.net", "errors", [], 2024
    ),
)
"""The documents a connector under test is loaded with (``id``, ``title``, ``text``,
``link``, ``metadata``: the shape `LocalTextSearch.add_documents` and the vector stores take).
Every text holds the word ``contract``; ``alpha``'s link is
``https://alpha.example.org/notes``."""


def link_key(link: str | None) -> str | None:
    """A result's link without its ``#fragment`` (a passage's anchor), to find its document."""
    if not link:
        return None
    return link.partition("#")[0]


def _host(doc: Mapping[str, Any]) -> str:
    return urlsplit(str(doc.get("link") or "")).hostname or ""


def _meta(doc: Mapping[str, Any], name: str) -> Any:
    metadata = doc.get("metadata")
    return metadata.get(name) if isinstance(metadata, Mapping) else None


@dataclass(frozen=True)
class FilterProbe:
    """A filter the kit tries, and which documents of the corpus it admits.

    Attributes:
        label: How findings name it (``topic == 'ops'``).
        build: Makes the filter (a fresh one each call: filters are mutable builders).
        admits: Whether a document of the corpus satisfies it.
    """

    label: str
    build: Callable[[], TextSearchFilter]
    admits: Callable[[Mapping[str, Any]], bool]


def filter_probes() -> list[FilterProbe]:
    """The filters the kit tries: each clause kind on the corpus's fields, and an unknown one.

    A connector may refuse any of them with `UnsupportedFilterError` (or
    `InvalidRequestError`); what it accepts, it must apply: every result must satisfy the
    probe. The probe on a field no document has admits nothing.
    """
    return [
        FilterProbe(
            "topic == 'ops'",
            lambda: TextSearchFilter().equal_to("topic", "ops"),
            lambda d: _meta(d, "topic") == "ops",
        ),
        FilterProbe(
            "topic != 'ops'",
            lambda: TextSearchFilter().not_equal_to("topic", "ops"),
            lambda d: _meta(d, "topic") != "ops",
        ),
        FilterProbe(
            "topic in ('search', 'errors')",
            lambda: TextSearchFilter().any_of("topic", ["search", "errors"]),
            lambda d: _meta(d, "topic") in ("search", "errors"),
        ),
        FilterProbe(
            "'retry' in tags",
            lambda: TextSearchFilter().any_tag_equal_to("tags", "retry"),
            lambda d: "retry" in (_meta(d, "tags") or []),
        ),
        FilterProbe(
            "year >= 2022",
            lambda: TextSearchFilter().greater_than_or_equal("year", 2022),
            lambda d: isinstance(_meta(d, "year"), int) and _meta(d, "year") >= 2022,
        ),
        FilterProbe(
            "site == 'charlie.example.com'",
            lambda: TextSearchFilter().equal_to("site", "charlie.example.com"),
            lambda d: _host(d) == "charlie.example.com",
        ),
        FilterProbe(
            "topic == 'ops' and year < 2020",
            lambda: TextSearchFilter().equal_to("topic", "ops").less_than("year", 2020),
            lambda d: _meta(d, "topic") == "ops" and (_meta(d, "year") or 0) < 2020,
        ),
        FilterProbe(
            "no_such_field == 'x'",
            lambda: TextSearchFilter().equal_to("no_such_field", "x"),
            lambda d: False,
        ),
    ]


def documents_by_link(documents: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The corpus by link (each link is unique), to find which document a result is."""
    return {str(d["link"]): d for d in documents if d.get("link")}
