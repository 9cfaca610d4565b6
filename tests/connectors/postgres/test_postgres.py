"""PostgresTextSearch against a real PostgreSQL server (started once per session)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from textsearch import (
    ConfigurationError,
    InvalidRequestError,
    LocalDocument,
    PostgresDocument,
    PostgresTextSearch,
    SearchOptions,
    TextSearch,
    TextSearchFilter,
    UnsupportedFilterError,
)

DOCS: list[dict[str, Any]] = [
    {
        "id": "retry",
        "title": "Retry policy",
        "text": "The client retries failed requests with exponential backoff and jitter.",
        "link": "https://docs.example.com/retry",
        "metadata": {"tags": ["python", "http"], "lang": "en", "year": 2024, "stable": True},
    },
    {
        "id": "timeouts",
        "title": "Timeouts",
        "text": "Every call has a total deadline; retries respect the deadline.",
        "link": "https://blog.example.org/timeouts",
        "metadata": {"tags": ["go"], "lang": "de", "year": 2023},
    },
    {
        "id": "pasta",
        "title": "Cooking",
        "text": "Boil the pasta, add tomatoes and basil.",
        "link": "https://recipes.other.net/pasta",
        "metadata": {"tags": ["food"], "lang": "en"},
    },
    {
        "id": "backoff",
        "title": "Backoff",
        "text": "Backoff spreads load; jitter avoids thundering herds.",
        "link": "https://example.com/backoff",
        "metadata": {"tags": ["python"], "lang": "en"},
    },
]


@pytest.fixture
def search(pg_dsn: str, pg_table: str) -> Any:
    with PostgresTextSearch(pg_dsn, table=pg_table) as instance:
        instance.create_schema_sync()
        instance.add_documents_sync(DOCS)
        yield instance


def ids(results: Any) -> list[str]:
    return [doc.id for doc in results]


def table_rows(dsn: str, table: str) -> int:
    with psycopg.connect(dsn) as conn:
        return int(conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])  # type: ignore[index]


# -- the basics ----------------------------------------------------------------------------


def test_is_a_text_search_with_native_documents(search: PostgresTextSearch) -> None:
    assert isinstance(search, TextSearch)
    results = search.get_search_results_sync("retry policy")
    assert isinstance(results[0], PostgresDocument)
    top = results[0]
    assert top.id == "retry" and top.title == "Retry policy"
    assert top.link == "https://docs.example.com/retry"
    assert top.metadata["tags"] == ["python", "http"]
    assert top.score is not None and top.score > 0
    assert top.snippet and "retries" in top.snippet


def test_stemming_finds_other_forms(search: PostgresTextSearch) -> None:
    assert "retry" in ids(search.get_search_results_sync("retrying"))


def test_partial_matches_count_and_rarer_words_weigh_more(
    search: PostgresTextSearch,
) -> None:
    results = search.get_search_results_sync("backoff jitter deadline", include_total_count=True)
    # Nobody has all three words, yet matches are returned (not all-or-nothing) ...
    assert set(ids(results)) == {"retry", "timeouts", "backoff"}
    assert results.total_count == 3
    # ... ranked by BM25: the title word (counted four times) and a second word come first.
    assert ids(results)[0] == "backoff"
    scores = [doc.score for doc in results]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]


def test_title_weighs_more_than_body(pg_dsn: str, pg_table: str) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync(
            [
                {"id": "body", "title": "Other", "text": "kubernetes appears in the body only"},
                {"id": "title", "title": "Kubernetes", "text": "nothing else here at all"},
            ]
        )
        assert ids(search.get_search_results_sync("kubernetes")) == ["title", "body"]


def test_websearch_syntax_phrase_and_exclusion(search: PostgresTextSearch) -> None:
    assert ids(search.get_search_results_sync('"total deadline"'))[0] == "timeouts"
    excluded = ids(search.get_search_results_sync("jitter -backoff"))
    assert excluded == []  # both documents with jitter mention backoff
    assert ids(search.get_search_results_sync("deadline -jitter")) == ["timeouts"]
    assert "timeouts" not in ids(search.get_search_results_sync('retries -"total deadline"'))


def test_paging_and_total_count(search: PostgresTextSearch) -> None:
    first = search.get_search_results_sync("backoff jitter retries", top=2)
    second = search.get_search_results_sync("backoff jitter retries", top=2, skip=2)
    assert len(first) == 2 and not set(ids(first)) & set(ids(second))
    assert first.total_count is None
    counted = search.get_search_results_sync("pasta", include_total_count=True)
    assert counted.total_count == 1


def test_snippet_is_plain_text_by_default_and_markers_are_opt_in(
    search: PostgresTextSearch, pg_dsn: str
) -> None:
    plain = search.get_search_results_sync("tomatoes")[0].snippet
    assert plain and "tomatoes" in plain and "<b>" not in plain and "**" not in plain
    with PostgresTextSearch(pg_dsn, table=search.table, highlight=("[", "]")) as marked:
        snippet = marked.get_search_results_sync("tomatoes")[0].snippet
    assert snippet and "[tomatoes]" in snippet


def test_normalized_results_and_strings(search: PostgresTextSearch) -> None:
    text = search.get_text_search_results_sync("pasta")[0]
    assert text.name == "Cooking" and text.link == "https://recipes.other.net/pasta"
    assert text.value and "pasta" in text.value
    assert search.search_sync("pasta")[0] == text.value


def test_stopword_only_query_finds_nothing_without_error(search: PostgresTextSearch) -> None:
    results = search.get_search_results_sync("the and of", include_total_count=True)
    assert list(results) == [] and results.total_count == 0


def test_empty_query_rejected_before_any_connection() -> None:
    search = PostgresTextSearch("host=/nonexistent-socket-dir port=1 connect_timeout=2")
    with pytest.raises(InvalidRequestError):
        search.search_sync("   ")
    with pytest.raises(InvalidRequestError):
        search.search_sync("x", top=51)


@pytest.mark.anyio
async def test_async_twins_match_sync(search: PostgresTextSearch, pg_dsn: str) -> None:
    async with PostgresTextSearch(pg_dsn, table=search.table) as asearch:
        results = await asearch.get_search_results("backoff jitter", include_total_count=True)
        assert ids(results) == ids(search.get_search_results_sync("backoff jitter"))
        assert results.total_count == 2
        texts = await asearch.get_text_search_results("pasta")
        assert texts[0].name == "Cooking"
        assert (await asearch.search("pasta"))[0] == texts[0].value
        assert ids(await asearch.get_documents("pasta")) == ["pasta"]


# -- filters -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda f: f.equal_to("site", "example.com"), {"retry", "backoff"}),
        (lambda f: f.equal_to("site", "DOCS.example.com."), {"retry"}),
        (lambda f: f.equal_to("id", "backoff"), {"backoff"}),
        (lambda f: f.equal_to("link", "https://docs.example.com/retry"), {"retry"}),
        (lambda f: f.equal_to("lang", "en"), {"retry", "backoff"}),
        (lambda f: f.equal_to("year", 2024), {"retry"}),
        (lambda f: f.equal_to("stable", True), {"retry"}),
        (lambda f: f.equal_to("year", None), {"backoff"}),
        (lambda f: f.any_tag_equal_to("tags", "python"), {"retry", "backoff"}),
        (
            lambda f: f.any_tag_equal_to("tags", "python").equal_to("site", "docs.example.com"),
            {"retry"},
        ),
        (lambda f: f.equal_to("tags", "python"), set()),  # a list is not equal to one tag
    ],
)
def test_filters(search: PostgresTextSearch, build: Any, expected: set[str]) -> None:
    found = search.get_search_results_sync(
        "retries backoff jitter", filter=build(TextSearchFilter()), include_total_count=True
    )
    assert set(ids(found)) == expected
    assert found.total_count == len(expected)


@pytest.mark.parametrize(
    "build",
    [
        lambda f: f.equal_to("bad key", "x"),
        lambda f: f.equal_to("a'); DROP TABLE x; --", "x"),
        lambda f: f.any_tag_equal_to("site", "example.com"),
        lambda f: f.any_tag_equal_to("id", "retry"),
    ],
)
def test_unsupported_filter_fields_are_rejected(search: PostgresTextSearch, build: Any) -> None:
    with pytest.raises(UnsupportedFilterError) as info:
        search.search_sync("retry", filter=build(TextSearchFilter()))
    assert "site" in info.value.supported_fields


# -- hostile input -------------------------------------------------------------------------

HOSTILE_QUERIES = [
    "'; DROP TABLE {table}; --",
    "retry') OR 1=1 --",
    "foo:* & !bar | (baz <-> qux)",
    '"unterminated phrase',
    "-",
    "- - -retry",
    "or or or",
    "\\' \\\\ %s %(query)s $1 {}",
    "retry\x00policy",
    "ʻokina ümlaut 中文 🔥 \u200b",
    "a" * 5000,
    " ".join(f"w{i}" for i in range(500)),
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_hostile_query_text_is_only_text(
    search: PostgresTextSearch, pg_dsn: str, query: str
) -> None:
    query = query.replace("{table}", search.table)
    results = search.get_search_results_sync(query, include_total_count=True)
    assert results.total_count is not None and results.total_count <= len(DOCS)
    if "\x00" in query:  # PostgreSQL text cannot hold NUL: it is read as a space
        assert ids(results)[0] == "retry"
    assert table_rows(pg_dsn, search.table) == len(DOCS)


@pytest.mark.parametrize(
    "value",
    [
        "x' OR '1'='1",
        "%",
        "_",
        '"}, "lang": "en',
        "example.com' OR 1=1 --",
        "\\",
    ],
)
@pytest.mark.parametrize("field", ["site", "id", "link", "lang", "tags"])
def test_hostile_filter_values_match_nothing_and_change_nothing(
    search: PostgresTextSearch, pg_dsn: str, field: str, value: str
) -> None:
    search_filter = (
        TextSearchFilter().any_tag_equal_to(field, value)
        if field == "tags"
        else TextSearchFilter().equal_to(field, value)
    )
    found = search.get_search_results_sync(
        "retries backoff jitter pasta", filter=search_filter, include_total_count=True
    )
    assert list(found) == [] and found.total_count == 0
    assert table_rows(pg_dsn, search.table) == len(DOCS)


def test_hostile_identifiers_are_refused_at_construction(pg_dsn: str) -> None:
    for table in ('x"; DROP TABLE y; --', "a b", "1abc", "a.b.c", ""):
        with pytest.raises(ConfigurationError):
            PostgresTextSearch(pg_dsn, table=table)
    with pytest.raises(ConfigurationError):
        PostgresTextSearch(pg_dsn, text_search_config="english'; --")
    with pytest.raises(ConfigurationError):
        PostgresTextSearch.from_table(pg_dsn, table="t", value_column="body; --")


def test_from_table_refuses_an_unknown_keyword_at_run_time_too() -> None:
    # Type checkers see PostgresSettings; an untyped caller gets the same refusal, in the
    # documented error, naming the keyword, before any connection.
    dsn = "postgresql://reader:s3cret-pw@127.0.0.1:1/docs"
    with pytest.raises(ConfigurationError, match="snipet_words") as info:
        PostgresTextSearch.from_table(dsn, table="t", value_column="body", **{"snipet_words": 3})
    assert "s3cret-pw" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


# -- writing -------------------------------------------------------------------------------


def test_upsert_replaces_by_id_and_delete_counts(search: PostgresTextSearch) -> None:
    search.add_documents_sync([{"id": "pasta", "title": "Soup", "text": "Carrot soup."}])
    assert search.count_documents_sync() == len(DOCS)
    assert ids(search.get_search_results_sync("carrot")) == ["pasta"]
    assert search.get_search_results_sync("tomatoes").results == []
    assert search.delete_documents_sync(["pasta", "nope"]) == 1
    assert search.count_documents_sync() == len(DOCS) - 1


def test_documents_are_validated_like_the_local_index(search: PostgresTextSearch) -> None:
    with pytest.raises(InvalidRequestError):
        search.add_documents_sync([{"id": "x", "text": "t", "metadata": {"bad key": 1}}])
    with pytest.raises(InvalidRequestError):
        search.add_documents_sync([{"id": "x", "text": "t", "metadata": {"site": "a"}}])
    with pytest.raises(InvalidRequestError):
        search.add_documents_sync([{"id": "x", "text": "t", "unknown": 1}])
    with pytest.raises(InvalidRequestError):
        search.add_documents_sync({"id": "x", "text": "t"})  # type: ignore[arg-type]
    # A valid document after an invalid one: nothing was written by the failed calls.
    assert search.count_documents_sync() == len(DOCS)
    search.add_documents_sync([LocalDocument(id="m", title="Model", text="A LocalDocument.")])
    assert ids(search.get_search_results_sync("localdocument")) == ["m"]


def test_missing_id_is_derived_and_nul_is_dropped(search: PostgresTextSearch) -> None:
    search.add_documents_sync([{"title": "Nul", "text": "zebra\x00crossing"}])
    found = search.get_search_results_sync("zebracrossing")
    assert len(found) == 1 and len(found[0].id) == 32


def test_batches_are_written_in_several_transactions(pg_dsn: str, pg_table: str) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table, batch_size=7) as search:
        search.create_schema_sync()
        docs = [{"id": str(i), "text": f"item number{i} walrus"} for i in range(50)]
        assert search.add_documents_sync(docs) == 50
        assert search.count_documents_sync() == 50
        assert search.get_search_results_sync("walrus", include_total_count=True).total_count == 50


@pytest.mark.anyio
async def test_async_writes(pg_dsn: str, pg_table: str) -> None:
    async with PostgresTextSearch(pg_dsn, table=pg_table, batch_size=2) as search:
        await search.create_schema()
        await search.create_schema()  # idempotent
        assert await search.add_documents(DOCS) == len(DOCS)
        assert await search.count_documents() == len(DOCS)
        assert await search.delete_documents(["retry"]) == 1
        assert "retry" not in ids(await search.get_search_results("retries"))


def test_index_path_is_incremental(pg_dsn: str, pg_table: str, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Alpha guide\n\nThe walrus sleeps.")
    (tmp_path / "b.txt").write_text("Beta notes about penguins.")
    (tmp_path / "skip.bin").write_text("walrus")
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        seen: list[int] = []
        report = search.index_path(tmp_path, progress=lambda done, total, path: seen.append(done))
        assert (report.added, report.updated, report.unchanged) == (2, 0, 0)
        assert seen == [1, 2]
        top = search.get_search_results_sync("walrus")[0]
        assert top.title == "Alpha guide" and top.link == str(tmp_path / "a.md")
        again = search.index_path(tmp_path)
        assert (again.added, again.updated, again.unchanged) == (0, 0, 2)
        (tmp_path / "b.txt").write_text("Beta notes about seals now.")
        (tmp_path / "a.md").unlink()
        third = search.index_path(tmp_path)
        assert (third.updated, third.removed) == (1, 1)
        assert search.get_search_results_sync("walrus").results == []
        assert ids(search.get_search_results_sync("seals")) == [str(tmp_path / "b.txt")]
        with pytest.raises(ConfigurationError):
            search.index_path(tmp_path / "missing")


# -- existing tables -----------------------------------------------------------------------


@pytest.fixture
def articles(pg_server: Any, pg_dsn: str, pg_table: str) -> str:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            f'CREATE TABLE "{pg_table}" (article_id int PRIMARY KEY, headline text, body text, '
            "url text, extra jsonb, tsv tsvector GENERATED ALWAYS AS "
            "(setweight(to_tsvector('simple', coalesce(headline, '')), 'A') || "
            "setweight(to_tsvector('simple', coalesce(body, '')), 'B')) STORED)"
        )
        rows = [
            (
                1,
                "Walrus facts",
                "Walruses live in the Arctic.",
                "https://zoo.example.com/w",
                json.dumps({"kind": "animal", "tags": ["sea"]}),
            ),
            (
                2,
                "Penguin facts",
                "Penguins live in the south; no walrus.",
                "https://x.org/p",
                json.dumps({"kind": "animal", "tags": ["bird"]}),
            ),
            (3, "Arctic travel", "Ships and ice.", None, None),
        ]
        with conn.cursor() as cursor:
            cursor.executemany(
                f'INSERT INTO "{pg_table}" (article_id, headline, body, url, extra) '
                "VALUES (%s, %s, %s, %s, %s)",
                rows,
            )
    return pg_table


@pytest.mark.parametrize("use_vector", [True, False])
def test_existing_table_mode(pg_dsn: str, articles: str, use_vector: bool) -> None:
    search = PostgresTextSearch.from_table(
        pg_dsn,
        table=articles,
        id_column="article_id",
        name_column="headline",
        value_column="body",
        link_column="url",
        metadata_column="extra",
        tsvector_column="tsv" if use_vector else None,
        text_search_config="simple",
    )
    with search:
        found = search.get_search_results_sync("walrus arctic", include_total_count=True)
        assert ids(found)[0] == "1" and found.total_count == 3
        assert found[0].title == "Walrus facts" and found[0].link == "https://zoo.example.com/w"
        only_zoo = search.get_search_results_sync(
            "walrus", filter=TextSearchFilter().equal_to("site", "example.com")
        )
        assert ids(only_zoo) == ["1"]
        assert ids(
            search.get_search_results_sync(
                "facts", filter=TextSearchFilter().any_tag_equal_to("tags", "bird")
            )
        ) == ["2"]
        assert ids(
            search.get_search_results_sync("facts", filter=TextSearchFilter().equal_to("id", 2))
        ) == ["2"]
        with pytest.raises(ConfigurationError):
            search.add_documents_sync(DOCS)
        with pytest.raises(ConfigurationError):
            search.create_schema_sync()


def test_existing_table_without_metadata_or_link_refuses_those_filters(
    pg_dsn: str, articles: str
) -> None:
    search = PostgresTextSearch.from_table(
        pg_dsn, table=articles, id_column="article_id", value_column="body"
    )
    with search:
        assert ids(search.get_search_results_sync("ships")) == ["3"]
        for build in (lambda f: f.equal_to("site", "x.org"), lambda f: f.equal_to("kind", "a")):
            with pytest.raises(UnsupportedFilterError):
                search.search_sync("walrus", filter=build(TextSearchFilter()))


# -- configuration, lazy import ------------------------------------------------------------


def test_dsn_from_environment(pg_dsn: str, search: PostgresTextSearch, monkeypatch: Any) -> None:
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_DSN", pg_dsn)
    with PostgresTextSearch(table=search.table) as from_env:
        assert ids(from_env.get_search_results_sync("pasta")) == ["pasta"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_size": -1},
        {"max_size": 0},
        {"min_size": 5, "max_size": 2},
        {"timeout": 0},
        {"timeout": "10"},
        {"max_candidates": 0},
        {"highlight": ("<", ">", "!")},
        {"batch_size": 0},
    ],
)
def test_bad_settings_are_configuration_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        PostgresTextSearch("dbname=x", **kwargs)


def test_import_textsearch_does_not_import_psycopg_and_the_connector_names_its_extra() -> None:
    probe = (
        "import sys, textsearch\n"
        "assert not any(m.split('.')[0] in ('psycopg', 'psycopg_pool') for m in sys.modules)\n"
        "sys.modules['psycopg'] = None\n"
        "try:\n"
        "    from textsearch import PostgresTextSearch\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert 'pip install "textsearch-sdk[postgres]"' in out.stdout


def test_options_object_is_honoured(search: PostgresTextSearch) -> None:
    options = SearchOptions(top=1, filter=TextSearchFilter().equal_to("lang", "en"))
    assert len(search.get_search_results_sync("retries backoff pasta", options)) == 1


def test_the_last_of_duplicate_ids_in_one_call_wins(search: PostgresTextSearch) -> None:
    search.add_documents_sync(
        [{"id": "dup", "text": "first okapi"}, {"id": "dup", "text": "second okapi"}]
    )
    found = search.get_search_results_sync("okapi")
    assert ids(found) == ["dup"] and found[0].text == "second okapi"


def test_very_common_words_are_left_out_of_partial_matches(pg_dsn: str, pg_table: str) -> None:
    docs = [{"id": str(i), "text": f"walrus filler{i}"} for i in range(60)]
    docs.append({"id": "both", "text": "walrus zebra"})
    docs.append({"id": "rare", "text": "zebra alone"})
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync(docs)
        # BM25 reads the table's own term statistics, current from the first write.
        now = search.get_search_results_sync("walrus zebra", include_total_count=True)
        assert ids(now) == ["both", "rare"] and now.total_count == 2
        # A word no passage holds does not make the common one drop out.
        alone = search.get_search_results_sync("walrus okapi", include_total_count=True)
        assert alone.total_count == 61
    with PostgresTextSearch(pg_dsn, table=pg_table, rank_function="ts_rank") as search:
        before = search.get_search_results_sync("walrus zebra", include_total_count=True)
        assert before.total_count == 62  # no ANALYZE statistics yet: any word counts
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f'ANALYZE "{pg_table}"')
    # ts_rank: the statistics are read once a minute (every 5 s before the first ANALYZE): a
    # new instance reads them at once.
    with PostgresTextSearch(pg_dsn, table=pg_table, rank_function="ts_rank") as search:
        after = search.get_search_results_sync("walrus zebra", include_total_count=True)
        # walrus is in 97% of the rows: only the whole-query match and the rare word remain.
        assert ids(after) == ["both", "rare"] and after.total_count == 2
        # Alone, a common word still finds its documents.
        assert search.get_search_results_sync("walrus", include_total_count=True).total_count == 61


def test_partial_matches_follow_whole_matches_across_pages(pg_dsn: str, pg_table: str) -> None:
    docs = [{"id": f"w{i}", "text": f"okapi zebra {'zebra ' * i}"} for i in range(3)]
    docs += [{"id": f"p{i}", "text": f"okapi {'okapi ' * i}"} for i in range(2)]
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync(docs)
        first = ids(search.get_search_results_sync("okapi zebra", top=2))
        second = ids(search.get_search_results_sync("okapi zebra", top=2, skip=2))
        third = ids(search.get_search_results_sync("okapi zebra", top=2, skip=4))
        everything = ids(search.get_search_results_sync("okapi zebra", top=10))
    assert first + second + third == everything
    assert set(everything[:3]) == {"w0", "w1", "w2"} and set(everything[3:]) == {"p0", "p1"}


def test_a_long_passage_stays_in_its_row_vector_first(pg_dsn: str, pg_table: str) -> None:
    # Ranking reads the vector of every candidate: it must be neither compressed nor out of
    # line for an ordinary passage, and the text (read for the page's rows) stays in the row.
    syllables = ["bal", "dre", "kus", "mak", "pe", "tor", "lon", "zen", "quo", "vi", "sha"]
    rng = random.Random(3)
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(300)]
    text = " ".join(rng.choice(words) for _ in range(260))
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync([{"id": "long", "title": "Long", "text": text}])
        assert ids(search.get_search_results_sync(" ".join(text.split()[:2]))) == ["long"]
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        vector_bytes, compressed = conn.execute(
            f"SELECT pg_column_size(search_vector), pg_column_compression(search_vector) "
            f'FROM "{pg_table}"'
        ).fetchone()
        toast = conn.execute(
            "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = %s::regclass",
            (f'"{pg_table}"',),
        ).fetchone()[0]
        columns = [
            row[0]
            for row in conn.execute(
                "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                "ORDER BY attnum",
                (f'"{pg_table}"',),
            )
        ]
    assert vector_bytes > 2000 and compressed is None
    assert toast == 0
    # Ranking reads the vector of every candidate: it comes before the wide columns.
    assert columns.index("search_vector") < columns.index("text") < columns.index("metadata")
