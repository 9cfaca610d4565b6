"""Issue #33 item 3: planning a query is linear in its length, whatever its words.

A query of many distinct words once cost quadratic time (268 KB: 13 s of CPU; 1 MB, under
the MCP body cap: minutes). Costs are compared within one run: a crafted query against a
plain one of the same size, and a plain one against twice its size.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textsearch.connectors.local._query import MAX_QUERY_TERMS, plan_query

SIZE = 100_000  # characters


def _cost(query: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        plan_query(query)
        best = min(best, time.process_time() - started)
    return best


def _sized(make: Callable[[int], str], size: int) -> str:
    n = 1
    while len(make(n)) < size:
        n *= 2
    return make(n)[:size]


def _distinct(n: int) -> str:
    return " ".join(f"w{i}x" for i in range(n))


def _distinct_with_stop_words(n: int) -> str:
    return " ".join(f"the w{i}x of" for i in range(n))


def _distinct_cjk(n: int) -> str:
    return " ".join(chr(0x4E00 + i % 20000) + chr(0x4E00 + (i * 7) % 20000) for i in range(n))


def _plain(n: int) -> str:
    return " ".join(["retry", "policy", "backoff"] * n)


def test_distinct_words_cost_no_more_than_plain_words() -> None:
    plain = _cost(_sized(_plain, SIZE))
    for make in (_distinct, _distinct_with_stop_words, _distinct_cjk):
        crafted = _cost(_sized(make, SIZE))
        # quadratic scanning made the crafted query ~100x the plain one at this size
        assert crafted <= 5 * plain, (make.__name__, crafted, plain)


def test_plain_queries_scale_linearly() -> None:
    small = _cost(_sized(_plain, SIZE))
    large = _cost(_sized(_plain, 4 * SIZE))
    assert large <= 8 * small, (small, large)  # linear: ~4x; quadratic: ~16x


def test_the_plan_keeps_the_first_distinct_words() -> None:
    plan = plan_query(_distinct(10_000))
    assert plan.words == [f"w{i}x" for i in range(MAX_QUERY_TERMS)]
    assert plan_query("to be or not to be").words == ["to", "be", "or", "not"]
    assert plan_query("How do I retry retry safely?").words == ["retry", "safely"]
