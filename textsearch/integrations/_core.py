"""What every framework adapter shares: input resolution, the call policy, lazy imports.

An adapter turns one tool call into a `Reply` and maps it onto its framework: a
``model_error`` reply becomes the framework's retry signal where it has one; any other reply is
plain text for the model. The policy itself lives in `SearchFunction`
(preset filter copied and AND-ed, fixed values hidden, bounds clamped); this module only refuses
arguments the schema does not declare and classifies failures.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import GenericAlias
from typing import Any, Protocol, TypeVar, overload

from textsearch._types import SearchOptions, TextSearchFilter
from textsearch.base import TextSearch
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    TextSearchError,
    UnsupportedFilterError,
)
from textsearch.plugins import SearchFunction, SearchPlugin, create_search_function
from textsearch.plugins._output import error_message, invalid_arguments_message

T = TypeVar("T")

__all__ = [
    "Reply",
    "ToolAdapter",
    "call",
    "call_sync",
    "check_text_search",
    "missing_extra",
    "require",
    "one_or_many",
    "resolve_functions",
    "retrieval_options",
    "tool_adapter",
]

logger = logging.getLogger("textsearch.integrations")

_MAX_ECHOED_NAMES = 5
_MAX_ECHOED_NAME_CHARS = 40


def missing_extra(extra: str, package: str) -> str:
    """The message of the ImportError raised when a framework is not installed."""
    return (
        f"textsearch.integrations needs {package} for this adapter: "
        f'pip install "textsearch-sdk[{extra}]"'
    )


def require(module: str, *, extra: str, package: str) -> None:
    """Import a framework's top-level module, or say which extra installs it.

    Only the framework's own absence is translated: an ImportError from inside an installed
    framework (a broken or too old install) keeps its own message.

    Raises:
        ImportError: The framework is not installed; the message names the extra.
    """
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        # exc.name is the module that is missing: the framework itself or a package above it.
        if exc.name is not None and (exc.name == module or module.startswith(exc.name + ".")):
            raise ImportError(missing_extra(extra, package), name=module) from exc
        raise


def one_or_many(source: object, make: Callable[[SearchFunction], T]) -> T | list[T]:
    """One framework tool per search function of ``source``: a list for a plugin, else one.

    Raises:
        ConfigurationError: ``source`` is not a function, a plugin or a connector.
    """
    tools = [make(function) for function in resolve_functions(source)]
    return tools if isinstance(source, SearchPlugin) else tools[0]


class ToolAdapter(Protocol[T]):
    """The type of every ``as_<framework>_tool``: one tool, or a list of them for a plugin."""

    @overload
    def __call__(self, source: SearchPlugin) -> list[T]: ...

    @overload
    def __call__(self, source: SearchFunction | TextSearch) -> T: ...


# The part of every as_<framework>_tool docstring that does not depend on the framework.
_TOOL_ADAPTER_SECTIONS = """\
Args:
    source: A search function, a plugin (then one tool per function, in order, in a
        list) or a connector (through ``create_search_function``'s defaults).

Returns:
    A ``{returns}`` (a list of them for a plugin).

Raises:
    ConfigurationError: For any other ``source``.
"""


def tool_adapter(
    make: Callable[[SearchFunction], T], *, name: str, module: str, returns: type[Any], doc: str
) -> ToolAdapter[T]:
    """Build a public ``as_<framework>_tool`` function around one framework's tool factory.

    Args:
        make: Turns one search function into the framework's tool.
        name: The public function's name.
        module: The adapter module that exports it (``__name__``).
        returns: The framework's tool class (for the docstring and the return annotation).
        doc: What the tool does in this framework: the docstring's summary and body; the
            ``Args``/``Returns``/``Raises`` sections, the same for every adapter, are added.
    """

    @overload
    def adapter(source: SearchPlugin) -> list[T]: ...

    @overload
    def adapter(source: SearchFunction | TextSearch) -> T: ...

    def adapter(source: SearchFunction | SearchPlugin | TextSearch) -> T | list[T]:
        return one_or_many(source, make)

    adapter.__name__ = adapter.__qualname__ = name
    adapter.__module__ = module
    # Objects, not strings: get_type_hints would look the names up in this module. help() and
    # inspect.signature then show the framework's class rather than the type variable.
    adapter.__annotations__ = {
        "source": SearchFunction | SearchPlugin | TextSearch,
        "return": returns | GenericAlias(list, (returns,)),
    }
    sections = _TOOL_ADAPTER_SECTIONS.format(returns=returns.__name__)
    adapter.__doc__ = f"{inspect.cleandoc(doc)}\n\n{sections}"
    return adapter


def resolve_functions(source: object) -> list[SearchFunction]:
    """The search functions an adapter exposes for ``source``.

    Raises:
        ConfigurationError: ``source`` is not a ``SearchFunction``, ``SearchPlugin`` or
            ``TextSearch``.
    """
    if isinstance(source, SearchFunction):
        return [source]
    if isinstance(source, SearchPlugin):
        return list(source.functions)
    if isinstance(source, TextSearch):
        return [create_search_function(source)]
    raise ConfigurationError(
        "expected a SearchFunction, a SearchPlugin or a TextSearch connector, "
        f"got {type(source).__name__}"
    )


@dataclass(frozen=True)
class Reply:
    """The outcome of one tool call, as text for the model.

    Attributes:
        text: Results, or one short sentence saying what went wrong and what to do.
        model_error: The model's call was at fault (unknown or invalid arguments, a request
            the search refuses); calling again with other arguments can succeed.
        failed: The call produced no results because of an error (``model_error`` or not).
    """

    text: str
    model_error: bool = False
    failed: bool = False


def _shorten(name: str) -> str:
    return name if len(name) <= _MAX_ECHOED_NAME_CHARS else name[: _MAX_ECHOED_NAME_CHARS - 1] + "…"


def _unknown_arguments(function: SearchFunction, names: Sequence[str]) -> Reply:
    shown = ", ".join(repr(_shorten(n)) for n in sorted(names)[:_MAX_ECHOED_NAMES])
    if len(names) > _MAX_ECHOED_NAMES:
        shown += ", …"
    accepted = ", ".join(p.name for p in function.parameters)
    detail = f"unknown argument(s) {shown}; the accepted arguments are {accepted}"
    return Reply(invalid_arguments_message(function.name, detail), model_error=True, failed=True)


def _check(function: SearchFunction, arguments: Mapping[str, Any] | str | None) -> Reply | None:
    """Validate before searching; a reply here means the model must correct its call."""
    try:
        parsed = function.parse_arguments(arguments)
    except InvalidRequestError as exc:
        text = invalid_arguments_message(function.name, str(exc))
        return Reply(text, model_error=True, failed=True)
    if parsed.ignored:
        # The schema says additionalProperties: false. An argument it does not declare (a
        # "filter", a "site" the developer did not expose) is refused rather than dropped, so
        # the model learns that it cannot steer the hidden part of the search.
        return _unknown_arguments(function, parsed.ignored)
    return None


def _failure(function: SearchFunction, exc: Exception) -> Reply:
    text = error_message(exc)
    if isinstance(exc, InvalidRequestError) and not isinstance(exc, UnsupportedFilterError):
        # The search refused what the model asked for (a skip it cannot page to, a query the
        # backend rejects): the model can fix that. An unsupported filter field is the
        # developer's to fix, so retrying would only burn the model's retries.
        logger.info("search function %s: request refused: %s", function.name, type(exc).__name__)
        return Reply(text, model_error=True, failed=True)
    if isinstance(exc, ConfigurationError) or not isinstance(exc, TextSearchError):
        logger.warning(
            "search function %s failed: %s", function.name, type(exc).__name__, exc_info=True
        )
    else:
        logger.info("search function %s failed: %s", function.name, type(exc).__name__)
    return Reply(text, failed=True)


async def call(function: SearchFunction, arguments: Mapping[str, Any] | str | None) -> Reply:
    """Run one tool call with the connector's async methods.

    Never raises for a bad call or a failed search (the reply says it); cancellation and
    ``BaseException`` pass through.
    """
    rejected = _check(function, arguments)
    if rejected is not None:
        return rejected
    try:
        text = await function.invoke(arguments, raise_errors=True)
    except Exception as exc:
        return _failure(function, exc)
    return Reply(text)


def call_sync(function: SearchFunction, arguments: Mapping[str, Any] | str | None) -> Reply:
    """Blocking twin of `call`, with the connector's blocking methods."""
    rejected = _check(function, arguments)
    if rejected is not None:
        return rejected
    try:
        text = function.invoke_sync(arguments, raise_errors=True)
    except Exception as exc:
        return _failure(function, exc)
    return Reply(text)


def retrieval_options(top: int, filter: TextSearchFilter | None) -> SearchOptions:
    """The options every retrieval of a retriever uses (the filter copied now).

    Raises:
        ConfigurationError: ``top`` is not a whole number of at least 1, or ``filter`` is not
            a ``TextSearchFilter``.
    """
    if filter is not None and not isinstance(filter, TextSearchFilter):
        raise ConfigurationError(f"filter must be a TextSearchFilter, not {type(filter).__name__}")
    try:
        return SearchOptions(top=top, filter=filter.copy() if filter is not None else None)
    except InvalidRequestError as exc:
        raise ConfigurationError(f"retriever options: {exc}") from None


def check_text_search(search: object) -> TextSearch:
    """Return ``search`` if it is a connector.

    Raises:
        ConfigurationError: It does not implement the ``TextSearch`` protocol.
    """
    if not isinstance(search, TextSearch):
        raise ConfigurationError(
            f"search must implement the TextSearch protocol, got {type(search).__name__}"
        )
    return search
