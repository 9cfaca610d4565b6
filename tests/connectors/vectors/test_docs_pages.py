"""The Python blocks of docs/connectors/{chroma,qdrant,milvus}.md run, offline, in order.

``embedder`` is the one name the pages take as given (a reader makes a real one; the page
shows how in a block marked not run).
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from tests.connectors.vectors._support import CountingEmbedder
from tests.test_docs_snippets import DOCS, _blocks

PAGES = [p for p in ("chroma.md", "qdrant.md", "milvus.md") if (DOCS / "connectors" / p).exists()]


@pytest.mark.parametrize("name", PAGES)
def test_page_examples_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = DOCS / "connectors" / name
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__", "embedder": CountingEmbedder()}
    ran = 0
    loop = asyncio.new_event_loop()
    try:
        for line, code, reason in _blocks(page):
            if reason is not None:
                assert reason, f"{name}:{line}: say why the block is not run"
                continue
            compiled = compile(code, f"{name}:{line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            try:
                outcome = eval(compiled, namespace)  # our own documentation, on purpose
                if asyncio.iscoroutine(outcome):
                    loop.run_until_complete(outcome)
            except Exception as exc:
                raise AssertionError(f"{name}:{line}: {type(exc).__name__}: {exc}") from exc
            ran += 1
    finally:
        for value in namespace.values():
            close = getattr(value, "close", None)
            if type(value).__name__.endswith("TextSearch") and callable(close):
                close()
        loop.close()
    assert ran >= 3
