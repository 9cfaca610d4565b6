"""The documents behind a plugin's searches, read only as far as its preset filters allow.

Shared by the MCP server's resources and the read tools (`read_document`): a document is
readable only if at least one function over its search could return it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

if TYPE_CHECKING:
    from textsearch._types import TextSearchFilter

__all__ = [
    "DOCUMENT_URI_PREFIX",
    "Document",
    "GuardedStore",
    "accepts_filter",
    "document_uri",
    "read_document",
    "resource_keys",
]

#: Resource URIs of documents: this prefix and the percent-encoded id (or link).
DOCUMENT_URI_PREFIX = "textsearch://documents/"


class Document(Protocol):
    """What a stored document or section offers to readers."""

    id: str
    title: str | None
    text: str
    link: str | None


def document_uri(key: str) -> str:
    """The resource URI of a document, by its id or link, or of a section, by its link."""
    return DOCUMENT_URI_PREFIX + quote(key, safe="")


class GuardedStore:
    """Lists and reads the documents of one search, never past the preset filters of its tools.

    A document is readable (and listed) only if at least one function over this search could
    return it: a function without a preset filter admits every document; otherwise the
    document must satisfy that function's preset filter. A store that cannot apply a filter
    is never consulted while one applies (closed, not open, when in doubt).
    """

    def __init__(self, search: Any, filters: list[TextSearchFilter | None]) -> None:
        self._search = search
        self._filters = filters
        self.lists = callable(getattr(search, "list_documents", None))
        self.sections = callable(getattr(search, "get_section", None))

    def _each(self, method: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        call = getattr(self._search, method)
        for preset in self._filters:
            yield call(*args, **kwargs) if preset is None else call(*args, filter=preset, **kwargs)

    def document(self, key: str) -> Document | None:
        """The whole document whose id or link is ``key`` (or a passage link's document)."""
        for document in self._each("get_document", key):
            if document is not None:
                return cast("Document", document)
        return None

    def section(self, link: str) -> Document | None:
        """The section a passage link points at, if this search keeps sections."""
        if not self.sections:
            return None
        for section in self._each("get_section", link):
            if section is not None:
                return cast("Document", section)
        return None

    def read(self, key: str) -> Document | None:
        """A document by its own id or link: whole; by a passage link: that section.

        A file loaded section by section (`read_path` records carry `path` and
        `section_index` metadata) is whole when read by its path: every readable section of
        that path, in order.
        """
        document = self.document(key)
        if "#" not in key:
            if document is None or _section_index(document) is not None:
                whole = self._whole_file(key, document)
                if whole is not None:
                    return whole
            return document
        if document is not None and (key in (document.id, document.link) or not self.sections):
            return document
        # A passage link (``get_document`` may have found the document it belongs to): the
        # section, and nothing for a link whose section is gone.
        return self.section(key)

    def _whole_file(self, key: str, top: Document | None) -> Document | None:
        """Every readable section of the file ``key`` names (``top``: its first one), joined."""
        if not self.lists:
            return None
        from textsearch._types import TextSearchFilter
        from textsearch.errors import TextSearchError

        metadata = getattr(top, "metadata", None)
        path = metadata.get("path") if isinstance(metadata, dict) else key
        if not isinstance(path, str) or not path:
            return None
        ids: set[str] = set()
        try:
            for preset in self._filters:
                wanted = TextSearchFilter(preset.clauses if preset else ()).equal_to("path", path)
                after: str | None = None
                while len(ids) < _MAX_SECTIONS:
                    listed = self._search.list_documents(filter=wanted, after=after, limit=1000)
                    ids.update(d.id for d in listed if _section_index(d) is not None)
                    if len(listed) < 1000:
                        break
                    after = listed[-1].id
            sections = [s for s in map(self.document, sorted(ids)[:_MAX_SECTIONS]) if s]
        except TextSearchError:  # a store that cannot filter on "path": no file to gather
            return None
        sections = [s for s in sections if _section_index(s) is not None]
        if not sections:
            return None
        sections.sort(key=lambda s: (_section_index(s) or 0, s.id))
        first = sections[0]
        return _WholeFile(
            id=path,
            title=first.title,
            text="\n\n".join(s.text for s in sections if s.text),
            link=(first.link or "").split("#", 1)[0] or None,
        )

    def page(self, after: str | None, limit: int) -> list[Document]:
        """Up to ``limit`` readable documents with ids after ``after``, in id order."""
        found: dict[str, Document] = {}
        for documents in self._each("list_documents", after=after, limit=limit):
            for document in documents:
                found.setdefault(document.id, document)
        return [found[key] for key in sorted(found)[:limit]]


_MAX_SECTIONS = 20_000  # sections gathered into one file read whole


@dataclass
class _WholeFile:
    """A file stored section by section, read back whole."""

    id: str
    title: str | None
    text: str
    link: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


def _section_index(document: object) -> int | None:
    """A `read_path` section's place in its file (``None`` for any other document)."""
    metadata = getattr(document, "metadata", None)
    value = metadata.get("section_index") if isinstance(metadata, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def accepts_filter(method: Callable[..., Any]) -> bool:
    """Whether a store method takes ``filter=`` (a preset can then be applied to it)."""
    import inspect

    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "filter" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def resource_keys(uri: str) -> tuple[list[str], int, int | None]:
    """Candidate ids/links named by a resource URI, and the character range asked for.

    Raises:
        ValueError: A malformed range.
    """
    start, end = 0, None
    if uri.startswith(DOCUMENT_URI_PREFIX):
        parts = urlsplit(uri)
        key = unquote(uri[len(DOCUMENT_URI_PREFIX) :].split("?", 1)[0])
        query = parse_qs(parts.query)
        try:
            if "start" in query:
                start = int(query["start"][0])
            if "end" in query:
                end = int(query["end"][0])
        except ValueError:
            raise ValueError("start and end must be whole numbers of characters") from None
        if start < 0 or (end is not None and end < start):
            raise ValueError("the range must satisfy 0 <= start <= end")
        return [key], start, end
    keys = [uri]
    if uri.startswith("file://"):
        from urllib.request import url2pathname

        parts = urlsplit(uri)
        path = url2pathname(parts.path)
        keys.append(f"{path}#{unquote(parts.fragment)}" if parts.fragment else path)
    return keys, start, end


def read_document(stores: Sequence[GuardedStore], uri: str) -> tuple[Document, int, int | None]:
    """The first readable document a URI names, and the character range asked for.

    Raises:
        LookupError: No store has it (or a preset filter hides it).
        ValueError: A malformed range.
    """
    keys, start, end = resource_keys(uri)
    for store in stores:
        for key in keys:
            document = store.read(key)
            if document is not None:
                return document, start, end
    raise LookupError(uri)
