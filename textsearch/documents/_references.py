"""What a bare cross-reference shows: a Sphinx ``:ref:`label``` and ``:doc:`path``` read as
the title they link to, the way a rendered page shows them, not as the label or path.

A label names the section after it (``.. _label:`` in reStructuredText, ``(label)=`` in
MyST), and a document's title is its first section's; both can be in another file of the
doc set. So when a file of a folder is read (`reading`) and a bare reference first needs
them, `scan` reads every reStructuredText and Markdown source of the folder once for its
labels and titles (a scan by pattern, no parser: ~70 ms for Django's 639 files), and the
readers resolve that reference and the later ones through `resolved`. A reference with an
explicit title (``:ref:`text <label>```) reads as its title, as before; one whose target
the scan did not find reads as its label.
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from textsearch.documents._blocks import github_slug
from textsearch.documents._dialects import _FENCE  # the fences the dialect pass knows

__all__ = [
    "MAX_CONF_BYTES",
    "MAX_SCAN_BYTES",
    "DocSet",
    "Folder",
    "Project",
    "link_title",
    "python_title",
    "reading",
    "resolved",
    "role_text",
    "project_above",
    "scan",
    "scanned",
]

#: The sources a scan reads (``.txt``: Django's docs are reStructuredText in ``.txt`` files).
_RST = RST_SUFFIXES = (".rst", ".rest", ".txt")
_MARKDOWN = MARKDOWN_SUFFIXES = (".md", ".markdown", ".myst")
#: A source larger than this is not scanned (its own references still read as labels).
MAX_SCAN_BYTES = 4 << 20
#: How many folders above an indexed folder `project_above` looks for its Sphinx project.
PROJECT_LEVELS = 3
#: The most sources, and bytes, scanned of a project outside the folder indexed: a folder
#: inside a huge tree costs a bounded scan, and what is left out reads as labels.
MAX_PROJECT_FILES = 10_000
MAX_PROJECT_BYTES = 128 << 20

# A title: an optional overline, a line of text at the margin, an underline of one
# punctuation character repeated.
_ADORNMENT = r"([!-/:-@\[-`{-~])\1+[ \t]*"
_TITLE = re.compile(rf"^(?:{_ADORNMENT}\n)?([^\s][^\n]*)\n([!-/:-@\[-`{{-~])\3+[ \t]*$", re.M)
# An internal target, its name bare or quoted, with nothing after the colon.
_RST_LABEL = re.compile(r"^\.\. _(`[^`\n]+`|[^:`\n][^:\n]*?):[ \t]*$", re.M)
_MYST_LABEL = re.compile(r"^\(([^()\s][^()\n]*)\)=[ \t]*$")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S[^\n]*)$")
_INLINE = re.compile(
    r":[\w.+-]{1,40}(?::[\w.+-]{1,40}){0,3}:`([^`]+)`|``([^`]+)``|`([^`]+)`_{0,2}"
    r"|\*\*?([^*]+)\*\*?"
)
#: Characters of a title kept (as `read_file` keeps of a heading).
_TITLE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Project:
    """What a project's ``conf.py`` says about how its pages show a Python object's name.

    Attributes:
        parens: ``add_function_parentheses`` (Sphinx's default: on): ``:func:`f``` shows
            ``f()``.
        zzzeek: The project renders its names with zzzeeksphinx (SQLAlchemy, Alembic,
            Mako): ``:meth:`a.B.c``` shows ``B.c()``.
        prefixes: zzzeeksphinx's module shorthands (``_orm`` for ``sqlalchemy.orm``):
            ``:class:`_orm.Session``` shows ``Session``.
    """

    parens: bool = True
    zzzeek: bool = False
    prefixes: frozenset[str] = frozenset()


#: How a page shows names when no ``conf.py`` says otherwise.
_DEFAULT_PROJECT = Project()
#: A ``conf.py`` larger than this is not read (its project keeps Sphinx's defaults).
MAX_CONF_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class DocSet:
    """The labels and document titles of one folder's sources.

    Attributes:
        labels: By project (see `Folder.project`): a label, normalized as Sphinx does
            (lower case, blanks collapsed), to the title of the section it names. Labels
            are a project's own, as in Sphinx: a folder of several projects' docs resolves
            each one's references in its own labels.
        titles: A document's name (its path from the folder, ``/``-separated, without the
            suffix) to its title.
    """

    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)


#: The labels Sphinx itself defines, and the titles its pages show for them.
_SPHINX_LABELS = {
    "genindex": "Index",
    "modindex": "Module Index",
    "py-modindex": "Python Module Index",
    "search": "Search Page",
}


class Folder:
    """What the reading of one folder's files shares: where its Sphinx projects are
    (a ``conf.py``), what each ``conf.py`` says (`Project`), and its labels and titles
    (`DocSet`), scanned only when a file's bare reference first needs them: a folder of
    Markdown without roles, or a run whose changed files hold none, never scans.

    Args:
        base: The folder the documents' names start from.
        sources: The sources to scan, each with its bytes (see `scan`).
        read: A ``conf.py``'s bytes (``None``: unreadable, or not a regular file).
    """

    def __init__(
        self,
        base: Path,
        sources: Callable[[], Iterable[tuple[Path, bytes]]],
        read: Callable[[Path], bytes | None],
    ) -> None:
        self.base = base
        self._sources = sources
        self._read = read
        self._lock = threading.Lock()
        self._has_conf: dict[str, bool] = {}
        self._configs: dict[str, Project] = {}
        self._doc_set: DocSet | None = None

    def name(self, file: Path) -> str:
        """``file``'s document name: its path from `base`, without the suffix."""
        return _name(file, self.base)

    def project(self, name: str) -> str:
        """The project a document belongs to: the nearest folder above it holding a
        ``conf.py`` (``""``, the root, when none does)."""
        for folder in _ancestors(posixpath.dirname(name)):
            found = self._has_conf.get(folder)
            if found is None:
                found = self._has_conf[folder] = (self.base / folder / "conf.py").is_file()
            if found:
                return folder
        return ""

    def config(self, name: str) -> Project:
        """What the ``conf.py`` of the document's project says (Sphinx's defaults if none)."""
        project = self.project(name)
        config = self._configs.get(project)
        if config is None:
            conf = self.base / project / "conf.py"
            config = _project(self._read(conf) if self._has_conf.get(project) else None)
            self._configs[project] = config
        return config

    def doc_set(self) -> DocSet:
        """The labels and titles of the folder's sources, scanned at the first call."""
        with self._lock:
            if self._doc_set is None:
                self._doc_set = scan(self, self._sources())
            return self._doc_set


_READING: ContextVar[tuple[Folder, str] | None] = ContextVar("textsearch_doc_set", default=None)


def project_above(folder: Path) -> Path | None:
    """The Sphinx project ``folder`` lies in, when its ``conf.py`` is above it (``docs/``
    for ``docs/howto/``): the nearest of `PROJECT_LEVELS` folders up that holds a
    ``conf.py`` and a root document (``index`` or ``contents``, as Sphinx names it) beside
    it; ``None`` when ``folder`` holds its own ``conf.py`` or no such folder is found. A
    page's references name labels and documents anywhere in its project, so the project's
    sources are scanned for their titles: only titles and labels are taken from them."""
    if (folder / "conf.py").is_file():
        return None
    for parent in list(folder.parents)[:PROJECT_LEVELS]:
        if (parent / "conf.py").is_file() and any(
            (parent / f"{stem}{suffix}").is_file()
            for stem in ("index", "contents")
            for suffix in _RST + _MARKDOWN
        ):
            return parent
    return None


def scanned(file: Path) -> bool:
    """Whether `scan` reads ``file`` (a reStructuredText or Markdown source)."""
    suffix = file.suffix.lower()
    return suffix in _RST or suffix in _MARKDOWN


def scan(folder: Folder, sources: Iterable[tuple[Path, bytes]]) -> DocSet:
    """The labels and titles of the sources read (each file under ``folder``, with its
    bytes)."""
    found = DocSet()
    for file, data in sources:
        suffix = file.suffix.lower()
        text = data.decode("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n")
        name = folder.name(file)
        labels: dict[str, str] = {}
        title = _scan_rst(text, labels) if suffix in _RST else _scan_md(text, labels)
        if title is not None:
            found.titles.setdefault(name, title)
        if labels:
            into = found.labels.setdefault(folder.project(name), {})
            for label, title in labels.items():
                into.setdefault(label, title)
    return found


@contextmanager
def reading(folder: Folder | None, file: Path) -> Iterator[None]:
    """While a file is read, its bare references resolve in ``folder`` (none: as labels)."""
    if folder is None:
        yield
        return
    token = _READING.set((folder, folder.name(file)))
    try:
        yield
    finally:
        _READING.reset(token)


def resolved(role: str | None, target: str) -> str | None:
    """The title a bare ``:ref:`` or ``:doc:`` to ``target`` shows, or ``None`` (another
    role, no folder being read, or a target the scan did not find)."""
    if role is None:
        return None
    role = role.lower().removeprefix("std:")
    if role != "ref" and role != "doc":
        return None
    current = _READING.get()
    if current is None:
        return None
    folder, name = current
    doc_set = folder.doc_set()
    if role == "ref":
        label = _label(target)
        own = doc_set.labels.get(folder.project(name), {})
        return own.get(label) or _SPHINX_LABELS.get(label)
    if target.startswith("/"):
        wanted = posixpath.join(folder.project(name), target.lstrip("/"))
    else:
        wanted = posixpath.join(posixpath.dirname(name), target)
    wanted = posixpath.normpath(wanted)
    for suffix in ("", *(s for s in (*_RST, *_MARKDOWN) if wanted.endswith(s))):
        title = doc_set.titles.get(wanted.removesuffix(suffix) if suffix else wanted)
        if title is not None:
            return title
    return None


def link_title(href: str) -> str:
    """What MyST shows for a link with no text of its own (``[](#label)``,
    ``[](guide.md)``, ``<project:#label>``): the title of the section or document it
    links to, where the folder has it, else the target as written."""
    target = href.removeprefix("project:")
    path, _, label = target.partition("#")
    if "://" not in target:
        title = resolved("ref", label) if label else resolved("doc", path) if path else None
        if title:
            return title
    return label if label and not path else target


def role_text(content: str, role: str | None = None) -> str:
    """What a reader sees of a role: ``text <target>`` is "text", ``~a.b.c`` is "c"; a bare
    ``ref`` or ``doc`` ``role`` is the title it links to, where the doc set has it, a
    function or method ``f()`` (`python_title`)."""
    content = content.strip()
    if content.endswith(">") and "<" in content:
        # Sphinx's explicit title: "text <target>", the blank before "<" optional
        title = content[: content.rindex("<")].strip()
        if title:
            return title
    if role is None:
        return _target_title(content)
    return resolved(role, content) or python_title(role, content, _target_title(content))


def _target_title(content: str) -> str:
    """What Sphinx shows of a reference's target when it has no explicit title."""
    if content.startswith(".") and len(content) > 1 and content[1].isalpha():
        content = content[1:]  # Sphinx's relative target (.Field.choices) shows no dot
    if content.startswith(("~", "!")):
        content = content[1:]
        if "." in content and not content.endswith("."):
            # Sphinx shows only the last name of ~a.b.c
            return content.rsplit(".", 1)[1]
    return content


def python_title(role: str, target: str, title: str) -> str:
    """What a page shows for a Python role's ``target`` (no explicit title) that Sphinx's
    own rules show as ``title``: ``f()`` for a function or method (``add_function_parentheses``),
    and zzzeeksphinx's short names in a project that uses it."""
    domain, _, kind = role.lower().rpartition(":")
    if domain not in ("", "py") or kind not in _PYTHON_ROLES:
        return title
    current = _READING.get()
    project = _DEFAULT_PROJECT if current is None else current[0].config(current[1])
    if project.zzzeek:
        title = _zzzeek_title(kind, target, title, project.prefixes)
    if kind in ("func", "meth") and project.parens and title and not title.endswith("()"):
        title += "()"
    return title


_PYTHON_ROLES = frozenset({"func", "meth", "class", "attr", "paramref", "obj", "data", "mod"})


def _zzzeek_title(kind: str, target: str, title: str, prefixes: frozenset[str]) -> str:
    """zzzeeksphinx's name for a reference (its ``render_pydomains``): a module shorthand
    (``_orm.``) is never shown, a method or attribute shows its class and its name, a
    function or class its name alone."""
    tokens = target.lstrip("~.!").removesuffix("()").split(".")
    short = tokens[0] in prefixes
    if kind in ("meth", "attr", "paramref"):
        need = 3 if kind == "paramref" and len(tokens) >= 3 and tokens[-3][:1].isupper() else 2
        return ".".join(tokens[-need:])
    if kind == "class" and (short or target.startswith(".")):
        return tokens[-1]
    if kind != "class" and (short or target.startswith((".", "~"))):
        return tokens[-1]
    return title


def _project(conf: bytes | None) -> Project:
    """What a ``conf.py`` sets of `Project`, read as a syntax tree: nothing is run."""
    if conf is None or len(conf) > MAX_CONF_BYTES:
        return _DEFAULT_PROJECT
    import ast

    try:
        tree = ast.parse(conf)
    except Exception:  # any file at all (a SyntaxError, nesting too deep): Sphinx's defaults
        return _DEFAULT_PROJECT
    values: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value
    parens = values.get("add_function_parentheses")
    extensions = values.get("extensions")
    prefixes = values.get("zzzeeksphinx_module_prefixes")
    return Project(
        parens=not (isinstance(parens, ast.Constant) and parens.value is False),
        zzzeek=isinstance(extensions, (ast.List, ast.Tuple))
        and any(
            isinstance(item, ast.Constant) and item.value == "zzzeeksphinx"
            for item in extensions.elts
        ),
        prefixes=frozenset(
            key.value
            for key in (prefixes.keys if isinstance(prefixes, ast.Dict) else ())
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        ),
    )


def _ancestors(folder: str) -> Iterator[str]:
    while folder:
        yield folder
        folder = posixpath.dirname(folder)
    yield ""


def _name(file: Path, base: Path) -> str:
    try:
        relative = file.relative_to(base).as_posix()
    except ValueError:
        relative = file.name
    return os.path.splitext(relative)[0]


def _label(name: str) -> str:
    return " ".join(name.strip("`").lower().split())


def _words(title: str) -> str:
    """A title's words, its inline markup read as a page shows it."""
    title = title[:_TITLE_CHARS]
    if "`" not in title and "*" not in title:
        return title

    def words(found: re.Match[str]) -> str:
        role, literal, interpreted, emphasis = found.groups()
        if role is not None:
            return role_text(role)
        return literal or interpreted or emphasis or ""

    return _INLINE.sub(words, title).replace("\\", "")


def _scan_rst(text: str, labels: dict[str, str]) -> str | None:
    """Records the labels of ``text`` that name a section; returns its first title."""
    first = _TITLE.search(text)
    if "\n.. _" in text or text.startswith(".. _"):
        # Labels in a row name one section: the walk past them is made once for all.
        reached, title = -1, None
        for target in _RST_LABEL.finditer(text):
            if target.start() > reached:
                reached, title = _title_after(text, target.end())
            if title is not None:
                labels.setdefault(_label(target.group(1)), title)
    return _words(first.group(2).rstrip()) if first is not None else None


def _title_after(text: str, end: int) -> tuple[int, str | None]:
    """Where the walk from a label ending at ``end`` stopped, and the title of the section
    that starts there, if one does: past blank lines and more labels (several may name one
    section)."""
    while True:
        line_end = text.find("\n", end + 1)
        line = text[end + 1 : line_end if line_end >= 0 else len(text)]
        if line.strip() == "" or _RST_LABEL.match(line):
            if line_end < 0:
                return len(text), None
            end = line_end
            continue
        if line[:1].isspace():
            return end, None  # an indented line: the target's URL, or a block: no section
        title = _TITLE.match(text, end + 1)
        return end, _words(title.group(2).rstrip()) if title is not None else None


def _closed(heading: str) -> str:
    """An ATX heading's text without its closing run of ``#`` (after a blank) or blanks."""
    text = heading.rstrip()
    bare = text.rstrip("#")
    return bare.rstrip() if bare != text and (not bare or bare[-1] in " \t") else text


def _scan_md(text: str, labels: dict[str, str]) -> str | None:
    """The MyST labels of ``text`` that name a heading; returns its first ``#`` heading."""
    first: str | None = None
    pending: list[str] = []
    fence: str | None = None
    slugs: dict[str, int] = {}
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened is not None and opened.group(1)[0] == fence[0]:
                if len(opened.group(1)) >= len(fence) and not line.strip().strip(fence[0]):
                    fence = None
            continue
        if opened is not None:
            fence = opened.group(1)
            pending.clear()
            continue
        label = _MYST_LABEL.match(line)
        if label is not None:
            pending.append(_label(label.group(1)))
            continue
        heading = _ATX.match(line)
        if heading is not None:
            title = _words(_closed(heading.group(2)))
            if first is None:
                first = title  # a document's title is its first heading, whatever its level
            for name in pending:
                labels.setdefault(name, title)
            pending.clear()
            # MyST's heading anchors: [](#the-slug) shows the heading too
            labels.setdefault(github_slug(title, slugs), title)
        elif line.strip():
            pending.clear()
    return first
