"""Opening a local index: what an open reads and writes, and the command line's one open."""

from __future__ import annotations

import sqlite3
from array import array
from pathlib import Path
from typing import Any

import pytest

import textsearch.connectors.local._search as local_search
from textsearch import LocalTextSearch
from textsearch.embeddings import FunctionEmbedder
from textsearch.errors import ConfigurationError

DIMS = 4


def _vector(text: str) -> list[float]:
    # "stop" words point one way, everything else another: enough to search by meaning.
    return [1.0, 0.0, 0.0, 0.0] if "halt" in text or "stop" in text else [0.0, 1.0, 0.0, 0.0]


def _embedder(model: str = "m-1", spec: str | None = None) -> FunctionEmbedder:
    made = FunctionEmbedder(lambda texts: [_vector(t) for t in texts], model=model, dimensions=DIMS)
    if spec is not None:
        made.spec = spec  # type: ignore[attr-defined]  # as from_spec names its embedders
    return made


DOCS = [
    {"id": "a", "title": "Halting", "text": "The worker halts at the next checkpoint."},
    {"id": "b", "title": "Colours", "text": "Pick a palette for the charts."},
]


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement the index connections opened from now on run, in order."""
    seen: list[str] = []
    connect = local_search.connect

    def traced(path: str) -> sqlite3.Connection:
        db = connect(path)
        db.set_trace_callback(seen.append)
        return db

    monkeypatch.setattr(local_search, "connect", traced)
    return seen


def _writes(statements: list[str]) -> list[str]:
    return [s for s in statements if s.strip().upper().startswith(("BEGIN", "INSERT", "CREATE"))]


@pytest.mark.parametrize("engine", ["sqlite", "tantivy"])
def test_reopening_with_the_recorded_embedder_writes_nothing(
    tmp_path: Path, statements: list[str], engine: str
) -> None:
    if engine == "tantivy":
        pytest.importorskip("tantivy")
    path = str(tmp_path / "i.sqlite3")
    with LocalTextSearch(path, engine=engine, embedder=_embedder(spec="s-1")) as first:  # type: ignore[arg-type]
        first.add_documents(DOCS)
    assert _writes(statements), "the first open records the model"
    statements.clear()
    with LocalTextSearch(path, engine=engine, embedder=_embedder(spec="s-1")) as again:  # type: ignore[arg-type]
        assert _writes(statements) == []  # no write lock taken: a busy writer never blocks it
        assert [d.id for d in again.get_search_results_sync("stop", top=1).results] == ["a"]


def test_what_the_index_does_not_record_yet_is_written_and_a_mismatch_still_refused(
    tmp_path: Path, statements: list[str]
) -> None:
    path = str(tmp_path / "i.sqlite3")
    with LocalTextSearch(path, engine="sqlite", embedder=_embedder()) as first:
        first.add_documents(DOCS)
    statements.clear()
    with LocalTextSearch(path, engine="sqlite", embedder=_embedder(spec="s-2")) as named:
        assert named.embedding_spec == "s-2"
    assert any("BEGIN IMMEDIATE" in s for s in statements)
    with pytest.raises(ConfigurationError, match="holds vectors of model 'm-1'"):
        LocalTextSearch(path, engine="sqlite", embedder=_embedder(model="m-2"))


def _remembering(tmp_path: Path) -> Path:
    """An index with vectors of ``m-1`` that remembers the spec ``minilm``."""
    path = tmp_path / "kb.sqlite3"
    with LocalTextSearch(path, engine="sqlite", embedder=_embedder()) as built:
        built.add_documents(DOCS)
    with sqlite3.connect(path) as db:
        db.execute("INSERT OR REPLACE INTO textsearch_meta VALUES ('embedding_spec', 'minilm')")
    db.close()
    return path


def test_the_command_line_opens_an_index_once_to_learn_its_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import textsearch.embeddings
    from textsearch.cli._providers import open_local

    path = _remembering(tmp_path)
    asked: list[str] = []

    def from_spec(spec: str, **_: Any) -> FunctionEmbedder:
        asked.append(spec)
        return _embedder()

    monkeypatch.setattr(textsearch.embeddings, "from_spec", from_spec, raising=False)
    opens: list[str] = []
    connect = local_search.connect
    monkeypatch.setattr(local_search, "connect", lambda p: opens.append(p) or connect(p))
    search = open_local(path, None)
    try:
        assert opens == [str(path)] and asked == ["minilm"]
        assert search.mode == "hybrid" and search.embedder is not None
        # found by meaning alone: no word of the query is in the passage
        assert [d.id for d in search.get_search_results_sync("stop", top=1).results] == ["a"]
    finally:
        search.close()


def test_a_remembered_embedder_of_another_model_is_refused_and_the_index_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import textsearch.embeddings
    from textsearch.cli._providers import open_local

    path = _remembering(tmp_path)
    monkeypatch.setattr(
        textsearch.embeddings, "from_spec", lambda spec, **_: _embedder("other"), raising=False
    )
    opened: list[LocalTextSearch] = []
    init = LocalTextSearch.__init__

    def recording(self: LocalTextSearch, *args: Any, **kwargs: Any) -> None:
        opened.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(LocalTextSearch, "__init__", recording)
    with pytest.raises(ConfigurationError, match="holds vectors of model 'm-1'"):
        open_local(path, None)
    (only,) = opened
    with pytest.raises(ConfigurationError):
        only.search_sync("stop")  # closed


@pytest.mark.parametrize("rowids", [[1, 2, 3, 4, 5], [5, 3, 4, 1, 2]])
def test_the_row_of_a_passage_whether_slots_follow_rowids_or_not(
    tmp_path: Path, rowids: list[int]
) -> None:
    pytest.importorskip("numpy")
    from textsearch.connectors.local import _vectorfile
    from textsearch.connectors.local._schema import connect
    from textsearch.connectors.local._vectors import VectorIndex

    path = str(tmp_path / "v.sqlite3")
    db = connect(path)
    store = _vectorfile.VectorStore(path)
    db.execute("BEGIN IMMEDIATE")
    _vectorfile.create_tables(db)
    db.execute("INSERT OR REPLACE INTO textsearch_meta VALUES ('embedding_dimensions', '4')")
    rows = [[float(r), 1.0, 0.0, 0.0] for r in rowids]
    blobs = [array("f", row).tobytes() for row in rows]
    _vectorfile.append(db, store, [(r, r, b"", b) for r, b in zip(rowids, blobs, strict=True)], 4)
    _vectorfile.finish(db, store)
    db.execute("COMMIT")
    index = VectorIndex()
    index.follow(db, store)
    for slot, rowid in enumerate(rowids):
        assert index.row_of(rowid) == slot
    assert index.row_of(6) is None and index.row_of(0) is None
    store.close()
    db.close()
