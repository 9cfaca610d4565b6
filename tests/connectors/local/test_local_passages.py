"""Passages per format, natural-language ranking, and no markup on any model-facing path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401  (every test on both engines)
from textsearch import LocalTextSearch
from textsearch.documents._passages import best_window, hit_pattern
from textsearch.documents._split import split_document
from textsearch.errors import ConfigurationError
from textsearch.grounding import format_results, ground_sync
from textsearch.plugins import create_search_function, create_search_plugin

ROOT = Path(__file__).resolve().parents[3]
MARKUP = ("**", "<b>", "<em>", "\x1b[", "\ue000", "\ue001")

# -- splitting, per format -------------------------------------------------------------------

MARKDOWN = """---
title: Operations guide
---
Intro paragraph about operations.

## Retry policy

Retry failed calls with exponential backoff.

```python
# Not a heading: inside a fenced block
retry()
```

Setext section
--------------

Timeouts are always set.

## Retry policy

A second section with the same heading.
"""


def test_markdown_splits_by_heading_with_github_anchors() -> None:
    title, passages = split_document(MARKDOWN, ".md")
    assert title == "Operations guide"
    assert [(p.heading, p.anchor) for p in passages] == [
        (None, None),
        ("Retry policy", "retry-policy"),
        ("Setext section", "setext-section"),
        ("Retry policy", "retry-policy-1"),
    ]
    assert "# Not a heading: inside a fenced block\n" in passages[1].text
    assert passages[1].text.startswith("Retry failed calls")
    assert passages[2].line == 18 and passages[2].text == "Timeouts are always set."
    assert MARKDOWN.splitlines()[18 - 1] == passages[2].text


MARKDOWN_SYNTAX = """# Filters

| field | value |
|---|:---:|
| `site` | `"a.com\\|b.com"` (**subdomains** too) |

See [the Brave page](brave.md#filters), ![a diagram](d.png) and <https://example.org>.
> A *quoted* note with snake_case_name and 2*3*4, ~~struck~~.

```text
| kept | as | written |
```

***
[ref]: https://example.org/ref
Last line: a < b.
"""


def test_markdown_passages_are_plain_text_with_their_line_numbers() -> None:
    _, (passage,) = split_document(MARKDOWN_SYNTAX, ".md")
    text = passage.text
    for syntax in ("|---", "`", "**", "](", "![", "<https", "~~", "> A", "***", "[ref]"):
        assert syntax not in text, syntax
    assert 'field; value.\nsite; "a.com|b.com" (subdomains too).' in text
    assert "See the Brave page, a diagram and https://example.org." in text
    # CommonMark reads 2*3*4 as 2<em>3</em>4: the emphasis marks go, as a browser shows it
    assert "A quoted note with snake_case_name and 234, struck." in text
    assert "| kept | as | written |" in text  # code inside a fence is left as written
    assert text.endswith("Last line: a < b.")
    assert passage.line == 3  # the first body line, as in the file
    # Plain text given to add_documents(chunk=True) is the caller's: never rewritten.
    s = LocalTextSearch()
    s.add_documents([{"id": "a", "text": MARKDOWN_SYNTAX}], chunk=True)
    assert "|---|:---:|" in (s.get_text_search_results_sync("subdomains").results[0].value or "")


def test_markdown_files_indexed_before_plain_text_are_read_again_once(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text(MARKDOWN_SYNTAX)
    (notes / "b.txt").write_text("plain | text `kept`")
    (notes / "c.html").write_text("<h1>Code</h1><pre>def f():\n    return 1\n</pre>")
    db = tmp_path / "kb.sqlite3"
    s = LocalTextSearch(db)
    first = s.index_path(notes)
    assert (first.added, first.updated, first.unchanged) == (3, 0, 0)
    # An index made by an earlier version has no mark: its Markdown, reStructuredText,
    # .txt (which may be reStructuredText) and HTML files are read again.
    s._db.execute("DELETE FROM textsearch_meta WHERE key LIKE 'markdown_text:%'")
    again = s.index_path(notes)
    assert (again.added, again.updated, again.unchanged) == (0, 3, 0)
    assert s.document_count == 3
    settled = s.index_path(notes)
    assert (settled.added, settled.updated, settled.unchanged) == (0, 0, 3)
    hits = s.get_text_search_results_sync("subdomains").results
    value = hits[0].value or ""
    assert "subdomains too" in value and "|---" not in value and "`" not in value
    s.close()


def test_rst_splits_by_underlined_and_overlined_titles() -> None:
    raw = (
        "=========\nRST Guide\n=========\n\nOpening words.\n\n"
        "Install Steps\n-------------\n\nRun pip.\n\n  Indented text\n  ------------\n\n"
        "Usage\n~~~~~\n\nCall it.\n"
    )
    title, passages = split_document(raw, ".rst")
    assert title == "RST Guide"
    assert [(p.heading, p.anchor) for p in passages] == [
        ("RST Guide", "rst-guide"),
        ("Install Steps", "install-steps"),
        ("Usage", "usage"),
    ]
    assert "Indented text" in passages[1].text  # an indented block is not a title


def test_html_splits_by_heading_ids_and_drops_chrome() -> None:
    raw = (
        "<html><head><title>Page &amp; Title</title><style>h1{}</style></head><body>"
        "<nav>menu words</nav><h1>Page Title</h1><p>Lead text.</p>"
        '<h2 id="setup">Set&shy;up</h2><p>Install it.</p>'
        '<a name="use"></a><h2>Use</h2><p>Call <code>search()</code>.</p>'
        "<h3>No id</h3><p>Plain.</p><script>var hidden = 1</script></body></html>"
    )
    title, passages = split_document(raw, ".html")
    assert title == "Page & Title"
    assert [(p.heading, p.anchor) for p in passages] == [
        ("Page Title", None),
        ("Set\xadup", "setup"),
        ("Use", "use"),
        ("No id", None),
    ]
    assert passages[2].text == "Call search()."
    text = " ".join(p.text for p in passages)
    assert "menu" not in text and "hidden" not in text


def test_plain_text_splits_by_paragraphs_within_the_bound() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 60 for i in range(12)]
    raw = "Title line\n\n" + "\n\n".join(paragraphs)
    title, passages = split_document(raw, ".txt", limit=800)
    assert title == "Title line"
    assert len(passages) > 3
    assert all(len(p.text) <= 800 for p in passages)
    assert all(p.heading is None for p in passages)
    # no paragraph is cut when paragraphs fit, and none is lost
    assert "\n\n".join(p.text for p in passages) == raw.replace(" \n", "\n").strip()
    assert passages[1].line > passages[0].line


def test_an_over_long_paragraph_is_cut_at_sentences() -> None:
    raw = " ".join(f"Sentence number {i} is here." for i in range(400))
    _, passages = split_document(raw, ".txt", limit=500)
    assert all(len(p.text) <= 500 for p in passages)
    assert all(p.text.endswith(".") for p in passages)


# -- passages in the index -------------------------------------------------------------------


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "ops.md").write_text(MARKDOWN, encoding="utf-8")
    (root / "log.txt").write_text(
        "Server log\n\nstartup ok\n\n"
        + "".join(f"filler paragraph {i} " + "word " * 40 + "\n\n" for i in range(40))
        + "kangaroo crash here\n"
    )
    return root


def test_index_path_results_name_and_link_the_section(notes: Path) -> None:
    s = LocalTextSearch()
    s.index_path(notes)
    first = s.get_text_search_results_sync("exponential backoff")[0]
    assert first.name == "Operations guide › Retry policy"
    assert first.link == f"{notes / 'ops.md'}#retry-policy"
    assert first.value is not None and first.value.startswith("Retry failed calls")
    crash = s.get_documents_sync("kangaroo crash")[0]
    assert crash.title == "Server log" and crash.section is None and crash.line is not None
    assert crash.link == f"{notes / 'log.txt'}#L{crash.line}"
    lines = (notes / "log.txt").read_text().splitlines()
    assert crash.text.startswith(lines[crash.line - 1].rstrip())  # the link points at its start
    assert crash.text.endswith("kangaroo crash here") and len(crash.text) <= 1500


def test_results_collapse_to_one_per_document(notes: Path) -> None:
    many = LocalTextSearch()
    many.index_path(notes)
    assert [d.id for d in many.get_documents_sync("retry")].count(str(notes / "ops.md")) == 2
    one = LocalTextSearch(one_per_document=True)
    one.index_path(notes)
    found = one.get_documents_sync("retry", include_total_count=True)
    assert [d.id for d in found] == [str(notes / "ops.md")]
    assert found.total_count == 1


def test_add_documents_chunk_splits_long_texts() -> None:
    s = LocalTextSearch()
    s.add_documents(
        [{"id": "g", "title": "Guide", "text": MARKDOWN, "link": "https://x.example/guide"}],
        chunk=True,
    )
    hit = s.get_documents_sync("setext timeouts")[0]
    assert (hit.id, hit.section, hit.text) == ("g", "Setext section", "Timeouts are always set.")
    assert hit.link == "https://x.example/guide#setext-section"
    whole = LocalTextSearch()
    whole.add_documents([{"id": "g", "title": "Guide", "text": MARKDOWN}])
    assert whole.get_documents_sync("setext timeouts")[0].text == MARKDOWN


def test_reindexing_a_changed_file_replaces_its_passages(notes: Path) -> None:
    s = LocalTextSearch()
    s.index_path(notes)
    before = s._db.execute("SELECT count(*) FROM passages").fetchone()[0]
    (notes / "ops.md").write_text("# Ops\n\nOnly one section now: wombats.\n", encoding="utf-8")
    os.utime(notes / "ops.md", ns=(0, 10**18))
    report = s.index_path(notes)
    assert (report.updated, report.unchanged) == (1, 1)
    assert s._db.execute("SELECT count(*) FROM passages").fetchone()[0] == before - 3
    assert s.search_sync("exponential backoff").results == []
    assert s.get_text_search_results_sync("wombats")[0].name == "Ops"


def test_window_is_bounded_and_centred_on_the_hits() -> None:
    text = "intro " * 500 + "the rare koala sleeps " + "outro " * 500
    window = best_window(text, hit_pattern(["koala"]), 200, None)
    assert "koala" in window and len(window) <= 202
    assert window.startswith("…") and window.endswith("…")
    marked = best_window(text, hit_pattern(["koalas"]), 200, ("<", ">"))
    assert "<koala>" in marked


# -- natural-language ranking ------------------------------------------------------------------

CORPUS = [
    {"id": "start", "title": "Getting started", "text": "How do I install it? How do I begin?"},
    {"id": "retry", "title": "Retries", "text": "Retry safely: make requests idempotent."},
    {"id": "safe", "title": "Safety", "text": "Run it safely behind a proxy."},
    {"id": "other", "title": "Caching", "text": "Cache results for five minutes."},
]


def test_a_question_ranks_by_its_content_words() -> None:
    s = LocalTextSearch()
    s.add_documents(CORPUS)
    found = s.get_documents_sync("How do I retry safely?", include_total_count=True)
    # both content words first, one of them next; "how do I" alone matches nothing
    assert [d.id for d in found] == ["retry", "safe"]
    assert found.total_count == 2


def test_a_query_of_stop_words_only_still_searches_them() -> None:
    s = LocalTextSearch()
    s.add_documents(CORPUS)
    assert [d.id for d in s.get_documents_sync("how do I")] == ["start"]


def test_more_matching_words_rank_higher_and_nothing_that_matches_is_lost() -> None:
    s = LocalTextSearch()
    s.add_documents(
        [
            {"id": "three", "text": "alpha beta gamma"},
            {"id": "two", "text": "alpha beta delta"},
            {"id": "one", "text": "alpha epsilon zeta"},
            {"id": "none", "text": "omega"},
        ]
    )
    found = s.get_documents_sync("alpha beta gamma", include_total_count=True)
    assert [d.id for d in found] == ["three", "two", "one"]
    assert found.total_count == 3


# -- no markup on any model-facing path -------------------------------------------------------


def _clean(text: str) -> None:
    for mark in MARKUP:
        assert mark not in text, (mark, text[:200])


@pytest.fixture
def search(notes: Path) -> LocalTextSearch:
    s = LocalTextSearch()
    s.index_path(notes)
    return s


def test_plugin_tool_results_carry_no_markup(search: LocalTextSearch) -> None:
    for kind in ("search", "text_search_results", "search_results"):
        fn = create_search_function(search, kind=kind)  # type: ignore[arg-type]
        out = fn.invoke_sync({"query": "exponential backoff"})
        assert "exponential backoff" in out
        _clean(out)


def test_grounding_prompts_carry_no_markup(search: LocalTextSearch) -> None:
    grounded = ground_sync(search, "exponential backoff")
    assert "exponential backoff" in grounded.prompt
    _clean(grounded.prompt)
    text = format_results(search.get_text_search_results_sync("backoff"), query="backoff")
    assert "exponential backoff" in text
    _clean(text)


def _run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cwd / "cache")}
    return subprocess.run(
        [sys.executable, "-m", "textsearch", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def test_cli_json_and_piped_text_carry_no_markup(notes: Path, tmp_path: Path) -> None:
    as_json = _run_cli(
        "search", "exponential backoff", "--path", str(notes), "--json", cwd=tmp_path
    )
    assert as_json.returncode == 0, as_json.stderr
    payload = json.loads(as_json.stdout)
    assert payload["results"][0]["value"].startswith("Retry failed calls with exponential")
    _clean(as_json.stdout)
    piped = _run_cli("search", "exponential backoff", "--path", str(notes), cwd=tmp_path)
    assert "exponential backoff" in piped.stdout
    _clean(piped.stdout)


def test_cli_highlights_with_ansi_on_a_terminal_only(notes: Path) -> None:
    from io import StringIO

    from textsearch.cli.search import terminal_highlight as _terminal_highlight

    class Terminal(StringIO):
        def isatty(self) -> bool:
            return True

    s = LocalTextSearch()
    _terminal_highlight(s, StringIO(), "numbered")
    assert s.highlight is None
    _terminal_highlight(s, Terminal(), "json")
    assert s.highlight is None
    _terminal_highlight(s, Terminal(), "numbered")
    assert s.highlight == ("\x1b[1m", "\x1b[22m")
    s.index_path(notes)
    assert "\x1b[1mbackoff\x1b[22m" in s.search_sync("backoff")[0]


@pytest.mark.anyio
async def test_mcp_tool_results_carry_no_markup(search: LocalTextSearch) -> None:
    from mcp import Client

    plugin = create_search_plugin(search)
    async with Client(plugin.create_mcp_server()) as client:
        result: Any = await client.call_tool("search", {"query": "exponential backoff"})
    texts = [block.text for block in result.content if block.type == "text"]
    assert texts and "exponential backoff" in texts[0]
    for text in texts:
        _clean(text)
    _clean(json.dumps(result.structured_content))  # the structured copy is clean too


def test_an_unclosed_html_heading_does_not_swallow_the_page() -> None:
    raw = "<h1>Guide</h1><h2 id='a'>Install<p>Run the installer.</p><h2>Use</h2><p>Call it.</p>"
    _, passages = split_document(raw, ".html")
    assert [(p.heading, p.text) for p in passages] == [
        ("Install", "Run the installer."),
        ("Use", "Call it."),
    ]


def test_very_common_words_are_left_out_only_when_the_page_stays_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import textsearch.connectors.local._fts as fts

    monkeypatch.setattr(fts, "_COMMON_FLOOR", 10)
    s = LocalTextSearch()
    s.add_documents({"id": f"c{i}", "text": f"common filler {i}"} for i in range(40))
    s.add_documents({"id": f"r{i}", "text": f"common and rare {i}"} for i in range(6))
    # the rare word alone fills a page of 5: "common" is left out, and said so
    pruned = s.get_search_results_sync("common rare", top=5)
    # FTS5 leaves the common word out; tantivy's top-k pruning needs no such plan
    assert pruned.metadata.get("left_out") == (["common"] if s.engine == "sqlite" else None)
    assert len(pruned) == 5 and all(d.id.startswith("r") for d in pruned)
    # a page of 10 needs the common word's documents too: nothing is left out
    full = s.get_search_results_sync("common rare", top=10)
    assert "left_out" not in full.metadata
    assert [d.id[0] for d in full][:6] == ["r"] * 6 and len(full) == 10
    # with a total count asked for, every match counts: nothing is left out
    counted = s.get_search_results_sync("common rare", top=5, include_total_count=True)
    assert counted.total_count == 46 and "left_out" not in counted.metadata
    # a word in no document is not "rare": the common one is kept (the old fallback bug)
    kept = s.get_search_results_sync("tirasemtiv common", top=5)
    assert len(kept) == 5 and "left_out" not in kept.metadata


def test_a_query_of_common_words_ranks_passages_holding_all_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import textsearch.connectors.local._fts as fts

    monkeypatch.setattr(fts, "_COMMON_FLOOR", 10)
    s = LocalTextSearch()
    s.add_documents({"id": f"a{i}", "text": f"alpha only {i}"} for i in range(30))
    s.add_documents({"id": f"b{i}", "text": f"beta only {i}"} for i in range(30))
    s.add_documents({"id": f"ab{i}", "text": f"alpha beta {i}"} for i in range(12))
    page = s.get_search_results_sync("alpha beta", top=10)
    assert [d.id[:2] for d in page] == ["ab"] * 10
    # more than the passages holding both: the others follow, nothing is lost
    longer = s.get_search_results_sync("alpha beta", top=20)
    assert [d.id[:2] for d in longer][:12] == ["ab"] * 12 and len(longer) == 20


def test_hits_start_words_ignore_case_and_keep_positions() -> None:
    finder = hit_pattern(["Retries", "数据"])
    assert finder is not None
    text = "İstanbul: preretry is not a hit; RETRYING is, and so is 数据库 here"
    hits = finder.hits(text, 100)
    # "preretry" holds the stem inside a word: not a hit. Positions index the original text
    # even though "İ" grows when lower-cased.
    assert [text[start:end] for start, end, _ in hits] == ["RETRYING", "数据"]
    assert [key for _, _, key in hits] == ["retrying", "数据"]


def test_hits_are_bounded_and_in_text_order() -> None:
    finder = hit_pattern(["koala", "数"])
    assert finder is not None
    text = "数 koala " * 50
    hits = finder.hits(text, 7)
    assert len(hits) == 7
    assert [start for start, _, _ in hits] == sorted(start for start, _, _ in hits)


# -- markup read by real parsers (issue #22, DESIGN §11.4) ------------------------------------

CODE_AFTER_BLANK = """# Testing

```python
def test_cat():
    runner = CliRunner()
    with runner.isolated_filesystem():
        write()

        result = runner.invoke(cat)
    assert result.exit_code == 0
```
"""


def test_code_lines_after_a_blank_line_keep_their_indentation() -> None:
    pytest.importorskip("markdown_it")
    # The first line after a blank line lost its indentation: result = ... left the with block.
    _, passages = split_document(CODE_AFTER_BLANK, ".md")
    text = "\n\n".join(p.text for p in passages)
    assert "        write()\n\n        result = runner.invoke(cat)\n    assert" in text


def test_code_is_kept_exactly_by_the_chunk_splitter_too() -> None:
    from textsearch.documents._split import split_text

    passages = split_text(CODE_AFTER_BLANK)
    assert "        write()\n\n        result = runner.invoke(cat)" in passages[0].text


MYST = """---
title: Testing click
---
(testing)=
# Testing

% a comment
Use {class}`CliRunner` and see {ref}`the guide <guide>` or {func}`~click.testing.invoke`.

:::{note}
A **note** with `code`.
:::

```{code-block} python
:caption: example.py

import click
```
"""


def test_myst_roles_directives_and_targets_become_text() -> None:
    pytest.importorskip("markdown_it")
    title, passages = split_document(MYST, ".md")
    assert title == "Testing click"
    (passage,) = passages
    assert passage.heading == "Testing"
    assert passage.text == (
        "Use CliRunner and see the guide or invoke().\n\nNote:\nA note with code.\n\nimport click"
    )


RST = """.. _testing:

=======
Testing
=======

.. versionadded:: 2.0
   Added :class:`CliRunner` with ``invoke``.

See :ref:`the guide <guide>` and |project|.

.. |project| replace:: Click

.. code-block:: python
   :caption: test_cat.py
   :emphasize-lines: 3

   def test_cat():
       with runner.isolated_filesystem():
           write()

           result = runner.invoke(cat)

Literal block::

    $ pip install click

.. click:example::

    @click.command()
    def cli():
        pass

Options
-------

:param name: who to greet
"""


def test_rst_roles_directives_and_substitutions_become_text() -> None:
    pytest.importorskip("docutils")
    title, passages = split_document(RST, ".rst")
    assert title == "Testing"
    assert [p.heading for p in passages] == ["Testing", "Options"]
    first = passages[0].text
    assert "Added CliRunner with invoke." in first
    assert "See the guide and Click." in first
    assert "    with runner.isolated_filesystem():\n        write()\n\n        result =" in first
    assert "$ pip install click" in first and "Literal block:" in first
    assert "@click.command()\ndef cli():\n    pass" in first
    for markup in (":class:", "``", ".. ", ":caption:", "|project|", "===", "::"):
        assert markup not in first, markup
    assert passages[1].text == "param name: who to greet"


RST_TABS = (
    "Build\n=====\n\n"
    ".. code-block:: make\n\n   all: x.o\n   \tcc -o all x.o   \n\n"
    "A literal block::\n\n\tif x:\n\t\treturn 1\n\n"
    "Tabs in prose\tare blanks.\n"
)


def test_rst_code_blocks_keep_their_tabs_and_blanks_byte_for_byte() -> None:
    pytest.importorskip("docutils")
    # docutils expands tabs to spaces and drops trailing blanks: a Makefile's recipe line
    # must start with a tab, so the reader takes code lines back from the file.
    _, passages = split_document(RST_TABS, ".rst")
    text = passages[0].text
    assert "all: x.o\n\tcc -o all x.o   " in text
    assert "if x:\n\treturn 1" in text  # the block's own indent (one tab) off, the rest kept
    assert "        cc" not in text and "        return" not in text
    # MyST's {eval-rst} bodies too, and their lines are the file's.
    myst = "# Build\n\n```{eval-rst}\n.. code-block:: make\n\n   all:\n   \tcc x.c\n```\n"
    (passage,) = split_document(myst, ".md")[1]
    assert passage.text == "all:\n\tcc x.c" and passage.line == 6


def test_code_right_under_a_code_directive_is_kept() -> None:
    pytest.importorskip("docutils")
    # With no blank line after the directive, docutils reads the first lines as its argument:
    # click's docs lost whole examples that way.
    rst = (
        "Run\n===\n\n.. click:example::\n    @click.command()\n    def hello():\n        pass\n\n"
        "    hello.name = 'hi'\n\n.. click:run::\n    invoke(hello)\n\n"
        ".. code-block:: python\n\n   x = 1\n"
    )
    (passage,) = split_document(rst, ".rst")[1]
    assert passage.text == (
        "@click.command()\ndef hello():\n    pass\n\nhello.name = 'hi'\n\ninvoke(hello)\n\nx = 1"
    )
    assert passage.line == 5


def test_rst_with_a_line_too_long_for_docutils_keeps_the_rest_of_the_file() -> None:
    pytest.importorskip("docutils")
    # docutils refuses a whole document with a line over 10,000 characters; the line is
    # kept as text (the same line in Markdown is kept), the rest read as markup.
    long = " ".join(f"w{n}" for n in range(3_000))
    rst = "Guide\n=====\n\nThe :ref:`findme <x>` paragraph.\n\n" + long + "\n\nLast words.\n"
    passages = split_document(rst, ".rst")[1]
    assert {p.heading for p in passages} == {"Guide"}
    text = "\n".join(p.text for p in passages)
    assert text.startswith("The findme paragraph.") and text.endswith("Last words.")
    assert text.split()[3:-2] == long.split()
    md = split_document("# Guide\n\n" + long + "\n", ".md")[1]
    assert "\n".join(p.text for p in md).split() == long.split()


def test_an_rst_parse_that_fails_leaves_the_next_one_intact() -> None:
    pytest.importorskip("docutils")
    deep = "".join("  " * depth + "- item\n\n" for depth in range(300))
    _, passages = split_document("Deep\n====\n\n" + deep, ".rst")  # read as plain text
    assert passages and "\n".join(p.text for p in passages).split().count("item") == 300
    _, passages = split_document(RST, ".rst")
    assert [p.heading for p in passages] == ["Testing", "Options"]


# MyST {eval-rst} bodies, and whether docutils must read them (markup, a list, a title,
# a body...) or they are plain enough to be read without it.
TABS = (
    ".. tabs::\n\n    .. group-tab:: Powershell\n\n        .. code-block:: powershell\n\n"
    "           > echo $LASTEXITCODE\n\n    .. group-tab:: Bash\n\n"
    "        .. code-block:: bash\n\n            $ echo $?\n\n"
    "    .. group-tab:: Command Prompt\n\n\n        .. code-block:: text\n\n"
    "            > echo %ERRORLEVEL%\n"
)
EVAL_RST_BODIES = [
    (".. currentmodule:: click\n", False),
    (
        ".. click:example::\n\n    @click.command()\n    def cli():\n\n        pass  \n\n"
        "What it looks like:\n\n.. click:run::\n\n    invoke(cli)\n",
        False,
    ),
    (".. code-block:: python\n   :caption: x\n\n      deeper\n   back\n", False),
    (".. code-block:: python\n\n\n   a\n\n   b\n   \n\n", False),
    (".. autofunction:: get_current_context\n\n.. autoclass:: BaseCommand\n   :members:\n", False),
    ("Two lines\nof text.\n\nAnother one, with (parentheses) and it's quoted.\n", False),
    # Code right under the directive: docutils' first lines are its argument, given back.
    (".. click:example::\n    no blank line\n", False),
    (
        ".. click:example::\n    import click\n\n    @click.command()\n    def hello():\n"
        "        click.echo('a\\n')\n\n.. click:run::\n    invoke(hello, args=['--help'])\n",
        False,
    ),
    (".. click:run::\n      deeper first\n    then back\n", True),
    (".. click:run::\n    :opt: x\n    code\n", True),
    (".. code-block:: python\n    no blank line\n", True),
    (".. code::\n\n   x\nplain text right after\n", True),
    (".. code:: python\n   :caption: x\n     continued\n\n   y\n", True),
    # Directives docutils does not know: their argument, then their body, read the same way.
    (".. autoclass:: x\n\n   Body text.\n", False),
    (
        ".. autoclass:: x\n   :members:\n\n   Body with :meth:`run` and ``code``.\n\n"
        "   .. automethod:: run\n",
        False,
    ),
    (TABS, False),
    (
        ".. tabs::\n\n   .. tab:: Not text\n\n      Words.\n\n      .. code-block:: sh\n\n"
        "         $ run\n\n   .. group-tab:: Shown\n\n      .. tabs::\n\n"
        "         .. group-tab:: Inner\n\n            Deeper words.\n",
        False,
    ),
    (".. tabs::\n    .. group-tab:: An argument, not a body\n", True),
    (".. autoclass:: x\n   :members:\n   :Members:\n", True),  # docutils refuses a repeat
    (".. my__name:: not a directive\n", True),  # a comment to docutils
    (".. autoclass:: x\n\n      Body less its indent.\n", False),
    (".. autoclass:: x\n   :members:\n\n      Quoted body.\n", True),
    (".. autoclass:: *x*\n", True),
    (".. note:: plain\n", True),
    # Version directives and seealso: their label (Sphinx's words) above their text.
    (".. versionchanged:: 2.4\n", False),
    (".. versionadded:: 3.0\n   The ``foo`` argument.\n", True),  # an argument of two lines
    (".. deprecated:: 3.1 Use :func:`bar`.\n\n   More words.\n", False),
    (".. seealso:: :ref:`other`\n", False),
    (".. versionadded:: 1.0\n\n   .. code-block:: python\n\n      x = 1\n", False),
    ("- .. versionadded:: 2.0 in a list\n- .. seealso:: x\n- .. deprecated:: 3\n", False),
    (".. tabs::\n\n   .. tab:: ``netstat`` (Linux)\n\n      Words.\n", False),
    ("- .. tab:: Linux\n- .. versionadded:: 2.0\n", True),  # a tab with no text in a list
    # Sphinx's class (not docutils'), and names only made link targets of.
    (".. class:: Field(verbose_name=None)\n\n    A field.\n", True),
    (".. class:: Field\n\n    A field.\n", False),
    (".. confval:: x\n   :type: int\n\n   Words.\n", True),  # an option the page shows
    (".. confval:: x\n   :no-index:\n\n   Words.\n", False),
    (".. setting:: DEBUG\n\n.. module:: django.urls\n   :synopsis: URLs\n\nSome text.\n", False),
    (".. figure:: x.png\n", True),
    # Roles, titles and literals in words.
    (
        "Use :func:`confirmation_option` or `fp` with ``x y`` (:class:`a <b>`) and\n"
        ":class:`~a.b.c`, then _f.\n# Not a heading\n",
        False,
    ),
    ("A :code:`role docutils knows`.\n", True),
    ("A `title`_ link and a `name`:role: after.\n", True),
    ("Escaped \\`x\\`.\n", True),
    ("a`b` glued\n", True),
    ("__init__ names\n", True),
    # Lists of words or of unknown directives.
    (
        "*   .. autoclass:: Choice\n       :noindex:\n*   two words\n    with `more`\n\n-  x\n",
        False,
    ),
    ("- one\n- two\nno blank line after\n", True),
    ("- one\n\n  second paragraph\n", True),
    ("*   .. autoclass::\n       :noindex:\n", True),
    # list-table: its title, then a line a row.
    (
        ".. list-table:: Examples\n    :widths: 15 10\n    :header-rows: 1\n\n"
        '    * - Decorator Arguments\n      - Function Name\n    * - ``"-f", "--foo-bar"``\n'
        '      - foo_bar\n    * - ``"---f"``\n      - _f\n',
        False,
    ),
    (".. list-table::\n\n   * - a\n     -\n   * - b\n     - the end.\n", False),
    (".. list-table::\n\n   * - a\n   * - b.\n", True),  # "b." is a list in a cell
    (".. list-table::\n   :widths: 1 2 3\n\n   * - a\n     - b\n", True),  # a refused width
    (".. list-table::\n\n   * - a\n     - b\n   * - c\n", True),  # rows of two lengths
    (".. list-table::\n   :header-rows: 1\n\n   * - a\n", True),  # no body row left
    (".. list-table::\n\n   * - a\n       continued\n", True),
    ("A. Smith wrote\nthis.\n", True),
    ("Title\n=====\n", True),
    ("Term\n   definition\n", True),
    ("Text ending::\n\n    code\n", True),
    ("a_b_ and c\n", True),
    ("(a) one\n", True),
    ("#. one\n", True),
    ("Para\n- not a list\n", True),
    ("Para\n----\n", True),
    ("Para\nlines\n:role:`x` and (`y`)\n", False),
    ("Some *emphasis* and ``code``.\n", True),
]


@pytest.mark.parametrize(("body", "needs_docutils"), EVAL_RST_BODIES)
def test_eval_rst_bodies_read_without_docutils_read_as_docutils_reads_them(
    body: str, needs_docutils: bool
) -> None:
    pytest.importorskip("docutils")
    from textsearch.documents import _rst

    fast = _rst._directives_only(body, 20)
    assert (fast is None) is needs_docutils
    document = _rst._parse(body)
    walker = _rst._Walker(document, body, 20, False)
    for child in document.children:
        walker.walk(child)
    if fast is not None:
        assert fast == walker.blocks
    assert _rst.rst_blocks(body, 20) == walker.blocks


def test_the_docutils_names_known_without_importing_it_are_the_installed_ones() -> None:
    # Reading a body without docutils needs its directive and role names; a name missing
    # here would read as generic where docutils has its own.
    pytest.importorskip("docutils")
    from docutils.parsers.rst import directives, roles
    from docutils.parsers.rst.languages import en

    from textsearch.documents import _rst

    registry = directives._directive_registry  # type: ignore[attr-defined]
    assert {*en.directives, *registry} <= _rst._DOCUTILS_DIRECTIVES
    assert {*en.roles, *roles._role_registry} <= _rst._DOCUTILS_ROLES  # type: ignore[attr-defined]


def test_myst_eval_rst_bodies_without_markup_need_no_docutils_import() -> None:
    pytest.importorskip("docutils")
    # In a new process: a MyST file whose eval-rst bodies are all read without docutils
    # never imports it (its import and set-up were most of a cold read of click's docs).
    import subprocess
    import sys

    myst = "# T\n\n```{eval-rst}\n" + TABS + "```\n\n```{eval-rst}\n.. click:run::\n    x()\n```\n"
    code = (
        "import sys\nfrom textsearch.documents._split import split_document\n"
        f"_, passages = split_document({myst!r}, '.md')\n"
        "assert 'docutils' not in sys.modules, 'docutils imported'\n"
        "print(passages[0].text)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    # each tab under its label (as MkDocs' tabs read), the code as written
    assert "Powershell:\n\n> echo $LASTEXITCODE\n\nBash:" in done.stdout and "x()" in done.stdout


def test_txt_files_that_are_rst_are_read_as_rst_and_formats_force_a_reading(
    tmp_path: Path,
) -> None:
    pytest.importorskip("docutils")
    (tmp_path / "guide.txt").write_text(RST)
    (tmp_path / "notes.txt").write_text("Plain notes.\n\nWith a :class:`thing` kept as is.\n")
    s = LocalTextSearch()
    s.index_path(tmp_path)
    guide = s.get_text_search_results_sync("CliRunner").results[0]
    assert "Testing" in (guide.name or "") and ":class:" not in (guide.value or "")
    notes = s.get_text_search_results_sync("thing").results[0]
    assert ":class:`thing`" in (notes.value or "")  # not reStructuredText: left alone
    # Forced: every .txt file is read as reStructuredText, and re-read once for that.
    report = s.index_path(tmp_path, formats={".txt": "rst"})
    assert report.updated == 2
    notes = s.get_text_search_results_sync("thing").results[0]
    assert "With a thing kept as is." in (notes.value or "")
    assert s.index_path(tmp_path, formats={".txt": "rst"}).unchanged == 2
    with pytest.raises(ConfigurationError, match="formats"):
        s.index_path(tmp_path, formats={".txt": "latex"})
    s.close()
