"""Passages of real documentation are clean (#30): no RST role, directive or target, no MyST
role or target, no control character, no ``<target>`` left by a titled role, section names
without backticks, every code line kept with its indentation, ``__init__`` kept.

Run on released projects' docs when ``TEXTSEARCH_DOC_SETS`` names a folder holding their
unpacked sdists (``pip download --no-deps --no-binary :all: pytest attrs click django``,
then ``tar xzf`` each); small crafted files always.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.documents._dirty import file_problems

SETS = {"pytest": "doc", "attrs": "docs", "click": "docs", "django": "docs"}


def _doc_folder(name: str) -> Path:
    root = os.environ.get("TEXTSEARCH_DOC_SETS")
    if not root:
        pytest.skip("TEXTSEARCH_DOC_SETS is not set")
    found = sorted(Path(root).glob(f"{name}-*/{SETS[name]}"))
    if not found:
        pytest.skip(f"no {name} docs under {root}")
    return found[-1]


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("name", sorted(SETS))
def test_real_docs_give_clean_passages(name: str) -> None:
    folder = _doc_folder(name)
    dirty: list[tuple[str, str, str]] = []
    passages = 0
    for path in sorted(folder.rglob("*")):
        if path.suffix in (".md", ".rst", ".txt") and path.is_file():
            count, _, examples = file_problems(path)
            passages += count
            dirty += [(str(path.relative_to(folder)), kind, text) for kind, text in examples]
    assert passages > 100
    assert dirty == []


CRAFTED = {
    "roles.rst": (
        "Roles\n=====\n\nUse :option:`--lf`, :ref:`the guide <guide>`, :doc:`Tutorial 1"
        "</intro/tutorial01>`, :rfc:`the spec <2324#section-2>`, `a page <api-attr>` and"
        " ``__init__``; skip\\ s and \\*star\\*.\n\n.. code-block:: python\n\n"
        "    def f():\n\n        return 1\n\n.. _target:\n\n.. note:: Be careful.\n"
    ),
    "myst.md": (
        "(intro)=\n# `attrs.define`\n\nSee {class}`~attrs.Attribute`, __init__ and "
        "__attrs_post_init__.\n\n```{code-block} python\n    indented_first = 1\nx = 2\n```\n\n"
        "```{eval-rst}\n.. versionadded:: 1.0\n   Use :func:`attrs.field`.\n```\n"
    ),
    "setext.md": "`attrs.frozen`\n--------------\n\nText.\n",
    "django.txt": (
        "Title\n=====\n\n:setting:`DIRS <TEMPLATES-DIRS>` and :attr:`request.POST\n"
        "<django.http.HttpRequest.POST>` and\x00 NUL.\n"
    ),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_files_give_clean_passages(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(CRAFTED[name], encoding="utf-8")
    count, problems, examples = file_problems(path)
    assert count >= 1
    assert examples == [] and not problems


def test_the_crafted_files_read_as_a_reader_reads_them(tmp_path: Path) -> None:
    from textsearch.documents._split import split_document

    texts = {name: split_document(raw, Path(name).suffix)[1] for name, raw in CRAFTED.items()}
    roles = "\n".join(p.text for p in texts["roles.rst"])
    assert roles.startswith(
        "Use --lf, the guide, Tutorial 1, the spec, a page and __init__; skips and *star*."
    )
    assert "def f():\n\n    return 1" in roles and "Be careful." in roles
    myst = texts["myst.md"]
    assert myst[0].heading == "attrs.define"
    assert "See Attribute, __init__ and __attrs_post_init__." in myst[0].text
    assert "    indented_first = 1\nx = 2" in myst[0].text
    assert texts["setext.md"][0].heading == "attrs.frozen"
    django = texts["django.txt"][0].text
    assert django == "DIRS and request.POST and NUL."
