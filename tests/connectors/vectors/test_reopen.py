"""Issue #33 item 19: a store written by one process is searchable by the next.

Each step runs in a fresh interpreter: write and exit, then reopen and search, then
reopen, replace and delete, then search again. Milvus Lite once answered the second
process with "collection ... is in state 'released'; call load() before search".
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.plugins._support import REPO_ROOT

_STEP = textwrap.dedent(
    """
    import json, sys
    from tests.connectors.vectors._support import DOCS, CountingEmbedder
    from textsearch.connectors import vectors

    store, where, step = sys.argv[1:4]
    kind = {"chroma": vectors.ChromaTextSearch, "qdrant": vectors.QdrantTextSearch,
            "milvus": vectors.MilvusTextSearch}[store]
    search = kind(where, "docs", embedder=CountingEmbedder())
    if step == "write":
        out = search.add_documents_sync(DOCS)
    elif step == "change":
        search.add_documents_sync([{**DOCS[1], "text": "Cache answers for an hour."}])
        search.delete_documents_sync(["pasta"])
        out = None
    else:
        out = [r.id for r in search.get_search_results_sync(step, top=3)]
    search.close()
    print(json.dumps(out))
    """
)


def _step(store: str, where: str, step: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", _STEP, store, where, step],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("store", ["chroma", "qdrant", "milvus"])
def test_write_exit_reopen_search(store: str, tmp_path: Path) -> None:
    pytest.importorskip(
        {"chroma": "chromadb", "qdrant": "qdrant_client", "milvus": "pymilvus"}[store]
    )
    where = str(tmp_path / ("store.db" if store == "milvus" else "store"))
    assert _step(store, where, "write") == 3
    found = _step(store, where, "exponential backoff retry")
    assert isinstance(found, list) and found[0] == "retry"
    assert _step(store, where, "change") is None
    after = _step(store, where, "cache answers hour pasta water")
    assert isinstance(after, list) and after[0] == "cache" and "pasta" not in after
