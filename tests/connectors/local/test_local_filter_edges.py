"""Filters of the local index at their edges, on both engines (issue #24, ``tools/mutation.py``).

Written against the survivors of mutation testing of ``connectors/local/_query.py``; each
test searches a :class:`~textsearch.LocalTextSearch` and checks what comes back.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401  (both engines)
from textsearch import InvalidRequestError, LocalTextSearch, TextSearchFilter

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

DOCS: list[dict[str, Any]] = [
    {
        "id": "1",
        "text": "shared note one",
        "link": "https://docs.a_b.com/1",
        "metadata": {"lang": "en", "public": True},
    },
    {
        "id": "0",
        "text": "shared note zero",
        "link": "https://docs.axb.com/0",
        "metadata": {"lang": "en", "public": False},
    },
    {"id": "2.0", "text": "shared note two", "link": "https://www.acom.org/2"},
    {"id": "-3.0", "text": "shared note minus", "link": "https://a.com/3"},
    {"id": "2.5", "text": "shared note half", "metadata": {"big": INT64_MAX}},
    {"id": "100000000000000.0", "text": "shared note large", "metadata": {"big": INT64_MIN}},
]


@pytest.fixture
def search() -> LocalTextSearch:
    s = LocalTextSearch()
    s.add_documents(DOCS)
    return s


def _ids(search: LocalTextSearch, search_filter: TextSearchFilter) -> set[str]:
    found = search.get_search_results_sync("shared note", top=50, filter=search_filter)
    return {d.id for d in found}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, {"1"}),
        (False, {"0"}),
        (2.0, {"2.0"}),
        (-3.0, {"-3.0"}),
        (2.5, {"2.5"}),
        (1e14, {"100000000000000.0"}),
        (2, set()),  # the integer 2 is the text "2", not "2.0"
    ],
)
def test_an_id_filter_compares_as_sqlite_reads_the_value_as_text(
    search: LocalTextSearch, value: object, expected: set[str]
) -> None:
    assert _ids(search, TextSearchFilter().equal_to("id", value)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [INT64_MAX, INT64_MIN])
def test_the_largest_64_bit_numbers_are_filter_values(search: LocalTextSearch, value: int) -> None:
    kind = "half" if value > 0 else "large"
    expected = {"2.5"} if kind == "half" else {"100000000000000.0"}
    assert _ids(search, TextSearchFilter().equal_to("big", value)) == expected


@pytest.mark.parametrize("value", [INT64_MAX + 1, INT64_MIN - 1, 10**30])
def test_a_number_beyond_64_bits_is_a_clear_error(search: LocalTextSearch, value: int) -> None:
    with pytest.raises(InvalidRequestError) as info:
        _ids(search, TextSearchFilter().equal_to("big", value))
    assert str(info.value) == f"filter value {value} does not fit in 64 bits"
    with pytest.raises(InvalidRequestError):
        _ids(search, TextSearchFilter().any_tag_equal_to("big", value))


@pytest.mark.parametrize(
    ("site", "expected"),
    [
        ("a_b.com", {"1"}),  # '_' is a character, not "any character": docs.axb.com is out
        ("axb.com", {"0"}),
        ("a.com", {"-3.0"}),  # not www.acom.org
        ("%.com", set()),
        ("_.com", set()),
        ("\\", set()),
        ("a\\_b.com", set()),
        ("docs.a%b.com", set()),
    ],
)
def test_site_filter_characters_are_taken_literally(
    search: LocalTextSearch, site: str, expected: set[str]
) -> None:
    assert _ids(search, TextSearchFilter().equal_to("site", site)) == expected


@pytest.mark.parametrize(
    ("search_filter", "expected"),
    [
        (TextSearchFilter().equal_to("lang", "en").equal_to("site", "a_b.com"), {"1"}),
        (TextSearchFilter().equal_to("lang", "en").equal_to("site", "a.com"), set()),
        (TextSearchFilter().equal_to("lang", "en").equal_to("public", False), {"0"}),
        (TextSearchFilter().equal_to("site", "axb.com").equal_to("public", True), set()),
        (TextSearchFilter().equal_to("id", "1").equal_to("lang", "en"), {"1"}),
        (TextSearchFilter().equal_to("lang", "en").any_tag_equal_to("public", True), {"1"}),
        (TextSearchFilter().equal_to("public", False).any_tag_equal_to("public", True), set()),
    ],
)
def test_every_clause_holds_whatever_its_place(
    search: LocalTextSearch, search_filter: TextSearchFilter, expected: set[str]
) -> None:
    assert _ids(search, search_filter) == expected


# -- the words of a query --------------------------------------------------------------

WORDS: list[dict[str, Any]] = [
    {"id": "hamlet", "text": "To be, or not to be, that is the question."},
    {"id": "retries", "text": "Configure retries with exponential backoff."},
    {"id": "mueller", "text": "Herr Müller wohnt in der Straße am Markt."},
    {"id": "cafe", "text": "Le café du coin ouvre tôt."},
    {"id": "vector", "text": "SQLite 向量数据库 选型 指南"},
]


@pytest.fixture
def words() -> LocalTextSearch:
    s = LocalTextSearch()
    s.add_documents(WORDS)
    return s


def _found(search: LocalTextSearch, query: str) -> list[str]:
    return [d.id for d in search.get_search_results_sync(query, top=10)]


def test_a_query_of_stop_words_only_searches_for_them(words: LocalTextSearch) -> None:
    assert _found(words, "to be or not to be") == ["hamlet"]


def test_stop_words_do_not_count_when_every_word_must_match() -> None:
    search = LocalTextSearch(match="all")
    search.add_documents(WORDS)
    assert _found(search, "How do I configure retries?") == ["retries"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("Müller", "mueller"), ("MÜLLER", "mueller"), ("straße", "mueller"), ("Café", "cafe")],
)
def test_non_ascii_latin_words_are_found_in_any_case(
    words: LocalTextSearch, query: str, expected: str
) -> None:
    assert _found(words, query)[:1] == [expected]


@pytest.mark.parametrize("query", ["SQLite向量数据库", "the向量数据库"])
def test_a_word_mixing_scripts_is_split_into_its_runs(words: LocalTextSearch, query: str) -> None:
    assert _found(words, query)[:1] == ["vector"]


def test_case_variants_of_a_word_take_one_of_the_32_query_terms(words: LocalTextSearch) -> None:
    # 32 words at most reach the engine: "Müller" and "MÜLLER" are one, so "backoff",
    # the 32nd distinct word, still counts.
    fillers = " ".join(f"zq{i}" for i in range(30))
    assert set(_found(words, f"Müller MÜLLER {fillers} backoff")) == {"mueller", "retries"}
