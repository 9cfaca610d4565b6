"""Reading stored documents back from a vector collection: whole documents, sections, lists.

A managed collection holds one record per passage, ``<document id>#<n>``, each with the
document's id, title and link and the passage's fragment (``#anchor`` / ``#L12``). The
three stores fetch records by a filter (`ReadableStore._scan`, written once per store); the
rest is here: a document is its records in passage order, joined; a section is the run of
records with the fragment a passage link names; a listing is one entry per document id.
These reads are blocking, like ``LocalTextSearch``'s and ``PostgresTextSearch``'s (the MCP
server and the read tools call them from a worker thread).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, Generic

from textsearch._twins import Plan
from textsearch._types import SearchOptions, TextSearchFilter
from textsearch.connectors.vectors._base import NativeT, Step, VectorStoreTextSearch, trusted
from textsearch.errors import InvalidRequestError

__all__ = ["SCAN_BATCH", "ReadableStore", "Scanned"]

#: Records fetched per call while scanning a collection.
SCAN_BATCH = 1000

#: One record as a scan gives it: its id (``<document id>#<n>`` when the store can name it
#: so), the record as a result, and the passage's fragment within the document's link.
Scanned = tuple[str, Any, "str | None"]


def _number(record_id: str, doc_id: str) -> int | None:
    """The passage number of a record ``<doc_id>#<n>`` (``None``: not a managed record)."""
    head, _, tail = record_id.rpartition("#")
    return int(tail) if head == doc_id and tail.isdigit() else None


def _in_order(records: Sequence[Scanned]) -> list[Scanned]:
    """Records in passage order (records that name no passage last, in the store's order)."""
    keyed = []
    for index, record in enumerate(records):
        number = _number(record[0], record[1].id)
        keyed.append(((number is None, number or 0, index), record))
    keyed.sort(key=lambda pair: pair[0])
    return [record for _, record in keyed]


def _document_link(record: Scanned) -> str | None:
    """The document's link: the record's link without the passage's fragment."""
    link: str | None = record[1].link
    fragment = record[2]
    if link and isinstance(fragment, str) and fragment and link.endswith(fragment):
        return link[: -len(fragment)] or None
    return link


class ReadableStore(VectorStoreTextSearch[NativeT], Generic[NativeT]):
    """A vector-store connector that also reads its documents back (Chroma, Qdrant, Milvus).

    A store writes one more hook, `_scan`: the plan fetching every record a filter admits.
    """

    @abstractmethod
    def _scan(self, client: Any, flt: Any, text: bool) -> Plan[Step, list[Scanned]]:
        """The plan fetching every record ``flt`` admits (``text=False``: without texts)."""

    def _records(
        self, base: TextSearchFilter | None, field: str, value: str, text: bool = True
    ) -> list[Scanned]:
        wanted = TextSearchFilter(base.clauses if base else ()).equal_to(field, value)
        flt = self._filter_of(SearchOptions(filter=wanted))
        return self._call(lambda client: self._scan(client, flt, text))

    def _joined(self, records: Sequence[Scanned], link: str | None) -> NativeT:
        first = records[0][1]
        document: NativeT = trusted(
            self.spec.native,
            id=first.id,
            title=first.title,
            text="\n\n".join(r[1].text for r in records if r[1].text),
            link=link,
            metadata=first.metadata,
            score=None,
        )
        return document

    def _check_read_filter(self, filter: TextSearchFilter | None) -> None:
        self._filter_of(SearchOptions(filter=filter))  # a bad filter fails before any call

    def get_document(self, key: str, *, filter: TextSearchFilter | None = None) -> NativeT | None:
        """The stored document whose id, else whose link, is ``key`` (``None`` if none).

        Blocking, like `LocalTextSearch.get_document`. The text is the whole document: its
        passages in order, joined by blank lines. A passage link (``file#section``) finds
        its document. Where several documents share a link, the one with the smallest id.

        Args:
            key: The document's id, its link, or a passage link.
            filter: Only a document this filter admits is returned (the same clauses as a
                search's filter): how a preset filter also governs direct reads.

        Raises:
            NotFoundError: The collection does not exist.
            UnsupportedFilterError: The filter cannot be applied.
            SearchTransportError: The server could not be reached.
            SearchTimeoutError: The store did not answer within ``timeout``.
        """
        if not isinstance(key, str) or not key or "\x00" in key:
            return None
        self._check_read_filter(filter)
        candidates = [("id", key), ("link", key)]
        if "#" in key:
            candidates.append(("link", key.split("#", 1)[0]))
        for field, value in candidates:
            if not value:
                continue
            records = self._records(filter, field, value)
            if records:
                doc_id = min(r[1].id for r in records)
                mine = _in_order([r for r in records if r[1].id == doc_id])
                return self._joined(mine, _document_link(mine[0]))
        return None

    def get_section(self, link: str, *, filter: TextSearchFilter | None = None) -> NativeT | None:
        """The section a passage link (``file#anchor`` or ``file#L12``) points at.

        Blocking, like `get_document`. A long section is stored as several passages with
        the same link; the text is all of them, in order. A document added with a link that
        names its place already (`read_path`'s sections: ``file.pdf#page=4``) is its own
        section.

        Args:
            link: A passage link as search results give it.
            filter: Only a section of a document this filter admits is returned.

        Returns:
            The section with its document's fields and the passage ``link``; ``None``
            when ``link`` is not a passage link of a stored document.

        Raises:
            NotFoundError: The collection does not exist.
            UnsupportedFilterError: The filter cannot be applied.
            SearchTransportError: The server could not be reached.
            SearchTimeoutError: The store did not answer within ``timeout``.
        """
        if not isinstance(link, str) or "\x00" in link:
            return None
        base, hash_, fragment = link.partition("#")
        if not (hash_ and base and fragment):
            return None
        self._check_read_filter(filter)
        whole = self._records(filter, "link", link)
        if whole:  # a document whose own link is this one
            doc_id = min(r[1].id for r in whole)
            return self._joined(_in_order([r for r in whole if r[1].id == doc_id]), link)
        records = self._records(filter, "link", base)
        if not records:
            return None
        doc_id = min(r[1].id for r in records)
        mine = [r for r in records if r[1].id == doc_id and r[2] == f"#{fragment}"]
        return self._joined(_in_order(mine), link) if mine else None

    def list_documents(
        self,
        *,
        filter: TextSearchFilter | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> list[NativeT]:
        """The stored documents in order of id, a page at a time, without their text.

        Blocking, like `get_document`. Pages are keyed: pass the last id of a page as
        ``after`` to get the next one. Each page reads the records the filter admits
        (their fields, not their texts): the stores compare no strings by order.

        Args:
            filter: Lists only the documents it admits, as a search would.
            after: The last id of the previous page (``None``: the first page).
            limit: How many documents a page holds at most (1 to 1,000).

        Returns:
            Each document's ``id``, ``title``, ``link`` (without a passage fragment) and
            ``metadata``, with an empty ``text``.

        Raises:
            InvalidRequestError: A ``limit`` outside 1 to 1,000.
            NotFoundError: The collection does not exist.
            UnsupportedFilterError: The filter cannot be applied.
            SearchTransportError: The server could not be reached.
            SearchTimeoutError: The store did not answer within ``timeout``.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidRequestError("limit must be a whole number from 1 to 1000")
        self._check_read_filter(filter)
        flt = self._filter_of(SearchOptions(filter=filter))
        records = self._call(lambda client: self._scan(client, flt, False))
        start = after or ""
        first: dict[str, tuple[tuple[bool, int], Scanned]] = {}
        for record in records:
            doc_id = record[1].id
            if doc_id <= start and after is not None:
                continue
            number = _number(record[0], doc_id)
            rank = (number is None, number or 0)
            kept = first.get(doc_id)
            if kept is None or rank < kept[0]:
                first[doc_id] = (rank, record)
        page = sorted(first)[:limit]
        return [self._listed(first[doc_id][1]) for doc_id in page]

    def _listed(self, record: Scanned) -> NativeT:
        found = record[1]
        document: NativeT = trusted(
            self.spec.native,
            id=found.id,
            title=found.title,
            text="",
            link=_document_link(record),
            metadata=found.metadata,
            score=None,
        )
        return document
