"""The records a managed vector collection holds, and the results read back from one.

A document added to a collection becomes one `PassageRecord` per passage, split as
``LocalTextSearch`` splits a document, with the document's id, title, link, the link's hosts
(for ``site`` filters) and the document's metadata; nothing here talks to a store. A record
found by a search comes back as a `VectorDocument` (each store's native model).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from textsearch.connectors._document import StoredDocument
from textsearch.errors import InvalidRequestError

if TYPE_CHECKING:
    from textsearch.connectors.local import LocalDocument
    from textsearch.documents._passages import Passage

ModelT = TypeVar("ModelT", bound=BaseModel)

#: The passages of one document are records ``<document id>#<n>``; ``n`` below this.
MAX_PASSAGES = 100_000


class VectorDocument(StoredDocument):
    """One passage found in a vector store (the base of the stores' native models).

    Attributes:
        id: The document's id (the record's own id when the record names no document).
        title: The document's title.
        text: The passage's text.
        link: The passage's link (``file#anchor`` or ``url#L12`` for a passage of a longer
            document, as ``LocalTextSearch`` links them).
        metadata: The record's other fields (filterable metadata).
        score: The store's own similarity or distance, exactly as the store returns it.
    """

    score: float | None = None


def trusted(model: type[ModelT], **fields: Any) -> ModelT:
    """A pydantic model of values our code made or converted to the field types itself (a
    store's answer, a point of checked floats), not validated again; a field not given (one
    a later version of a library's model adds) gets its default."""
    return model.model_construct(**fields)


def document_id_of(value: object, record_id: object) -> str:
    """A record's document id: its id field's value, else the record's own id."""
    return str(value) if value not in (None, "") else str(record_id)


def host_suffixes(link: str | None) -> list[str]:
    """The host of ``link`` and each parent domain (``a.b.com``, ``b.com``, ``com``).

    Stored with every record so that ``equal_to("site", "b.com")`` also matches pages of
    ``a.b.com``, as in ``LocalTextSearch``, with one equality test in any store.
    """
    return list(_sites(link))


def _sites(link: str | None) -> tuple[str, ...]:
    host = _host_reader()(link)
    return _suffixes(host) if host else ()


@lru_cache(maxsize=1)
def _host_reader() -> Callable[[str | None], str | None]:
    # imported on first use (the local index's module is not needed to search), and once:
    # an import statement run for every document cost more than reading its host
    from textsearch.documents._links import link_host as _host

    return _host


@lru_cache(maxsize=4096)
def _suffixes(host: str) -> tuple[str, ...]:
    # the documents of one collection come from few hosts: each is split once
    parts = host.rstrip(".").split(".")
    return tuple(".".join(parts[i:]) for i in range(len(parts)) if parts[i])


#: The metadata of a record without any: one shared, read-only mapping.
NO_METADATA: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True)
class PassageRecord:
    """One record of a managed collection: a passage and what filters read.

    ``sites`` and ``metadata`` may be shared by many records (all passages of a document,
    all documents of a host): read them, copy them into what is written, never change them.
    """

    record_id: str
    document_id: str
    number: int
    title: str | None
    text: str
    link: str | None
    fragment: str | None  # "#anchor" / "#L12" of the passage within the document's link
    sites: tuple[str, ...]
    metadata: Mapping[str, Any]
    section: str | None = None  # the passage's heading when it is not the document's title


def embedding_texts(records: Sequence[PassageRecord]) -> list[str]:
    """What is embedded for each record: the local index's input (title, section, text).

    The same text as ``LocalTextSearch`` embeds, so that a collection moved from the local
    index to a vector store ranks alike, and a vector cache keyed by text serves both.
    """
    from textsearch.documents._passages import embedding_input

    return [embedding_input(r.title, r.section, r.text) for r in records]


def passage_records(
    docs: Iterable[Any], *, chunk: bool, reserved: Sequence[str]
) -> tuple[list[str], list[PassageRecord]]:
    """Validate documents and split them into records (nothing is written here).

    Returns:
        The document ids (the last of several documents with the same id wins) and the
        records of all their passages, in order.

    Raises:
        InvalidRequestError: A document is not valid, or a metadata key is one of the
            fields the connector writes itself (``reserved``).
    """
    from textsearch.connectors.local import normalize_document
    from textsearch.documents._split import split_text

    if isinstance(docs, (str, bytes, Mapping)):
        raise InvalidRequestError("add_documents takes a list of documents")
    # Each document becomes its records as soon as it is checked, so that its validated
    # form is freed at once: holding every one until the end kept ~4 objects a document
    # alive through the whole write, and the garbage collector's full passes over them
    # were a quarter of a large write's time.
    records: list[PassageRecord] = []
    spans: dict[str, tuple[int, int]] = {}  # id -> its records (the last document's)
    refused: dict[str, str] = {}  # id -> why its last document is refused
    own = frozenset(reserved)
    seen = 0
    for doc in docs:
        normalized = normalize_document(doc)
        seen += 1
        start = len(records)
        problem = _add_records(records, normalized, split_text if chunk else None, own)
        # a document replaced by a later one of the same id is neither written nor refused
        if problem is None:
            refused.pop(normalized.id, None)
        else:
            refused[normalized.id] = problem
        spans[normalized.id] = (start, len(records))
    for doc_id in spans if refused else ():
        if doc_id in refused:
            raise InvalidRequestError(refused[doc_id])
    if seen != len(spans):  # repeated ids: the last document of each, in first-seen order
        records = [r for first, end in spans.values() for r in records[first:end]]
    return list(spans), records


def _add_records(
    records: list[PassageRecord],
    doc: LocalDocument,
    split: Callable[[str], Sequence[Passage]] | None,
    own: frozenset[str],
) -> str | None:
    """Append the records of a checked document (split into passages by ``split``, else
    one record of the whole text); or say why it is refused."""
    clash = sorted(own.intersection(doc.metadata)) if doc.metadata and own else ()
    if clash:
        return (
            f"document {doc.id!r}: metadata key {clash[0]!r} is a field this connector "
            f"writes itself; reserved: {', '.join(sorted(own))}"
        )
    from textsearch.documents._formats import section_passages, section_starts, stored_place

    # a read_path page holding several headings: each passage under its own (as locally)
    passages = section_passages(doc.text, doc.metadata, split) if split else ()
    if len(passages) > MAX_PASSAGES:
        return f"document {doc.id!r} has more than {MAX_PASSAGES} passages"
    sites = _sites(doc.link)
    metadata: Mapping[str, Any] = NO_METADATA
    if doc.metadata:
        metadata = {key: value for key, value in doc.metadata.items() if value is not None}
    if split is None:
        # one record of the whole text: no section, no line, so no fragment
        records.append(
            PassageRecord(
                f"{doc.id}#0", doc.id, 0, doc.title, doc.text, doc.link, None, sites, metadata
            )
        )
    named = split is not None and bool(section_starts(metadata))
    for number, passage in enumerate(passages):
        section, anchor, line = stored_place(passage, number, doc.title)  # as every store
        kept = _own_section(metadata, section) if named else metadata
        fragment = None
        # A link with a fragment names its place already (read_path's sections: #page=4).
        if doc.link and "#" not in doc.link:
            if anchor:
                fragment = f"#{anchor}"
            elif line and line > 1:
                fragment = f"#L{line}"
        records.append(
            PassageRecord(
                f"{doc.id}#{number}",
                doc.id,
                number,
                doc.title,
                passage.text,
                doc.link,
                fragment,
                sites,
                kept,
                section,
            )
        )
    return None


def _own_section(metadata: Mapping[str, Any], section: str | None) -> Mapping[str, Any]:
    """A passage's metadata: its document's, with ``section`` its own heading (a page's
    document names its first; `section_passages` gives each passage the one it is under)."""
    if metadata.get("section") == section:
        return metadata
    own = {key: value for key, value in metadata.items() if key != "section"}
    if section is not None:
        own["section"] = section
    return own


def document_ids(ids: Iterable[str]) -> list[str]:
    """Validate the ids given to ``delete_documents``.

    Raises:
        InvalidRequestError: ``ids`` is a single string, or an id is not a non-empty string.
    """
    if isinstance(ids, (str, bytes)):
        raise InvalidRequestError("delete_documents takes a list of ids, not one string")
    out = list(dict.fromkeys(ids))
    for value in out:
        if not isinstance(value, str) or not value:
            raise InvalidRequestError(f"a document id must be a non-empty string, got {value!r}")
    return out
