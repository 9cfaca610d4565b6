from __future__ import annotations

import pytest

from textsearch import InvalidRequestError, TextSearchResult
from textsearch.grounding import Citations
from textsearch.grounding._fields import normalize_link


def test_numbers_once_and_dedupes_by_normalized_url() -> None:
    cites = Citations(
        [
            TextSearchResult("Retry", "a", "https://KB.example/retry/?utm_source=x#top"),
            TextSearchResult("Other", "b", "https://kb.example/other"),
            {
                "title": "Retry again",
                "url": "http://kb.example:80/retry",
                "date_published": "2024-01-02",
            },
            TextSearchResult(None, "no link", None),
            TextSearchResult(None, "no link", None),
            TextSearchResult(None, "another", None),
        ]
    )
    assert len(cites) == 4
    assert [s.number for s in cites] == [1, 2, 3, 4]
    first = cites[1]
    assert (first.title, first.link) == ("Retry", "https://KB.example/retry/?utm_source=x#top")
    # The duplicate filled in the date the first one lacked, and kept the first title.
    assert first.date == "2024-01-02"
    assert cites.number_for("https://kb.example/retry") == 1
    assert cites.number_for("https://kb.example/missing") is None
    assert cites.add(TextSearchResult("x", "y", "https://kb.example/other/")) == 2
    assert cites.add(TextSearchResult("new", "y", "https://kb.example/new")) == 5
    assert cites.get(9) is None
    with pytest.raises(KeyError):
        cites[0]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("https://Example.com/a/", "http://example.com:80/a", True),
        ("https://example.com/a#x", "https://example.com:443/a", True),
        ("https://example.com/a?utm_medium=m&id=3", "https://example.com/a?id=3", True),
        ("https://example.com/a?id=3", "https://example.com/a?id=4", False),
        ("https://example.com/a", "https://example.com/b", False),
        ("https://example.com:8080/a", "https://example.com/a", False),
        ("https://example.com./a", "https://example.com/a", True),
        ("/docs/a.md", " /docs/a.md ", True),
    ],
)
def test_normalize_link(a: str, b: str, same: bool) -> None:
    assert (normalize_link(a) == normalize_link(b)) is same


def test_used_in_finds_markers_and_ignores_unknown_ones() -> None:
    cites = Citations(
        [TextSearchResult(f"T{i}", "v", f"https://s{i}.example/") for i in range(1, 5)]
    )
    answer = "Yes [2]. Also [1, 3] and [2][4]; not [0], not [9], not 【3】 again, range [1-2]."
    assert cites.markers_in(answer) == [2, 1, 3, 4, 0, 9]
    assert cites.used_in(answer) == [2, 1, 3, 4]
    assert cites.unknown_in(answer) == [0, 9]
    assert [s.title for s in cites.used_sources("see 【4】")] == ["T4"]
    assert cites.used_in("no citations here, just [brackets] and [a1]") == []


def test_render_reference_list() -> None:
    cites = Citations(
        [
            {
                "name": "Retry guide",
                "url": "https://kb.example/retry",
                "date_published": "2024-05-01",
            },
            TextSearchResult(None, None, "https://kb.example/bare"),
            TextSearchResult("No link [draft]", "text", None),
            TextSearchResult(None, "Only some text that is the whole result", None),
        ]
    )
    assert cites.render() == (
        "[1] Retry guide - https://kb.example/retry (2024-05-01)\n"
        "[2] https://kb.example/bare\n"
        "[3] No link [draft]\n"
        "[4] Only some text that is the whole result"
    )
    assert cites.render(only=[3, 1, 99], style="markdown", dates=False) == (
        "1. [Retry guide](https://kb.example/retry)\n3. No link \\[draft\\]"
    )
    assert cites.render(only=[]) == ""
    with pytest.raises(InvalidRequestError):
        cites.render(style="html")  # type: ignore[arg-type]
