"""Documents in and rows out, shared by the async and blocking paths of PostgresTextSearch.

Documents are validated exactly as :class:`~textsearch.LocalTextSearch` validates them (the same
shape, the same metadata rules); every import from the local connector is in this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from textsearch.connectors._local_files import DEFAULT_EXTENSIONS, walk
from textsearch.connectors._local_passages import split_document
from textsearch.connectors.local import (
    IndexReport,
    LocalDocument,
    _host,
    normalize_document,
)

__all__ = [
    "DEFAULT_EXTENSIONS",
    "IndexReport",
    "LocalDocument",
    "clean_snippet",
    "document_row",
    "prepare_documents",
    "title_and_body",
    "walk",
]

_SPACES = re.compile(r"\s+")



def title_and_body(file: Path, raw: str) -> tuple[str | None, str]:
    """A file's title and its text as one body (the table keeps one row per document)."""
    title, passages = split_document(raw, file.suffix)
    body = "\n\n".join(
        (f"{p.heading}\n{p.text}" if p.heading and not p.text.startswith(p.heading) else p.text)
        for p in passages
        if p.text or p.heading
    )
    return title, body


def _strip_nul(value: Any) -> Any:
    # PostgreSQL text and jsonb cannot hold U+0000; real files sometimes do.
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_strip_nul(v) for v in value]
    return value


def prepare_documents(docs: Iterable[LocalDocument | Mapping[str, Any]]) -> list[LocalDocument]:
    """Validate every document before any is written (raises InvalidRequestError)."""
    return [normalize_document(doc) for doc in docs]


def document_row(
    doc: LocalDocument,
    *,
    source_root: str | None = None,
    mtime_ns: int | None = None,
    size: int | None = None,
    sha256: str | None = None,
) -> tuple[Any, ...]:
    """Parameters of the managed table's upsert, in column order."""
    from psycopg.types.json import Jsonb

    metadata = {key: _strip_nul(value) for key, value in doc.metadata.items()}
    return (
        _strip_nul(doc.id),
        _strip_nul(doc.title),
        _strip_nul(doc.text),
        _strip_nul(doc.link),
        _host(doc.link),
        Jsonb(metadata),
        source_root,
        mtime_ns,
        size,
        sha256,
    )


def clean_snippet(text: str | None) -> str | None:
    if not text:
        return None
    cleaned = _SPACES.sub(" ", text).strip()
    return cleaned or None


def batches(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
