"""``--embedder SPEC`` on the command line: index once with it, and later searches of that
index (CLI, MCP) use the same embedder without being told (DESIGN §11, issue #20 §2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import run

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

DOCS = {
    "tasks.md": "# Cancelling tasks\n\nCall cancel() on the handle; the worker halts at its "
    "next checkpoint and releases its lease.\n",
    "retry.md": "# Retry guide\n\nUse exponential backoff with jitter between attempts.\n",
    "colors.md": "# Colour themes\n\nPick a palette for the dashboard's charts.\n",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_index_with_an_embedder_and_search_by_meaning_later(folder: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    built = run("index", str(folder), "--db", str(db), "--embedder", "minilm")
    assert built.returncode == 0, built.stderr
    # no word of this query is in the right section: only meaning finds it
    query = "how do I stop a runaway job"
    found = run("search", query, "--db", str(db), "--json", "--top", "1")
    assert found.returncode == 0, found.stderr
    (hit,) = json.loads(found.stdout)["results"]
    assert hit["name"].startswith("Cancelling tasks")
    # the same index searched with words only would find nothing for it
    from textsearch import LocalTextSearch

    with LocalTextSearch(db) as plain:
        assert plain.embedding_spec == "minilm"
        assert len(plain.search_sync(query)) == 0


def test_a_bad_embedder_spec_is_a_usage_error(folder: Path, tmp_path: Path) -> None:
    result = run("index", str(folder), "--db", str(tmp_path / "x.sqlite3"), "--embedder", "nope:x")
    assert result.returncode == 2
    assert "unknown embedder" in result.stderr and "Traceback" not in result.stderr
    postgres = run("index", str(folder), "--provider", "postgres", "--embedder", "minilm")
    assert postgres.returncode == 2 and "--embedder applies to --provider local" in postgres.stderr
