"""The line reader: how Markdown reads without the ``markup`` extra (a plain install).

``markdown_it`` is installed for the test suite, so each test here turns it off the way a
plain install has it off: ``_markdown.available()`` is false and the index's mark names the
line reader.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch.documents import _markdown, _split
from textsearch.documents._split import _plain_markdown, split_document

SIGNATURE = """# Brave

## Constructor

`BraveTextSearch(api_key=None, *, endpoint="https://api.search.brave.com/res/v1/web/search",
extra_snippets=False, goggles=None, http_client=None, timeout=None, max_retries=2,
deadline=60.0, transport="auto")`

The key comes from `BRAVE_SEARCH_API_KEY`.
"""


@pytest.fixture
def line_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_markdown, "available", lambda: False)
    monkeypatch.setattr(_split, "readers", lambda: "lines")


def _text(markdown: str) -> str:
    _, passages = split_document(markdown, ".md")
    return "\n".join(p.text for p in passages)


@pytest.mark.usefixtures("line_reader")
def test_a_code_span_across_line_ends_loses_its_backticks() -> None:
    text = _text(SIGNATURE)
    assert "`" not in text
    assert 'BraveTextSearch(api_key=None, *, endpoint="https://api.search.brave.com' in text
    assert 'deadline=60.0, transport="auto")' in text
    assert "The key comes from BRAVE_SEARCH_API_KEY." in text


def test_spans_pair_as_commonmark_pairs_them_and_lines_are_kept() -> None:
    # The span opened on the first line closes on the second: the line reader alone paired
    # ") and the lazy exports of " as code and left "textsearch`" behind.
    body = (
        "The registry (`textsearch search --provider NAME`, `textsearch mcp\n"
        "--provider NAME`) and the lazy exports of `textsearch` read it.\n"
        "\n"
        "Inside: ``a ` b`` and `` `tick` `` stay literal; a lone ` too.\n"
        "- item `a\n"
        "- b` c\n"
        "```\n"
        "code `x\n"
        "y`\n"
        "```"
    )
    plain = _plain_markdown(body)
    assert plain.split("\n") == [
        "The registry (textsearch search --provider NAME, textsearch mcp",
        "--provider NAME) and the lazy exports of textsearch read it.",
        "",
        "Inside: a ` b and `tick` stay literal; a lone ` too.",
        "- item `a",  # a span does not reach into the next list item
        "- b` c",
        "",
        "code `x",  # fenced code is kept as written
        "y`",
        "",
    ]


def test_strong_emphasis_across_a_line_end_and_bullets_read_as_markdown_it_reads_them() -> None:
    body = (
        "* one **whole results are dropped\n"
        "from the lowest end**; kept\n"
        "+ two\n"
        "\n"
        "see `f(**kwargs)`\n"
        "and **real** bold, 2**3 stays, __also\n"
        "this__ too\n"
    )
    assert _plain_markdown(body).split("\n") == [
        "- one whole results are dropped",
        "from the lowest end; kept",
        "- two",
        "",
        "see f(**kwargs)",  # markers inside code are literal
        "and real bold, 2**3 stays, also",
        "this too",
        "",
    ]
    if _markdown.available():  # the markdown-it reading says the same
        _, passages = split_document("# T\n\n" + body, ".md")
        assert "\n".join(p.text for p in passages).split() == _plain_markdown(body).split()


def test_myst_roles_read_as_the_markdown_it_reader_reads_them() -> None:
    body = (
        "See {class}`~click.Option` and {ref}`the guide <guide>`, {py:func}`open`.\n"
        "Code `{x}` and a {set} stay.\n"
    )
    assert _plain_markdown(body).split("\n") == [
        "See Option and the guide, open.",
        "Code {x} and a {set} stay.",
        "",
    ]
    if _markdown.available():
        _, passages = split_document("# T\n\n" + body, ".md")
        assert "\n".join(p.text for p in passages).split() == _plain_markdown(body).split()


def test_myst_targets_and_directives_with_no_text_are_dropped_code_stays() -> None:
    body = (
        "(parameter-types)=\n"
        "\n"
        "```{contents}\n"
        "---\n"
        "depth: 2\n"
        "---\n"
        "```\n"
        "Words (kept) = here.\n"
        "```{code-block} python\n"
        "(x)=\n"
        "```\n"
    )
    assert _plain_markdown(body).split("\n") == [
        "", "", "", "", "", "", "", "Words (kept) = here.", "", "(x)=", "", "",
    ]  # fmt: skip


@pytest.mark.usefixtures("line_reader")
def test_passage_links_keep_their_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "brave.md").write_text(SIGNATURE + "\n## Options\n\n`top` is 1..20.\n")
    search = LocalTextSearch(engine="sqlite")
    search.index_path(tmp_path)
    found = search.get_text_search_results_sync("top options", top=1)
    assert found.results[0].value == "top is 1..20."
    assert (found.results[0].link or "").endswith("brave.md#options")
    lines = (tmp_path / "brave.md").read_text().split("\n")
    (hit,) = search.get_search_results_sync("options", top=1).results
    assert lines[hit.line - 1] == "`top` is 1..20."  # the span above kept its two lines


@pytest.mark.usefixtures("line_reader")
def test_the_commonmark_code_span_examples_leave_no_backtick_the_html_does_not_show() -> None:
    from tests.connectors.test_local_commonmark import SPEC, reference_text

    if not SPEC.is_file():
        pytest.skip(f"CommonMark examples not found at {SPEC}")
    examples = [
        e for e in json.loads(SPEC.read_text(encoding="utf-8")) if e["section"] == "Code spans"
    ]
    assert len(examples) == 22
    left = [
        (e["example"], _text(e["markdown"]))
        for e in examples
        if _text(e["markdown"]).count("`") > reference_text(e["html"]).count("`")
    ]
    assert left == []


def test_pairing_is_linear_in_crafted_input() -> None:
    for body in ("`a\n" * 100_000, "\n".join("x" + "`" * k + "y" for k in range(1, 4000))):
        started = time.process_time()
        _plain_markdown(body)
        assert time.process_time() - started < 5.0


def test_installing_the_markup_extra_reads_the_files_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brave.md").write_text(SIGNATURE)
    (docs / "notes.txt").write_text("plain words\n")
    search = LocalTextSearch(tmp_path / "index.sqlite3", engine="sqlite")
    with monkeypatch.context() as plain:
        plain.setattr(_markdown, "available", lambda: False)
        plain.setattr(_split, "readers", lambda: "lines")
        assert search.index_path(docs).added == 2
        again = search.index_path(docs)
        assert (again.updated, again.unchanged) == (0, 2)
    report = search.index_path(docs)  # markdown-it now: every file is read once more
    assert (report.added, report.updated, report.unchanged) == (0, 2, 0)
    assert search.index_path(docs).unchanged == 2
