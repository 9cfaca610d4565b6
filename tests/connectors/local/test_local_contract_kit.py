"""LocalTextSearch keeps the connector contract (``textsearch.testing``), on both engines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401
from textsearch import LocalTextSearch
from textsearch.testing import ConnectorContract


class TestLocalTextSearch(ConnectorContract):
    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path

    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        search = LocalTextSearch(self.folder / "index.db")
        search.add_documents(documents)
        return search

    def make_failing_connector(self) -> Any:
        # used after close: every method fails with a documented error (ConfigurationError)
        search = LocalTextSearch(self.folder / "closed.db")
        search.add_documents([{"id": "x", "text": "contract"}])
        search.close()
        return search
