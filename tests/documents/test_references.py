"""A bare ``:ref:`` / ``:doc:`` reads as the title it links to, across a doc set (#30)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch.documents import IndexReport, read_path

USAGE = """\
.. _install:
.. _Setting Up:

==========================
Installing ``pkg`` quickly
==========================

Run the installer.

.. _external: https://example.org/elsewhere

.. _not-a-section:

- a list item, not a title

Later
-----

Text of the later section.
"""

INDEX = """\
Welcome
=======

Start with :ref:`install`, or read :doc:`guide/usage` and :ref:`setting   up`.
See :ref:`the setup page <install>` and :ref:`nowhere-at-all`, or :ref:`genindex`.

.. note::

   Before anything, read :ref:`install` (a note goes through docutils).

Upstream: :ref:`python:library-intro`.
"""

NESTED = """\
Deep page
=========

Back to :doc:`/index`, next door :doc:`../guide/usage`, the label :ref:`not-a-section`.
"""

MYST = """\
# Notes in MyST

(myst-label)=
## Tuning the cache

Keep it warm.

```text
(fenced-label)=
# not a heading
```

See {ref}`myst-label`, {doc}`index`, {ref}`install` and {ref}`fenced-label`.
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "conf.py").write_text("project = 'demo'\n")
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "usage.rst").write_text(USAGE)
    (tmp_path / "index.rst").write_text(INDEX)
    (tmp_path / "more" / "deep").mkdir(parents=True)
    (tmp_path / "more" / "deep" / "page.rst").write_text(NESTED)
    (tmp_path / "notes.md").write_text(MYST)
    return tmp_path


def _texts(folder: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    for document in read_path(folder):
        path = document["metadata"]["path"]
        texts[path] = texts.get(path, "") + "\n" + document["text"]
    return texts


def test_bare_references_read_as_their_titles(folder: Path) -> None:
    index = _texts(folder)["index.rst"]
    assert (
        "Start with Installing pkg quickly, or read Installing pkg quickly and "
        "Installing pkg quickly." in index
    )
    # An explicit title wins; an unknown label reads as itself; Sphinx's own labels.
    assert "See the setup page and nowhere-at-all, or Index." in index
    assert "read Installing pkg quickly (a note" in index
    assert "python:library-intro" in index  # another project's label: nothing to resolve
    assert ":ref:" not in index and "`" not in index


def test_documents_resolve_relative_and_from_the_project_root(folder: Path) -> None:
    page = _texts(folder)["more/deep/page.rst"]
    # "/index" is read from the folder with conf.py; "../guide/usage" from the file's own.
    assert "Back to Welcome, next door" in page
    # ../guide/usage from more/deep is more/guide/usage: no such document, read as written.
    assert "next door ../guide/usage," in page
    # A label before a list names no section: read as the label.
    assert "the label not-a-section." in page


def test_myst_labels_and_documents(folder: Path) -> None:
    notes = _texts(folder)["notes.md"]
    assert "See Tuning the cache, Welcome, Installing pkg quickly and fenced-label." in notes


def test_a_document_without_a_title_reads_as_its_name(tmp_path: Path) -> None:
    (tmp_path / "a.rst").write_text(".. _empty:\n\nTitle\n=====\n\n:ref:`empty` and :doc:`b`.\n")
    (tmp_path / "b.rst").write_text("No title here, only :ref:`empty`.\n")
    texts = _texts(tmp_path)
    assert "Title and b." in texts["a.rst"]
    assert "only Title." in texts["b.rst"]


def test_index_path_reads_them_and_follows_a_changed_title(folder: Path) -> None:
    search = LocalTextSearch()
    search.index_path(folder)
    top = search.get_search_results_sync("setup page nowhere", top=1).results[0]
    assert "See the setup page and nowhere-at-all" in top.text
    assert "Start with Installing pkg quickly" in top.text
    # The target's title changes and the referring file is read again: it shows the new one.
    usage = folder / "guide" / "usage.rst"
    renamed = USAGE.replace("Installing ``pkg`` quickly", "Getting pkg")
    usage.write_text(renamed.replace("=" * 26, "=" * 11))
    (folder / "index.rst").write_text(INDEX + "\nOne more line.\n")
    search.index_path(folder)
    top = search.get_search_results_sync("setup page nowhere", top=1).results[0]
    assert "Start with Getting pkg, or read Getting pkg" in top.text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_scan_opens_no_fifo(tmp_path: Path) -> None:
    (tmp_path / "a.rst").write_text("Title\n=====\n\nSee :doc:`pipe`.\n")
    os.mkfifo(tmp_path / "pipe.rst")  # opening it for reading would wait for a writer
    report = IndexReport()
    documents = list(read_path(tmp_path, report=report))
    assert [d["metadata"]["path"] for d in documents] == ["a.rst"]
    assert "See pipe." in documents[0]["text"]
    assert [Path(path).name for path, _ in report.failed] == ["pipe.rst"]


def test_each_project_resolves_its_own_labels(tmp_path: Path) -> None:
    # A folder of two projects' docs (each with its conf.py): a label is its project's own.
    for project, title in (("alpha", "Installing Alpha"), ("beta", "Installing Beta")):
        docs = tmp_path / project / "docs"
        (docs / "guide").mkdir(parents=True)
        (docs / "conf.py").write_text("")
        (docs / "guide" / "install.rst").write_text(
            f".. _install:\n.. _{project}-only:\n\n{title}\n{'=' * len(title)}\n\nSteps.\n"
        )
        other = "beta" if project == "alpha" else "alpha"
        (docs / "guide" / "next.rst").write_text(
            f"Next\n====\n\nRead :ref:`install`, :doc:`/guide/install` and :ref:`{other}-only`.\n"
        )
    texts = _texts(tmp_path)
    assert (
        "Read Installing Alpha, Installing Alpha and beta-only."
        in texts["alpha/docs/guide/next.rst"]
    )
    assert (
        "Read Installing Beta, Installing Beta and alpha-only." in texts["beta/docs/guide/next.rst"]
    )
