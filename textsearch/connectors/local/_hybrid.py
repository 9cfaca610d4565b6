"""Fusing the keyword and meaning rankings, and one result per section.

Both steps work on a ranked list of passage rowids taken from its top: collapsing keeps the
first (best) passage of each section, so the collapsed list's first ``n`` entries depend
only on the passages ranked before them, and pages cut from it are disjoint.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Group", "collapse", "fit", "fuse", "group_count_sql"]

Fusion = Literal["blend", "rrf"]
#: Reciprocal rank fusion's constant (the usual 60).
RRF_K = 60
#: Weight of the meaning arm in the score blend: on SciFact with all-MiniLM-L6-v2 a 50/50
#: blend ranked better than reciprocal rank fusion (bench_relevance.py, docs/performance.md).
BLEND_WEIGHT = 0.5
#: Weight of the meaning arm when the query holds CJK words (`fuse`'s ``standard``).
CJK_BLEND_WEIGHT = 0.55


@dataclass(slots=True)
class Group:
    """One result: the best passage of a section (or document) and its matching neighbours."""

    rowid: int
    score: float
    section_key: object
    members: list[int] = field(default_factory=list)


def _section_key(rowid: int, anchor: str | None) -> object:
    # Passages of one section share its anchor, hence its link; a passage without one (plain
    # text, the top of a file) is linked by its own line and is its own section.
    return anchor if anchor is not None else ("row", rowid)


def collapse(
    shapes: Mapping[int, tuple[int, str | None] | None],
    ranked: list[tuple[int, float]],
    by_document: bool,
) -> list[Group]:
    """Group ranked passages into results: one per section, or one per document.

    ``shapes`` holds each ranked passage's document rowid and anchor; a passage missing from
    it (deleted by another writer since it was ranked) is skipped. A result's members are the
    ranked passages of its best passage's section, best first (`fit` then keeps those
    whose text fits); the others are merged away, so the section never comes back on a later
    page.
    """
    groups: dict[object, Group] = {}
    out: list[Group] = []
    for rowid, score in ranked:
        shape = shapes.get(rowid)
        if shape is None:
            continue
        doc, anchor = shape
        section = _section_key(rowid, anchor)
        key: object = doc if by_document else (doc, section)
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(rowid, score, section, [rowid])
            out.append(group)
        elif section == group.section_key:
            group.members.append(rowid)
    return out


def fit(group: Group, length_of: Callable[[int], int], text_budget: int) -> None:
    """Keep the members whose text fits ``text_budget`` characters, best first (the best
    passage always does); done for the page's results only, whose text is read anyway."""
    used = 0
    kept = []
    for number, rowid in enumerate(group.members):
        length = length_of(rowid)
        if not number or used + length <= text_budget:
            kept.append(rowid)
            used += length
    group.members = kept


def group_count_sql(rowid_source: str, by_document: bool) -> str:
    """SQL counting the results (sections or documents) among the passages of a subquery."""
    key = "p.doc" if by_document else "p.doc, CASE WHEN p.anchor IS NULL THEN p.rowid END, p.anchor"
    return (
        f"SELECT count(*) FROM (SELECT 1 FROM passages AS p WHERE p.rowid IN ({rowid_source}) "
        f"GROUP BY {key})"
    )


def fuse(
    keyword: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
    cosines_of: Callable[[list[int]], list[float | None]],
    method: Fusion,
    standard: bool = False,
) -> list[tuple[int, float]]:
    """One ranking from the two arms' top passages (each best first).

    ``"rrf"``: reciprocal rank fusion. ``"blend"``: ``BLEND_WEIGHT`` times the cosine and
    the rest times BM25, each scaled to 0..1 over its arm's list; a keyword hit outside the
    meaning arm's list still gets its exact cosine (every passage's is known: ``cosines_of``
    gives them for a list of rowids at once), scaled the same way and floored at 0. Ties go
    to the lower rowid, so the order is reproducible.

    ``standard`` (a query holding CJK words): the blend scales each score by its arm's mean
    and standard deviation instead, with `CJK_BLEND_WEIGHT`; a keyword hit outside the meaning
    arm's list gets its exact cosine so scaled, a meaning hit outside the keyword list the
    keyword list's last score. A CJK question gives ~25 terms (bigrams and characters), and
    the scores of its keyword list fall off in a long, flat tail that 0..1 scaling stretches:
    XQuAD-R Chinese with e5, SQLite 0.872 -> 0.876, tantivy 0.870 -> 0.875 (bench_languages.py).
    """
    if method == "blend":
        return _blend(keyword, semantic, cosines_of, standard)
    scores: dict[int, float] = {}
    for ranking in (keyword, semantic):
        for rank, (rowid, _) in enumerate(ranking, start=1):
            scores[rowid] = scores.get(rowid, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def _scaled(ranking: list[tuple[int, float]]) -> Callable[[float], float]:
    """A score scaled to 0..1 over ``ranking``'s scores (best first), clamped beyond them."""
    high, low = ranking[0][1], ranking[-1][1]
    span = high - low
    return lambda score: min(1.0, max(0.0, (score - low) / span)) if span > 0 else 1.0


def _standardized(ranking: list[tuple[int, float]]) -> Callable[[float], float]:
    """A score as standard deviations above the mean of ``ranking``'s scores."""
    values = [score for _, score in ranking]
    mean = statistics.fmean(values)
    spread = statistics.pstdev(values, mean) or 1.0
    return lambda score: (score - mean) / spread


def _blend(
    keyword: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
    cosines_of: Callable[[list[int]], list[float | None]],
    standard: bool,
) -> list[tuple[int, float]]:
    """`fuse`'s blend: each arm's scores scaled to 0..1, or standardized (``standard``)."""
    weight = CJK_BLEND_WEIGHT if standard else BLEND_WEIGHT
    scale = _standardized if standard else _scaled
    scores: dict[int, float] = {}
    if keyword:
        words = scale(keyword)
        for rowid, score in keyword:
            scores[rowid] = (1 - weight) * words(score)
    if semantic:
        meaning = scale(semantic)
        # a keyword hit outside the meaning arm's list: its exact cosine (all of them looked
        # up at once), scaled the same way; unknown, it counts as the arm's last
        # (standardized) or as nothing (0..1)
        unknown = meaning(semantic[-1][1]) if standard else 0.0
        for rowid, cosine in semantic:
            scores[rowid] = scores.get(rowid, 0.0) + weight * meaning(cosine)
        in_semantic = {rowid for rowid, _ in semantic}
        outside = [rowid for rowid, _ in keyword if rowid not in in_semantic]
        for rowid, exact in zip(outside, cosines_of(outside) if outside else [], strict=True):
            scores[rowid] += weight * (unknown if exact is None else meaning(exact))
        if standard and keyword:
            last = (1 - weight) * words(keyword[-1][1])
            in_keyword = {rowid for rowid, _ in keyword}
            for rowid, _ in semantic:
                if rowid not in in_keyword:
                    scores[rowid] += last
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
