"""Stores keep read_path's passages as the reader made them (#30).

A `read_path` document's text is what a model reads: fences and markup are gone. Split again
as Markdown by a store (`add_documents(chunk=True)`, the vector stores, PostgreSQL), a code
line ``# set up the client`` became a heading: it left the passage's text and named a
section that is not in the file. The document now says where each of the reader's passages
starts (``metadata["passage_lines"]``), and every store keeps those passages as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.connectors.vectors import _support as support
from tests.connectors.vectors._support import CountingEmbedder, unique_name
from textsearch import LocalTextSearch
from textsearch.documents import read_path
from textsearch.documents._formats import section_passages
from textsearch.documents._split import split_text

GUIDE = """# Guide

Set up the client first:

```python
# set up the client
client = make()

# search for a word
client.search("q")
```

## Paging

Each page of results names the next one.
"""


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text(GUIDE)
    # a section of many passages: several paragraphs over a small passage size
    paragraphs = [f"Paragraph {n} about the retry loop, its backoff and limits." for n in range(12)]
    (folder / "long.md").write_text("# Long\n\n## Retry\n\n" + "\n\n".join(paragraphs) + "\n")
    return folder


def _reader_passages(folder: Path) -> dict[str, list[str]]:
    """id -> the reader's passages of each read_path document (what a store must keep)."""
    kept: dict[str, list[str]] = {}
    for doc in read_path(folder, passage_chars=150):
        lines = [int(n) for n in doc["metadata"]["passage_lines"]]
        text_lines = doc["text"].split("\n")
        bounds = [*lines, len(text_lines) + 2]
        kept[doc["id"]] = [
            "\n".join(text_lines[bounds[i] - 1 : bounds[i + 1] - 2]) for i in range(len(lines))
        ]
    return kept


def test_read_path_places_the_readers_passages_and_a_store_keeps_them(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    docs = list(read_path(folder, passage_chars=150))
    long = next(d for d in docs if d["id"] == "long.md#retry")
    assert len(long["metadata"]["passage_lines"]) > 3  # several passages in one document
    for doc in docs:
        passages = section_passages(doc["text"], doc["metadata"], split_text)
        assert "\n\n".join(p.text for p in passages) == doc["text"]
        assert [str(p.line) for p in passages] == doc["metadata"]["passage_lines"]
    guide = next(d for d in docs if d["id"] == "guide.md")
    kept = section_passages(guide["text"], guide["metadata"], split_text)
    assert [p.heading for p in kept] == [None]
    assert "# set up the client\nclient = make()\n\n# search for a word" in kept[0].text
    # the old reading of the same text: the code's comments taken for headings
    again = split_text(guide["text"])
    assert {p.heading for p in again} >= {"set up the client", "search for a word"}


def test_a_document_written_by_another_tool_is_split_as_before() -> None:
    text = "Intro.\n\n# Usage\n\nRun it."
    for metadata in (None, {"passage_lines": ["2"]}, {"passage_lines": ["1", "x"]},
                     {"passage_lines": ["1", "4"]}, {"passage_lines": ["1", "99"]}):  # fmt: skip
        # "4" is no passage start: the text before it does not end with a blank line
        headings = [p.heading for p in section_passages(text, metadata, split_text)]
        assert headings == [None, "Usage"], metadata


def _stored_texts_local(folder: Path) -> dict[str, list[str]]:
    search = LocalTextSearch()
    search.add_documents(read_path(folder, passage_chars=150), chunk=True)
    rows = search._db.execute(
        "SELECT d.id, p.text, p.section FROM passages p JOIN documents d ON d.rowid = p.doc"
        " ORDER BY p.rowid"
    ).fetchall()
    search.close()
    return _grouped([(doc, text, section) for doc, text, section in rows])


def _grouped(rows: list[tuple[str, str, str | None]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for doc, text, section in rows:
        assert section not in {"set up the client", "search for a word"}, section
        found.setdefault(doc, []).append(text)
    return found


def test_the_local_index_keeps_the_readers_passages(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert _stored_texts_local(folder) == _reader_passages(folder)


@pytest.mark.parametrize("kind", ["chroma", "qdrant"])
def test_a_vector_store_keeps_the_readers_passages(kind: str, tmp_path: Path) -> None:
    pytest.importorskip({"chroma": "chromadb", "qdrant": "qdrant_client"}[kind])
    folder = _folder(tmp_path)
    factory = getattr(support, f"{kind}_factory")
    store = factory(tmp_path)(unique_name(), embedder=CountingEmbedder())
    store.add_documents_sync(read_path(folder, passage_chars=150))
    hits = store.get_search_results_sync("the retry loop", top=50).results
    rows = [(h.id, h.text, h.metadata.get("section")) for h in hits]
    got = {doc: sorted(texts) for doc, texts in _grouped(rows).items()}
    assert got == {doc: sorted(texts) for doc, texts in _reader_passages(folder).items()}


def test_postgres_keeps_the_readers_passages(tmp_path: Path, pg_dsn: str, pg_table: str) -> None:
    from textsearch.connectors import PostgresTextSearch

    folder = _folder(tmp_path)
    with PostgresTextSearch(pg_dsn, table=pg_table) as store:
        store.create_schema_sync()
        store.add_documents_sync(read_path(folder, passage_chars=150), chunk=True)
        found: list[Any] = []
        for doc in read_path(folder, passage_chars=150):
            document = store.get_document(doc["id"])
            assert document is not None
            found.append((doc["id"], document.text))
    # a document read back whole is its passages joined, none of its lines lost
    assert found == [(doc["id"], doc["text"]) for doc in read_path(folder, passage_chars=150)]


def test_a_long_code_block_cut_in_two_is_one_document(tmp_path: Path) -> None:
    # Both pieces start on the block's line: as two documents they shared the id `#L5` and
    # a store kept only the second (Flask's tutorial/static.rst lost its CSS this way).
    css = "\n".join(f"  .rule-{n} {{ margin: {n}px; padding: {n}px; }}" for n in range(40))
    (tmp_path / "static.rst").write_text(f"Static\n======\n\nThe style sheet::\n\n{css}\n")
    docs = list(read_path(tmp_path, passage_chars=400))
    assert len({d["id"] for d in docs}) == len(docs)
    code = [d for d in docs if ".rule-0 " in d["text"] or ".rule-39 " in d["text"]]
    assert len(code) == 1 and len(code[0]["metadata"]["passage_lines"]) > 1
    search = LocalTextSearch()
    search.add_documents(docs, chunk=True)
    stored = [t for (t,) in search._db.execute("SELECT text FROM passages ORDER BY rowid")]
    assert all(any(f".rule-{n} " in t for t in stored) for n in range(40))


def test_html_sections_without_anchors_get_ids_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><head><title>Page</title></head><body><p>Intro text here.</p>"
        "<h2>Browse</h2><p>Browse the shelves.</p><h2 id='find'>Find</h2><p>Find a book.</p>"
        "<h2>Borrow</h2><p>Borrow it for a week.</p></body></html>"
    )
    docs = list(read_path(tmp_path))
    ids = [d["id"] for d in docs]
    assert len(set(ids)) == len(ids) and "page.html#find" in ids
    assert all(d["link"].endswith(("page.html", "page.html#find")) for d in docs)
    search = LocalTextSearch()
    search.add_documents(docs, chunk=True)
    stored = " ".join(t for (t,) in search._db.execute("SELECT text FROM passages"))
    for words in ("Intro text", "Browse the shelves", "Find a book", "Borrow it"):
        assert words in stored
