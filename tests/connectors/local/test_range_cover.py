"""The tantivy engine's range cover: from a field's listed values, and level by level."""

from __future__ import annotations

import random
from typing import Any

import pytest

from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.connectors.local._prefix_cover import present_cover

_HEX = "0123456789abcdef"


def _covered(value: str, prefixes: list[str]) -> bool:
    return any(value.startswith(p) for p in prefixes)


@pytest.mark.parametrize("seed", range(8))
def test_the_cover_holds_every_value_in_range_and_none_outside(seed: int) -> None:
    rng = random.Random(seed)
    width = rng.choice([3, 4, 6])
    # clustered values (shared prefixes, as real numbers and dates have) and scattered ones
    stems = ["".join(rng.choice(_HEX) for _ in range(width - 2)) for _ in range(6)]
    pool = {rng.choice(stems) + rng.choice(_HEX) + rng.choice(_HEX) for _ in range(120)}
    pool |= {"".join(rng.choice(_HEX) for _ in range(width)) for _ in range(40)}
    values = sorted(pool)
    ends = [*values, "0" * width, "f" * width]
    for _ in range(200):
        low, high = sorted([rng.choice(ends), rng.choice(ends)])
        if rng.random() < 0.3:  # a bound no value has
            low = "".join(rng.choice(_HEX) for _ in range(width))
        cover = present_cover(values, low, high)
        inside = [v for v in values if low <= v <= high]
        for value in values:
            assert _covered(value, cover) == (value in inside), (low, high, value, cover)
        assert len(cover) <= len(inside)
        assert cover == sorted(cover)


def test_an_empty_listing_and_an_empty_range_need_no_prefix() -> None:
    assert present_cover([], "00", "ff") == []
    assert present_cover(["10", "20"], "11", "1f") == []
    assert present_cover(["10", "20"], "00", "ff") == ["1", "2"]
    assert present_cover(["10", "11", "20"], "11", "ff") == ["11", "2"]


def _docs() -> list[dict[str, Any]]:
    rng = random.Random(3)
    return [
        {
            "id": f"d{i}",
            "title": "t",
            "text": f"common d{i}",
            "metadata": {
                "x": rng.choice([rng.randint(-500, 500), rng.uniform(-50, 50)]),
                "when": f"{2001 + i % 20:04d}-{1 + i % 12:02d}-{1 + i % 27:02d}",
            },
        }
        for i in range(240)
    ]


def _expected(docs: list[dict[str, Any]], field: str, low: Any, high: Any) -> set[str]:
    return {d["id"] for d in docs if low < d["metadata"][field] <= high}


@pytest.mark.parametrize("listed", [True, False], ids=["listed", "level-by-level"])
def test_both_ways_find_what_the_oracle_finds(
    listed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("tantivy")
    from textsearch.connectors.local import _tantivy

    if not listed:  # a field with more distinct values than are listed
        monkeypatch.setattr(_tantivy, "_MAX_LISTED", 3)
    docs = _docs()
    rng = random.Random(9)
    with LocalTextSearch(":memory:", engine="tantivy") as search:
        search.add_documents(docs)
        for _ in range(40):
            low, high = sorted([rng.uniform(-600, 600), rng.uniform(-600, 600)])
            f = TextSearchFilter().greater_than("x", low).less_than_or_equal("x", high)
            found = search.get_search_results_sync(
                "common", top=3, filter=f, include_total_count=True
            )
            assert found.total_count == len(_expected(docs, "x", low, high)), (low, high)
            day = f"{rng.randint(2000, 2021)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            g = TextSearchFilter().greater_than("when", day)
            found = search.get_search_results_sync(
                "common", top=3, filter=g, include_total_count=True
            )
            assert found.total_count == len(_expected(docs, "when", day, "9999")), day
        ranker = search._ranker
        listing = list(ranker._listed_values.values())
        assert listing and all((v is not None) == listed for v in listing)
        assert bool(ranker._too_many) is not listed  # a big field is not listed again
        # a write is a new generation: the listing is made again and sees the new value
        search.add_documents(
            [{"id": "new", "title": "t", "text": "common", "metadata": {"x": 10**6}}]
        )
        f = TextSearchFilter().greater_than("x", 10**5)
        assert [d.id for d in search.get_search_results_sync("common", filter=f)] == ["new"]
