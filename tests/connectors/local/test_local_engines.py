"""The two ranking engines of LocalTextSearch: choosing, switching, rebuilding, recovering."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from textsearch import (
    ConfigurationError,
    LocalTextSearch,
    ServiceUnavailableError,
    TextSearchFilter,
)
from textsearch.connectors.local import _engine as _local_engine

tantivy = pytest.importorskip("tantivy")

ROOT = Path(__file__).resolve().parents[3]

DOCS = [
    {
        "id": "retry",
        "title": "Retry guide",
        "text": "Configure retries with exponential backoff and jitter for transient errors.",
        "link": "https://devblogs.microsoft.com/python/retry",
        "metadata": {"tags": ["python", "ops"], "year": 2024, "draft": False, "score": 1.5},
    },
    {
        "id": "timeouts",
        "title": "Timeouts",
        "text": "Every network call needs a timeout; a retry without a timeout can hang forever.",
        "link": "https://example.com/timeouts",
        "metadata": {"tags": ["ops"], "year": 2025, "draft": True, "owner": None},
    },
    {
        "id": "zh",
        "title": "重试",
        "text": "网络请求失败时重试 retry，中文全文检索。",
        "link": "https://docs.example.com/zh",
        "metadata": {"year": 2024.0, "tags": "single"},
    },
    {"id": "nolink", "text": "a retry note without a link", "metadata": {"year": "2024"}},
]


def _ids(s: LocalTextSearch, query: str, **kwargs: object) -> set[str]:
    return {d.id for d in s.get_documents_sync(query, top=50, **kwargs)}


def _entries(s: LocalTextSearch) -> list[tuple[int, int]]:
    """(passage rowid, doc rowid) held by the tantivy index, generation marker left out."""
    searcher = s._ranker._index.searcher()  # type: ignore[union-attr]
    hits = searcher.search(tantivy.Query.all_query(), limit=100_000).hits
    addresses = [a for _, a in hits]
    pairs = zip(
        searcher.fast_field_values("rowid", addresses),
        searcher.fast_field_values("doc", addresses),
        strict=True,
    )
    return sorted((rowid, doc) for rowid, doc in pairs if rowid)


def _stored(s: LocalTextSearch) -> list[tuple[int, int]]:
    return [tuple(r) for r in s._db.execute("SELECT rowid, doc FROM passages ORDER BY rowid")]


def _fts_rows(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        con.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, passages_fts, 'instance')")
        return int(con.execute("SELECT count(*) FROM temp.v").fetchone()[0])
    finally:
        con.close()


FILTERS = [
    TextSearchFilter().equal_to("site", "example.com"),
    TextSearchFilter().equal_to("site", "DOCS.example.com."),
    TextSearchFilter().equal_to("site", "microsoft.com"),
    TextSearchFilter().equal_to("site", "com"),
    TextSearchFilter().equal_to("site", "xample.com"),
    TextSearchFilter().equal_to("id", "retry"),
    TextSearchFilter().equal_to("link", "https://example.com/timeouts"),
    TextSearchFilter().equal_to("link", None),
    TextSearchFilter().equal_to("year", 2024),
    TextSearchFilter().equal_to("year", 2024.0),
    TextSearchFilter().equal_to("year", "2024"),
    TextSearchFilter().equal_to("draft", False),
    TextSearchFilter().equal_to("draft", 0),
    TextSearchFilter().equal_to("draft", True),
    TextSearchFilter().equal_to("score", 1.5),
    TextSearchFilter().equal_to("owner", None),
    TextSearchFilter().equal_to("tags", None),
    TextSearchFilter().equal_to("tags", "ops"),
    TextSearchFilter().equal_to("tags", "single"),
    TextSearchFilter().any_tag_equal_to("tags", "ops"),
    TextSearchFilter().any_tag_equal_to("tags", "single"),
    TextSearchFilter().any_tag_equal_to("year", 2025),
    TextSearchFilter().any_tag_equal_to("owner", None),
    TextSearchFilter().any_tag_equal_to("tags", "' OR 1=1 --"),
    TextSearchFilter().equal_to("year", 2024).any_tag_equal_to("tags", "python"),
    TextSearchFilter().equal_to("site", "%").equal_to("id", "_"),
]


@pytest.mark.parametrize("search_filter", FILTERS, ids=lambda f: repr(f.clauses)[:60])
def test_filters_select_the_same_documents_on_both_engines(
    search_filter: TextSearchFilter,
) -> None:
    fts = LocalTextSearch(engine="sqlite")
    tv = LocalTextSearch(engine="tantivy")
    for s in (fts, tv):
        s.add_documents(DOCS)
    expected = _ids(fts, "retry", filter=search_filter)
    assert _ids(tv, "retry", filter=search_filter) == expected
    counted = tv.get_documents_sync("retry", top=50, filter=search_filter, include_total_count=True)
    assert counted.total_count == len(expected)


def test_switching_engines_rebuilds_the_other_index_both_ways(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="sqlite") as first:
        first.add_documents(DOCS)
        before = {q: _ids(first, q) for q in ("retry", "timeout network", "重试")}
    assert _fts_rows(db) > 0 and not (tmp_path / "kb.sqlite3.tantivy").exists()
    with caplog.at_level(logging.WARNING, "textsearch.local"):
        second = LocalTextSearch(db, engine="tantivy")
    assert "rebuilding it with tantivy" in caplog.text
    assert second.engine == "tantivy" and (tmp_path / "kb.sqlite3.tantivy").is_dir()
    assert {q: _ids(second, q) for q in before} == before
    assert _fts_rows(db) == 0  # the FTS5 index is not kept alongside
    assert _entries(second) == _stored(second)
    second.add_documents([{"id": "new", "text": "a fresh retry document"}])
    second.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, "textsearch.local"):
        third = LocalTextSearch(db, engine="sqlite")
    assert "building its SQLite FTS5 index" in caplog.text
    assert not (tmp_path / "kb.sqlite3.tantivy").exists()
    assert _ids(third, "retry") == before["retry"] | {"new"}
    assert third.get_documents_sync("retry").metadata["engine"] == "sqlite"


from textsearch.connectors.local._schema import (  # noqa: E402
    SCHEMA_VERSION,
    TANTIVY_SCHEMA_VERSION,
)


def _schema_version(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT value FROM textsearch_meta WHERE key='schema_version'")
        return str(row.fetchone()[0])
    finally:
        con.close()


def test_a_tantivy_ranked_file_is_marked_so_older_versions_refuse_it(tmp_path: Path) -> None:
    # Its FTS5 table is empty: a textsearch from before the engine (which accepts only "4")
    # must refuse the file rather than find nothing in it.
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="sqlite") as first:
        first.add_documents(DOCS)
    assert _schema_version(db) == SCHEMA_VERSION
    LocalTextSearch(db, engine="tantivy").close()
    assert _schema_version(db) == TANTIVY_SCHEMA_VERSION
    with LocalTextSearch(db, engine="sqlite") as back:
        assert _ids(back, "retry")
    assert _schema_version(db) == SCHEMA_VERSION


@pytest.mark.parametrize("damage", ["delete", "garbage-meta", "empty-folder"])
def test_a_missing_or_damaged_sidecar_is_rebuilt(tmp_path: Path, damage: str) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="tantivy") as first:
        first.add_documents(DOCS)
    sidecar = tmp_path / "kb.sqlite3.tantivy"
    if damage == "delete":
        shutil.rmtree(sidecar)
    elif damage == "garbage-meta":
        (sidecar / "meta.json").write_text("{not json")
    else:
        for item in sidecar.iterdir():
            item.unlink()
    again = LocalTextSearch(db, engine="tantivy")
    assert _ids(again, "retry") == {"retry", "timeouts", "zh", "nolink"}
    assert _entries(again) == _stored(again)


def test_sqlite_committed_but_tantivy_not_is_detected_and_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="tantivy") as first:
        first.add_documents(DOCS)
    # What a crash between the two commits leaves: SQLite has a write tantivy never saw.
    con = sqlite3.connect(db)
    with con:
        con.execute("DELETE FROM passages WHERE doc = (SELECT rowid FROM documents WHERE id='zh')")
        con.execute("DELETE FROM documents WHERE id = 'zh'")
        con.execute(
            "INSERT INTO documents(rowid, id, title, metadata) VALUES (99, 'late', 'Late', '{}')"
        )
        con.execute("INSERT INTO passages(rowid, doc, text) VALUES (99, 99, 'ocelot retry')")
        con.execute("UPDATE textsearch_meta SET value = value + 1 WHERE key = 'ranking_generation'")
    con.close()
    again = LocalTextSearch(db, engine="tantivy")
    assert _ids(again, "ocelot") == {"late"}
    assert "zh" not in _ids(again, "retry")
    assert _entries(again) == _stored(again)


def test_tantivy_ahead_of_sqlite_is_detected_and_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="tantivy") as first:
        first.add_documents(DOCS)
    # tantivy committed a write whose SQLite transaction then failed: the generation is behind
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE textsearch_meta SET value = value - 1 WHERE key = 'ranking_generation'")
        con.execute("DELETE FROM passages WHERE doc = (SELECT rowid FROM documents WHERE id='zh')")
        con.execute("DELETE FROM documents WHERE id = 'zh'")
    con.close()
    again = LocalTextSearch(db, engine="tantivy")
    assert _entries(again) == _stored(again)
    assert "zh" not in _ids(again, "retry")


def test_a_second_instance_sees_the_first_ones_writes(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    writer = LocalTextSearch(db, engine="tantivy")
    reader = LocalTextSearch(db, engine="tantivy")
    assert _ids(reader, "retry") == set()
    writer.add_documents(DOCS)
    assert _ids(reader, "retry") == {"retry", "timeouts", "zh", "nolink"}
    reader.add_documents([{"id": "r2", "text": "retry from the reader"}])
    assert "r2" in _ids(writer, "retry")


def test_auto_picks_tantivy_when_installed_and_sqlite_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert LocalTextSearch().engine == "tantivy"
    assert LocalTextSearch(engine="sqlite").engine == "sqlite"
    real = _local_engine.find_spec
    monkeypatch.setattr(
        _local_engine, "find_spec", lambda name: None if name == "tantivy" else real(name)
    )
    s = LocalTextSearch()
    assert s.engine == "sqlite"
    s.add_documents(DOCS)
    assert s.get_documents_sync("retry").metadata["engine"] == "sqlite"


def test_tantivy_asked_for_but_not_installed_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_local_engine, "find_spec", lambda name: None)
    with pytest.raises(ConfigurationError, match=r'pip install "textsearch-sdk\[tantivy\]"'):
        LocalTextSearch(engine="tantivy")
    with pytest.raises(ConfigurationError, match="engine must be"):
        LocalTextSearch(engine="lucene")  # type: ignore[arg-type]


def test_tantivy_on_python_3_10_says_why_the_extra_cannot_help(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # tantivy 0.27+ has no Python 3.10 wheels: the extra installs nothing there.
    import types

    monkeypatch.setattr(_local_engine, "find_spec", lambda name: None)
    monkeypatch.setattr(_local_engine, "sys", types.SimpleNamespace(version_info=(3, 10, 13)))
    with pytest.raises(ConfigurationError, match="Python 3.11") as info:
        LocalTextSearch(engine="tantivy")
    assert "engine='sqlite'" in str(info.value)
    assert LocalTextSearch().engine == "sqlite"  # auto falls back


def test_a_foreign_writer_holding_the_lock_is_a_busy_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textsearch.connectors.local import _tantivy as _local_tantivy

    monkeypatch.setattr(_local_tantivy, "BUSY_TIMEOUT", 0.3)
    db = tmp_path / "kb.sqlite3"
    s = LocalTextSearch(db, engine="tantivy")
    s.add_documents(DOCS[:1])
    foreign = tantivy.Index.open(str(tmp_path / "kb.sqlite3.tantivy"))
    held = foreign.writer(heap_size=15_000_000, num_threads=1)
    with pytest.raises(ServiceUnavailableError) as caught:
        s.add_documents(DOCS[1:])
    assert caught.value.code == "busy"
    assert s.document_count == 1  # the SQLite side was rolled back too
    del held
    s.add_documents(DOCS[1:])
    assert s.document_count == 4 and _entries(s) == _stored(s)


def test_tantivy_is_imported_only_when_used() -> None:
    code = (
        "import sys; from textsearch import LocalTextSearch; "
        "s = LocalTextSearch(engine='sqlite'); s.add_documents([{'text': 'x'}]); "
        "s.search_sync('x'); assert 'tantivy' not in sys.modules, 'imported'; "
        "LocalTextSearch(engine='tantivy'); assert 'tantivy' in sys.modules"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]


def test_one_per_document_pages_and_counts_distinct_documents() -> None:
    s = LocalTextSearch(engine="tantivy", one_per_document=True)
    long_text = "\n\n".join(
        f"## Part {i}\n\nkoala fact number {i} " + "filler " * 200 for i in range(8)
    )
    s.add_documents(
        [{"id": f"d{n}", "title": f"Doc {n}", "text": long_text} for n in range(12)], chunk=True
    )
    assert s._db.execute("SELECT count(*) FROM passages").fetchone()[0] > 12 * 4
    first = s.get_documents_sync("koala", top=5, include_total_count=True)
    second = s.get_documents_sync("koala", top=5, skip=5, include_total_count=True)
    rest = s.get_documents_sync("koala", top=5, skip=10)
    assert first.total_count == second.total_count == 12
    pages = [d.id for d in first] + [d.id for d in second] + [d.id for d in rest]
    assert sorted(pages) == sorted(f"d{n}" for n in range(12))


def test_generation_is_recorded_in_both_indexes(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    s = LocalTextSearch(db, engine="tantivy")
    s.add_documents(DOCS)
    s.remove_documents(["zh"])
    stored = s._db.execute(
        "SELECT value FROM textsearch_meta WHERE key = 'ranking_generation'"
    ).fetchone()[0]
    assert s._ranker.stored_generation() == int(stored) >= 3  # type: ignore[union-attr]
    assert (
        json.loads(
            s._db.execute("SELECT metadata FROM documents WHERE id = 'retry'").fetchone()[0]
        )["year"]
        == 2024
    )


def test_a_failed_sqlite_commit_after_the_tantivy_commit_is_repaired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textsearch import ProviderError
    from textsearch.connectors.local import _files as _local_files

    s = LocalTextSearch(tmp_path / "kb.sqlite3", engine="tantivy")
    s.add_documents(DOCS[:2])
    real_exit = _local_files.Transaction.__exit__

    def failing_exit(self: _local_files.Transaction, *exc: object) -> None:
        self._db.execute("ROLLBACK")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(_local_files.Transaction, "__exit__", failing_exit)
    with pytest.raises(ProviderError):
        s.add_documents([{"id": "ghost", "text": "ghostly retry"}])
    monkeypatch.setattr(_local_files.Transaction, "__exit__", real_exit)
    assert _ids(s, "ghostly") == set()
    assert _entries(s) == _stored(s)


def test_a_tantivy_failure_while_writing_is_a_documented_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from textsearch import ProviderError

    s = LocalTextSearch(engine="tantivy")
    s.add_documents(DOCS[:1])
    ranker = s._ranker
    assert ranker is not None
    ranker.begin()

    class BrokenWriter:
        def add_document(self, doc: object) -> None:
            raise ValueError("An IO error occurred: 'No space left on device'")

        def delete_documents_by_query(self, query: object) -> None:
            pass

        def rollback(self) -> None:
            pass

    monkeypatch.setattr(ranker, "_writer", BrokenWriter())
    with pytest.raises(ProviderError, match="ranking index"):
        s.add_documents(DOCS[1:])
    assert s.document_count == 1  # nothing half-written on the SQLite side
    monkeypatch.undo()
    s.add_documents(DOCS[1:])
    assert s.document_count == 4 and _entries(s) == _stored(s)


def test_reindexing_unchanged_files_commits_nothing_to_tantivy(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(5):
        (notes / f"n{i}.md").write_text(f"# Note {i}\n\nkoala {i}\n")
    s = LocalTextSearch(tmp_path / "kb.sqlite3", engine="tantivy")
    s.index_path(notes)
    ranker = s._ranker
    assert ranker is not None
    before = ranker.stored_generation()
    report = s.index_path(notes)
    assert report.unchanged == 5 and ranker.stored_generation() == before
    (notes / "n0.md").write_text("# Note 0\n\nwombat now\n")
    s.index_path(notes)
    assert ranker.stored_generation() == (before or 0) + 1
    assert _ids(s, "wombat") == {str((notes / "n0.md").resolve())}
