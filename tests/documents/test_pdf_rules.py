"""Rules typed as characters in a PDF are markup, not words (#30).

Debian's fontconfig manual draws a line of dashes under each table's header, Valgrind's
manual fills its table of contents with runs of a hundred dots, and a form leaves
``________`` blanks: a model reading a passage reads those as text, and they fill its
passages. A line that is only a rule goes, a run of four or more standing alone goes, dot
leaders become " … "; dashes and underscores inside words and code stay.
"""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pytest

from tests.documents._make import make_pdf
from textsearch.documents import read_path

pytest.importorskip("pypdfium2")

#: a run of four or more rule characters standing alone, or five dots
RULE = re.compile(r"(?<!\S)([-_=])\1{3,}(?!\S)|\.{5,}|(?:\. ){5,}")


def _text(path: Path) -> str:
    return "\n\n".join(d["text"] for d in read_path(path))


def test_rules_leaders_and_blanks_go_words_and_code_stay(tmp_path: Path) -> None:
    lines = [
        "Property Type Description",
        "--------------------------------------------",
        "family String Font family names",
        "= = = = = = = =",
        "Name: ________ Date: ______",
        "Introduction ........................................ 1",
        "Running your program . . . . . . . . . . . . . . . . 12",
        "-----BEGIN PUBLIC KEY-----",
        "call ASN1_MAX_ERROR_DESCRIPTION_SIZE or obj.__init__ -- or a - b",
        "________________",
    ]
    path = tmp_path / "manual.pdf"
    path.write_bytes(make_pdf([lines]))
    text = _text(path)
    assert RULE.search(text) is None, text
    assert "Property Type Description\nfamily String Font family names" in text
    assert "Name: Date:" in text
    assert "Introduction … 1" in text and "Running your program … 12" in text
    assert "-----BEGIN PUBLIC KEY-----" in text
    assert "call ASN1_MAX_ERROR_DESCRIPTION_SIZE or obj.__init__ -- or a - b" in text


@pytest.mark.parametrize(
    "name", ["fontconfig/fontconfig-user.pdf.gz", "valgrind/valgrind_manual.pdf.gz"]
)
def test_debian_manuals_have_no_rules_in_their_passages(name: str, tmp_path: Path) -> None:
    source = Path("/usr/share/doc") / name
    if not source.exists():
        pytest.skip(f"{source} is not installed")
    path = tmp_path / Path(name).name.removesuffix(".gz")
    with gzip.open(source) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    found = [m.group(0) for d in read_path(path) for m in RULE.finditer(d["text"])]
    assert found == []
