"""LangChain: a search function as a ``BaseTool``, a connector as a ``BaseRetriever``.

::

    from textsearch.integrations.langchain import TextSearchRetriever, as_langchain_tool

    tool = as_langchain_tool(search_function)          # bind_tools([tool]), create_agent(...)
    retriever = TextSearchRetriever(search, top=3)     # Documents with name/link in metadata

Needs ``pip install "textsearch-sdk[langchain]"`` (``langchain-core``).
"""

from __future__ import annotations

from typing import Any

from textsearch.integrations._core import require

require("langchain_core", extra="langchain", package="langchain-core")

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict, PrivateAttr

from textsearch._types import SearchOptions, TextSearchFilter, TextSearchResult
from textsearch.base import TextSearch
from textsearch.integrations._core import (
    Reply,
    ToolAdapter,
    call,
    call_sync,
    check_text_search,
    retrieval_options,
    tool_adapter,
)
from textsearch.plugins import SearchFunction

__all__ = ["TextSearchRetriever", "as_langchain_tool"]


class _SearchTool(BaseTool):
    """A `SearchFunction` as a LangChain tool."""

    # A ToolException becomes a ToolMessage with status="error" that the model reads and
    # corrects, instead of an exception that ends the agent run.
    handle_tool_error: bool = True

    _function: SearchFunction = PrivateAttr()

    def __init__(self, function: SearchFunction, **kwargs: Any) -> None:
        super().__init__(
            name=function.name,
            description=function.description,
            # A JSON schema (not a pydantic model) reaches _run unchanged, so the function's own
            # validation sees exactly what the model sent, unknown arguments included.
            args_schema=function.parameters_json_schema,
            **kwargs,
        )
        self._function = function

    @property
    def search_function(self) -> SearchFunction:
        """The search function this tool runs."""
        return self._function

    def _run(self, **kwargs: Any) -> str:
        return _answer(call_sync(self._function, kwargs))

    async def _arun(self, **kwargs: Any) -> str:
        return _answer(await call(self._function, kwargs))


def _answer(reply: Reply) -> str:
    if reply.model_error:
        raise ToolException(reply.text)
    return reply.text


as_langchain_tool: ToolAdapter[BaseTool] = tool_adapter(
    _SearchTool,
    name="as_langchain_tool",
    module=__name__,
    returns=BaseTool,
    doc="""A search as a LangChain tool (``invoke``/``ainvoke``, ``bind_tools``, agents).

    The tool's name, description and argument schema are the search function's. Arguments
    the model got wrong, or that the schema does not declare, raise a ``ToolException``
    inside the tool, which LangChain hands back to the model as a ``ToolMessage`` with
    ``status="error"`` so that it can call again; a failed search answers with one short
    sentence. The preset filter and fixed values cannot be changed by the model.
    """,
)


def _document(result: TextSearchResult) -> Document:
    return Document(
        page_content=result.value or "",
        # "source" is the key LangChain's loaders and citation prompts use for the origin.
        metadata={"name": result.name, "link": result.link, "source": result.link},
    )


class TextSearchRetriever(BaseRetriever):
    """A connector as a LangChain retriever: one ``Document`` per result.

    ``page_content`` is the result's text; ``metadata`` holds ``name`` (title), ``link``
    and ``source`` (the link again, under the key LangChain's citation prompts use). Errors
    are raised (``textsearch.errors``), as from the connector itself.

    Args:
        search: The connector (any ``TextSearch``).
        top: How many documents to return.
        filter: A filter applied to every retrieval (copied now).

    Raises:
        ConfigurationError: ``search`` is not a ``TextSearch``, ``top`` is below 1, or
            ``filter`` is not a ``TextSearchFilter``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    search: TextSearch
    top: int = SearchOptions.DEFAULT_TOP
    filter: TextSearchFilter | None = None

    def __init__(self, search: TextSearch, **kwargs: Any) -> None:
        check_text_search(search)
        options = retrieval_options(
            kwargs.pop("top", SearchOptions.DEFAULT_TOP), kwargs.pop("filter", None)
        )
        super().__init__(search=search, top=options.top, filter=options.filter, **kwargs)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        options = retrieval_options(self.top, self.filter)
        results = self.search.get_text_search_results_sync(query, options)
        return [_document(r) for r in results]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        options = retrieval_options(self.top, self.filter)
        results = await self.search.get_text_search_results(query, options)
        return [_document(r) for r in results]
