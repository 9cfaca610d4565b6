"""CJK tokens as the local engines index them.

tantivy: each CJK run is one value of a field of its own (`_cjk.split_runs`), cut by an
n-gram tokenizer into the tokens of `_cjk.bigrams` (the run's bigrams and characters), so
the text field no longer folds and stems ~400 CJK tokens a passage. SQLite: the runs'
tokens after the rest of the text (`_cjk.index_tokens`), the same FTS5 tokens as before.
"""

from __future__ import annotations

import logging
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch._cjk import (
    TEXT_VERSION,
    bigrams,
    cjk_only_run,
    index_text,
    index_tokens,
    split_runs,
)

TEXTS = [
    "如何停止任务",
    "用 pip install 安装",
    "停",
    "a停b",
    "数据库每天备份一次，保留三十天。ジョブを停止するには、停止ボタンを押します。",
    "한국어 텍스트 검색",
    "\U00020000\U00020001 and \U00020002",  # Extension B: four bytes a character
    "第1章：概要（2026年）",
    "Crème brûlée",
    "",
]


def _expected(text: str) -> Counter[str]:
    return Counter(t for run in cjk_only_run().findall(text) for t in bigrams(run))


@pytest.mark.parametrize("text", TEXTS)
def test_tantivy_cuts_each_run_into_its_bigrams_and_characters(text: str) -> None:
    pytest.importorskip("tantivy")
    from textsearch.connectors.local._tantivy import _cjk_analyzer

    rest, runs = split_runs(text, "|")
    analyzer = _cjk_analyzer()
    assert Counter(t for run in runs for t in analyzer.analyze(run)) == _expected(text)
    assert not cjk_only_run().search(rest)  # every run left the text
    assert rest.replace("|", "") == cjk_only_run().sub("", text)


def _fts5_tokens(text: str) -> Counter[str]:
    """The tokens SQLite's FTS5 (``unicode61``) makes of ``text``."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    con.execute("INSERT INTO t VALUES (?)", (text,))
    found = Counter(term for (term,) in con.execute("SELECT term FROM v"))
    con.close()
    return found


@pytest.mark.parametrize("text", TEXTS)
def test_index_tokens_holds_the_tokens_of_index_text(text: str) -> None:
    # the SQLite engine's order: the rest of the text, then the bigrams, then the characters
    assert _fts5_tokens(index_tokens(text, "\u200b")) == _fts5_tokens(index_text(text, "\u200b"))
    assert index_tokens("停止任务", "|") == "||停止|止任|任务|停|止|任|务|"


def test_latin_text_has_no_cjk_tokens() -> None:
    assert index_tokens("Crème brûlée", "|") == "Crème brûlée"
    assert split_runs("Crème brûlée") == ("Crème brûlée", [])
    assert split_runs("plain ascii") == ("plain ascii", [])


def _tantivy(path: Path) -> LocalTextSearch:
    pytest.importorskip("tantivy")
    return LocalTextSearch(path, engine="tantivy")


DOCS = [
    {"id": "stop", "title": "任务", "text": "点击停止按钮即可停止任务。"},
    {"id": "pip", "title": "Setup", "text": "用 pip install 安装本软件包。"},
    {"id": "en", "title": "Backups", "text": "Backups are kept for thirty days."},
]


def test_tantivy_keeps_cjk_tokens_in_their_own_field(tmp_path: Path) -> None:
    with _tantivy(tmp_path / "kb.sqlite3") as search:
        search.add_documents(DOCS)
        ranker = search._ranker  # type: ignore[attr-defined]
        searcher = ranker._index.searcher()
        assert searcher.doc_freq("cjk", "停止") == 1 and searcher.doc_freq("cjk", "安") == 1
        assert searcher.doc_freq("text", "停止") == 0  # no longer in the text field
        assert searcher.doc_freq("text", "backup") == 1  # Latin words as before: stemmed
        assert searcher.doc_freq("text", "pip") == 1
        assert [d.id for d in search.get_documents_sync("如何停止任务")][:1] == ["stop"]
        assert [d.id for d in search.get_documents_sync("pip 安装")][:1] == ["pip"]
        assert [d.id for d in search.get_documents_sync("install")] == ["pip"]
    pytest.importorskip("tantivy")
    with LocalTextSearch(tmp_path / "all.sqlite3", engine="tantivy", match="all") as every:
        every.add_documents(DOCS)
        assert [d.id for d in every.get_documents_sync("install 安装")] == ["pip"]
        assert [d.id for d in every.get_documents_sync("install 停止")] == []


def test_tantivy_an_index_with_the_old_field_layout_is_read_again_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import tantivy

    db = tmp_path / "kb.sqlite3"
    with _tantivy(db) as first:
        first.add_documents(DOCS)
    # What the last release left: CJK tokens in the text field (its schema had no cjk
    # field) and text version 2.
    sidecar = Path(str(db) + ".tantivy")
    for child in sidecar.iterdir():
        child.unlink()
    old = tantivy.SchemaBuilder()
    old.add_unsigned_field("rowid", indexed=True, fast=True)
    old.add_unsigned_field("doc", indexed=True, fast=True)
    old.add_unsigned_field("gen", fast=True)
    old.add_text_field("text", index_option="position")
    old.add_text_field("filter", tokenizer_name="raw", index_option="basic")
    writer = tantivy.Index(old.build(), path=str(sidecar)).writer()
    writer.commit()
    writer.wait_merging_threads()
    del writer
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE textsearch_meta SET value = '2' WHERE key = 'text_version'")
    con.close()
    caplog.set_level(logging.INFO, logger="textsearch")
    with _tantivy(db) as again:
        assert [d.id for d in again.get_documents_sync("如何停止任务")][:1] == ["stop"]
    # an upgrade, not damage: one warning that says so, none that the sidecar is broken
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "older release" in warnings[0], warnings
    con = sqlite3.connect(db)
    version = con.execute("SELECT value FROM textsearch_meta WHERE key='text_version'")
    assert version.fetchone()[0] == TEXT_VERSION
    con.close()
