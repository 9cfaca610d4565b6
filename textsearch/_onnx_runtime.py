"""Loading an ONNX model and its tokenizer: what the local embedder and cross-encoder share.

onnxruntime, tokenizers and numpy are imported here only when a model is loaded, so
``import textsearch`` never pays for them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from textsearch.errors import ConfigurationError

__all__ = ["import_runtime", "open_model"]


def import_runtime(owner: str, install_hint: str) -> tuple[Any, Any, Any]:
    """numpy, onnxruntime and the ``tokenizers.Tokenizer`` class.

    Raises:
        ConfigurationError: One of them is not installed (the message names it and the extra).
    """
    try:
        numpy = importlib.import_module("numpy")
        onnxruntime = importlib.import_module("onnxruntime")
        tokenizers = importlib.import_module("tokenizers")
    except ImportError as exc:
        missing = exc.name or "onnxruntime"
        error = ConfigurationError(f"{owner} needs {missing}: {install_hint}")
    else:
        return numpy, onnxruntime, tokenizers.Tokenizer
    raise error


def open_model(
    owner: str,
    runtime: tuple[Any, Any, Any],
    model_path: Path,
    tokenizer_path: Path,
    *,
    threads: int | None,
    memory_pattern: bool = True,
) -> tuple[Any, Any]:
    """An onnxruntime session on the CPU for ``model_path`` and the tokenizer it reads.

    Args:
        owner: The class loading them, for messages.
        runtime: What `import_runtime` returned.
        model_path: The ``.onnx`` file.
        tokenizer_path: The ``tokenizer.json`` file.
        threads: onnxruntime's intra-op threads (``None``: its default).
        memory_pattern: Whether onnxruntime plans memory per input shape.

    Raises:
        ConfigurationError: Either file cannot be loaded (the library's error named, not
            kept).
    """
    _, onnxruntime, tokenizer_class = runtime
    try:
        options = onnxruntime.SessionOptions()
        options.enable_mem_pattern = memory_pattern
        if threads is not None:
            options.intra_op_num_threads = threads
        session = onnxruntime.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer = tokenizer_class.from_file(str(tokenizer_path))
    except Exception as exc:  # onnxruntime and tokenizers raise their own types
        error = ConfigurationError(
            f"{owner}: cannot load {model_path.name!r} / {tokenizer_path.name!r}: "
            f"{type(exc).__name__}: {str(exc)[:200]}"
        )
    else:
        return session, tokenizer
    raise error
