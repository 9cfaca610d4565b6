"""Adding an embedder to an existing keyword index embeds what is missing (issue #33, 15), and
``textsearch index`` reports progress when stderr is not a terminal (issue #36, 4)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.test_cli import _script
from textsearch import LocalTextSearch
from textsearch.embeddings import FunctionEmbedder

DOCS = {
    "tasks.md": "# Cancelling tasks\n\nCall cancel() on the handle; the worker halts at its "
    "next checkpoint and releases its lease.\n",
    "retry.md": "# Retry guide\n\nUse exponential backoff with jitter between attempts.\n",
    "colors.md": "# Colour themes\n\nPick a palette for the dashboard's charts.\n",
}


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [*_script(), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**environ, **env},
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _vectors(db: Path) -> int:
    with LocalTextSearch(db) as plain:
        return int(plain._db.execute("SELECT count(*) FROM passage_vectors").fetchone()[0])


def test_index_with_an_embedder_on_a_keyword_index_embeds_the_unchanged_files(
    folder: Path, tmp_path: Path
) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    db = tmp_path / "kb.sqlite3"
    keyword = run("index", str(folder), "--db", str(db))
    assert keyword.returncode == 0, keyword.stderr
    with LocalTextSearch(db) as plain:
        passages = plain._db.execute("SELECT count(*) FROM passages").fetchone()[0]
        assert passages >= 3 and plain.embedding_spec is None
    # Same files, now with an embedder: nothing changed on disk, yet every passage is embedded.
    added = run("index", str(folder), "--db", str(db), "--embedder", "minilm")
    assert added.returncode == 0, added.stderr
    assert "unchanged 3" in added.stdout
    assert f"embedded {passages} passage(s) that had no vector" in added.stdout
    assert _vectors(db) == passages
    # so search by meaning finds what no word of the query names
    found = run("search", "how do I stop a runaway job", "--db", str(db), "--json", "--top", "1")
    assert found.returncode == 0, found.stderr
    (hit,) = json.loads(found.stdout)["results"]
    assert hit["name"].startswith("Cancelling tasks")
    # and a second run has nothing left to embed
    again = run("index", str(folder), "--db", str(db))
    assert again.returncode == 0 and "embedded" not in again.stdout


def test_embed_missing_and_add_documents_report_progress(tmp_path: Path) -> None:
    def fn(texts: list[str]) -> list[list[float]]:
        return [[float(len(t)), 1.0, 0.5] for t in texts]

    docs = [{"id": f"d{i}", "text": f"passage number {i}"} for i in range(600)]
    with LocalTextSearch(tmp_path / "kb.sqlite3") as plain:
        plain.add_documents(docs)
    seen: list[tuple[int, int]] = []
    emb = FunctionEmbedder(fn, model="len", dimensions=3)
    with LocalTextSearch(tmp_path / "kb.sqlite3", embedder=emb) as s:
        assert s.embed_missing_sync(progress=lambda done, total: seen.append((done, total))) == 600
        assert seen[-1] == (600, 600) and len(seen) == 3  # batches of 256
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)
        added: list[tuple[int, int]] = []
        s.add_documents(
            [{"id": f"n{i}", "text": f"new passage {i}"} for i in range(300)],
            progress=lambda done, total: added.append((done, total)),
        )
        assert added == [(256, 300), (300, 300)]

        def stop(done: int, total: int) -> None:
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            s.add_documents([{"id": "x", "text": "never written"}], progress=stop)
        assert s.get_document("x") is None


def test_index_progress_lines_when_stderr_is_not_a_terminal(folder: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    done = run("index", str(folder), "--db", str(db), TEXTSEARCH_PROGRESS_SECONDS="0")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if " files (" in line]
    assert [line.split()[0] for line in lines] == ["1/3", "2/3", "3/3"]
    # with the default period, a short run prints only its last line
    quiet = run("index", str(folder), "--db", str(tmp_path / "b.sqlite3"))
    assert [line.split()[0] for line in quiet.stderr.splitlines() if " files (" in line] == ["3/3"]
