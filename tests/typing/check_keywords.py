"""Type-checked, never run: the keywords type checkers see on search methods and constructors.

``mypy --strict`` checks this file (it is in ``[tool.mypy] files``). A call that must be
refused carries a ``type: ignore`` with its error code: strict mode warns on an unused ignore,
so mypy fails if such a keyword or value starts being accepted.
"""

from __future__ import annotations

from tests._protocol_only import ProtocolOnly
from textsearch import (
    BraveTextSearch,
    FallbackTextSearch,
    LocalTextSearch,
    PostgresTextSearch,
    SearchOptions,
    SearchResults,
    TextSearch,
    TextSearchFilter,
)

DSN = "postgresql://reader@127.0.0.1/docs"


def from_table_takes_the_constructor_keywords() -> PostgresTextSearch:
    return PostgresTextSearch.from_table(
        DSN, table="articles", value_column="body", snippet_words=20, highlight=("[", "]"),
        rank_function="ts_rank_cd", mode="keyword", timeout=2.5, pool_timeout=None,
    )  # fmt: skip


def from_table_refuses_a_misspelt_keyword() -> PostgresTextSearch:
    return PostgresTextSearch.from_table(DSN, table="a", value_column="b", snipet_words=20)  # type: ignore[call-arg]


def from_table_refuses_an_unknown_rank_function() -> PostgresTextSearch:
    return PostgresTextSearch.from_table(DSN, table="a", value_column="b", rank_function="bm42")  # type: ignore[arg-type]


def brave_takes_goggles() -> list[BraveTextSearch]:
    hosted = "https://raw.githubusercontent.com/brave/goggles-quickstart/main/goggles/rust.goggle"
    inline = "$boost=2,site=docs.rs"
    return [BraveTextSearch(goggles=hosted), BraveTextSearch(goggles=[hosted, inline])]


def brave_refuses_goggles_that_are_not_text() -> BraveTextSearch:
    return BraveTextSearch(goggles=3)  # type: ignore[arg-type]


async def search_option_shortcuts(search: TextSearch, local: LocalTextSearch) -> list[str]:
    only = TextSearchFilter().equal_to("site", "docs.python.org")
    found = await search.search("retry policy", top=3, skip=3, include_total_count=True)
    texts = await search.get_text_search_results("retry", SearchOptions(top=2), filter=only)
    fallback = FallbackTextSearch([local, search])
    more = fallback.search_sync("retry", top=4, filter=None)
    return [*found, *(t.value or "" for t in texts), *more]


async def search_refuses_a_misspelt_option(search: TextSearch) -> SearchResults[str]:
    return await search.search("retry", tpo=3)  # type: ignore[call-arg]


def search_refuses_an_option_of_the_wrong_type(local: LocalTextSearch) -> SearchResults[str]:
    return local.search_sync("retry", top="3")  # type: ignore[arg-type]


def a_protocol_only_connector_is_a_text_search() -> TextSearch:
    # Its methods take ``**kwargs: Any``: untyped shortcuts still satisfy the protocol.
    return ProtocolOnly()
