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
