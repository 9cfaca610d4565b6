"""``true`` is not ``1`` in a filter, on both ranking engines (as in JSON and PostgreSQL).

A document marked ``{"public": 1}`` must not be admitted by ``equal_to("public", True)``:
with access-style metadata that would be a leak, and PostgreSQL and the vector stores tell
the two apart, so moving an index between backends must not change what a filter admits.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401
from textsearch import LocalTextSearch, TextSearchFilter

DOCS = [
    {"id": "true", "text": "flag note", "metadata": {"public": True, "tags": ["x"]}},
    {"id": "one", "text": "flag note", "metadata": {"public": 1, "tags": ["1"]}},
    {"id": "one-float", "text": "flag note", "metadata": {"public": 1.0}},
    {"id": "false", "text": "flag note", "metadata": {"public": False}},
    {"id": "zero", "text": "flag note", "metadata": {"public": 0}},
    {"id": "text", "text": "flag note", "metadata": {"public": "true"}},
]


def _ids(search: LocalTextSearch, search_filter: TextSearchFilter) -> set[str]:
    found = search.get_search_results_sync("flag", top=50, filter=search_filter)
    return {d.id for d in found}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, {"true"}),
        (False, {"false"}),
        (1, {"one", "one-float"}),
        (1.0, {"one", "one-float"}),
        (0, {"zero"}),
        ("true", {"text"}),
    ],
)
def test_equal_to_keeps_booleans_apart_from_numbers(value: object, expected: set[str]) -> None:
    search = LocalTextSearch()
    search.add_documents(DOCS)
    assert _ids(search, TextSearchFilter().equal_to("public", value)) == expected  # type: ignore[arg-type]


def test_any_tag_equal_to_keeps_booleans_apart() -> None:
    search = LocalTextSearch()
    search.add_documents(
        [
            {"id": "a", "text": "flag", "metadata": {"marks": True}},
            {"id": "b", "text": "flag", "metadata": {"marks": 1}},
        ]
    )
    assert _ids(search, TextSearchFilter().any_tag_equal_to("marks", 1)) == {"b"}
    assert _ids(search, TextSearchFilter().any_tag_equal_to("marks", True)) == {"a"}


def test_an_older_tantivy_index_is_rebuilt_for_the_new_tokens(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    local_engine: str,  # noqa: F811
) -> None:
    if local_engine != "tantivy":
        pytest.skip("tantivy only")
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db) as first:
        first.add_documents(DOCS)
    con = sqlite3.connect(db)
    with con:
        con.execute("DELETE FROM textsearch_meta WHERE key = 'filter_tokens'")
    con.close()
    with caplog.at_level(logging.WARNING, "textsearch.local"):
        again = LocalTextSearch(db)
    assert "was indexed by an older release: rebuilding it" in caplog.text
    with again:
        assert _ids(again, TextSearchFilter().equal_to("public", True)) == {"true"}
