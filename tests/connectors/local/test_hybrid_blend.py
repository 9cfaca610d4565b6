"""The blend of the two arms (`_hybrid.fuse`), scored for a whole list at once, against the
blend written plainly, one passage at a time."""

from __future__ import annotations

import random
import statistics

import pytest

from textsearch.connectors.local._hybrid import BLEND_WEIGHT, CJK_BLEND_WEIGHT, fuse


def _oracle(
    keyword: list[tuple[int, float]],
    semantic: list[tuple[int, float]],
    cosine: dict[int, float],
    standard: bool,
) -> dict[int, float]:
    def scale(ranking: list[tuple[int, float]], value: float) -> float:
        values = [s for _, s in ranking]
        if standard:
            mean = statistics.fmean(values)
            return (value - mean) / (statistics.pstdev(values, mean) or 1.0)
        high, low = max(values), min(values)
        return 1.0 if high == low else min(1.0, max(0.0, (value - low) / (high - low)))

    weight = CJK_BLEND_WEIGHT if standard else BLEND_WEIGHT
    kw, sem = dict(keyword), dict(semantic)
    out = {}
    for rowid in kw.keys() | sem.keys():
        if rowid in kw:
            words = scale(keyword, kw[rowid])
        else:
            words = scale(keyword, keyword[-1][1]) if standard and keyword else 0.0
        if rowid in sem:
            meaning = scale(semantic, sem[rowid])
        elif rowid in cosine:
            meaning = scale(semantic, cosine[rowid])
        else:
            meaning = scale(semantic, semantic[-1][1]) if standard else 0.0
        out[rowid] = (1 - weight) * words + (weight * meaning if semantic else 0.0)
    return out


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("standard", [False, True])
def test_the_blend_is_the_plain_formula(seed: int, standard: bool) -> None:
    rng = random.Random(seed)
    rowids = rng.sample(range(1, 400), rng.randint(2, 120))
    keyword = sorted(
        ((r, rng.choice([rng.uniform(0, 20), 5.0])) for r in rng.sample(rowids, len(rowids) // 2)),
        key=lambda p: -p[1],
    )
    semantic = sorted(
        ((r, rng.uniform(-1, 1)) for r in rng.sample(rowids, len(rowids) // 2 or 1)),
        key=lambda p: -p[1],
    )
    # keyword hits outside the meaning list: most have a vector (some outside its range),
    # a few none
    cosine = {r: rng.uniform(-1.5, 1.5) for r, _ in keyword if rng.random() < 0.8}
    asked: list[list[int]] = []

    def cosines_of(wanted: list[int]) -> list[float | None]:
        asked.append(wanted)
        return [cosine.get(r) for r in wanted]

    fused = fuse(keyword, semantic, cosines_of, "blend", standard=standard)
    expected = _oracle(keyword, semantic, cosine, standard)
    assert [r for r, _ in fused] == sorted(expected, key=lambda r: (-expected[r], r))
    assert all(score == pytest.approx(expected[r], abs=1e-12) for r, score in fused)
    assert len(asked) <= 1  # one lookup for every keyword hit outside the meaning list


def test_one_score_lists_scale_to_one() -> None:
    fused = dict(fuse([(1, 3.0)], [(2, 0.5)], lambda rowids: [0.1] * len(rowids), "blend"))
    assert fused == {1: pytest.approx(1.0), 2: pytest.approx(BLEND_WEIGHT)}
