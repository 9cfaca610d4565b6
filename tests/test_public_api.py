from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import textsearch
import textsearch.connectors


@pytest.mark.parametrize("name", sorted(textsearch.__all__))
def test_every_public_name_imports(name: str) -> None:
    assert getattr(textsearch, name) is not None


@pytest.mark.parametrize("name", sorted(textsearch.connectors.__all__))
def test_every_connector_name_imports_from_both_places(name: str) -> None:
    value = getattr(textsearch.connectors, name)
    assert getattr(textsearch, name) is value
    module = importlib.import_module(textsearch.connectors.LAZY_EXPORTS[name])
    assert getattr(module, name) is value


def test_lazy_tables_point_only_at_listed_names() -> None:
    assert set(textsearch.connectors.LAZY_EXPORTS) == set(textsearch.connectors.__all__)
    assert set(textsearch.connectors.__all__) <= set(textsearch.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        textsearch.NoSuchThing  # noqa: B018
    with pytest.raises(AttributeError):
        textsearch.connectors.NoSuchThing  # noqa: B018


def test_import_textsearch_loads_no_provider_sdk_and_no_connector() -> None:
    probe = (
        "import sys, json, textsearch\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('azure','mcp','openai','anthropic','jinja2','aiohttp','tiktoken','pydantic','httpx') "
        "or m.startswith('textsearch.connectors.'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_using_the_local_connector_loads_no_provider_sdk() -> None:
    probe = (
        "import sys, json\n"
        "from textsearch import LocalTextSearch\n"
        "s = LocalTextSearch()\n"
        "s.add_documents([{'id': '1', 'text': 'hello'}])\n"
        "s.search_sync('hello')\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'azure','mcp','openai','anthropic','jinja2','aiohttp','tiktoken'})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_py_typed_marker_ships() -> None:
    from pathlib import Path

    assert (Path(textsearch.__file__).parent / "py.typed").exists()
