"""Chinese and Japanese questions find their passages in every keyword path (DESIGN §12.2).

Natural questions, written without spaces as a user types them, against the local index on
both engines (the stores: test_cjk_stores.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from tests.connectors._cjk_docs import DOCS, QUESTIONS
from tests.connectors._local_engines import local_engine  # noqa: F401 - both engines
from textsearch import LocalTextSearch
from textsearch._cjk import TEXT_VERSION, bigrams, index_text, query_terms
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
    # quoted; a lone CJK character a prefix (the SQLite engine indexes bigrams and run ends)
    assert all(t.startswith('"') and t.endswith(('"', '"*')) for t in plan.terms)
    assert '"停止"' in plan.terms and '"停"*' in plan.terms and '"retries"' in plan.terms


def test_a_question_leaves_out_its_grammar_not_its_topic() -> None:
    terms = query_terms("黑豹队的防守丢了多少分")
    assert {"黑豹", "防守", "队的", "黑", "分"} <= set(terms)  # topic, and bigrams around 的
    assert not {"的", "了", "多少", "了多"} & set(terms)  # question grammar only
    assert "谁为" not in query_terms("本赛季谁为球队贡献")  # a bigram holding a question word
    assert query_terms("什么") == []
    # a query of nothing but question grammar still searches for it
    assert plan_query("什么是").words == ["什么", "么是", "什", "么", "是"]
    assert "什么" not in plan_query("什么是黑豹队").words


def test_a_cjk_term_the_question_repeats_weighs_as_often() -> None:
    plan = plan_query("黑豹队和野马队")
    assert plan.words.count("队") == 1 and plan.ranked.count("队") == 2
    assert plan.terms.count('"队"*') == 2
    assert plan_query("队" * 10 + " x").ranked.count("队") == 3  # bounded
    latin = plan_query("retry retry safely")
    assert latin.ranked == latin.words == ["retry", "safely"]  # Latin words unchanged


def test_local_a_question_repeating_a_term_ranks_on_both_engines() -> None:
    search = LocalTextSearch()
    search.add_documents(
        [
            {"id": "one", "text": "球队的训练安排在周一。"},
            {"id": "two", "text": "黑豹队和野马队的比赛在周日。"},
        ]
    )
    assert [d.id for d in search.get_documents_sync("黑豹队和野马队", top=2)] == ["two", "one"]
    every = LocalTextSearch(match="all")
    every.add_documents([{"id": "two", "text": "黑豹队和野马队的比赛在周日。"}])
    assert [d.id for d in every.get_documents_sync("黑豹队和野马队")] == ["two"]


_FILLER = [
    "今天天气晴朗，适合出门散步。",
    "数据库支持全文检索和向量检索。",
    "这本书讲述了一段古老的历史。",
    "城市的交通在早上非常拥挤。",
    "他在花园里种了很多花。",
    "音乐会在晚上八点开始。",
]


def test_sqlite_a_cjk_passage_holding_more_of_the_words_outranks_one_repeating_one() -> None:
    # FTS5's k1 (1.2) lets six times one bigram outrank three words of the question held
    # once each; a CJK query ranks with k1 0.72 (`_BM25_CJK`), so holding more words wins.
    search = LocalTextSearch(engine="sqlite")
    search.add_documents(
        [
            {"id": "again", "text": "防守" * 6 + "。"},
            {"id": "more", "text": "黑豹与防线。"},
            *({"id": f"f{n}", "text": text} for n, text in enumerate(_FILLER)),
        ]
    )
    assert plan_query("黑豹队的防守怎么样").cjk and not plan_query("how to defend").cjk
    assert [d.id for d in search.get_documents_sync("黑豹队的防守怎么样", top=2)] == [
        "more",
        "again",
    ]
    # a query without CJK words ranks as before: the passage repeating the word first
    english = LocalTextSearch(engine="sqlite")
    english.add_documents(
        [
            {"id": "again", "text": "defense " * 6},
            {"id": "more", "text": "panthers and lines"},
            *({"id": f"f{n}", "text": f"filler text number {n}"} for n in range(6)),
        ]
    )
    assert english.get_documents_sync("panthers team defense", top=1)[0].id == "again"


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


# -- hybrid fusion of a CJK query ---------------------------------------------------------


def test_a_cjk_query_blends_standardized_scores() -> None:
    from textsearch.connectors.local._hybrid import fuse

    # 1 and 2 lead the keyword list, whose tail is long and flat; 3 leads the meaning list
    # by far. Scaled 0..1, the keyword leader wins; standardized, 3 does.
    keyword = [(1, 9.0), (2, 8.0), (3, 2.0), (4, 1.9), (5, 1.8), (6, 1.7), (7, 1.6), (8, 1.5)]
    meaning = [(3, 0.95), (1, 0.80), (4, 0.79), (5, 0.78), (6, 0.77), (7, 0.76), (8, 0.75)]
    table = {**dict(meaning), 2: 0.74}

    def cosine(rowids: list[int]) -> list[float | None]:
        return [table.get(r) for r in rowids]

    assert fuse(keyword, meaning, cosine, "blend")[0][0] == 1
    fused = fuse(keyword, meaning, cosine, "blend", standard=True)
    assert [rowid for rowid, _ in fused[:2]] == [3, 1]
    assert {rowid for rowid, _ in fused} == set(range(1, 9))  # every passage of either arm
    assert fuse(keyword, meaning, cosine, "rrf", standard=True) == fuse(
        keyword, meaning, cosine, "rrf"
    )  # reciprocal rank fusion has no scores to scale


def test_local_hybrid_standardizes_only_a_cjk_query_on_both_engines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import textsearch.connectors.local._hybrid as hybrid
    from tests.connectors.vectors._support import CountingEmbedder

    seen: list[bool] = []
    real = hybrid.fuse

    def recording(
        keyword: list[tuple[int, float]],
        semantic: list[tuple[int, float]],
        cosines_of: Callable[[list[int]], list[float | None]],
        method: Literal["blend", "rrf"],
        standard: bool = False,
    ) -> list[tuple[int, float]]:
        seen.append(standard)
        return real(keyword, semantic, cosines_of, method, standard=standard)

    monkeypatch.setattr(hybrid, "fuse", recording)
    search = LocalTextSearch(embedder=CountingEmbedder(), mode="hybrid")  # both engines
    search.add_documents([{"id": "zh", "text": "黑豹队的防守"}, {"id": "en", "text": "defense"}])
    search.get_documents_sync("黑豹队的防守怎么样")
    search.get_documents_sync("panthers defense")
    assert seen == [True, False]
