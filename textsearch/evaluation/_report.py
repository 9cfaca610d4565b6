"""What an evaluation gives back: per-query figures, means, failures; Markdown and JSON."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from typing import Any

from textsearch.evaluation._metrics import METRICS, metric_label

__all__ = ["EvaluationReport", "QueryResult"]


@dataclass(frozen=True)
class QueryResult:
    """One query's figures.

    Attributes:
        id: The query's id in the set.
        query: Its text.
        scores: Metric name (``ndcg``, ``recall``, ``mrr``, ``hit``, ``map``) → value.
        ranking: The keys the search returned (matched to the judged ids), best first.
        seconds: The search's time (all pages).
        error: Why the search failed (``"ErrorClass: message"``); the scores are then 0.
    """

    id: str
    query: str
    scores: dict[str, float]
    ranking: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None


@dataclass(frozen=True)
class EvaluationReport:
    """The figures of one search on one set.

    Every mean is over every query of the set: a failed query counts 0 (it is listed in
    `failures`, never dropped).

    Attributes:
        name: The search's label.
        dataset: The set's name.
        k: The cut-off of nDCG, MRR and Hit.
        depth: The cut-off of Recall and MAP (results asked for per query).
        queries: One `QueryResult` per query, in the set's order.
        seconds: Wall-clock time of the whole run.
    """

    name: str
    dataset: str
    k: int
    depth: int
    queries: list[QueryResult]
    seconds: float = 0.0

    def mean(self, metric: str) -> float:
        """The mean of ``metric`` over every query (0 for an empty set)."""
        if metric not in METRICS:
            raise KeyError(f"unknown metric {metric!r}; one of {', '.join(METRICS)}")
        return statistics.fmean(q.scores[metric] for q in self.queries) if self.queries else 0.0

    @property
    def ndcg(self) -> float:
        """Mean nDCG@k."""
        return self.mean("ndcg")

    @property
    def recall(self) -> float:
        """Mean Recall@depth."""
        return self.mean("recall")

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank within k."""
        return self.mean("mrr")

    @property
    def hit(self) -> float:
        """Share of queries with a relevant result within k."""
        return self.mean("hit")

    @property
    def map(self) -> float:
        """Mean average precision over the top depth."""
        return self.mean("map")

    @property
    def means(self) -> dict[str, float]:
        """Every metric's mean."""
        return {m: self.mean(m) for m in METRICS}

    @property
    def failures(self) -> list[QueryResult]:
        """The queries whose search failed."""
        return [q for q in self.queries if q.error is not None]

    @property
    def search_seconds(self) -> float:
        """The searches' own time, summed over the queries."""
        return sum(q.seconds for q in self.queries)

    def label(self, metric: str) -> str:
        """The metric's name with its cut-off (``nDCG@10``)."""
        return metric_label(metric, self.k, self.depth)

    def worst(self, count: int = 5, metric: str = "ndcg") -> list[QueryResult]:
        """The ``count`` queries with the lowest ``metric`` (the ones to look at first)."""
        return sorted(self.queries, key=lambda q: q.scores[metric])[:count]

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (what `to_json` writes)."""
        return {
            "name": self.name,
            "dataset": self.dataset,
            "k": self.k,
            "depth": self.depth,
            "queries": len(self.queries),
            "means": {self.label(m): v for m, v in self.means.items()},
            "failures": [{"id": q.id, "query": q.query, "error": q.error} for q in self.failures],
            "seconds": self.seconds,
            "per_query": [
                {"id": q.id, "query": q.query, **q.scores, "error": q.error} for q in self.queries
            ],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The report as JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_markdown(self, *, worst: int = 5) -> str:
        """A table of the means, the failures, and the ``worst`` queries by nDCG."""
        heads = [self.label(m) for m in METRICS]
        lines = [
            f"**{self.name}** on {self.dataset} ({len(self.queries)} queries)",
            "",
            "| " + " | ".join(heads) + " |",
            "|" + "---|" * len(heads),
            "| " + " | ".join(f"{self.mean(m):.3f}" for m in METRICS) + " |",
        ]
        if self.failures:
            lines += ["", f"{len(self.failures)} failed (counted as 0):"]
            lines += [f"- `{q.id}` {q.query[:80]}: {q.error}" for q in self.failures[:20]]
        if worst and self.queries:
            lines += ["", f"Lowest {self.label('ndcg')}:"]
            lines += [
                f"- {q.scores['ndcg']:.3f} `{q.id}` {q.query[:100]}" for q in self.worst(worst)
            ]
        return "\n".join(lines)
