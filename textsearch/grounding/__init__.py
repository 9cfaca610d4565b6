"""Grounding helpers: search results as text, citations and prompts for models."""

from __future__ import annotations

from textsearch.grounding.formatting import format_results

__all__ = ["format_results"]
