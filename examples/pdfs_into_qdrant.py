"""Load a folder of PDFs (and Word, PowerPoint, Excel, CSV files) into Qdrant and PostgreSQL.

    pip install "textsearch-sdk[documents,qdrant,postgres,onnx]"
    python examples/pdfs_into_qdrant.py ~/Documents/handbooks "spring tides"
    TEXTSEARCH_POSTGRES_DSN=postgresql://... python examples/pdfs_into_qdrant.py DIR QUERY

`read_path` reads the files as `LocalTextSearch.index_path` does: one document per section,
each linking to the page it starts on (`handbook.pdf#page=12`), with `metadata["page"]`.
Qdrant runs in local mode (a folder, no server); PostgreSQL only when a DSN is set.
"""

from __future__ import annotations

import os
import sys

from textsearch.connectors import PostgresTextSearch, QdrantTextSearch
from textsearch.documents import IndexReport, read_path
from textsearch.embeddings import from_spec


def main(folder: str, query: str) -> None:
    report = IndexReport()
    docs = list(
        read_path(folder, extensions=[".pdf", ".docx", ".pptx", ".xlsx", ".csv"], report=report)
    )
    print(f"{len(docs)} sections from {report.added} file(s)")
    for path, reason in report.skipped + report.failed:
        print(f"  not read: {path}: {reason}")

    qdrant = QdrantTextSearch("qdrant-data", "handbooks", embedder=from_spec("minilm"))
    qdrant.add_documents_sync(docs)
    for hit in qdrant.get_search_results_sync(query, top=3).results:
        print(f"qdrant    {hit.link}  (page {hit.metadata.get('page')})")

    dsn = os.environ.get("TEXTSEARCH_POSTGRES_DSN")
    if dsn:
        with PostgresTextSearch(dsn, table="handbooks") as postgres:
            postgres.create_schema_sync()
            postgres.add_documents_sync(docs)
            for hit in postgres.get_search_results_sync(query, top=3).results:
                print(f"postgres  {hit.link}  (page {hit.metadata.get('page')})")


if __name__ == "__main__":
    main(sys.argv[1], " ".join(sys.argv[2:]) or "introduction")
