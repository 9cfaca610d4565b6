"""MkDocs pages (Python-Markdown and pymdown-extensions syntax) read into clean passages (#30).

Read as plain CommonMark, an admonition's marker stays text and its indented body becomes a
code block kept verbatim, links and backticks included; these tests read each construct
through the Markdown reader and check what a model would get.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from textsearch import LocalTextSearch
from textsearch.documents import read_path
from textsearch.documents._dialects import unfold
from textsearch.documents._markdown import markdown_sections

# What MkDocs syntax looks like when it leaks into prose.
_LEAKS = re.compile(
    r'^\s*(?:!!!|\?\?\?|===[!+]*\s+"|/{3}|::: |-+8<-+)|\{:|\{ *[.#]|:material-|\[\^|==\w|\+\+\w',
    re.M,
)

PAGE = """\
# Install { #setup }

[:octicons-file-code-24:][source]{: .source-link }

Press ++ctrl+alt+del++ to restart, ==mind this== and ^^this^^.[^1]

!!! note "Read this first"
    The `status_code` parameter is not supported with [WebSockets](ws.md).

    ```python
    app = Starlette()
    ```

!!! tip

    Use **DatabaseURL** to keep secrets out of logs.

??? abstract "API Reference"
    ::: starlette.applications.Starlette
        options:
            show_root_heading: true

=== "pip"

    ```bash
    pip install starlette
    ```

=== "uv"
    Run `uv add starlette`.

- A list item

    !!! warning
        Nested under the item.

/// warning | Careful now
    type: danger

Do not run this twice.
///

/// html | div.result
Rendered result.
///

--8<-- "includes/abbreviations.md"

--8<--
first.md
second.md
--8<--

*[HTML]: Hyper Text Markup Language

[^1]: The footnote's text.

[source]: https://example.com/source.py
"""


def _blocks(text: str) -> list[tuple[int, bool, str]]:
    _, sections = markdown_sections(text)
    return [(block.line, block.code, block.text) for *_, blocks in sections for block in blocks]


def test_every_construct_reads_as_what_it_shows() -> None:
    blocks = _blocks(PAGE)
    prose = [text for _, code, text in blocks if not code]
    code = [text for _, is_code, text in blocks if is_code]
    assert prose == [
        "Press Ctrl+Alt+Del to restart, mind this and this.[1]",
        "Read this first:\nThe status_code parameter is not supported with WebSockets.",
        "Tip:\nUse DatabaseURL to keep secrets out of logs.",
        "pip:",
        "uv:\nRun uv add starlette.",
        "- A list item\n  Warning:\n  Nested under the item.",
        "Careful now:\nDo not run this twice.",
        "Rendered result.",
        "HTML: Hyper Text Markup Language",
        "[1] The footnote's text.",
    ]
    # the bodies' code blocks are code again, without their fences or the body's indent
    assert code == ["app = Starlette()", "pip install starlette"]


def test_blocks_keep_the_lines_they_stand_on() -> None:
    lines = PAGE.split("\n")

    def line_of(needle: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if needle in line)

    starts = {text.split("\n")[0]: line for line, _, text in _blocks(PAGE)}
    assert starts["Press Ctrl+Alt+Del to restart, mind this and this.[1]"] == line_of("Press")
    assert starts["Read this first:"] == line_of("Read this first")
    assert starts["app = Starlette()"] == line_of("```python")  # a fence by its opening line
    assert starts["Rendered result."] == line_of("Rendered result.")
    assert starts["[1] The footnote's text."] == line_of("[^1]: The footnote")
    unfolded, _ = unfold(PAGE)
    assert len(unfolded.split("\n")) == len(lines)


def test_a_heading_id_becomes_the_sections_anchor() -> None:
    _, sections = markdown_sections(PAGE)
    assert [(heading, anchor) for heading, anchor, *_ in sections if heading] == [
        ("Install", "setup")
    ]
    _, sections = markdown_sections("# Usage {#how-to .wide}\n\ntext\n\n# Usage\n\nmore\n")
    assert [anchor for _, anchor, *_ in sections if anchor] == ["how-to", "usage"]


def test_fenced_examples_of_the_syntax_stay_exact() -> None:
    example = '!!! note "Title"\n    Body with **bold**.\n\n=== "Tab"\n    Tab body.\n'
    page = f"# Syntax\n\n````text\n{example}````\n\n~~~\n/// tip\nx\n///\n~~~\n"
    code = [text for _, is_code, text in _blocks(page) if is_code]
    assert code == [example.rstrip("\n"), "/// tip\nx\n///"]


def test_containers_inside_a_quote_and_icons_in_titles() -> None:
    page = (
        '> TIP: **Hint**\n>\n> === ":simple-python: pip"\n>     ```bash\n>     pip install x\n'
        ">     ```\n>\n> !!! note\n>     Inside the quote.\n\n[](){#command-3.x}\n"
    )
    assert _blocks(page) == [
        (1, False, "TIP: Hint"),
        (3, False, "pip:"),
        (4, True, "pip install x"),
        (8, False, "Note:\nInside the quote."),
    ]


def test_github_alerts_and_colon_containers_show_their_titles() -> None:
    page = (
        "> [!WARNING]\n> Back up first.\n\n:::tip[Short cut]\nPress Tab.\n:::\n\n"
        "::: details Click me\nHidden text.\n:::\n"
    )
    assert [text for _, _, text in _blocks(page)] == [
        "Warning:\nBack up first.",
        "Short cut:\nPress Tab.",
        "Click me:\nHidden text.",
    ]


def test_windows_line_ends() -> None:
    page = '# T\r\n\r\n!!! note "Heads up"\r\n    Body text.\r\n\r\n=== "pip"\r\n    Run it.\r\n'
    assert _blocks(page) == [(3, False, "Heads up:\nBody text."), (6, False, "pip:\nRun it.")]


def test_a_page_without_the_syntax_is_left_as_it_is() -> None:
    plain = "# Title\n\nSome `code` and a [link](x.md).\n\n    indented code\n"
    assert unfold(plain) == (plain, {})


def test_pandoc_fenced_divs_are_not_taken_for_mkdocstrings() -> None:
    # A ``:::`` that a later line closes is a colon fence, read as before.
    page = "::: warning\nStay out.\n:::\n"
    assert unfold(page)[0] == page
    assert unfold("::: pkg.module\n    options:\n      x: 1\n\nText.\n")[0] == "\n\n\n\nText.\n"


def test_an_admonition_whose_body_is_all_dropped_leaves_nothing() -> None:
    page = '??? abstract "API Reference"\n    ::: pkg.Thing\n        options:\n            a: 1\n'
    assert [text for _, _, text in _blocks(page)] == []


def test_index_path_gives_a_model_clean_passages(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text(PAGE, encoding="utf-8")
    guide = "# Guide\n\nIntro.\n\n## Options { #opts }\n\n!!! note\n    Sockets need `ws_route`.\n"
    (docs / "guide.md").write_text(guide, encoding="utf-8")
    with LocalTextSearch(str(tmp_path / "index.sqlite3")) as search:
        search.index_path(docs)
        (hit,) = search.get_text_search_results_sync("sockets ws_route").results
        assert hit.link.endswith("guide.md#opts")
        assert hit.value == "Note:\nSockets need ws_route."
        hits = search.get_text_search_results_sync("WebSockets status_code").results
        assert "Read this first:\nThe status_code parameter" in hits[0].value
        for hit in search.get_text_search_results_sync("restart secrets twice result").results:
            assert not _LEAKS.search(hit.value), hit.value
    for document in read_path(docs):
        assert not _LEAKS.search(document["text"]), document["text"]


def test_list_items_carry_no_trailing_blanks() -> None:
    # A one-line item used to end in its continuation indent (two blanks: a hard break).
    page = "* From an environment variable.\n* From the `.env` file.\n  More.\n"
    (text,) = [text for _, _, text in _blocks(page)]
    assert text == "- From an environment variable.\n- From the .env file.\n  More."


_LINES = st.sampled_from(
    [
        "",
        "text",
        '!!! note "T"',
        "??? tip",
        '=== "Tab"',
        "    body",
        "        deeper",
        "\tTabbed body",
        "/// note | T",
        "/// html | div",
        "///",
        "////",
        "::: pkg.mod",
        ":::",
        "```",
        "~~~~",
        '--8<-- "a.md"',
        "--8<--",
        "*[A]: b",
        "[^1]: note",
        "# H { #id }",
        "x {: .c } ==m== ++a+b++ :material-x: [^2]",
        "> !!! note",
        ">     quoted body",
        "> ```",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=40))
def test_any_mix_keeps_its_line_count(lines: list[str]) -> None:
    raw = "\n".join(lines)
    unfolded, anchors = unfold(raw)
    assert len(unfolded.split("\n")) == len(raw.split("\n"))
    assert all(0 <= index < len(lines) for index in anchors)
    markdown_sections(raw)  # and the reader takes it


MDX_PAGE = """\
---
title: Install
---
import Tabs from '@theme/Tabs';
import {
  Foo,
} from '../components';

export const meta = {
  author: 'me',
};

# Installation

{/* a comment
that spans lines */}

<Tabs>
  <TabItem value="pip" label="pip">

```python
import textsearch
```

  </TabItem>
</Tabs>

:::note[Heads up]
Use **Python 3.10** or newer.
:::
"""


def test_an_mdx_page_is_indexed_without_its_code_of_page(tmp_path: Path) -> None:
    docs = tmp_path / "site"
    docs.mkdir()
    (docs / "install.mdx").write_text(MDX_PAGE, encoding="utf-8")
    (document,) = read_path(docs)
    assert document["title"] == "Install"
    # the ESM blocks and the comment are gone; the import inside the fence is code, kept
    assert document["text"] == "import textsearch\n\nHeads up:\nUse Python 3.10 or newer."
    with LocalTextSearch(str(tmp_path / "index.sqlite3")) as search:
        report = search.index_path(docs)
        assert report.added == 1
        (hit,) = search.get_text_search_results_sync("python newer").results
        assert hit.link.endswith("install.mdx#installation")


QUARTO_PAGE = """\
---
title: "Analysis"
---

## Load

```{python}
#| echo: false
# Read the data
import pandas as pd
```

```{r setup, include=FALSE}
library(dplyr)
```

::: {.callout-note}
Quarto **callout** text.
:::

```{.python filename="x.py"}
print("pandoc's class form")
```

```{note}
A MyST directive is still read as Markdown.
```
"""


def test_code_cells_of_quarto_and_r_markdown_are_code(tmp_path: Path) -> None:
    blocks = _blocks(QUARTO_PAGE)
    assert [(code, text) for _, code, text in blocks] == [
        (True, "#| echo: false\n# Read the data\nimport pandas as pd"),
        (True, "library(dplyr)"),
        (False, "Quarto callout text."),
        (True, 'print("pandoc\'s class form")'),
        (False, "Note:\nA MyST directive is still read as Markdown."),
    ]
    (tmp_path / "analysis.qmd").write_text(QUARTO_PAGE, encoding="utf-8")
    (tmp_path / "report.Rmd").write_text(QUARTO_PAGE, encoding="utf-8")
    documents = list(read_path(tmp_path))
    assert sorted(document["metadata"]["path"] for document in documents) == [
        "analysis.qmd",
        "report.Rmd",
    ]
    assert all(document["title"] == "Analysis" for document in documents)


def test_mkdocstrings_cross_references_read_as_their_text() -> None:
    # mkdocs-autorefs' [text][identifier] and [identifier][] have no reference definition:
    # CommonMark leaves brackets and identifier as written, the site shows a link's text.
    page = (
        "# Models\n\nSubclass [`BaseModel`][pydantic.BaseModel] or [the *model*][pydantic.main"
        ".BaseModel]; see [pydantic.Field][], [a section][field-types] and [the docs][docs].\n\n"
        "Left as written: [Field][], [Field], [text][1], matrix[i][j] and `m[k][v.w]`.\n\n"
        "[docs]: https://example.org/docs\n"
    )
    prose = [text for _, code, text in _blocks(page) if not code]
    assert prose == [
        "Subclass BaseModel or the model; see pydantic.Field, a section and the docs.",
        "Left as written: [Field][], [Field], [text][1], matrix[i][j] and m[k][v.w].",
    ]
