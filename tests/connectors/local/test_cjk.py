"""Chinese and Japanese questions find their passages in every keyword path (DESIGN §12.2).

Natural questions, written without spaces as a user types them, against the local index on
both engines (the stores: test_cjk_stores.py).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.connectors._cjk_docs import DOCS, QUESTIONS
from tests.connectors._local_engines import local_engine  # noqa: F401 - both engines
from textsearch import LocalTextSearch
from textsearch._cjk import TEXT_VERSION, bigrams, index_text
from textsearch.connectors.local._query import plan_query

# -- segmentation -------------------------------------------------------------------------


def test_a_cjk_run_becomes_bigrams_and_characters() -> None:
    assert bigrams("停止任务") == ["停止", "止任", "任务", "停", "止", "任", "务"]
    assert bigrams("用") == ["用"]
    assert index_text("用 pip install 安装") == " 用  pip install  安装 安 装 "
    assert index_text("Crème brûlée") == "Crème brûlée"  # Latin text untouched


def test_a_question_is_planned_as_the_words_the_index_holds() -> None:
    plan = plan_query("如何停止任务 with retries")
    assert "停止" in plan.words and "任务" in plan.words and "retries" in plan.words
    assert "with" not in plan.words  # English stop words still left out
    assert all(t.startswith('"') and t.endswith('"') for t in plan.terms)


def test_a_huge_cjk_query_is_planned_in_linear_time_and_bounded() -> None:
    plan = plan_query("数据" * 50_000)
    assert len(plan.terms) <= 96


# -- the local index, both engines ---------------------------------------------------------


@pytest.mark.parametrize(("question", "expected"), QUESTIONS)
def test_local_natural_questions_find_their_passage(question: str, expected: str) -> None:
    search = LocalTextSearch()
    search.add_documents(DOCS)
    found = search.get_documents_sync(question, top=3)
    assert found and found[0].id == expected


def test_local_match_all_and_any_rank_cjk_words_like_other_words() -> None:
    search = LocalTextSearch()
    search.add_documents(DOCS)
    # any: a passage with some of the words is found; the one with more of them ranks first
    found = [d.id for d in search.get_documents_sync("停止任务 备份", top=5)]
    assert found[:1] in (["stop-job"], ["backup"]) and {"stop-job", "backup"} <= set(found)
    every = LocalTextSearch(match="all")
    every.add_documents(DOCS)
    assert [d.id for d in every.get_documents_sync("停止按钮")] == ["stop-job"]


def test_local_highlight_marks_the_word_not_the_whole_run() -> None:
    search = LocalTextSearch(highlight=("[", "]"))
    search.add_documents(DOCS)
    snippet = search.search_sync("备份保留多久")[0]
    assert "[备份]" in snippet and "[保留]" in snippet
    assert "[数据库每天" not in snippet  # the run around the hit stays unmarked
    assert "\u200b" not in snippet
    ja = search.search_sync("ジョブを停止")[0]
    assert "[停止]" in ja and "[ジョブ]" in ja


def test_local_an_index_of_an_older_release_is_read_again_once(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db) as first:
        first.add_documents(DOCS)
        engine = first.engine
    # What an older release left: its own CJK tokens (here: none), no text_version.
    con = sqlite3.connect(db)
    with con:
        if engine == "sqlite":
            con.execute("INSERT INTO passages_fts(passages_fts) VALUES ('delete-all')")
        con.execute("DELETE FROM textsearch_meta WHERE key = 'text_version'")
    con.close()
    with LocalTextSearch(db) as again:
        assert again.get_documents_sync("如何停止任务")[0].id == "stop-job"
    con = sqlite3.connect(db)
    version = con.execute("SELECT value FROM textsearch_meta WHERE key='text_version'")
    assert version.fetchone()[0] == TEXT_VERSION
    con.close()
