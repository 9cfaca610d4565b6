"""``textsearch eval``, and ``--mode`` / ``--rerank`` on search, index and mcp."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from textsearch.cli import main


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "retry.md").write_text(
        "# Retry\n\nRetry failed calls with backoff.\n\n## Budget\n\nA retry budget caps retries.\n"
    )
    (folder / "cache.md").write_text("# Cache\n\nCache answers for five minutes.\n")
    (folder / "relevant.md").write_text("# Notes\n\nrelevant relevant relevant cache notes\n")
    return folder


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    path = tmp_path / "golden.jsonl"
    rows = [
        {"query": "retry budget", "relevant": ["retry.md#budget"]},
        {"query": "cache answers", "relevant": ["cache.md"]},
        {"query": "zzz nothing matches", "relevant": ["cache.md"]},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    corpus = [{"_id": f"d{i}", "title": f"Title {i}", "text": f"about topic{i} and more"}
              for i in range(6)]  # fmt: skip
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in corpus))
    queries = [{"_id": f"q{i}", "text": f"topic{i}"} for i in range(6)]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    rows = ["query-id\tcorpus-id\tscore"] + [f"q{i}\td{i}\t1" for i in range(6)]
    (root / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")
    return root


def test_golden_file_on_a_folder_and_the_gate(docs: Path, golden: Path) -> None:
    code, text = run("eval", str(golden), "--path", str(docs))
    assert code == 0
    assert "nDCG@10" in text and "zzz nothing matches" in text
    code, text = run("eval", str(golden), "--path", str(docs), "--json", "--min-ndcg", "0.9")
    assert code == 1  # one question of three finds nothing: the gate is not met
    data = json.loads(text)
    assert data["means"]["Hit@10"] == pytest.approx(2 / 3)
    code, _ = run("eval", str(golden), "--path", str(docs), "--min-ndcg", "0.5")
    assert code == 0


def test_beir_folder_is_indexed_in_memory(beir: Path) -> None:
    code, text = run("eval", str(beir), "--json", "--min-ndcg", "0.99")
    assert code == 0
    assert json.loads(text)["means"]["nDCG@10"] == pytest.approx(1.0)


def test_rerank_is_compared_with_the_first_stage(docs: Path, golden: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from tests.rerank.tiny_cross_encoder import build

    model = build(tmp_path / "tiny")
    code, text = run(
        "eval", str(golden), "--path", str(docs), "--mode", "keyword",
        "--rerank", f"cross-encoder:{model}", "--json",
    )  # fmt: skip
    assert code == 0, text
    data = json.loads(text)
    names = [s["name"] for s in data["searches"]]
    assert names == ["keyword", "keyword+rerank"]
    assert "nDCG@10" in data["searches"][1]["p_values"]


def test_search_with_rerank_and_mode(docs: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from tests.rerank.tiny_cross_encoder import build

    model = build(tmp_path / "tiny")
    code, text = run("search", "cache", "--path", str(docs), "--json", "--mode", "keyword")
    assert code == 0
    plain = [r["name"] for r in json.loads(text)["results"]]
    code, text = run(
        "search", "cache", "--path", str(docs), "--json", "--rerank", f"cross-encoder:{model}"
    )
    assert code == 0
    reranked = [r["name"] for r in json.loads(text)["results"]]
    assert reranked[0] == "Notes" and sorted(reranked) == sorted(plain)  # same set, new order
    code, _ = run("search", "cache", "--path", str(docs), "--mode", "semantic")
    assert code == 2  # no embedder: a configuration error, one line
    code, _ = run("search", "cache", "--path", str(docs), "--rerank", "nonsense:x")
    assert code == 2
    code, _ = run("search", "cache", "--path", str(docs), "--mode", "fuzzy")
    assert code == 2


def test_index_checks_mode_and_rerank(docs: Path, tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    code, _ = run("index", str(docs), "--db", str(db), "--mode", "keyword", "--embedder", "minilm")
    assert code == 2
    code, _ = run("index", str(docs), "--db", str(db), "--rerank", "cross-encoder:/nowhere")
    assert code == 2 and not db.exists()  # refused before indexing
    code, text = run("index", str(docs), "--db", str(db), "--mode", "keyword")
    assert code == 0 and "indexed 3 file(s)" in text


def test_mcp_serves_a_reranked_search(docs: Path, tmp_path: Path, monkeypatch: Any) -> None:
    pytest.importorskip("onnx")
    pytest.importorskip("mcp")
    from tests.rerank.tiny_cross_encoder import build
    from textsearch import RerankedTextSearch
    from textsearch.cli import mcp as mcp_command

    served: list[Any] = []

    def fake_build(search: Any, name: str = "search", **settings: Any) -> Any:
        served.append(search)
        raise KeyboardInterrupt  # stop before serving on stdio

    monkeypatch.setattr(mcp_command, "build_plugin", fake_build)
    model = build(tmp_path / "tiny")
    code, _ = run("mcp", "--path", str(docs), "--rerank", f"cross-encoder:{model}",
                  "--mode", "keyword")  # fmt: skip
    assert code == 130
    (search,) = served
    assert isinstance(search, RerankedTextSearch) and search.depth == 30
