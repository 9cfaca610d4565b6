"""Grounding helpers: search results as text, citations, budgets and prompts for models.

``format_results``, ``Citations``, ``Budget``, ``Fencing``, ``render_prompt`` and the ready
templates need nothing beyond the core; ``ground`` and ``fetch_pages`` (which bring in
httpx) are loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textsearch import _lazy
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
    from textsearch.grounding.fetch import FetchedPage, FetchOptions, fetch_pages, fetch_pages_sync
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
    "FetchOptions",
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

_LAZY = _lazy.by_module(
    {
        "textsearch.grounding.fetch": (
            "FetchOptions",
            "FetchedPage",
            "fetch_pages",
            "fetch_pages_sync",
        ),
        "textsearch.grounding.pipeline": ("GroundedPrompt", "ground", "ground_sync"),
    }
)

__getattr__ = _lazy.lazy_getattr(__name__, globals(), _LAZY)
__dir__ = _lazy.public_dir(globals())
