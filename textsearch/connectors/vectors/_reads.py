"""Reading stored documents back from a vector collection: whole documents, sections, lists.

A managed collection holds one record per passage, ``<document id>#<n>``, each with the
document's id, title and link and the passage's fragment (``#anchor`` / ``#L12``). The
three stores fetch records by a filter (`ReadableStore._scan`, written once per store); the
rest is here: a document is its records in passage order, joined; a section is the run of
records with the fragment a passage link names; a listing is one entry per document id,
its page found by a scan of the records' keys alone and only its first records fetched.
These reads are blocking, like ``LocalTextSearch``'s and ``PostgresTextSearch``'s (the MCP
server and the read tools call them from a worker thread).
"""

from __future__ import annotations

import heapq
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic

from textsearch._twins import Plan
from textsearch._types import SearchOptions, TextSearchFilter
from textsearch.connectors.vectors._base import NativeT, Step, VectorStoreTextSearch, trusted
from textsearch.documents._listing import DocumentListing

__all__ = ["KEY_BATCH", "SCAN_BATCH", "Keyed", "ReadableStore", "Scanned"]

#: Records fetched per call while scanning a collection.
SCAN_BATCH = 1000

#: Records named per call by a key scan (a few short fields each): in-process stores spend
#: most of a scan on each call (Qdrant local mode 1.5 s for 20,000 records by 1,000, 0.7 s
#: by 20,000; Milvus Lite's iterator 9.4 s by 1,000, 1.7 s by 10,000).
KEY_BATCH = 10_000

#: One record as a scan gives it: its id (``<document id>#<n>`` when the store can name it
#: so), the record as a result, and the passage's fragment within the document's link.
Scanned = tuple[str, Any, "str | None"]

#: One record as a key scan gives it: the store's key for it (what
#: `ReadableStore._fetch_records` takes), its name (``<document id>#<n>`` when the store can
#: name it so) and its document id.
Keyed = tuple[Any, str, str]


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


def _first_records(keyed: Sequence[Keyed], after: str | None) -> dict[str, Any]:
    """Each document's first record's key (by passage number), documents after ``after``."""
    first: dict[str, tuple[tuple[bool, int, int], Any]] = {}
    for index, (key, name, doc_id) in enumerate(keyed):
        if after is not None and doc_id <= after:
            continue
        number = _number(name, doc_id)
        rank = (number is None, number or 0, index)
        kept = first.get(doc_id)
        if kept is None or rank < kept[0]:
            first[doc_id] = (rank, key)
    return {doc_id: kept[1] for doc_id, kept in first.items()}


class ReadableStore(VectorStoreTextSearch[NativeT], DocumentListing[NativeT], Generic[NativeT]):
    """A vector-store connector that also reads its documents back (Chroma, Qdrant, Milvus).

    A store writes three more hooks: `_scan`, the plan fetching every record a filter
    admits; `_scan_keys`, the lightest scan the store's client offers (each record's key and
    document id, nothing else), which finds a listing's page; `_fetch_records`, the page's
    records.
    """

    #: Records fetched per call of a scan (`SCAN_BATCH`; a test may set fewer).
    scan_batch: ClassVar[int] = SCAN_BATCH
    #: Records named per call of a key scan (`KEY_BATCH`).
    key_batch: ClassVar[int] = KEY_BATCH

    @abstractmethod
    def _scan(self, client: Any, flt: Any, text: bool) -> Plan[Step, list[Scanned]]:
        """The plan fetching every record ``flt`` admits (``text=False``: without texts)."""

    @abstractmethod
    def _scan_keys(self, client: Any, flt: Any, exact: bool) -> Plan[Step, list[Keyed]]:
        """The plan naming every record ``flt`` admits: its key, its name, its document id.

        ``exact=False`` lets a store take a record named ``<x>#<n>`` for a passage of
        document ``x`` (as ``add_documents`` names them) without reading its fields; the
        page's records, fetched, show whether it was (else the listing scans again, exact).
        """

    @abstractmethod
    def _fetch_records(self, client: Any, keys: list[Any]) -> Plan[Step, list[Scanned]]:
        """The plan fetching the records with these keys (from `_scan_keys`), without texts."""

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

    def _page_of_documents(
        self, filter: TextSearchFilter | None, after: str | None, limit: int
    ) -> list[NativeT]:
        """A page of `list_documents`.

        Each page scans the keys of the records the filter admits (each record's id and
        document id: the stores compare no strings by order), then fetches the fields of the
        page's documents' first records only. Chroma's scan reads record ids alone (its
        metadata is most of a scan's cost) and takes a record named ``<x>#<n>``, as
        `add_documents` names them, for a passage of document ``x`` (a record named so whose
        document id field names another document is listed under ``x``); a record named
        otherwise is listed under its document id field.
        """
        self._check_read_filter(filter)
        flt = self._filter_of(SearchOptions(filter=filter))
        page, fetched = self._listing_page(flt, after, limit, exact=False)
        if not fetched.keys() <= set(page):  # a record was named for another document
            page, fetched = self._listing_page(flt, after, limit, exact=True)
        # a document deleted between the two calls is left out
        return [self._listed(fetched[doc_id]) for doc_id in page if doc_id in fetched]

    def _listing_page(
        self, flt: Any, after: str | None, limit: int, *, exact: bool
    ) -> tuple[list[str], dict[str, Scanned]]:
        """A page's document ids, and the first record of each by its document id."""
        keyed = self._call(lambda client: self._scan_keys(client, flt, exact))
        first = _first_records(keyed, after)
        page = heapq.nsmallest(limit, first)
        if not page:
            return [], {}
        wanted = [first[doc_id] for doc_id in page]
        records = self._call(lambda client: self._fetch_records(client, wanted))
        return page, {record[1].id: record for record in records}

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
