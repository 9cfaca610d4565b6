"""Crafted files cannot stall indexing: reading markup is linear in the input.

Each case is a file a hostile (or merely odd) folder could hold. The limit is generous (a
linear reader needs milliseconds; the patterns these cases caught took minutes to hours), so
the test fails on a blow-up, never on a slow machine.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from textsearch import LocalTextSearch

LIMIT_SECONDS = 5.0

CASES = {
    # the ATX heading pattern backtracked on a run of spaces: 3 KB took ~20 s, 10 KB an hour
    "atx-spaces": ("a.md", "# a" + " " * 60_000 + "x\n"),
    "atx-hashes": ("a.md", "# " + "#" * 30_000 + " " * 30_000 + "x\n"),
    "atx-tabs": ("a.md", "#\t" + "\t " * 30_000 + "#\n"),
    # inline patterns rescanned the rest of the line from every opener: 100 KB took 10.7 s
    "md-brackets": ("a.md", ("[" * 1_000 + "\n") * 100),
    "md-brackets-one-line": ("a.md", "[" * 100_000 + "\n"),
    "md-links-unclosed": ("a.md", "[a](" * 25_000 + "\n"),
    "md-images": ("a.md", "![" * 50_000 + "\n"),
    "md-emphasis-runs": ("a.md", "*a " * 30_000 + "\n"),
    "md-emphasis-nested": ("a.md", "*" * 30_000 + "a" + "_" * 30_000 + "\n"),
    "md-underscores": ("a.md", "a_" * 50_000 + "\n"),
    "md-html-comments": ("a.md", "<!--" * 25_000 + "\n"),
    "md-html-tags": ("a.md", "<a " * 30_000 + "\n"),
    "md-backticks": ("a.md", "`a" * 25_000 + "``b" * 10_000 + "\n"),
    "md-entities": ("a.md", "&#" * 50_000 + "\n"),
    "md-nested-lists": ("a.md", "".join("  " * n + "- a\n" for n in range(700))),
    "md-nested-quotes": ("a.md", ">" * 50_000 + " a\n"),
    "md-quote-list-mix": ("a.md", "> - " * 20_000 + "a\n"),
    "md-long-table": ("a.md", "| a | b |\n|---|---|\n" + "| `x | *y |\n" * 20_000),
    "md-wide-table": ("a.md", "|" * 50_000 + "\n" + "|-" * 25_000 + "\n"),
    "md-fences": ("a.md", "```\n" * 30_000),
    "md-myst-roles": ("a.md", "{a}`" * 30_000 + "\n"),
    "md-colon-fences": ("a.md", ":::{note}\n" * 10_000),
    "md-setext-runs": ("a.md", "a\n=\n" * 30_000),
    "md-reference-defs": ("a.md", "[a]: <" * 20_000 + "\n"),
    "rst-adornments": ("a.rst", "====\n" * 50_000),
    "rst-titles": ("a.rst", "".join(f"T{n}\n{'=-~^'[n % 4] * 4}\n\n" for n in range(5_000))),
    "rst-roles": ("a.rst", ":a:`" * 30_000 + "\n"),
    "rst-backticks": ("a.rst", "``a" * 30_000 + "\n"),
    "rst-nested-quotes": ("a.rst", "".join(" " * n + "a\n\n" for n in range(0, 400))),
    "rst-nested-lists": ("a.rst", "".join("  " * n + "- a\n\n" for n in range(400))),
    "rst-directives": ("a.rst", ".. note::\n\n   a\n\n" * 5_000),
    "rst-long-table": ("a.rst", "=== ===\na   b\n=== ===\n" + "x   y\n" * 20_000 + "=== ===\n"),
    "rst-txt-sniffed": ("a.txt", "Title\n=====\n\n" + ":a:`b` " * 20_000 + "\n"),
    "html-unclosed-tags": ("a.html", "<a " * 50_000),
    "html-nested": ("a.html", "<div>" * 50_000 + "x"),
    "html-comments": ("a.html", "<!--" * 50_000),
    "html-entities": ("a.html", "&#" * 50_000 + "&amp" * 25_000),
    "html-headings": ("a.html", "<h1>a</h1><p>b</p>" * 20_000),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_crafted_file_is_indexed_in_linear_time(case: str, tmp_path: Path) -> None:
    name, text = CASES[case]
    (tmp_path / name).write_text(text, encoding="utf-8")
    search = LocalTextSearch(engine="sqlite")
    started = time.process_time()
    report = search.index_path(tmp_path)
    spent = time.process_time() - started
    assert report.added == 1
    assert spent < LIMIT_SECONDS, f"{case}: {spent:.1f} s of CPU for {len(text)} characters"


def test_heading_names_keep_underscores_of_names_and_code() -> None:
    # The fallback reader (no markup extra) names sections too: `equal_to` must not become
    # `equalto`, nor `__init__` lose its underscores.
    from textsearch.documents._split import _heading_name

    assert (
        _heading_name("Filters (`f.equal_to(a, b)`, AND-ed)")
        == "Filters (f.equal_to(a, b), AND-ed)"
    )
    assert _heading_name("**Bold** _em_ `__init__` [link](x)") == "Bold em __init__ link"
    assert _heading_name("snake_case_name") == "snake_case_name"


def test_a_heading_of_backticks_is_named_in_linear_time() -> None:
    from textsearch.documents._split import _heading_name

    started = time.process_time()
    _heading_name("`" * 100_000 + "x" + "``" * 50_000)
    assert time.process_time() - started < LIMIT_SECONDS
