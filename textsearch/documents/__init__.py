"""The one reading pipeline: files read into sections and passages for every store.

`LocalTextSearch.index_path`, `PostgresTextSearch.index_path` and the vector stores (through
`read_path`) read files here, so a section gets the same text and the same link whichever store
keeps it:

```python
from textsearch import ChromaTextSearch
from textsearch.documents import read_path

store = ChromaTextSearch(collection="docs", embedder=...)
store.add_documents_sync(read_path("docs"))
```

Nothing here is imported by `import textsearch`; the parsers load when a file is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from textsearch.documents._files import (
    DEFAULT_EXTENSIONS,
    IndexReport,
    checked_formats,
    read_file,
    references,
    walk,
)
from textsearch.documents._formats import (
    PASSAGE_LINES,
    SECTION_LINES,
    fragment_metadata,
    is_place,
    stored_place,
)
from textsearch.documents._links import passage_link
from textsearch.documents._passages import DEFAULT_PASSAGE_CHARS, Passage
from textsearch.errors import ConfigurationError

__all__ = ["DEFAULT_EXTENSIONS", "DEFAULT_PASSAGE_CHARS", "IndexReport", "read_path"]


def read_path(
    path: str | os.PathLike[str],
    *,
    extensions: Sequence[str] | None = None,
    formats: Mapping[str, str] | None = None,
    passage_chars: int = DEFAULT_PASSAGE_CHARS,
    report: IndexReport | None = None,
) -> Iterator[dict[str, Any]]:
    """Read a file or a folder into documents in `add_documents`' shape, one per section.

    Each document is a dict with `id` (`"<path relative to the root>#<anchor>"`, or the
    relative path alone for the top of a file), `title` (the file's title), `text` (the
    section's text, its passages joined by a blank line), `link` (the same link
    `LocalTextSearch.index_path` gives that section: the file's path plus `#anchor`, or
    `#L<line>` where a file has no headings; `#page=N`, `#slide=N`, `#sheet=<name>`,
    `#row=N` in PDF, PPTX, XLSX and CSV files) and `metadata` (`path`, relative to the root,
    `section`, the heading, where there is one, `section_index`, the section's place in its
    file counted from 0, and `page`, `slide`, `sheet` or `row` where the format has them). A
    page (slide, sheet) is one document whichever headings it holds; when it holds more than
    one, `sections` lists them in order and `section_lines` the line of `text` each starts on
    (in digits), and every store splits the page there and names each passage by its own
    heading, as `index_path` does.
    With `section_index`, a store that keeps these documents can give a file back whole, its
    sections in order (the MCP server does so for the file's own URI, the relative path).

    A bare cross-reference of reStructuredText or MyST (a ``ref`` or ``doc`` role with no
    title of its own) reads as the title of the section or document it links to, wherever
    in ``path`` that is.

    Folders are walked as `index_path` walks them (hidden and tool folders skipped, links
    leading outside the root never followed). A file that cannot be read is left out and,
    when `report` is given, listed in `report.failed` with the reason (`report.skipped`
    when its reader is not installed).

    Args:
        path: File or folder to read.
        extensions: File name endings to read (case-insensitive); by default every format
            `index_path` reads.
        formats: How to read files by suffix, forcing a reading, as for `index_path`.
        passage_chars: Size bound of one passage, in characters (100 to 100,000).
        report: An `IndexReport` to fill with the files read and those that failed.

    Raises:
        ConfigurationError: The path does not exist, or an argument is not valid.
    """
    if "\x00" in os.fspath(path):
        raise ConfigurationError("cannot read a path that contains a NUL character")
    if isinstance(passage_chars, bool) or not isinstance(passage_chars, int):
        raise ConfigurationError("passage_chars must be an integer from 100 to 100000")
    if not 100 <= passage_chars <= 100_000:
        raise ConfigurationError("passage_chars must be an integer from 100 to 100000")
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise ConfigurationError(f"cannot read {os.fspath(path)!r}: no such file or folder")
    wanted = tuple(e.lower() for e in (DEFAULT_EXTENSIONS if extensions is None else extensions))
    forced = checked_formats(formats)
    return _documents(root, wanted, forced, passage_chars, report or IndexReport())


def _documents(
    root: Path,
    wanted: tuple[str, ...],
    formats: dict[str, str],
    passage_chars: int,
    report: IndexReport,
) -> Iterator[dict[str, Any]]:
    files = [root] if root.is_file() else sorted(walk(root, wanted))
    top = root.parent if root.is_file() else root
    doc_set = references(root, files)
    for file in files:
        work = read_file(
            file, None, report, formats, limit=passage_chars, root=root, doc_set=doc_set
        )
        if work is None or work.title is None:
            continue
        report.added += 1
        relative = file.relative_to(top).as_posix()
        yield from _distinct(_sections(str(file), relative, work.title, work.passages))


def _distinct(documents: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The documents of one file, each with an id of its own: a store keeps one document per
    id. Sections whose headings have no anchor (HTML headings without an ``id``) would all be
    the file's own id; a repeat is told apart by its place, ``#section-<section_index>``
    (its link stays the one `index_path` gives it)."""
    seen: set[str] = set()
    for document in documents:
        if document["id"] in seen:
            document["id"] = f"{document['id']}#section-{document['metadata']['section_index']}"
        seen.add(document["id"])
        yield document


def _sections(
    link: str, relative: str, title: str, passages: list[Passage]
) -> Iterator[dict[str, Any]]:
    """One document per section: consecutive passages with one place (an anchor, else the
    section and line: a long code block cut in two starts both on its line) are joined.

    A page, slide or sheet is one document whichever headings it holds (named by the first):
    its link names it, so two sections starting on one PDF page would share an id and a store
    would keep only the last. Its metadata then says where each heading's passages start
    (`section_passages`), so that a store names each passage by its own heading.
    """
    group: list[Passage] = []
    sections: list[str | None] = []  # the heading of each passage of the group, as stored
    key: tuple[str | None, str | None, int | None] | None = None
    joined: tuple[str | int | None, ...] | None = None  # what the passages of one document share
    index = 0
    for number, passage in enumerate(passages):
        section, anchor, line = stored_place(passage, number, title)  # as every store keeps it
        this = (section, anchor, None if anchor else line)
        shared: tuple[str | int | None, ...] = (anchor,) if is_place(anchor) else this
        if group and key is not None and shared != joined:
            yield _document(link, relative, title, key, group, index, sections)
            group, sections, index = [], [], index + 1
        if not group:
            key = this
        joined = shared
        group.append(passage)
        sections.append(section)
    if group and key is not None:
        yield _document(link, relative, title, key, group, index, sections)


def _document(
    link: str,
    relative: str,
    title: str,
    key: tuple[str | None, str | None, int | None],
    group: list[Passage],
    index: int,
    sections: list[str | None],
) -> dict[str, Any]:
    section, anchor, line = key
    fragment = anchor or (f"L{line}" if line and line > 1 else None)
    metadata: dict[str, Any] = {"path": relative}
    if section:
        metadata["section"] = section
    texts: list[str] = []
    starts: list[tuple[int, str]] = []  # (line of the text, heading) where a heading's run starts
    kept: list[str] = []  # the line of the text where each passage starts
    at_line, previous = 1, None
    for passage, name in zip(group, sections, strict=True):
        if name != previous and name:
            starts.append((at_line, name))
        previous = name
        if passage.text:
            texts.append(passage.text)
            kept.append(str(at_line))
            at_line += passage.text.count("\n") + 2  # the blank line that joins passages
    if len(starts) > 1 or (starts and starts[0][0] > 1):
        # a page holding several headings (or one below text that has none): all of them,
        # in order, and the line of the text where each starts
        metadata["sections"] = [name for _, name in starts]
        metadata[SECTION_LINES] = [str(start) for start, _ in starts]
    metadata["section_index"] = index
    # The reader's own passages: a store keeps them as they are, not split again as Markdown
    # (which would take a code line "# set up" for a heading and drop it from the text).
    metadata[PASSAGE_LINES] = kept or ["1"]
    metadata.update(fragment_metadata(anchor))
    return {
        "id": f"{relative}#{fragment}" if fragment else relative,
        "title": title,
        "text": "\n\n".join(texts),
        "link": passage_link(link, anchor, line),
        "metadata": metadata,
    }
