"""``list_documents`` once for every store that keeps documents (local, PostgreSQL, vectors)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Generic, TypeVar

from textsearch._types import TextSearchFilter
from textsearch.errors import InvalidRequestError

__all__ = ["DocumentListing"]

DocT = TypeVar("DocT")

#: The most documents one page may hold.
MAX_LIMIT = 1000


class DocumentListing(Generic[DocT]):
    """The public `list_documents`: its arguments checked here, its page read by the store's
    `_page_of_documents` (the `DocumentLister` protocol of `textsearch.base`)."""

    def list_documents(
        self,
        *,
        filter: TextSearchFilter | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> list[DocT]:
        """The stored documents in order of id, a page at a time, without their text.

        Blocking, like `get_document`. Pages are keyed, not counted: pass the last id of a
        page as ``after`` to get the next one, so documents added or removed meanwhile never
        shift a page. Ids are compared in code-point order (PostgreSQL: byte by byte,
        ``COLLATE "C"``, the same order).

        Args:
            filter: Only documents this filter admits (the same clauses as a search's).
            after: Only ids after this one (``None``: from the first).
            limit: Most documents returned, 1 to 1,000.

        Returns:
            Documents with ``id``, ``title``, ``link`` (without a passage fragment) and
            ``metadata``; ``text`` is empty (read a document with `get_document`).

        Raises:
            InvalidRequestError: ``limit`` is out of range.
            UnsupportedFilterError: The filter names a field the store cannot filter on.
            ConfigurationError: The local index was closed.
            NotFoundError: The table or collection does not exist.
            SearchTransportError: The server could not be reached.
            SearchTimeoutError: A vector store did not answer within ``timeout``.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequestError("limit must be a whole number from 1 to 1000")
        return self._page_of_documents(filter, after, limit)

    @abstractmethod
    def _page_of_documents(
        self, filter: TextSearchFilter | None, after: str | None, limit: int
    ) -> list[DocT]:
        """One page of `list_documents`, its ``limit`` already checked."""
