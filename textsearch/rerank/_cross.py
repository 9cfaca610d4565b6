"""``CrossEncoderReranker``: an ONNX cross-encoder from a local folder, on onnxruntime.

A cross-encoder reads the query and a text together (``[CLS] query [SEP] text [SEP]``) and
gives one relevance logit: slower than comparing vectors, and much better at the top of a
list. The folder holds ``model.onnx`` (or ``onnx/model.onnx``) and ``tokenizer.json``, as
an ``optimum`` export of a sentence-transformers cross-encoder has them
(ms-marco-MiniLM-L-6-v2, bge-reranker-base...). Nothing is downloaded: the files must be
on disk. numpy, onnxruntime and tokenizers (extra ``onnx``) are imported when a reranker
is built, never at ``import textsearch``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from textsearch._onnx_runtime import import_runtime, open_model
from textsearch.errors import ConfigurationError
from textsearch.rerank._base import check_query_and_texts, check_scores, reranker_errors

__all__ = ["CrossEncoderReranker"]

INSTALL_HINT: Final = 'pip install "textsearch-sdk[onnx]"'
DEFAULT_BATCH_SIZE: Final = 16
#: When neither the tokenizer nor the model's config says how long an input may be.
FALLBACK_MAX_LENGTH: Final = 512


def _model_file(folder: Path) -> Path:
    if folder.is_file() and folder.suffix == ".onnx":
        return folder
    for candidate in ("model.onnx", "onnx/model.onnx"):
        if (folder / candidate).is_file():
            return folder / candidate
    raise ConfigurationError(
        f"CrossEncoderReranker: no model.onnx (or onnx/model.onnx) in {str(folder)!r}"
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _whole(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1_000_000:
        return value
    return None


def _max_length(folders: Sequence[Path], tokenizer: dict[str, Any]) -> int:
    """The model's input length: the tokenizer's truncation, else its config's limits."""
    truncation = tokenizer.get("truncation")
    if isinstance(truncation, dict) and (found := _whole(truncation.get("max_length"))):
        return found
    for folder in folders:
        config = _read_json(folder / "tokenizer_config.json")
        if found := _whole(config.get("model_max_length")):
            return found
        model = _read_json(folder / "config.json")
        if found := _whole(model.get("max_position_embeddings")):
            return found
    return FALLBACK_MAX_LENGTH


def _pad_token(tokenizer: Any, data: dict[str, Any]) -> tuple[int, str]:
    padding = data.get("padding")
    if isinstance(padding, dict) and isinstance(padding.get("pad_id"), int):
        return int(padding["pad_id"]), str(padding.get("pad_token") or "[PAD]")
    for token in ("[PAD]", "<pad>"):
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found), token
    return 0, "[PAD]"


class CrossEncoderReranker:
    """A `Reranker` running an ONNX cross-encoder locally (extra ``onnx``).

    Each (query, text) pair is tokenized together, truncated to the model's length (the
    text is cut first, then the query if it alone is too long), padded per batch, and run
    through the graph; the score is the model's relevance logit (the last column of a
    two-class output). Texts are sorted by length before batching so that a batch pads
    little; scores come back in input order. Inference runs in a worker thread on the
    async path, so it never blocks the event loop.

    Args:
        path: The folder holding ``model.onnx`` (or ``onnx/model.onnx``) and
            ``tokenizer.json``, or the ``.onnx`` file itself.
        tokenizer: The ``tokenizer.json`` (default: beside the model, or one folder up).
        model: The id named in metadata (default: the folder's name).
        max_length: Tokens per pair (default: the tokenizer's truncation length, else
            ``model_max_length`` / ``max_position_embeddings`` from the folder's configs,
            else 512).
        batch_size: Pairs per inference call.
        threads: onnxruntime's intra-op threads (default: its own choice).

    Raises:
        ConfigurationError: The extra is not installed, a file is missing or cannot be
            loaded, the graph has no ``input_ids`` input, or a setting is out of range.
    """

    provider_name = "cross-encoder"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        tokenizer: str | os.PathLike[str] | None = None,
        model: str | None = None,
        max_length: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int | None = None,
    ) -> None:
        owner = type(self).__name__
        if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
            raise ConfigurationError(f"{owner}: give the folder of an ONNX cross-encoder")
        for name, value in (("batch_size", batch_size), ("max_length", max_length)):
            if value is None and name == "max_length":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{owner}: {name}= must be a whole number >= 1")
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
        ):
            raise ConfigurationError(f"{owner}: threads= must be a whole number >= 1")
        where = Path(path).expanduser()
        if not where.exists():
            raise ConfigurationError(f"{owner}: {str(path)!r}: no such file or folder")
        model_path = _model_file(where)
        folders = [model_path.parent, model_path.parent.parent]
        if tokenizer is not None:
            tokenizer_path = Path(tokenizer).expanduser()
        else:
            found = [f / "tokenizer.json" for f in folders if (f / "tokenizer.json").is_file()]
            if not found:
                raise ConfigurationError(
                    f"{owner}: no tokenizer.json beside {model_path.name!r}; pass tokenizer="
                )
            tokenizer_path = found[0]
        if not tokenizer_path.is_file():
            raise ConfigurationError(f"{owner}: no such tokenizer file {str(tokenizer_path)!r}")
        runtime = import_runtime(owner, INSTALL_HINT)
        numpy: Any = runtime[0]
        session, loaded = open_model(owner, runtime, model_path, tokenizer_path, threads=threads)
        data = _read_json(tokenizer_path)
        self.max_length: int = max_length or _max_length(folders, data)
        loaded.enable_truncation(max_length=self.max_length, strategy="longest_first")
        pad_id, pad_token = _pad_token(loaded, data)
        loaded.enable_padding(pad_id=pad_id, pad_token=pad_token)
        self._inputs: list[str] = [i.name for i in session.get_inputs()]
        if "input_ids" not in self._inputs:
            raise ConfigurationError(f"{owner}: the model has no 'input_ids' input")
        self._np: Any = numpy
        self._session: Any = session
        self._tokenizer: Any = loaded
        self.path: Path = model_path
        self.batch_size: int = batch_size
        self._model: str = (model or "").strip() or (
            model_path.parent.name if model_path.name == "model.onnx" else model_path.stem
        )
        if self._model == "onnx":  # onnx/model.onnx: the folder above names the model
            self._model = model_path.parent.parent.name
        #: Inference calls made (each one batch): lets a caller see the batching.
        self.calls = 0

    def __repr__(self) -> str:
        return f"CrossEncoderReranker(model={self._model!r}, max_length={self.max_length})"

    @property
    def model(self) -> str:
        """The model's id."""
        return self._model

    def _run(self, query: str, texts: list[str]) -> list[float]:
        np = self._np
        encodings = self._tokenizer.encode_batch([(query, text) for text in texts])
        feed: dict[str, Any] = {}
        for name in self._inputs:
            if name == "input_ids":
                feed[name] = np.array([e.ids for e in encodings], dtype=np.int64)
            elif name == "attention_mask":
                feed[name] = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            elif name == "token_type_ids":
                feed[name] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        self.calls += 1
        output = np.asarray(self._session.run(None, feed)[0])
        if output.ndim == 2:
            output = output[:, -1]  # (n, 1): the logit; (n, 2): the "relevant" class
        elif output.ndim != 1:
            return [math_nan()] * len(texts)  # reported by check_scores below
        scores: list[float] = output.astype(np.float64).tolist()
        return scores

    def _score(self, query: str, texts: list[str]) -> list[float]:
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[float] = [0.0] * len(texts)
        size = self.batch_size
        with reranker_errors(self.provider_name):
            for start in range(0, len(order), size):
                chunk = order[start : start + size]
                scores = self._run(query, [texts[i] for i in chunk])
                checked = check_scores(scores, len(chunk), provider=self._model)
                for i, score in zip(chunk, checked, strict=True):
                    out[i] = score
        return out

    def rerank_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        """The model's logit for each (query, text) pair, in input order.

        Raises:
            InvalidRequestError: An empty query or texts that are not strings.
            ProviderError: Inference failed (the original as ``__cause__``).
            ResponseFormatError: The graph's output is not one finite number per pair.
        """
        query, items = check_query_and_texts(query, texts)
        return self._score(query, items) if items else []

    async def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """Async twin of `rerank_sync` (inference in a worker thread)."""
        query, items = check_query_and_texts(query, texts)
        return await asyncio.to_thread(self._score, query, items) if items else []


def math_nan() -> float:
    return float("nan")
