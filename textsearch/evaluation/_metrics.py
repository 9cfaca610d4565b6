"""Per-query metrics, computed as trec_eval computes them.

A ranking is a list of document keys, best first, each once. A grade of 1 or more is
relevant (trec_eval's default relevance level); nDCG's gain is the grade itself, its
discount ``log2(rank + 1)``, and the ideal ranking is the query's judged grades sorted.

* ``ndcg`` — nDCG@k (trec_eval ``ndcg_cut_k``).
* ``recall`` — Recall@depth (``recall_depth``).
* ``mrr`` — reciprocal rank of the first relevant result within k (``recip_rank`` of the
  top k).
* ``hit`` — 1 when a relevant result is within k (``success_k``).
* ``map`` — average precision over the top depth (``map_cut_depth``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

__all__ = ["METRICS", "metric_label", "score_ranking"]

#: The metrics of every report, in the order they are shown.
METRICS: Final = ("ndcg", "recall", "mrr", "hit", "map")

_DISCOUNTS: list[float] = [1.0 / math.log2(i + 2) for i in range(1000)]


def _discount(i: int) -> float:
    return _DISCOUNTS[i] if i < len(_DISCOUNTS) else 1.0 / math.log2(i + 2)


def metric_label(name: str, k: int, depth: int) -> str:
    """How a metric is named in reports: ``nDCG@10``, ``Recall@100``..."""
    return {
        "ndcg": f"nDCG@{k}",
        "recall": f"Recall@{depth}",
        "mrr": f"MRR@{k}",
        "hit": f"Hit@{k}",
        "map": f"MAP@{depth}",
    }[name]


def score_ranking(
    ranking: Sequence[str], judged: Mapping[str, int], k: int, depth: int
) -> dict[str, float]:
    """The five metrics of one query's ranking (see the module's list)."""
    relevant = sum(1 for grade in judged.values() if grade >= 1)
    dcg = 0.0
    first: int | None = None
    found = 0
    precision_sum = 0.0
    for i, key in enumerate(ranking[: max(k, depth)]):
        grade = judged.get(key, 0)
        if grade < 1:
            continue
        if i < k:
            dcg += grade * _discount(i)
            if first is None:
                first = i
        if i < depth:
            found += 1
            precision_sum += found / (i + 1)
    ideal = sorted((g for g in judged.values() if g >= 1), reverse=True)[:k]
    idcg = sum(g * _discount(i) for i, g in enumerate(ideal))
    return {
        "ndcg": dcg / idcg if idcg else 0.0,
        "recall": found / relevant if relevant else 0.0,
        "mrr": 1.0 / (first + 1) if first is not None else 0.0,
        "hit": 1.0 if first is not None else 0.0,
        "map": precision_sum / relevant if relevant else 0.0,
    }


def zero_scores() -> dict[str, float]:
    """Every metric at 0 (a query that failed)."""
    return dict.fromkeys(METRICS, 0.0)
