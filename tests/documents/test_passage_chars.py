"""``LocalTextSearch(..., passage_chars=N)``: the passage size is configurable, checked, and
recorded in the index, so that a change reads the files again (#30 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from textsearch import ConfigurationError, LocalTextSearch


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    words = " ".join(f"word{n}." for n in range(600))
    (docs / "a.md").write_text(f"# A\n\n{words}\n", encoding="utf-8")
    (docs / "b.txt").write_text(words + "\n", encoding="utf-8")
    return docs


def _longest(search: LocalTextSearch) -> int:
    found = search.get_search_results_sync("word1", top=50)
    return max(len(document.text) for document in found.results)


@pytest.mark.parametrize("bad", [99, 100_001, "1500", 1500.0, True, None])
def test_a_bad_passage_size_is_refused(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="passage_chars must be an integer"):
        LocalTextSearch(passage_chars=bad)  # type: ignore[arg-type]


def test_a_new_passage_size_reads_every_file_again(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    index = tmp_path / "index.sqlite3"
    search = LocalTextSearch(index, engine="sqlite", passage_chars=300)
    assert search.index_path(docs).added == 2
    assert _longest(search) <= 300
    assert search.index_path(docs).unchanged == 2
    search.close()
    bigger = LocalTextSearch(index, engine="sqlite", passage_chars=2000)
    report = bigger.index_path(docs)
    assert (report.updated, report.unchanged) == (2, 0)  # the .txt file too
    assert 300 < _longest(bigger) <= 2000
    assert bigger.index_path(docs).unchanged == 2
    bigger.close()
    default = LocalTextSearch(index, engine="sqlite")
    assert default.index_path(docs).updated == 2
    assert 300 < _longest(default) <= 1500
