"""``--provider chroma|qdrant|milvus`` on the command line (issue #21): the registry builds
the store from the environment, ``--embedder`` names the embedder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.test_cli import _script

pytest.importorskip("onnxruntime")

DOCS = [
    {
        "id": "tasks",
        "title": "Cancelling tasks",
        "text": "Call cancel() on the handle; the worker halts at its next checkpoint.",
        "link": "https://kb.example/tasks",
    },
    {
        "id": "colors",
        "title": "Colour themes",
        "text": "Pick a palette for the charts.",
        "link": "https://kb.example/colors",
    },
]


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    full.update(env)
    return subprocess.run(
        [*_script(), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=full,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("store", ["chroma", "qdrant"])
def test_search_a_vector_store_from_the_command_line(store: str, tmp_path: Path) -> None:
    pytest.importorskip("chromadb" if store == "chroma" else "qdrant_client")
    from textsearch.embeddings import from_spec

    folder = tmp_path / store
    if store == "chroma":
        from textsearch import ChromaTextSearch as Store
    else:
        from textsearch import QdrantTextSearch as Store  # type: ignore[assignment]
    with Store(str(folder), "kb-docs", embedder=from_spec("minilm")) as managed:
        managed.add_documents_sync(DOCS)
    env = {f"TEXTSEARCH_{store.upper()}": str(folder), "TEXTSEARCH_COLLECTION": "kb-docs"}
    found = _run(
        "search",
        "stopping runaway jobs",
        "--provider",
        store,
        "--embedder",
        "minilm",
        "--json",
        "--top",
        "1",
        env=env,
    )
    assert found.returncode == 0, found.stderr
    (hit,) = json.loads(found.stdout)["results"]
    assert hit["link"] == "https://kb.example/tasks"
    missing = _run("search", "x", "--provider", store, env={})
    assert missing.returncode == 2 and f"TEXTSEARCH_{store.upper()}" in missing.stderr


def test_milvus_is_wired_and_a_missing_collection_is_reported(tmp_path: Path) -> None:
    pytest.importorskip("pymilvus")
    env = {"TEXTSEARCH_MILVUS": str(tmp_path / "kb.db"), "TEXTSEARCH_COLLECTION": "nothing_here"}
    result = _run("search", "walrus", "--provider", "milvus", "--embedder", "minilm", env=env)
    assert result.returncode != 0
    assert "nothing_here" in result.stderr and "Traceback" not in result.stderr
    listed = _run("search", "--help", env={})
    assert "milvus" in listed.stdout and "qdrant" in listed.stdout and "chroma" in listed.stdout
