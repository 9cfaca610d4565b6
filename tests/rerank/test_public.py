"""The public names of textsearch.rerank and textsearch.evaluation import, lazily and lightly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import textsearch
import textsearch.evaluation
import textsearch.rerank

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_name_resolves() -> None:
    for module in (textsearch.rerank, textsearch.evaluation):
        for name in module.__all__:
            assert getattr(module, name) is not None, name
        assert set(module.__all__) <= set(dir(module))
    assert textsearch.RerankedTextSearch.__module__ == "textsearch.compose._rerank"
    assert "RerankedResult" in textsearch.__all__ and "RerankedTextSearch" in textsearch.__all__


def test_importing_them_loads_no_model_runtime_nor_http_client() -> None:
    code = (
        "import sys, textsearch, textsearch.rerank, textsearch.evaluation;"
        "textsearch.RerankedTextSearch;"
        "heavy = [m for m in ('numpy', 'onnxruntime', 'tokenizers', 'httpx') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)}, check=True, timeout=120,
    )  # fmt: skip
    assert out.stdout.strip() == ""
