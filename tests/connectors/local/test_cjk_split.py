"""CJK tokens as the local engines index them.

tantivy: each CJK run is one value of a field of its own (`_cjk.split_runs`), cut by an
n-gram tokenizer into the tokens of `_cjk.bigrams` (the run's bigrams and characters), so
the text field no longer folds and stems ~400 CJK tokens a passage. SQLite: the runs'
bigrams and the character ending each run after the rest of the text (`_cjk.index_tokens`);
a query's character is a prefix there, which finds it as often as it occurs.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch._cjk import (
    TEXT_VERSION,
    bigrams,
    cjk_only_run,
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


def _letter_runs(text: str) -> list[str]:
    """The CJK runs of ``text`` cut where a character is no letter (as FTS5 cuts them)."""
    return [p for run in cjk_only_run().findall(text) for p in re.split(r"[\W_]+", run) if p]


@pytest.mark.parametrize("text", [*TEXTS, "ア・イ猫は゠ねこ", "か\u3099き"])
def test_index_tokens_are_the_bigrams_and_the_ends_of_runs(text: str) -> None:
    runs = _letter_runs(text)
    expected = Counter(run[k : k + 2] for run in runs for k in range(len(run)))
    tokens = _fts5_tokens(index_tokens(text, "\u200b"))
    latin = _fts5_tokens(cjk_only_run().sub(" ", text))
    assert tokens - latin == expected
    # a query's character is a prefix: the tokens it starts number its occurrences
    for char in set("".join(runs)):
        assert sum(n for t, n in tokens.items() if t.startswith(char) and not t.isascii()) == sum(
            run.count(char) for run in runs
        )
    assert index_tokens("停止任务", "|") == "||停止|止任|任务|务||"


def test_the_sqlite_engine_finds_a_character_wherever_a_run_holds_it() -> None:
    search = LocalTextSearch(engine="sqlite")
    search.add_documents(
        [
            {"id": "start", "text": "猫很可爱"},
            {"id": "middle", "text": "我的猫在睡觉"},
            {"id": "end", "text": "我喜欢猫"},
            {"id": "alone", "text": "猫"},
            {"id": "none", "text": "狗在睡觉"},
        ]
    )
    found = {r.id for r in search.get_search_results_sync("猫", top=10).results}
    assert found == {"start", "middle", "end", "alone"}
    # ranked by how often: a passage saying it twice first
    search.add_documents([{"id": "twice", "text": "猫和猫"}])
    assert search.get_search_results_sync("猫", top=1).results[0].id == "twice"


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


def test_sqlite_an_index_of_text_version_3_is_read_again_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="sqlite") as first:
        first.add_documents([{"id": "cat", "text": "我喜欢猫"}])
    # What release 3 left: lone characters in the FTS5 index and no bigram-led prefix of them
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE textsearch_meta SET value = '3' WHERE key = 'text_version'")
        con.execute("INSERT INTO passages_fts(passages_fts) VALUES ('delete-all')")
    con.close()
    caplog.set_level(logging.INFO, logger="textsearch")
    with LocalTextSearch(db, engine="sqlite") as again:
        assert [d.id for d in again.get_documents_sync("猫")] == ["cat"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "older release" in warnings[0], warnings
    con = sqlite3.connect(db)
    version = con.execute("SELECT value FROM textsearch_meta WHERE key='text_version'")
    assert version.fetchone()[0] == TEXT_VERSION == "4"
    con.close()


def test_tantivy_an_index_of_text_version_3_is_not_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("tantivy")
    db = tmp_path / "kb.sqlite3"
    with _tantivy(db) as first:
        first.add_documents(DOCS)
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE textsearch_meta SET value = '3' WHERE key = 'text_version'")
    con.close()
    caplog.set_level(logging.INFO, logger="textsearch")
    with _tantivy(db) as again:  # version 4 changed the SQLite engine's tokens only
        assert [d.id for d in again.get_documents_sync("如何停止任务")][:1] == ["stop"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
