from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from textsearch import InvalidRequestError, TextSearchResult
from textsearch.grounding import DEFAULT_MARKER, Budget, format_results, truncate_text
from textsearch.grounding.formatting import fit_to_budget, prepare, renderer


def word_tokens(text: str) -> int:
    """A deterministic stand-in for a real tokenizer: words and punctuation marks."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def test_text_that_fits_is_unchanged() -> None:
    assert truncate_text("short text", 10) == ("short text", False)
    assert truncate_text("", 0) == ("", False)


def test_cut_at_a_word_boundary_with_a_marker() -> None:
    text, cut = truncate_text("alpha beta gamma delta", 20, marker=" …")
    assert (text, cut) == ("alpha beta gamma …", True)
    text, cut = truncate_text("alpha beta gamma delta", 17)
    assert (text, cut) == ("alpha [truncated]", True)


def test_never_inside_a_citation_marker() -> None:
    # "Backoff helps [1,…" (18) would fit, but that cut is inside a citation.
    text, _ = truncate_text("Backoff helps [1, 2] a lot", 19, marker="…")
    assert text == "Backoff helps…"
    text, _ = truncate_text("Backoff helps [1, 2] a lot", 21, marker="…")
    assert text == "Backoff helps [1, 2]…"


def test_cjk_text_can_be_cut_between_characters() -> None:
    text, cut = truncate_text("重试时使用指数退避和抖动", 8, marker="…")
    assert (text, cut) == ("重试时使用指数…", True)


def test_marker_that_does_not_fit_gives_empty_text() -> None:
    assert truncate_text("abcdef ghijkl", 3) == ("", True)
    assert truncate_text("abcdef ghijkl", 11) == ("[truncated]", True)
    with pytest.raises(InvalidRequestError):
        truncate_text("x", -1)


def test_token_limits_use_the_tokenizer() -> None:
    text, cut = truncate_text("one two three four five six", 4, tokenizer=word_tokens, marker=" …")
    assert cut and word_tokens(text) <= 4
    assert text == "one two three …"
    # A tokenizer may return the tokens themselves (like tiktoken's encode).
    text, _ = truncate_text("one two three four", 3, tokenizer=str.split, marker=" …")
    assert text == "one two …"


def test_budget_validation() -> None:
    with pytest.raises(InvalidRequestError, match="tokenizer"):
        Budget(max_tokens=100)
    with pytest.raises(InvalidRequestError, match="max_chars"):
        Budget(max_chars=0)
    with pytest.raises(InvalidRequestError):
        Budget(max_result_chars=True)  # type: ignore[arg-type]
    assert Budget().unlimited and not Budget(max_chars=5).unlimited


def test_whole_results_dropped_before_any_is_cut() -> None:
    items = [
        TextSearchResult(f"T{i}", f"text number {i} " * 5, f"https://s{i}.example/")
        for i in range(5)
    ]
    full = [format_results(items[:k], style="citations") for k in range(1, 6)]
    # Room for three full results and a bit: the fourth is dropped, not cut.
    budget = Budget(max_chars=len(full[2]) + 20)
    assert format_results(items, style="citations", budget=budget) == full[2]
    fields = prepare(items)
    kept, report = fit_to_budget(fields, budget, renderer("citations", query=None))
    assert len(kept) == 3 and report.dropped == 2 and report.truncated == []


def test_first_result_is_cut_only_when_alone_over_the_total() -> None:
    items = [
        TextSearchResult("Big", "lorem ipsum " * 50, "https://b.example/"),
        TextSearchResult("Small", "s", None),
    ]
    text = format_results(items, style="citations", budget=Budget(max_chars=80))
    assert len(text) <= 80
    assert text.startswith("[1] Big — lorem ipsum") and text.endswith(
        " [truncated] (https://b.example/)"
    )
    assert "[2]" not in text


def test_token_total_in_format_results() -> None:
    items = [TextSearchResult(f"T{i}", "alpha beta gamma " * 4, None) for i in range(6)]
    budget = Budget(max_tokens=40, tokenizer=word_tokens)
    text = format_results(items, query="q", budget=budget)
    assert word_tokens(text) <= 40
    assert text.startswith('Found 2 results for "q":')


def test_budget_too_small_for_a_title_is_an_error() -> None:
    with pytest.raises(InvalidRequestError, match="too small"):
        format_results(
            [TextSearchResult("A long title here", "x", None)], budget=Budget(max_chars=10)
        )


words = st.text(
    # Letters (any script), digits and punctuation other than brackets.
    alphabet=st.characters(codec="utf-8", categories=("L", "N"), include_characters=".,;:!?-'\""),
    min_size=1,
    max_size=12,
)
separators = st.sampled_from([" ", "  ", "\n", "\t", " [1] ", " [12, 3] ", "。"])


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(words, separators), min_size=0, max_size=40))
    return "".join(w + s for w, s in parts)


def _is_cut_point(text: str, i: int) -> bool:
    cjk = re.compile(
        "[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u318f\u3400-\u4dbf\u4e00-\u9fff"
        "\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
    )
    if i in (0, len(text)):
        return True
    a, b = text[i - 1], text[i]
    if a.isspace() or b.isspace() or bool(cjk.match(a)) or bool(cjk.match(b)):
        return True
    # inside a huge word (longer than 80 characters: a blob, a minified line) any point goes
    start = i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return i - start > 80


def test_a_page_that_is_one_huge_word_keeps_text_not_only_the_marker() -> None:
    out, cut = truncate_text("x" * 5000, 100)
    assert cut and out.startswith("x" * 80) and out.endswith(DEFAULT_MARKER)
    assert len(out) <= 100
    # ordinary words are still never cut
    out, _ = truncate_text("hello world " * 20, 50)
    assert out == "hello world hello world hello world" + DEFAULT_MARKER


@settings(max_examples=300, deadline=None)
@given(text=texts(), limit=st.integers(min_value=0, max_value=400), use_tokens=st.booleans())
def test_truncation_properties(text: str, limit: int, use_tokens: bool) -> None:
    tokenizer = word_tokens if use_tokens else None
    measure = word_tokens if use_tokens else len
    out, cut = truncate_text(text, limit, tokenizer=tokenizer)
    # Totals respected.
    assert measure(out) <= limit
    if not cut:
        assert out == text
        return
    # Visible: the marker ends every non-empty cut text.
    if out:
        assert out.endswith(DEFAULT_MARKER.lstrip())
        head = out[: -len(DEFAULT_MARKER)] if out.endswith(DEFAULT_MARKER) else ""
        # The kept text is a prefix of the original ending at a cut point: no cut words...
        assert text.startswith(head)
        assert _is_cut_point(text, len(head))
        # ...and no cut citation number: every "[" kept is closed.
        assert head.count("[") == head.count("]")
    else:
        # Empty only when not even the marker fits.
        assert measure(DEFAULT_MARKER.lstrip()) > limit


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(texts(), min_size=1, max_size=6),
    per_result=st.integers(min_value=15, max_value=200),
    slack=st.integers(min_value=0, max_value=600),
)
def test_budgeted_results_properties(values: list[str], per_result: int, slack: int) -> None:
    items = [TextSearchResult(f"R{i}", v or None, None) for i, v in enumerate(values)]
    render = renderer("citations", query=None)
    # The smallest total that can hold the first result's title alone.
    total = len("[1] R0") + len(" — [truncated]") + slack
    budget = Budget(max_result_chars=per_result, max_chars=total)
    kept, report = fit_to_budget(prepare(items), budget, render)
    out = render(kept)
    assert len(out) <= total
    assert kept, "the first result always survives"
    # Results are a ranked prefix: only the lowest-ranked are dropped.
    assert [k.name for k in kept] == [f"R{i}" for i in range(len(kept))]
    assert report.dropped == len(items) - len(kept)
    for i, item in enumerate(kept, start=1):
        original = values[i - 1]
        if i in report.truncated:
            assert item.value is not None and item.value.endswith("[truncated]")
        else:
            assert item.value == (original or None)
    # Cut only as a last resort: if anything was dropped, the kept ones fit whole at the
    # per-result limit, unless a single result remained.
    if report.dropped and len(kept) > 1:
        for i, item in enumerate(kept, start=1):
            whole, _ = truncate_text(values[i - 1], per_result)
            assert (item.value or "") == whole
