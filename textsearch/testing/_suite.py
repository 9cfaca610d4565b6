"""`ConnectorContract`: the contract checks as test methods a connector's test class inherits.

Plain methods with plain ``assert``: pytest (or unittest's runner via pytest) collects them
from a subclass named ``Test...``; nothing here imports a test framework.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from textsearch.base import TextSearch
from textsearch.testing._contract import check_connector
from textsearch.testing._corpus import CONTRACT_DOCUMENTS, CONTRACT_QUERY

__all__ = ["ConnectorContract"]


class ConnectorContract:
    """The connector contract as tests: subclass it, say how to make your connector.

    A subclass named ``Test...`` gets one test per group of checks (see `check_connector`).
    It supplies `make_connector` (and, optionally, `make_failing_connector` and
    `backend_calls`); pytest fixtures reach it through an ``autouse`` fixture of the
    subclass that keeps what it needs on ``self``::

        class TestMyConnector(ConnectorContract):
            @pytest.fixture(autouse=True)
            def _folder(self, tmp_path):
                self.folder = tmp_path

            def make_connector(self, documents):
                search = MyConnector(self.folder / "index")
                search.add_documents_sync(documents)
                return search

    Attributes:
        documents: The corpus each connector is loaded with (`CONTRACT_DOCUMENTS`).
        query: A query every document answers.
        corpus_results: ``False`` for a stand-in backend whose answers are canned.
        stable_paging: ``False`` when the backend's order may change between calls.
    """

    documents: ClassVar[Sequence[Mapping[str, Any]]] = CONTRACT_DOCUMENTS
    query: ClassVar[str] = CONTRACT_QUERY
    corpus_results: ClassVar[bool] = True
    stable_paging: ClassVar[bool] = True

    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> TextSearch:
        """The connector under test, loaded with ``documents`` (each call: a new one)."""
        raise NotImplementedError(f"{type(self).__name__} must define make_connector")

    def make_failing_connector(self) -> TextSearch | None:
        """A connector whose backend fails (``None``, the default: not checked)."""
        return None

    def backend_calls(self) -> int | None:
        """How many calls reached the backend so far (``None``, the default: not counted)."""
        return None

    def _assert_keeps(self, group: str) -> None:
        counter = self.backend_calls
        counted = counter() is not None
        failing = self.make_failing_connector if group == "errors" else None
        findings = check_connector(
            self.make_connector,
            checks=(group,),
            documents=self.documents,
            query=self.query,
            corpus_results=self.corpus_results,
            stable_paging=self.stable_paging,
            backend_calls=(lambda: counter() or 0) if counted else None,
            failing=_only_if_made(failing),
        )
        assert not findings, f"{type(self).__name__} breaks the {group} contract:\n" + "\n".join(
            f"  - {finding}" for finding in findings
        )

    def test_contract_protocol(self) -> None:
        """The six methods exist; each async method answers as its `_sync` twin."""
        self._assert_keeps("protocol")

    def test_contract_results(self) -> None:
        """Results are strings / `TextSearchResult`s of clean strings; each document found."""
        self._assert_keeps("results")

    def test_contract_options(self) -> None:
        """``top``, ``skip``, totals; bad values refused before any call."""
        self._assert_keeps("options")

    def test_contract_filters(self) -> None:
        """Each probe filter refused with a documented error or applied, never dropped."""
        self._assert_keeps("filters")

    def test_contract_errors(self) -> None:
        """Only `textsearch.errors` escape, from bad requests and from a failing backend."""
        self._assert_keeps("errors")


def _only_if_made(make: Any) -> Any:
    """``make`` when it makes a connector, else ``None`` (no failing backend to check)."""
    if make is None:
        return None
    made = make()
    return None if made is None else (lambda: made)
