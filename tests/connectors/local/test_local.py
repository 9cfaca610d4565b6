from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.connectors._local_engines import local_engine  # noqa: F401  (every test on both engines)
from textsearch import (
    ConfigurationError,
    InvalidRequestError,
    LocalDocument,
    LocalTextSearch,
    SearchOptions,
    TextSearch,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)

DOCS = [
    {
        "id": "retry",
        "title": "Retry guide",
        "text": "Configure retries with exponential backoff and jitter for transient errors.",
        "link": "https://devblogs.microsoft.com/python/retry",
        "metadata": {"tags": ["python", "ops"], "year": 2024, "draft": False},
    },
    {
        "id": "timeouts",
        "title": "Timeouts",
        "text": "Every network call needs a timeout; a retry without a timeout can hang forever.",
        "link": "https://example.com/timeouts",
        "metadata": {"tags": ["ops"], "year": 2025, "draft": True},
    },
    {
        "id": "vector-db",
        "title": "向量数据库选型",
        "text": "本文从索引类型、过滤能力与运维成本三方面比较主流向量数据库。",
        "link": "https://tech.example.cn/posts/vector-db",
        "metadata": {"tags": ["db"], "year": 2025},
    },
    {
        "id": "ja",
        "title": "全文検索の入門",
        "text": "日本語のテキストも検索できます。形態素解析なしで部分一致します。",
        "link": None,
        "metadata": {},
    },
]


@pytest.fixture
def search() -> LocalTextSearch:
    s = LocalTextSearch()
    s.add_documents(DOCS)
    return s


def test_is_a_text_search(search: LocalTextSearch) -> None:
    assert isinstance(search, TextSearch)
    assert search.document_count == 4


def test_bm25_snippet_name_link(search: LocalTextSearch) -> None:
    results = search.get_text_search_results_sync("exponential backoff")
    assert [r.name for r in results] == ["Retry guide"]
    assert results[0].link == "https://devblogs.microsoft.com/python/retry"
    # the value is the passage itself, with no markup for the model
    assert results[0].value == DOCS[0]["text"]


def test_stemming_finds_other_forms(search: LocalTextSearch) -> None:
    assert {d.id for d in search.get_documents_sync("retrying")} == {"retry", "timeouts"}


def test_title_weighs_more_than_body(search: LocalTextSearch) -> None:
    docs = search.get_documents_sync("timeout")
    assert docs[0].id == "timeouts"
    assert docs[0].score is not None and docs[0].score > 0


def test_any_word_ranks_documents_with_more_words_first(search: LocalTextSearch) -> None:
    both = search.get_search_results_sync("retry timeout")
    assert both.metadata["match"] == "any"
    assert [d.id for d in both] == ["timeouts", "retry"]
    either = search.get_search_results_sync("jitter forever")
    assert {d.id for d in either} == {"retry", "timeouts"}


def test_match_all_is_opt_in() -> None:
    strict = LocalTextSearch(match="all")
    strict.add_documents(DOCS)
    both = strict.get_search_results_sync("retry timeout")
    assert both.metadata["match"] == "all"
    assert [d.id for d in both] == ["timeouts"]
    assert strict.search_sync("jitter forever").results == []
    with pytest.raises(ConfigurationError):
        LocalTextSearch(match="some")  # type: ignore[arg-type]


def test_highlight_can_be_changed_or_removed() -> None:
    plain = LocalTextSearch(highlight=None)
    plain.add_documents(DOCS[:1])
    assert "*" not in plain.search_sync("backoff")[0]
    tagged = LocalTextSearch(highlight=("<b>", "</b>"))
    tagged.add_documents(DOCS[:1])
    assert "<b>backoff</b>" in tagged.search_sync("backoff")[0]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("数据库", "vector-db"),
        ("选型", "vector-db"),  # two-character word, only in the title
        ("向量", "vector-db"),
        ("検索", "ja"),
        ("部分一致", "ja"),
        ("テキスト", "ja"),
    ],
)
def test_cjk_text_is_searchable(search: LocalTextSearch, query: str, expected: str) -> None:
    # match="any": a passage sharing one character (索 of 検索 in 索引) may follow, never lead
    docs = search.get_documents_sync(query)
    assert docs[0].id == expected


def test_cjk_snippets_have_no_inserted_spaces() -> None:
    search = LocalTextSearch(highlight=("**", "**"))
    search.add_documents(DOCS)
    snippet = search.search_sync("数据库")[0]
    assert "主流向量**数据库**" in snippet
    assert "\u200b" not in snippet


def test_total_count_and_paging(search: LocalTextSearch) -> None:
    first = search.get_search_results_sync(
        "ops OR network OR retry", top=1, include_total_count=True
    )
    assert first.total_count == 2
    second = search.get_search_results_sync("ops OR network OR retry", top=1, skip=1)
    assert second.total_count is None
    assert {first[0].id, second[0].id} == {"retry", "timeouts"}
    assert search.get_search_results_sync("retry", skip=10).results == []


def test_paging_keeps_the_same_match_mode(search: LocalTextSearch) -> None:
    page2 = search.get_search_results_sync("retry timeout", top=1, skip=1)
    assert page2.metadata["match"] == "any"
    assert [d.id for d in page2] == ["retry"]


def test_site_filter_matches_host_and_subdomains(search: LocalTextSearch) -> None:
    site = TextSearchFilter().equal_to("site", "microsoft.com")
    assert [d.id for d in search.get_documents_sync("retry", filter=site)] == ["retry"]
    exact = TextSearchFilter().equal_to("site", "devblogs.microsoft.com")
    assert [d.id for d in search.get_documents_sync("retry", filter=exact)] == ["retry"]
    other = TextSearchFilter().equal_to("site", "crosoft.com")
    assert search.get_documents_sync("retry", filter=other).results == []
    wildcard = TextSearchFilter().equal_to("site", "%")
    assert search.get_documents_sync("retry", filter=wildcard).results == []


def test_metadata_filters_are_typed_and_anded(search: LocalTextSearch) -> None:
    f2025 = TextSearchFilter().equal_to("year", 2025)
    assert [d.id for d in search.get_documents_sync("timeout", filter=f2025)] == ["timeouts"]
    assert (
        search.get_documents_sync(
            "timeout", filter=TextSearchFilter().equal_to("year", "2025")
        ).results
        == []
    )
    drafts = TextSearchFilter().equal_to("draft", True)
    assert [d.id for d in search.get_documents_sync("retry", filter=drafts)] == ["timeouts"]
    both = TextSearchFilter().any_tag_equal_to("tags", "ops").equal_to("year", 2024)
    assert [d.id for d in search.get_documents_sync("retry", filter=both)] == ["retry"]
    python = TextSearchFilter().any_tag_equal_to("tags", "python")
    assert [d.id for d in search.get_documents_sync("timeout OR retry", filter=python)] == ["retry"]


def test_filter_on_none_matches_missing(search: LocalTextSearch) -> None:
    no_year = TextSearchFilter().equal_to("year", None)
    assert [d.id for d in search.get_documents_sync("検索", filter=no_year)] == ["ja"]
    assert search.get_documents_sync("retry", filter=no_year).results == []


def test_equal_to_does_not_match_inside_lists(search: LocalTextSearch) -> None:
    tags = TextSearchFilter().equal_to("tags", "ops")
    assert search.get_documents_sync("retry", filter=tags).results == []


def test_unknown_filter_field_is_an_error_naming_the_supported_ones(
    search: LocalTextSearch,
) -> None:
    with pytest.raises(UnsupportedFilterError) as info:
        search.search_sync("retry", filter=TextSearchFilter().equal_to("colour", "red"))
    assert info.value.field_name == "colour"
    assert set(info.value.supported_fields) == {"draft", "id", "link", "site", "tags", "year"}
    with pytest.raises(UnsupportedFilterError):
        search.search_sync("retry", filter=TextSearchFilter().any_tag_equal_to("site", "x"))


def test_id_and_link_filters(search: LocalTextSearch) -> None:
    by_id = TextSearchFilter().equal_to("id", "timeouts")
    assert [d.id for d in search.get_documents_sync("retry", filter=by_id)] == ["timeouts"]


def test_native_documents_and_get_documents(search: LocalTextSearch) -> None:
    docs = search.get_documents_sync("jitter")
    assert isinstance(docs[0], LocalDocument)
    assert docs[0].metadata == {"tags": ["python", "ops"], "year": 2024, "draft": False}
    assert docs[0].text.startswith("Configure retries")
    assert docs.results == search.get_search_results_sync("jitter").results


@pytest.mark.anyio
async def test_async_methods(search: LocalTextSearch) -> None:
    assert (await search.search("jitter"))[0].startswith("Configure")
    texts = await search.get_text_search_results("jitter")
    assert texts[0].name == "Retry guide"
    assert (await search.get_documents("jitter"))[0].id == "retry"


def test_add_replaces_by_id_and_remove(search: LocalTextSearch) -> None:
    search.add_documents([{"id": "retry", "title": "Replaced", "text": "nothing about it"}])
    assert search.document_count == 4
    assert search.search_sync("jitter").results == []
    assert search.get_text_search_results_sync("nothing")[0].name == "Replaced"
    assert search.remove_documents(["retry", "missing"]) == 1
    assert search.document_count == 3


def test_add_documents_accepts_models_and_derives_ids() -> None:
    s = LocalTextSearch()
    s.add_documents([LocalDocument(id="a", text="alpha"), {"text": "beta"}, {"text": "beta"}])
    assert s.document_count == 2  # the same content gets the same derived id


@pytest.mark.parametrize(
    "bad",
    [
        {"id": "x", "text": "t", "metadata": {"bad key": 1}},
        {"id": "x", "text": "t", "metadata": {"site": "x"}},
        {"id": "x", "text": "t", "metadata": {"nested": {"a": 1}}},
        {"id": "x", "text": 3},
        {"id": "x", "text": "t", "colour": "red"},
    ],
)
def test_invalid_documents_are_rejected_and_nothing_is_written(bad: dict[str, object]) -> None:
    s = LocalTextSearch()
    with pytest.raises(InvalidRequestError):
        s.add_documents([{"id": "ok", "text": "fine"}, bad])
    assert s.document_count == 0


HOSTILE = [
    '"',
    '"unbalanced',
    "AND",
    "OR OR OR",
    "NOT retry",
    "retry AND NOT",
    "*",
    "retry*",
    "title:retry",
    "body : x",
    "(retry",
    "retry)",
    "NEAR(retry backoff, 2)",
    "'; DROP TABLE documents; --",
    "1' OR '1'='1",
    "^retry",
    "-retry",
    "+retry",
    "retry\x00null",
    "😀🔥",
    "\u200b\ue000",
    "x" * 10_000,
    " ".join(["retry"] * 5000),
]


@pytest.mark.parametrize("query", HOSTILE)
def test_any_user_text_is_searched_as_text(search: LocalTextSearch, query: str) -> None:
    results = search.get_search_results_sync(query, include_total_count=True)
    assert results.total_count is not None and results.total_count >= len(results.results)
    if re.search(r"\bretry\b", query):
        # the word is still found: operators and punctuation were treated as text
        assert {"retry", "timeouts"} & {d.id for d in results}
    assert search.document_count == 4


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(min_size=1, max_size=200).filter(lambda s: s.strip() != ""))
def test_property_no_query_raises(query: str) -> None:
    s = _shared_index()
    results = s.get_search_results_sync(query, include_total_count=True)
    assert results.total_count is not None and results.total_count >= len(results.results)


_INDEX: list[LocalTextSearch] = []


def _shared_index() -> LocalTextSearch:
    if not _INDEX:
        s = LocalTextSearch()
        s.add_documents(DOCS)
        _INDEX.append(s)
    return _INDEX[0]


def test_top_above_maximum_is_rejected(search: LocalTextSearch) -> None:
    with pytest.raises(InvalidRequestError):
        search.search_sync("retry", top=51)
    with pytest.raises(InvalidRequestError):
        search.search_sync("retry", SearchOptions(top=2), skip=-1)


# -- files ------------------------------------------------------------------------------


def _write(path: Path, text: str, *, bump: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if bump:  # make sure the modification time differs even on coarse clocks
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    _write(root / "guide.md", "---\ntitle: Front Matter Title\n---\nBody about kangaroos.\n")
    _write(root / "heading.md", "Intro line\n\n# The Heading\n\nWombats dig burrows.\n")
    _write(root / "setext.markdown", "Setext Title\n============\n\nPlatypus facts.\n")
    _write(
        root / "page.html",
        "<html><head><title>HTML Title</title><script>var wallaby=1</script>"
        "</head><body><nav>menu echidna</nav><p>Koalas &amp; quokkas sleep.</p></body></html>",
    )
    _write(root / "doc.rst", "RST Title\n=========\n\nDingo text.\n")
    _write(root / "plain.txt", "Plain first line\nEmus run fast.\n")
    _write(root / "sub" / "deep.md", "# Deep\n\nNumbats eat termites.\n")
    _write(root / "ignored.py", "kangaroo = 1\n")
    _write(root / ".hidden" / "secret.md", "# Hidden\n\nkangaroo\n")
    _write(root / "node_modules" / "pkg" / "readme.md", "# Pkg\n\nkangaroo\n")
    return root


def test_index_path_reads_each_format_with_titles(corpus: Path) -> None:
    s = LocalTextSearch()
    report = s.index_path(corpus)
    assert (report.added, report.updated, report.removed, report.failed) == (7, 0, 0, [])
    titles = {
        "kangaroos": "Front Matter Title",
        "wombats": "The Heading",
        "platypus": "Setext Title",
        "quokkas": "HTML Title",
        "dingo": "RST Title",
        "emus": "Plain first line",
        "numbats": "Deep",
    }
    for word, title in titles.items():
        results = s.get_text_search_results_sync(word)
        assert [r.name for r in results] == [title], word
        assert results[0].link is not None
        assert Path(results[0].link.split("#")[0]).is_file()


def test_html_scripts_and_navigation_are_not_indexed(corpus: Path) -> None:
    s = LocalTextSearch(highlight=("**", "**"))
    s.index_path(corpus)
    assert s.search_sync("wallaby").results == []
    assert s.search_sync("echidna").results == []
    assert "Koalas & **quokkas** sleep." in s.search_sync("quokkas")[0]


def test_skipped_files_and_folders(corpus: Path) -> None:
    s = LocalTextSearch()
    s.index_path(corpus)
    assert [r.name for r in s.get_text_search_results_sync("kangaroo")] == ["Front Matter Title"]


def test_reindex_reads_only_changes_and_removes_deleted_files(tmp_path: Path, corpus: Path) -> None:
    db = tmp_path / "index.sqlite3"
    s = LocalTextSearch(db)
    s.index_path(corpus)
    again = s.index_path(corpus)
    assert (again.added, again.updated, again.unchanged, again.removed) == (0, 0, 7, 0)

    _write(corpus / "guide.md", "# Guide\n\nNow about bandicoots.\n", bump=True)
    (corpus / "plain.txt").unlink()
    _write(corpus / "new.txt", "New file\nabout quolls\n")
    report = s.index_path(corpus)
    assert (report.added, report.updated, report.unchanged, report.removed) == (1, 1, 5, 1)
    assert s.search_sync("kangaroos").results == []
    assert s.get_text_search_results_sync("bandicoots")[0].name == "Guide"
    assert s.search_sync("emus").results == []
    assert len(s.search_sync("quolls")) == 1


def test_touched_but_unchanged_file_is_not_reindexed(corpus: Path) -> None:
    s = LocalTextSearch()
    s.index_path(corpus)
    path = corpus / "doc.rst"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    report = s.index_path(corpus)
    assert (report.updated, report.unchanged) == (0, 7)


def test_persistent_index_survives_reopening(tmp_path: Path, corpus: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db) as first:
        first.index_path(corpus)
    with LocalTextSearch(db) as second:
        assert second.document_count == 7
        assert len(second.search_sync("wombats")) == 1
        assert second.index_path(corpus).unchanged == 7


def test_progress_callback(corpus: Path) -> None:
    seen: list[tuple[int, int]] = []
    LocalTextSearch().index_path(
        corpus, progress=lambda done, total, _path: seen.append((done, total))
    )
    assert seen[-1] == (7, 7)
    assert [d for d, _ in seen] == list(range(1, 8))


def test_index_single_file_and_missing_path(tmp_path: Path, corpus: Path) -> None:
    s = LocalTextSearch()
    assert s.index_path(corpus / "doc.rst").added == 1
    with pytest.raises(ConfigurationError, match="no such file"):
        s.index_path(tmp_path / "missing")


def test_a_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users(id)")
    con.commit()
    con.close()
    with pytest.raises(ConfigurationError, match="not a textsearch index"):
        LocalTextSearch(path)
    with pytest.raises(ConfigurationError):
        LocalTextSearch(tmp_path / "no" / "such" / "dir" / "x.db")


def test_repr_and_default_mappers(search: LocalTextSearch) -> None:
    assert repr(search) == "LocalTextSearch(path=':memory:')"
    doc = LocalDocument(id="x", title="T", text="body text")
    assert search._to_text_search_result(doc) == TextSearchResult("T", "body text", None)


def test_modified_time_alone_updates_bookkeeping(corpus: Path) -> None:
    s = LocalTextSearch()
    s.index_path(corpus)
    time.sleep(0.01)
    _write(corpus / "doc.rst", (corpus / "doc.rst").read_text(), bump=True)
    assert s.index_path(corpus).unchanged == 7
    assert s.index_path(corpus).unchanged == 7


def test_a_word_in_no_document_does_not_hide_the_others() -> None:
    # The old any-word fallback took a word found nowhere for "rare" and dropped the
    # common words, so this query returned nothing.
    s = LocalTextSearch()
    s.add_documents({"id": f"c{i}", "text": f"the effect of treatment {i}"} for i in range(30))
    found = s.get_search_results_sync("tirasemtiv effect", include_total_count=True)
    assert found.total_count == 30
    assert len(found) == 5


def _vocabulary(s: LocalTextSearch) -> dict[str, tuple[int, int]]:
    s._db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, passages_fts, 'row')"
    )
    return {term: (docs, hits) for term, docs, hits in s._db.execute("SELECT * FROM temp.vocab")}


def _tantivy_entries(s: LocalTextSearch) -> list[tuple[int, int]]:
    import tantivy

    searcher = s._ranker._index.searcher()
    hits = searcher.search(tantivy.Query.all_query(), limit=100_000).hits
    addresses = [a for _, a in hits]
    pairs = zip(
        searcher.fast_field_values("rowid", addresses),
        searcher.fast_field_values("doc", addresses),
        strict=True,
    )
    return sorted((rowid, doc) for rowid, doc in pairs if rowid)  # rowid 0: generation


def _integrity_check(s: LocalTextSearch) -> None:
    # The index must equal one rebuilt from the stored text: a delete sent with wrong values
    # would leave stale entries that inflate counts and rankings.
    if s.engine == "tantivy":
        stored = s._db.execute("SELECT rowid, doc FROM passages ORDER BY rowid").fetchall()
        assert _tantivy_entries(s) == [tuple(r) for r in stored]
        return
    before = _vocabulary(s)
    s._db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('rebuild')")
    assert _vocabulary(s) == before


def test_index_stays_consistent_with_the_stored_text(corpus: Path) -> None:
    s = LocalTextSearch()
    s.add_documents(DOCS)
    s.add_documents([{**DOCS[0], "text": "rewritten 数据库 text"}])  # replace by id
    s.remove_documents(["timeouts", "ja"])
    s.add_documents([{**DOCS[2], "text": "新的内容"}])  # replace a CJK document
    s.index_path(corpus)
    _write(corpus / "guide.md", "# Changed\n\n全文検索 again\n", bump=True)
    (corpus / "doc.rst").unlink()
    s.index_path(corpus)
    _integrity_check(s)
    assert [d.id for d in s.get_documents_sync("rewritten")] == ["retry"]
    assert s.search_sync("jitter").results == []
    # the check is real: text changed behind the index's back is detected
    row = s._db.execute("SELECT rowid FROM documents WHERE id = 'retry'").fetchone()
    if s.engine == "tantivy":
        s._db.execute("UPDATE passages SET rowid = rowid + 1000 WHERE doc = ?", row)
    s._db.execute("UPDATE passages SET text = 'something else' WHERE doc = ?", row)
    with pytest.raises(AssertionError):
        _integrity_check(s)


def test_text_is_stored_once(tmp_path: Path) -> None:
    s = LocalTextSearch(tmp_path / "x.sqlite3")
    s.add_documents([{"id": "a", "text": "unique words here"}])
    tables = {r[0] for r in s._db.execute("SELECT name FROM sqlite_master")}
    assert "passages_fts_content" not in tables  # the index reads text through a view
    assert "passages" in tables


@pytest.mark.parametrize(
    "doc",
    [
        {"id": "x", "text": "bad \ud800 text"},
        {"id": "x", "text": "t", "title": "\udcff"},
        {"id": "x", "text": "t", "metadata": {"tags": ["ok", "\ud800"]}},
        # two halves of a pair in two fields: checked together, still two lone surrogates
        {"id": "x", "title": "a\ud83d", "text": "\ude00b"},
        {"id": "x", "text": "t", "metadata": {"a": "\ud83d", "b": "\ude00"}},
    ],
)
def test_documents_with_invalid_unicode_are_rejected(doc: dict[str, object]) -> None:
    s = LocalTextSearch()
    with pytest.raises(InvalidRequestError, match="Unicode"):
        s.add_documents([doc])
    assert s.document_count == 0


@pytest.mark.anyio
async def test_async_search_does_not_block_the_event_loop(search: LocalTextSearch) -> None:
    import asyncio

    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    # Hold the database lock from another thread: an inline search would freeze the loop.
    with search._lock:
        pending = asyncio.ensure_future(search.get_documents("retry"))
        for _ in range(20):
            await asyncio.sleep(0)
        assert not pending.done()
        before = ticks
        for _ in range(20):
            await asyncio.sleep(0)
        assert ticks > before  # the loop kept running while the search waited
    docs = await pending
    stop.set()
    await task
    assert {d.id for d in docs} == {"retry", "timeouts"}


@pytest.mark.anyio
async def test_async_unsupported_filter_is_still_an_error(search: LocalTextSearch) -> None:
    with pytest.raises(UnsupportedFilterError):
        await search.search("retry", filter=TextSearchFilter().equal_to("colour", "red"))


def test_cjk_runs_are_fenced_bigrams_for_the_tokenizer() -> None:
    from textsearch.connectors.local._schema import ZWSP, for_index

    z = ZWSP
    # the rest of the text, each run fenced out, then the runs' bigrams and ends (a run's
    # end alone, fenced): the pairs of each character and the next
    assert [t for t in for_index("ab数据c 한").split(z) if t] == ["ab", "c ", "数据", "据", "한"]
    assert [t for t in for_index("数据库x").split(z) if t] == ["x", "数据", "据库", "库"]
    assert for_index("plain ascii") == "plain ascii"
    assert for_index("Crème brûlée") == "Crème brûlée"
