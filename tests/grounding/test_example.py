from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rag_prompt_example_runs_offline(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rag_prompt.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=True,
    )
    out = done.stdout
    assert (
        "<<<BEGIN SEARCH DATA id=" in out
        and "Question: How are untrusted search results fenced?" in out
    )
    refs = out.split("\nReferences:\n", 1)[1]
    # results are passages: the reference names the document and the section
    assert refs.startswith("[1] Grounding: search results into prompts › Untrusted content - ")
    assert str(ROOT / "docs" / "grounding.md") in refs
    assert "unknown markers: [7]" in out
