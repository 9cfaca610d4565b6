"""What a folder or an index file can do to the local index: never a crash, a hang, a raw
sqlite error, or a file from outside the indexed folder in the index (issue #24)."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from textsearch import ConfigurationError, LocalTextSearch, TextSearchError


def _folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    (kb / "sub").mkdir(parents=True)
    (kb / "ok.md").write_text("# Ok\n\nA harmless note about walruses.\n", encoding="utf-8")
    return kb


def test_links_loops_and_files_outside_the_root(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kb = _folder(tmp_path)
    secret = tmp_path / "id_rsa.md"
    secret.write_text("# Key\n\nBEGIN PRIVATE KEY walrus\n", encoding="utf-8")
    (kb / "sub" / "key.md").symlink_to(secret)  # a link out of the folder
    (kb / "sub" / "loop").symlink_to(kb)  # a folder loop
    (kb / "sub" / "again.md").symlink_to(kb / "ok.md")  # a link inside the folder
    (kb / "sub" / "dangling.md").symlink_to(tmp_path / "missing.md")
    search = LocalTextSearch()
    with caplog.at_level(logging.WARNING, "textsearch.local"):
        report = search.index_path(kb)
    assert "links to a file outside" in caplog.text
    ids = {d.id for d in search.get_search_results_sync("walrus", top=50)}
    assert ids == {str(kb / "ok.md"), str(kb / "sub" / "again.md")}
    assert report.added == 2
    assert not any("PRIVATE" in (d.text or "") for d in search.get_search_results_sync("key"))


def test_a_file_rewritten_while_it_is_indexed(tmp_path: Path) -> None:
    kb = _folder(tmp_path)
    busy = kb / "busy.md"
    versions = [f"# Version {i}\n\n" + f"walrus {i} " * (50 + 40 * (i % 5)) for i in range(20)]
    busy.write_text(versions[0], encoding="utf-8")
    stop = threading.Event()

    def rewrite() -> None:
        i = 0
        while not stop.is_set():
            i = (i + 1) % len(versions)
            busy.write_text(versions[i], encoding="utf-8")

    writer = threading.Thread(target=rewrite, daemon=True)
    writer.start()
    search = LocalTextSearch(tmp_path / "kb.sqlite3")
    try:
        for _ in range(10):
            search.index_path(kb)  # never raises, whatever the file holds at the time
    finally:
        stop.set()
        writer.join()
    busy.write_text(versions[7] + "\nfinal words\n", encoding="utf-8")
    os.utime(busy, ns=(busy.stat().st_mtime_ns + 10**9,) * 2)
    search.index_path(kb)
    document = search.get_document(str(busy))
    assert document is not None and document.text.rstrip().endswith("final words")
    search.close()


def _index_file(tmp_path: Path) -> Path:
    db = tmp_path / "kb.sqlite3"
    with LocalTextSearch(db, engine="sqlite") as search:
        search.add_documents([{"id": str(i), "text": f"walrus note {i} " * 40} for i in range(300)])
    return db


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zeroed-pages", "empty"])
def test_a_damaged_index_file_is_a_clear_error(tmp_path: Path, damage: str) -> None:
    db = _index_file(tmp_path)
    data = bytearray(db.read_bytes())
    if damage == "garbage":
        data = bytearray(b"not an index " * 400)
    elif damage == "truncated":
        data = data[: len(data) // 3]
    elif damage == "zeroed-pages":
        data[8192 : len(data) - 4096] = bytes(len(data) - 4096 - 8192)
    else:
        data = bytearray()
    db.write_bytes(bytes(data))
    try:
        search = LocalTextSearch(db, engine="sqlite")
        search.search_sync("walrus", top=5)
        search.add_documents([{"id": "new", "text": "walrus again"}])
    except TextSearchError as exc:
        assert damage != "empty", f"an empty file should open as a new index: {exc!r}"
        assert isinstance(exc, ConfigurationError), repr(exc)
        assert str(db) in str(exc)  # it names the file
        assert not isinstance(exc.__cause__, sqlite3.Error)
        return
    except sqlite3.Error as exc:  # pragma: no cover - the failure this test exists for
        pytest.fail(f"a raw sqlite error escaped: {exc!r}")
    # An empty file is a new, empty index; nothing else may open silently.
    assert damage == "empty"
