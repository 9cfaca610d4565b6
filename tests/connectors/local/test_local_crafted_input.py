"""Crafted files cannot stall indexing: reading markup is linear in the input.

Each case is a file a hostile (or merely odd) folder could hold, built at two sizes, the
second four times the first. Linear reading costs about four times as much for four times
the input; the patterns these cases caught grew with the square (sixteen times) or worse.
Both sizes are measured in the same run, so a busy machine slows both alike: the test
fails on a blow-up, never on a slow machine (issue #33 item 18: an absolute 5 s limit failed
at 5.4 s under load).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from textsearch import LocalTextSearch

#: The larger size is this many times the smaller one.
GROWTH = 4
#: Largest accepted cost ratio per unit of input: linear is about 1 (less, as fixed costs
#: are shared), quadratic about ``GROWTH``.
MAX_RATIO = 2.5


def _n(count: int, scale: float) -> int:
    return max(1, int(count * scale))


# name -> (file name, text at a scale: 1.0 is the size each case was written for)
CASES: dict[str, tuple[str, Callable[[float], str]]] = {
    # the ATX heading pattern backtracked on a run of spaces: 3 KB took ~20 s, 10 KB an hour
    "atx-spaces": ("a.md", lambda k: "# a" + " " * _n(30_000, k) + "x\n"),
    "atx-hashes": ("a.md", lambda k: "# " + "#" * _n(30_000, k) + " " * _n(30_000, k) + "x\n"),
    "atx-tabs": ("a.md", lambda k: "#\t" + "\t " * _n(30_000, k) + "#\n"),
    # inline patterns rescanned the rest of the line from every opener: 100 KB took 10.7 s
    "md-brackets": ("a.md", lambda k: ("[" * 1_000 + "\n") * _n(100, k)),
    "md-brackets-one-line": ("a.md", lambda k: "[" * _n(100_000, k) + "\n"),
    "md-links-unclosed": ("a.md", lambda k: "[a](" * _n(25_000, k) + "\n"),
    "md-images": ("a.md", lambda k: "![" * _n(50_000, k) + "\n"),
    "md-emphasis-runs": ("a.md", lambda k: "*a " * _n(30_000, k) + "\n"),
    "md-emphasis-nested": (
        "a.md",
        lambda k: "*" * _n(30_000, k) + "a" + "_" * _n(30_000, k) + "\n",
    ),
    "md-underscores": ("a.md", lambda k: "a_" * _n(50_000, k) + "\n"),
    "md-html-comments": ("a.md", lambda k: "<!--" * _n(25_000, k) + "\n"),
    "md-html-tags": ("a.md", lambda k: "<a " * _n(30_000, k) + "\n"),
    "md-backticks": ("a.md", lambda k: "`a" * _n(25_000, k) + "``b" * _n(10_000, k) + "\n"),
    "md-entities": ("a.md", lambda k: "&#" * _n(50_000, k) + "\n"),
    "md-nested-lists": ("a.md", lambda k: "".join("  " * n + "- a\n" for n in range(_n(700, k)))),
    "md-nested-quotes": ("a.md", lambda k: ">" * _n(50_000, k) + " a\n"),
    "md-quote-list-mix": ("a.md", lambda k: "> - " * _n(20_000, k) + "a\n"),
    "md-long-table": (
        "a.md",
        lambda k: "| a | b |\n|---|---|\n" + "| `x | *y |\n" * _n(20_000, k),
    ),
    "md-wide-table": ("a.md", lambda k: "|" * _n(50_000, k) + "\n" + "|-" * _n(25_000, k) + "\n"),
    "md-fences": ("a.md", lambda k: "```\n" * _n(30_000, k)),
    "md-myst-roles": ("a.md", lambda k: "{a}`" * _n(30_000, k) + "\n"),
    "md-colon-fences": ("a.md", lambda k: ":::{note}\n" * _n(10_000, k)),
    "md-setext-runs": ("a.md", lambda k: "a\n=\n" * _n(30_000, k)),
    "md-reference-defs": ("a.md", lambda k: "[a]: <" * _n(20_000, k) + "\n"),
    # MkDocs' inline syntax (_dialects): an opener without its closer scanned the rest of the
    # line from every opener: 80 KB of "==a " took 14 s
    "md-marks-unclosed": ("a.md", lambda k: "==a " * _n(10_000, k) + "\n"),
    "md-inserts-unclosed": ("a.md", lambda k: "^^a " * _n(10_000, k) + "\n"),
    "md-keys-unclosed": ("a.md", lambda k: "++a+" * _n(10_000, k) + "\n"),
    "md-attributes": ("a.md", lambda k: "{: " * _n(10_000, k) + "{ #a\n"),
    "md-attribute-blanks": ("a.md", lambda k: "a {: .b }" + " " * _n(30_000, k) + "c\n"),
    "md-code-spans-and-marks": ("a.md", lambda k: "``a` ==b " * _n(5_000, k) + "\n"),
    "md-admonitions": ("a.md", lambda k: "!!! note\n" * _n(10_000, k)),
    "md-nested-admonitions": (
        "a.md",
        lambda k: "".join("    " * (n % 20) + "!!! note\n" for n in range(_n(5_000, k))),
    ),
    "md-blocks-unclosed": ("a.md", lambda k: "/// note | t\n" * _n(10_000, k)),
    "md-snippet-blocks": ("a.md", lambda k: "--8<--\n" + "a.md\n" * _n(10_000, k)),
    "rst-adornments": ("a.rst", lambda k: "====\n" * _n(50_000, k)),
    "rst-titles": (
        "a.rst",
        lambda k: "".join(f"T{n}\n{'=-~^'[n % 4] * 4}\n\n" for n in range(_n(5_000, k))),
    ),
    "rst-roles": ("a.rst", lambda k: ":a:`" * _n(30_000, k) + "\n"),
    "rst-backticks": ("a.rst", lambda k: "``a" * _n(30_000, k) + "\n"),
    "rst-nested-quotes": ("a.rst", lambda k: "".join(" " * n + "a\n\n" for n in range(_n(400, k)))),
    "rst-nested-lists": (
        "a.rst",
        lambda k: "".join("  " * n + "- a\n\n" for n in range(_n(400, k))),
    ),
    "rst-directives": ("a.rst", lambda k: ".. note::\n\n   a\n\n" * _n(5_000, k)),
    "rst-long-table": (
        "a.rst",
        lambda k: "=== ===\na   b\n=== ===\n" + "x   y\n" * _n(20_000, k) + "=== ===\n",
    ),
    # the doc set's scan for labels and titles (bare :ref: and :doc: read as titles)
    "rst-labels": ("a.rst", lambda k: ".. _a:\n" * _n(30_000, k) + "\nT\n=\n\n:ref:`a`\n"),
    "rst-label-long-title": (
        "a.rst",
        lambda k: ".. _a:\n\n" + ":a:a" * _n(30_000, k) + "\n" + "=" * _n(120_000, k) + "\n",
    ),
    "rst-doc-refs": ("a.rst", lambda k: "T\n=\n\n" + ":doc:`a` :ref:`b` " * _n(10_000, k) + "\n"),
    "md-autorefs-unclosed": ("a.md", lambda k: "[a][b.c " * _n(20_000, k) + "\n"),
    "md-autorefs": ("a.md", lambda k: "[`a`][b.c] " * _n(20_000, k) + "\n"),
    "md-myst-labels": ("a.md", lambda k: "(a)=\n" * _n(30_000, k) + "# T\n\n{ref}`a`\n"),
    "rst-txt-sniffed": ("a.txt", lambda k: "Title\n=====\n\n" + ":a:`b` " * _n(20_000, k) + "\n"),
    "html-unclosed-tags": ("a.html", lambda k: "<a " * _n(50_000, k)),
    "html-nested": ("a.html", lambda k: "<div>" * _n(50_000, k) + "x"),
    "html-comments": ("a.html", lambda k: "<!--" * _n(50_000, k)),
    "html-entities": ("a.html", lambda k: "&#" * _n(50_000, k) + "&amp" * _n(25_000, k)),
    "html-headings": ("a.html", lambda k: "<h1>a</h1><p>b</p>" * _n(20_000, k)),
}


def _index_cost(folder: Path, name: str, text: str) -> float:
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8")
    search = LocalTextSearch(engine="sqlite")
    started = time.process_time()
    report = search.index_path(folder)
    spent = time.process_time() - started
    search.close()
    assert report.added == 1
    return spent


def _ratio(case: str, tmp_path: Path, attempt: int) -> tuple[float, float, float]:
    name, make = CASES[case]
    small, large = make(1 / GROWTH), make(1.0)
    small_cost = _index_cost(tmp_path / f"small{attempt}", name, small)
    large_cost = _index_cost(tmp_path / f"large{attempt}", name, large)
    # cost per character of the large file over that of the small one
    per_char = (large_cost / len(large)) / (small_cost / len(small))
    return per_char, small_cost, large_cost


#: Cases known to be superlinear, marked xfail (not strict) until fixed. Empty since the
#: round-4 fixes: a run of blanks in an ATX heading ("atx-spaces", "atx-hashes": our
#: trailing-blank pattern rescanned the run from each blank) and RST lists nested 400 deep
#: (docutils reads an indented block once per level; indentation past 100 columns is now
#: set at 100 before docutils sees it).
SUPERLINEAR: set[str] = set()


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            marks=pytest.mark.xfail(reason="superlinear, see SUPERLINEAR", strict=False),
        )
        if c in SUPERLINEAR
        else c
        for c in sorted(CASES)
    ],
)
def test_crafted_file_is_indexed_in_linear_time(case: str, tmp_path: Path) -> None:
    ratio, small, large = _ratio(case, tmp_path, 0)
    if ratio > MAX_RATIO:  # a hiccup on a busy machine is not a blow-up: look again
        ratio, small, large = min(_ratio(case, tmp_path, i) for i in (1, 2))
    assert ratio <= MAX_RATIO, (
        f"{case}: {GROWTH}x the input cost {large / small:.1f}x the CPU "
        f"({small:.3f} s -> {large:.3f} s)"
    )


def test_heading_names_keep_underscores_of_names_and_code() -> None:
    # `equal_to` must not become `equalto`, nor `__init__` lose its underscores, and a
    # setext heading that is a code span is named without its backticks.
    from textsearch.documents._split import split_document

    text = (
        "# Filters (`f.equal_to(a, b)`, AND-ed)\n\na\n\n"
        "# **Bold** _em_ `__init__` __init__ [link](x)\n\nb\n\n"
        "# snake_case_name\n\nc\n\n`attrs.define`\n-------------\n\nd\n"
    )
    names = [p.heading for p in split_document(text, ".md")[1]]
    assert names == [
        "Filters (f.equal_to(a, b), AND-ed)",
        "Bold em __init__ __init__ link",
        "snake_case_name",
        "attrs.define",
    ]


def test_a_heading_of_backticks_is_named_in_linear_time() -> None:
    from textsearch.documents._split import split_document

    def cost(n: int) -> float:
        text = "# " + "`" * n + "x" + "``" * (n // 2) + "\n\nbody\n"
        started = time.process_time()
        split_document(text, ".md")
        return time.process_time() - started

    small = min(cost(25_000) for _ in range(3))
    large = min(cost(100_000) for _ in range(3))
    assert large <= MAX_RATIO * GROWTH * small, (small, large)
