"""``RerankedTextSearch``: ask a search for candidates, then let a reranker order them.

Reranking needs no numpy: the rerankers bring their own models, and the diversity pass
(maximal marginal relevance) is a few hundred cosines in plain Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import mul
from typing import TYPE_CHECKING, Any, ClassVar

from textsearch._twins import Call, Plan, drive, drive_sync, perform, perform_sync
from textsearch._types import SearchOptions, SearchResults, TextSearchResult
from textsearch.base import TextSearch
from textsearch.compose._common import (
    Hit,
    Kind,
    Wrapper,
    check_number,
    fetch_hits,
    fetch_hits_sync,
    logger,
    precheck,
)
from textsearch.compose._result import WrappedResult
from textsearch.errors import ConfigurationError, TextSearchError

if TYPE_CHECKING:
    from textsearch.embeddings import Embedder
    from textsearch.rerank import Reranker

__all__ = ["RerankedResult", "RerankedTextSearch"]


class RerankedResult(WrappedResult):
    """One result of `RerankedTextSearch`: a first-stage result and its new place.

    ``name``, ``value`` and ``link`` read through to `text_search_result`, so the result
    formats and cites like any other.

    Attributes:
        result: The wrapped search's native result.
        text_search_result: Its normalized form.
        score: The reranker's score (higher is better, on the reranker's own scale);
            ``None`` when reranking failed and ``keep_order_on_error`` kept the first order.
        first_rank: Its rank in the wrapped search's list (1 = first).
    """

    score: float | None
    first_rank: int


def rerank_text(text: TextSearchResult) -> str:
    """What a reranker reads of a result: its name and value (its link when it has neither)."""
    parts = [p for p in (text.name, text.value) if p and p.strip()]
    if parts:
        return "\n".join(parts)
    return text.link or "-"


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(map(mul, vector, vector)))
    return [v / norm for v in vector] if norm else [0.0] * len(vector)


def mmr_order(
    scores: Sequence[float], vectors: Sequence[Sequence[float]], diversity: float, count: int
) -> list[int]:
    """Maximal marginal relevance: the order in which to show candidates.

    Each next pick maximises ``(1 - diversity) * relevance - diversity * similarity``,
    where relevance is the reranker's score scaled to [0, 1] over the candidates and
    similarity the pick's highest cosine with those already picked. The first ``count``
    are picked that way; the rest follow by score.
    """
    n = len(scores)
    order = sorted(range(n), key=lambda i: -scores[i])
    if diversity <= 0 or n < 2 or count < 2:
        return order
    low, high = min(scores), max(scores)
    spread = high - low
    relevance = [(s - low) / spread if spread else 1.0 for s in scores]
    units = [_unit(v) for v in vectors]
    closest = [-math.inf] * n  # highest similarity with a picked candidate
    picked: list[int] = []
    left = list(order)
    while left and len(picked) < count:
        best = max(
            left,
            key=lambda i: (
                (1 - diversity) * relevance[i] - diversity * (closest[i] if picked else 0.0)
            ),
        )
        picked.append(best)
        left.remove(best)
        vector = units[best]
        for i in left:
            similarity = sum(map(mul, units[i], vector))
            if similarity > closest[i]:
                closest[i] = similarity
    return picked + left


def _span(reranker: Any, count: int) -> Any:
    """The ``rerank`` span of `textsearch.rerank.rerank`, for the path that keeps vectors."""
    import contextlib

    from textsearch import _tracing
    from textsearch.rerank import provider_of, rerank_span

    if not _tracing.enabled():
        return contextlib.nullcontext()
    return rerank_span(reranker, provider_of(reranker), count)


class RerankedTextSearch(Wrapper):
    """Ask ``search`` for ``depth`` candidates, rerank them, then apply ``top`` and ``skip``.

    The candidates come from one request to ``search`` with the caller's filter unchanged
    (never dropped or loosened) and ``top=depth``. The reranker reads each candidate's
    name and value; the candidates are sorted by its score (ties keep the first order),
    and with ``diversity``
    > 0 reordered by maximal marginal relevance, so that near-duplicates and many passages
    of one long page stop filling the top. A page reaching past ``depth`` (``top + skip``
    larger) asks the search for that many; the results past ``depth`` follow the reranked
    ones in the first stage's order, unscored. ``total_count``, when asked for, is the
    wrapped search's.

    ``get_search_results`` returns `RerankedResult` items; ``metadata["reranker"]`` names
    the reranker's model and ``metadata["candidates"]`` counts the candidates.

    A reranker failure raises (a `TextSearchError`; any other exception inside a reranker
    becomes a ``ProviderError``). With ``keep_order_on_error=True`` the first-stage order
    is returned instead and ``metadata["rerank_error"]`` says what failed.

    Args:
        search: The first stage (any `TextSearch`).
        reranker: Any `Reranker` (`EmbeddingReranker`, `CrossEncoderReranker`, a hosted
            API, `FunctionReranker`).
        depth: Candidates to rerank (1..the search's ``max_top``; default 50).
        diversity: 0 (default: the reranker's order) to 1 (only novelty); 0.2-0.4 keeps
            relevance first. Needs vectors: an `EmbeddingReranker`'s, or ``embedder=``.
        embedder: Embeds the candidates for ``diversity`` when the reranker is not an
            `EmbeddingReranker`.
        keep_order_on_error: Return the first-stage order when reranking fails.
        close_wrapped: Close the wrapped search (and a reranker with ``close``) when this
            wrapper is closed.

    Raises:
        ConfigurationError: ``search`` is not a `TextSearch`, ``reranker`` is not a
            `Reranker`, ``depth`` is out of range, ``diversity`` is outside [0, 1], or
            ``diversity`` > 0 with nothing to embed the candidates.
    """

    provider_name: ClassVar[str] = "reranked"

    def __init__(
        self,
        search: TextSearch,
        reranker: Reranker,
        *,
        depth: int = 50,
        diversity: float = 0.0,
        embedder: Embedder | None = None,
        keep_order_on_error: bool = False,
        close_wrapped: bool = False,
    ) -> None:
        from textsearch.rerank import Reranker as RerankerProtocol

        if not isinstance(search, TextSearch):
            raise ConfigurationError(
                f"RerankedTextSearch needs a TextSearch, got {type(search).__name__}"
            )
        if not isinstance(reranker, RerankerProtocol):
            raise ConfigurationError(
                "RerankedTextSearch needs a Reranker (model, rerank, rerank_sync), "
                f"got {type(reranker).__name__}"
            )
        super().__init__([search], close_wrapped=close_wrapped)
        inner_top = self.max_top  # the wrapped search's max_top (50 when it declares none)
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= inner_top:
            raise ConfigurationError(
                f"depth must be a whole number from 1 to {inner_top} (the wrapped search's "
                f"max_top), got {depth!r}"
            )
        level = check_number(diversity, "diversity") or 0.0
        if level > 1:
            raise ConfigurationError(f"diversity must be from 0 to 1, got {diversity!r}")
        if embedder is not None:
            from textsearch.embeddings import Embedder as EmbedderProtocol

            if not isinstance(embedder, EmbedderProtocol):
                raise ConfigurationError(
                    f"embedder must be an Embedder, got {type(embedder).__name__}"
                )
        from textsearch.rerank._embedding import EmbeddingReranker

        self._by_vectors = reranker if isinstance(reranker, EmbeddingReranker) else None
        if level > 0 and embedder is None and self._by_vectors is None:
            raise ConfigurationError(
                "diversity needs the candidates' vectors: use an EmbeddingReranker, or pass "
                "embedder="
            )
        self.wrapped = search
        self.reranker = reranker
        self.depth = depth
        self.diversity = level
        self.embedder = embedder
        self.keep_order_on_error = bool(keep_order_on_error)
        self._inner_top = inner_top

    def __repr__(self) -> str:
        return (
            f"RerankedTextSearch({type(self.wrapped).__name__}, {self.reranker.model!r}, "
            f"depth={self.depth}, diversity={self.diversity:g})"
        )

    # -- requests -------------------------------------------------------------------------

    def _inner_options(self, options: SearchOptions) -> SearchOptions:
        count = min(max(self.depth, options.top + options.skip), self._inner_top)
        return options.with_updates(top=count, skip=0)

    def _check_wrapped(self, query: str, options: SearchOptions) -> None:
        precheck(self.wrapped, query, self._inner_options(options))

    def _wants_vectors(self, options: SearchOptions) -> bool:
        return self.diversity > 0 and options.top + options.skip > 1

    # -- ordering (pure) ------------------------------------------------------------------

    def _order(
        self,
        kind: Kind,
        hits: SearchResults[Hit],
        scores: list[float] | None,
        vectors: list[list[float]] | None,
        error: TextSearchError | None,
        options: SearchOptions,
    ) -> SearchResults[Any]:
        items = hits.results
        wanted = options.top + options.skip
        if scores is None:
            order = list(range(len(items)))
        elif vectors is not None:
            order = mmr_order(scores, vectors, self.diversity, wanted)
        else:
            order = sorted(range(len(scores)), key=lambda i: -scores[i])
        # candidates past depth (a page beyond it) follow in the first stage's order
        order += range(len(order), len(items))
        page = order[options.skip : wanted]
        metadata = {
            **hits.metadata,
            "reranker": self.reranker.model,
            "candidates": len(items),
        }
        if error is not None:
            metadata["rerank_error"] = f"{type(error).__name__}: {error}"
        results: list[Any]
        if kind == "text":
            results = [items[i].text for i in page]
        elif kind == "search":
            results = [items[i].string for i in page]
        else:
            ranked = [
                items[i].rewrapped(
                    RerankedResult,
                    score=scores[i] if scores is not None and i < len(scores) else None,
                    first_rank=i + 1,
                )
                for i in page
            ]
            results = ranked if kind == "hits" else [h.native for h in ranked]
        total = hits.total_count if options.include_total_count else None
        return SearchResults(results, total, metadata)

    def _failed(self, exc: TextSearchError) -> TextSearchError:
        if not self.keep_order_on_error:
            raise exc
        logger.warning("rerank: %s failed (%s); first-stage order kept",
                       self.reranker.model, type(exc).__name__)  # fmt: skip
        return exc

    # -- one search, written once (a plan: see textsearch._twins) ---------------------------

    def _plan(self, kind: Kind, query: str, options: SearchOptions) -> Plan[Call, Any]:
        hits = yield Call(
            fetch_hits_sync, fetch_hits, (self.wrapped, query, self._inner_options(options))
        )
        texts = [rerank_text(h.text) for h in hits.results[: self.depth]]
        scores: list[float] | None = None
        vectors: list[list[float]] | None = None
        error: TextSearchError | None = None
        if texts:
            try:
                scores, vectors = yield from self._scoring(query, texts, options)
            except TextSearchError as exc:
                error = self._failed(exc)
        return self._order(kind, hits, scores, vectors, error, options)

    def _scoring(
        self, query: str, texts: list[str], options: SearchOptions
    ) -> Plan[Call, tuple[list[float], list[list[float]] | None]]:
        from textsearch.embeddings import embed_documents, embed_documents_sync
        from textsearch.rerank import check_scores, rerank, rerank_sync

        scored = Call(rerank_sync, rerank, (self.reranker, query, texts))
        if not self._wants_vectors(options):
            return (yield scored), None
        by_vectors = self._by_vectors
        if self.embedder is None and by_vectors is not None:
            both = Call(
                by_vectors.rerank_with_vectors_sync, by_vectors.rerank_with_vectors, (query, texts)
            )
            with _span(self.reranker, len(texts)):
                scores, vectors = yield both
            return check_scores(scores, len(texts), provider=self.reranker.model), vectors
        assert self.embedder is not None  # checked at construction
        scores = yield scored
        return scores, (yield Call(embed_documents_sync, embed_documents, (self.embedder, texts)))

    async def _run(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        return await drive(self._plan(kind, query, options), perform)

    def _run_sync(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        return drive_sync(self._plan(kind, query, options), perform_sync)

    # -- resources ------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the wrapped search (and the reranker) when ``close_wrapped`` is set."""
        await super().aclose()
        if self.close_wrapped:
            from textsearch.compose._common import close_async

            await close_async(self.reranker)

    def close(self) -> None:
        """Blocking twin of `aclose`."""
        super().close()
        if self.close_wrapped:
            from textsearch.compose._common import close_sync

            close_sync(self.reranker)
