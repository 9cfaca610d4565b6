"""Library adapters: wiring through small stand-in modules, and model2vec for real.

sentence-transformers and fastembed are not installed here (torch alone is ~6 GB); a stand-in
module in ``sys.modules`` checks only what the adapter passes and how it reads the answer.
model2vec runs for real on a tiny model built and saved by the test (no download).
"""

from __future__ import annotations

import asyncio
import importlib.util
import math
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from textsearch.embeddings import (
    Embedder,
    FastEmbedEmbedder,
    Model2VecEmbedder,
    SentenceTransformersEmbedder,
    embed_documents,
)
from textsearch.errors import ConfigurationError, ProviderError, ResponseFormatError


def _rows(texts: list[str], dims: int = 3) -> list[list[float]]:
    return [[float(len(t)), float(t.count("a")), 1.0][:dims] for t in texts]


class _FakeST:
    calls: list[dict[str, Any]] = []

    def __init__(self, name: str, device: str | None = None, **kwargs: Any) -> None:
        if name == "missing/model":
            raise OSError("We couldn't connect to the hub to load this model")
        self.name, self.device, self.kwargs = name, device, kwargs

    def get_sentence_embedding_dimension(self) -> int:
        return 3

    def encode(self, texts: list[str], **kwargs: Any) -> list[list[float]]:
        _FakeST.calls.append({"texts": list(texts), **kwargs})
        if texts == ["explode"]:
            raise RuntimeError("CUDA out of memory")
        if texts == ["nan"]:
            return [[math.nan, 0.0, 1.0]]
        return _rows(texts)


class _FakeTextEmbedding:
    def __init__(self, model_name: str, **kwargs: Any) -> None:
        self.model_name, self.kwargs = model_name, kwargs
        self.embedding_size = 3
        self.queries: list[str] = []

    def embed(self, texts: list[str], batch_size: int = 256) -> Iterator[list[float]]:
        yield from _rows(texts)

    def query_embed(self, texts: list[str]) -> Iterator[list[float]]:
        self.queries.extend(texts)
        for row in _rows(texts):
            yield [-v for v in row]


@pytest.fixture
def fake_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = _FakeST  # type: ignore[attr-defined]
    fe = types.ModuleType("fastembed")
    fe.TextEmbedding = _FakeTextEmbedding  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)
    monkeypatch.setitem(sys.modules, "fastembed", fe)
    _FakeST.calls.clear()


def test_sentence_transformers_wiring(fake_libraries: None) -> None:
    embedder = SentenceTransformersEmbedder(
        "sentence-transformers/all-MiniLM-L6-v2",
        device="cpu",
        batch_size=8,
        query_prefix="query: ",
        trust_remote_code=False,
    )
    assert isinstance(embedder, Embedder)
    assert embedder.model == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.dimensions == 3
    assert embedder._st.device == "cpu" and embedder._st.kwargs == {"trust_remote_code": False}
    assert embedder.embed_documents_sync(["banana", "kiwi"]) == [[6.0, 3.0, 1.0], [4.0, 0.0, 1.0]]
    assert asyncio.run(embedder.embed_query("a")) == [8.0, 1.0, 1.0]  # "query: a"
    assert _FakeST.calls[0]["batch_size"] == 8
    assert _FakeST.calls[0]["normalize_embeddings"] is True
    assert _FakeST.calls[1]["texts"] == ["query: a"]


def test_library_failures_are_documented_errors(fake_libraries: None) -> None:
    embedder = SentenceTransformersEmbedder("local/model")
    with pytest.raises(ProviderError, match="CUDA out of memory") as info:
        embedder.embed_documents_sync(["explode"])
    assert isinstance(info.value.__cause__, RuntimeError)
    with pytest.raises(ResponseFormatError, match="not finite"):
        embedder.embed_query_sync("nan")
    with pytest.raises(ConfigurationError, match="cannot load 'missing/model'"):
        SentenceTransformersEmbedder("missing/model")


def test_fastembed_wiring(fake_libraries: None, tmp_path: Path) -> None:
    embedder = FastEmbedEmbedder(
        "BAAI/bge-small-en-v1.5", model_path=tmp_path, cache_dir=tmp_path / "c", threads=2
    )
    assert embedder._fe.kwargs == {
        "specific_model_path": str(tmp_path),
        "cache_dir": str(tmp_path / "c"),
        "threads": 2,
    }
    assert embedder.dimensions == 3
    assert embedder.embed_documents_sync(["aa"]) == [[2.0, 2.0, 1.0]]
    # queries go through query_embed (models that prefix queries)
    assert embedder.embed_query_sync("aa") == [-2.0, -2.0, -1.0]
    assert embedder._fe.queries == ["aa"]
    assert asyncio.run(embed_documents(embedder, ["a", "bb"])) == [[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]


@pytest.mark.parametrize(
    ("cls", "extra", "module"),
    [
        (SentenceTransformersEmbedder, "sentence-transformers", "sentence_transformers"),
        (FastEmbedEmbedder, "fastembed", "fastembed"),
        (Model2VecEmbedder, "model2vec", "model2vec"),
    ],
)
def test_missing_library_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, cls: Any, extra: str, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ConfigurationError, match=rf"textsearch-sdk\[{extra}\]"):
        cls("some-model")


@pytest.mark.parametrize("cls", [SentenceTransformersEmbedder, Model2VecEmbedder])
def test_bad_arguments(fake_libraries: None, cls: Any) -> None:
    with pytest.raises(ConfigurationError):
        cls("")
    with pytest.raises(ConfigurationError):
        cls("x", batch_size=0)


# -- model2vec, for real -----------------------------------------------------------------------

needs_model2vec = pytest.mark.skipif(
    importlib.util.find_spec("model2vec") is None, reason="needs textsearch-sdk[model2vec]"
)

WORDS = ["[PAD]", "[UNK]", "cancel", "stop", "job", "task", "banana", "yellow", "fruit"]


@pytest.fixture
def tiny_model(tmp_path: Path) -> Path:
    """A 4-d static model where 'cancel'/'stop' and 'job'/'task' point the same way."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("model2vec")
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.array(
        [
            [0, 0, 0, 0],
            [0, 0, 0, 0.1],
            [1, 0, 0, 0],
            [0.9, 0.1, 0, 0],
            [0, 1, 0, 0],
            [0.1, 0.9, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0.8, 0.2],
            [0, 0, 0.9, 0.1],
        ],
        dtype=np.float32,
    )
    folder = tmp_path / "tiny-m2v"
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(folder)
    return folder


@needs_model2vec
def test_model2vec_from_a_local_folder(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = Model2VecEmbedder(tiny_model)
    assert embedder.model == str(tiny_model) and embedder.dimensions == 4
    a, b, c = embedder.embed_documents_sync(["Cancel the job", "stop task", "yellow banana fruit"])
    q = asyncio.run(embedder.embed_query("cancel job"))

    def dot(x: list[float], y: list[float]) -> float:
        return sum(i * j for i, j in zip(x, y, strict=True))

    assert math.isclose(dot(a, a), 1.0, abs_tol=1e-5)
    assert dot(q, a) > 0.99 and dot(q, b) > 0.9 and dot(q, c) < 0.1


@needs_model2vec
def test_model2vec_missing_folder_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigurationError, match="cannot load"):
        Model2VecEmbedder(str(tmp_path / "nope"))


def test_numpy_arrays_are_checked_like_lists() -> None:
    np = pytest.importorskip("numpy")
    from textsearch.embeddings import check_vectors

    rows = check_vectors(np.ones((2, 3), dtype=np.float32), 2, None, provider="t")
    assert rows == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    assert all(type(v) is float for v in rows[0])
    with pytest.raises(ResponseFormatError, match="not finite"):
        check_vectors(np.array([[1.0, np.inf]]), 1, None, provider="t")
    with pytest.raises(ResponseFormatError, match="1 vectors for 2 texts"):
        check_vectors(np.ones((1, 3)), 2, None, provider="t")
    with pytest.raises(ResponseFormatError):
        check_vectors(np.float32(1.0), 1, None, provider="t")
