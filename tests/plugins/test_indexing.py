"""The background index behind ``textsearch mcp --path``: waits, progress, failure."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from textsearch import LocalTextSearch, ServiceUnavailableError
from textsearch.plugins import create_search_function
from textsearch.plugins._indexing import IndexingInProgressError, IndexingTextSearch


def _folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "retry.md").write_text("# Retry\n\nRetry with backoff.\n", encoding="utf-8")
    (kb / "cache.md").write_text("# Cache\n\nCache five minutes.\n", encoding="utf-8")
    return kb


def test_searches_wait_for_the_index_and_progress_is_written(tmp_path: Path) -> None:
    stream = io.StringIO()
    index = IndexingTextSearch(LocalTextSearch(), _folder(tmp_path), wait=30, stream=stream)
    function = create_search_function(index.start(), kind="text_search_results")
    text = function.invoke_sync({"query": "backoff"})
    assert '"name":"Retry"' in text
    assert index.ready and index.progress == (2, 2)
    link = str((tmp_path / "kb" / "retry.md").resolve())
    document = index.get_document(link)
    assert document is not None and "Retry with backoff." in document.text
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("textsearch: indexing ") and "in the background" in lines[0]
    assert any(line.endswith(": 2/2 files") for line in lines)
    assert lines[-1].startswith("textsearch: indexed 2 file(s)")
    index.close()


def test_a_search_during_indexing_says_how_far_it_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textsearch.connectors.local import _writing

    kb = _folder(tmp_path)
    slow = kb / "z-slow.md"
    slow.write_text("# Slow\n\nzebra\n", encoding="utf-8")
    gate = threading.Event()  # indexing waits at this file until the test opens the gate
    real = _writing.read_file

    def read_file(file: Path, *args: object, **kwargs: object) -> object:
        if file.name == "z-slow.md":
            gate.wait(60)
        return real(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_writing, "read_file", read_file)
    index = IndexingTextSearch(LocalTextSearch(), kb, wait=0.2, stream=io.StringIO()).start()
    function = create_search_function(index, kind="text_search_results")
    try:
        busy = function.invoke_sync({"query": "backoff"})
        assert busy == (
            "The local index is still being built (2 of 3 files indexed so far); "
            "retry this search in a few seconds."
        )
        with pytest.raises(IndexingInProgressError) as caught:
            index.get_text_search_results_sync("backoff")
        assert (caught.value.done, caught.value.total) == (2, 3)
        assert isinstance(caught.value, ServiceUnavailableError)
    finally:
        gate.set()
    index.wait = 30
    assert '"name":"Slow"' in function.invoke_sync({"query": "zebra"})
    index.close()


def test_a_failed_indexing_is_reported_to_searches(tmp_path: Path) -> None:
    stream = io.StringIO()
    index = IndexingTextSearch(LocalTextSearch(), tmp_path / "missing", wait=30, stream=stream)
    index.start()
    with pytest.raises(ServiceUnavailableError, match="indexing the folder failed"):
        index.search_sync("x")
    assert "failed: ConfigurationError" in stream.getvalue()
    index.close()
