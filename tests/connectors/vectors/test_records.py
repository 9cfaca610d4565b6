"""passage_records: what the stores write, which documents win, what is refused and when."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.connectors.vectors._support import DOCS
from textsearch import InvalidRequestError
from textsearch.connectors.local import LocalDocument
from textsearch.connectors.vectors._base import MAX_PASSAGES, NO_METADATA, passage_records

RESERVED = ("document_id", "title")


def _doc(doc_id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": doc_id, "text": text, **extra}


def test_the_last_document_of_an_id_wins_in_first_seen_order() -> None:
    docs = [_doc("a", "first a"), _doc("b", "only b"), _doc("a", "second a"), _doc("c", "c")]
    ids, records = passage_records(docs, chunk=False, reserved=())
    assert ids == ["a", "b", "c"]
    assert [(r.document_id, r.text) for r in records] == [
        ("a", "second a"),
        ("b", "only b"),
        ("c", "c"),
    ]
    chunked_ids, chunked = passage_records(docs, chunk=True, reserved=())
    assert chunked_ids == ids
    assert [r.text for r in chunked] == ["second a", "only b", "c"]


def test_a_replaced_document_is_not_refused_and_a_refused_winner_is() -> None:
    bad = _doc("a", "x", metadata={"title": "clash"})
    good = _doc("a", "y")
    ids, records = passage_records([bad, good], chunk=False, reserved=RESERVED)
    assert ids == ["a"] and [r.text for r in records] == ["y"]
    with pytest.raises(InvalidRequestError, match="'title' is a field this connector writes"):
        passage_records([good, bad], chunk=False, reserved=RESERVED)


def test_the_first_refused_document_in_order_is_named() -> None:
    docs = [
        _doc("a", "x"),
        _doc("b", "x", metadata={"document_id": "1"}),
        _doc("c", "x", metadata={"title": "2"}),
    ]
    with pytest.raises(InvalidRequestError, match="document 'b'"):
        passage_records(docs, chunk=False, reserved=RESERVED)


def test_an_invalid_document_anywhere_is_refused_before_any_clash() -> None:
    # every document is validated before a reserved key or a length refuses one
    docs = [_doc("a", "x", metadata={"title": "clash"}), {"id": "b", "text": 3}]
    with pytest.raises(InvalidRequestError, match="invalid document"):
        passage_records(docs, chunk=False, reserved=RESERVED)


def test_too_many_passages_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the limit lives with the records (_base re-exports it)
    import textsearch.connectors.vectors._records as records

    assert MAX_PASSAGES > 2
    monkeypatch.setattr(records, "MAX_PASSAGES", 2)
    text = "\n\n".join(f"# Part {i}\n\n" + "words " * 400 for i in range(6))
    with pytest.raises(InvalidRequestError, match="more than 2 passages"):
        passage_records([_doc("a", text)], chunk=True, reserved=())
    assert len(passage_records([_doc("a", text)], chunk=False, reserved=())[1]) == 1


def test_sites_and_metadata_are_shared_read_only_and_written_as_new_objects() -> None:
    from tests.connectors.vectors._support import CountingEmbedder
    from textsearch import QdrantTextSearch

    docs = [
        _doc("a", "x", link="https://docs.example.com/a"),
        _doc("b", "y", link="https://docs.example.com/b", metadata={"lang": "en", "n": None}),
    ]
    _, records = passage_records(docs, chunk=False, reserved=())
    assert records[0].sites == ("docs.example.com", "example.com", "com")
    assert records[0].sites is records[1].sites  # one tuple a host
    assert records[0].metadata is NO_METADATA
    with pytest.raises(TypeError):
        records[0].metadata["lang"] = "fr"  # type: ignore[index]
    assert records[1].metadata == {"lang": "en"}  # None values are left out
    search = QdrantTextSearch(":memory:", "docs", embedder=CountingEmbedder())
    payloads = [search._payload(r) for r in records]
    assert payloads[0]["site"] == ["docs.example.com", "example.com", "com"]
    assert payloads[0]["site"] is not payloads[1]["site"]
    assert type(payloads[0]["metadata"]) is dict and payloads[0]["metadata"] == {}
    payloads[1]["metadata"]["lang"] = "fr"
    assert records[1].metadata == {"lang": "en"}


def test_documents_are_not_all_held_while_records_are_made() -> None:
    # Each validated document is freed once its records exist: holding them all kept
    # ~4 objects a document alive through a write, for the garbage collector to walk.
    alive: list[int] = []

    def docs() -> Iterator[LocalDocument]:
        for i in range(30):
            alive.append(sum(type(o) is LocalDocument for o in gc.get_objects()))
            yield LocalDocument(id=f"d{i}", text=f"text {i}")

    before = sum(type(o) is LocalDocument for o in gc.get_objects())
    ids, records = passage_records(docs(), chunk=False, reserved=())
    assert len(ids) == len(records) == 30
    assert max(alive) - before <= 2


def test_the_sample_documents_make_the_same_records_through_either_form() -> None:
    as_models = [LocalDocument(**d) for d in DOCS]
    assert passage_records(DOCS, chunk=True, reserved=()) == passage_records(
        as_models, chunk=True, reserved=()
    )
