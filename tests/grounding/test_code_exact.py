"""Code stays exact in every output (#30 item 7, DESIGN §12.1): every ``format_results``
style, fenced or not, citations and ``ground``'s prompt keep a code block's line breaks,
indentation, blank lines and characters (``>>>`` stays ``>>>``); no C0 control character
but newline and tab reaches a model."""

from __future__ import annotations

import pytest

from textsearch import TextSearchResult
from textsearch.grounding import format_results
from textsearch.grounding.citations import Citations

CODE = (
    ">>> import attrs\n"
    ">>> @attrs.define\n"
    "... class C:\n"
    "...     x: int = 1\n"
    "\n"
    "\n"
    "def f(a):\n"
    "    if a:\n"
    "\n"
    "        return {'k': [a]}  # <b> & *x* _y_\n"
    "    return None"
)
TEXT = "Define a class with attrs:\n\n" + "\n".join(
    "    " + ln if ln else "" for ln in CODE.split("\n")
)
CODE_LINES = [line for line in TEXT.split("\n")[2:] if line.strip()]


def _result() -> TextSearchResult:
    return TextSearchResult("Attrs \x00guide", TEXT + "\x00\x1b", "docs/attrs.md#define")


def _code_in(output: str) -> None:
    lines = output.split("\n")
    # Every code line is in the output, after one common indent, in order and adjacent
    # (blank lines between them kept as blank lines).
    start = next(i for i, line in enumerate(lines) if line.endswith(CODE_LINES[0]))
    indent = lines[start][: len(lines[start]) - len(CODE_LINES[0])]
    assert not indent.strip()
    block = lines[start : start + len(TEXT.split("\n")) - 2]
    expected = [indent + ln if ln.strip() else "" for ln in TEXT.split("\n")[2:]]
    assert [ln.rstrip() for ln in block] == [ln.rstrip() for ln in expected]


@pytest.mark.parametrize("style", ["numbered", "citations", "markdown", "labelled"])
@pytest.mark.parametrize("fence", [False, True])
def test_every_style_keeps_code_exactly(style: str, fence: bool) -> None:
    output = format_results([_result()], query="attrs", style=style, fence=fence)  # type: ignore[arg-type]
    _code_in(output)
    assert ">>> import attrs" in output and "›" not in output
    assert not any(ch < " " and ch not in "\n\t" for ch in output)


def test_soft_wrapped_prose_still_reads_as_one_line_in_citations() -> None:
    prose = TextSearchResult("T", "A sentence that\nwraps.\n\nAnother one.", "u")
    assert (
        format_results([prose], style="citations")
        == "[1] T — A sentence that wraps. Another one. (u)"
    )


def test_citations_and_ground_prompt_keep_code() -> None:
    from textsearch.grounding.templates import ANSWER_WITH_CITATIONS, render_prompt

    sources = Citations([_result()])
    assert not any(ch < " " and ch not in "\n\t" for s in sources for ch in (s.fields.value or ""))
    prompt = render_prompt(ANSWER_WITH_CITATIONS, query="q", results=[_result()])
    _code_in(prompt)
    assert ">>> @attrs.define" in prompt


@pytest.mark.parametrize(
    "text",
    [
        # table rows as the CSV/XLSX readers and Word tables give them
        "name: widget; price: 3.50; notes: small, blue\nname: gadget; price: 12; notes: large",
        "step; command\nbackup; pg_dump app > app.sql",
        # a list with no blank line between its items, numbered or not
        "- install the package\n- run the tests",
        "1. install the package\n2. run the tests",
        # doctest lines under a sentence
        "Call it:\n>>> area(2)\n4",
    ],
)
@pytest.mark.parametrize("style", ["numbered", "markdown", "labelled"])
def test_rows_items_and_doctests_keep_their_lines(text: str, style: str) -> None:
    output = format_results([TextSearchResult("T", text, "u")], style=style)  # type: ignore[arg-type]
    lines = [line.strip() for line in output.split("\n")]
    for line in text.split("\n"):
        assert line in lines or any(out.endswith(": " + line) for out in lines), (line, output)


def test_prose_with_a_semicolon_on_one_line_still_reads_as_one_line() -> None:
    prose = TextSearchResult("T", "Prose that wraps\nhere; and there.", "u")
    assert "Prose that wraps here; and there." in format_results([prose], style="numbered")
