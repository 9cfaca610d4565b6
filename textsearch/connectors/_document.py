"""The fields every document store's records share (local index, PostgreSQL, vector stores)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["StoredDocument"]


class StoredDocument(BaseModel):
    """A stored document or passage: the base of the stores' native models.

    Each store's model documents these fields as that store fills them, and adds its own
    (a section, a line, a score...). A subclass may narrow a field (``LocalDocument``'s
    ``id`` must not be empty, its metadata values are typed); the fields keep this order.

    Attributes:
        id: The document's id.
        title: The document's title.
        text: The document's or the passage's text.
        link: Where it comes from (a file path or URL; a passage's points at the passage).
        metadata: Filterable fields.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    title: str | None = None
    text: str = ""
    link: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
