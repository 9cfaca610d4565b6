"""The documents behind a plugin's searches, read only as far as its preset filters allow.

Shared by the MCP server's resources and the read tools (`read_document`): a document is
readable only if at least one function over its search could return it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
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
        """A document by its own id or link: whole; by a passage link: that section."""
        document = self.document(key)
        if "#" not in key:
            return document
        if document is not None and (key in (document.id, document.link) or not self.sections):
            return document
        # A passage link (``get_document`` may have found the document it belongs to): the
        # section, and nothing for a link whose section is gone.
        return self.section(key)

    def page(self, after: str | None, limit: int) -> list[Document]:
        """Up to ``limit`` readable documents with ids after ``after``, in id order."""
        found: dict[str, Document] = {}
        for documents in self._each("list_documents", after=after, limit=limit):
            for document in documents:
                found.setdefault(document.id, document)
        return [found[key] for key in sorted(found)[:limit]]


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
