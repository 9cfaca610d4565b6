"""LlamaIndex: a search function as a ``FunctionTool``, a connector as a ``BaseRetriever``.

::

    from llama_index.core.agent.workflow import FunctionAgent
    from textsearch.integrations.llama_index import TextSearchRetriever, as_llama_index_tool

    agent = FunctionAgent(tools=[as_llama_index_tool(search_function)], llm=llm)
    nodes = TextSearchRetriever(search, top=3).retrieve("retry policy")

Needs ``pip install "textsearch-sdk[llama-index]"`` (``llama-index-core``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from textsearch.integrations._core import require

require("llama_index.core", extra="llama-index", package="llama-index-core")

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput

from textsearch._types import SearchOptions, TextSearchFilter, TextSearchResult
from textsearch.base import TextSearch
from textsearch.integrations import _core
from textsearch.plugins import SearchFunction

__all__ = ["TextSearchRetriever", "as_llama_index_tool"]


@dataclass
class _SearchToolMetadata(ToolMetadata):
    """Tool metadata whose parameters are the search function's own JSON schema."""

    parameters_schema: dict[str, Any] = field(default_factory=dict)

    def get_parameters_dict(self) -> dict[str, Any]:
        # LlamaIndex would otherwise rebuild the schema from fn_schema (titles, null
        # defaults); the model gets the same schema as with every other integration.
        return copy.deepcopy(self.parameters_schema)


class _SearchTool(FunctionTool):
    """A `SearchFunction` as a LlamaIndex tool."""

    def __init__(self, function: SearchFunction) -> None:
        self.search_function = function

        def run_sync(*args: Any, **kwargs: Any) -> str:
            return _core.call_sync(function, _arguments(args, kwargs)).text

        async def run(*args: Any, **kwargs: Any) -> str:
            return (await _core.call(function, _arguments(args, kwargs))).text

        super().__init__(
            fn=run_sync,
            async_fn=run,
            metadata=_SearchToolMetadata(
                name=function.name,
                description=function.description,
                fn_schema=function.arguments_model,
                parameters_schema=function.parameters_json_schema,
            ),
        )

    def _output(
        self, reply: _core.Reply, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> ToolOutput:
        # is_error is how LlamaIndex marks a failed call for the agent and the model; the
        # text says whether calling again with other arguments can help.
        return ToolOutput(
            content=reply.text,
            tool_name=self.search_function.name,
            raw_input={"args": args, "kwargs": kwargs},
            raw_output=reply.text,
            is_error=reply.failed,
        )

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """Run the search with the connector's blocking methods."""
        reply = _core.call_sync(self.search_function, _arguments(args, kwargs))
        return self._output(reply, args, kwargs)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        """Run the search with the connector's async methods."""
        reply = await _core.call(self.search_function, _arguments(args, kwargs))
        return self._output(reply, args, kwargs)


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    # LlamaIndex passes a lone argument positionally when a schema has one property (and
    # people call tool("query") by hand): that is the query.
    if len(args) == 1 and isinstance(args[0], str) and "query" not in kwargs:
        return {"query": args[0], **kwargs}
    if args:
        # Reported to the model as an argument it may not send, like any unknown one.
        return {**kwargs, "positional arguments": list(args)}
    return kwargs


as_llama_index_tool: _core.ToolAdapter[FunctionTool] = _core.tool_adapter(
    _SearchTool,
    name="as_llama_index_tool",
    module=__name__,
    returns=FunctionTool,
    doc="""A search as a LlamaIndex ``FunctionTool`` (``call``/``acall``, agents).

    The tool's name, description and parameter schema are the search function's. Every
    call returns a ``ToolOutput``: the results, or one short sentence with
    ``is_error=True`` when the model's arguments were wrong or not declared by the schema
    (the sentence asks for a corrected call) or the search failed. The preset filter and
    fixed values cannot be changed by the model.
    """,
)


def _node(result: TextSearchResult) -> NodeWithScore:
    # The backends rank but do not share one score scale, so no score is made up.
    node = TextNode(text=result.value or "", metadata={"name": result.name, "link": result.link})
    return NodeWithScore(node=node, score=None)


class TextSearchRetriever(BaseRetriever):
    """A connector as a LlamaIndex retriever: one ``TextNode`` per result, in rank order.

    The node text is the result's text; its metadata holds ``name`` (title) and ``link``,
    which LlamaIndex shows the model next to the text by default. Errors are raised
    (``textsearch.errors``), as from the connector itself.

    Args:
        search: The connector (any ``TextSearch``).
        top: How many nodes to return.
        filter: A filter applied to every retrieval (copied now).
        **kwargs: Passed to LlamaIndex's ``BaseRetriever`` (``callback_manager``,
            ``verbose``...).

    Raises:
        ConfigurationError: ``search`` is not a ``TextSearch``, ``top`` is below 1, or
            ``filter`` is not a ``TextSearchFilter``.
    """

    def __init__(
        self,
        search: TextSearch,
        *,
        top: int = SearchOptions.DEFAULT_TOP,
        filter: TextSearchFilter | None = None,
        **kwargs: Any,
    ) -> None:
        self.search = _core.check_text_search(search)
        self._options = _core.retrieval_options(top, filter)
        super().__init__(**kwargs)

    @property
    def top(self) -> int:
        """How many nodes each retrieval returns."""
        return self._options.top

    @property
    def filter(self) -> TextSearchFilter | None:
        """A copy of the filter applied to every retrieval."""
        preset = self._options.filter
        return preset.copy() if preset is not None else None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = self.search.get_text_search_results_sync(query_bundle.query_str, self._options)
        return [_node(r) for r in results]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = await self.search.get_text_search_results(query_bundle.query_str, self._options)
        return [_node(r) for r in results]
