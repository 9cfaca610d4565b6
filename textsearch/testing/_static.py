"""`StaticTextSearch`: a real connector over an in-memory list (see `textsearch.testing`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from textsearch._ranges import instant_of, range_bound
from textsearch._types import (
    AnyOf,
    AnyTagEqualTo,
    NotEqualTo,
    Range,
    SearchOptions,
    SearchResults,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch
from textsearch.errors import InvalidRequestError

__all__ = ["RecordedCall", "StaticDocument", "StaticTextSearch"]

_WORD = re.compile(r"\w+")


class StaticDocument(BaseModel):
    """One canned result of `StaticTextSearch` (its native model).

    Attributes:
        name: Title.
        value: Text.
        link: URL or path; its host is the ``site`` filter field.
        metadata: Filterable fields (``equal_to``; lists for ``any_tag_equal_to``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    value: str | None = None
    link: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class RecordedCall:
    """One call seen by `StaticTextSearch`: the query and the effective options."""

    query: str
    options: SearchOptions


def _same(actual: Any, wanted: Any) -> bool:
    """Equal as JSON and the real backends compare: ``True`` is not ``1``."""
    if isinstance(actual, bool) or isinstance(wanted, bool):
        return isinstance(actual, bool) and isinstance(wanted, bool) and actual is wanted
    return bool(actual == wanted)


def _in_range(actual: Any, clause: Range) -> bool:
    """A range as the stores compare it: numbers with numbers, ISO-8601 dates as instants."""
    kind, bound = range_bound(clause.value)
    if kind == "date":
        value: Any = instant_of(actual)
    elif isinstance(actual, (int, float)) and not isinstance(actual, bool):
        value = actual
    else:
        value = None
    if value is None:
        return False
    op = clause.operator
    return bool(
        value > bound
        if op == ">"
        else value >= bound
        if op == ">="
        else value < bound
        if op == "<"
        else value <= bound
    )


class StaticTextSearch(BaseTextSearch[StaticDocument]):
    """An in-memory connector for tests.

    Args:
        documents: Canned results: `StaticDocument`,
            `TextSearchResult`, plain strings (used as the value) or dicts
            with ``name``, ``value``, ``link`` and ``metadata``.
        match: ``"all"`` (every query word must appear in name or value, case-insensitive),
            ``"any"`` (one word is enough) or ``"always"`` (every document matches every query).
        error: An exception to raise on every search (after validation), to test error paths.
        total_count: Whether to report a total count when asked (some backends cannot).
        max_top: Largest accepted ``top``.
        string_mapper: See `BaseTextSearch`.
        text_search_result_mapper: See `BaseTextSearch`.
        name: The provider name composed searches report for it (``metadata["provider"]``
            of `FallbackTextSearch`, ``sources`` of
            `FusedResult`); by default the class's
            ``provider_name`` (``"static"``, or what a subclass sets).
    """

    provider_name: ClassVar[str] = "static"

    def __init__(
        self,
        documents: Sequence[StaticDocument | TextSearchResult | str | Mapping[str, Any]] = (),
        *,
        match: Literal["all", "any", "always"] = "all",
        error: BaseException | None = None,
        total_count: bool = True,
        max_top: int = 50,
        string_mapper: Callable[[StaticDocument], str] | None = None,
        text_search_result_mapper: Callable[[StaticDocument], TextSearchResult] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        self.documents: list[StaticDocument] = [self._coerce(d) for d in documents]
        self.match = match
        self.error = error
        self.report_total_count = total_count
        self.max_top = max_top  # type: ignore[misc]  # per-instance override of the ClassVar
        self.calls: list[RecordedCall] = []
        # A subclass's provider_name names it unless a name is given.
        self.name = name if name is not None else self.provider_name

    @staticmethod
    def _coerce(doc: StaticDocument | TextSearchResult | str | Mapping[str, Any]) -> StaticDocument:
        if isinstance(doc, StaticDocument):
            return doc
        if isinstance(doc, TextSearchResult):
            return StaticDocument(name=doc.name, value=doc.value, link=doc.link)
        if isinstance(doc, str):
            return StaticDocument(value=doc)
        if isinstance(doc, Mapping):
            return StaticDocument(**doc)
        raise InvalidRequestError(f"unsupported static document type {type(doc).__name__}")

    def _matches_query(self, doc: StaticDocument, query: str) -> bool:
        if self.match == "always":
            return True
        words = {w.lower() for w in _WORD.findall(query)}
        haystack = {w.lower() for w in _WORD.findall(f"{doc.name or ''} {doc.value or ''}")}
        if not words:
            return False
        return words <= haystack if self.match == "all" else bool(words & haystack)

    @staticmethod
    def _field(doc: StaticDocument, name: str) -> Any:
        if name == "site":
            return (urlsplit(doc.link).hostname or "") if doc.link else None
        if name in ("name", "value", "link"):
            return getattr(doc, name)
        return doc.metadata.get(name)

    def _matches_filter(self, doc: StaticDocument, options: SearchOptions) -> bool:
        if not options.filter:
            return True
        for clause in options.filter.clauses:
            actual = self._field(doc, clause.field_name)
            if isinstance(clause, AnyTagEqualTo):
                if not isinstance(actual, (list, tuple)) or not any(
                    _same(tag, clause.value) for tag in actual
                ):
                    return False
            elif isinstance(clause, AnyOf):
                if not any(_same(actual, value) for value in clause.values):
                    return False
            elif isinstance(clause, NotEqualTo):
                if _same(actual, clause.value):
                    return False
            elif isinstance(clause, Range):
                if not _in_range(actual, clause):
                    return False
            elif not _same(actual, clause.value):
                return False
        return True

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        self.calls.append(RecordedCall(query, options))
        if self.error is not None:
            raise self.error
        hits = [
            d
            for d in self.documents
            if self._matches_query(d, query) and self._matches_filter(d, options)
        ]
        page = hits[options.skip : options.skip + options.top]
        total = len(hits) if options.include_total_count and self.report_total_count else None
        return SearchResults(page, total, {})

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        return self._fetch_sync(query, options)

    def _to_text_search_result(self, item: StaticDocument) -> TextSearchResult:
        return TextSearchResult(name=item.name, value=item.value, link=item.link)
