"""Which readers a file loads: the reStructuredText reader only with a MyST ``{eval-rst}`` body."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CODE = """
import sys
from pathlib import Path
from textsearch.documents import read_path
folder = Path(sys.argv[1])
(folder / "plain.md").write_text("# Plain\\n\\nJust *Markdown* and `code`.\\n", encoding="utf-8")
(folder / "myst.md").write_text(
    "# MyST\\n\\n```{eval-rst}\\n.. note::\\n\\n   Read by the RST reader.\\n```\\n",
    encoding="utf-8",
)
plain = list(read_path(folder / "plain.md"))
assert "Just Markdown and code." in plain[0]["text"], plain
assert "textsearch.documents._rst" not in sys.modules, "plain Markdown loaded the RST reader"
myst = list(read_path(folder / "myst.md"))
assert "textsearch.documents._rst" in sys.modules, "an eval-rst body did not load the RST reader"
text = " ".join(doc["text"] for doc in myst)
assert "Read by the RST reader." in text and ".. note" not in text, text
"""


def test_plain_markdown_does_not_load_the_rst_reader(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _CODE, str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
