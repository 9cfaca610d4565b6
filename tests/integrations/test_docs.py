"""Every example of docs/integrations.md runs offline, as a user would run it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PAGE = REPO_ROOT / "docs" / "integrations.md"

# Runs in a fresh interpreter, like a user's script (no pytest warning filters): the setup block
# then each example in its own namespace, reporting what each printed or raised.
RUNNER = r"""
import contextlib, io, json, sys, traceback
blocks = json.load(sys.stdin)
setup, examples = blocks[0], blocks[1:]
report = []
for heading, code in examples:
    out = io.StringIO()
    namespace = {"__name__": "__docs__"}
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(setup[1], "setup", "exec"), namespace)
            exec(compile(code, heading, "exec"), namespace)
        error = None
    except BaseException:
        error = traceback.format_exc()
    report.append({"heading": heading, "stdout": out.getvalue(), "error": error})
print(json.dumps(report))
"""


def _blocks() -> list[tuple[str, str]]:
    blocks: list[tuple[str, str]] = []
    heading = ""
    pattern = re.compile(r"^(#+ [^\n]+)$|^```python\n(.*?)^```$", re.M | re.S)
    for match in pattern.finditer(PAGE.read_text()):
        if match.group(1):
            heading = match.group(1).lstrip("# ").strip()
        else:
            blocks.append((heading, match.group(2)))
    return blocks


def test_every_framework_example_runs_and_cites_the_knowledge_base() -> None:
    blocks = _blocks()
    headings = [h for h, _ in blocks[1:]]
    assert headings == [
        "LangChain",
        "LlamaIndex",
        "pydantic-ai",
        "OpenAI Agents SDK",
        "Microsoft Agent Framework",
        "Semantic Kernel",
    ]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(blocks),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for entry in report:
        assert entry["error"] is None, f"{entry['heading']}:\n{entry['error']}"
        assert "https://kb.example/retry" in entry["stdout"], entry
    retrievers = [e for e in report if e["heading"] in ("LangChain", "LlamaIndex")]
    for entry in retrievers:
        assert "https://kb.example/limits Clients get 100 requests per minute." in entry["stdout"]
