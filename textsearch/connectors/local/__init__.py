"""``LocalTextSearch``: the embedded default (SQLite, or tantivy for ranking), no key, no network.

The package holds the connector (``_search``) and its parts: the SQLite schema, the two
ranking engines (FTS5 and tantivy), query and filter planning, reading files and splitting
them into passages.
"""

from textsearch.connectors.local._search import (
    IndexReport,
    LocalDocument,
    LocalTextSearch,
    MetadataValue,
    normalize_document,
)

__all__ = ["IndexReport", "LocalDocument", "LocalTextSearch", "MetadataValue", "normalize_document"]
