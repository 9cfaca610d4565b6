"""Run a local test module on both ranking engines: import ``local_engine`` into it.

``engine="auto"`` (what the tests construct) resolves to the parameter, so every behaviour is
proven on SQLite FTS5 and on tantivy. Subprocesses (CLI tests) are not affected: they use
``auto``, i.e. tantivy when installed.
"""

from __future__ import annotations

import pytest

from textsearch.connectors.local import _engine as _local_engine


@pytest.fixture(autouse=True, params=["sqlite", "tantivy"])
def local_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    engine: str = request.param
    if engine == "tantivy":
        pytest.importorskip("tantivy")
    real = _local_engine.choose_engine
    monkeypatch.setattr(
        _local_engine, "choose_engine", lambda e: real(engine if e == "auto" else e)
    )
    return engine
