"""``evaluate`` gives pytrec_eval's figures on the same run (SciFact and Cranfield, keyword)."""

from __future__ import annotations

from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch.evaluation import evaluate, load_beir

pytrec_eval = pytest.importorskip("pytrec_eval")

DATA = Path(__file__).resolve().parents[3] / "shared" / "relevance"
if not DATA.is_dir():
    DATA = Path("/work/shared/relevance")


@pytest.mark.parametrize("name", ["scifact", "cranfield"])
def test_metrics_match_pytrec_eval(name: str) -> None:
    folder = DATA / name
    if not folder.is_dir():
        pytest.skip(f"no {name} data under {DATA}")
    dataset = load_beir(folder)
    index = LocalTextSearch()
    index.add_documents(dataset.documents())
    k, depth = 10, 100
    report = evaluate(index, dataset, k=k, depth=depth, concurrency=2, progress=False)
    index.close()
    assert len(report.queries) == len(dataset.queries) and not report.failures
    # The run as trec_eval reads it: strictly decreasing scores keep our order.
    run = {
        q.id: {doc: float(depth - rank) for rank, doc in enumerate(q.ranking)}
        for q in report.queries
        if q.ranking
    }
    top_k = {qid: {d: s for d, s in docs.items() if s > depth - k} for qid, docs in run.items()}
    measures = {f"ndcg_cut_{k}", f"recall_{depth}", f"map_cut_{depth}", f"success_{k}"}
    qrels = {qid: dict(judged) for qid, judged in dataset.qrels.items()}
    full = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    within_k = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top_k)
    checked = 0
    for q in report.queries:
        if q.id not in full:
            assert q.scores == dict.fromkeys(q.scores, 0.0)  # no results: 0 everywhere
            continue
        theirs = full[q.id]
        assert q.scores["ndcg"] == pytest.approx(theirs[f"ndcg_cut_{k}"], abs=1e-6)
        assert q.scores["recall"] == pytest.approx(theirs[f"recall_{depth}"], abs=1e-6)
        assert q.scores["map"] == pytest.approx(theirs[f"map_cut_{depth}"], abs=1e-6)
        assert q.scores["hit"] == pytest.approx(theirs[f"success_{k}"], abs=1e-6)
        assert q.scores["mrr"] == pytest.approx(within_k[q.id]["recip_rank"], abs=1e-6)
        checked += 1
    assert checked >= 0.9 * len(report.queries)
    # the means are over every query (none dropped)
    mean_ndcg = sum(full[q][f"ndcg_cut_{k}"] for q in full) / len(report.queries)
    assert report.ndcg == pytest.approx(mean_ndcg, abs=1e-6)
    assert report.ndcg > 0.3  # a real ranking, not an empty one
