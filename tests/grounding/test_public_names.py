from __future__ import annotations

import importlib

import textsearch.grounding as grounding


def test_every_public_name_imports() -> None:
    for name in grounding.__all__:
        assert getattr(grounding, name) is not None, name
    assert callable(grounding.ground) and callable(grounding.ground_sync)
    assert callable(grounding.fetch_pages) and callable(grounding.fetch_pages_sync)
    assert set(grounding.__all__) <= set(dir(grounding))


def test_submodules_import() -> None:
    for module in (
        "budget",
        "citations",
        "fencing",
        "formatting",
        "templates",
        "fetch",
        "pipeline",
    ):
        loaded = importlib.import_module(f"textsearch.grounding.{module}")
        exported = getattr(loaded, "__all__", ())
        assert exported, f"{module} declares what it exports"
        missing = [name for name in exported if not hasattr(loaded, name)]
        assert missing == [], f"{module}.__all__ names what it does not define: {missing}"
