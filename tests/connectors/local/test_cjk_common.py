"""A Chinese question leaves out the CJK characters most passages hold (issue #31).

Its bigrams carry the meaning; a common character adds next to nothing to BM25 and costs
either engine a long list of postings. It goes only when the words that stay fill the page.
"""

from __future__ import annotations

import pytest

import textsearch.connectors.local._query as query_module
from tests.connectors._local_engines import local_engine  # noqa: F401 - both engines
from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.connectors.local._query import cjk_characters, plan_query, rare_cjk


def test_only_a_plan_with_cjk_characters_is_looked_at() -> None:
    # German or Spanish words (not ASCII, not CJK) and CJK bigrams alone cost no look-up
    assert not cjk_characters(["über", "straße", "niño", "大熊"])
    assert cjk_characters(["大熊", "大"])
    assert not cjk_characters(plan_query("Wie lange läuft die Übertragung?").words)


def test_rare_cjk_leaves_out_only_common_characters_when_the_rest_fill_the_page() -> None:
    held = {"大熊": 12, "熊猫": 12, "大": 5000, "熊": 12, "猫": 3000, "panda": 9000}
    words = ["大熊", "熊猫", "大", "熊", "猫", "panda", "大"]
    # past the share of 100,000 passages (2,500) and the floor: 大 and 猫 are common
    assert rare_cjk(words, held.__getitem__, 100_000, 10) == ["大熊", "熊猫", "熊", "panda"]
    # the rest must fill the page: 12 passages do not fill 20 results
    words = ["大熊", "熊猫", "大", "熊", "猫"]
    assert rare_cjk(words, held.__getitem__, 100_000, 20) == words
    assert rare_cjk(words, held.__getitem__, 100_000, 12) == ["大熊", "熊猫", "熊"]
    # a smaller index has a lower limit, never under the floor: 猫 (3,000) is then rare
    limit = query_module.cjk_common_limit(1000)
    assert limit == query_module.CJK_COMMON_FLOOR
    assert rare_cjk(["熊猫", "猫"], {"熊猫": 12, "猫": limit}.__getitem__, 1000, 10) == [
        "熊猫",
        "猫",
    ]
    # bigrams and Latin words are never left out, however common
    assert rare_cjk(["大熊", "熊猫"], {"大熊": 10**6, "熊猫": 12}.__getitem__, 100, 1) == [
        "大熊",
        "熊猫",
    ]


@pytest.fixture
def pandas(monkeypatch: pytest.MonkeyPatch) -> LocalTextSearch:
    monkeypatch.setattr(query_module, "CJK_COMMON_FLOOR", 20)
    monkeypatch.setattr(query_module, "CJK_COMMON_SHARE", 0.0)
    search = LocalTextSearch()
    search.add_documents(
        {"id": f"u{i}", "text": f"大学生活很有趣，第{i}年", "metadata": {"tag": "u"}}
        for i in range(40)
    )
    search.add_documents({"id": f"p{i}", "text": f"大熊猫吃竹子，编号{i}"} for i in range(12))
    return search


def test_a_common_character_is_left_out_and_the_page_is_the_same(
    pandas: LocalTextSearch,
) -> None:
    page = pandas.get_search_results_sync("大熊猫吃什么", top=5)
    assert len(page) == 5 and all(d.id.startswith("p") for d in page)
    if pandas.engine == "sqlite":  # FTS5 says what it left out; tantivy's plan is its own
        assert page.metadata.get("left_out") == ["大"]
    else:
        ranker = pandas._tantivy()
        words = plan_query("大熊猫吃什么").ranked
        assert '"大"' not in repr(ranker.query(words, "any", None, 8))
        assert '"大"' in repr(ranker.query(words, "any", None, 0))  # no depth: every word
        assert '"大"' in repr(ranker.query(words, "all", None, 8))  # every word must match
    # a deeper page than the rare words fill keeps the common character: nothing is lost
    deep = pandas.get_search_results_sync("大熊猫吃什么", top=30)
    assert "left_out" not in deep.metadata
    assert [d.id[0] for d in deep][:12] == ["p"] * 12 and len(deep) == 30


def test_a_filtered_or_latin_query_keeps_every_word(pandas: LocalTextSearch) -> None:
    only_u = TextSearchFilter().equal_to("tag", "u")
    found = pandas.get_search_results_sync("大熊猫", top=5, filter=only_u)
    assert len(found) == 5 and all(d.id.startswith("u") for d in found)
    assert "left_out" not in found.metadata
    pandas.add_documents({"id": f"e{i}", "text": f"common words {i}"} for i in range(30))
    latin = pandas.get_search_results_sync("common words", top=3)
    assert len(latin) == 3 and "left_out" not in latin.metadata
