"""A passage's page, slide, sheet and row are filterable on the local index, both engines (#30).

A PDF is one document whose passages link ``#page=N``: a filter on ``page`` reads the
passage's page, and a document added with ``metadata={"page": N}`` keeps its meaning.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.documents._make import make_pdf, make_pptx, make_xlsx
from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.errors import UnsupportedFilterError

pytest.importorskip("pypdfium2")
pytest.importorskip("pptx")
pytest.importorskip("openpyxl")

NAMES = ["Lisbon", "Porto", "Cadiz", "Vigo", "Bilbao", "Gijon"]


def _engines() -> list[str]:
    try:
        import tantivy  # noqa: F401
    except ImportError:
        return ["sqlite"]
    return ["sqlite", "tantivy"]


@pytest.fixture(params=_engines())
def search(request: pytest.FixtureRequest, tmp_path: Path) -> LocalTextSearch:
    folder = tmp_path / "files"
    folder.mkdir()
    # lines unlike each other, so that none is taken for a running header
    pages = [
        [f"{name} harbour, page {n + 1}.", " ".join(NAMES[: n + 1])] for n, name in enumerate(NAMES)
    ]
    (folder / "ports.pdf").write_bytes(make_pdf(pages))
    make_pptx(folder / "deck.pptx")
    make_xlsx(folder / "stock.xlsx")
    index = LocalTextSearch(str(tmp_path / "index.db"), engine=request.param)
    report = index.index_path(folder)
    assert report.added == 3 and not report.failed
    # a document whose page is its own metadata
    index.add_documents(
        [{"id": "note", "text": "A harbour note about page three.", "metadata": {"page": 3}}]
    )
    return index


def _places(search: LocalTextSearch, query: str, f: TextSearchFilter, key: str) -> list[object]:
    results = search.get_search_results_sync(query, top=50, filter=f).results
    return sorted((r.metadata.get(key) for r in results), key=str)


def test_a_page_is_filterable_by_equality_and_ranges(search: LocalTextSearch) -> None:
    # unfiltered: every page holds "harbour", and the note too
    assert _places(search, "harbour", TextSearchFilter(), "page") == [1, 2, 3, 3, 4, 5, 6]
    assert _places(search, "harbour", TextSearchFilter().equal_to("page", 3), "page") == [3, 3]
    found = search.get_search_results_sync(
        "harbour", top=50, filter=TextSearchFilter().equal_to("page", 3)
    ).results
    assert {r.link.rsplit("#", 1)[-1] for r in found if r.link} == {"page=3"}
    assert {r.id for r in found} == {"note", str(search_path(search, "ports.pdf"))}
    at_least = TextSearchFilter().greater_than_or_equal("page", 4)
    assert _places(search, "harbour", at_least, "page") == [4, 5, 6]
    between = TextSearchFilter().greater_than("page", 1).less_than("page", 3)
    assert _places(search, "harbour", between, "page") == [2]
    assert _places(search, "harbour", TextSearchFilter().any_of("page", [1, 6]), "page") == [1, 6]
    assert _places(search, "harbour", TextSearchFilter().not_equal_to("page", 3), "page") == [
        1,
        2,
        4,
        5,
        6,
    ]
    # a page is a number: the string "3" is not it, as for any metadata
    assert _places(search, "harbour", TextSearchFilter().equal_to("page", "3"), "page") == []


def test_a_slide_and_a_sheet_are_filterable(search: LocalTextSearch) -> None:
    slide = search.get_search_results_sync(
        "board budget approved", top=10, filter=TextSearchFilter().equal_to("slide", 2)
    ).results
    assert slide and all(r.metadata["slide"] == 2 for r in slide)
    assert not search.get_search_results_sync(
        "board budget approved", top=10, filter=TextSearchFilter().equal_to("slide", 1)
    ).results
    sheet = search.get_search_results_sync(
        "returned goods", top=10, filter=TextSearchFilter().equal_to("sheet", "Notes & remarks")
    ).results
    assert [r.metadata["sheet"] for r in sheet] == ["Notes & remarks"]
    assert not search.get_search_results_sync(
        "returned goods", top=10, filter=TextSearchFilter().equal_to("sheet", "Stock levels")
    ).results


def test_a_whole_document_is_read_only_if_every_page_is_admitted(
    search: LocalTextSearch,
) -> None:
    pdf = str(search_path(search, "ports.pdf"))
    assert search.get_document(pdf, filter=TextSearchFilter().equal_to("page", 3)) is None
    whole = search.get_document(pdf, filter=TextSearchFilter().greater_than_or_equal("page", 1))
    assert whole is not None and "Gijon harbour" in whole.text
    assert search.get_document("note", filter=TextSearchFilter().equal_to("page", 3)) is not None


def test_place_fields_are_known_only_once_a_file_has_them(tmp_path: Path) -> None:
    index = LocalTextSearch()
    index.add_documents([{"id": "a", "text": "harbour"}])
    with pytest.raises(UnsupportedFilterError):
        index.get_search_results_sync("harbour", filter=TextSearchFilter().equal_to("page", 1))


def search_path(search: LocalTextSearch, name: str) -> Path:
    path = Path(search.path).parent / "files" / name
    assert path.exists()
    return path


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_the_semantic_arm_admits_only_the_filtered_pages(tmp_path: Path, mode: str) -> None:
    from tests.connectors.vectors._support import CountingEmbedder

    folder = tmp_path / "files"
    folder.mkdir()
    pages = [
        [f"{name} harbour, page {n + 1}.", " ".join(NAMES[: n + 1])] for n, name in enumerate(NAMES)
    ]
    (folder / "ports.pdf").write_bytes(make_pdf(pages))
    index = LocalTextSearch(embedder=CountingEmbedder(), mode=mode)  # type: ignore[arg-type]
    index.index_path(folder)
    everything = index.get_search_results_sync("harbour", top=50).results
    assert sorted(r.metadata["page"] for r in everything) == [1, 2, 3, 4, 5, 6]
    for f, pages_wanted in (
        (TextSearchFilter().equal_to("page", 3), [3]),
        (TextSearchFilter().greater_than_or_equal("page", 5), [5, 6]),
        (TextSearchFilter().not_equal_to("page", 1), [2, 3, 4, 5, 6]),
    ):
        found = index.get_search_results_sync("harbour", top=50, filter=f, include_total_count=True)
        assert sorted(r.metadata["page"] for r in found.results) == pages_wanted
        assert found.total_count == len(pages_wanted)
