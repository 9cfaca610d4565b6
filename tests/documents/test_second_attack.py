"""The second attack on this round's readers (issue #33, "Done when"): what it found, fixed.

* A name a file gives itself (a notebook's metadata title, a heading line) reached every
  result and tool answer whole: a 2 MB title made a 2 MB tool result. Names are bounded.
* Cutting a long paragraph copied what was left after each piece: a paragraph of megabytes
  (one XLSX cell of 8 MB took minutes) cost time in the square of its length.
* Two trailing-blank patterns (page text of a PDF, passage tidying) rescanned a long run of
  blanks from each blank, the pattern the Markdown heading case had.

Costs are shown by ratios measured in one run (issue #33 item 18), never by a time limit.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch.documents import _passages, _split
from textsearch.documents._files import MAX_NAME_CHARS

#: Largest accepted cost ratio per unit of input for four times the input (linear is
#: about 1, quadratic about 4); as in test_local_crafted_input.
MAX_RATIO = 2.5


def _cost(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def _ratio(make: Callable[[int], str], run: Callable[[str], object], size: int) -> float:
    small, large = make(size), make(4 * size)
    small_cost = max(_cost(lambda: run(small)), 1e-4)
    large_cost = _cost(lambda: run(large))
    return (large_cost / len(large)) / (small_cost / len(small))


def _results(folder: Path, query: str) -> list[object]:
    search = LocalTextSearch(engine="sqlite")
    try:
        report = search.index_path(folder)
        assert report.failed == [] and report.added >= 1
        return list(search.get_text_search_results_sync(query))
    finally:
        search.close()


def test_a_notebook_title_of_megabytes_is_bounded_in_every_result(tmp_path: Path) -> None:
    notebook = {
        "cells": [{"cell_type": "markdown", "source": "# Tea\n\nbrewing green tea"}],
        "metadata": {"title": "T" * 2_000_000},
    }
    (tmp_path / "a.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    (result,) = _results(tmp_path, "brewing")
    name = result.name  # type: ignore[attr-defined]
    assert name.startswith("T" * 200) and name.endswith("› Tea")
    assert len(name) <= 2 * MAX_NAME_CHARS


def test_a_heading_line_of_300_kb_is_bounded_with_its_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "# Intro\n\nfirst\n\n## " + "H" * 300_000 + "\n\nbrewing black tea\n", encoding="utf-8"
    )
    (result,) = _results(tmp_path, "brewing")
    assert len(result.name) <= 2 * MAX_NAME_CHARS  # type: ignore[attr-defined]
    assert result.name.endswith("…")  # type: ignore[attr-defined]
    assert len(result.link) <= MAX_NAME_CHARS + 200  # type: ignore[attr-defined]


def test_normal_names_are_unchanged(tmp_path: Path) -> None:
    heading = "A heading of ordinary length, " * 5
    (tmp_path / "a.md").write_text(f"# {heading.strip()}\n\nbrewing tea\n", encoding="utf-8")
    (result,) = _results(tmp_path, "brewing")
    assert result.name == heading.strip()  # type: ignore[attr-defined]


def test_cutting_a_long_paragraph_is_linear() -> None:
    ratio = _ratio(lambda n: "word " * n, lambda t: _split._cut(t, 1500), 250_000)
    assert ratio <= MAX_RATIO, ratio


def test_cutting_keeps_its_pieces() -> None:
    text = ("One sentence ends here. " * 40 + "x" * 2000 + " tail") * 3
    pieces = _split._cut(text, 500)
    assert all(len(p) <= 500 for p in pieces)
    assert re.sub(r"\s+", "", "".join(pieces)) == re.sub(r"\s+", "", text)
    assert pieces[0].endswith("here.")  # cut at a sentence end where there is one


def test_an_xlsx_cell_of_megabytes_is_indexed(tmp_path: Path) -> None:
    pytest.importorskip("openpyxl")
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["brewing " * 250_000])  # 2 MB in one cell
    book.save(tmp_path / "a.xlsx")
    results = _results(tmp_path, "brewing")
    assert results


@pytest.mark.parametrize("where", ["pdf", "passages"])
def test_trailing_blank_patterns_are_linear_on_a_run_of_blanks(where: str) -> None:
    if where == "pdf":
        pytest.importorskip("pypdfium2")
        from textsearch.documents._pdf import clean_page as tidy
    else:
        tidy = _passages._tidy
    assert tidy("a  \nb \t\nc") == "a\nb\nc"
    ratio = _ratio(lambda n: "a\n" + " " * n + "b\nc", tidy, 20_000)
    assert ratio <= MAX_RATIO, ratio
