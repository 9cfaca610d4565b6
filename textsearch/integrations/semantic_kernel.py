"""Semantic Kernel: a search plugin as a ``KernelPlugin``.

::

    from semantic_kernel import Kernel
    from textsearch.integrations.semantic_kernel import as_kernel_plugin

    kernel = Kernel()
    kernel.add_plugin(as_kernel_plugin(plugin))
    result = await kernel.invoke(plugin_name="search", function_name="search", query="retry")

Needs ``pip install "textsearch-sdk[semantic-kernel]"``.
"""

from __future__ import annotations

import re
from typing import Any

from textsearch.integrations._core import require

require("semantic_kernel", extra="semantic-kernel", package="semantic-kernel")

from semantic_kernel.functions import (
    KernelFunctionFromMethod,
    KernelParameterMetadata,
    KernelPlugin,
    kernel_function,
)

from textsearch.base import TextSearch
from textsearch.errors import ConfigurationError
from textsearch.integrations._core import call, resolve_functions
from textsearch.plugins import SearchFunction, SearchPlugin

__all__ = ["as_kernel_plugin"]

# Semantic Kernel joins plugin and function names with "-", so a plugin name may not hold one.
_PLUGIN_NAME = re.compile(r"^[0-9A-Za-z_]{1,64}$")
_TYPE_NAMES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


def _parameters(function: SearchFunction) -> list[KernelParameterMetadata]:
    schema = function.parameters_json_schema
    required = set(schema["required"])
    parameters: list[KernelParameterMetadata] = []
    for name, prop in schema["properties"].items():
        parameters.append(
            KernelParameterMetadata(
                name=name,
                description=prop.get("description"),
                default_value=prop.get("default"),
                type=_TYPE_NAMES.get(prop.get("type", "string"), "str"),
                # No type_object: Semantic Kernel would coerce with the type itself
                # (bool("false") is True); the function validates the values instead.
                type_object=None,
                is_required=name in required,
                # The function's own property schema, so the model sees the same bounds,
                # choices and descriptions as with every other integration.
                schema_data=prop,
            )
        )
    return parameters


def _kernel_function(function: SearchFunction, plugin_name: str) -> KernelFunctionFromMethod:
    @kernel_function(name=function.name, description=function.description)
    async def run(**arguments: Any) -> str:
        # Semantic Kernel has no retry signal; an exception would reach the model as
        # "An error occurred while invoking the function ..." plus a logged traceback. The
        # text says what went wrong and whether another call can help.
        return (await call(function, arguments)).text

    return KernelFunctionFromMethod(
        method=run, plugin_name=plugin_name, parameters=_parameters(function)
    )


def as_kernel_plugin(
    source: SearchPlugin | SearchFunction | TextSearch,
    *,
    name: str | None = None,
    description: str | None = None,
) -> KernelPlugin:
    """A search as a Semantic Kernel ``KernelPlugin`` (``kernel.add_plugin(...)``).

    One kernel function per search function, with its name, description and parameters;
    only the declared parameters reach the search (Semantic Kernel refuses others in
    automatic function calling, and drops them from ``kernel.invoke`` arguments). Invalid
    arguments and failed searches answer with one short sentence telling the model what to
    do. The preset filter and fixed values cannot be changed by the model.

    Args:
        source: A ``SearchPlugin`` (every function); a ``SearchFunction``; or a connector
            (searched through ``create_search_function`` with its defaults).
        name: Plugin name; defaults to the ``SearchPlugin``'s name, else ``"search"``.
            Letters, digits and ``_`` only (Semantic Kernel joins plugin and function
            names with ``-``).
        description: Plugin description; defaults to the ``SearchPlugin``'s, else the
            function's.

    Returns:
        The ``KernelPlugin``.

    Raises:
        ConfigurationError: ``source`` is none of the above, or the plugin name holds a
            character other than letters, digits and ``_``.
    """
    functions = resolve_functions(source)
    if name is None:
        name = source.name if isinstance(source, SearchPlugin) else "search"
    if not isinstance(name, str) or not _PLUGIN_NAME.match(name):
        raise ConfigurationError(
            f"Semantic Kernel plugin name {name!r} is not valid: use 1 to 64 letters, digits "
            "or '_' (pass name=...)"
        )
    if description is None:
        description = (
            source.description if isinstance(source, SearchPlugin) else functions[0].description
        )
    return KernelPlugin(
        name=name,
        description=description,
        functions=[_kernel_function(f, name) for f in functions],
    )
