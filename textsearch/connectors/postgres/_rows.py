"""Documents in and rows out, shared by the async and blocking paths of PostgresTextSearch.

Documents are validated exactly as `LocalTextSearch` validates them (the same
shape, the same metadata rules); the document pipeline (``textsearch.documents``) is imported here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from textsearch.connectors._document import StoredDocument
from textsearch.documents._files import (
    DEFAULT_EXTENSIONS,
    FileWork,
    IndexReport,
    read_file,
    references,
    walk,
)
from textsearch.documents._formats import (
    fragment_metadata,
    is_place,
    section_passages,
    section_starts,
    stored_place,
)
from textsearch.documents._links import link_host, passage_link
from textsearch.documents._passages import Passage
from textsearch.documents._shape import LocalDocument, file_document, normalize_document

__all__ = [
    "DEFAULT_EXTENSIONS",
    "FileWork",
    "IndexReport",
    "LocalDocument",
    "PostgresDocument",
    "clean_snippet",
    "document_rows",
    "index_files",
    "last_of_each",
    "passages_of",
    "passage_link",
    "prepare_documents",
    "read_file",
    "walk",
]

_SPACES = re.compile(r"\s+")


class PostgresDocument(StoredDocument):
    """A document, or one passage of it, found by `PostgresTextSearch` (its native result).

    Attributes:
        id: The document's id (the id column, as text).
        title: The document's title (with ``section``, the ``name`` of normalized results).
        text: In results from the managed table: the passage's text (the whole document when
            it was added without ``chunk=True``); from `PostgresTextSearch.get_document`
            and existing tables: the whole text.
        link: Link, when the table has one; in results, the passage's (``file#anchor`` or
            ``file#L<line>``) when it has a section or starts further down.
        metadata: The jsonb metadata, when the table has it.
        section: The heading of the passage's section, if it has one.
        line: The line the passage starts on, when known.
        passage: The passage's number in its document (0 for the first).
        score: Relevance, higher is better. Keyword mode: 1 plus ``r / (1 + r)`` when the
            passage satisfies the whole query (every word, quoted phrases), else
            ``r / (1 + r)``, where ``r`` is BM25 (or ``ts_rank`` / ``ts_rank_cd``, see
            ``rank_function``) over the query's words, titles and section headings weighted
            above bodies. Semantic mode: the cosine similarity of the passage's vector to the
            query's. Hybrid mode: the reciprocal-rank fusion of both, the sum of
            ``1 / (60 + rank)`` over the arms that found the passage.
        snippet: The window of the text with the most query words (about ``snippet_words``
            x 2 words), plain text unless ``highlight`` markers were configured.
    """

    section: str | None = None
    line: int | None = None
    passage: int = 0
    score: float | None = None
    snippet: str | None = None


def _strip_nul(value: Any) -> Any:
    # PostgreSQL text and jsonb cannot hold U+0000; real files sometimes do.
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_strip_nul(v) for v in value]
    return value


def prepare_documents(
    docs: Iterable[LocalDocument | Mapping[str, Any]],
) -> list[LocalDocument]:
    """Validate every document before any is written (raises InvalidRequestError)."""
    return [normalize_document(doc) for doc in docs]


def last_of_each(docs: Sequence[LocalDocument]) -> list[LocalDocument]:
    """Of several documents with the same id in one batch, the last (as separate calls would)."""
    return list({doc.id: doc for doc in docs}.values())


def passages_of(doc: LocalDocument, chunk: bool) -> list[Passage]:
    """The passages a document is stored as: split like LocalTextSearch, or one."""
    if not chunk:
        return [Passage(None, None, 1, doc.text)]
    from textsearch.documents._split import split_text  # only when chunking

    # a read_path page holding several headings: each passage under its own (as locally)
    return section_passages(doc.text, doc.metadata, split_text)


def search_texts(
    title: str | None, section: str | None, text: str
) -> tuple[str | None, str | None, str | None]:
    """The ``search_*`` columns: each text with its CJK runs cut into bigrams, else NULL."""
    from textsearch._cjk import has_cjk, index_text

    def cut(value: str | None) -> str | None:
        return index_text(_strip_nul(value)) if value and has_cjk(value) else None

    return cut(title), cut(section), cut(text)


def document_rows(
    doc: LocalDocument,
    passages: Sequence[Passage],
    *,
    source_root: str | None = None,
    mtime_ns: int | None = None,
    size: int | None = None,
    sha256: str | None = None,
) -> list[tuple[Any, ...]]:
    """The managed table's rows of one document, one per passage (see ``ROW_COLUMNS``).

    The rules are LocalTextSearch's: a section under the document's own title is the top of
    the document (no section, no anchor), and the first passage needs no line number.
    """
    from psycopg.types.json import Jsonb

    metadata = Jsonb({key: _strip_nul(value) for key, value in doc.metadata.items()})
    doc_id, title, link = _strip_nul(doc.id), _strip_nul(doc.title), _strip_nul(doc.link)
    site = link_host(doc.link)
    rows = []
    # A page's document names its first heading; each of its passages, the one it is under.
    named = bool(section_starts(doc.metadata))
    for number, passage in enumerate(passages):
        section, anchor, line = stored_place(passage, number, doc.title)
        # A page, slide, sheet or row anchor's metadata (``#page=3``: ``{"page": 3}``) is
        # the passage's.
        place = is_place(passage.anchor)
        row_metadata = metadata
        if place or (named and metadata.obj.get("section") != section):
            own = {**metadata.obj, **fragment_metadata(passage.anchor)}
            if named:
                own.pop("section", None)
                own.update({"section": _strip_nul(section)} if section is not None else {})
            row_metadata = Jsonb(own)
        rows.append(
            (
                doc_id,
                number,
                title,
                _strip_nul(section),
                _strip_nul(anchor),
                line,
                _strip_nul(passage.text),
                link,
                site,
                row_metadata,
                source_root,
                mtime_ns,
                size,
                sha256,
                *search_texts(title, section, passage.text),
            )
        )
    return rows


def clean_snippet(text: str | None) -> str | None:
    if not text:
        return None
    cleaned = _SPACES.sub(" ", text).strip()
    return cleaned or None


def batches(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def index_files(
    files: Sequence[Path],
    known: Mapping[str, tuple[int | None, int | None, str | None]],
    root_key: str,
    report: IndexReport,
    batch_size: int,
    write: Callable[[Sequence[tuple[Any, ...]]], None],
    progress: Callable[[int, int, str], None] | None,
) -> list[tuple[Any, ...]]:
    """Read, split and write the files of one ``index_path`` run, ``batch_size`` at a time.

    Files are read and split exactly as LocalTextSearch reads them (``read_file``). Returns
    ``(mtime_ns, size, id)`` of the files whose bytes did not change but whose modification
    time did, for the caller to record.
    """
    pending: list[tuple[Any, ...]] = []
    pending_files = 0
    touched: list[tuple[Any, ...]] = []
    doc_set = references(Path(root_key), files)
    for done, file in enumerate(files, start=1):
        doc_id = str(file)
        previous = known.get(doc_id)
        work = read_file(file, previous, report, root=Path(root_key), doc_set=doc_set)
        if work is not None and work.title is None:  # same bytes, new modification time
            touched.append((work.mtime_ns, work.size, doc_id))
            report.unchanged += 1
        elif work is not None:
            doc = file_document(doc_id, work.title)
            pending += document_rows(
                doc,
                work.passages,
                source_root=root_key,
                mtime_ns=work.mtime_ns,
                size=work.size,
                sha256=work.sha256,
            )
            pending_files += 1
            if previous is None:
                report.added += 1
            else:
                report.updated += 1
        if pending_files >= batch_size:
            write(pending)
            pending, pending_files = [], 0
        if progress is not None:
            progress(done, len(files), doc_id)
    write(pending)
    return touched
