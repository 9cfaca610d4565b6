"""Range, any_of and not_equal_to on AzureAISearchTextSearch, through the emulator over HTTP.

Azure AI Search is typed: ``n`` is ``Edm.Double``, ``d`` ``Edm.DateTimeOffset``, ``s``
``Edm.String``, ``b`` ``Edm.Boolean``, ``k`` ``Edm.Int64``; a document's values are the ones of
:data:`DOCS` that fit its field (the others null), and the oracle judges those typed values.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.connectors._filter_cases import (
    DOCS,
    WORD,
    as_instant,
    check_pages,
    expected_ids,
    filters,
)
from tests.emulators.azure_search import AzureSearchEmulator, ODataFilter, load_indexes
from textsearch import AzureAISearchTextSearch, TextSearchFilter
from textsearch.connectors.azure._odata import build_filter

KEY = "test-admin-key"


def _typed(meta: dict[str, Any]) -> dict[str, Any]:
    n, d, s, b = (meta.get(key) for key in "ndsb")
    moment = as_instant(d)
    return {
        "n": float(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None,
        "d": f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S.%f}Z" if moment else None,
        "s": s if isinstance(s, str) else None,
        "b": b if isinstance(b, bool) else None,
        "k": meta["k"],
    }


TYPED = [{**doc, "metadata": _typed(doc["metadata"])} for doc in DOCS]
FIXTURE = {
    "indexes": {
        "filters": {
            "fields": [
                {"name": "id", "type": "Edm.String", "key": True, "filterable": True},
                {"name": "title", "type": "Edm.String", "searchable": True},
                {"name": "content", "type": "Edm.String", "searchable": True},
                {"name": "url", "type": "Edm.String"},
                {"name": "n", "type": "Edm.Double", "filterable": True},
                {"name": "d", "type": "Edm.DateTimeOffset", "filterable": True},
                {"name": "s", "type": "Edm.String", "filterable": True},
                {"name": "b", "type": "Edm.Boolean", "filterable": True},
                {"name": "k", "type": "Edm.Int64", "filterable": True},
            ],
            "documents": [
                {
                    "id": doc["id"],
                    "title": doc["title"],
                    "content": doc["text"],
                    "url": doc["link"],
                    **doc["metadata"],
                }
                for doc in TYPED
            ],
        }
    }
}
_KINDS: dict[str, Any] = {
    "n": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "d": lambda v: isinstance(v, str),
    "s": lambda v: isinstance(v, str),
    "b": lambda v: isinstance(v, bool),
    "k": lambda v: isinstance(v, int) and not isinstance(v, bool),
}


def _fits(search_filter: TextSearchFilter) -> bool:
    """Every value is of its field's type (else OData refuses the filter: a 400)."""
    for clause in search_filter.clauses:
        values = getattr(clause, "values", None) or (clause.value,)  # type: ignore[union-attr]
        if not all(v is None or _KINDS[clause.field_name](v) for v in values):
            return False
    return True


# Only filters OData can type-check against this schema (a mismatch is a documented 400).
CASES = [(name, f) for name, f in filters() if _fits(f)]


def test_a_filter_of_the_wrong_type_is_the_services_documented_refusal(
    search: AzureAISearchTextSearch,
) -> None:
    from textsearch import BadRequestError

    with pytest.raises(BadRequestError):
        search.search_sync(WORD, filter=TextSearchFilter().any_of("n", [1, "3"]))


@pytest.fixture(scope="module")
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator(fixture=FIXTURE) as emu:
        yield emu


@pytest.fixture
def search(emulator: AzureSearchEmulator) -> AzureAISearchTextSearch:
    return AzureAISearchTextSearch(
        endpoint=emulator.endpoint,
        index_name="filters",
        api_key=KEY,
        name_field="title",
        value_field="content",
        link_field="url",
        max_retries=0,
    )


@pytest.mark.parametrize(("name", "search_filter"), CASES, ids=[c[0] for c in CASES])
def test_every_clause_matches_the_oracle_on_every_page(
    search: AzureAISearchTextSearch, name: str, search_filter: TextSearchFilter
) -> None:
    expected = expected_ids(search_filter, docs=TYPED)

    def run(top: int, skip: int) -> tuple[list[str], int | None]:
        found = search.get_documents_sync(
            WORD, top=top, skip=skip, filter=search_filter, include_total_count=True
        )
        return [d.fields["id"] for d in found], found.total_count

    check_pages(run, expected, tops=(50, 11))


def test_the_date_bound_is_an_unquoted_utc_literal() -> None:
    expression = build_filter(
        TextSearchFilter()
        .greater_than_or_equal("d", "2024-01-01T01:30+01:00")
        .less_than("n", 2.5)
        .any_of("s", ["it's", 1, True])
        .not_equal_to("b", None)
    )
    assert expression == (
        "d ge 2024-01-01T00:30:00.000000Z and n lt 2.5 and "
        "(s eq 'it''s' or s eq 1 or s eq true) and b ne null"
    )


@pytest.mark.parametrize(
    "value", ["x') or (1 eq 1", "O'Brien", "'", "''", "a' or true or 'b", ")", "\\'", "\x00"]
)
def test_hostile_strings_stay_one_literal(value: str) -> None:
    index = load_indexes(FIXTURE)["filters"]
    docs = [{"s": value}, {"s": "other"}, {"s": None}]
    for search_filter, admitted in (
        (TextSearchFilter().any_of("s", [value, "nope"]), [True, False, False]),
        (TextSearchFilter().not_equal_to("s", value), [False, True, True]),
    ):
        parsed = ODataFilter(build_filter(search_filter) or "", index)
        assert [parsed.matches(doc) for doc in docs] == admitted
