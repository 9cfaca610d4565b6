"""The shape of a document every store takes: ``LocalDocument`` and ``normalize_document``.

``normalize_document`` is the one place a document dict becomes a validated ``LocalDocument``;
the local index, PostgreSQL and the vector stores all call it, so every store accepts exactly
the same documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError

from textsearch._ranges import INT64_MAX, INT64_MIN, number_fault
from textsearch._types import is_valid_text
from textsearch.connectors._document import StoredDocument
from textsearch.errors import InvalidRequestError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "RESERVED_FILTER_FIELDS",
    "LocalDocument",
    "MetadataValue",
    "file_document",
    "normalize_document",
]

MetadataValue = str | int | float | bool | list[str] | None
RESERVED_FILTER_FIELDS = ("id", "link", "site")
_METADATA_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,63}")


class LocalDocument(StoredDocument):
    """A document of the local index; also the native result of ``LocalTextSearch``.

    In results, a document is one passage of what was indexed: ``text`` is the passage,
    ``section`` its heading and ``link`` points at it (``file#anchor`` or ``file#L12``).

    Attributes:
        id: Unique id; adding a document with an existing id replaces it.
        title: Title of the document.
        text: Full text (in results: the text of the matching passage).
        link: File path or URL the document comes from (in results: of the passage).
        metadata: Filterable fields: str, int, float, bool, None, or a list of str.
        section: In results: the heading of the passage's section, if it has one.
        line: In results: the line the passage starts on, when known.
        snippet: In results: the passage, or a bounded window of it around the hits.
        score: In results: BM25 relevance, higher is better.
    """

    id: str = Field(min_length=1)
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    section: str | None = None
    line: int | None = None
    snippet: str | None = None
    score: float | None = None


def file_document(path: str, title: str | None) -> LocalDocument:
    """The document of a file that was read: its id and link are its path, its title the
    reader's. Built without validation, as search results are: every value is the SDK's
    own. A first validation would build the model's validator (~25 ms, its plugin lookup
    included), which indexing a folder otherwise never needs."""
    return LocalDocument.model_construct(id=path, title=title, link=path)


def _derived_id(data: Mapping[str, Any]) -> str:
    import hashlib  # needed only here and when files are indexed

    seed = json.dumps([data.get("title"), data.get("text"), data.get("link")], ensure_ascii=False)
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def normalize_document(doc: LocalDocument | Mapping[str, Any]) -> LocalDocument:
    """Validate a document (a `LocalDocument` or a dict) for a document store.

    A missing ``id`` is derived from title, text and link. Metadata keys must be identifiers
    (letters, digits, ``_``, ``-``) and not ``id``, ``link`` or ``site``; values must be
    str, int (64-bit), finite float, bool, None, or a list of str.

    Raises:
        InvalidRequestError: The document is not valid.
    """
    if isinstance(doc, LocalDocument):
        result = doc
    elif isinstance(doc, Mapping):
        data = doc if type(doc) is dict else dict(doc)  # validation copies what it keeps
        if data.get("id") in (None, ""):
            data = {**data, "id": _derived_id(data)}
        try:
            # model_validate's own work, without its keyword handling
            result = LocalDocument.__pydantic_validator__.validate_python(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise InvalidRequestError(
                f"invalid document: {first['msg']} at {first['loc']}"
            ) from None
    else:
        raise InvalidRequestError(
            f"documents must be LocalDocument or dict, not {type(doc).__name__}"
        )
    strings = [result.id, result.title or "", result.text, result.link or ""]
    for key, value in result.metadata.items():
        if not _METADATA_KEY.fullmatch(key) or key in RESERVED_FILTER_FIELDS:
            raise InvalidRequestError(
                f"metadata key {key!r} is not allowed: use letters, digits, '_' or '-' "
                f"(starting with a letter or '_'), and none of {RESERVED_FILTER_FIELDS}"
            )
        fault = number_fault(value)
        if fault is not None:  # SQLite and the stores keep finite numbers of 64 bits
            raise InvalidRequestError(
                f"document {result.id!r}: metadata {key!r} {fault} "
                "(numbers must be finite and fit in 64 bits)"
            )
        if isinstance(value, list):
            strings.extend(value)
        elif isinstance(value, str):
            strings.append(value)
    # One C-level encode of all the strings: a lone surrogate anywhere fails it (two lone
    # halves side by side stay two code points, so joining cannot hide one).
    if not is_valid_text("".join(strings)):
        raise InvalidRequestError(
            f"document {result.id!r} has text that is not valid Unicode (a lone surrogate)"
        )
    return result
