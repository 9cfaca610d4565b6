"""evaluate, compare and the loaders on small hand-made sets (exact figures worked by hand)."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import pytest

from textsearch import LocalTextSearch, RerankedTextSearch
from textsearch.errors import ConfigurationError, ServiceUnavailableError
from textsearch.evaluation import (
    EvaluationSet,
    compare,
    evaluate,
    load_beir,
    load_golden,
    randomization_test,
    score_ranking,
)
from textsearch.rerank import FunctionReranker
from textsearch.testing import StaticTextSearch


def test_score_ranking_by_hand() -> None:
    judged = {"a": 2, "b": 1, "z": 0, "c": 1}
    got = score_ranking(["x", "a", "z", "b"], judged, k=3, depth=10)
    dcg = 2 / math.log2(3)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert got["ndcg"] == pytest.approx(dcg / idcg)
    assert got["recall"] == pytest.approx(2 / 3)  # a and b of a, b, c (z is judged 0)
    assert got["mrr"] == pytest.approx(1 / 2) and got["hit"] == 1.0
    assert got["map"] == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert score_ranking([], judged, 10, 100) == dict.fromkeys(got, 0.0)


class Flaky(StaticTextSearch):
    def _fetch_sync(self, query: str, options: Any) -> Any:
        if "broken" in query:
            raise ServiceUnavailableError("503 from upstream", provider="flaky")
        return super()._fetch_sync(query, options)


DOCS = [
    {"name": "Retry", "value": "retry with backoff", "link": "https://d.example/retry#policy"},
    {"name": "Cache", "value": "cache five minutes", "link": "https://d.example/cache"},
    {
        "name": "Retry again",
        "value": "retry budget backoff",
        "link": "https://d.example/retry#budget",
    },
]


def test_failures_count_zero_and_links_match_pages(tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    lines = [
        {"query": "retry backoff", "relevant": ["https://d.example/retry"]},
        {"query": "cache", "relevant": {"https://d.example/cache": 2}, "id": "c"},
        {"query": "broken retry", "relevant": ["https://d.example/retry"]},
    ]
    golden.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    dataset = load_golden(golden)
    assert list(dataset.queries) == ["1", "c", "3"]
    ticks: list[tuple[int, int]] = []
    report = evaluate(Flaky(DOCS, match="any"), dataset, match="link",
                      progress=lambda done, total: ticks.append((done, total)))  # fmt: skip
    first, second, third = report.queries
    assert first.ranking[0] == "https://d.example/retry"  # two sections, one judged page
    assert first.ranking.count("https://d.example/retry") == 1
    assert first.scores["ndcg"] == 1.0 and second.scores["ndcg"] == 1.0
    assert third.error is not None and "ServiceUnavailableError" in third.error
    assert third.scores == dict.fromkeys(third.scores, 0.0)
    assert report.ndcg == pytest.approx(2 / 3) and len(report.failures) == 1
    assert ticks[-1] == (3, 3)
    markdown = report.to_markdown()
    assert "nDCG@10" in markdown and "1 failed" in markdown and "broken retry" in markdown
    data = json.loads(report.to_json())
    assert data["means"]["nDCG@10"] == pytest.approx(2 / 3) and data["failures"][0]["id"] == "3"


def test_ids_relative_paths_and_paging_beyond_max_top(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(30):
        extra = " zebra" if i == 7 else ""
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\nshared words and page {i}{extra}\n")
    index = LocalTextSearch()
    index.index_path(docs)
    dataset = EvaluationSet("pages", {"q": "shared words zebra"}, {"q": {"page7.md": 1}})
    index.max_top = 8  # type: ignore[misc]
    report = evaluate(index, dataset, depth=25, concurrency=1, progress=False)
    (only,) = report.queries
    assert len(only.ranking) == 25 and only.scores["recall"] == 1.0  # found across pages
    assert only.ranking[0] == "page7.md"  # the absolute id matched the relative judged path


def test_reranked_results_are_keyed_by_the_first_stage_id() -> None:
    inner = StaticTextSearch(DOCS, match="always")

    class Ids(StaticTextSearch):
        pass

    reranked = RerankedTextSearch(inner, FunctionReranker(lambda q, t: [0.0, 1.0, 2.0], model="m"),
                                  depth=3)  # fmt: skip
    dataset = EvaluationSet("d", {"q": "x"}, {"q": {"https://d.example/cache": 1}})
    base = evaluate(inner, dataset, match="link", progress=False)
    assert base.queries[0].scores["mrr"] == pytest.approx(1 / 2)
    report = evaluate(reranked, dataset, match=lambda r: r.link.split("#")[0], progress=False)
    assert report.queries[0].ranking == ["https://d.example/retry", "https://d.example/cache"]
    assert report.mrr == pytest.approx(1 / 2)


def test_randomization_test_is_seeded_and_sensible() -> None:
    same = [0.5] * 50
    assert randomization_test(same, same) == 1.0
    better = [0.1 * (i % 5) for i in range(60)]
    much = [v + 0.3 for v in better]
    p = randomization_test(better, much, permutations=2000, seed=1)
    assert p < 0.001 and p == randomization_test(better, much, permutations=2000, seed=1)
    noisy = [v + (0.05 if i % 2 else -0.05) for i, v in enumerate(better)]
    assert randomization_test(better, noisy, permutations=2000) > 0.5
    with pytest.raises(ConfigurationError):
        randomization_test([1.0], [1.0, 2.0])


def test_compare_table_and_json() -> None:
    docs = [{"name": f"d{i}", "value": f"word{i} common", "link": f"https://x/{i}"}
            for i in range(20)]  # fmt: skip
    queries = {str(i): f"word{i}" for i in range(20)}
    qrels = {str(i): {f"https://x/{i}": 1} for i in range(20)}
    dataset = EvaluationSet("toy", queries, qrels)
    good = StaticTextSearch(docs, match="any")
    reversed_ = RerankedTextSearch(StaticTextSearch(docs, match="always"),
                                   FunctionReranker(lambda q, t: [-float(i) for i in range(len(t))],
                                                    model="first-wins"), depth=20)  # fmt: skip
    result = compare({"good": good, "bad": reversed_}, dataset, match="link",
                     permutations=500, progress=False)  # fmt: skip
    assert result.reports["good"].ndcg == 1.0 and result.reports["bad"].ndcg < 0.5
    assert result.p_values["bad"]["ndcg"] < 0.01
    table = result.to_markdown()
    assert "| good |" in table and "(p=" in table and "**" in table
    data = json.loads(result.to_json())
    assert data["baseline"] == "good" and data["searches"][1]["p_values"]["nDCG@10"] < 0.01


def test_load_beir_and_golden_errors(tmp_path: Path) -> None:
    root = tmp_path / "set"
    (root / "qrels").mkdir(parents=True)
    with gzip.open(root / "corpus.jsonl.gz", "wt", encoding="utf-8") as out:
        out.write(json.dumps({"_id": "d1", "title": "T", "text": "body"}) + "\n")
    (root / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "body?"}) + "\n" + json.dumps({"_id": "q9", "text": "x"})
    )
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\n")
    dataset = load_beir(root)
    assert dataset.queries == {"q1": "body?"} and dataset.qrels == {"q1": {"d1": 2}}
    assert list(dataset.documents()) == [{"id": "d1", "title": "T", "text": "body"}]
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\thigh\n")
    with pytest.raises(ConfigurationError, match="grade"):
        load_beir(root)
    with pytest.raises(ConfigurationError, match="qrels/dev.tsv"):
        load_beir(root, split="dev")
    with pytest.raises(ConfigurationError):
        load_beir(tmp_path / "nowhere")
    bad = tmp_path / "bad.jsonl"
    for text, match in (("{not json", "not JSON"), ('{"query": "q"}', "relevant"),
                        ('{"relevant": ["a"]}', "query"), ("", "no questions")):  # fmt: skip
        bad.write_text(text)
        with pytest.raises(ConfigurationError, match=match):
            load_golden(bad)
    with pytest.raises(ConfigurationError):
        evaluate(StaticTextSearch(DOCS), dataset, k=0)
