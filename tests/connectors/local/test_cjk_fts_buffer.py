"""The FTS5 pending-terms buffer that keeps CJK indexing from merging small segments."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from textsearch import LocalTextSearch
from textsearch.connectors.local._schema import FTS_HASH_BYTES


def _hash_setting(path: Path) -> object:
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT v FROM passages_fts_config WHERE k = 'hashsize'").fetchone()
    return None if row is None else row[0]


def test_new_index_keeps_a_large_buffer(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite3"
    with LocalTextSearch(str(path), engine="sqlite") as index:
        index.add_documents([{"id": "a", "text": "如何停止任务"}])
        assert [d.id for d in index.get_documents_sync("停止任务")] == ["a"]
    assert _hash_setting(path) == FTS_HASH_BYTES


def test_rebuilt_index_gets_the_buffer(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite3"
    with LocalTextSearch(str(path), engine="sqlite") as index:
        index.add_documents([{"id": "a", "text": "主流向量数据库"}])
    with sqlite3.connect(path) as db:  # as an older release left it
        db.execute("DELETE FROM passages_fts_config WHERE k = 'hashsize'")
        db.execute("DELETE FROM textsearch_meta WHERE key = 'text_version'")
    assert _hash_setting(path) is None
    with LocalTextSearch(str(path), engine="sqlite") as index:
        assert [d.id for d in index.get_documents_sync("数据库")] == ["a"]
    assert _hash_setting(path) == FTS_HASH_BYTES
