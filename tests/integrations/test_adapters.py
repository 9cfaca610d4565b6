"""What every adapter shares: lazy imports with an install hint, input resolution, the policy."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

from tests.integrations._support import (
    HOSTILE_ARGUMENTS,
    assert_preset_kept,
    make_search,
    preset_function,
)
from textsearch.errors import BadRequestError, ConfigurationError, UnsupportedFilterError
from textsearch.integrations._core import call, call_sync, resolve_functions
from textsearch.plugins import create_search_plugin

# module -> (framework module it needs, extra that installs it)
ADAPTERS = {
    "langchain": ("langchain_core", "langchain"),
    "llama_index": ("llama_index.core", "llama-index"),
    "pydantic_ai": ("pydantic_ai", "pydantic-ai"),
    "openai_agents": ("agents", "openai-agents"),
    "agent_framework": ("agent_framework", "agent-framework"),
    "semantic_kernel": ("semantic_kernel", "semantic-kernel"),
}
FRAMEWORKS = sorted({m.split(".")[0] for m, _ in ADAPTERS.values()} | {"llama_index"})


def test_importing_textsearch_and_the_package_loads_no_framework() -> None:
    probe = (
        "import sys, json, textsearch, textsearch.integrations, textsearch.plugins\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize("module", sorted(ADAPTERS))
def test_a_missing_framework_is_an_import_error_naming_the_extra(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    framework, extra = ADAPTERS[module]
    # None in sys.modules makes "import <framework>" fail as if it were not installed.
    monkeypatch.setitem(sys.modules, framework, None)  # type: ignore[arg-type]
    monkeypatch.delitem(sys.modules, f"textsearch.integrations.{module}", raising=False)
    with pytest.raises(ImportError) as caught:
        importlib.import_module(f"textsearch.integrations.{module}")
    assert f'pip install "textsearch-sdk[{extra}]"' in str(caught.value)


@pytest.mark.parametrize("module", sorted(ADAPTERS))
def test_every_adapter_module_lists_its_public_names(module: str) -> None:
    adapter = importlib.import_module(f"textsearch.integrations.{module}")
    assert adapter.__all__
    for name in adapter.__all__:
        assert getattr(adapter, name).__doc__


def test_resolution_of_functions_plugins_and_connectors() -> None:
    search = make_search()
    function = preset_function(search)
    assert resolve_functions(function) == [function]
    assert resolve_functions(create_search_plugin(search, functions=[function])) == [function]
    (default,) = resolve_functions(search)
    assert default.name == "search" and default.text_search is search
    with pytest.raises(ConfigurationError, match="got int"):
        resolve_functions(3)


@pytest.mark.anyio
@pytest.mark.parametrize("arguments", [HOSTILE_ARGUMENTS, json.dumps(HOSTILE_ARGUMENTS)])
async def test_undeclared_arguments_are_a_model_error_before_any_search(arguments: Any) -> None:
    search = make_search()
    function = preset_function(search)
    for reply in (await call(function, arguments), call_sync(function, arguments)):
        assert reply.model_error and reply.failed
        assert reply.text.startswith("Invalid arguments for get_text_search_results")
        assert "filter" in reply.text and "site" in reply.text
    assert search.calls == []


def test_echoed_argument_names_are_bounded() -> None:
    search = make_search()
    arguments = {"query": "retry", **{f"x{i}_{'y' * 200}": 1 for i in range(20)}}
    reply = call_sync(preset_function(search), arguments)
    assert reply.model_error
    assert len(reply.text) < 500


def test_a_request_the_backend_refuses_is_a_model_error_but_an_unsupported_filter_is_not() -> None:
    refused = call_sync(
        preset_function(make_search(error=BadRequestError("query too long"))), {"query": "retry"}
    )
    assert refused.model_error and "shorter or simpler query" in refused.text
    unsupported = call_sync(
        preset_function(make_search(error=UnsupportedFilterError("no site filter"))),
        {"query": "retry"},
    )
    assert unsupported.failed and not unsupported.model_error
    assert "retrying will not help" in unsupported.text


def test_an_unexpected_connector_bug_is_text_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    search = make_search()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("secret-internal-detail")

    search.get_text_search_results_sync = broken  # type: ignore[method-assign]
    with caplog.at_level("WARNING", logger="textsearch.integrations"):
        reply = call_sync(preset_function(search), {"query": "retry"})
    assert reply.failed and not reply.model_error
    assert "secret-internal-detail" not in reply.text
    assert "KeyError" in caplog.text


@pytest.mark.anyio
async def test_successful_calls_keep_the_preset_on_both_paths() -> None:
    search = make_search()
    function = preset_function(search)
    assert not (await call(function, {"query": "retry"})).failed
    assert not call_sync(function, '{"query": "retry", "top": 1}').failed
    assert len(search.calls) == 2
    assert_preset_kept(search)


# module -> (tool adapter, module of the framework's tool class, its name)
TOOL_ADAPTERS = {
    "langchain": ("as_langchain_tool", "langchain_core.tools", "BaseTool"),
    "llama_index": ("as_llama_index_tool", "llama_index.core.tools", "FunctionTool"),
    "pydantic_ai": ("as_pydantic_ai_tool", "pydantic_ai", "Tool"),
    "openai_agents": ("as_openai_agents_tool", "agents", "FunctionTool"),
    "agent_framework": ("as_agent_framework_tool", "agent_framework", "FunctionTool"),
}


@pytest.mark.parametrize("module", sorted(TOOL_ADAPTERS))
def test_every_tool_adapter_keeps_its_name_docs_and_type_hints(module: str) -> None:
    import inspect
    import typing

    name, framework, class_name = TOOL_ADAPTERS[module]
    adapter = getattr(importlib.import_module(f"textsearch.integrations.{module}"), name)
    tool_class = getattr(importlib.import_module(framework), class_name)
    assert adapter.__name__ == name and adapter.__module__ == f"textsearch.integrations.{module}"
    assert list(inspect.signature(adapter).parameters) == ["source"]
    hints = typing.get_type_hints(adapter)
    assert hints["return"] == tool_class | list[tool_class]
    doc = inspect.getdoc(adapter) or ""
    assert doc.count("Args:") == 1 and f"A ``{class_name}`` (a list of them" in doc
    assert "ConfigurationError: For any other ``source``." in doc
    with pytest.raises(ConfigurationError, match="got int"):
        adapter(3)
