"""How a file is opened for reading (issue #33 items 5 and 6): regular files only (a FIFO named
``trap.md`` never blocks ``index_path``), and never through a link swapped in after the
folder was listed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch.documents import _files, read_path
from textsearch.documents._files import IndexReport, read_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and links")

ROOT = Path(__file__).resolve().parents[2]


def test_a_fifo_in_the_folder_is_reported_and_never_opened(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "ok.md").write_text("# Ok\n\nA note about walruses.\n", encoding="utf-8")
    os.mkfifo(kb / "trap.md")
    script = textwrap.dedent(
        f"""
        from textsearch import LocalTextSearch
        search = LocalTextSearch(engine="sqlite")
        report = search.index_path({str(kb)!r})
        print(report.added, [(p.rsplit("/", 1)[-1], r) for p, r in report.failed])
        print(len(search.get_search_results_sync("walruses", top=5).results))
        """
    )
    # Opening a FIFO for reading waits for a writer: the old code never came back. The
    # quiet figure is well under a second; the wait is a hundred times that.
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().split("\n")
    assert first.startswith("1 [('trap.md', 'not a regular file")
    assert second == "1"


def test_read_file_refuses_a_fifo_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "trap.md"
    os.mkfifo(fifo)
    report = IndexReport()
    # In this process: had it been opened for reading, the call would never return.
    assert read_file(fifo, None, report, root=tmp_path) is None
    assert report.failed == [(str(fifo), "not a regular file (a FIFO, socket or device)")]


def test_a_device_is_not_read(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    report = IndexReport()
    assert read_file(tmp_path / "zero.md", None, report, root=Path("/dev")) is None
    assert "not a regular file" in report.failed[0][1]


def _swapping_walk(secret: Path) -> object:
    original = _files.walk

    def walk(root: Path, wanted: tuple[str, ...]) -> Iterator[Path]:
        files = list(original(root, wanted))  # listed while every file is a plain file ...
        for file in files:
            if file.name == "note.md":  # ... then swapped for a link before it is read
                file.unlink()
                file.symlink_to(secret)
        return iter(files)

    return walk


def test_a_file_swapped_for_a_link_after_listing_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "note.md").write_text("# Note\n\nA walrus note.\n", encoding="utf-8")
    (kb / "ok.md").write_text("# Ok\n\nAnother walrus.\n", encoding="utf-8")
    secret = tmp_path / "id_rsa.md"
    secret.write_text("# Key\n\nBEGIN PRIVATE KEY walrus\n", encoding="utf-8")
    # index_path lists files through documents._files.files_to_index, which calls walk
    monkeypatch.setattr(_files, "walk", _swapping_walk(secret))
    search = LocalTextSearch(engine="sqlite")
    report = search.index_path(kb)
    texts = [r.text for r in search.get_search_results_sync("walrus", top=10).results]
    assert not any("PRIVATE" in text for text in texts)
    assert [Path(path).name for path, _ in report.failed] == ["note.md"]
    assert "outside" in report.failed[0][1]


def test_a_link_inside_the_folder_is_still_read_and_a_link_out_refused(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "ok.md").write_text("# Ok\n\nA walrus.\n", encoding="utf-8")
    (kb / "again.md").symlink_to(kb / "ok.md")
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nPRIVATE\n", encoding="utf-8")
    report = IndexReport()
    assert read_file(kb / "again.md", None, report, root=kb) is not None
    assert read_file(kb / "again.md", None, report) is None  # no root: no link followed
    (kb / "out.md").symlink_to(secret)
    assert read_file(kb / "out.md", None, report, root=kb) is None
    assert [Path(p).name for p, _ in report.failed] == ["again.md", "out.md"]
    docs = list(read_path(kb))
    assert {d["id"].split("#")[0] for d in docs} == {"again.md", "ok.md"}
