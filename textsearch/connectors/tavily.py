"""The public import path of `textsearch.connectors.web.tavily`."""

from textsearch.connectors.web.tavily import TavilyResult, TavilyTextSearch

__all__ = ["TavilyTextSearch", "TavilyResult"]
