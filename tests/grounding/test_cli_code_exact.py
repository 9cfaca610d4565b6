"""The CLI's outputs keep code exact (#30 item 7): every ``--format`` of ``textsearch search``
and ``textsearch ground`` print a doctest's ``>>>``, indentation and blank lines as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.grounding.test_cli_grounding import run

CODE = (
    ">>> import attrs\n>>> @attrs.define\n... class C:\n...     x: int = 1\n\n\n"
    "def f(a):\n    if a:\n\n        return a"
)
DOC = "# Walrus attrs\n\nDefine a walrus class:\n\n```python\n" + CODE + "\n```\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    # A stray control character (a vertical tab) must not reach the output; a NUL would make
    # the file binary, which is refused whole (tests/documents/test_hostile.py).
    (docs / "a.md").write_text(DOC + "\x0b", encoding="utf-8")
    return docs


def _has_code(output: str) -> None:
    lines = output.split("\n")
    first = next(i for i, line in enumerate(lines) if line.endswith(">>> import attrs"))
    indent = lines[first][: -len(">>> import attrs")]
    got = [line.rstrip() for line in lines[first : first + len(CODE.split("\n"))]]
    assert got == [(indent + line).rstrip() if line else "" for line in CODE.split("\n")]


@pytest.mark.parametrize("style", ["numbered", "citations", "markdown", "labelled"])
def test_every_search_format_keeps_code(folder: Path, style: str) -> None:
    done = run("search", "walrus", "--path", str(folder), "--format", style, cwd=folder)
    assert done.returncode == 0, done.stderr
    _has_code(done.stdout)
    assert not any(ch < " " and ch not in "\n\t" for ch in done.stdout)


def test_json_and_ground_keep_code(folder: Path) -> None:
    done = run("search", "walrus", "--path", str(folder), "--json", cwd=folder)
    value = json.loads(done.stdout)["results"][0]["value"]
    assert value.endswith(CODE) and "\x0b" not in value
    ground = run("ground", "walrus", "--path", str(folder), cwd=folder)
    assert ground.returncode == 0, ground.stderr
    _has_code(ground.stdout)
    assert "›" not in ground.stdout
