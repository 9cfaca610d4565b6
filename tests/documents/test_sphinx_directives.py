"""Sphinx's directives read as a rendered page shows them.

Admonitions and version directives keep the label a rendered page shows above their text.

Sphinx renders ``.. deprecated:: 3.1`` as "Deprecated since version 3.1: ...", and every
admonition under its title; read as their bodies alone, "3.1 Use bar instead." tells a model
nothing of a deprecation. Each reader (docutils, the reStructuredText fast path of MyST
``{eval-rst}`` bodies, MyST, Docusaurus containers) shows the label the way MkDocs
admonitions and GitHub alerts already read: ``Label:`` on the first line of the text.
"""

from __future__ import annotations

import pytest

from textsearch.documents._split import split_document

RST = """Title
=====

.. versionchanged:: 2.4

Text after.

.. versionadded:: 3.0
   The ``foo`` argument.

.. deprecated:: 3.1
    Use :func:`bar` instead.

.. note::
   A note body.

.. seealso:: :ref:`other`

.. warning:: Careful here.

.. admonition:: Mind the *gap*

   Between train and platform.

.. versionadded:: 1.1

   .. code-block:: python

      x = 1

.. note::

- .. versionadded:: 2.0 in a list
"""

RST_TEXT = [
    "Changed in version 2.4.",
    "Text after.",
    "Added in version 3.0:\nThe foo argument.",
    "Deprecated since version 3.1:\nUse bar() instead.",
    "Note:\nA note body.",
    "See also:\nother",
    "Warning:\nCareful here.",
    "Mind the gap:\nBetween train and platform.",
    "Added in version 1.1:",
    "x = 1",
    "- Added in version 2.0: in a list",  # in a list item: on the item's line
]


def _texts(raw: str, suffix: str) -> list[str]:
    _, passages = split_document(raw, suffix)
    return "\n\n".join(p.text for p in passages).split("\n\n")


def test_rst_directives_keep_their_labels() -> None:
    pytest.importorskip("docutils")
    assert _texts(RST, ".rst") == RST_TEXT


def test_an_eval_rst_body_reads_the_same_labels() -> None:
    pytest.importorskip("docutils")
    body = RST.split("\n", 3)[3]  # without the title
    page = f"# Title\n\n```{{eval-rst}}\n{body}```\n"
    assert _texts(page, ".md") == RST_TEXT


def test_myst_and_docusaurus_directives_keep_their_labels() -> None:
    page = (
        "# Title\n\n```{versionchanged} 2.4\n```\n\n"
        "```{deprecated} 3.1\nUse `bar` instead.\n```\n\n"
        ":::{note}\nA note body.\n:::\n\n"
        "```{admonition} Mind the gap\nBetween train and platform.\n```\n\n"
        "````{tip}\n```python\nx = 1\n```\n````\n\n"
        ":::danger\nDo not.\n:::\n\n"
        ":::info[Heads up]\nRead this.\n:::\n\n"
        "```{versionadded} 1.0 With words on its line.\n```\n"
    )
    assert _texts(page, ".md") == [
        "Changed in version 2.4.",
        "Deprecated since version 3.1:\nUse bar instead.",
        "Note:\nA note body.",
        "Mind the gap:\nBetween train and platform.",
        "Tip:",
        "x = 1",
        "Danger:\nDo not.",
        "Heads up:\nRead this.",
        "Added in version 1.0:\nWith words on its line.",
    ]


def test_a_directive_that_shows_no_label_reads_as_before() -> None:
    page = "# Title\n\n```{topic} Words\nBody.\n```\n\n:::{note}\n:::\n"
    assert _texts(page, ".md") == ["Words", "Body."]


def test_a_sphinx_class_description_is_read_not_dropped() -> None:
    # docutils' own ``class`` directive refused the signature: the whole description of
    # every ``.. class::`` (720 in Django's docs) was lost.
    pytest.importorskip("docutils")
    page = (
        "Fields\n======\n\n.. class:: Field(verbose_name=None)\n\n"
        "    ``Field`` is an abstract class.\n\n    .. attribute:: Field.null\n\n"
        "        If ``True``, store ``NULL``.\n\n.. rst-class:: wide\n\nAfter.\n"
    )
    assert _texts(page, ".rst") == [
        "Field(verbose_name=None)",
        "Field is an abstract class.",
        "Field.null",
        "If True, store NULL.",
        "After.",
    ]


def test_names_a_directive_only_makes_a_target_of_are_not_text() -> None:
    # Django's settings: the name is the heading that follows, not a line at the end of
    # the section before it.
    pytest.importorskip("docutils")
    page = (
        "Settings\n========\n\nThe end of one.\n\n.. setting:: DEBUG\n\n``DEBUG``\n"
        "---------\n\nDefault: ``False``\n\n.. module:: django.urls\n   :synopsis: URLs\n\n"
        ".. templatetag:: cycle\n\n.. cssclass:: longtable, standard\n\nWords.\n"
    )
    _, passages = split_document(page, ".rst")
    assert [(p.heading, p.text) for p in passages] == [
        ("Settings", "The end of one."),
        ("DEBUG", "Default: False\n\nWords."),
    ]


@pytest.mark.parametrize("suffix", [".rst", ".md"])
def test_author_directives_show_nothing(suffix: str) -> None:
    # Sphinx shows them only when conf.py sets show_authors (off by default): Sphinx's own
    # docs open a page with "Georg Brandl" otherwise.
    if suffix == ".rst":
        page = (
            "Ext\n===\n\n.. module:: pkg.ext\n.. moduleauthor:: Georg Brandl\n\n"
            ".. sectionauthor:: Ann Writer <ann@example.org>\n\n.. codeauthor:: Bob\n\nText.\n"
        )
    else:
        page = (
            "# Ext\n\n```{moduleauthor} Georg Brandl\n```\n\n"
            "```{sectionauthor} Ann Writer <ann@example.org>\n```\n\nText.\n"
        )
    assert _texts(page, suffix) == ["Text."]


def test_myst_module_directives_show_no_module_name() -> None:
    page = "# API\n\n```{py:module} pkg.mod\n```\n\nText.\n"
    assert _texts(page, ".md") == ["Text."]


def test_a_command_option_directive_shows_the_option() -> None:
    # Django's ``django-admin-option`` (125 in django-admin.txt) names the flag its text
    # describes; dropped, "--tag" was nowhere in the index.
    pytest.importorskip("docutils")
    page = (
        "check\n=====\n\n.. django-admin-option:: --tag TAGS, -t TAGS\n\n"
        "The system check framework performs many checks.\n"
    )
    assert _texts(page, ".rst") == [
        "--tag TAGS, -t TAGS",
        "The system check framework performs many checks.",
    ]


def test_the_options_a_page_shows_are_text() -> None:
    # Sphinx shows a confval's type and default (232 of each in its own docs) and an
    # attribute's type and value; other options (``:no-index:``) are not text.
    pytest.importorskip("docutils")
    rst = (
        "Conf\n====\n\n.. confval:: html_theme\n   :type: :code-py:`str`\n"
        "   :default: :code-py:`'alabaster'`\n\n   The theme for HTML output.\n\n"
        ".. py:attribute:: Foo.size\n   :type: int\n   :value: 3\n   :no-index:\n"
    )
    myst = (
        "# Conf\n\n```{confval} html_theme\n:type: `str`\n:default: {code-py}`'alabaster'`\n\n"
        "The theme for HTML output.\n```\n\n```{py:attribute} Foo.size\n---\ntype: int\n"
        "value: 3\nno-index:\n---\n```\n"
    )
    expected = [
        "html_theme",
        "Type: str\nDefault: 'alabaster'",
        "The theme for HTML output.",
        "Foo.size",
        "Type: int\nValue: 3",
    ]
    assert _texts(rst, ".rst") == expected
    assert _texts(myst, ".md") == expected


def test_a_changelog_shows_its_versions_tags_and_tickets() -> None:
    # SQLAlchemy's (and Alembic's, Mako's) changelog extension: a release's version and date
    # head it on the page, each change shows its tags and tickets. Its changes write their
    # options deeper than their text, which docutils takes for an argument: 394 sections of
    # SQLAlchemy's docs read ":tags: sql" and "  :tickets: 719" as text.
    pytest.importorskip("docutils")
    rst = (
        "Changelog\n=========\n\n.. changelog::\n    :version: 0.3.11\n"
        "    :released: Sun Oct 14 2007\n\n    .. change::\n        :tags: sql\n"
        "        :tickets: 719\n\n      Fixed detection of :bind$params.\n\n"
        "    .. change::\n        :tags: orm\n        :tickets:\n        :no-show: x\n\n"
        "      A :class:`.Query` fix.\n\n.. callout:: A title: on the directive's line\n"
    )
    myst = (
        "# Changelog\n\n```{changelog}\n:version: 0.3.11\n:released: Sun Oct 14 2007\n\n"
        "```{change}\n:tags: sql\n:tickets: 719\n\nFixed detection of :bind$params.\n```\n"
        "```\n"
    )
    assert _texts(rst, ".rst") == [
        "Released: Sun Oct 14 2007",
        "Tags: sql\nTickets: 719",
        "Fixed detection of :bind$params.",
        "Tags: orm",
        "A Query fix.",
        "A title: on the directive's line",
    ]
    # Each release is a section of the page, its version the heading, "change-<version>"
    # its anchor (the extension's); what follows is the enclosing section's again.
    _, passages = split_document(rst, ".rst")
    assert [(p.heading, p.anchor) for p in passages] == [
        ("0.3.11", "change-0.3.11"),
        ("Changelog", "changelog"),
    ]
    assert _texts(myst, ".md")[:3] == [
        "Version: 0.3.11\nReleased: Sun Oct 14 2007",
        "Tags: sql\nTickets: 719",
        "Fixed detection of :bind$params.",
    ]


def test_sqlalchemy_sql_marks_are_not_code() -> None:
    # zzzeeksphinx's pycon+sql lexer shows a statement's SQL in a box of its own; its marks
    # ({execsql}, {stop}: 742 in SQLAlchemy's docs) are not on the page. Other code keeps
    # the same text. The first page goes through docutils (a changelog's shown option).
    pytest.importorskip("docutils")
    code = "    >>> session.execute(stmt)\n    {execsql}SELECT users.id\n    FROM users{stop}\n"
    python = ".. code-block:: python\n\n    x = '{stop}'\n"
    fast = f"T\n=\n\n.. sourcecode:: pycon+sql\n\n{code}\n{python}"
    nested = code.replace("    ", "        ")
    docutils = (
        f"T\n=\n\n.. changelog::\n    :version: 2.0\n\n    .. sourcecode:: python+sql\n\n{nested}"
    )
    markdown = "# T\n\n```pycon+sql\n>>> q\n{printsql}SELECT 1{stop}\n```\n"
    shown = ">>> session.execute(stmt)\nSELECT users.id\nFROM users"
    assert _texts(fast, ".rst") == [shown, "x = '{stop}'"]
    assert _texts(docutils, ".rst") == [shown]
    assert _texts(markdown, ".md") == [">>> q\nSELECT 1"]


def test_a_grammar_is_code() -> None:
    # Sphinx's productionlist shows a grammar as written (its backquoted names included).
    pytest.importorskip("docutils")
    grammar = '   try_stmt: try1_stmt | try2_stmt\n   try1_stmt: "try" ":" `suite`\n'
    page = f"Grammar\n=======\n\n.. productionlist::\n{grammar}"
    expected = 'try_stmt: try1_stmt | try2_stmt\ntry1_stmt: "try" ":" `suite`'
    assert _texts(page, ".rst") == [expected]
    myst = f"# Grammar\n\n```{{productionlist}}\n{expected}\n```\n"
    assert _texts(myst, ".md") == [expected]


def test_only_what_the_html_pages_show() -> None:
    # pytest's plugin list is a table for HTML and a definition list for LaTeX: both read,
    # every plugin was in the index twice.
    pytest.importorskip("docutils")
    page = (
        "Plugins\n=======\n\n.. only:: not latex\n\n   For the web.\n\n"
        ".. only:: latex\n\n   For the PDF.\n\n.. only:: html and (epub or format_html)\n\n"
        "   Both.\n\n.. only:: ((\n\n   Kept: an expression that cannot be read.\n"
    )
    expected = ["For the web.", "Both.", "Kept: an expression that cannot be read."]
    assert _texts(page, ".rst") == expected
    body = page.split("\n", 3)[3]
    assert _texts(f"# Plugins\n\n```{{eval-rst}}\n{body}```\n", ".md") == expected
    myst = (
        "# Plugins\n\n```{only} not latex\nFor the web.\n```\n\n```{only} latex\nFor the PDF.\n"
        "```\n\n```{only} html and (epub or format_html)\nBoth.\n```\n\n```{only} ((\n"
        "Kept: an expression that cannot be read.\n```\n"
    )
    assert _texts(myst, ".md") == expected


def test_a_simple_table_too_large_for_docutils_reads_as_rows_of_cells() -> None:
    # Over 5,000 cells a table is not given to docutils (its parser is quadratic); its rows
    # kept their column padding and roles. Cut at the border's columns, counted as docutils
    # counts them (a Chinese character or an emoji is two columns wide).
    pytest.importorskip("docutils")
    summaries = ["用于测试的插件", "Logging checks 🪵", "Plain words"]  # 14, 17, 11 columns
    widths = {summaries[0]: 14, summaries[1]: 17, summaries[2]: 11}
    rows = []
    for n in range(2100):
        name = f":pypi:`plugin-{n}`"
        summary = summaries[n % 3]
        rows.append(f"{name:<24}{summary}{' ' * (26 - widths[summary])}``pytest>=7``")
    border = "=" * 22 + "  " + "=" * 24 + "  " + "=" * 12
    page = "Plugins\n=======\n\n" + "\n".join([border, *rows, border]) + "\n"
    _, passages = split_document(page, ".rst")
    lines = [line for p in passages for line in p.text.split("\n") if line]
    assert len(lines) == 2100
    assert lines[:3] == [
        "plugin-0; 用于测试的插件; pytest>=7.",
        "plugin-1; Logging checks 🪵; pytest>=7.",
        "plugin-2; Plain words; pytest>=7.",
    ]


def test_tabs_read_under_their_labels() -> None:
    # sphinx-tabs and sphinx-design tabs, as MkDocs' content tabs read ("pip:", then the body)
    pytest.importorskip("docutils")
    rst = (
        "Install\n=======\n\n.. tabs::\n\n   .. tab:: ``apt`` (Linux)\n\n      Use apt.\n\n"
        "   .. group-tab:: Windows\n\n      .. code-block:: powershell\n\n         winget x\n\n"
        ".. tab-set::\n\n   .. tab-item:: macOS\n\n      Use brew.\n"
    )
    expected = ["apt (Linux):\nUse apt.", "Windows:", "winget x", "macOS:\nUse brew."]
    assert _texts(rst, ".rst") == expected
    myst = (
        "# Install\n\n::::{tab-set}\n:::{tab-item} `apt` (Linux)\nUse apt.\n:::\n"
        ":::{tab-item} Windows\n```powershell\nwinget x\n```\n:::\n"
        ":::{tab-item} macOS\nUse brew.\n:::\n::::\n"
    )
    assert _texts(myst, ".md") == expected
