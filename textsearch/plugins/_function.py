"""``SearchFunction``: one connector method as a tool a model can call."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import BaseModel

from textsearch import _tracing
from textsearch._twins import Call, Plan, drive, drive_sync, perform, perform_sync
from textsearch._types import SearchResults, TextSearchFilter
from textsearch.base import TextSearch
from textsearch.errors import ConfigurationError, InvalidRequestError
from textsearch.plugins._loop_guard import (
    DEFAULT_MAX_REPEATS,
    RepeatGuard,
    check_max_repeats,
    repeat_message,
)
from textsearch.plugins._output import (
    Kind,
    error_message,
    invalid_arguments_message,
    output_schema,
    render,
)
from textsearch.plugins._parameters import (
    OutOfBounds,
    ParameterSpec,
    ParsedArguments,
    SearchParameter,
    default_parameters,
)
from textsearch.plugins._tool_types import (
    AnthropicTool,
    AnthropicToolResultContent,
    OpenAIChatTool,
    OpenAIFunctionDefinition,
    OpenAIResponsesTool,
)

__all__ = ["DEFAULT_MAX_TOP", "DEFAULT_TOP", "SearchFunction", "create_search_function"]

logger = logging.getLogger("textsearch.plugins")

#: Default ``top`` of a search function (what the model gets when it does not ask).
DEFAULT_TOP = 5
#: Default largest ``top`` a model may ask for.
DEFAULT_MAX_TOP = 10

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

_KINDS: tuple[str, ...] = get_args(Kind)
_DEFAULT_NAMES: dict[str, str] = {
    "search": "search",
    "text_search_results": "get_text_search_results",
    "search_results": "get_search_results",
}
_DEFAULT_DESCRIPTIONS: dict[str, str] = {
    "search": (
        "Search for information relevant to a query. Returns the most relevant passages "
        "as numbered text, each with its title and link. Cite results by their link."
    ),
    "text_search_results": (
        "Search for information relevant to a query. Returns JSON: for each result a "
        "citation number, a title (name), a text passage (value) and a link. Cite results "
        "by their link."
    ),
    "search_results": (
        "Search for information relevant to a query. Returns JSON: for each result a "
        "citation number, its link and every field the search service provides."
    ),
}


def check_tool_name(name: object, what: str = "function name") -> str:
    """Return ``name`` if it is a valid tool name, else raise ``ConfigurationError``."""
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise ConfigurationError(
            f"{what} {name!r} is not valid: use 1 to 64 letters, digits, '_' or '-'"
        )
    return name


@dataclass(frozen=True)
class Outcome:
    text: str
    is_error: bool
    structured: dict[str, Any] | None = None
    results: tuple[Any, ...] = ()


class SearchFunction:
    """A search exposed as a tool: schema for the model, invocation for the answer.

    Build one with `create_search_function`. Each call validates the model's
    arguments, builds fresh `SearchOptions` (the preset filter copied,
    then AND-ed with any filter the model set), runs the search and returns text for the
    model. Nothing of one call is kept for the next, except the loop guard's count of
    identical calls in a row (see ``max_repeats`` of `create_search_function`).

    Attributes:
        name: Tool name (``^[a-zA-Z0-9_-]{1,64}$``).
        description: What the model is told the tool does.
        kind: ``"search"``, ``"text_search_results"`` or ``"search_results"``.
        text_search: The connector searched.
        parameters: The model-facing parameters, completed with their defaults and bounds.
        top: The default ``top`` (the fixed one when ``top`` is not a parameter).
        max_top: The largest ``top`` the model may ask for.
        open_world: Whether the connector reaches the open web (``open_world`` attribute
            of the connector; ``False`` when it has none). Used for MCP tool annotations.
    """

    def __init__(
        self,
        text_search: TextSearch,
        *,
        kind: Kind,
        name: str,
        description: str,
        spec: ParameterSpec,
        preset_filter: TextSearchFilter | None,
        top: int,
        max_top: int,
        string_mapper: Callable[[Any], str] | None,
        max_repeats: int | None = DEFAULT_MAX_REPEATS,
    ) -> None:
        self.text_search = text_search
        self.kind: Kind = kind
        self.name = name
        self.description = description
        self.top = top
        self.max_top = max_top
        self._spec = spec
        self._preset = preset_filter.copy() if preset_filter is not None else None
        self._string_mapper = string_mapper
        self.open_world = bool(getattr(text_search, "open_world", False))
        self.max_repeats = check_max_repeats(max_repeats)
        self._guard = RepeatGuard(self.max_repeats) if self.max_repeats else None

    def __repr__(self) -> str:
        return (
            f"SearchFunction(name={self.name!r}, kind={self.kind!r}, "
            f"text_search={type(self.text_search).__name__})"
        )

    # -- description for the model ------------------------------------------------------

    @property
    def parameters(self) -> tuple[SearchParameter, ...]:
        """The model-facing parameters, completed with their defaults and bounds."""
        return self._spec.parameters

    @property
    def arguments_model(self) -> type[BaseModel]:
        """The pydantic model of the model-facing arguments (the source of both schemas).

        Validate with ``model_validate``; ``model_dump(by_alias=True)`` gives the arguments
        by their model-facing names. It checks types, bounds and choices; it holds no preset
        filter or fixed value, which `invoke` adds on every call.
        """
        return self._spec.model

    @property
    def filter(self) -> TextSearchFilter | None:
        """A copy of the preset filter applied to every call (``None`` for none)."""
        return self._preset.copy() if self._preset is not None else None

    @property
    def parameters_json_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments (a fresh copy each time).

        Optional parameters are simply not required (no ``anyOf`` with ``null``);
        ``additionalProperties`` is ``false``. Fixed values and the preset filter are
        not in it: the model cannot see or change them.
        """
        return self._spec.json_schema()

    @property
    def strict_parameters_json_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments in OpenAI strict form.

        Every property is required, optional ones accept ``null`` (meaning "use the
        default", which the description states), no ``default`` keywords, and
        ``additionalProperties`` is ``false``.
        """
        return self._spec.strict_json_schema()

    def to_openai_tool(self, strict: bool = False) -> OpenAIChatTool:
        """The tool for OpenAI Chat Completions: ``{"type": "function", "function": {...}}``.

        Typed as the SDK's ``ChatCompletionFunctionToolParam``, so it can be passed to
        ``client.chat.completions.create(tools=[...])`` as it is.

        Args:
            strict: Use the strict schema and set ``"strict": true``.
        """
        function: OpenAIFunctionDefinition = {
            "name": self.name,
            "description": self.description,
            "parameters": self.strict_parameters_json_schema
            if strict
            else self.parameters_json_schema,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    def to_openai_responses_tool(self, strict: bool = True) -> OpenAIResponsesTool:
        """The tool for the OpenAI Responses API: ``{"type", "name", "description",
        "parameters", "strict"}``.

        The Responses API treats function tools as strict unless told otherwise, so strict is
        the default here (the strict schema: every property required, optional ones
        nullable). Typed as the SDK's ``FunctionToolParam``.

        Args:
            strict: Use the strict schema (``"strict": true``); ``False`` sends the plain
                schema with ``"strict": false``.
        """
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.strict_parameters_json_schema
            if strict
            else self.parameters_json_schema,
            "strict": bool(strict),
        }

    def to_anthropic_tool(self) -> AnthropicTool:
        """The tool for the Anthropic Messages API: ``{"name", "description", "input_schema"}``.

        Typed as the SDK's ``ToolParam``.
        """
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.parameters_json_schema,
        }

    @property
    def idempotent(self) -> bool:
        """Whether the same call twice has no further effect (an MCP ``idempotentHint``).

        True for closed-world backends (a local or private index); a web search spends
        quota on every call and its answers drift, so it is not claimed there. A connector
        may say otherwise with an ``idempotent`` attribute.
        """
        declared = getattr(self.text_search, "idempotent", None)
        if isinstance(declared, bool):
            return declared
        return not self.open_world

    @property
    def output_json_schema(self) -> dict[str, Any]:
        """JSON schema of the structured result (MCP ``outputSchema``); a fresh copy."""
        return output_schema(self.kind, mapped=self._string_mapper is not None)

    def to_mcp_tool(self) -> dict[str, Any]:
        """The tool as an MCP ``Tool`` (plain JSON): schemas and behaviour hints.

        ``readOnlyHint`` is always true; ``openWorldHint`` says whether the connector reaches
        the open web; ``idempotentHint`` is set only where it holds (see
        `idempotent`); ``outputSchema`` describes the ``structuredContent`` of results.
        """
        annotations: dict[str, Any] = {"readOnlyHint": True, "openWorldHint": self.open_world}
        if self.idempotent:
            annotations["idempotentHint"] = True
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.parameters_json_schema,
            "outputSchema": self.output_json_schema,
            "annotations": annotations,
        }

    # -- invocation -------------------------------------------------------------------

    def parse_arguments(self, arguments: Mapping[str, Any] | str | None) -> ParsedArguments:
        """Validate arguments and return the query and fresh options a call would use.

        Raises:
            InvalidRequestError: The arguments are invalid.
        """
        return self._spec.parse(arguments, self._preset)

    def _method(self) -> str:
        """The connector method that serves this function's kind (``_sync`` added when blocking)."""
        if self.kind == "search" and self._string_mapper is not None:
            return "search"
        if self.kind == "search_results":
            return "get_search_results"
        # Also for "search" without a string mapper: titles and links to cite (see render()).
        return "get_text_search_results"

    async def _answer(self, parsed: ParsedArguments, raise_errors: bool) -> Outcome:
        search = getattr(self.text_search, self._method())
        try:
            return self._render(parsed, await search(parsed.query, parsed.options))
        except Exception as exc:
            return self._failure(exc, raise_errors)
        except BaseException as exc:
            return self._failure(_native_failure(exc, self.text_search), raise_errors)

    def _answer_sync(self, parsed: ParsedArguments, raise_errors: bool) -> Outcome:
        search = getattr(self.text_search, self._method() + "_sync")
        try:
            return self._render(parsed, search(parsed.query, parsed.options))
        except Exception as exc:
            return self._failure(exc, raise_errors)
        except BaseException as exc:
            return self._failure(_native_failure(exc, self.text_search), raise_errors)

    def _parse_or_outcome(
        self, arguments: Mapping[str, Any] | str | None, raise_errors: bool
    ) -> ParsedArguments | Outcome:
        try:
            return self.parse_arguments(arguments)
        except InvalidRequestError as exc:
            if raise_errors:
                raise
            logger.info("search function %s: invalid arguments: %s", self.name, exc)
            return Outcome(invalid_arguments_message(self.name, str(exc)), True)

    def _failure(self, exc: Exception, raise_errors: bool) -> Outcome:
        if raise_errors:
            raise exc
        _tracing.note_failure(exc)
        # A model can trigger InvalidRequestError at will (e.g. a skip the backend cannot page
        # to) and is told so; only what the developer must fix is logged loudly.
        if isinstance(exc, ConfigurationError) or not _is_known(exc):
            logger.warning(
                "search function %s failed: %s", self.name, type(exc).__name__, exc_info=True
            )
        else:
            logger.info("search function %s failed: %s", self.name, type(exc).__name__)
        return Outcome(error_message(exc), True)

    def _render(self, parsed: ParsedArguments, results: SearchResults[Any]) -> Outcome:
        rendered = render(
            self.kind,
            parsed.query,
            parsed.options.skip,
            results,
            self._string_mapper,
            parsed.notes,
        )
        return Outcome(rendered.text, False, rendered.structured, tuple(results))

    def _prepared(
        self,
        arguments: Mapping[str, Any] | str | None,
        raise_errors: bool,
        session: Hashable = None,
    ) -> ParsedArguments | Outcome:
        """The parsed arguments to search with, or the answer when there is nothing to search."""
        parsed = self._parse_or_outcome(arguments, raise_errors)
        if isinstance(parsed, Outcome):
            return parsed
        count = self._guard.repeated(parsed, session) if self._guard is not None else 0
        if not count:
            return parsed
        logger.info("search function %s: same query %d times in a row", self.name, count)
        message = repeat_message(parsed.query, count)
        # The answer has the declared output schema, like every other answer.
        return Outcome(message, False, {"query": parsed.query, "results": [], "message": message})

    def _answered(self, parsed: ParsedArguments, outcome: Outcome, session: Hashable) -> Outcome:
        if self._guard is not None and not outcome.is_error:
            self._guard.record(parsed, session)
        return outcome

    @property
    def tool_type(self) -> str:
        """``gen_ai.tool.type`` of this tool's spans: ``extension`` on the open web, else
        ``datastore`` (OpenTelemetry GenAI conventions)."""
        return "extension" if self.open_world else "datastore"

    async def _run(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        raise_errors: bool = False,
        session: Hashable = None,
    ) -> Outcome:
        """Like `invoke`, but also says whether the text reports an error (for MCP).

        ``session``: whose call this is, for the loop guard (an MCP session; ``None``: the
        one session of direct calls).
        """
        if _tracing.enabled():
            return await _tracing.run_tool(
                self.name,
                self.description,
                self.tool_type,
                arguments,
                lambda: self._call(arguments, raise_errors, session),
            )
        return await self._call(arguments, raise_errors, session)

    def _run_sync(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        raise_errors: bool = False,
        session: Hashable = None,
    ) -> Outcome:
        """Blocking twin of `_run`."""
        if _tracing.enabled():
            return _tracing.run_tool_sync(
                self.name,
                self.description,
                self.tool_type,
                arguments,
                lambda: self._call_sync(arguments, raise_errors, session),
            )
        return self._call_sync(arguments, raise_errors, session)

    def _plan(
        self, arguments: Mapping[str, Any] | str | None, raise_errors: bool, session: Hashable
    ) -> Plan[Call, Outcome]:
        """One tool call, written once for both paths (see `textsearch._twins`); read tools
        replace it."""
        parsed = self._prepared(arguments, raise_errors, session)
        if isinstance(parsed, Outcome):
            return parsed
        answer = yield Call(self._answer_sync, self._answer, (parsed, raise_errors))
        return self._answered(parsed, answer, session)

    async def _call(
        self,
        arguments: Mapping[str, Any] | str | None,
        raise_errors: bool,
        session: Hashable = None,
    ) -> Outcome:
        """One tool call (what `_run` traces)."""
        return await drive(self._plan(arguments, raise_errors, session), perform)

    def _call_sync(
        self,
        arguments: Mapping[str, Any] | str | None,
        raise_errors: bool,
        session: Hashable = None,
    ) -> Outcome:
        """Blocking twin of `_call`."""
        return drive_sync(self._plan(arguments, raise_errors, session), perform_sync)

    async def invoke(
        self, arguments: Mapping[str, Any] | str | None = None, *, raise_errors: bool = False
    ) -> str:
        """Run the search for a tool call and return the text for the model.

        Args:
            arguments: The model's arguments: a dict, or the JSON string providers send.
            raise_errors: Raise instead of answering with an error message (for
                developers who handle errors themselves).

        Returns:
            The results (numbered text or compact JSON, see `create_search_function`),
            or one short sentence saying what went wrong and what to do.

        Raises:
            InvalidRequestError: Only with ``raise_errors=True``: invalid or unknown arguments.
            TextSearchError: Only with ``raise_errors=True``: the search failed.
        """
        return (await self._run(arguments, raise_errors=raise_errors)).text

    def invoke_sync(
        self, arguments: Mapping[str, Any] | str | None = None, *, raise_errors: bool = False
    ) -> str:
        """Blocking twin of `invoke`, using the connector's blocking methods.

        Raises:
            InvalidRequestError: Only with ``raise_errors=True``: invalid or unknown arguments.
            TextSearchError: Only with ``raise_errors=True``: the search failed.
        """
        return self._run_sync(arguments, raise_errors=raise_errors).text

    async def invoke_anthropic(
        self, arguments: Mapping[str, Any] | str | None = None, *, raise_errors: bool = False
    ) -> list[AnthropicToolResultContent]:
        """Run the tool call and return Anthropic content blocks that Claude cites natively.

        Each result is a ``search_result`` block (``source``: its link, ``title``,
        ``content``: its text, citations enabled); a read tool's answer is one such block;
        an error or an empty answer is one text block with the same sentence as
        [invoke][textsearch.plugins.SearchFunction.invoke]. Put the list in a
        ``tool_result``'s ``content`` (or use ``SearchPlugin.anthropic_tool_result``).

        Raises:
            InvalidRequestError: Only with ``raise_errors=True``: invalid arguments.
            TextSearchError: Only with ``raise_errors=True``: the search failed.
        """
        from textsearch.plugins._anthropic import search_result_blocks

        outcome = await self._run(arguments, raise_errors=raise_errors)
        return search_result_blocks(self.name, outcome.text, outcome.is_error, outcome.structured)

    def invoke_anthropic_sync(
        self, arguments: Mapping[str, Any] | str | None = None, *, raise_errors: bool = False
    ) -> list[AnthropicToolResultContent]:
        """Blocking twin of [invoke_anthropic][textsearch.plugins.SearchFunction.invoke_anthropic].

        Raises:
            InvalidRequestError: Only with ``raise_errors=True``: invalid arguments.
            TextSearchError: Only with ``raise_errors=True``: the search failed.
        """
        from textsearch.plugins._anthropic import search_result_blocks

        outcome = self._run_sync(arguments, raise_errors=raise_errors)
        return search_result_blocks(self.name, outcome.text, outcome.is_error, outcome.structured)


def _native_failure(exc: BaseException, text_search: object) -> Exception:
    """A panic in a native library (a BaseException) as a documented error; else re-raised."""
    from textsearch._native import is_native_panic, panic_error

    if not is_native_panic(exc):
        raise exc
    provider = getattr(text_search, "provider_name", None) or type(text_search).__name__
    return panic_error(str(provider), "the search")


def _is_known(exc: Exception) -> bool:
    from textsearch.errors import TextSearchError

    return isinstance(exc, TextSearchError)


def create_search_function(
    text_search: TextSearch,
    *,
    kind: Kind = "search",
    name: str | None = None,
    description: str | None = None,
    parameters: Sequence[SearchParameter] | None = None,
    filter: TextSearchFilter | None = None,
    top: int = DEFAULT_TOP,
    max_top: int = DEFAULT_MAX_TOP,
    string_mapper: Callable[[Any], str] | None = None,
    max_repeats: int | None = DEFAULT_MAX_REPEATS,
    out_of_bounds: OutOfBounds = "clamp",
) -> SearchFunction:
    """Turn a connector into a search function a model can call.

    Works with any object that implements the `TextSearch` protocol.

    Args:
        text_search: The connector to search.
        kind: What the model receives. ``"search"``: numbered text
            (`textsearch.grounding.format_results`) with each result's title, text
            and link, from the connector's ``get_text_search_results`` (with a
            ``string_mapper``: the mapper's text of each of its ``search`` strings).
            ``"text_search_results"``: compact JSON with ``citation``, ``name``, ``value``
            and ``link`` per result. ``"search_results"``: compact JSON of the connector's
            native results, each with ``citation`` and ``link`` (string fields longer than
            2000 characters are cut).
        name: Tool name; defaults to ``search``, ``get_text_search_results`` or
            ``get_search_results`` by kind.
        description: What the model is told; a default per kind.
        parameters: The model-facing parameters, replacing the default
            ``query``/``top``/``skip``. Leave ``top`` out to fix it at ``top=``; leave
            ``skip`` out to always start at the first result. Other parameters need a
            ``filter_field``.
        filter: Preset filter applied to every call; hidden from the model and impossible
            to remove or widen (the model's filter parameters are AND-ed after it). It is
            copied now, so later changes to the object do not affect the function.
        top: Default number of results (fixed when ``top`` is not a parameter).
        max_top: Largest ``top`` the model may ask for. Lowered to the connector's own
            ``max_top`` when that is smaller.
        string_mapper: Turns each result (string, ``TextSearchResult`` or native model,
            by kind; strings for ``"search"``) into the text the model sees; the texts are
            then numbered like the ``"search"`` kind.
        max_repeats: Loop guard: the ``max_repeats``-th identical call in a row (same
            query after case folding and whitespace collapsing, same options) gets a
            short note that the model is repeating itself instead of another search;
            ``None`` turns the guard off. The count belongs to this function object, so
            give each conversation its own function (or use ``None``) when one function
            serves several conversations at once.
        out_of_bounds: A ``top`` or ``skip`` outside its bounds (``top`` above
            ``max_top``, say): ``"clamp"`` (default) brings it within them and the result
            starts with a note saying so (``notes`` in JSON results); ``"reject"``
            answers with a message asking for a value within the bounds.

    Returns:
        The search function.

    Raises:
        ConfigurationError: Misuse caught at creation: not a ``TextSearch``, unknown kind,
            bad name, bad parameters (duplicates, a parameter shadowing ``query``,
            ``top``, ``skip``, missing ``query``, a parameter without effect), ``top``
            outside ``1..max_top``, a filter that is not a ``TextSearchFilter``, an
            unknown ``out_of_bounds``, or a ``max_repeats`` that is neither ``None`` nor a
            whole number >= 2.
    """
    if not isinstance(text_search, TextSearch):
        raise ConfigurationError(
            f"text_search must implement the TextSearch protocol, got {type(text_search).__name__}"
        )
    if kind not in _KINDS:
        raise ConfigurationError(f"kind must be one of {', '.join(_KINDS)}, got {kind!r}")
    function_name = check_tool_name(name if name is not None else _DEFAULT_NAMES[kind])
    if description is None:
        description = _DEFAULT_DESCRIPTIONS[kind]
    if not isinstance(description, str) or not description.strip():
        raise ConfigurationError("description must be a non-empty string")
    for label, value in (("top", top), ("max_top", max_top)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigurationError(f"{label} must be a whole number of at least 1, got {value!r}")
    connector_max = getattr(text_search, "max_top", None)
    if isinstance(connector_max, int) and not isinstance(connector_max, bool):
        if connector_max >= 1:
            max_top = min(max_top, connector_max)
    if top > max_top:
        raise ConfigurationError(f"top={top} is above max_top={max_top}")
    if filter is not None and not isinstance(filter, TextSearchFilter):
        raise ConfigurationError(f"filter must be a TextSearchFilter, not {type(filter).__name__}")
    if string_mapper is not None and not callable(string_mapper):
        raise ConfigurationError("string_mapper must be callable")
    spec = ParameterSpec(
        default_parameters() if parameters is None else parameters,
        top=top,
        max_top=max_top,
        out_of_bounds=out_of_bounds,
    )
    return SearchFunction(
        text_search,
        kind=kind,
        name=function_name,
        description=description,
        spec=spec,
        preset_filter=filter,
        top=top,
        max_top=max_top,
        string_mapper=string_mapper,
        max_repeats=max_repeats,
    )
