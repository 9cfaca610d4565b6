"""``evaluate``: run every query of a set through a search and score the rankings."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Literal, TextIO

from textsearch.base import TextSearch
from textsearch.errors import ConfigurationError
from textsearch.evaluation._data import EvaluationSet
from textsearch.evaluation._metrics import score_ranking, zero_scores
from textsearch.evaluation._report import EvaluationReport, QueryResult

__all__ = ["Progress", "evaluate"]

Match = Literal["id", "link"] | Callable[[Any], "str | None"]
Progress = Callable[[int, int], None]

#: Seconds between two progress lines on stderr (the first after as long).
PROGRESS_EVERY = 5.0


#: Per result type: whether it wraps a first-stage result (asked once per type: a failed
#: attribute look-up on a pydantic model costs more than the rest of a query's scoring).
_WRAPS: dict[type, bool] = {}


def _wraps(native: Any) -> bool:
    kind = type(native)
    found = _WRAPS.get(kind)
    if found is None:
        found = _WRAPS[kind] = hasattr(native, "text_search_result") and hasattr(native, "result")
    return found


def _unwrap(native: Any) -> Any:
    """The first-stage result inside a composed one (`RerankedResult`, `FusedResult`)."""
    seen = 0
    while seen < 8 and _wraps(native):
        native = native.result
        seen += 1
    return native


def _link_of(native: Any) -> str | None:
    link = getattr(native, "link", None)
    if isinstance(link, str):
        return link
    text = getattr(native, "text_search_result", None)
    return getattr(text, "link", None)


def _matcher(judged: Mapping[str, int]) -> Callable[[str], str]:
    """Maps a result's key to the judged key it stands for (else itself).

    Exact first; then the key without its ``#fragment`` (a page judged relevant as a
    whole); then a judged relative path the key ends with (``guide.md`` for
    ``/home/me/docs/guide.md``).
    """
    relative = [j for j in judged if "://" not in j and not j.startswith("/")]

    def match(key: str) -> str:
        if key in judged:
            return key
        page = key.split("#", 1)[0]
        if page in judged:
            return page
        for candidate in relative:
            tail = "/" + candidate
            if key.endswith(tail) or page.endswith(tail):
                return candidate
        return key

    return match


class _Runner:
    """One evaluation's settings: how to search a query and key its results."""

    def __init__(self, search: TextSearch, k: int, depth: int, match: Match) -> None:
        self.search = search
        self.k = k
        self.depth = depth
        self.match = match
        top = getattr(search, "max_top", None)
        limit = top if isinstance(top, int) and not isinstance(top, bool) and top >= 1 else 50
        self.page = min(depth, limit)

    def _keys(self, query: str, top: int, skip: int) -> tuple[list[str | None], int]:
        if self.match == "link":
            texts = self.search.get_text_search_results_sync(query, top=top, skip=skip)
            return [t.link for t in texts.results], len(texts.results)
        natives = self.search.get_search_results_sync(query, top=top, skip=skip)
        if callable(self.match):
            keys = [self.match(n) for n in natives.results]
        else:
            keys = []
            for native in natives.results:
                inner = _unwrap(native)
                found = getattr(inner, "id", None)
                keys.append(str(found) if found is not None else _link_of(inner))
        return keys, len(natives.results)

    def ranking(self, query: str, judged: Mapping[str, int]) -> list[str]:
        match = _matcher(judged)
        seen: set[str] = set()
        ranking: list[str] = []
        skip = 0
        while skip < self.depth:
            top = min(self.page, self.depth - skip)
            keys, count = self._keys(query, top, skip)
            for key in keys:
                if key is None:
                    key = f"\x00unkeyed-{skip}-{len(ranking)}"  # never judged, never merged
                else:
                    key = match(key)
                if key not in seen:  # several passages of one document count once
                    seen.add(key)
                    ranking.append(key)
            skip += count
            if count < top:
                break  # a short page: nothing more to fetch
        return ranking

    def one(self, qid: str, query: str, judged: Mapping[str, int]) -> QueryResult:
        started = time.perf_counter()
        try:
            ranking = self.ranking(query, judged)
        except Exception as exc:  # a failing query is reported and counts 0, never dropped
            from textsearch._http._redact import scrub

            return QueryResult(
                qid, query, zero_scores(), [], time.perf_counter() - started,
                f"{type(exc).__name__}: {scrub(str(exc))[:300]}",
            )  # fmt: skip
        seconds = time.perf_counter() - started
        return QueryResult(qid, query, score_ranking(ranking, judged, self.k, self.depth),
                           ranking, seconds)  # fmt: skip


class _Ticker:
    """Progress: a callback, or a line on a stream every few seconds of a long run."""

    def __init__(self, progress: Progress | bool | None, total: int, label: str) -> None:
        self.callback = progress if callable(progress) else None
        self.stream: TextIO | None = None if progress is False or self.callback else sys.stderr
        self.total = total
        self.label = label
        self.started = time.monotonic()
        self.next_line = self.started + PROGRESS_EVERY
        self.lock = threading.Lock()

    def __call__(self, done: int) -> None:
        if self.callback is not None:
            self.callback(done, self.total)
            return
        if self.stream is None:
            return
        now = time.monotonic()
        if now >= self.next_line or (done == self.total and now - self.started >= PROGRESS_EVERY):
            self.next_line = now + PROGRESS_EVERY
            rate = done / max(now - self.started, 1e-9)
            left = (self.total - done) / rate if rate else 0.0
            print(
                f"textsearch eval: {self.label}: {done}/{self.total} queries "
                f"({now - self.started:.0f} s, ~{left:.0f} s left)",
                file=self.stream,
                flush=True,
            )


def _check(k: object, depth: object, concurrency: object, match: object) -> None:
    for name, value in (("k", k), ("depth", depth), ("concurrency", concurrency)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"{name}= must be a whole number >= 1, got {value!r}")
    if not callable(match) and match not in ("id", "link"):
        raise ConfigurationError(f"match= must be 'id', 'link' or a callable, got {match!r}")


def evaluate(
    search: TextSearch,
    dataset: EvaluationSet,
    *,
    k: int = 10,
    depth: int = 100,
    concurrency: int = 4,
    match: Match = "id",
    name: str | None = None,
    progress: Progress | bool | None = None,
) -> EvaluationReport:
    """Search every query of ``dataset`` and score the rankings.

    Each query asks for ``depth`` results (in pages of the search's ``max_top`` when that
    is smaller), through the blocking methods, ``concurrency`` queries at a time (worker
    threads). A document returned more than once (several passages) counts once, at its
    best rank. The figures are those of trec_eval / pytrec_eval on the same ranking:
    ``ndcg`` (``ndcg_cut_k``), ``recall`` (``recall_depth``), ``mrr`` (``recip_rank``
    within k), ``hit`` (``success_k``) and ``map`` (``map_cut_depth``).

    Args:
        search: Any `TextSearch` (a connector, a `RerankedTextSearch`, a fused search...).
        dataset: From `load_beir` or `load_golden` (or built by hand).
        k: Cut-off of nDCG, MRR and Hit.
        depth: Results per query; the cut-off of Recall and MAP.
        concurrency: Queries searched at once.
        match: ``"id"`` compares each native result's ``id`` (inside a reranked or fused
            result, the first stage's) with the judged ids; ``"link"`` compares links; a
            callable maps a native result to its key. Either way a key also matches a
            judged page by its link without ``#fragment``, and a judged relative path it
            ends with.
        name: The search's label in the report (default: its class name).
        progress: A callable ``progress(done, total)``, ``False`` for silence, or ``None``
            (default) for a line on stderr every few seconds once a run takes that long.

    Returns:
        The `EvaluationReport`: a failing query is listed there and counts 0 in every mean.

    Raises:
        ConfigurationError: ``k``, ``depth`` or ``concurrency`` below 1, or a bad ``match``.
    """
    _check(k, depth, concurrency, match)
    runner = _Runner(search, k, depth, match)
    label = name or type(search).__name__
    items = list(dataset.queries.items())
    ticker = _Ticker(progress, len(items), label)
    started = time.perf_counter()
    results: list[QueryResult | None] = [None] * len(items)
    if concurrency == 1 or len(items) < 2:
        for i, (qid, query) in enumerate(items):
            results[i] = runner.one(qid, query, dataset.qrels.get(qid, {}))
            ticker(i + 1)
    else:
        with ThreadPoolExecutor(concurrency, thread_name_prefix="textsearch-eval") as pool:
            futures: dict[Future[QueryResult], int] = {
                pool.submit(runner.one, qid, query, dataset.qrels.get(qid, {})): i
                for i, (qid, query) in enumerate(items)
            }
            pending = set(futures)
            done_count = 0
            try:
                while pending:
                    done, pending = wait(pending, timeout=PROGRESS_EVERY,
                                         return_when=FIRST_COMPLETED)  # fmt: skip
                    for future in done:
                        results[futures[future]] = future.result()
                    done_count += len(done)
                    ticker(done_count)
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    finished = [r for r in results if r is not None]
    return EvaluationReport(label, dataset.name, k, depth, finished,
                            time.perf_counter() - started)  # fmt: skip
