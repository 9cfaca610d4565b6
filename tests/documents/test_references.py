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


PYTHON_ROLES = (
    "Call :func:`setup`, :meth:`~pkg.Runner.run`, :func:`stop()`, :func:`go <pkg.go>`,\n"
    ":class:`.Runner`, :py:meth:`!plain`, :attr:`pkg.Runner.state` and :mod:`pkg`.\n"
)


def _one(folder: Path, name: str) -> str:
    return _texts(folder)[name]


def test_functions_and_methods_show_their_parentheses(tmp_path: Path) -> None:
    # Sphinx's add_function_parentheses is on unless conf.py turns it off.
    (tmp_path / "a.rst").write_text("A\n=\n\n" + PYTHON_ROLES)
    (tmp_path / "b.md").write_text("# B\n\nCall {py:func}`setup` and {class}`Runner`.\n")
    expected = "Call setup(), run(), stop(), go,\nRunner, plain(), pkg.Runner.state and pkg."
    assert expected in _one(tmp_path, "a.rst")
    assert "Call setup() and Runner." in _one(tmp_path, "b.md")
    (tmp_path / "conf.py").write_text("project = 'x'\nadd_function_parentheses = False\n")
    assert "Call setup, run, stop(), go," in _one(tmp_path, "a.rst")


def test_zzzeeksphinx_names_read_as_its_pages_show_them(tmp_path: Path) -> None:
    # SQLAlchemy's conf.py: zzzeeksphinx and its module shorthands (7,923 of its 15,244
    # roles use one: "_orm.Session" read as written is a name no page shows).
    (tmp_path / "conf.py").write_text(
        "extensions = ['sphinx.ext.autodoc', 'zzzeeksphinx']\n"
        "zzzeeksphinx_module_prefixes = {'_orm': 'sqlalchemy.orm', '_sql': 'sqlalchemy.sql'}\n"
    )
    (tmp_path / "orm.rst").write_text(
        "ORM\n===\n\nA :class:`_orm.Session` runs :meth:`_orm.Session.execute` on a\n"
        ":func:`_sql.select`, see :paramref:`_orm.relationship.lazy`,\n"
        ":attr:`.Session.info`, :class:`sqlalchemy.orm.Query` and :func:`.aliased`.\n"
    )
    assert (
        "A Session runs Session.execute() on a\nselect(), see relationship.lazy,\n"
        "Session.info, sqlalchemy.orm.Query and aliased()." in _one(tmp_path, "orm.rst")
    )


@pytest.mark.parametrize(
    "conf",
    [
        "this is not python (\n",
        "x = " + "(" * 5000 + ")" * 5000 + "\nadd_function_parentheses = False\n",
        "add_function_parentheses = False\n" + "# padding\n" * 200_000,  # over 1 MB: not read
        "import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\n",
    ],
)
def test_a_conf_py_is_read_never_run(tmp_path: Path, conf: str) -> None:
    (tmp_path / "conf.py").write_text(conf)
    (tmp_path / "a.rst").write_text("A\n=\n\nCall :func:`setup`.\n")
    assert "Call setup()." in _one(tmp_path, "a.rst")
    assert not (tmp_path / "ran").exists()


def test_the_folder_is_scanned_only_for_a_bare_reference(tmp_path: Path) -> None:
    # A run over files with no bare reference (an incremental run of a large folder whose
    # changed files hold none) never reads the folder's other sources.
    from textsearch.documents._files import read_file, references

    (tmp_path / "a.md").write_text("# A\n\nPlain words and a {py:func}`call`.\n")
    (tmp_path / "b.rst").write_text("B\n=\n\nSee :ref:`a-label`.\n")
    (tmp_path / "c.rst").write_text(".. _a-label:\n\nC title\n=======\n\nText.\n")
    files = sorted(tmp_path.iterdir())
    folder = references(tmp_path, files)
    first = read_file(files[0], None, IndexReport(), root=tmp_path, doc_set=folder)
    assert first is not None and "Plain words and a call()." in first.passages[0].text
    assert folder._doc_set is None  # not scanned: nothing needed it
    second = read_file(files[1], None, IndexReport(), root=tmp_path, doc_set=folder)
    assert second is not None and "See C title." in second.passages[0].text
    assert folder._doc_set is not None


def test_myst_links_without_text_show_their_targets_title(tmp_path: Path) -> None:
    # MyST shows [](#label), [](file.md) and <project:#label> as the title they link to; read
    # as their text alone they were nothing ("See , ."). A target the folder does not have
    # reads as written, a web link as its URL.
    (tmp_path / "guide.md").write_text("# Guide\n\n(tuning)=\n## Tuning it\n\nWords.\n")
    (tmp_path / "index.md").write_text(
        "# Index\n\nSee [](#tuning), [](guide.md), <project:#tuning>, [](#tuning-it),\n"
        "[](https://example.org/x), [](#nowhere) and [named](#tuning).\n"
    )
    assert (
        "See Tuning it, Guide, Tuning it, Tuning it,\nhttps://example.org/x, nowhere and named."
        in _one(tmp_path, "index.md")
    )


def _project(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "howto").mkdir()
    (docs / "conf.py").write_text("add_function_parentheses = False\n")
    (docs / "index.rst").write_text("Welcome\n=======\n\nThe start.\n")
    (docs / "guide" / "usage.rst").write_text(USAGE)
    (docs / "howto" / "page.rst").write_text(
        "How to\n======\n\nSee :ref:`install`, :doc:`/guide/usage`, :doc:`other`, "
        ":ref:`built-only` and :func:`setup`.\n"
    )
    (docs / "howto" / "other.rst").write_text("Other page\n==========\n\nMore text.\n")
    # Sphinx's output holds copies of the pages: never scanned
    built = docs / "_build" / "html" / "_sources"
    built.mkdir(parents=True)
    (built / "copy.rst.txt").write_text(".. _built-only:\n\nA built copy\n============\n")
    return docs


def test_a_folder_below_its_project_resolves_in_the_whole_project(tmp_path: Path) -> None:
    docs = _project(tmp_path)
    texts = _texts(docs / "howto")
    assert set(texts) == {"page.rst", "other.rst"}  # only the folder asked for is read
    # The label and the absolute document are outside the folder, in its project; the
    # project's conf.py turns the parentheses off; the build output is not read.
    assert (
        "See Installing pkg quickly, Installing pkg quickly, Other page, built-only and setup."
        in texts["page.rst"]
    )
    search = LocalTextSearch()
    report = search.index_path(docs / "howto")
    assert report.added == 2
    top = search.get_search_results_sync("see installing other page", top=1).results[0]
    assert top.link is not None and top.link.endswith("howto/page.rst")
    assert "See Installing pkg quickly, Installing pkg quickly, Other page" in top.text


def test_a_conf_py_without_a_root_document_makes_no_project(tmp_path: Path) -> None:
    docs = _project(tmp_path)
    (docs / "index.rst").unlink()  # a conf.py alone may be any program's settings
    texts = _texts(docs / "howto")
    assert "See install, /guide/usage, Other page, built-only and setup()." in texts["page.rst"]


def test_a_projects_scan_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.documents import _references

    docs = _project(tmp_path)
    for n in range(5):
        (docs / f"extra{n}.rst").write_text(f".. _extra{n}:\n\nExtra {n}\n=======\n")
    (docs / "howto" / "other.rst").write_text(
        "Other page\n==========\n\n" + ", ".join(f":ref:`extra{n}`" for n in range(5)) + ".\n"
    )
    monkeypatch.setattr(_references, "MAX_PROJECT_FILES", 3)
    text = _texts(docs / "howto")["other.rst"]
    resolved = [n for n in range(5) if f"Extra {n}" in text]
    unresolved = [n for n in range(5) if f"extra{n}" in text]
    # three sources outside the folder were scanned (of index, usage and the five extras)
    assert len(resolved) <= 3 and len(resolved) + len(unresolved) == 5, text
    assert len(unresolved) >= 2, text
