"""What the parts of ``LocalTextSearch`` share: its settings, its state, and the index marks."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Literal

from textsearch._types import TextSearchFilter
from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._engine import EngineMixin, Write
from textsearch.connectors.local._files import Transaction
from textsearch.connectors.local._filters import validate_filter
from textsearch.documents._formats import stored_place
from textsearch.documents._passages import Passage
from textsearch.documents._shape import RESERVED_FILTER_FIELDS, LocalDocument

if TYPE_CHECKING:
    from textsearch.connectors.local._vectors import VectorIndex
    from textsearch.embeddings import Embedder

__all__ = [
    "BATCH_FILES",
    "EMBED_BATCH",
    "HYBRID_DEPTH",
    "MARKDOWN_SUFFIXES",
    "MARKDOWN_TEXT_VERSION",
    "MODES",
    "SPEC_KEY",
    "WHOLE_ROWS",
    "stored_rows",
]

# index_path commits after this many files, so an interrupted run keeps what it did.
#: The version of the plain text made of Markdown, reStructuredText and .txt files (the
#: readers in ``_split``): an index whose files were read by another version, or with other
#: ``formats``, reads them again once. 3: read by markdown-it-py and docutils. 4: the line
#: reader (no ``markup`` extra) pairs code spans as CommonMark does, across line ends too;
#: the readers in use are part of the mark, so installing the extra re-reads the files.
#: 6: names bounded, Word tables and lists read in one pass, PDF identifiers broken after an
#: underscore joined. 7: a Word or notebook title heading's later passages link its anchor,
#: Markdown list items keep their continuation lines' indent, PDF rules typed as text go and
#: TeX's drawn underscores are read back. 8: an indented block (code in a text file, on a
#: PDF page) loses only the indentation all its lines share. 9: MkDocs' extension syntax
#: (admonitions, tabs, blocks, attribute lists...) and GitHub's alerts read as they show,
#: list items without trailing blanks. 10: Sphinx's ``.. class::`` descriptions read (docutils'
#: own ``class`` directive had dropped them), admonitions and version directives under the
#: label a page shows (``Note:``, ``Deprecated since version 3.1:``), the names ``module``,
#: ``setting``... only make link targets of left out; HTML code (``<pre>``) as written.
#: 11: a bare ``:ref:`label``` or ``:doc:`path``` reads as the title it links to; options
#: written deeper than a directive's text are options (SQLAlchemy's changelog); functions
#: and methods show their parentheses, zzzeeksphinx projects their short names; mkdocs-autorefs
#: cross-references read as their text. 12: a folder below its Sphinx project resolves its
#: references in the whole project; the author directives (``moduleauthor``...) show nothing.
#: 13: a notebook's raw cells show what their format shows (Markdown, reST, HTML, none).
#: 14: a reStructuredText list item that opens with a line block keeps its marker.
MARKDOWN_TEXT_VERSION = "14"
#: The files read again when the version above changes.
MARKDOWN_SUFFIXES = (
    ".md", ".markdown", ".mdx", ".qmd", ".rmd", ".rst", ".txt", ".ipynb", ".html", ".htm",
    ".xhtml",
)  # fmt: skip
BATCH_FILES = 100
#: Meta key: the spec of the embedder the vectors were made with (see ``embedding_spec``).
SPEC_KEY = "embedding_spec"
MODES = ("keyword", "semantic", "hybrid")
# Passages taken from the top of each arm in hybrid mode: a page is cut from the fusion of
# at least this many (more when the page reaches deeper).
HYBRID_DEPTH = 100
# Passages embedded per call of the embedder by embed_missing.
EMBED_BATCH = 256
# Ranked passages read whole at once (text, document); from a longer list only what grouping
# needs is read, and the text of the page alone.
WHOLE_ROWS = 32


def stored_rows(
    doc: LocalDocument, passages: list[Passage]
) -> list[tuple[str | None, str | None, int | None, str]]:
    """``(section, anchor, line, text)`` of each passage as the store keeps it."""
    rows = []
    for number, passage in enumerate(passages):
        rows.append((*stored_place(passage, number, doc.title), passage.text))
    return rows


class _LocalState(EngineMixin):
    """The attributes every part of ``LocalTextSearch`` reads (set in its ``__init__``)."""

    embedder: Embedder | None
    mode: Literal["keyword", "semantic", "hybrid"]
    passage_chars: int
    highlight: Any
    value_chars: int
    _fusion: Literal["blend", "rrf"]
    _vector_index: VectorIndex | None
    _lock: threading.RLock
    _known_fields: list[str] | None

    def _transaction(self) -> Write:
        return Write(self, Transaction(self._db), batch=False)

    def _filter_fields(self) -> list[str]:
        names = [r[0] for r in self._db.execute("SELECT name FROM metadata_fields")]
        fields = sorted({*RESERVED_FILTER_FIELDS, *names})
        self._known_fields = fields
        return fields

    def _validate_filter(self, search_filter: TextSearchFilter | None) -> None:
        if search_filter:
            validate_filter(search_filter, self._filter_fields())
