"""Grounding helpers: search results as text, citations, budgets and prompts for models.

``format_results``, ``Citations``, ``Budget``, ``Fencing``, ``render_prompt`` and the ready
templates need nothing beyond the core; ``ground`` and ``fetch_pages`` (which bring in
httpx) are loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from textsearch.grounding.budget import DEFAULT_MARKER, Budget, tiktoken_tokenizer, truncate_text
from textsearch.grounding.citations import Citations, Source
from textsearch.grounding.fencing import DEFAULT_FENCE_INSTRUCTION, Fencing, neutralize
from textsearch.grounding.formatting import LABELS, BudgetReport, format_results
from textsearch.grounding.templates import (
    ANSWER_WITH_CITATIONS,
    ANSWER_WITH_CITATIONS_AND_DATES,
    TEMPLATES,
    PromptTemplate,
    render_prompt,
)

if TYPE_CHECKING:
    from textsearch.grounding.fetch import FetchedPage, fetch_pages, fetch_pages_sync
    from textsearch.grounding.pipeline import GroundedPrompt, ground, ground_sync

__all__ = [
    "ANSWER_WITH_CITATIONS",
    "ANSWER_WITH_CITATIONS_AND_DATES",
    "DEFAULT_FENCE_INSTRUCTION",
    "DEFAULT_MARKER",
    "LABELS",
    "TEMPLATES",
    "Budget",
    "BudgetReport",
    "Citations",
    "FetchedPage",
    "Fencing",
    "GroundedPrompt",
    "PromptTemplate",
    "Source",
    "fetch_pages",
    "fetch_pages_sync",
    "format_results",
    "ground",
    "ground_sync",
    "neutralize",
    "render_prompt",
    "tiktoken_tokenizer",
    "truncate_text",
]

_LAZY: dict[str, str] = {
    "FetchedPage": "textsearch.grounding.fetch",
    "fetch_pages": "textsearch.grounding.fetch",
    "fetch_pages_sync": "textsearch.grounding.fetch",
    "GroundedPrompt": "textsearch.grounding.pipeline",
    "ground": "textsearch.grounding.pipeline",
    "ground_sync": "textsearch.grounding.pipeline",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
