"""CrossEncoderReranker on a tiny ONNX graph built here: wiring, batching, truncation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytest.importorskip("tokenizers")

from tests.rerank.tiny_cross_encoder import build
from textsearch.errors import ConfigurationError, InvalidRequestError
from textsearch.rerank import CrossEncoderReranker, Reranker, from_spec, rerank

TEXTS = [
    "filler filler",
    "relevant",
    "partly filler relevant relevant",
    "partly",
    "filler words partly partly",
]
EXPECTED = [0.0, 1.0, 2.5, 0.5, 1.0]


def test_scores_follow_the_graph_in_input_order(tmp_path: Path) -> None:
    reranker = CrossEncoderReranker(build(tmp_path / "tiny"))
    assert isinstance(reranker, Reranker)
    assert reranker.model == "tiny" and reranker.max_length == 64
    assert reranker.rerank_sync("query words", TEXTS) == pytest.approx(EXPECTED)
    assert asyncio.run(rerank(reranker, "query words", TEXTS)) == pytest.approx(EXPECTED)


def test_batches_and_padding_do_not_change_scores(tmp_path: Path) -> None:
    folder = build(tmp_path / "tiny")
    texts = [("relevant " * (i % 7)) + "filler " * (i % 5) + "partly" for i in range(23)]
    one_batch = CrossEncoderReranker(folder, batch_size=64)
    small = CrossEncoderReranker(folder, batch_size=4)
    assert one_batch.rerank_sync("query", texts) == pytest.approx(small.rerank_sync("query", texts))
    assert one_batch.calls == 1 and small.calls == 6  # ceil(23 / 4)
    # each text alone: no padding at all
    alone = [one_batch.rerank_sync("query", [t])[0] for t in texts]
    assert alone == pytest.approx(small.rerank_sync("query", texts))


def test_pairs_are_truncated_to_the_model_length(tmp_path: Path) -> None:
    # [CLS] query words [SEP] text... [SEP] within 8 tokens: 3 text tokens survive
    reranker = CrossEncoderReranker(build(tmp_path / "tiny"), max_length=8)
    long_text = "relevant relevant relevant relevant relevant relevant relevant relevant"
    assert reranker.rerank_sync("query words", [long_text]) == pytest.approx([3.0])
    # the length comes from tokenizer.json's truncation when not given
    default = CrossEncoderReranker(build(tmp_path / "t2", max_length=10))
    assert default.max_length == 10
    assert default.rerank_sync("query", [long_text]) == pytest.approx([6.0])


def test_max_length_from_the_folder_config(tmp_path: Path) -> None:
    folder = build(tmp_path / "cfg", max_length=None)
    (folder / "config.json").write_text(json.dumps({"max_position_embeddings": 6}))
    reranker = CrossEncoderReranker(folder)
    assert reranker.max_length == 6
    assert reranker.rerank_sync("query", ["relevant " * 10]) == pytest.approx([2.0])


def test_two_logit_output_uses_the_relevant_class(tmp_path: Path) -> None:
    reranker = CrossEncoderReranker(build(tmp_path / "two", two_logits=True))
    assert reranker.rerank_sync("query", TEXTS) == pytest.approx(EXPECTED)


def test_onnx_subfolder_layout_and_spec(tmp_path: Path) -> None:
    root = tmp_path / "my-reranker"
    build(root / "onnx")
    reranker = from_spec(f"cross-encoder:{root / 'onnx'}")
    assert isinstance(reranker, CrossEncoderReranker) and reranker.model == "my-reranker"
    assert reranker.rerank_sync("q", ["relevant"]) == pytest.approx([1.0])


def test_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no such"):
        CrossEncoderReranker(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigurationError, match="model.onnx"):
        CrossEncoderReranker(tmp_path / "empty")
    folder = build(tmp_path / "tiny")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ConfigurationError, match="tokenizer"):
        CrossEncoderReranker(folder)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not a model")
    (broken / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigurationError, match="cannot load"):
        CrossEncoderReranker(broken)
    with pytest.raises(ConfigurationError):
        CrossEncoderReranker(build(tmp_path / "t3"), batch_size=0)


def test_bad_input(tmp_path: Path) -> None:
    reranker = CrossEncoderReranker(build(tmp_path / "tiny"))
    with pytest.raises(InvalidRequestError):
        reranker.rerank_sync("", ["relevant"])
    assert reranker.rerank_sync("q", []) == [] and reranker.calls == 0
