"""How good is a search? Golden questions or a BEIR set, the usual metrics, a fair comparison.

No extra dependency: the metrics are computed here, the same figures trec_eval and
pytrec_eval give on the same ranking (DESIGN §12.4).

* `load_beir` reads a BEIR folder (``corpus.jsonl[.gz]``, ``queries.jsonl``,
  ``qrels/<split>.tsv``); `load_golden` reads golden questions (JSONL:
  ``{"query", "relevant": [ids or links], "id"?}``).
* `evaluate` runs every query and gives an `EvaluationReport`: nDCG@k, Recall@depth,
  MRR@k, Hit@k, MAP@depth per query and on average; failures listed, counted 0.
* `compare` evaluates several searches and tests each against the first with a paired
  randomization test (a `Comparison`); both have ``to_markdown()`` and ``to_json()``.

::

    from textsearch import LocalTextSearch
    from textsearch.evaluation import compare, load_golden

    golden = load_golden("golden.jsonl")
    keyword = LocalTextSearch("docs.db", mode="keyword")
    print(compare({"keyword": keyword, "hybrid": hybrid}, golden, match="link").to_markdown())
"""

from __future__ import annotations

from textsearch.evaluation._compare import Comparison, compare, randomization_test
from textsearch.evaluation._data import EvaluationSet, load_beir, load_golden
from textsearch.evaluation._metrics import METRICS, score_ranking
from textsearch.evaluation._report import EvaluationReport, QueryResult
from textsearch.evaluation._run import evaluate

__all__ = [
    "METRICS",
    "Comparison",
    "EvaluationReport",
    "EvaluationSet",
    "QueryResult",
    "compare",
    "evaluate",
    "load_beir",
    "load_golden",
    "randomization_test",
    "score_ranking",
]
