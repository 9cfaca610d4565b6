"""Issue #33 item 13: an index file does not decide what the CLI builds.

A file from someone else may name any embedder spec (a path to load, a model to fetch);
only the bundled offline models are built without the user naming them.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest

from tests.test_cli import run


@pytest.fixture
def index(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "retry.md").write_text("# Retry\n\nUse exponential backoff.\n", encoding="utf-8")
    db = tmp_path / "kb.sqlite3"
    built = run("index", str(folder), "--db", str(db))
    assert built.returncode == 0, built.stderr
    return db


def _name_embedder(db: Path, spec: str) -> None:
    """What a foreign file holds: its own choice of embedder, written into the index."""
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT OR REPLACE INTO textsearch_meta (key, value) VALUES ('embedding_spec', ?)",
            (spec,),
        )


@pytest.mark.parametrize(
    "named", ["onnx:{trap}", "sentence-transformers:someone/model", "fastembed:someone/model"]
)
def test_a_spec_named_by_the_file_is_not_built(index: Path, named: str) -> None:
    # A short folder of its own: the message shows a spec of up to 80 characters whole, and
    # pytest's tmp_path is deeper under a test worker (popen-gw1/...) than in one process.
    with tempfile.TemporaryDirectory(prefix="ts-trap-") as trap:
        spec = named.format(trap=trap)
        assert len(spec) <= 80
        _name_embedder(index, spec)
        refused = run("search", "retry", "--db", str(index))
    assert refused.returncode != 0
    assert "built only when you name it" in refused.stderr
    assert f"--embedder '{spec}'" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_without_a_remembered_spec_the_index_is_searched(index: Path) -> None:
    found = run("search", "exponential backoff", "--db", str(index))
    assert found.returncode == 0, found.stderr
    assert "Retry" in found.stdout
