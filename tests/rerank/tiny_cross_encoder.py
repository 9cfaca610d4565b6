"""A tiny ONNX cross-encoder built at test time: a real graph and a real tokenizer.json.

The tokenizer is a word-level one with BERT's pair template (``[CLS] query [SEP] text
[SEP]``, token type 1 for the text). The graph scores a pair as the sum, over the text's
tokens (token type 1, attention mask 1), of a per-token weight: the word ``relevant`` is
worth 1, ``partly`` 0.5, every other word 0. So a text's score counts its weighted words
that survive truncation, and padding (mask 0) adds nothing.
"""

from __future__ import annotations

from pathlib import Path

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "relevant", "partly", "filler", "query", "words"]
WEIGHTS = {"relevant": 1.0, "partly": 0.5}


def build(folder: Path, *, two_logits: bool = False, max_length: int | None = 64) -> Path:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {word: i for i, word in enumerate(VOCAB)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    if max_length is not None:
        tokenizer.enable_truncation(max_length=max_length)
    tokenizer.save(str(folder / "tokenizer.json"))

    weights = np.zeros((len(VOCAB),), dtype=np.float32)
    for word, weight in WEIGHTS.items():
        weights[vocab[word]] = weight
    nodes = [
        helper.make_node("Gather", ["weights", "input_ids"], ["per_token"], axis=0),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["type_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "mask_f"], ["masked"]),
        helper.make_node("Mul", ["masked", "type_f"], ["text_only"]),
        helper.make_node("ReduceSum", ["text_only", "axes"], ["score"], keepdims=1),
    ]
    initializers = [
        numpy_helper.from_array(weights, "weights"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"),
    ]
    output = "score"
    width = 1
    if two_logits:  # [irrelevant, relevant] = [-score, score]
        nodes += [
            helper.make_node("Neg", ["score"], ["negative"]),
            helper.make_node("Concat", ["negative", "score"], ["logits"], axis=1),
        ]
        output, width = "logits", 2
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        inputs,
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", width])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    return folder
