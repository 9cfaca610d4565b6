"""What the results of the wrappers share: a native result, its normalized form, read through."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    computed_field,
    field_serializer,
)
from pydantic_core import PydanticSerializationError

from textsearch._types import TextSearchResult

__all__ = ["WrappedResult"]


class WrappedResult(BaseModel):
    """A result a wrapper hands back: the native one, its normalized form, and more.

    ``name``, ``value`` and ``link`` read through to `text_search_result`, so the result
    formats and cites like any other. Subclasses add what their wrapper knows (scores,
    ranks, sources).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    result: Any
    text_search_result: TextSearchResult

    @field_serializer("result", mode="wrap")
    def _dump_result(self, value: Any, handler: SerializerFunctionWrapHandler) -> Any:
        # A third-party native result may be a type pydantic cannot serialize: dumping (for
        # a tool's JSON, say) must not fail because of it.
        try:
            return handler(value)
        except PydanticSerializationError:
            return str(value)

    if TYPE_CHECKING:
        # What type checkers see: mypy does not follow a decorator over a property, and
        # pydantic reads only the branch below, where the computed fields are made.
        @property
        def name(self) -> str | None:
            """The title."""

        @property
        def value(self) -> str | None:
            """The text."""

        @property
        def link(self) -> str | None:
            """The link."""

    else:

        @computed_field
        @property
        def name(self) -> str | None:
            """The title."""
            return self.text_search_result.name

        @computed_field
        @property
        def value(self) -> str | None:
            """The text."""
            return self.text_search_result.value

        @computed_field
        @property
        def link(self) -> str | None:
            """The link."""
            return self.text_search_result.link
