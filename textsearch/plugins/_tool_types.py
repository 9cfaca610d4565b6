"""Typed tool definitions, shaped like the parameter types of the OpenAI and Anthropic SDKs.

Each TypedDict mirrors the SDK's own param type key by key (every key, the same value types,
the same required/optional split), because a type checker compares TypedDicts structurally,
wants every key of the target, and compares the items invariantly:
``plugin.to_openai_tools()`` can then be passed straight to
``client.chat.completions.create(tools=...)`` (and the others to theirs) under
``mypy --strict``, with no SDK imported here. ``tests/typing/check_tool_types.py`` checks it
against the installed SDKs (``openai`` 3.54, ``anthropic`` 2.12); a key an SDK adds later
must be added here too.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import (
    Any,
    Literal,
    Optional,
    Protocol,
    SupportsIndex,
    TypeAlias,
    TypeVar,
    Union,
    overload,
)

from typing_extensions import Required, TypedDict

__all__ = [
    "AnthropicCitationsConfig",
    "AnthropicInputSchema",
    "AnthropicSearchResultBlock",
    "AnthropicTextBlock",
    "AnthropicTool",
    "AnthropicToolResult",
    "AnthropicToolResultContent",
    "OpenAIChatTool",
    "OpenAIFunctionDefinition",
    "OpenAIResponsesTool",
]

_T_co = TypeVar("_T_co", covariant=True)


class _SequenceNotStr(Protocol[_T_co]):
    # Same members as the Anthropic SDK's SequenceNotStr, so the two are equivalent types.
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> _T_co: ...
    @overload
    def __getitem__(self, index: slice, /) -> Sequence[_T_co]: ...
    def __contains__(self, value: object, /) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[_T_co]: ...
    def __reversed__(self) -> Iterator[_T_co]: ...


class OpenAIFunctionDefinition(TypedDict, total=False):
    """The ``function`` of a Chat Completions tool (``openai`` ``FunctionDefinition``)."""

    name: Required[str]
    description: str
    parameters: dict[str, object]
    strict: Optional[bool]  # noqa: UP045 - spelled as the SDK spells it


class OpenAIChatTool(TypedDict):
    """A Chat Completions tool (``openai`` ``ChatCompletionFunctionToolParam``)."""

    type: Literal["function"]
    function: OpenAIFunctionDefinition


# "async" is a keyword, so this part needs the functional syntax (as in the SDK).
_OpenAIResponsesToolKeywords = TypedDict(
    "_OpenAIResponsesToolKeywords", {"async": bool}, total=False
)


class OpenAIResponsesTool(_OpenAIResponsesToolKeywords, total=False):
    """A Responses API tool (``openai`` ``responses.FunctionToolParam``)."""

    type: Required[Literal["function"]]
    name: Required[str]
    description: Optional[str]  # noqa: UP045
    parameters: Required[Optional[dict[str, object]]]  # noqa: UP045
    strict: Required[Optional[bool]]  # noqa: UP045
    allowed_callers: Optional[list[Literal["direct", "programmatic"]]]  # noqa: UP045
    defer_loading: bool
    output_schema: Optional[dict[str, object]]  # noqa: UP045


class _AnthropicInputSchemaTyped(TypedDict, total=False):
    type: Required[Literal["object"]]
    properties: Optional[dict[str, object]]  # noqa: UP045
    required: Optional[_SequenceNotStr[str]]  # noqa: UP045


AnthropicInputSchema: TypeAlias = Union[_AnthropicInputSchemaTyped, dict[str, object]]  # noqa: UP007
"""The ``input_schema`` of an Anthropic tool (``anthropic`` ``tool_param.InputSchema``)."""


class _AnthropicCacheControl(TypedDict, total=False):
    type: Required[Literal["ephemeral"]]
    ttl: Literal["5m", "1h"]


class AnthropicTool(TypedDict, total=False):
    """An Anthropic Messages API tool (``anthropic`` ``ToolParam``)."""

    name: Required[str]
    description: str
    input_schema: Required[AnthropicInputSchema]
    allowed_callers: list[
        Literal[
            "direct",
            "code_execution_20250825",
            "code_execution_20260120",
            "code_execution_20260521",
        ]
    ]
    cache_control: Optional[_AnthropicCacheControl]  # noqa: UP045
    defer_loading: bool
    eager_input_streaming: Optional[bool]  # noqa: UP045
    input_examples: Iterable[dict[str, object]]
    strict: bool
    type: Optional[Literal["custom"]]  # noqa: UP045


class AnthropicTextBlock(TypedDict):
    """A text content block (``anthropic`` ``TextBlockParam``, the keys used here)."""

    type: Literal["text"]
    text: str


class AnthropicCitationsConfig(TypedDict, total=False):
    """``citations`` of a search result block (``anthropic`` ``CitationsConfigParam``)."""

    enabled: bool


class AnthropicSearchResultBlock(TypedDict):
    """A ``search_result`` content block (the keys of ``anthropic`` ``SearchResultBlockParam``
    that are used here).

    Put in a ``tool_result``'s content, Claude cites it natively (``search_result_location``
    citations naming its ``source`` and ``title``).
    """

    type: Literal["search_result"]
    source: str
    title: str
    content: list[AnthropicTextBlock]
    citations: AnthropicCitationsConfig


AnthropicToolResultContent: TypeAlias = Union[AnthropicSearchResultBlock, AnthropicTextBlock]  # noqa: UP007
"""One block of what ``invoke_anthropic`` returns."""


class AnthropicToolResult(TypedDict):
    """A ``tool_result`` content block (the keys of ``anthropic`` ``ToolResultBlockParam``
    that are used here)."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: list[AnthropicToolResultContent]
    is_error: bool


class McpPlugin(Protocol):
    """What the MCP server needs of a plugin (`SearchPlugin` is one)."""

    @property
    def name(self) -> str:
        """The plugin's name (also its MCP server's)."""
        ...

    @property
    def description(self) -> str | None:
        """What the plugin offers (the MCP server's instructions)."""
        ...

    @property
    def functions(self) -> Sequence[Any]:
        """The plugin's functions, in order."""
        ...

    def to_mcp_tools(self) -> list[dict[str, Any]]:
        """The MCP tool definitions of its functions."""
        ...

    def __getitem__(self, name: str) -> Any:
        """The function named ``name``."""
        ...

    def __contains__(self, name: object) -> bool:
        """Whether a function is named ``name``."""
        ...

    async def _run(
        self, tool_name: str, arguments: Mapping[str, Any] | str | None, *, session: Hashable = None
    ) -> Any:
        """Run one tool call for the MCP session ``session``."""
        ...
