"""Files to read: which ones under a folder, and each one read into passages.

Shared by every store: ``LocalTextSearch.index_path``, ``PostgresTextSearch.index_path`` and
``read_path`` (which feeds the vector stores) all walk and read files here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textsearch.documents._passages import DEFAULT_PASSAGE_CHARS, Passage
from textsearch.errors import ConfigurationError

if TYPE_CHECKING:
    # Loaded when a folder is read (compiling its patterns has a cost): searching never needs them.
    from textsearch.documents._references import Folder

__all__ = [
    "DEFAULT_EXTENSIONS",
    "FileWork",
    "IndexReport",
    "checked_formats",
    "files_to_index",
    "read_file",
    "references",
    "walk",
]

DEFAULT_EXTENSIONS = (
    ".md",
    ".markdown",
    ".mdx",
    ".qmd",
    ".rmd",
    ".txt",
    ".rst",
    ".html",
    ".htm",
    ".pdf",
    ".docx",
    ".pptx",
    ".xlsx",
    ".csv",
    ".tsv",
    ".ipynb",
)
_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
        "dist",
        "build",
    }
)
#: Sphinx's build output, left out of a project's scan (``_sources`` holds copies of the pages).
_BUILD_DIRS = frozenset({"_build", "_sources"})
log = logging.getLogger("textsearch.documents")


@dataclass
class IndexReport:
    """What `LocalTextSearch.index_path` did.

    Attributes:
        added: Files indexed for the first time.
        updated: Files re-read because their content changed.
        unchanged: Files skipped because they had not changed.
        removed: Documents removed because their file is gone.
        failed: ``(path, reason)`` for files that could not be read: damaged, encrypted,
            no text layer ("scanned? no OCR"), over a limit, or binary content under a text
            suffix (never indexed as text).
        skipped: ``(path, reason)`` for files not read because their reader is not
            installed; the reason names the extra (``pip install "textsearch-sdk[documents]"``).
    """

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def indexed(self) -> int:
        """Files (re)indexed by this run: ``added + updated``."""
        return self.added + self.updated


def files_to_index(
    path: str | os.PathLike[str], extensions: Iterable[str]
) -> tuple[Path, list[Path]]:
    """The resolved ``path`` and the files to index there: itself, or those `walk` finds.

    Raises:
        ConfigurationError: The path holds a NUL character or does not exist.
    """
    if "\x00" in os.fspath(path):
        raise ConfigurationError("cannot index a path that contains a NUL character")
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise ConfigurationError(f"cannot index {os.fspath(path)!r}: no such file or folder")
    wanted = tuple(e.lower() for e in extensions)
    return root, [root] if root.is_file() else sorted(walk(root, wanted))


def walk(root: Path, wanted: tuple[str, ...], skip: frozenset[str] = frozenset()) -> Iterator[Path]:
    """The files to index under ``root``: folders are not followed through links (no loops),
    and a linked file is read only if it resolves inside ``root`` (a link in a shared folder
    must not pull ``~/.ssh/id_rsa.md`` into an index, and then into a model's context).
    Folders named in ``skip`` are left out too."""
    inside = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [
            d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS and d not in skip
        ]
        for name in filenames:
            if not name.startswith(".") and name.lower().endswith(wanted):
                path = Path(dirpath) / name
                if path.is_symlink() and not _within(path, inside):
                    log.warning("not indexing %s: it links to a file outside %s", path, root)
                    continue
                yield path


def _within(path: Path, root: Path) -> bool:
    try:
        path.resolve(strict=True).relative_to(root)
    except (OSError, RuntimeError, ValueError):  # dangling, a loop, or outside
        return False
    return True


def read_file(
    file: Path,
    previous: tuple[int | None, int | None, str | None] | None,
    report: IndexReport,
    formats: Mapping[str, str] | None = None,
    *,
    limit: int = DEFAULT_PASSAGE_CHARS,
    root: Path | None = None,
    doc_set: Folder | None = None,
) -> FileWork | None:
    """Read one file into passages, or ``None`` (unchanged, or failed: then in ``report``).

    Bare cross-references resolve in ``doc_set``, the folder the file is read with (see
    `references`).

    Only a regular file is read: a FIFO, socket or device is never opened (opening a FIFO
    waits for a writer, and the index lock would be held meanwhile). The file is opened
    without following a link and checked once open (``fstat``), so a file swapped for a
    link after the folder was listed is refused, not read: a link is read only when
    ``root`` is given and the opened file's real path is inside it.
    """
    try:
        opened = _open_regular(file, root)
        if opened is None:
            report.failed.append((str(file), "not a regular file (a FIFO, socket or device)"))
            return None
        fd, stat = opened
        try:
            if previous is not None and (previous[0], previous[1]) == (
                stat.st_mtime_ns,
                stat.st_size,
            ):
                report.unchanged += 1
                return None
            from textsearch.documents._formats import max_bytes

            cap = max_bytes(file.suffix, formats)
            if stat.st_size > cap:
                raise OSError(f"over a limit: larger than {cap} bytes")
            data = _read_bounded(fd, cap)
        finally:
            os.close(fd)
    except OSError as exc:
        report.failed.append((str(file), exc.strerror or str(exc)))
        return None
    import hashlib  # an import searching never needs

    digest = hashlib.sha256(data).hexdigest()
    if previous is not None and previous[2] == digest:
        return FileWork(stat.st_mtime_ns, stat.st_size, digest, None, [])
    from textsearch.documents._formats import NotRead, split_file  # index time only
    from textsearch.documents._references import reading

    try:
        with reading(doc_set, file):
            title, passages = split_file(data, file.suffix, limit=limit, formats=formats)
    except NotRead as exc:
        (report.skipped if exc.missing else report.failed).append((str(file), exc.reason))
        return None
    if any(_too_long(p.heading) or _too_long(p.anchor) for p in passages):
        passages = [_named_passage(p) for p in passages]
    title = _bounded(title) if _too_long(title) else title
    return FileWork(stat.st_mtime_ns, stat.st_size, digest, title or file.stem, passages)


#: Characters kept of a document's title, a passage's heading and its anchor: a file may
#: name itself with a megabyte of text (a notebook's metadata title, a heading line), which
#: every result and tool answer naming it would carry to the model.
MAX_NAME_CHARS = 300


def _too_long(text: str | None) -> bool:
    return text is not None and len(text) > MAX_NAME_CHARS


def _bounded(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_NAME_CHARS:
        return text
    return text[: MAX_NAME_CHARS - 1].rstrip() + "…"


def _named_passage(passage: Passage) -> Passage:
    anchor = passage.anchor
    if anchor is not None and len(anchor) > MAX_NAME_CHARS:
        anchor = anchor[:MAX_NAME_CHARS]
    return Passage(_bounded(passage.heading), anchor, passage.line, passage.text)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check never blocks


def _open_regular(file: Path, root: Path | None) -> tuple[int, os.stat_result] | None:
    """A descriptor of ``file`` opened for reading and its ``fstat``, ``None`` when it is
    not a regular file; ``OSError`` when it is a link that may not be followed."""
    import stat as stat_module

    target = file
    if stat_module.S_ISLNK(os.lstat(file).st_mode):
        if root is None:
            raise OSError(f"{file} is a link")
        target = Path(os.path.realpath(file))
        if not _within(target, root.resolve()):
            raise OSError(f"{file} links to a file outside {root}")
    mode = os.lstat(target).st_mode
    if not stat_module.S_ISREG(mode):
        return None
    flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(target, flags)
    try:
        stat = os.fstat(fd)
        if not stat_module.S_ISREG(stat.st_mode):
            os.close(fd)
            return None
        if root is not None:  # an intermediate folder swapped for a link, too
            real = _real_path_of(fd)
            if real is not None and not _within(real, root.resolve()):
                raise OSError(f"{file} links to a file outside {root}")
    except BaseException:
        os.close(fd)
        raise
    return fd, stat


def _real_path_of(fd: int) -> Path | None:
    """Where an open descriptor's file is, where the system says (Linux: ``/proc``)."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return None


def references(root: Path, files: Sequence[Path]) -> Folder:
    """What reading ``files`` (under ``root``) shares (see `Folder`): a source is opened
    as `read_file` opens a file, when a bare reference first needs the folder's labels;
    one that cannot be read is left out there and reported when it is read."""
    from textsearch.documents import _references as refs

    listed = tuple(files)
    base = root.parent if root.is_file() else root
    # A folder inside a Sphinx project (docs/howto/ under docs/conf.py) resolves in the
    # whole project, as its pages do: the project's other sources are scanned too.
    project = refs.project_above(base)

    def sources() -> Iterator[tuple[Path, bytes]]:
        for file in listed:
            if refs.scanned(file) and (data := open_bounded(file, refs.MAX_SCAN_BYTES)):
                yield file, data
        if project is not None:
            yield from _project_sources(project, base)

    return refs.Folder(
        project or base, sources, lambda conf: open_bounded(conf, refs.MAX_CONF_BYTES)
    )


def _project_sources(project: Path, inside: Path) -> Iterator[tuple[Path, bytes]]:
    """The sources of ``project`` outside the folder ``inside`` (its own were listed), as
    `walk` finds them, without build output; at most `MAX_PROJECT_FILES` files and
    `MAX_PROJECT_BYTES` bytes."""
    from textsearch.documents import _references as refs

    count = size = 0
    for file in walk(project, (*refs.RST_SUFFIXES, *refs.MARKDOWN_SUFFIXES), skip=_BUILD_DIRS):
        if file.is_relative_to(inside):
            continue
        if count >= refs.MAX_PROJECT_FILES or size >= refs.MAX_PROJECT_BYTES:
            log.info("scanned %d sources of %s for references; left out the rest", count, project)
            return
        data = open_bounded(file, refs.MAX_SCAN_BYTES)
        if data:
            count += 1
            size += len(data)
            yield file, data


def open_bounded(file: Path, cap: int) -> bytes | None:
    """The bytes of ``file`` when it is a regular file of at most ``cap`` bytes and not a
    link (a link is left to `read_file`, which checks where it leads); ``None`` for
    anything else or any failure. Never waits on a FIFO."""
    import stat as stat_module

    try:
        fd = os.open(file, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError:
        return None
    try:
        stat = os.fstat(fd)
        if not stat_module.S_ISREG(stat.st_mode) or stat.st_size > cap:
            return None
        return _read_bounded(fd, cap)
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_bounded(fd: int, cap: int) -> bytes:
    """At most ``cap`` bytes of an open file; ``OSError`` when it holds more (it grew)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > cap:
            raise OSError(f"larger than {cap} bytes")
        chunks.append(chunk)


@dataclass(slots=True)
class FileWork:
    mtime_ns: int
    size: int
    sha256: str
    title: str | None  # None: same content as indexed, only the bookkeeping changes
    passages: list[Passage]


def checked_formats(formats: Mapping[str, str] | None) -> dict[str, str]:
    """``formats`` checked: suffix (lower case) to a format name, or a ``ConfigurationError``."""
    from textsearch.documents._formats import BINARY_FORMATS, TABULAR_FORMATS
    from textsearch.documents._split import FORMATS as TEXT_FORMATS

    known = (*TEXT_FORMATS, *BINARY_FORMATS, *TABULAR_FORMATS)
    checked: dict[str, str] = {}
    for suffix, kind in (formats or {}).items():
        if not isinstance(suffix, str) or not suffix.startswith(".") or kind not in known:
            raise ConfigurationError(
                f"formats: {suffix!r}: {kind!r} is not a suffix and a format "
                f"(a suffix such as '.txt', a format among {', '.join(known)})"
            )
        checked[suffix.lower()] = kind
    return checked
