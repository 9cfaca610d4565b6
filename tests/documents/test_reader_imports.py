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


_INDEXING = """
import sys
from pathlib import Path
from textsearch import LocalTextSearch
from textsearch import LocalDocument
folder = Path(sys.argv[1])
(folder / "docs").mkdir()
(folder / "docs" / "a.md").write_text("# Install\\n\\nRun pip install.\\n", encoding="utf-8")
(folder / "docs" / "b.md").write_text("# Usage\\n\\nSee {ref}`install`.\\n", encoding="utf-8")
search = LocalTextSearch(str(folder / "i.sqlite3"), engine="sqlite")
assert search.search_sync("pip").results == [], "an empty index found something"
assert "textsearch.documents._references" not in sys.modules, "a search loaded the scanner"
report = search.index_path(folder / "docs")
assert report.added == 2, report
assert "textsearch.documents._references" in sys.modules, "the reference went unresolved"
# Files' documents are the SDK's own: none is validated, so indexing a folder never builds
# the model's validator (a first validation costs ~25 ms).
built = type(LocalDocument.__pydantic_validator__).__name__
assert built == "MockValSer", built
hits = search.get_search_results_sync("pip install").results
texts = {d.title: d.text for d in hits}
assert texts == {"Install": "Run pip install.", "Usage": "See Install."}, texts
"""


def test_searching_loads_no_scanner_and_indexing_validates_no_document(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _INDEXING, str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
