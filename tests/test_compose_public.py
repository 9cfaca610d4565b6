"""Public names of composition (DESIGN §10.4) and its place in the layers (§1)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import textsearch
import textsearch.compose
import textsearch.errors

CONTRACT = [
    "FallbackTextSearch",
    "FusedTextSearch",
    "FusedResult",
    "CachedTextSearch",
    "canonical_link",
    "AllProvidersFailedError",
]


@pytest.mark.parametrize("name", CONTRACT)
def test_contract_names_import_from_compose_and_textsearch(name: str) -> None:
    assert name in textsearch.compose.__all__ and name in textsearch.__all__
    assert getattr(textsearch, name) is getattr(textsearch.compose, name)


def test_error_is_in_the_error_tree() -> None:
    assert "AllProvidersFailedError" in textsearch.errors.__all__
    assert textsearch.errors.AllProvidersFailedError is textsearch.compose.AllProvidersFailedError


@pytest.mark.parametrize("name", textsearch.compose.__all__)
def test_every_compose_name_imports(name: str) -> None:
    assert getattr(textsearch.compose, name) is not None


def test_compose_uses_only_the_core() -> None:
    # ``textsearch.connectors`` itself is the lazy name table that ``import textsearch``
    # reads (it imports no connector); any connector module under it must stay unloaded.
    probe = (
        "import sys, json, textsearch.compose\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith("
        "('textsearch.connectors.', 'textsearch.plugins', 'textsearch.grounding', "
        "'textsearch.cli', 'textsearch.integrations')))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
